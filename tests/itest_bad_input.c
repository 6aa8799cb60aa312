/*  itest_bad_input — the bad-input table, over the wire: malformed requests
 *  of every kind to all 21 verbs (repeated members at the top and nested,
 *  wrong types, numbers out of range, \u0000 in strings and names, huge
 *  arrays, deep nesting, invalid UTF-8, wrong frame counts, long request
 *  ids, oversize bodies and frames, REQ envelopes, verbs that are not
 *  verbs, scalar bodies, trailing bytes, a byte order mark, ...).
 *
 *  Each row names its verb, its frames, the code docs/protocol.md documents and the
 *  field where one is documented. For each row the test checks that the
 *  reply is ERR with that code and field, that the reply's body is UTF-8
 *  JSON of exactly code, message and field, that STATS counted it once
 *  (in counters.errors[CODE] and in rejected, nothing else) and that it
 *  stored nothing (no stream but the background's changed). Meanwhile a
 *  second client pipelines valid PUTs and GETs on its own connection;
 *  every one must be answered OK, it must make progress after every row,
 *  and at the end every event it had acknowledged must GET back byte for
 *  byte.
 *
 *  One row is not answered by design: a frame over gateway.max_frame_bytes
 *  makes ZeroMQ drop the sender's connection (docs/protocol.md, "Messages"); the row
 *  checks that the connection drops, that nothing is counted and that the
 *  same client, reconnected, is served again.
 */
#include "dlq_json.h"
#include "test_support.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <zmq.h>

#define MAX_MESSAGE    1572864          /* gateway.max_message_bytes of the test's dlqd */
#define MAX_FRAME      4194304          /* gateway.max_frame_bytes */
#define MAX_ROWS       400
#define MAX_FRAMES     10
#define REPLY_WAIT_MS  20000            /* a reply later than this is a stall */
#define BG_WINDOW      4                /* background requests in flight */
#define BG_PUTS_MAX    200000

#define UUID "c2e8a5b6-0f1e-4c3a-9b7d-2a1f0e9d8c7b"
#define TS   "2026-06-09T14:32:13.500Z"
#define ERRT "\"error\":{\"type\":\"T\"}"

/* A literal body, raw bytes included: pointer and length. */
#define B(s) s, sizeof s - 1

static test_dlqd_t d;

static void
start (void)
{
    memset (&d, 0, sizeof d);
    char gateway [128];
    snprintf (gateway, sizeof gateway, "max_message_bytes = %d; max_frame_bytes = %d;", MAX_MESSAGE, MAX_FRAME);
    cr_assert (test_dlqd_start (&d, gateway, "sinks: { quiet: { type = \"noop\"; }; };"), "dlqd did not start");
}

static void stop (void) { test_dlqd_cleanup (&d); }

TestSuite (bad_input, .init = start, .fini = stop, .timeout = 300);

/* ---- the table ------------------------------------------------------------------ */

typedef enum {
    VIA_DEALER,                 /* the frames as they are, on the table's DEALER */
    VIA_REQ,                    /* [verb][id][body] on a REQ socket (which puts its delimiter first) */
    VIA_HUGE_FRAME              /* on a DEALER of its own: the transport drops the connection */
} via_t;

typedef struct {
    const char *verb;           /* the verb the row is about; "" when the frames name none */
    const char *kind;           /* what is wrong with it */
    via_t       via;
    int         count;          /* frames sent */
    const char *frames [MAX_FRAMES];
    size_t      lens [MAX_FRAMES];
    const char *code;           /* the code docs/protocol.md documents; NULL: no reply (the connection drops) */
    const char *field;          /* the field docs/protocol.md documents; NULL: the reply has none */
    bool        field_prefix;   /* field is a name cut (at its \u0000, or to fit): the reply's starts with it */
    int         id_frame;       /* the frame the reply's request id echoes; -1: the id is empty */
    bool        enveloped;      /* the reply comes behind an empty delimiter frame */
} row_t;

static row_t rows [MAX_ROWS];
static int   row_count;
static char  row_ids [MAX_ROWS][16];
static char *owned [128];       /* generated bodies */
static int   owned_count;

static const char *const verbs [] = {
    "PUT", "GET", "LIST", "COUNT", "GROUPS", "STATS", "PING", "REDELIVER", "REPLAY", "REPLAY.STATUS",
    "REPLAY.PAUSE", "REPLAY.RESUME", "REPLAY.CANCEL", "RESOLVE", "FAIL", "CKPT.SAVE", "CKPT.SEEN",
    "CKPT.PROCESSED", "CKPT.GET", "CKPT.LIST", "CKPT.DELETE", NULL
};

static const char *const codes [] = {
    "BAD_FRAMES", "UNKNOWN_VERB", "EMPTY_BODY", "TOO_LARGE", "INVALID_UTF8", "INVALID_JSON", "INVALID_EVENT",
    "INVALID_TIMESTAMP", "INVALID_REQUEST", "NOT_FOUND", "UNAVAILABLE", "INTERNAL", "INVALID_STATE", "FORBIDDEN", NULL
};

static row_t *
new_row (const char *verb, const char *kind, const char *code, const char *field)
{
    cr_assert_lt (row_count, MAX_ROWS, "the table has more rows than MAX_ROWS");
    row_t *r = &rows [row_count];
    *r = (row_t) { .verb = verb, .kind = kind, .via = VIA_DEALER, .code = code, .field = field, .id_frame = 1 };
    snprintf (row_ids [row_count], sizeof row_ids [row_count], "row-%03d", row_count);
    row_count++;
    return r;
}

/* A row of three frames: [verb][the row's id][body]. */
static row_t *
add (const char *verb, const char *kind, const char *body, size_t len, const char *code, const char *field)
{
    row_t *r = new_row (verb, kind, code, field);
    r->count = 3;
    r->frames [0] = verb;
    r->lens [0] = strlen (verb);
    r->frames [1] = row_ids [r - rows];
    r->lens [1] = strlen (r->frames [1]);
    r->frames [2] = body;
    r->lens [2] = len;
    return r;
}

/* The same with a field that is a name cut (at its \u0000, or to fit). */
static void
add_cut (const char *verb, const char *kind, const char *body, size_t len, const char *code, const char *field)
{
    add (verb, kind, body, len, code, field)->field_prefix = true;
}

/* A row of any frames (count, then pairs of pointer and length). */
static row_t *
add_frames (const char *verb, const char *kind, const char *code, int id_frame, int count, ...)
{
    row_t *r = new_row (verb, kind, code, NULL);
    r->count = count;
    r->id_frame = id_frame;
    va_list ap;
    va_start (ap, count);
    for (int i = 0; i < count; i++) {
        r->frames [i] = va_arg (ap, const char *);
        r->lens [i] = va_arg (ap, size_t);
    }
    va_end (ap);
    return r;
}

static char *
keep (char *text)
{
    cr_assert_lt (owned_count, (int) (sizeof owned / sizeof owned [0]));
    owned [owned_count++] = text;
    return text;
}

/* prefix, then open n times, middle, close n times, then suffix. */
static char *
nested (const char *prefix, const char *open, int n, const char *middle, const char *close, const char *suffix)
{
    dlq_buf_t b = DLQ_BUF_INIT;
    dlq_buf_puts (&b, prefix);
    for (int i = 0; i < n; i++)
        dlq_buf_puts (&b, open);
    dlq_buf_puts (&b, middle);
    for (int i = 0; i < n; i++)
        dlq_buf_puts (&b, close);
    dlq_buf_puts (&b, suffix);
    return keep (dlq_buf_steal (&b, NULL));
}

/* prefix, n copies of item separated by sep, suffix. */
static char *
repeated (const char *prefix, const char *item, int n, const char *sep, const char *suffix)
{
    dlq_buf_t b = DLQ_BUF_INIT;
    dlq_buf_puts (&b, prefix);
    for (int i = 0; i < n; i++) {
        dlq_buf_puts (&b, i ? sep : "");
        dlq_buf_puts (&b, item);
    }
    dlq_buf_puts (&b, suffix);
    return keep (dlq_buf_steal (&b, NULL));
}

/* {"ids":[...]} of n distinct UUIDs. */
static char *
uuid_array (int n)
{
    dlq_buf_t b = DLQ_BUF_INIT;
    dlq_buf_puts (&b, "{\"ids\":[");
    for (int i = 0; i < n; i++)
        dlq_buf_printf (&b, "%s\"0190f1d2-6c4e-7a01-8b2c-%012d\"", i ? "," : "", i);
    dlq_buf_puts (&b, "]}");
    return keep (dlq_buf_steal (&b, NULL));
}

/* "{" + spaces + "}" of len bytes: {} to any parser, too large to the gateway. */
static char *
padded_object (size_t len)
{
    char *s = malloc (len + 1);
    memset (s, ' ', len);
    s [0] = '{';
    s [len - 1] = '}';
    s [len] = '\0';
    return keep (s);
}

static char *
filled (char c, size_t len)
{
    char *s = malloc (len + 1);
    memset (s, c, len);
    s [len] = '\0';
    return keep (s);
}

static char *text_of (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));

/* A printf-formatted body, kept for the end of the test. */
static char *
text_of (const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    char *s = NULL;
    if (vasprintf (&s, fmt, ap) < 0)
        abort ();
    va_end (ap);
    return keep (s);
}

#define S(text) text, strlen (text)

