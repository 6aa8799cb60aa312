/*  test_api_routes — the HTTP API's routes as the wire protocol's verbs:
 *  which route a method and path find (404 and 405 told apart, with the
 *  methods the path takes), the verb's body made from the path, the query
 *  string and the request body as docs/api.md says (numbers, booleans,
 *  metadata.KEY, a member given twice or by both the path and the body
 *  refused), the statuses of the reply codes, the browser guards, and
 *  docs/api.md listing every route of the table.
 */
#include "api_guard.h"
#include "api_routes.h"
#include "verb_table.h"
#include "dlq_token.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const dlq_api_route_t *
find (const char *method, const char *url, char *segment)
{
    const dlq_api_route_t *route = NULL;
    char allow [64];
    cr_assert_eq (dlq_api_route_find (method, url, &route, segment, 64, allow, sizeof allow), DLQ_API_MATCHED,
                  "%s %s", method, url);
    return route;
}

Test (api_routes, a_method_and_path_find_their_verb)
{
    char segment [64];
    cr_expect_eq (find ("GET", "/api/v1/events", segment)->verb, DLQ_VERB_LIST);
    cr_expect_eq (find ("GET", "/api/v1/events/0192e4a1-1111-7000-8000-00000000abcd", segment)->verb, DLQ_VERB_GET);
    cr_expect_str_eq (segment, "0192e4a1-1111-7000-8000-00000000abcd");
    cr_expect_eq (find ("POST", "/api/v1/events/x/resolve", segment)->verb, DLQ_VERB_RESOLVE);
    cr_expect_eq (find ("POST", "/api/v1/sinks/pg/redeliver", segment)->verb, DLQ_VERB_REDELIVER);
    cr_expect_str_eq (segment, "pg");
    cr_expect_eq (find ("GET", "/api/v1/replays", segment)->verb, DLQ_VERB_REPLAY_STATUS);
    cr_expect_eq (find ("POST", "/api/v1/replays", segment)->verb, DLQ_VERB_REPLAY);
    cr_expect_eq (find ("DELETE", "/api/v1/checkpoints/orders", segment)->verb, DLQ_VERB_CKPT_DELETE);
    cr_expect_eq (find ("PUT", "/api/v1/checkpoints/orders", segment)->verb, DLQ_VERB_CKPT_SAVE);

    const dlq_api_route_t *route;
    char allow [64];
    cr_expect_eq (dlq_api_route_find ("DELETE", "/api/v1/replays", &route, segment, 64, allow, sizeof allow),
                  DLQ_API_NO_METHOD);
    cr_expect_str_eq (allow, "POST, GET");
    static const char *const nowhere [] = {
        "/api/v1/", "/api/v1/events/", "/api/v1/events/a/b", "/api/v1/eventsx", "/api/v2/events", "/api/v1//resolve",
        "/api/v1/events//resolve", "/api/v1/sinks/redeliver", "/metrics",
    };
    for (size_t i = 0; i < sizeof nowhere / sizeof nowhere [0]; i++)
        cr_expect_eq (dlq_api_route_find ("GET", nowhere [i], &route, segment, 64, allow, sizeof allow),
                      DLQ_API_NO_PATH, "%s", nowhere [i]);
    char tiny [4];
    cr_expect_eq (dlq_api_route_find ("GET", "/api/v1/events/abcdef", &route, tiny, sizeof tiny, allow, sizeof allow),
                  DLQ_API_NO_PATH, "a segment longer than the buffer matches nothing");
}

static char *
body_of (const char *method, const char *url, const dlq_api_param_t *params, size_t n, const char *body,
         dlq_code_t want, const char *field)
{
    char segment [64];
    const dlq_api_route_t *route = find (method, url, segment);
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_error_t err = { DLQ_OK, "", "" };
    dlq_code_t code = dlq_api_route_body (route, segment, params, n, body, body ? strlen (body) : 0, &out, &err);
    cr_expect_eq (code, want, "%s %s: %s (%s)", method, url, dlq_code_name (code), err.message);
    if (field)
        cr_expect_str_eq (err.field, field);
    dlq_buf_putc (&out, '\0');
    return out.data;
}

Test (api_routes, the_body_comes_from_the_path_the_query_and_the_request)
{
    dlq_api_param_t q [] = { { "streamName", "a/b \"c\"" }, { "limit", "50" }, { "dryRun", "true" },
                             { "metadata.tenant", "acme" }, { "metadata.n", "7" }, { "errorType", "42" } };
    char *b = body_of ("GET", "/api/v1/events", q, 6, NULL, DLQ_OK, NULL);
    cr_expect_str_eq (b, "{\"streamName\":\"a/b \\\"c\\\"\",\"limit\":50,\"dryRun\":true,\"errorType\":\"42\","
                         "\"metadata\":{\"tenant\":\"acme\",\"n\":7}}");
    free (b);
    b = body_of ("POST", "/api/v1/events/ID/fail", NULL, 0, " {\"reason\": [1, {\"x\": null}]} ", DLQ_OK, NULL);
    cr_expect_str_eq (b, "{\"id\":\"ID\",\"reason\":[1,{\"x\":null}]}");
    free (b);
    b = body_of ("POST", "/api/v1/replays/J/pause", NULL, 0, NULL, DLQ_OK, NULL);
    cr_expect_str_eq (b, "{\"job\":\"J\"}");
    free (b);
    b = body_of ("POST", "/api/v1/replays", NULL, 0, "", DLQ_OK, NULL);
    cr_expect_str_eq (b, "{}", "an empty body is {}");
    free (b);
}

