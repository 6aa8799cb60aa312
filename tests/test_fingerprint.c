/*  test_fingerprint — failure fingerprints: the same bug with other ids or
 *  values groups together, different bugs do not, the normalisation table,
 *  top frames of each stack style, the 512-byte UTF-8-safe cut, empty
 *  inputs, literal (stored) values, and the FailedEvent body form. */
#include "dlq_json.h"
#include "fingerprint.h"
#include "test_support.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#define LIT(s) s, sizeof (s) - 1

/* ------------------------------------------------------------- helpers */

static char *
normalised (const char *message)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_fingerprint_normalise_message (message, strlen (message), &out);
    return dlq_buf_steal (&out, NULL);
}

static char *
frames (const char *stack, size_t max_frames, size_t *count)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    *count = dlq_fingerprint_top_frames (stack, strlen (stack), max_frames, &out);
    return dlq_buf_steal (&out, NULL);
}

static dlq_fingerprint_t
fp_of (const char *type, const char *message, const char *stack)
{
    dlq_fingerprint_t fp;
    dlq_fingerprint_of (type, message, message ? strlen (message) : 0,
                        stack, stack ? strlen (stack) : 0, &fp);
    return fp;
}

static void
expect_same (const char *type, const char *m1, const char *s1, const char *m2, const char *s2)
{
    dlq_fingerprint_t a = fp_of (type, m1, s1), b = fp_of (type, m2, s2);
    cr_expect_str_eq (a.hex, b.hex, "\"%s\" and \"%s\" should group together (%s / %s)",
                      m1, m2, a.normalised, b.normalised);
}

static void
expect_different (const char *t1, const char *m1, const char *s1,
                  const char *t2, const char *m2, const char *s2)
{
    dlq_fingerprint_t a = fp_of (t1, m1, s1), b = fp_of (t2, m2, s2);
    cr_expect_str_neq (a.hex, b.hex, "%s \"%s\" and %s \"%s\" should not group together",
                       t1, m1, t2, m2);
}

#define JAVA_STACK(line) \
    "com.acme.NotFoundException: not found\n" \
    "\tat com.acme.Orders.find(Orders.java:" line ")\n" \
    "\tat com.acme.Orders.handle(Orders.java:88)\n" \
    "\tat com.acme.Api.post(Api.java:12)\n" \
    "\tat java.base/java.lang.Thread.run(Thread.java:833)\n"

/* ---------------------------------------------------------- same bug */

Test (fingerprint, the_same_bug_with_other_ids_and_values_is_one_group)
{
    const char *t = "com.acme.NotFoundException";
    expect_same (t, "Order 65f0a1b2c3d4e5f601234567 not found", JAVA_STACK ("42"),
                    "Order 65f0b9e8d7c6b5a4f3e2d1c0 not found", JAVA_STACK ("42"));
    expect_same (t, "timeout after 3000 ms calling 10.0.0.5:8080", NULL,
                    "timeout after 4000 ms calling 192.168.1.17:443", NULL);
    expect_same (t, "duplicate key 'abc-123'", NULL, "duplicate key 'xyz-9'", NULL);
    expect_same (t, "event c2e8a5b6-0f1e-4c3a-9b7d-2a1f0e9d8c7b rejected", NULL,
                    "event 0190F1D2-6C4E-7A01-8B2C-3D4E5F607182 rejected", NULL);
    expect_same (t, "lock held since 2026-06-09T14:32:11.123Z", NULL,
                    "lock held since 2025-12-31T23:59:59+01:00", NULL);
    expect_same (t, "balance -12.50 below limit 1,000", NULL, "balance 3 below limit 250", NULL);
    expect_same (t, "bad pointer 0x7ffd5e8c", NULL, "bad pointer 0xDEAD", NULL);
    expect_same (t, "row   conflict\n\ton  table", NULL, " row conflict on table ", NULL);
}

Test (fingerprint, a_changed_line_number_is_the_same_frame)
{
    expect_same ("com.acme.NotFoundException", "not found", JAVA_STACK ("42"),
                 "not found", JAVA_STACK ("57"));
}