static void
add_repeated_members (void)
{
    const char *k = "repeated member";
    add ("PUT", k, B ("{\"streamName\":\"s\",\"streamName\":\"t\"," ERRT "}"), "INVALID_EVENT", "streamName");
    add ("GET", k, B ("{\"id\":\"" UUID "\",\"id\":\"" UUID "\"}"), "INVALID_REQUEST", "id");
    add ("LIST", k, B ("{\"streamName\":\"s\",\"limit\":1,\"limit\":2}"), "INVALID_REQUEST", "limit");
    add ("COUNT", k, B ("{\"status\":\"A\",\"status\":\"B\"}"), "INVALID_REQUEST", "status");
    add ("GROUPS", k, B ("{\"limit\":5,\"errorType\":\"E\",\"errorType\":\"F\"}"), "INVALID_REQUEST", "errorType");
    add ("STATS", k, B ("{\"x\":1,\"x\":1}"), "INVALID_REQUEST", "x");
    add ("PING", k, B ("{\"x\":1,\"x\":1}"), "INVALID_REQUEST", "x");
    add ("REDELIVER", k, B ("{\"sink\":\"quiet\",\"sink\":\"quiet\"}"), "INVALID_REQUEST", "sink");
    add ("REPLAY", k, B ("{\"all\":true,\"rate\":5,\"rate\":6}"), "INVALID_REQUEST", "rate");
    add ("REPLAY.STATUS", k, B ("{\"job\":\"" UUID "\",\"job\":\"" UUID "\"}"), "INVALID_REQUEST", "job");
    add ("REPLAY.PAUSE", k, B ("{\"job\":\"" UUID "\",\"job\":\"" UUID "\"}"), "INVALID_REQUEST", "job");
    add ("REPLAY.RESUME", k, B ("{\"job\":\"" UUID "\",\"job\":\"" UUID "\"}"), "INVALID_REQUEST", "job");
    add ("REPLAY.CANCEL", k, B ("{\"job\":\"" UUID "\",\"job\":\"" UUID "\"}"), "INVALID_REQUEST", "job");
    add ("RESOLVE", k, B ("{\"id\":\"" UUID "\",\"id\":\"" UUID "\"}"), "INVALID_REQUEST", "id");
    add ("FAIL", k, B ("{\"id\":\"" UUID "\",\"id\":\"" UUID "\"}"), "INVALID_REQUEST", "id");
    add ("CKPT.SAVE", k, B ("{\"streamName\":\"c\",\"instanceId\":\"a\",\"instanceId\":\"b\"}"), "INVALID_REQUEST",
         "instanceId");
    add ("CKPT.SEEN", k, B ("{\"streamName\":\"c\",\"token\":{},\"token\":{},\"timestamp\":\"" TS "\"}"),
         "INVALID_REQUEST", "token");
    add ("CKPT.PROCESSED", k, B ("{\"streamName\":\"c\",\"token\":{},\"timestamp\":\"" TS "\",\"timestamp\":\"" TS
                                 "\"}"), "INVALID_REQUEST", "timestamp");
    add ("CKPT.GET", k, B ("{\"streamName\":\"c\",\"streamName\":\"c\"}"), "INVALID_REQUEST", "streamName");
    add ("CKPT.LIST", k, B ("{\"prefix\":\"a\",\"prefix\":\"b\"}"), "INVALID_REQUEST", "prefix");
    add ("CKPT.DELETE", k, B ("{\"streamName\":\"c\",\"streamName\":\"d\"}"), "INVALID_REQUEST", "streamName");

    k = "repeated member, nested";
    add ("PUT", k, B ("{\"streamName\":\"s\",\"error\":{\"type\":\"T\",\"type\":\"U\"}}"), "INVALID_EVENT",
         "error.type");
    add ("PUT", k, B ("{\"streamName\":\"s\"," ERRT ",\"metadata\":{\"a\":[{\"b\":1,\"b\":2}]}}"), "INVALID_EVENT",
         "metadata.a.0.b");
    add ("GET", k, B ("{\"id\":{\"x\":1,\"x\":2}}"), "INVALID_REQUEST", "id.x");
    add ("LIST", k, B ("{\"streamName\":\"s\",\"metadata\":{\"k\":1,\"k\":2}}"), "INVALID_REQUEST", "metadata.k");
    add ("COUNT", k, B ("{\"metadata\":{\"k\":\"a\",\"k\":\"b\"}}"), "INVALID_REQUEST", "metadata.k");
    add ("GROUPS", k, B ("{\"metadata\":{\"k\":true,\"k\":false}}"), "INVALID_REQUEST", "metadata.k");
    add ("STATS", k, B ("{\"x\":{\"y\":1,\"y\":2}}"), "INVALID_REQUEST", "x.y");
    add ("PING", k, B ("{\"x\":[{\"y\":1,\"y\":2}]}"), "INVALID_REQUEST", "x.0.y");
    add ("REDELIVER", k, B ("{\"sink\":\"quiet\",\"id\":{\"u\":1,\"u\":1}}"), "INVALID_REQUEST", "id.u");
    add ("REPLAY", k, B ("{\"ids\":[{\"a\":1,\"a\":2}]}"), "INVALID_REQUEST", "ids.0.a");
    add ("REPLAY", k, B ("{\"metadata\":{\"a\":1,\"a\":2},\"dryRun\":true}"), "INVALID_REQUEST", "metadata.a");
    add ("REPLAY.STATUS", k, B ("{\"job\":{\"a\":1,\"a\":2}}"), "INVALID_REQUEST", "job.a");
    add ("REPLAY.PAUSE", k, B ("{\"job\":{\"a\":1,\"a\":2}}"), "INVALID_REQUEST", "job.a");
    add ("REPLAY.RESUME", k, B ("{\"job\":{\"a\":1,\"a\":2}}"), "INVALID_REQUEST", "job.a");
    add ("REPLAY.CANCEL", k, B ("{\"job\":{\"a\":1,\"a\":2}}"), "INVALID_REQUEST", "job.a");
    add ("RESOLVE", k, B ("{\"id\":{\"a\":1,\"a\":2}}"), "INVALID_REQUEST", "id.a");
    add ("FAIL", k, B ("{\"id\":{\"a\":1,\"a\":2}}"), "INVALID_REQUEST", "id.a");
    add ("CKPT.SAVE", k, B ("{\"streamName\":\"c\",\"metadata\":{\"h\":{\"x\":1,\"x\":2}}}"), "INVALID_REQUEST",
         "metadata.h.x");
    add ("CKPT.SEEN", k, B ("{\"streamName\":\"c\",\"token\":{\"_data\":\"1\",\"_data\":\"2\"},\"timestamp\":\"" TS
                            "\"}"), "INVALID_REQUEST", "token._data");
    add ("CKPT.PROCESSED", k, B ("{\"streamName\":\"c\",\"token\":{\"a\":{\"b\":[{\"c\":1,\"c\":1}]}},"
                                 "\"timestamp\":\"" TS "\"}"), "INVALID_REQUEST", "token.a.b.0.c");
    add ("CKPT.GET", k, B ("{\"streamName\":{\"a\":1,\"a\":1}}"), "INVALID_REQUEST", "streamName.a");
    add ("CKPT.LIST", k, B ("{\"cursor\":{\"a\":1,\"a\":1}}"), "INVALID_REQUEST", "cursor.a");
    add ("CKPT.DELETE", k, B ("{\"streamName\":{\"a\":1,\"a\":1}}"), "INVALID_REQUEST", "streamName.a");
}

static void
add_wrong_types (void)
{
    const char *k = "wrong type";
    add ("PUT", k, B ("{\"streamName\":5," ERRT "}"), "INVALID_EVENT", "streamName");
    add ("PUT", k, B ("{\"streamName\":\"s\",\"error\":\"boom\"}"), "INVALID_EVENT", "error");
    add ("PUT", k, B ("{\"streamName\":\"s\"," ERRT ",\"attempts\":\"3\"}"), "INVALID_EVENT", "attempts");
    add ("PUT", k, B ("{\"streamName\":\"s\"," ERRT ",\"metadata\":[]}"), "INVALID_EVENT", "metadata");
    add ("PUT", k, B ("{\"streamName\":\"s\",\"error\":{\"type\":null}}"), "INVALID_EVENT", "error.type");
    add ("GET", k, B ("{\"id\":7}"), "INVALID_REQUEST", "id");
    add ("LIST", k, B ("{\"streamName\":\"s\",\"limit\":\"10\"}"), "INVALID_REQUEST", "limit");
    add ("LIST", k, B ("{\"streamName\":\"s\",\"cursor\":5}"), "INVALID_REQUEST", "cursor");
    add ("COUNT", k, B ("{\"status\":1}"), "INVALID_REQUEST", "status");
    add ("COUNT", k, B ("{\"createdAfter\":5}"), "INVALID_REQUEST", "createdAfter");
    add ("COUNT", k, B ("{\"metadata\":\"k\"}"), "INVALID_REQUEST", "metadata");
    add ("COUNT", k, B ("{\"metadata\":{\"k\":[1]}}"), "INVALID_REQUEST", "metadata.k");
    add ("GROUPS", k, B ("{\"limit\":true}"), "INVALID_REQUEST", "limit");
    add ("REDELIVER", k, B ("{\"sink\":5}"), "INVALID_REQUEST", "sink");
    add ("REDELIVER", k, B ("{\"sink\":\"quiet\",\"streamName\":5}"), "INVALID_REQUEST", "streamName");
    add ("REPLAY", k, B ("{\"all\":true,\"dryRun\":\"yes\"}"), "INVALID_REQUEST", "dryRun");
    add ("REPLAY", k, B ("{\"all\":\"true\"}"), "INVALID_REQUEST", "all");
    add ("REPLAY", k, B ("{\"ids\":\"" UUID "\"}"), "INVALID_REQUEST", "ids");
    add ("REPLAY", k, B ("{\"all\":true,\"target\":1}"), "INVALID_REQUEST", "target");
    add ("REPLAY.STATUS", k, B ("{\"job\":1}"), "INVALID_REQUEST", "job");
    add ("REPLAY.PAUSE", k, B ("{\"job\":true}"), "INVALID_REQUEST", "job");
    add ("RESOLVE", k, B ("{\"id\":null}"), "INVALID_REQUEST", "id");
    add ("FAIL", k, B ("{\"id\":[\"" UUID "\"]}"), "INVALID_REQUEST", "id");
    add ("CKPT.SAVE", k, B ("{\"streamName\":5}"), "INVALID_REQUEST", "streamName");
    add ("CKPT.SAVE", k, B ("{\"streamName\":\"c\",\"instanceId\":5}"), "INVALID_REQUEST", "instanceId");
    add ("CKPT.SAVE", k, B ("{\"streamName\":\"c\",\"metadata\":\"m\"}"), "INVALID_REQUEST", "metadata");
    add ("CKPT.SEEN", k, B ("{\"streamName\":\"c\",\"token\":\"t\",\"timestamp\":\"" TS "\"}"), "INVALID_REQUEST",
         "token");
    add ("CKPT.SEEN", k, B ("{\"streamName\":\"c\",\"token\":{},\"timestamp\":5}"), "INVALID_TIMESTAMP",
         "timestamp");
    add ("CKPT.LIST", k, B ("{\"limit\":\"5\"}"), "INVALID_REQUEST", "limit");
    add ("CKPT.LIST", k, B ("{\"prefix\":1}"), "INVALID_REQUEST", "prefix");
    add ("CKPT.GET", k, B ("{\"streamName\":[]}"), "INVALID_REQUEST", "streamName");
    add ("CKPT.DELETE", k, B ("{\"streamName\":null}"), "INVALID_REQUEST", "streamName");
}

