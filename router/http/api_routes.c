/*  api_routes — the /api/v1/ routes and how a request becomes a verb's
 *  body (see the header). */
#include "api_routes.h"

#include "dlq_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEGMENT "{}"

static const dlq_api_route_t routes [] = {
    { "GET", "events", DLQ_VERB_LIST, NULL, DLQ_API_BODY_QUERY, "the events that match the filters, newest first, a page at a time" },
    { "GET", "events/{}", DLQ_VERB_GET, "id", DLQ_API_BODY_NONE, "one event with its deliveries" },
    { "POST", "events/{}/resolve", DLQ_VERB_RESOLVE, "id", DLQ_API_BODY_JSON, "a replayed event was processed: SUCCEEDED" },
    { "POST", "events/{}/fail", DLQ_VERB_FAIL, "id", DLQ_API_BODY_JSON, "a replayed event failed again: due after a backoff" },
    { "GET", "count", DLQ_VERB_COUNT, NULL, DLQ_API_BODY_QUERY, "how many events match the filters" },
    { "GET", "groups", DLQ_VERB_GROUPS, NULL, DLQ_API_BODY_QUERY, "the events that match, grouped by error fingerprint" },
    { "GET", "whoami", DLQ_VERB_PING, NULL, DLQ_API_BODY_NONE, "the gateway's version; with security, whose the token is and the verbs they may call" },
    { "GET", "stats", DLQ_VERB_STATS, NULL, DLQ_API_BODY_NONE, "counters, the store, the spool and the sinks" },
    { "POST", "sinks/{}/redeliver", DLQ_VERB_REDELIVER, "sink", DLQ_API_BODY_JSON, "deliver again what failed for good at a sink" },
    { "POST", "replays", DLQ_VERB_REPLAY, NULL, DLQ_API_BODY_JSON, "send stored events back, as a job (or a dry run)" },
    { "GET", "replays", DLQ_VERB_REPLAY_STATUS, NULL, DLQ_API_BODY_NONE, "every replay job" },
    { "GET", "replays/{}", DLQ_VERB_REPLAY_STATUS, "job", DLQ_API_BODY_NONE, "one replay job" },
    { "POST", "replays/{}/pause", DLQ_VERB_REPLAY_PAUSE, "job", DLQ_API_BODY_NONE, "pause a replay job" },
    { "POST", "replays/{}/resume", DLQ_VERB_REPLAY_RESUME, "job", DLQ_API_BODY_NONE, "resume a paused replay job" },
    { "POST", "replays/{}/cancel", DLQ_VERB_REPLAY_CANCEL, "job", DLQ_API_BODY_NONE, "stop a replay job for good" },
    { "GET", "checkpoints", DLQ_VERB_CKPT_LIST, NULL, DLQ_API_BODY_QUERY, "every stream's checkpoint" },
    { "GET", "checkpoints/{}", DLQ_VERB_CKPT_GET, "streamName", DLQ_API_BODY_NONE, "a stream's checkpoint" },
    { "PUT", "checkpoints/{}", DLQ_VERB_CKPT_SAVE, "streamName", DLQ_API_BODY_JSON, "write a stream's checkpoint" },
    { "POST", "checkpoints/{}/seen", DLQ_VERB_CKPT_SEEN, "streamName", DLQ_API_BODY_JSON, "move a checkpoint's last seen token" },
    { "POST", "checkpoints/{}/processed", DLQ_VERB_CKPT_PROCESSED, "streamName", DLQ_API_BODY_JSON, "move a checkpoint's last processed token" },
    { "DELETE", "checkpoints/{}", DLQ_VERB_CKPT_DELETE, "streamName", DLQ_API_BODY_NONE, "delete a stream's checkpoint" },
};

#define ROUTE_COUNT (sizeof routes / sizeof routes [0])

const dlq_api_route_t *
dlq_api_routes (size_t *count_out)
{
    *count_out = ROUTE_COUNT;
    return routes;
}

/* Does rest (the url after the prefix) fit pattern? Its "{}" segment
 * (non-empty, no '/') into segment. */
static bool
path_fits (const char *pattern, const char *rest, char *segment, size_t segment_len)
{
    const char *hole = strstr (pattern, SEGMENT);
    if (!hole)
        return strcmp (pattern, rest) == 0;
    size_t before = (size_t) (hole - pattern);
    const char *after = hole + strlen (SEGMENT);
    size_t rest_len = strlen (rest), after_len = strlen (after);
    if (rest_len < before + after_len + 1 || strncmp (rest, pattern, before) != 0
        || strcmp (rest + rest_len - after_len, after) != 0)
        return false;
    size_t n = rest_len - before - after_len;
    if (memchr (rest + before, '/', n) || n >= segment_len)
        return false;
    memcpy (segment, rest + before, n);
    segment [n] = '\0';
    return true;
}