/* Only the top DLQ_FINGERPRINT_FRAMES frames count. */
Test (fingerprint, frames_below_the_top_ones_do_not_count)
{
    const char *deep1 = "E: x\n\tat a.A.f(A.java:1)\n\tat a.A.g(A.java:2)\n\tat a.A.h(A.java:3)\n"
                        "\tat a.B.one(B.java:4)\n";
    const char *deep2 = "E: x\n\tat a.A.f(A.java:1)\n\tat a.A.g(A.java:2)\n\tat a.A.h(A.java:3)\n"
                        "\tat a.C.two(C.java:9)\n";
    expect_same ("E", "x", deep1, "x", deep2);
}

/* ----------------------------------------------------- different bugs */

Test (fingerprint, different_bugs_are_different_groups)
{
    expect_different ("com.acme.NotFoundException", "not found", JAVA_STACK ("42"),
                      "com.acme.GoneException", "not found", JAVA_STACK ("42"));
    expect_different ("E", "Order 65f0a1b2c3d4e5f601234567 not found", NULL,
                      "E", "Customer 65f0a1b2c3d4e5f601234567 not found", NULL);
    expect_different ("E", "timeout after 3000 ms", NULL, "E", "timeout after 3000 s", NULL);
    expect_different ("E", "not found",
                      "E\n\tat com.acme.Orders.find(Orders.java:42)",
                      "E", "not found",
                      "E\n\tat com.acme.Orders.delete(Orders.java:42)");
    expect_different ("E", "x", "E\n\tat a.A.f(A.java:1)", "E", "x", "E\n\tat a.A.f(B.java:1)");
    expect_different ("E", "x", "E\n\tat a.A.f(A.java:1)", "E", "x", NULL);
    expect_different ("E", "utf8 decode failed", NULL, "E", "utf16 decode failed", NULL);
    /* the separators keep the fields apart */
    expect_different ("ab", "c", NULL, "a", "bc", NULL);
}

/* ------------------------------------------------------ normalisation */

typedef struct {
    const char *in;
    const char *out;
} norm_case_t;

static const norm_case_t norm_cases [] = {
    /* uuid, any case; a word that merely contains one is left alone */
    { "id c2e8a5b6-0f1e-4c3a-9b7d-2A1F0E9D8C7B gone", "id <uuid> gone" },
    { "id=c2e8a5b6-0f1e-4c3a-9b7d-2a1f0e9d8c7b,", "id=<uuid>," },
    /* quoted values: the quotes go too; apostrophes are not quotes */
    { "duplicate key 'abc-123'", "duplicate key <str>" },
    { "field \"total\" must be `int`, got ''", "field <str> must be <str>, got <str>" },
    { "can't find user 'bob' in users' table", "can't find user <str> in users' table" },
    { "'don't' stop", "<str> stop" },
    { "key '42' and 'c2e8a5b6-0f1e-4c3a-9b7d-2a1f0e9d8c7b'", "key <str> and <str>" },
    { "path 'C:\\data\\x.txt' missing", "path <str> missing" },
    { "unclosed 'quote 42 here", "unclosed 'quote <num> here" },
    { "split \"across\nlines\" 7", "split \"across lines\" <num>" },
    /* hex */
    { "Order 65f0a1b2c3d4e5f601234567 not found", "Order <hex> not found" },
    { "token 8265F0A1B2000000012B022C0100296E5A1004.", "token <hex>." },
    { "sha256:9f86d081884c7d659a2feaa0c55ad015", "sha256:<hex>" },
    { "at 0x1F and 0xdeadbeef", "at <hex> and <hex>" },
    { "deadbeefcafe stays, 12345678 is a number", "deadbeefcafe stays, <num> is a number" },
    { "short hex 3a4f", "short hex <num>a4f" },
    { "Connection com.mysql.cj.ConnectionImpl@2b6a3f1 is closed, @7 too",
      "Connection com.mysql.cj.ConnectionImpl@<hex> is closed, @<hex> too" },
    { "mail bob@example.com", "mail bob@example.com" },
    /* numbers */
    { "-5 +3 (-3.5e-10) 1,000,000 2.0", "<num> <num> (<num>) <num> <num>" },
    { "timeout after 3000ms, retry in 1.5s", "timeout after <num>ms, retry in <num>s" },
    { "node-3 Thread-7 pool-2-thread-14", "node-<num> Thread-<num> pool-<num>-thread-<num>" },
    { "order_123 items.3.price items[4]", "order_<num> items.<num>.price items[<num>]" },
    { "utf8 http2 sha256 v2 user42 x86", "utf8 http2 sha256 v2 user42 x86" },
    { "UTF-8 HTTP/1.1 v1.2.3", "UTF-<num> HTTP/<num> v1.<num>" },
    { "Orders.java:42.", "Orders.java:<num>." },
    { "#42 $7 =-1", "#<num> $<num> =<num>" },
    /* times */
    { "at 2026-06-09T14:32:11.123Z", "at <time>" },
    { "at 2026-06-09 14:32:11,123+02:00 ok", "at <time> ok" },
    { "at 2026-06-09T14:32+0200 ok", "at <time> ok" },
    { "on 2026-06-09.", "on <time>." },
    { "signed 20260609T143211Z, 20260609T143211.5+0100", "signed <time>, <time>" },
    { "not a date 2026-13-09", "not a date <num>-<num>-<num>" },
    /* ip */
    { "timeout after 3000 ms calling 10.0.0.5:8080", "timeout after <num> ms calling <ip>" },
    { "connect 10.0.0.1 failed", "connect <ip> failed" },
    { "(192.168.1.1:5432)", "(<ip>)" },
    { "10.0.0.1.5 256.1.1.1 1.2.3", "<num> <num> <num>" },
    /* whitespace */
    { "  a  \t\r\n b\x01 c  ", "a b c" },
    { "\n\n", "" },
    { "", "" },
    /* non-ASCII is a word character and passes unchanged */
    { "Bestellung Nr. 42 für Müller42 fehlgeschlagen", "Bestellung Nr. <num> für Müller42 fehlgeschlagen" },
    { "ошибка 42", "ошибка <num>" },
};