static void
add_out_of_range (void)
{
    const char *k = "number out of range";
    add ("LIST", k, B ("{\"streamName\":\"s\",\"limit\":0}"), "INVALID_REQUEST", "limit");
    add ("LIST", k, B ("{\"streamName\":\"s\",\"limit\":1001}"), "INVALID_REQUEST", "limit");
    add ("LIST", k, B ("{\"streamName\":\"s\",\"limit\":1e3}"), "INVALID_REQUEST", "limit");
    add ("LIST", k, B ("{\"streamName\":\"s\",\"limit\":-1}"), "INVALID_REQUEST", "limit");
    add ("LIST", k, B ("{\"streamName\":\"s\",\"limit\":18446744073709551616}"), "INVALID_REQUEST", "limit");
    add ("LIST", k, B ("{\"streamName\":\"s\",\"limit\":1.5}"), "INVALID_REQUEST", "limit");
    add ("LIST", k, B ("{\"status\":\"X\",\"limit\":0}"), "INVALID_REQUEST", "limit");
    add ("GROUPS", k, B ("{\"limit\":0}"), "INVALID_REQUEST", "limit");
    add ("GROUPS", k, B ("{\"limit\":1001}"), "INVALID_REQUEST", "limit");
    add ("CKPT.LIST", k, B ("{\"limit\":0}"), "INVALID_REQUEST", "limit");
    add ("CKPT.LIST", k, B ("{\"limit\":1001}"), "INVALID_REQUEST", "limit");
    add ("CKPT.LIST", k, B ("{\"limit\":18446744073709551616}"), "INVALID_REQUEST", "limit");
    add ("PUT", k, B ("{\"streamName\":\"s\"," ERRT ",\"attempts\":2147483648}"), "INVALID_EVENT", "attempts");
    add ("PUT", k, B ("{\"streamName\":\"s\"," ERRT ",\"attempts\":-1}"), "INVALID_EVENT", "attempts");
    add ("PUT", k, B ("{\"streamName\":\"s\"," ERRT ",\"attempts\":1e0}"), "INVALID_EVENT", "attempts");
    add ("PUT", k, B ("{\"streamName\":\"s\"," ERRT ",\"attempts\":99999999999999999999}"), "INVALID_EVENT",
         "attempts");
    add ("COUNT", k, B ("{\"attemptsMin\":2147483648}"), "INVALID_REQUEST", "attemptsMin");
    add ("COUNT", k, B ("{\"attemptsMax\":-1}"), "INVALID_REQUEST", "attemptsMax");
    add ("COUNT", k, B ("{\"attemptsMin\":5,\"attemptsMax\":4}"), "INVALID_REQUEST", "attemptsMax");
    add ("REPLAY", k, B ("{\"all\":true,\"rate\":0}"), "INVALID_REQUEST", "rate");
    add ("REPLAY", k, B ("{\"all\":true,\"rate\":100001}"), "INVALID_REQUEST", "rate");
    add ("REPLAY", k, B ("{\"all\":true,\"rate\":18446744073709551616}"), "INVALID_REQUEST", "rate");
    add ("REPLAY", k, B ("{\"all\":true,\"dryRun\":true,\"sample\":101}"), "INVALID_REQUEST", "sample");
    add ("REPLAY", k, B ("{\"all\":true,\"dryRun\":true,\"sample\":-1}"), "INVALID_REQUEST", "sample");
    add ("CKPT.SEEN", k, B ("{\"streamName\":\"c\",\"token\":{\"n\":1e999},\"timestamp\":\"" TS "\"}"),
         "INVALID_REQUEST", "token.n");
}

static void
add_nul_in_strings (void)
{
    const char *k = "\\u0000 in a string";
    add ("PUT", k, B ("{\"streamName\":\"s\\u0000t\"," ERRT "}"), "INVALID_EVENT", "streamName");
    add ("PUT", k, B ("{\"id\":\"" UUID "\\u0000\",\"streamName\":\"s\"," ERRT "}"), "INVALID_EVENT", "id");
    add ("PUT", k, B ("{\"streamName\":\"s\",\"error\":{\"type\":\"T\\u0000\"}}"), "INVALID_EVENT", "error.type");
    add ("PUT", k, B ("{\"streamName\":\"s\",\"error\":{\"type\":\"T\",\"message\":\"m\\u0000\"}}"), "INVALID_EVENT",
         "error.message");
    add ("PUT", k, B ("{\"streamName\":\"s\",\"error\":{\"type\":\"T\",\"stackTrace\":\"\\u0000\"}}"),
         "INVALID_EVENT", "error.stackTrace");
    add ("PUT", k, B ("{\"streamName\":\"s\"," ERRT ",\"status\":\"DLQ\\u0000\"}"), "INVALID_EVENT", "status");
    add ("PUT", k, B ("{\"streamName\":\"s\"," ERRT ",\"operationType\":\"INSERT\\u0000\"}"), "INVALID_EVENT",
         "operationType");
    add ("PUT", k, B ("{\"streamName\":\"s\"," ERRT ",\"createdAt\":\"" TS "\\u0000\"}"), "INVALID_TIMESTAMP",
         "createdAt");
    add ("PUT", k, B ("{\"streamName\":\"s\"," ERRT ",\"documentKey\":{\"$numberLong\":\"12\\u0000garbage\"}}"),
         "INVALID_EVENT", "documentKey");
    add ("GET", k, B ("{\"id\":\"" UUID "\\u0000\"}"), "INVALID_REQUEST", "id");
    add ("LIST", k, B ("{\"streamName\":\"s\\u0000\"}"), "INVALID_REQUEST", "streamName");
    add ("LIST", k, B ("{\"streamName\":\"s\",\"cursor\":\"1.2\\u0000\"}"), "INVALID_REQUEST", "cursor");
    add ("COUNT", k, B ("{\"streamName\":\"s\\u0000\"}"), "INVALID_REQUEST", "streamName");
    add ("COUNT", k, B ("{\"status\":\"PENDING\\u0000\"}"), "INVALID_REQUEST", "status");
    add ("COUNT", k, B ("{\"errorType\":\"T\\u0000\"}"), "INVALID_REQUEST", "errorType");
    add ("GROUPS", k, B ("{\"messageContains\":\"\\u0000\"}"), "INVALID_REQUEST", "messageContains");
    add ("GROUPS", k, B ("{\"fingerprint\":\"0123456789abcde\\u0000\"}"), "INVALID_REQUEST", "fingerprint");
    add ("REDELIVER", k, B ("{\"sink\":\"quiet\\u0000\"}"), "INVALID_REQUEST", "sink");
    add ("REDELIVER", k, B ("{\"sink\":\"quiet\",\"streamName\":\"bg\\u0000x\"}"), "INVALID_REQUEST", "streamName");
    add ("REDELIVER", k, B ("{\"sink\":\"quiet\",\"id\":\"" UUID "\\u0000\"}"), "INVALID_REQUEST", "id");
    add ("REPLAY", k, B ("{\"all\":true,\"dryRun\":true,\"target\":\"route\\u0000x\"}"), "INVALID_REQUEST",
         "target");
    add ("REPLAY", k, B ("{\"ids\":[\"" UUID "\\u0000\"]}"), "INVALID_REQUEST", "ids");
    add ("REPLAY.STATUS", k, B ("{\"job\":\"" UUID "\\u0000\"}"), "INVALID_REQUEST", "job");
    add ("REPLAY.CANCEL", k, B ("{\"job\":\"\\u0000" UUID "\"}"), "INVALID_REQUEST", "job");
    add ("RESOLVE", k, B ("{\"id\":\"" UUID "\\u0000\"}"), "INVALID_REQUEST", "id");
    add ("FAIL", k, B ("{\"id\":\"\\u0000\"}"), "INVALID_REQUEST", "id");
    add ("CKPT.SAVE", k, B ("{\"streamName\":\"c\\u0000d\"}"), "INVALID_REQUEST", "streamName");
    add ("CKPT.SAVE", k, B ("{\"streamName\":\"c\",\"instanceId\":\"w\\u0000\"}"), "INVALID_REQUEST", "instanceId");
    add ("CKPT.SEEN", k, B ("{\"streamName\":\"\\u0000\",\"token\":{},\"timestamp\":\"" TS "\"}"),
         "INVALID_REQUEST", "streamName");
    add ("CKPT.PROCESSED", k, B ("{\"streamName\":\"c\",\"token\":{\"n\":{\"$numberLong\":\"1\\u0000\"}},"
                                 "\"timestamp\":\"" TS "\"}"), "INVALID_REQUEST", "token.n");
    add ("CKPT.GET", k, B ("{\"streamName\":\"c\\u0000\"}"), "INVALID_REQUEST", "streamName");
    add ("CKPT.LIST", k, B ("{\"prefix\":\"c\\u0000\"}"), "INVALID_REQUEST", "prefix");
    add ("CKPT.LIST", k, B ("{\"cursor\":\"c\\u0000\"}"), "INVALID_REQUEST", "cursor");
    add ("CKPT.DELETE", k, B ("{\"streamName\":\"c\\u0000\"}"), "INVALID_REQUEST", "streamName");
}