Test (api_routes, what_the_body_cannot_be)
{
    dlq_api_param_t twice [] = { { "limit", "1" }, { "limit", "2" } };
    free (body_of ("GET", "/api/v1/events", twice, 2, NULL, DLQ_ERR_INVALID_REQUEST, "limit"));
    dlq_api_param_t bare [] = { { "metadata", "x" } };
    free (body_of ("GET", "/api/v1/events", bare, 1, NULL, DLQ_ERR_INVALID_REQUEST, "metadata"));
    dlq_api_param_t bad_utf8 [] = { { "streamName", "\xff" } };
    free (body_of ("GET", "/api/v1/count", bad_utf8, 1, NULL, DLQ_ERR_INVALID_UTF8, NULL));
    free (body_of ("POST", "/api/v1/events/ID/resolve", NULL, 0, "{\"id\":\"other\"}", DLQ_ERR_INVALID_REQUEST, "id"));
    free (body_of ("POST", "/api/v1/replays", NULL, 0, "[1]", DLQ_ERR_INVALID_REQUEST, NULL));
    free (body_of ("POST", "/api/v1/replays", NULL, 0, "{\"a\":", DLQ_ERR_INVALID_JSON, NULL));
    free (body_of ("POST", "/api/v1/replays", NULL, 0, "\"\xc3\x28\"", DLQ_ERR_INVALID_UTF8, NULL));
    free (body_of ("GET", "/api/v1/stats", NULL, 0, "{\"x\":1}", DLQ_ERR_INVALID_REQUEST, NULL));
    free (body_of ("GET", "/api/v1/stats", NULL, 0, "{}", DLQ_OK, NULL));
    dlq_api_param_t nameless [] = { { "", "" } };
    free (body_of ("GET", "/api/v1/events", nameless, 1, NULL, DLQ_ERR_INVALID_REQUEST, NULL));
    free (body_of ("POST", "/api/v1/replays/J/pause", NULL, 0, " { } ", DLQ_OK, NULL));
    dlq_api_param_t stray [] = { { "x", "1" } };
    free (body_of ("GET", "/api/v1/stats", stray, 1, NULL, DLQ_ERR_INVALID_REQUEST, "x"));
    free (body_of ("GET", "/api/v1/events/\xff", NULL, 0, NULL, DLQ_ERR_INVALID_UTF8, "id"));
}

Test (api_routes, reply_codes_map_to_statuses)
{
    cr_expect_eq (dlq_api_route_status (DLQ_OK), 200);
    cr_expect_eq (dlq_api_route_status (DLQ_ERR_INVALID_REQUEST), 400);
    cr_expect_eq (dlq_api_route_status (DLQ_ERR_INVALID_JSON), 400);
    cr_expect_eq (dlq_api_route_status (DLQ_ERR_FORBIDDEN), 403);
    cr_expect_eq (dlq_api_route_status (DLQ_ERR_NOT_FOUND), 404);
    cr_expect_eq (dlq_api_route_status (DLQ_ERR_INVALID_STATE), 409);
    cr_expect_eq (dlq_api_route_status (DLQ_ERR_TOO_LARGE), 413);
    cr_expect_eq (dlq_api_route_status (DLQ_ERR_INTERNAL), 500);
    cr_expect_eq (dlq_api_route_status (DLQ_ERR_UNAVAILABLE), 503);
}