Test (fingerprint, normalisation_table)
{
    for (size_t i = 0; i < sizeof norm_cases / sizeof norm_cases [0]; i++) {
        char *got = normalised (norm_cases [i].in);
        cr_expect_str_eq (got, norm_cases [i].out, "normalise(\"%s\")", norm_cases [i].in);
        free (got);
    }
}

Test (fingerprint, normalise_appends_and_takes_a_null_message)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_fingerprint_normalise_message (NULL, 0, &out);
    cr_assert_not_null (out.data);
    cr_expect_str_eq (out.data, "");
    dlq_buf_puts (&out, "x:");
    dlq_fingerprint_normalise_message (LIT (" 42 "), &out);
    cr_expect_str_eq (out.data, "x:<num>");
    dlq_buf_free (&out);
}

/* A NUL inside the message is whitespace, not an end. */
Test (fingerprint, nul_bytes_are_whitespace)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_fingerprint_normalise_message (LIT ("a\0\0b 7"), &out);
    cr_expect_eq (out.len, strlen ("a b <num>"));
    cr_expect_str_eq (out.data, "a b <num>");
    dlq_buf_free (&out);
}

/* ------------------------------------------------------------ the cut */

static char *
repeat (char c, size_t n, const char *tail)
{
    size_t t = strlen (tail);
    char *s = malloc (n + t + 1);
    memset (s, c, n);
    memcpy (s + n, tail, t + 1);
    return s;
}

static void
expect_cut (size_t as, const char *tail, size_t expected_len, const char *why)
{
    char *in = repeat ('a', as, tail);
    char *out = normalised (in);
    cr_expect_eq (strlen (out), expected_len, "%s: got %zu bytes", why, strlen (out));
    cr_expect (dlq_utf8_valid (out, strlen (out), NULL), "%s: cut inside UTF-8", why);
    cr_expect_eq (memcmp (out, in, strlen (out)), 0, "%s", why);
    free (out);
    free (in);
}

Test (fingerprint, the_message_is_cut_at_512_bytes_on_a_utf8_boundary)
{
    cr_assert_eq (DLQ_FINGERPRINT_MESSAGE_MAX, 512);
    expect_cut (510, "é", 512, "exactly 512 bytes are kept");
    expect_cut (511, "é", 511, "a 2-byte character across the cap");
    expect_cut (510, "€", 510, "a 3-byte character across the cap");
    expect_cut (509, "😀", 509, "a 4-byte character across the cap");
    expect_cut (511, " b", 511, "no trailing space after the cut");
    expect_cut (600, "", 512, "plain ASCII");
}