static void
add_nul_in_names (void)
{
    const char *k = "\\u0000 in a member name";
    add_cut ("PUT", k, B ("{\"streamName\":\"s\"," ERRT ",\"attempts\\u0000\":1}"), "INVALID_EVENT", "attempts");
    add_cut ("PUT", k, B ("{\"streamName\":\"s\",\"error\":{\"type\":\"T\",\"type\\u0000junk\":\"x\"}}"),
             "INVALID_EVENT", "error.type");
    add_cut ("GET", k, B ("{\"id\\u0000\":\"" UUID "\"}"), "INVALID_REQUEST", "id");
    add_cut ("LIST", k, B ("{\"streamName\":\"s\",\"limit\\u0000\":1}"), "INVALID_REQUEST", "limit");
    add_cut ("COUNT", k, B ("{\"metadata\":{\"k\\u0000x\":\"v\"}}"), "INVALID_REQUEST", "metadata.k");
    add_cut ("REPLAY", k, B ("{\"all\":true,\"rate\\u0000\":1}"), "INVALID_REQUEST", "rate");
    add_cut ("CKPT.SAVE", k, B ("{\"streamName\":\"c\",\"x\\u0000\":1}"), "INVALID_REQUEST", "x");
    add_cut ("CKPT.SEEN", k, B ("{\"streamName\":\"c\",\"token\":{\"a\\u0000\":1},\"timestamp\":\"" TS "\"}"),
             "INVALID_REQUEST", "token");
}

static void
add_huge_arrays (void)
{
    const char *k = "huge array";
    char *ids = uuid_array (10001);
    add ("REPLAY", k, S (ids), "INVALID_REQUEST", "ids");
    char *zeros = repeated ("", "0", 500000, ",", "");
    char *list = text_of ("[%s]", zeros);
    add ("LIST", k, S (list), "INVALID_REQUEST", NULL);
    add ("PUT", k, S (list), "INVALID_EVENT", NULL);
    add ("COUNT", k, S (text_of ("{\"metadata\":[%s]}", zeros)), "INVALID_REQUEST", "metadata");
    add ("REPLAY", k, S (text_of ("{\"ids\":[%s]}", zeros)), "INVALID_REQUEST", "ids");
    add ("CKPT.SAVE", k, S (text_of ("{\"streamName\":\"c\",\"metadata\":{\"a\":[%s]}}", zeros)), "INVALID_REQUEST",
         "metadata");
}

static void
add_deep_nesting (void)
{
    const char *k = "deep nesting";
    /* 65 levels: the body, then its metadata and 63 more objects in it */
    add ("PUT", k, S (nested ("{\"streamName\":\"s\"," ERRT ",\"metadata\":", "{\"a\":", 64, "1", "}", "}")),
         "INVALID_JSON", NULL);
    add ("GET", k, S (nested ("", "[", 65, "", "]", "")), "INVALID_JSON", NULL);
    add ("PING", k, S (nested ("", "{\"a\":", 65, "1", "}", "")), "INVALID_JSON", NULL);
    add ("LIST", k, S (nested ("", "[", 10000, "", "]", "")), "INVALID_JSON", NULL);
    add ("CKPT.SAVE", k, S (nested ("{\"streamName\":\"c\",\"metadata\":", "{\"a\":", 10000, "1", "}", "}")),
         "INVALID_JSON", NULL);
    add ("COUNT", k, S (nested ("{\"metadata\":", "{\"a\":", 10000, "1", "}", "}")), "INVALID_JSON", NULL);
    add ("REPLAY", k, S (filled ('[', 10000)), "INVALID_JSON", NULL);
    add ("CKPT.SEEN", k, S (nested ("{\"streamName\":\"c\",\"timestamp\":\"" TS "\",\"token\":", "[", 10000, "",
                                    "]", "}")), "INVALID_JSON", NULL);
    /* 64 levels is the limit: JSON, but not an object */
    add ("GET", "64 levels, an array", S (nested ("", "[", 64, "", "]", "")), "INVALID_REQUEST", NULL);
}

static void
add_invalid_utf8 (void)
{
    const char *k = "invalid UTF-8";
    add ("PUT", k, B ("{\"streamName\":\"\xc0\xaf\"," ERRT "}"), "INVALID_UTF8", NULL);            /* overlong '/' */
    add ("PUT", k, B ("{\"streamName\":\"\xe0\x80\xaf\"," ERRT "}"), "INVALID_UTF8", NULL);        /* overlong, 3 bytes */
    add ("GET", k, B ("{\"id\":\"\xed\xa0\x80\"}"), "INVALID_UTF8", NULL);                         /* surrogate U+D800 */
    add ("LIST", k, B ("{\"streamName\":\"\xe2\x82\"}"), "INVALID_UTF8", NULL);                    /* truncated */
    add ("COUNT", k, B ("{\"status\":\"\xe2\x82"), "INVALID_UTF8", NULL);                          /* truncated at the end */
    add ("CKPT.SAVE", k, B ("{\"streamName\":\"\xff\"}"), "INVALID_UTF8", NULL);
    add ("CKPT.LIST", k, B ("{\"\xff\":1}"), "INVALID_UTF8", NULL);                                /* in a name */
    add ("REPLAY", k, B ("{\"status\":\"\xf4\x90\x80\x80\"}"), "INVALID_UTF8", NULL);              /* past U+10FFFF */
    add ("RESOLVE", k, B ("{\"id\":\"\xf8\x88\x80\x80\x80\"}"), "INVALID_UTF8", NULL);             /* 5 bytes */
    add ("PING", k, B ("\x80{}"), "INVALID_UTF8", NULL);                                           /* lone continuation */
    add ("STATS", k, B ("{}\xfe"), "INVALID_UTF8", NULL);
    add ("GET", "escaped lone surrogate", B ("{\"id\":\"\\ud800\"}"), "INVALID_JSON", NULL);
}

static char long_id [300];
static char long_verb [300];

static void
add_frames_rows (void)
{
    memset (long_id, 'r', sizeof long_id - 1);
    memset (long_verb, 'P', sizeof long_verb - 1);
    const char *k = "wrong frame count";
    add_frames ("PUT", k, "BAD_FRAMES", -1, 1, S ("PUT"));
    add_frames ("", k, "BAD_FRAMES", -1, 1, "", (size_t) 0);
    add_frames ("GET", k, "BAD_FRAMES", 1, 2, S ("GET"), S ("two-frames"));
    add_frames ("PUT", k, "BAD_FRAMES", 1, 4, S ("PUT"), S ("four-frames"), B ("{\"streamName\":\"s\"," ERRT "}"),
                S ("extra"));
    add_frames ("LIST", k, "BAD_FRAMES", 1, 10, S ("LIST"), S ("ten-frames"), B ("{\"streamName\":\"s\"}"),
                S ("4"), S ("5"), S ("6"), S ("7"), S ("8"), S ("9"), S ("10"));
    k = "request id over 255 bytes";
    add_frames ("PING", k, "BAD_FRAMES", -1, 3, S ("PING"), long_id, (size_t) 256, "", (size_t) 0);
    add_frames ("PUT", k, "BAD_FRAMES", -1, 3, S ("PUT"), long_id, sizeof long_id - 1,
                B ("{\"streamName\":\"s\"," ERRT "}"));
    add_frames ("PING", k, "BAD_FRAMES", -1, 2, S ("PING"), long_id, sizeof long_id - 1);
    k = "REQ envelope";
    add_frames ("GET", k, "BAD_FRAMES", 2, 4, "", (size_t) 0, S ("GET"), S ("enveloped"),
                B ("{\"id\":\"" UUID "\"}"))->enveloped = true;
    add_frames ("PING", k, "BAD_FRAMES", -1, 2, "", (size_t) 0, S ("PING"))->enveloped = true;
    row_t *req = add ("PUT", k, B ("{\"streamName\":\"s\"," ERRT "}"), "BAD_FRAMES", NULL);
    req->via = VIA_REQ;

    k = "not a verb";
    add ("put", k, B ("{}"), "UNKNOWN_VERB", NULL);
    add ("Get", k, B ("{\"id\":\"" UUID "\"}"), "UNKNOWN_VERB", NULL);
    add ("ckpt.save", k, B ("{\"streamName\":\"c\"}"), "UNKNOWN_VERB", NULL);
    add ("PUT ", k, B ("{}"), "UNKNOWN_VERB", NULL);
    add_frames ("PUT", k, "UNKNOWN_VERB", 1, 3, B ("PUT\0"), S ("verb-nul"), S ("{}"));
    add ("DELETE", k, B ("{}"), "UNKNOWN_VERB", NULL);
    add ("REPLAY.STOP", k, B ("{}"), "UNKNOWN_VERB", NULL);
    add ("CKPT", k, B ("{}"), "UNKNOWN_VERB", NULL);
    add_frames ("", k, "UNKNOWN_VERB", 1, 3, long_verb, sizeof long_verb - 1, S ("verb-long"), S ("{}"));
    add_frames ("", k, "UNKNOWN_VERB", 1, 3, B ("\xff\xfe"), S ("verb-utf8"), S ("{}"));
    add ("", "empty verb", B ("{}"), "UNKNOWN_VERB", NULL);
}