dlq_api_match_t
dlq_api_route_find (const char *method, const char *url, const dlq_api_route_t **route_out,
                    char *segment, size_t segment_len, char *allow, size_t allow_len)
{
    *route_out = NULL;
    if (allow_len)
        allow [0] = '\0';
    size_t prefix = strlen (DLQ_API_PREFIX);
    if (strncmp (url, DLQ_API_PREFIX, prefix) != 0)
        return DLQ_API_NO_PATH;
    const char *rest = url + prefix;
    bool path_known = false;
    size_t used = 0;
    for (size_t i = 0; i < ROUTE_COUNT; i++) {
        if (!path_fits (routes [i].path, rest, segment, segment_len))
            continue;
        if (strcmp (routes [i].method, method) == 0) {
            *route_out = &routes [i];
            return DLQ_API_MATCHED;
        }
        path_known = true;
        int n = snprintf (allow + used, allow_len > used ? allow_len - used : 0, "%s%s", used ? ", " : "",
                          routes [i].method);
        used += n > 0 ? (size_t) n : 0;
        used = used < allow_len ? used : allow_len;
    }
    return path_known ? DLQ_API_NO_METHOD : DLQ_API_NO_PATH;
}

static const char *const numeric [] = { "limit", "sample", "rate", "attemptsMin", "attemptsMax", NULL };

static bool
listed (const char *const *names, const char *name)
{
    for (size_t i = 0; names [i]; i++)
        if (strcmp (names [i], name) == 0)
            return true;
    return false;
}

/* A query value as JSON: a number or a boolean where it reads as one and
 * may be one (typed), else a string. */
static void
put_value (dlq_buf_t *out, const char *value, bool number_ok, bool bool_ok)
{
    size_t len = strlen (value);
    if ((bool_ok && (strcmp (value, "true") == 0 || strcmp (value, "false") == 0))
        || (number_ok && dlq_json_number_valid (value, len)))
        dlq_buf_append (out, value, len);
    else
        dlq_json_write_string (out, value, len);
}

static dlq_code_t
query_members (const dlq_api_param_t *params, size_t count, const char *skip, dlq_buf_t *out, bool *first,
               dlq_error_t *err)
{
    bool metadata = false;
    for (size_t i = 0; i < count; i++) {
        const char *name = params [i].name, *value = params [i].value ? params [i].value : "";
        if (!name [0])
            return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, NULL, "a query parameter without a name");
        for (size_t k = 0; k < i; k++)
            if (strcmp (params [k].name, name) == 0)
                return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, name, "%s is given twice", name);
        if (!dlq_utf8_valid (name, strlen (name), NULL) || !dlq_utf8_valid (value, strlen (value), NULL))
            return dlq_error_set (err, DLQ_ERR_INVALID_UTF8, NULL, "a query parameter is not UTF-8");
        if (skip && strcmp (name, skip) == 0)
            return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, name, "%s is given by the path", name);
        if (strncmp (name, "metadata.", 9) == 0) {
            metadata = true;
            continue;
        }
        if (strcmp (name, "metadata") == 0)
            return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, "metadata", "give metadata as metadata.KEY=VALUE");
        dlq_buf_puts (out, *first ? "" : ",");
        *first = false;
        dlq_json_write_string (out, name, strlen (name));
        dlq_buf_putc (out, ':');
        put_value (out, value, listed (numeric, name), strcmp (name, "dryRun") == 0 || strcmp (name, "all") == 0);
    }
    if (!metadata)
        return DLQ_OK;
    dlq_buf_puts (out, *first ? "\"metadata\":{" : ",\"metadata\":{");
    *first = false;
    bool inner_first = true;
    for (size_t i = 0; i < count; i++)
        if (strncmp (params [i].name, "metadata.", 9) == 0) {
            const char *key = params [i].name + 9;
            dlq_buf_puts (out, inner_first ? "" : ",");
            inner_first = false;
            dlq_json_write_string (out, key, strlen (key));
            dlq_buf_putc (out, ':');
            put_value (out, params [i].value ? params [i].value : "", true, true);
        }
    dlq_buf_putc (out, '}');
    return DLQ_OK;
}