Test (fingerprint, a_huge_message_costs_only_its_head)
{
    size_t n = 1 << 20;
    char *big = malloc (n + 1);
    for (size_t i = 0; i < n; i++)
        big [i] = i % 2 ? ' ' : '7';
    big [n] = '\0';
    char *out = normalised (big);
    /* 85 "<num> " take 510 bytes: the cut falls inside the 86th placeholder */
    cr_expect_eq (strlen (out), 512, "%zu", strlen (out));
    cr_expect_eq (strncmp (out, "<num> <num> ", 12), 0);
    cr_expect_str_eq (out + 504, "<num> <n");
    free (out);
    free (big);
}

/* --------------------------------------------------------- top frames */

typedef struct {
    const char *style;
    const char *stack;
    size_t      count;
    const char *out;
} frames_case_t;

static const frames_case_t frames_cases [] = {
    { "java",
      "java.lang.IllegalStateException: downstream call failed\n"
      "\tat com.acme.Orders.handle(Orders.java:42)\n"
      "\tat app//com.acme.Orders$$Lambda$14/0x0000000800c0b448.apply(Unknown Source)\n"
      "\tat java.base@17.0.2/java.lang.Thread.run(Thread.java:833)\n"
      "Caused by: java.io.IOException: x\n"
      "\t... 3 more\n",
      3,
      "com.acme.Orders.handle (Orders.java)\n"
      "com.acme.Orders$$Lambda.apply (Unknown Source)\n"
      "java.lang.Thread.run (Thread.java)" },
    { "java with logback packaging data",
      "E\n"
      "\tat com.acme.Orders.handle(Orders.java:42) ~[orders-1.4.2.jar:1.4.2]\n"
      "\tat org.springframework.A.b(A.java:7) [spring-5.3.jar:5.3.1]\n",
      2,
      "com.acme.Orders.handle (Orders.java)\norg.springframework.A.b (A.java)" },
    { "java generated classes",
      "E\n"
      "\tat jdk.proxy2/jdk.proxy2.$Proxy42.handle(Native Method)\n"
      "\tat jdk.internal.reflect.GeneratedMethodAccessor7.invoke(Unknown Source)\n"
      "\tat com.acme.Orders$$Lambda/0x000001e0d1003a00.apply(Orders.java)\n",
      3,
      "jdk.proxy2.$Proxy.handle (Native Method)\n"
      "jdk.internal.reflect.GeneratedMethodAccessor.invoke (Unknown Source)\n"
      "com.acme.Orders$$Lambda.apply (Orders.java)" },
    { "python, innermost (last) first",
      "Traceback (most recent call last):\n"
      "  File \"/app/main.py\", line 30, in <module>\n"
      "    main()\n"
      "  File \"/usr/lib/python3.11/site-packages/orders/handler.py\", line 12, in handle\n"
      "    return load(x)\n"
      "  File \"C:\\app\\db.py\", line 7, in load\n"
      "    raise KeyError(x)\n"
      "KeyError: 42\n",
      3,
      "load (db.py)\nhandle (handler.py)\n<module> (main.py)" },
    { "go",
      "panic: runtime error: index out of range [5] with length 3\n"
      "\n"
      "goroutine 1 [running]:\n"
      "main.(*Svc).handle(0xc000012345, {0x45e1c0?, 0x3})\n"
      "\t/home/u/src/orders/svc.go:12 +0x1d\n"
      "main.main()\n"
      "\t/home/u/src/orders/main.go:8 +0x18\n"
      "created by main.start in goroutine 1\n"
      "\t/home/u/src/orders/main.go:3 +0x5\n"
      "exit status 2\n",
      2,
      "main.(*Svc).handle (svc.go)\nmain.main (main.go)" },
    { ".net",
      "System.InvalidOperationException: boom\r\n"
      "   at Acme.Orders.Handler.Handle(String id, Int32 n) in C:\\agent\\_work\\1\\s\\Handler.cs:line 42\r\n"
      "   at Acme.Orders.Program.Main()\r\n"
      "--- End of stack trace from previous location ---\r\n"
      "   at System.Runtime.ExceptionServices.ExceptionDispatchInfo.Throw()\r\n",
      3,
      "Acme.Orders.Handler.Handle(String id, Int32 n) (Handler.cs)\n"
      "Acme.Orders.Program.Main()\n"
      "System.Runtime.ExceptionServices.ExceptionDispatchInfo.Throw()" },
    { "js",
      "TypeError: x is undefined\n"
      "    at handle (/app/src/orders.js:10:5)\n"
      "    at /app/node_modules/express/lib/router/index.js:284:7\n"
      "    at Object.<anonymous> (file:///app/main.3f2a1b9c.js?v=2:1:2)\n",
      3,
      "handle (orders.js)\n(index.js)\nObject.<anonymous> (main.<hex>.js)" },
    { "no frames",
      "java.lang.IllegalStateException: boom\nCaused by: x\n\t... 5 more\nat = 5\n",
      0, "" },
};