static void
add_oversize (void)
{
    const char *k = "body over max_message_bytes";
    char *big = padded_object (MAX_MESSAGE + 1);
    const char *big_verbs [] = { "PUT", "GET", "LIST", "COUNT", "GROUPS", "STATS", "PING", "REDELIVER", "REPLAY",
                                 "REPLAY.STATUS", "RESOLVE", "CKPT.SAVE", "CKPT.GET", "CKPT.LIST", NULL };
    for (int i = 0; big_verbs [i]; i++)
        add (big_verbs [i], k, big, MAX_MESSAGE + 1, "TOO_LARGE", NULL);
    add ("", "not a verb, and over max_message_bytes", big, MAX_MESSAGE + 1, "UNKNOWN_VERB", NULL);
    row_t *huge = add ("PUT", "frame over max_frame_bytes", padded_object (MAX_FRAME + 1), MAX_FRAME + 1, NULL,
                       NULL);
    huge->via = VIA_HUGE_FRAME;
}

static void
add_json_shape (void)
{
    const char *k = "a JSON scalar for a body";
    add ("PUT", k, B ("1"), "INVALID_EVENT", NULL);
    add ("PUT", k, B ("\"x\""), "INVALID_EVENT", NULL);
    add ("PUT", k, B ("null"), "INVALID_EVENT", NULL);
    add ("GET", k, B ("\"" UUID "\""), "INVALID_REQUEST", NULL);
    add ("STATS", k, B ("null"), "INVALID_REQUEST", NULL);
    add ("PING", k, B ("true"), "INVALID_REQUEST", NULL);
    add ("COUNT", k, B ("[]"), "INVALID_REQUEST", NULL);
    add ("CKPT.LIST", k, B ("0"), "INVALID_REQUEST", NULL);
    add ("CKPT.SAVE", k, B ("[]"), "INVALID_REQUEST", NULL);
    add ("REPLAY.STATUS", k, B ("\"x\""), "INVALID_REQUEST", NULL);

    k = "trailing bytes after the JSON value";
    add ("PUT", k, B ("{\"streamName\":\"s\"," ERRT "} x"), "INVALID_JSON", NULL);
    add ("GET", k, B ("{\"id\":\"" UUID "\"}}"), "INVALID_JSON", NULL);
    add ("PING", k, B ("{}{}"), "INVALID_JSON", NULL);
    add ("STATS", k, B ("{} 1"), "INVALID_JSON", NULL);
    add ("CKPT.DELETE", k, B ("{\"streamName\":\"c\"},"), "INVALID_JSON", NULL);
    add ("REPLAY", k, B ("{\"all\":true,\"dryRun\":true}\0"), "INVALID_JSON", NULL);

    k = "UTF-8 byte order mark";
    add ("PUT", k, B ("\xef\xbb\xbf{\"streamName\":\"s\"," ERRT "}"), "INVALID_JSON", NULL);
    add ("PING", k, B ("\xef\xbb\xbf{}"), "INVALID_JSON", NULL);
    add ("CKPT.LIST", k, B ("\xef\xbb\xbf"), "INVALID_JSON", NULL);

    k = "not JSON";
    add ("PUT", k, B ("{\"streamName\":"), "INVALID_JSON", NULL);
    add ("LIST", k, B ("{'streamName':'s'}"), "INVALID_JSON", NULL);
    add ("LIST", k, B ("{\"streamName\":\"s\",\"limit\":NaN}"), "INVALID_JSON", NULL);
    add ("LIST", k, B ("{\"streamName\":\"s\",\"limit\":010}"), "INVALID_JSON", NULL);
    add ("GET", k, B ("{\"id\":\"a\x01\"}"), "INVALID_JSON", NULL);
    add ("GET", k, B ("{\"id\":\"a\0b\"}"), "INVALID_JSON", NULL);
    add ("COUNT", k, B ("{\"status\":\"A\",}"), "INVALID_JSON", NULL);
    add ("GROUPS", k, B ("{} // all"), "INVALID_JSON", NULL);

    k = "empty body";
    const char *need [] = { "GET", "LIST", "REPLAY", "REPLAY.PAUSE", "REPLAY.RESUME", "REPLAY.CANCEL", "RESOLVE",
                            "FAIL", "CKPT.SAVE", "CKPT.SEEN", "CKPT.PROCESSED", "CKPT.GET", "CKPT.DELETE", NULL };
    for (int i = 0; need [i]; i++)
        add (need [i], k, i % 2 ? " \n\t" : "", i % 2 ? 3 : 0, "EMPTY_BODY", NULL);
    add ("PUT", k, B (""), "EMPTY_BODY", NULL);
    add ("PUT", k, B ("  \r\n"), "EMPTY_BODY", NULL);
    add ("REDELIVER", k, B (""), "EMPTY_BODY", NULL);
}

static void
add_members (void)
{
    const char *k = "unknown member";
    add ("PUT", k, B ("{\"streamName\":\"s\"," ERRT ",\"extra\":1}"), "INVALID_EVENT", "extra");
    add ("PUT", k, B ("{\"streamName\":\"s\"," ERRT ",\"extra\":null}"), "INVALID_EVENT", "extra");
    add ("GET", k, B ("{\"id\":\"" UUID "\",\"x\":1}"), "INVALID_REQUEST", "x");
    add ("LIST", k, B ("{\"streamName\":\"s\",\"sort\":\"asc\"}"), "INVALID_REQUEST", "sort");
    add ("COUNT", k, B ("{\"limit\":5}"), "INVALID_REQUEST", "limit");
    add ("GROUPS", k, B ("{\"cursor\":\"x\"}"), "INVALID_REQUEST", "cursor");
    add ("STATS", k, B ("{\"x\":1}"), "INVALID_REQUEST", "x");
    add ("PING", k, B ("{\"x\":1}"), "INVALID_REQUEST", NULL);
    add ("REDELIVER", k, B ("{\"sink\":\"quiet\",\"x\":1}"), "INVALID_REQUEST", "x");
    add ("REPLAY", k, B ("{\"all\":true,\"x\":1}"), "INVALID_REQUEST", "x");
    add ("REPLAY.STATUS", k, B ("{\"x\":1}"), "INVALID_REQUEST", "x");
    add ("REPLAY.RESUME", k, B ("{\"job\":\"" UUID "\",\"x\":1}"), "INVALID_REQUEST", "x");
    add ("RESOLVE", k, B ("{\"id\":\"" UUID "\",\"x\":1}"), "INVALID_REQUEST", "x");
    add ("CKPT.SAVE", k, B ("{\"streamName\":\"c\",\"updatedAt\":\"" TS "\"}"), "INVALID_REQUEST", "updatedAt");
    add ("CKPT.SEEN", k, B ("{\"streamName\":\"c\",\"token\":{},\"timestamp\":\"" TS "\",\"x\":1}"),
         "INVALID_REQUEST", "x");
    add ("CKPT.GET", k, B ("{\"streamName\":\"c\",\"x\":1}"), "INVALID_REQUEST", "x");
    add ("CKPT.LIST", k, B ("{\"x\":1}"), "INVALID_REQUEST", "x");
    add ("CKPT.DELETE", k, B ("{\"streamName\":\"c\",\"x\":1}"), "INVALID_REQUEST", "x");
    char *name = repeated ("{\"streamName\":\"s\",\"", "\xc3\xa9", 200, "", "\":1}");
    add_cut ("LIST", "a name longer than a field holds", S (name), "INVALID_REQUEST",
             "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9");

    k = "missing member";
    add ("PUT", k, B ("{\"streamName\":\"s\"}"), "INVALID_EVENT", "error.type");
    add ("PUT", k, B ("{" ERRT "}"), "INVALID_EVENT", "streamName");
    add ("GET", k, B ("{}"), "INVALID_REQUEST", "id");
    add ("REDELIVER", k, B ("{}"), "INVALID_REQUEST", "sink");
    add ("REPLAY", k, B ("{}"), "INVALID_REQUEST", "all");
    add ("REPLAY.PAUSE", k, B ("{}"), "INVALID_REQUEST", "job");
    add ("FAIL", k, B ("{}"), "INVALID_REQUEST", "id");
    add ("CKPT.SAVE", k, B ("{}"), "INVALID_REQUEST", "streamName");
    add ("CKPT.SEEN", k, B ("{\"streamName\":\"c\",\"timestamp\":\"" TS "\"}"), "INVALID_REQUEST", "token");
    add ("CKPT.PROCESSED", k, B ("{\"streamName\":\"c\",\"token\":{}}"), "INVALID_REQUEST", "timestamp");
    add ("CKPT.GET", k, B ("{}"), "INVALID_REQUEST", "streamName");

    k = "bad timestamp";
    add ("PUT", k, B ("{\"streamName\":\"s\"," ERRT ",\"createdAt\":\"2026-02-30T00:00:00Z\"}"), "INVALID_TIMESTAMP",
         "createdAt");
    add ("PUT", k, B ("{\"streamName\":\"s\"," ERRT ",\"lastAttemptAt\":\"2026-06-09 14:32:11\"}"),
         "INVALID_TIMESTAMP", "lastAttemptAt");
    add ("CKPT.SEEN", k, B ("{\"streamName\":\"c\",\"token\":{},\"timestamp\":\"yesterday\"}"), "INVALID_TIMESTAMP",
         "timestamp");
    add ("CKPT.SAVE", k, B ("{\"streamName\":\"c\",\"lastSeenTimestamp\":\"2026-06-09T24:00:00Z\"}"),
         "INVALID_TIMESTAMP", "lastSeenTimestamp");
    add ("COUNT", k, B ("{\"createdBefore\":\"2026-06-09\"}"), "INVALID_REQUEST", "createdBefore");

    k = "bad extended JSON";
    add ("PUT", k, B ("{\"streamName\":\"s\"," ERRT ",\"documentKey\":{\"_id\":{\"$oid\":\"xyz\"}}}"), "INVALID_EVENT",
         "documentKey._id");
    add ("PUT", k, B ("{\"streamName\":\"s\"," ERRT ",\"fullDocument\":{\"n\":{\"$numberDouble\":\"inf\"}}}"),
         "INVALID_EVENT", "fullDocument.n");
    add ("CKPT.SEEN", k, B ("{\"streamName\":\"c\",\"token\":{\"n\":{\"$numberLong\":\"x\"}},\"timestamp\":\"" TS
                            "\"}"), "INVALID_REQUEST", "token.n");

    k = "members that contradict";
    add ("REDELIVER", k, B ("{\"sink\":\"quiet\",\"streamName\":\"s\",\"id\":\"" UUID "\"}"), "INVALID_REQUEST",
         "id");
    add ("REDELIVER", "no such sink", B ("{\"sink\":\"nope\"}"), "INVALID_REQUEST", "sink");
    add ("REPLAY", k, B ("{\"ids\":[\"" UUID "\"],\"status\":\"X\"}"), "INVALID_REQUEST", "status");
    add ("REPLAY", k, B ("{\"all\":true,\"sample\":1}"), "INVALID_REQUEST", "sample");
    add ("REPLAY", "target endpoint without replay.listen", B ("{\"all\":true,\"target\":\"endpoint\"}"),
         "INVALID_REQUEST", "target");
    add ("REPLAY", "empty ids", B ("{\"ids\":[]}"), "INVALID_REQUEST", "ids");
    add ("REPLAY", "an id that is not a UUID", B ("{\"ids\":[\"x\"]}"), "INVALID_REQUEST", "ids");
    add ("COUNT", "fingerprint in upper case", B ("{\"fingerprint\":\"ABCDEF0123456789\"}"), "INVALID_REQUEST",
         "fingerprint");
    add ("COUNT", "metadata of 17 pairs",
         B ("{\"metadata\":{\"k0\":1,\"k1\":1,\"k2\":1,\"k3\":1,\"k4\":1,\"k5\":1,\"k6\":1,\"k7\":1,\"k8\":1,"
            "\"k9\":1,\"k10\":1,\"k11\":1,\"k12\":1,\"k13\":1,\"k14\":1,\"k15\":1,\"k16\":1}}"),
         "INVALID_REQUEST", "metadata");
    add ("COUNT", "metadata of no pairs", B ("{\"metadata\":{}}"), "INVALID_REQUEST", "metadata");
    add ("COUNT", "a metadata key with a dot", B ("{\"metadata\":{\"a.b\":1}}"), "INVALID_REQUEST", "metadata.a.b");
    add ("LIST", "a cursor this gateway never issued", B ("{\"streamName\":\"s\",\"cursor\":\"zzz\"}"),
         "INVALID_REQUEST", "cursor");

    k = "string too long";
    add ("PUT", k, S (text_of ("{\"streamName\":\"%s\"," ERRT "}", filled ('s', 256))), "INVALID_EVENT", "streamName");
    add ("PUT", k, S (text_of ("{\"streamName\":\"s\",\"error\":{\"type\":\"%s\"}}", filled ('T', 1025))),
         "INVALID_EVENT", "error.type");
    add ("PUT", k, S (text_of ("{\"streamName\":\"s\"," ERRT ",\"status\":\"%s\"}", filled ('S', 33))),
         "INVALID_EVENT", "status");
    add ("LIST", k, S (text_of ("{\"streamName\":\"%s\"}", filled ('s', 1021))), "INVALID_REQUEST", "streamName");
    add ("COUNT", k, S (text_of ("{\"status\":\"%s\"}", filled ('S', 1025))), "INVALID_REQUEST", "status");
    add ("CKPT.SAVE", k, S (text_of ("{\"streamName\":\"%s\"}", filled ('c', 1025))), "INVALID_REQUEST", "streamName");
    add ("CKPT.SAVE", k, S (text_of ("{\"streamName\":\"c\",\"instanceId\":\"%s\"}", filled ('i', 256))),
         "INVALID_REQUEST", "instanceId");
    add ("CKPT.SEEN", k, S (text_of ("{\"streamName\":\"c\",\"token\":{\"a\":\"%s\"},\"timestamp\":\"" TS "\"}",
                                    filled ('t', 17000))), "INVALID_REQUEST", "token");
    add ("CKPT.SAVE", k, S (text_of ("{\"streamName\":\"c\",\"metadata\":{\"a\":\"%s\"}}", filled ('m', 66000))),
         "INVALID_REQUEST", "metadata");
}