static dlq_code_t
body_members (const char *body, size_t len, const char *skip, dlq_buf_t *out, bool *first, dlq_error_t *err)
{
    size_t i = 0;
    while (i < len && strchr (" \t\r\n", body [i]))
        i++;
    if (i == len)
        return DLQ_OK;                  /* empty: {} */
    dlq_json_doc_t *doc = NULL;
    dlq_json_error_t jerr;
    dlq_json_result_t parsed = dlq_json_parse (body, len, &doc, &jerr);
    if (parsed == DLQ_JSON_ERR_UTF8)
        return dlq_error_set (err, DLQ_ERR_INVALID_UTF8, NULL, "the body is not UTF-8 (at byte %zu)", jerr.offset);
    if (parsed != DLQ_JSON_OK)
        return dlq_error_set (err, DLQ_ERR_INVALID_JSON, NULL, "the body is not JSON: %s at byte %zu", jerr.message,
                              jerr.offset);
    const dlq_json_value_t *root = dlq_json_root (doc);
    dlq_code_t code = DLQ_OK;
    if (root->type != DLQ_JSON_OBJECT)
        code = dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, NULL, "the body must be a JSON object");
    for (const dlq_json_value_t *m = code == DLQ_OK ? root->child : NULL; m && code == DLQ_OK; m = m->next) {
        if (skip && m->key_len == strlen (skip) && memcmp (m->key, skip, m->key_len) == 0) {
            code = dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, skip, "%s is given by the path", skip);
            break;
        }
        dlq_buf_puts (out, *first ? "" : ",");
        *first = false;
        dlq_json_write_string (out, m->key, m->key_len);
        dlq_buf_putc (out, ':');
        dlq_json_write (out, m);
    }
    dlq_json_doc_destroy (&doc);
    return code;
}

/* No body, only whitespace, or {} with whitespace around and inside. */
static bool
empty_object (const char *body, size_t len)
{
    size_t i = 0;
    while (i < len && strchr (" \t\r\n", body [i]))
        i++;
    if (i == len)
        return true;
    if (body [i++] != '{')
        return false;
    while (i < len && strchr (" \t\r\n", body [i]))
        i++;
    if (i == len || body [i++] != '}')
        return false;
    while (i < len && strchr (" \t\r\n", body [i]))
        i++;
    return i == len;
}

dlq_code_t
dlq_api_route_body (const dlq_api_route_t *route, const char *segment, const dlq_api_param_t *params,
                    size_t param_count, const char *body, size_t body_len, dlq_buf_t *out, dlq_error_t *err)
{
    bool first = true;
    dlq_buf_putc (out, '{');
    if (route->member) {
        if (!dlq_utf8_valid (segment, strlen (segment), NULL))
            return dlq_error_set (err, DLQ_ERR_INVALID_UTF8, route->member, "the path is not UTF-8");
        dlq_json_write_string (out, route->member, strlen (route->member));
        dlq_buf_putc (out, ':');
        dlq_json_write_string (out, segment, strlen (segment));
        first = false;
    }
    dlq_code_t code = DLQ_OK;
    if (route->body == DLQ_API_BODY_QUERY)
        code = query_members (params, param_count, route->member, out, &first, err);
    else
    if (route->body == DLQ_API_BODY_JSON)
        code = body_members (body, body_len, route->member, out, &first, err);
    if (code == DLQ_OK && route->body != DLQ_API_BODY_QUERY && param_count)
        code = dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, params [0].name, "%s %s%s takes no query parameters",
                              route->method, DLQ_API_PREFIX, route->path);
    if (code == DLQ_OK && route->body != DLQ_API_BODY_JSON && !empty_object (body, body_len))
        code = dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, NULL, "%s %s%s takes no body (or {})", route->method,
                              DLQ_API_PREFIX, route->path);
    dlq_buf_putc (out, '}');
    return code;
}

unsigned
dlq_api_route_status (dlq_code_t code)
{
    switch (code) {
    case DLQ_OK:                    return 200;
    case DLQ_ERR_NOT_FOUND:         return 404;
    case DLQ_ERR_FORBIDDEN:         return 403;
    case DLQ_ERR_UNAUTHENTICATED:   return 401;
    case DLQ_ERR_INVALID_STATE:     return 409;
    case DLQ_ERR_TOO_LARGE:         return 413;
    case DLQ_ERR_UNAVAILABLE:       return 503;
    case DLQ_ERR_INTERNAL:          return 500;
    case DLQ_ERR_UNKNOWN_VERB:      return 404;
    default:                        return 400;     /* the bad-input codes */
    }
}