Test (fingerprint, top_frames_of_each_stack_style)
{
    for (size_t i = 0; i < sizeof frames_cases / sizeof frames_cases [0]; i++) {
        const frames_case_t *c = &frames_cases [i];
        size_t count;
        char *got = frames (c->stack, 3, &count);
        cr_expect_eq (count, c->count, "%s: %zu frames", c->style, count);
        cr_expect_str_eq (got, c->out, "%s", c->style);
        free (got);
    }
}

Test (fingerprint, top_frames_stops_at_max_frames)
{
    size_t count;
    char *got = frames (JAVA_STACK ("1"), 2, &count);
    cr_expect_eq (count, 2);
    cr_expect_str_eq (got, "com.acme.Orders.find (Orders.java)\ncom.acme.Orders.handle (Orders.java)");
    free (got);
    got = frames (JAVA_STACK ("1"), 0, &count);
    cr_expect_eq (count, 0);
    cr_expect_str_eq (got, "");
    free (got);
}

Test (fingerprint, top_frames_of_nothing)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    cr_expect_eq (dlq_fingerprint_top_frames (NULL, 0, 3, &out), 0);
    cr_expect_eq (dlq_fingerprint_top_frames (LIT (""), 3, &out), 0);
    cr_expect_eq (dlq_fingerprint_top_frames (LIT ("\n\n"), 3, &out), 0);
    cr_expect_eq (out.len, 0);
    dlq_buf_free (&out);
}

/* ---------------------------------------------------- stored values */

Test (fingerprint, empty_and_null_fields)
{
    dlq_fingerprint_t a = fp_of (NULL, NULL, NULL), b = fp_of ("", "", "");
    /* FNV-1a 64 of the two separator bytes "\0\0" */
    cr_expect_str_eq (a.hex, "08328807b4eb6fed");
    cr_expect_str_eq (b.hex, a.hex);
    cr_expect_str_eq (a.normalised, "");
    cr_expect_eq (a.normalised_len, 0);
    dlq_fingerprint_t c;
    dlq_fingerprint_of (NULL, "ignored", 0, "ignored", 0, &c);
    cr_expect_str_eq (c.hex, a.hex);
}

/* A fingerprint is stored: these literals may only change together with
 * DLQ_FINGERPRINT_VERSION. The value is FNV-1a 64 of
 * "com.acme.NotFoundException\0Order <hex> not found after <num> ms\0"
 * "com.acme.Orders.find (Orders.java)\ncom.acme.Orders.handle (Orders.java)\n"
 * "com.acme.Api.post (Api.java)", computed independently. */
Test (fingerprint, a_fixed_input_has_a_fixed_fingerprint)
{
    cr_assert_eq (DLQ_FINGERPRINT_VERSION, 1, "rules changed: update the literals below");
    dlq_fingerprint_t fp = fp_of ("com.acme.NotFoundException",
                                  "Order 65f0a1b2c3d4e5f601234567 not found after 3000 ms",
                                  JAVA_STACK ("42"));
    cr_expect_str_eq (fp.normalised, "Order <hex> not found after <num> ms");
    cr_expect_eq (fp.normalised_len, strlen (fp.normalised));
    cr_expect_str_eq (fp.hex, "16fb3637105bef0d");
    cr_expect_eq (strlen (fp.hex), DLQ_FINGERPRINT_HEX_LEN);
}