static void
build_table (void)
{
    add_repeated_members ();
    add_wrong_types ();
    add_out_of_range ();
    add_nul_in_strings ();
    add_nul_in_names ();
    add_huge_arrays ();
    add_deep_nesting ();
    add_invalid_utf8 ();
    add_frames_rows ();
    add_oversize ();
    add_json_shape ();
    add_members ();
}

/* Every verb has rows, among them a repeated member at the top and one
 * nested; and the table has at least 25 kinds of malformed request. */
static void
check_coverage (void)
{
    for (int v = 0; verbs [v]; v++) {
        bool any = false, top = false, inner = false;
        for (int i = 0; i < row_count; i++) {
            if (strcmp (rows [i].verb, verbs [v]) != 0)
                continue;
            any = true;
            top |= strcmp (rows [i].kind, "repeated member") == 0;
            inner |= strcmp (rows [i].kind, "repeated member, nested") == 0;
        }
        cr_assert (any && top && inner, "%s has no rows, or none with a repeated member (top level and nested)",
                   verbs [v]);
    }
    int kinds = 0;
    for (int i = 0; i < row_count; i++) {
        bool seen = false;
        for (int j = 0; j < i && !seen; j++)
            seen = strcmp (rows [i].kind, rows [j].kind) == 0;
        kinds += !seen;
    }
    cr_assert_geq (kinds, 25, "only %d kinds of malformed request", kinds);
    cr_log_info ("bad-input table: %d rows, %d kinds, over the 21 verbs", row_count, kinds);
}

/* ---- replies -------------------------------------------------------------------- */

typedef struct {
    int    count;
    char  *parts [MAX_FRAMES];
    size_t lens [MAX_FRAMES];
} reply_t;

static void
reply_free (reply_t *r)
{
    for (int i = 0; i < r->count && i < MAX_FRAMES; i++)
        free (r->parts [i]);
    memset (r, 0, sizeof *r);
}

/* One whole message from s within wait_ms; false when none came. */
static bool
receive (void *s, reply_t *r, int wait_ms)
{
    memset (r, 0, sizeof *r);
    zmq_pollitem_t item = { s, 0, ZMQ_POLLIN, 0 };
    if (zmq_poll (&item, 1, wait_ms) <= 0)
        return false;
    zmq_msg_t frame;
    zmq_msg_init (&frame);
    bool more = true;
    while (more && zmq_msg_recv (&frame, s, 0) >= 0) {
        more = zmq_msg_more (&frame);
        if (r->count < MAX_FRAMES) {
            size_t n = zmq_msg_size (&frame);
            r->parts [r->count] = malloc (n + 1);
            memcpy (r->parts [r->count], zmq_msg_data (&frame), n);
            r->parts [r->count][n] = '\0';
            r->lens [r->count] = n;
        }
        r->count++;
    }
    zmq_msg_close (&frame);
    return true;
}

static void
send_frames (void *s, const char *const *frames, const size_t *lens, int count)
{
    for (int i = 0; i < count; i++)
        cr_assert_geq (zmq_send (s, frames [i], lens [i], i + 1 < count ? ZMQ_SNDMORE : 0), 0, "send: %s",
                       zmq_strerror (zmq_errno ()));
}

static void *
dealer (void *ctx)
{
    void *s = zmq_socket (ctx, ZMQ_DEALER);
    int linger = 0;
    zmq_setsockopt (s, ZMQ_LINGER, &linger, sizeof linger);
    cr_assert_eq (zmq_connect (s, d.endpoint), 0);
    return s;
}

/* A request on the table's DEALER and its OK reply's body, parsed. */
static dlq_json_doc_t *
call_ok (void *s, const char *verb, const char *body)
{
    static int n;
    char rid [32];
    snprintf (rid, sizeof rid, "call-%d", n++);
    const char *frames [3] = { verb, rid, body };
    size_t lens [3] = { strlen (verb), strlen (rid), strlen (body) };
    send_frames (s, frames, lens, 3);
    reply_t r;
    cr_assert (receive (s, &r, REPLY_WAIT_MS), "no reply to %s %s", verb, body);
    cr_assert (r.count == 3 && strcmp (r.parts [0], "OK") == 0 && strcmp (r.parts [1], rid) == 0,
               "%s %s -> %s %s", verb, body, r.parts [0], r.count > 2 ? r.parts [2] : "");
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (r.parts [2], r.lens [2], &doc, NULL), DLQ_JSON_OK, "not JSON: %s", r.parts [2]);
    reply_free (&r);
    return doc;
}

/* The compact text of v (NULL: "null"); the caller frees it. */
static char *
compact (const dlq_json_value_t *v)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    if (v)
        dlq_json_write (&out, v);
    else
        dlq_buf_puts (&out, "null");
    return dlq_buf_steal (&out, NULL);
}

static int64_t
int_of (const dlq_json_value_t *obj, const char *key)
{
    int64_t n = 0;
    const dlq_json_value_t *v = dlq_json_get (obj, key);
    if (v)
        cr_assert (dlq_json_as_int64 (v, &n), "%s is not an integer", key);
    return n;
}

/* ---- STATS ---------------------------------------------------------------------- */

typedef struct {
    int64_t errors [16];        /* by index in codes */
    int64_t rejected, accepted, duplicate, events, background;
    char   *others;             /* the streams but the background's, as compact JSON */
} stats_t;

