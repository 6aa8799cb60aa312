/*  test_principal — who may use which stream: '*' patterns match any run
 *  of bytes and nothing else is special, a scope is names and patterns
 *  (an admin's is every stream), a bad scope is refused, decisions stay
 *  right past the cache's size, and the scope frame another thread checks
 *  gives the same answers as the principal.
 */
#include "principal.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

static bool
glob (const char *pattern, const char *text)
{
    return dlq_principal_glob (pattern, strlen (pattern), text, strlen (text));
}

Test (principal, a_star_matches_any_run_and_nothing_else_is_special)
{
    cr_expect (glob ("*", ""));
    cr_expect (glob ("*", "orders"));
    cr_expect (glob ("billing.*", "billing.eu"));
    cr_expect (glob ("billing.*", "billing."));
    cr_expect_not (glob ("billing.*", "billing"));
    cr_expect_not (glob ("billing.*", "xbilling.eu"));
    cr_expect (glob ("*.dlq", "orders.dlq"));
    cr_expect_not (glob ("*.dlq", "orders.dlqx"));
    cr_expect (glob ("a*b*c", "aXXbYYc"));
    cr_expect (glob ("a*b*c", "abc"));
    cr_expect_not (glob ("a*b*c", "acb"));
    cr_expect (glob ("a**", "a"));
    cr_expect_not (glob ("orders?", "orders1"), "? is itself");
    cr_expect (glob ("orders?", "orders?"));
    cr_expect_not (glob ("[ab]", "a"), "brackets are themselves");
    cr_expect (glob ("orders", "orders"));
    cr_expect_not (glob ("orders", "order"));
    cr_expect_not (glob ("orders", "orders2"));
}

Test (principal, a_star_pattern_is_not_exponential)
{
    char text [4097];
    memset (text, 'a', 4096);
    text [4096] = '\0';
    cr_expect_not (glob ("*a*a*a*a*a*a*a*a*a*a*b", text));
}

Test (principal, the_scope_is_names_and_patterns)
{
    char err [256] = "";
    dlq_principal_t *p = dlq_principal_new ("w7", DLQ_ROLE_WORKER, " orders , billing.* ", err, sizeof err);
    cr_assert_not_null (p, "%s", err);
    cr_expect_str_eq (dlq_principal_name (p), "w7");
    cr_expect_eq (dlq_principal_role (p), DLQ_ROLE_WORKER);
    cr_expect_not (dlq_principal_all_streams (p));
    cr_expect (dlq_principal_may_stream (p, "orders", 6));
    cr_expect (dlq_principal_may_stream (p, "billing.eu", 10));
    cr_expect_not (dlq_principal_may_stream (p, "payments", 8));
    cr_expect_not (dlq_principal_may_stream (p, "orders2", 7));
    cr_expect_not (dlq_principal_may_stream (p, "orders\0x", 8), "a NUL inside is no match of the name");
    cr_expect (dlq_principal_may_stream (p, "orders", 6), "the cached answer is the same");
    dlq_principal_destroy (&p);
    cr_expect_null (p);
}

Test (principal, every_stream_for_star_and_for_an_admin)
{
    char err [256];
    dlq_principal_t *star = dlq_principal_new ("v", DLQ_ROLE_VIEWER, "orders,*", err, sizeof err);
    dlq_principal_t *admin = dlq_principal_new ("root", DLQ_ROLE_ADMIN, "orders", err, sizeof err);
    cr_assert (star && admin);
    cr_expect (dlq_principal_all_streams (star));
    cr_expect (dlq_principal_all_streams (admin), "an admin may use every stream whatever its streams say");
    cr_expect (dlq_principal_may_stream (admin, "payments", 8));
    dlq_principal_destroy (&star);
    dlq_principal_destroy (&admin);
}