Test (fingerprint, the_display_form_is_capped)
{
    char *long_message = repeat ('a', 511, "é");
    dlq_fingerprint_t fp = fp_of ("E", long_message, NULL);
    cr_expect_eq (fp.normalised_len, 511);
    cr_expect_eq (strlen (fp.normalised), 511);
    free (long_message);
}

/* ---------------------------------------------------------- the body */

Test (fingerprint, of_the_wire_example_body)
{
    size_t len;
    char *body = test_read_file (DLQ_SOURCE_DIR "/tests/data/flowwarden_amqp_event.json", &len);
    cr_assert_not_null (body, "tests/data/flowwarden_amqp_event.json is missing");
    dlq_fingerprint_t fp;
    cr_assert (dlq_fingerprint_of_event (body, len, &fp));
    cr_expect_str_eq (fp.normalised, "downstream call failed");
    /* FNV-1a 64 of "java.lang.IllegalStateException\0downstream call failed\0"
     * "com.acme.Orders.handle (Orders.java)" */
    cr_expect_str_eq (fp.hex, "bc493bac3ab7ed0e");
    dlq_fingerprint_t direct = fp_of ("java.lang.IllegalStateException", "downstream call failed",
        "java.lang.IllegalStateException: downstream call failed\n"
        "\tat com.acme.Orders.handle(Orders.java:42)");
    cr_expect_str_eq (fp.hex, direct.hex);
    free (body);
}

Test (fingerprint, of_a_body_that_is_not_an_object)
{
    dlq_fingerprint_t fp = { .hex = "unchanged" };
    cr_expect_not (dlq_fingerprint_of_event (LIT ("[1,2]"), &fp));
    cr_expect_not (dlq_fingerprint_of_event (LIT ("{\"error\":"), &fp));
    cr_expect_not (dlq_fingerprint_of_event (LIT (""), &fp));
    cr_expect_str_eq (fp.hex, "unchanged");
}

Test (fingerprint, of_a_body_with_missing_or_odd_error_fields)
{
    dlq_fingerprint_t empty = fp_of (NULL, NULL, NULL), fp;
    cr_assert (dlq_fingerprint_of_event (LIT ("{}"), &fp));
    cr_expect_str_eq (fp.hex, empty.hex);
    cr_assert (dlq_fingerprint_of_event (LIT ("{\"error\":{\"type\":7,\"message\":null}}"), &fp));
    cr_expect_str_eq (fp.hex, empty.hex);
    cr_assert (dlq_fingerprint_of_event (
        LIT ("{\"error\":{\"type\":\"E\",\"message\":\"id 42\\nnot found\"}}"), &fp));
    dlq_fingerprint_t direct = fp_of ("E", "id 7 not found", NULL);
    cr_expect_str_eq (fp.hex, direct.hex);
    cr_expect_str_eq (fp.normalised, "id <num> not found");
}

/* A JS frame with no function ("at a.js:1:2") has an empty identity: it
 * must be an empty span, not a NULL one (UBSan stopped on the pointer
 * arithmetic an outside campaign found), and still name its file. */
Test (fingerprint, a_frame_without_identity)
{
    size_t count;
    char *top = frames ("Error: boom\n    at a.js:1:2\n    at /srv/app/b.js:3:4\n", 3, &count);
    cr_expect_eq (count, 2);
    cr_expect_str_eq (top, "(a.js)\n(b.js)");
    free (top);
    top = frames ("Traceback (most recent call last):\n  File \"x.py\", line 1\n", 3, &count);
    cr_expect_eq (count, 1);
    free (top);
}

/* Unclosed quotes: each one is a plain character (no value to replace)
 * and the answer is the same as before the quote scan was made linear. */
Test (fingerprint, unclosed_quotes_stay_as_they_are)
{
    char *n = normalised ("a 'b 'c 'd");
    cr_expect_str_eq (n, "a 'b 'c 'd");
    free (n);
    n = normalised ("x 'a 'b' y");
    cr_expect_str_eq (n, "x <str> y", "a quote before a letter does not close the value");
    free (n);
    n = normalised ("'it''s' \"q\n\" `b` 'end");
    cr_expect_str_eq (n, "<str><str> \"q \" <str> 'end", "a value ends at its line");
    free (n);
    n = normalised ("'a\n'b' 'c");
    cr_expect_str_eq (n, "'a <str> 'c");
    free (n);
}