static void
stats_take (void *s, stats_t *st)
{
    memset (st, 0, sizeof *st);
    dlq_json_doc_t *doc = call_ok (s, "STATS", "");
    const dlq_json_value_t *root = dlq_json_root (doc);
    const dlq_json_value_t *counters = dlq_json_get (root, "counters");
    st->rejected = int_of (counters, "rejected");
    st->accepted = int_of (counters, "accepted");
    st->duplicate = int_of (counters, "duplicate");
    st->events = int_of (root, "events");
    for (const dlq_json_value_t *e = dlq_json_get (counters, "errors")->child; e; e = e->next) {
        int c = 0;
        while (codes [c] && !(strlen (codes [c]) == e->key_len && memcmp (codes [c], e->key, e->key_len) == 0))
            c++;
        cr_assert_not_null (codes [c], "STATS counts a code README does not document: %.*s", (int) e->key_len,
                            e->key);
        cr_assert (dlq_json_as_int64 (e, &st->errors [c]));
    }
    dlq_buf_t others = DLQ_BUF_INIT;
    dlq_buf_putc (&others, '{');
    for (const dlq_json_value_t *m = dlq_json_get (root, "streams")->child; m; m = m->next) {
        if (m->key_len == 2 && memcmp (m->key, "bg", 2) == 0) {
            dlq_json_as_int64 (m, &st->background);
            continue;
        }
        dlq_buf_puts (&others, others.len > 1 ? "," : "");
        dlq_json_write_string (&others, m->key, m->key_len);
        dlq_buf_putc (&others, ':');
        dlq_json_write (&others, m);
    }
    dlq_buf_putc (&others, '}');
    st->others = dlq_buf_steal (&others, NULL);
    dlq_json_doc_destroy (&doc);
}

/* after differs from before by the one ERR of row r (none when it is not
 * answered), and nothing was stored but the background's events. */
static void
stats_check (const row_t *r, int index, const stats_t *before, const stats_t *after)
{
    for (int c = 0; codes [c]; c++) {
        int64_t want = before->errors [c] + (r->code && strcmp (codes [c], r->code) == 0);
        cr_expect_eq (after->errors [c], want, "row %d (%s %s): errors.%s went from %lld to %lld", index, r->verb,
                      r->kind, codes [c], (long long) before->errors [c], (long long) after->errors [c]);
    }
    cr_expect_eq (after->rejected, before->rejected + (r->code != NULL),
                  "row %d (%s %s): rejected went from %lld to %lld", index, r->verb, r->kind,
                  (long long) before->rejected, (long long) after->rejected);
    cr_expect_str_eq (after->others, before->others, "row %d (%s %s) stored something", index, r->verb, r->kind);
    cr_expect_eq (after->duplicate, before->duplicate, "row %d (%s %s) was taken as a duplicate", index, r->verb,
                  r->kind);
}

/* ---- the background client ------------------------------------------------------ */

typedef struct {
    pthread_t       thread;
    pthread_mutex_t lock;
    pthread_cond_t  progress;
    atomic_bool     stop;
    long            answered;       /* under lock */
    long            sent;
    int             puts;           /* PUTs sent: events 0 .. puts - 1 */
    bool           *acked;          /* by event */
    int            *acked_list;
    int             acked_count;
    int             gets;
    char            failure [512];  /* the first thing that went wrong, "" when nothing */
} background_t;

static background_t bg;

static void
bg_event (int i, char *out, size_t size)
{
    snprintf (out, size, "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-%012d\",\"streamName\":\"bg\","
              "\"error\":{\"type\":\"bg.Failure\",\"message\":\"background event %d\"},\"attempts\":%d,"
              "\"status\":\"PENDING\",\"createdAt\":\"2099-06-09T14:32:13.500Z\","
              "\"expiresAt\":\"2099-07-09T14:32:13.500Z\",\"metadata\":{\"i\":%d}}", i, i, i % 7, i);
}

static void bg_fail (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));

static void
bg_fail (const char *fmt, ...)
{
    if (bg.failure [0])
        return;
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (bg.failure, sizeof bg.failure, fmt, ap);
    va_end (ap);
}

/* The reply to one of the background's requests: rid "p<i>" or "g<i>". */
static void
bg_answer (const reply_t *r)
{
    if (r->count != 3 || (r->parts [1][0] != 'p' && r->parts [1][0] != 'g')) {
        bg_fail ("a reply of %d frames, not to one of the background's requests", r->count);
        return;
    }
    int i = atoi (r->parts [1] + 1);
    char want [512];
    if (strcmp (r->parts [0], "OK") != 0) {
        bg_fail ("%s %d answered %s %s", r->parts [1][0] == 'p' ? "PUT" : "GET", i, r->parts [0], r->parts [2]);
        return;
    }
    if (r->parts [1][0] == 'p') {
        snprintf (want, sizeof want, "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-%012d\",\"duplicate\":false}", i);
        if (strcmp (r->parts [2], want) != 0)
            bg_fail ("PUT %d answered %s", i, r->parts [2]);
        else {
            bg.acked [i] = true;
            bg.acked_list [bg.acked_count++] = i;
        }
        return;
    }
    dlq_json_doc_t *doc = NULL;
    char *event = NULL;
    bg_event (i, want, sizeof want);
    if (dlq_json_parse (r->parts [2], r->lens [2], &doc, NULL) == DLQ_JSON_OK)
        event = compact (dlq_json_get (dlq_json_root (doc), "event"));
    if (!event || strcmp (event, want) != 0)
        bg_fail ("GET %d answered %s, not the event it stored", i, r->parts [2]);
    free (event);
    dlq_json_doc_destroy (&doc);
}

/* Pipelines BG_WINDOW requests at a time until told to stop: a PUT of a new
 * event, then a GET of one acknowledged before, and so on. */
static void *
bg_run (void *arg)
{
    (void) arg;
    void *ctx = zmq_ctx_new ();
    void *s = zmq_socket (ctx, ZMQ_DEALER);
    int linger = 0;
    zmq_setsockopt (s, ZMQ_LINGER, &linger, sizeof linger);
    zmq_connect (s, d.endpoint);
    int outstanding = 0;
    uint64_t rng = 0x9e3779b97f4a7c15ULL;
    char body [512], rid [32];
    while (!bg.failure [0]) {
        while (!atomic_load (&bg.stop) && outstanding < BG_WINDOW) {
            const char *verb = "PUT";
            if ((bg.sent % 2 == 1 && bg.acked_count > 0) || bg.puts == BG_PUTS_MAX) {
                rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
                int i = bg.acked_list [(rng >> 33) % (uint64_t) bg.acked_count];
                snprintf (rid, sizeof rid, "g%d", i);
                snprintf (body, sizeof body, "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-%012d\"}", i);
                verb = "GET";
                bg.gets++;
            }
            else {
                snprintf (rid, sizeof rid, "p%d", bg.puts);
                bg_event (bg.puts++, body, sizeof body);
            }
            zmq_send (s, verb, strlen (verb), ZMQ_SNDMORE);
            zmq_send (s, rid, strlen (rid), ZMQ_SNDMORE);
            zmq_send (s, body, strlen (body), 0);
            outstanding++;
            bg.sent++;
        }
        if (outstanding == 0)
            break;
        reply_t r;
        if (!receive (s, &r, REPLY_WAIT_MS)) {
            bg_fail ("no reply within %d ms (%d requests in flight)", REPLY_WAIT_MS, outstanding);
            break;
        }
        bg_answer (&r);
        reply_free (&r);
        outstanding--;
        pthread_mutex_lock (&bg.lock);
        bg.answered++;
        pthread_cond_broadcast (&bg.progress);
        pthread_mutex_unlock (&bg.lock);
    }
    zmq_close (s);
    zmq_ctx_term (ctx);
    pthread_mutex_lock (&bg.lock);
    pthread_cond_broadcast (&bg.progress);
    pthread_mutex_unlock (&bg.lock);
    return NULL;
}

static long
bg_answered (void)
{
    pthread_mutex_lock (&bg.lock);
    long n = bg.answered;
    pthread_mutex_unlock (&bg.lock);
    return n;
}

/* Wait until the background client has more than mark replies: the
 * gateway still serves it. False when none came within REPLY_WAIT_MS. */
static bool
bg_wait_beyond (long mark)
{
    struct timespec until;
    clock_gettime (CLOCK_REALTIME, &until);
    until.tv_sec += REPLY_WAIT_MS / 1000;
    pthread_mutex_lock (&bg.lock);
    int rc = 0;
    while (bg.answered <= mark && !bg.failure [0] && rc == 0)
        rc = pthread_cond_timedwait (&bg.progress, &bg.lock, &until);
    bool beyond = bg.answered > mark;
    pthread_mutex_unlock (&bg.lock);
    return beyond;
}

static void
bg_start (void)
{
    memset (&bg, 0, sizeof bg);
    pthread_mutex_init (&bg.lock, NULL);
    pthread_cond_init (&bg.progress, NULL);
    bg.acked = calloc (BG_PUTS_MAX, sizeof *bg.acked);
    bg.acked_list = calloc (BG_PUTS_MAX, sizeof *bg.acked_list);
    cr_assert_eq (pthread_create (&bg.thread, NULL, bg_run, NULL), 0);
}

static void
bg_stop (void)
{
    atomic_store (&bg.stop, true);
    pthread_join (bg.thread, NULL);
}

/* ---- one row -------------------------------------------------------------------- */

/* The reply to row r (index) is ERR with its code, its field, its request
 * id, and a body of UTF-8 JSON with code, message and field only. */