Test (api_routes, the_browser_guards)
{
    cr_expect_null (dlq_api_guard_check ("GET", "127.0.0.1:9560", NULL, NULL, NULL, true));
    cr_expect_null (dlq_api_guard_check ("GET", "localhost:9560", "http://localhost:9560", "same-origin", NULL, true));
    cr_expect_null (dlq_api_guard_check ("GET", "[::1]:9560", NULL, NULL, NULL, true));
    cr_expect_null (dlq_api_guard_check ("POST", "localhost", NULL, NULL, "application/json; charset=utf-8", true));
    cr_expect_null (dlq_api_guard_check ("GET", "dlq.example.com", NULL, NULL, NULL, false), "an exposed listener");
    cr_expect_not_null (dlq_api_guard_check ("GET", NULL, NULL, NULL, NULL, true), "no Host");
    cr_expect_not_null (dlq_api_guard_check ("GET", "evil.example:9560", NULL, NULL, NULL, true), "DNS rebinding");
    cr_expect_not_null (dlq_api_guard_check ("GET", "127.0.0.1.evil.example", NULL, NULL, NULL, true));
    cr_expect_not_null (dlq_api_guard_check ("GET", "127.0.0.1:9560", "http://evil.example", NULL, NULL, true));
    cr_expect_not_null (dlq_api_guard_check ("GET", "127.0.0.1:9560", "null", NULL, NULL, true));
    cr_expect_not_null (dlq_api_guard_check ("GET", "127.0.0.1:9560", NULL, "cross-site", NULL, true));
    cr_expect_not_null (dlq_api_guard_check ("POST", "127.0.0.1:9560", NULL, NULL, NULL, true), "no Content-Type");
    cr_expect_not_null (dlq_api_guard_check ("DELETE", "127.0.0.1:9560", NULL, NULL, "text/plain", true));
    cr_expect_not_null (dlq_api_guard_check ("PUT", "127.0.0.1:9560", NULL, NULL, "application/jsonx", true));
    cr_expect_null (dlq_api_guard_check ("GET", "LOCALHOST:9560", NULL, NULL, NULL, true), "a host name in any case");
    cr_expect_null (dlq_api_guard_check ("PATCH", "127.0.0.1", NULL, NULL, NULL, true),
                    "a method no route takes goes on to its 405");
    cr_expect (dlq_api_guard_host ("127.0.0.1:9560") && dlq_api_guard_host ("[::1]") && !dlq_api_guard_host (NULL)
               && !dlq_api_guard_host ("") && !dlq_api_guard_host ("metrics.example:9560"));
}

Test (api_routes, docs_api_lists_every_route)
{
    FILE *f = fopen (DLQ_SOURCE_DIR "/docs/api.md", "r");
    cr_assert_not_null (f);
    static char text [1 << 16];
    size_t n = fread (text, 1, sizeof text - 1, f);
    text [n] = '\0';
    fclose (f);
    size_t count;
    const dlq_api_route_t *routes = dlq_api_routes (&count);
    for (size_t i = 0; i < count; i++) {
        char row [200], path [100];
        snprintf (path, sizeof path, "%s", routes [i].path);
        char *hole = strstr (path, "{}");
        if (hole) {
            char rest [100];
            snprintf (rest, sizeof rest, "%s", hole + 2);
            snprintf (hole, sizeof path - (size_t) (hole - path), "{%s}%s", routes [i].member, rest);
        }
        snprintf (row, sizeof row, "| `%s %s` | `%s` |", routes [i].method, path,
                  dlq_verb_table_get (routes [i].verb)->name);
        cr_expect_not_null (strstr (text, row), "docs/api.md has no row %s", row);
    }
}

Test (api_guard, the_bearer_token_of_an_authorization_header)
{
    const char *token = NULL;
    size_t len = 0;
    cr_assert (dlq_api_guard_bearer ("Bearer dlqd_abc-_0", &token, &len));
    cr_expect (len == 11 && strncmp (token, "dlqd_abc-_0", len) == 0, "%.*s", (int) len, token);
    cr_expect (dlq_api_guard_bearer ("bearer   tok  \t", &token, &len) && len == 3, "any case, spaces around");
    cr_expect (dlq_api_guard_bearer ("BEARER tok", &token, &len) && len == 3);
    cr_expect_not (dlq_api_guard_bearer (NULL, &token, &len), "no header");
    cr_expect_not (dlq_api_guard_bearer ("Basic dXNlcjpwYXNz", &token, &len), "another scheme");
    cr_expect_not (dlq_api_guard_bearer ("Bearer", &token, &len), "no token");
    cr_expect_not (dlq_api_guard_bearer ("Bearer ", &token, &len), "an empty token");
    cr_expect_not (dlq_api_guard_bearer ("Bearer a b", &token, &len), "a second word");
    cr_expect_not (dlq_api_guard_bearer ("Bearer a\x01", &token, &len), "a control byte");
    cr_expect_not (dlq_api_guard_bearer ("Bearer t\xc3\xa9", &token, &len), "a byte past ASCII");
    cr_expect_not (dlq_api_guard_bearer ("Bearertok", &token, &len), "no space after the scheme");
    static char huge [8 + DLQ_TOKEN_MAX + 2];
    memcpy (huge, "Bearer ", 7);
    memset (huge + 7, 'a', DLQ_TOKEN_MAX + 1);
    cr_expect_not (dlq_api_guard_bearer (huge, &token, &len), "over DLQ_TOKEN_MAX bytes");
    huge [7 + DLQ_TOKEN_MAX] = '\0';
    cr_expect (dlq_api_guard_bearer (huge, &token, &len) && len == DLQ_TOKEN_MAX, "DLQ_TOKEN_MAX bytes");
}