Test (principal, a_bad_name_or_scope_is_refused)
{
    char err [256];
    cr_expect_null (dlq_principal_new ("", DLQ_ROLE_WORKER, "a", err, sizeof err));
    cr_expect_null (dlq_principal_new ("bad\nname", DLQ_ROLE_WORKER, "a", err, sizeof err));
    cr_expect_null (dlq_principal_new ("w", DLQ_ROLE_WORKER, NULL, err, sizeof err));
    cr_expect_null (dlq_principal_new ("w", DLQ_ROLE_WORKER, "", err, sizeof err));
    cr_expect_null (dlq_principal_new ("w", DLQ_ROLE_WORKER, "a,,b", err, sizeof err));
    cr_expect (strstr (err, "empty entry") != NULL, "%s", err);
    cr_expect_null (dlq_principal_new ("w", DLQ_ROLE_WORKER, "a, ", err, sizeof err));
    cr_expect_null (dlq_principal_new ("w", DLQ_ROLE_WORKER, "a\tb\x01", err, sizeof err));
}

Test (principal, decisions_stay_right_past_the_cache)
{
    char err [256];
    dlq_principal_t *p = dlq_principal_new ("w", DLQ_ROLE_WORKER, "s1*", err, sizeof err);
    cr_assert_not_null (p);
    char name [32];
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < 10000; i++) {
            int n = snprintf (name, sizeof name, "s%d", i);
            bool expected = name [1] == '1';
            cr_assert_eq (dlq_principal_may_stream (p, name, (size_t) n), expected, "%s", name);
        }
    char long_name [2000];
    memset (long_name, 'x', sizeof long_name);
    long_name [0] = 's';
    long_name [1] = '1';
    cr_expect (dlq_principal_may_stream (p, long_name, sizeof long_name), "a name longer than the cache takes");
    dlq_principal_destroy (&p);
}

Test (principal, the_scope_frame_answers_as_the_principal)
{
    char err [256];
    dlq_principal_t *p = dlq_principal_new ("w7", DLQ_ROLE_WORKER, "orders,billing.*", err, sizeof err);
    dlq_buf_t frame = DLQ_BUF_INIT;
    dlq_principal_scope_frame (p, &frame);
    cr_expect_str_eq (dlq_principal_scope_name (frame.data, frame.len), "w7");
    cr_expect_not (dlq_principal_scope_all (frame.data, frame.len));
    static const char *const streams [] = { "orders", "billing.eu", "payments", "w7", "orders.x", "" };
    for (size_t i = 0; i < sizeof streams / sizeof streams [0]; i++) {
        size_t n = strlen (streams [i]);
        cr_expect_eq (dlq_principal_scope_allows (frame.data, frame.len, streams [i], n),
                      dlq_principal_may_stream (p, streams [i], n), "%s", streams [i]);
    }
    cr_expect_not (dlq_principal_scope_allows (frame.data, frame.len, "w7", 2), "the name is no pattern");
    dlq_buf_free (&frame);
    dlq_principal_t *admin = dlq_principal_new ("root", DLQ_ROLE_ADMIN, "x", err, sizeof err);
    dlq_principal_scope_frame (admin, &frame);
    cr_expect (dlq_principal_scope_all (frame.data, frame.len));
    cr_expect (dlq_principal_scope_allows (frame.data, frame.len, "anything", 8));
    cr_expect_str_eq (dlq_principal_scope_name (frame.data, frame.len), "root");
    cr_expect (dlq_principal_scope_all ("", 0), "no frame: no CURVE, every stream");
    cr_expect_null (dlq_principal_scope_name ("", 0));
    dlq_buf_free (&frame);
    dlq_principal_destroy (&p);
    dlq_principal_destroy (&admin);
}

Test (principal, roles_by_name_and_in_words)
{
    dlq_role_t r;
    cr_expect (dlq_principal_role_parse ("worker", &r) && r == DLQ_ROLE_WORKER);
    cr_expect (dlq_principal_role_parse ("admin", &r) && r == DLQ_ROLE_ADMIN);
    cr_expect_not (dlq_principal_role_parse ("Admin", &r));
    cr_expect_not (dlq_principal_role_parse ("root", &r));
    cr_expect_not (dlq_principal_role_parse (NULL, &r));
    dlq_buf_t text = DLQ_BUF_INIT;
    dlq_principal_roles_text (DLQ_ROLE_VIEWER | DLQ_ROLE_OPERATOR | DLQ_ROLE_ADMIN, &text);
    cr_expect_str_eq (text.data, "viewer, operator or admin");
    dlq_buf_reset (&text);
    dlq_principal_roles_text (DLQ_ROLE_ADMIN, &text);
    cr_expect_str_eq (text.data, "admin");
    dlq_buf_free (&text);
}