static void
check_reply (const row_t *r, int index, const reply_t *reply)
{
    int at = r->enveloped ? 1 : 0;
    cr_assert_eq (reply->count, at + 3, "row %d (%s %s): a reply of %d frames", index, r->verb, r->kind,
                  reply->count);
    if (r->enveloped)
        cr_expect_eq (reply->lens [0], 0, "row %d (%s %s): the reply is not behind an empty delimiter", index,
                      r->verb, r->kind);
    const char *body = reply->parts [at + 2];
    size_t len = reply->lens [at + 2];
    cr_expect_str_eq (reply->parts [at], "ERR", "row %d (%s %s): %s %s", index, r->verb, r->kind,
                      reply->parts [at], body);
    size_t id_len = r->id_frame >= 0 ? r->lens [r->id_frame] : 0;
    cr_expect (reply->lens [at + 1] == id_len
               && (id_len == 0 || memcmp (reply->parts [at + 1], r->frames [r->id_frame], id_len) == 0),
               "row %d (%s %s): the reply's request id is not the request's", index, r->verb, r->kind);
    size_t bad = 0;
    cr_assert (dlq_utf8_valid (body, len, &bad), "row %d (%s %s): the reply is not UTF-8 at byte %zu: %s", index,
               r->verb, r->kind, bad, body);
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (body, len, &doc, NULL), DLQ_JSON_OK, "row %d (%s %s): the reply is not JSON: %s",
                  index, r->verb, r->kind, body);
    const dlq_json_value_t *root = dlq_json_root (doc);
    cr_assert_eq (root->type, DLQ_JSON_OBJECT, "row %d: %s", index, body);
    const dlq_json_value_t *code = dlq_json_get (root, "code");
    const dlq_json_value_t *message = dlq_json_get (root, "message");
    const dlq_json_value_t *field = dlq_json_get (root, "field");
    cr_expect (code && code->type == DLQ_JSON_STRING && strcmp (code->str, r->code) == 0,
               "row %d (%s %s): want %s, got %s", index, r->verb, r->kind, r->code, body);
    cr_expect (message && message->type == DLQ_JSON_STRING && message->len > 0, "row %d: no message: %s", index,
               body);
    cr_expect_eq (root->count, 2u + (field != NULL), "row %d: members other than code, message, field: %s",
                  index, body);
    if (!r->field)
        cr_expect_null (field, "row %d (%s %s): want no field, got %s", index, r->verb, r->kind, body);
    else {
        size_t want = strlen (r->field);
        bool same = field && field->type == DLQ_JSON_STRING
                 && (r->field_prefix ? field->len >= want : field->len == want)
                 && memcmp (field->str, r->field, want) == 0;
        cr_expect (same, "row %d (%s %s): want field %s%s, got %s", index, r->verb, r->kind, r->field,
                   r->field_prefix ? "..." : "", body);
    }
    dlq_json_doc_destroy (&doc);
}

/* A frame over max_frame_bytes on a DEALER of its own: ZeroMQ drops the
 * connection (seen by the socket's monitor), no reply comes for it, and
 * the same socket, reconnected, is served again. */
static void
run_huge_frame (void *ctx, const row_t *r, int index)
{
    char monitor [64];
    snprintf (monitor, sizeof monitor, "inproc://bad-input-monitor-%d", index);
    void *s = zmq_socket (ctx, ZMQ_DEALER);
    int linger = 0;
    zmq_setsockopt (s, ZMQ_LINGER, &linger, sizeof linger);
    cr_assert_eq (zmq_socket_monitor (s, monitor, ZMQ_EVENT_CONNECTED | ZMQ_EVENT_DISCONNECTED), 0);
    void *events = zmq_socket (ctx, ZMQ_PAIR);
    int wait = REPLY_WAIT_MS;
    zmq_setsockopt (events, ZMQ_RCVTIMEO, &wait, sizeof wait);
    zmq_setsockopt (events, ZMQ_LINGER, &linger, sizeof linger);
    cr_assert_eq (zmq_connect (events, monitor), 0);
    cr_assert_eq (zmq_connect (s, d.endpoint), 0);
    const int expected [] = { ZMQ_EVENT_CONNECTED, ZMQ_EVENT_DISCONNECTED, ZMQ_EVENT_CONNECTED };
    for (int step = 0; step < 3; step++) {
        if (step == 1)
            send_frames (s, r->frames, r->lens, r->count);
        uint8_t event [6];
        char address [256];
        cr_assert_eq (zmq_recv (events, event, sizeof event, 0), 6, "row %d: no socket event %d within %d ms",
                      index, expected [step], REPLY_WAIT_MS);
        cr_assert_geq (zmq_recv (events, address, sizeof address, 0), 0);
        uint16_t id;
        memcpy (&id, event, sizeof id);
        cr_assert_eq (id, expected [step], "row %d: socket event %d, want %d (the connection %s)", index, id,
                      expected [step], step == 1 ? "was not dropped" : "did not come back");
    }
    const char *ping [3] = { "PING", "after-the-drop", "" };
    size_t lens [3] = { 4, 14, 0 };
    send_frames (s, ping, lens, 3);
    reply_t reply;
    cr_assert (receive (s, &reply, REPLY_WAIT_MS), "row %d: the reconnected client is not served", index);
    cr_expect (reply.count == 3 && strcmp (reply.parts [0], "OK") == 0
               && strcmp (reply.parts [1], "after-the-drop") == 0,
               "row %d: the first reply after the drop is not the PING's (%s %s)", index, reply.parts [0],
               reply.count > 1 ? reply.parts [1] : "");
    reply_free (&reply);
    zmq_socket_monitor (s, NULL, 0);
    zmq_close (events);
    zmq_close (s);
}

/* Send row r and check its reply. */
static void
run_row (void *ctx, void *table, const row_t *r, int index)
{
    if (r->via == VIA_HUGE_FRAME) {
        run_huge_frame (ctx, r, index);
        return;
    }
    void *s = table;
    if (r->via == VIA_REQ) {
        s = zmq_socket (ctx, ZMQ_REQ);
        int linger = 0;
        zmq_setsockopt (s, ZMQ_LINGER, &linger, sizeof linger);
        cr_assert_eq (zmq_connect (s, d.endpoint), 0);
    }
    send_frames (s, r->frames, r->lens, r->count);
    reply_t reply;
    cr_assert (receive (s, &reply, REPLY_WAIT_MS), "row %d (%s %s): no reply within %d ms", index, r->verb, r->kind,
               REPLY_WAIT_MS);
    check_reply (r, index, &reply);
    reply_free (&reply);
    if (s != table)
        zmq_close (s);
}

/* ---- the test ------------------------------------------------------------------- */

/* GET every event the background client had acknowledged, pipelined: each
 * is there, byte for byte. */
static void
check_background_events (void *s)
{
    int next = 0, done = 0, window = 64;
    char body [128], rid [32], want [512];
    while (done < bg.acked_count) {
        while (next < bg.acked_count && next - done < window) {
            int i = bg.acked_list [next++];
            snprintf (rid, sizeof rid, "g%d", i);
            snprintf (body, sizeof body, "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-%012d\"}", i);
            const char *frames [3] = { "GET", rid, body };
            size_t lens [3] = { 3, strlen (rid), strlen (body) };
            send_frames (s, frames, lens, 3);
        }
        reply_t r;
        cr_assert (receive (s, &r, REPLY_WAIT_MS), "no reply to a GET of an acknowledged event");
        cr_assert (r.count == 3 && strcmp (r.parts [0], "OK") == 0, "GET %s: %s %s", r.parts [1], r.parts [0],
                   r.count > 2 ? r.parts [2] : "");
        dlq_json_doc_t *doc = NULL;
        cr_assert_eq (dlq_json_parse (r.parts [2], r.lens [2], &doc, NULL), DLQ_JSON_OK);
        char *event = compact (dlq_json_get (dlq_json_root (doc), "event"));
        bg_event (atoi (r.parts [1] + 1), want, sizeof want);
        cr_expect_str_eq (event, want, "acknowledged event %s is not what was sent", r.parts [1]);
        free (event);
        dlq_json_doc_destroy (&doc);
        reply_free (&r);
        done++;
    }
}

Test (bad_input, every_verb_answers_every_malformed_request_with_its_code_and_keeps_serving)
{
    build_table ();
    check_coverage ();
    void *ctx = zmq_ctx_new ();
    void *table = dealer (ctx);
    bg_start ();
    cr_assert (bg_wait_beyond (BG_WINDOW), "the background client is not served: %s", bg.failure);

    stats_t before, after;
    stats_take (table, &before);
    for (int i = 0; i < row_count; i++) {
        long mark = bg_answered ();
        run_row (ctx, table, &rows [i], i);
        stats_take (table, &after);
        stats_check (&rows [i], i, &before, &after);
        free (before.others);
        before = after;
        cr_assert (bg_wait_beyond (mark), "row %d (%s %s): the background client got no reply since: %s", i,
                   rows [i].verb, rows [i].kind, bg.failure);
    }
    free (before.others);
    bg_stop ();
    cr_assert_str_eq (bg.failure, "", "the background client: %s", bg.failure);
    cr_log_info ("background client: %ld requests (%d PUTs, %d GETs), every one answered OK", bg.sent, bg.puts,
                 bg.gets);
    cr_expect_eq (bg.answered, bg.sent, "%ld of %ld background requests answered", bg.answered, bg.sent);
    cr_expect_eq (bg.acked_count, bg.puts);

    check_background_events (table);
    stats_take (table, &after);
    cr_expect_eq (after.accepted, bg.acked_count, "accepted counts only the background's PUTs");
    cr_expect_eq (after.events, bg.acked_count, "the store holds only the background's events");
    cr_expect_eq (after.background, bg.acked_count);
    cr_expect_str_eq (after.others, "{}", "no refused PUT was stored");
    free (after.others);
    dlq_json_doc_t *ckpts = call_ok (table, "CKPT.LIST", "");
    char *text = compact (dlq_json_root (ckpts));
    cr_expect_str_eq (text, "{\"checkpoints\":[]}", "no refused checkpoint write was stored");
    free (text);
    dlq_json_doc_destroy (&ckpts);
    dlq_json_doc_t *jobs = call_ok (table, "REPLAY.STATUS", "");
    text = compact (dlq_json_root (jobs));
    cr_expect_str_eq (text, "{\"jobs\":[]}", "no refused REPLAY started a job");
    free (text);
    dlq_json_doc_destroy (&jobs);

    free (bg.acked);
    free (bg.acked_list);
    zmq_close (table);
    zmq_ctx_term (ctx);
    /* and it never failed meanwhile: it stops cleanly (a sanitizer's
     * report, a leak included, would make the exit status non-zero) */
    int status = test_dlqd_signal_wait (&d, SIGTERM);
    char *log = test_read_file (d.log, NULL);
    cr_expect (WIFEXITED (status) && WEXITSTATUS (status) == 0, "dlqd did not exit 0 after SIGTERM "
               "(status %d); its log:\n%s", status, log ? log : "");
    free (log);
    for (int i = 0; i < owned_count; i++)
        free (owned [i]);
}
