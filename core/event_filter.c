/*  event_filter — the workbench's filters and their meaning; see the header. */
#include "event_filter.h"

#include "dlq_alloc.h"
#include "dlq_json.h"
#include "dlq_time.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { F_STRING, F_TIME, F_COUNT, F_METADATA } filter_kind_t;

typedef struct {
    const char   *name;
    filter_kind_t kind;
} member_t;

static const member_t members [] = {
    { "streamName", F_STRING }, { "status", F_STRING }, { "errorType", F_STRING },
    { "fingerprint", F_STRING }, { "messageContains", F_STRING },
    { "createdAfter", F_TIME }, { "createdBefore", F_TIME },
    { "attemptsMin", F_COUNT }, { "attemptsMax", F_COUNT },
    { "metadata", F_METADATA },
    { NULL, F_STRING }
};

/* The member's name, NUL-terminated, for an error's field. */
static const char *
field_of (const dlq_json_value_t *v, char *out, size_t len)
{
    return dlq_json_name_text (v->key, v->key_len, out, len);
}

static bool
named (const dlq_json_value_t *v, const char *name)
{
    return v->key_len == strlen (name) && memcmp (v->key, name, v->key_len) == 0;
}

bool
dlq_event_filter_is_member (const char *name, size_t len)
{
    for (const member_t *m = members; m->name; m++)
        if (strlen (m->name) == len && memcmp (m->name, name, len) == 0)
            return true;
    return false;
}

/* ---- parsing ---------------------------------------------------------------------- */

static char **
string_slot (dlq_event_filter_t *f, const dlq_json_value_t *v)
{
    return named (v, "streamName") ? &f->stream : named (v, "status") ? &f->status
         : named (v, "errorType") ? &f->error_type : named (v, "fingerprint") ? &f->fingerprint
         : &f->message_contains;
}

static bool
is_fingerprint (const char *s, size_t len)
{
    if (len != 16)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!isxdigit ((unsigned char) s [i]) || isupper ((unsigned char) s [i]))
            return false;
    return true;
}

static dlq_code_t
parse_string (const dlq_json_value_t *v, dlq_event_filter_t *f, dlq_error_t *err)
{
    char field [64];
    if (v->type != DLQ_JSON_STRING || v->len == 0 || v->len > DLQ_FILTER_TEXT_MAX || memchr (v->str, '\0', v->len))
        return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, field_of (v, field, sizeof field),
                              "expected a string of 1 to %d bytes", DLQ_FILTER_TEXT_MAX);
    if (named (v, "fingerprint") && !is_fingerprint (v->str, v->len))
        return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, field_of (v, field, sizeof field),
                              "expected 16 lowercase hex digits");
    char **slot = string_slot (f, v);
    free (*slot);
    *slot = dlq_strndup (v->str, v->len);
    return DLQ_OK;
}

static dlq_code_t
parse_time (const dlq_json_value_t *v, dlq_event_filter_t *f, dlq_error_t *err)
{
    int64_t ms;
    char field [64];
    if (v->type != DLQ_JSON_STRING || !dlq_time_parse_iso (v->str, v->len, &ms))
        return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, field_of (v, field, sizeof field),
                              "expected an ISO-8601 instant such as 2026-06-09T14:32:11.123Z");
    if (named (v, "createdAfter")) {
        f->has_created_after = true;
        f->created_after = ms;
    }
    else {
        f->has_created_before = true;
        f->created_before = ms;
    }
    return DLQ_OK;
}

static dlq_code_t
parse_count (const dlq_json_value_t *v, dlq_event_filter_t *f, dlq_error_t *err)
{
    int64_t n;
    char field [64];
    if (!dlq_json_as_int64 (v, &n) || n < 0 || n > INT32_MAX)
        return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, field_of (v, field, sizeof field),
                              "expected an integer from 0 to %d", INT32_MAX);
    if (named (v, "attemptsMin")) {
        f->has_attempts_min = true;
        f->attempts_min = n;
    }
    else {
        f->has_attempts_max = true;
        f->attempts_max = n;
    }
    return DLQ_OK;
}

/* The pairs go into the filter's fixed array: the bound is checked against
 * what the filter already holds, so no request can write past it. */
static dlq_code_t
parse_metadata (const dlq_json_value_t *v, dlq_event_filter_t *f, dlq_error_t *err)
{
    if (v->type != DLQ_JSON_OBJECT || v->count == 0 || v->count > DLQ_FILTER_METADATA_MAX - f->metadata_count)
        return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, "metadata",
                              "expected an object of 1 to %d key: value pairs", DLQ_FILTER_METADATA_MAX);
    for (const dlq_json_value_t *p = v->child; p; p = p->next) {
        char field [128], name [101];
        snprintf (field, sizeof field, "metadata.%s", dlq_json_name_text (p->key, p->key_len, name, sizeof name));
        if (p->type != DLQ_JSON_STRING && p->type != DLQ_JSON_NUMBER && p->type != DLQ_JSON_TRUE
            && p->type != DLQ_JSON_FALSE)
            return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, field, "expected a string, a number, true or false");
        if (p->type == DLQ_JSON_STRING && (p->len > DLQ_FILTER_TEXT_MAX || memchr (p->str, '\0', p->len)))
            return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, field,
                                  "expected a string of at most %d bytes without \\u0000", DLQ_FILTER_TEXT_MAX);
        if (p->key_len == 0 || memchr (p->key, '\0', p->key_len) || memchr (p->key, '.', p->key_len)
            || memchr (p->key, '"', p->key_len))
            return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, field,
                                  "expected a top-level metadata key (no '.' nor '\"')");
        dlq_filter_pair_t *pair = &f->metadata [f->metadata_count++];
        pair->key = dlq_strndup (p->key, p->key_len);
        pair->type = p->type;
        pair->text = p->str ? dlq_strndup (p->str, p->len) : dlq_strdup (p->type == DLQ_JSON_TRUE ? "true" : "false");
        pair->number = p->type == DLQ_JSON_NUMBER ? strtod (pair->text, NULL) : 0;
    }
    return DLQ_OK;
}

dlq_code_t
dlq_event_filter_parse (const dlq_json_value_t *request, dlq_event_filter_t *f, dlq_error_t *err)
{
    if (!request || request->type != DLQ_JSON_OBJECT)
        return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, "", "expected a JSON object");
    char path [128];
    if (dlq_json_find_duplicate (request, path, sizeof path))
        return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, path, "\"%s\" appears twice", path);
    dlq_code_t code = DLQ_OK;
    for (const dlq_json_value_t *v = request->child; v && code == DLQ_OK; v = v->next) {
        const member_t *m = members;
        while (m->name && !named (v, m->name))
            m++;
        if (!m->name)
            continue;
        code = m->kind == F_STRING ? parse_string (v, f, err)
             : m->kind == F_TIME ? parse_time (v, f, err)
             : m->kind == F_COUNT ? parse_count (v, f, err)
             : parse_metadata (v, f, err);
    }
    if (code == DLQ_OK && f->has_attempts_min && f->has_attempts_max && f->attempts_min > f->attempts_max)
        code = dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, "attemptsMax", "is below attemptsMin");
    if (code != DLQ_OK)
        dlq_event_filter_free (f);
    return code;
}

void
dlq_event_filter_free (dlq_event_filter_t *f)
{
    free (f->stream);
    free (f->status);
    free (f->error_type);
    free (f->fingerprint);
    free (f->message_contains);
    for (size_t i = 0; i < f->metadata_count; i++) {
        free (f->metadata [i].key);
        free (f->metadata [i].text);
    }
    memset (f, 0, sizeof *f);
}

bool
dlq_event_filter_is_empty (const dlq_event_filter_t *f)
{
    return !f->stream && !f->status && !f->error_type && !f->fingerprint && !f->message_contains
        && !f->has_created_after && !f->has_created_before && !f->has_attempts_min && !f->has_attempts_max
        && f->metadata_count == 0;
}

/* ---- writing ---------------------------------------------------------------------- */

static void
put_string (dlq_buf_t *out, bool *first, const char *name, const char *value)
{
    if (!value)
        return;
    dlq_buf_printf (out, "%s\"%s\":", *first ? "" : ",", name);
    dlq_json_write_string (out, value, strlen (value));
    *first = false;
}

static void
put_time (dlq_buf_t *out, bool *first, const char *name, bool has, int64_t ms)
{
    char iso [DLQ_TIME_ISO_LEN + 1];
    if (has && dlq_time_format_iso (ms, iso))
        put_string (out, first, name, iso);
}

static void
put_count (dlq_buf_t *out, bool *first, const char *name, bool has, int64_t n)
{
    if (!has)
        return;
    dlq_buf_printf (out, "%s\"%s\":%lld", *first ? "" : ",", name, (long long) n);
    *first = false;
}

static void
put_metadata (dlq_buf_t *out, bool *first, const dlq_event_filter_t *f)
{
    if (f->metadata_count == 0)
        return;
    dlq_buf_puts (out, *first ? "\"metadata\":{" : ",\"metadata\":{");
    for (size_t i = 0; i < f->metadata_count; i++) {
        const dlq_filter_pair_t *p = &f->metadata [i];
        dlq_buf_puts (out, i ? "," : "");
        dlq_json_write_string (out, p->key, strlen (p->key));
        dlq_buf_putc (out, ':');
        if (p->type == DLQ_JSON_STRING)
            dlq_json_write_string (out, p->text, strlen (p->text));
        else
        if (p->type == DLQ_JSON_NUMBER)
            dlq_buf_puts (out, p->text);
        else
            dlq_buf_puts (out, p->type == DLQ_JSON_TRUE ? "true" : "false");
    }
    dlq_buf_putc (out, '}');
    *first = false;
}

void
dlq_event_filter_to_json (const dlq_event_filter_t *f, dlq_buf_t *out)
{
    bool first = true;
    dlq_buf_putc (out, '{');
    put_string (out, &first, "streamName", f->stream);
    put_string (out, &first, "status", f->status);
    put_string (out, &first, "errorType", f->error_type);
    put_string (out, &first, "fingerprint", f->fingerprint);
    put_string (out, &first, "messageContains", f->message_contains);
    put_time (out, &first, "createdAfter", f->has_created_after, f->created_after);
    put_time (out, &first, "createdBefore", f->has_created_before, f->created_before);
    put_count (out, &first, "attemptsMin", f->has_attempts_min, f->attempts_min);
    put_count (out, &first, "attemptsMax", f->has_attempts_max, f->attempts_max);
    put_metadata (out, &first, f);
    dlq_buf_putc (out, '}');
}

/* ---- matching -------------------------------------------------------------------- */

/* ASCII letters folded to lower case; every other byte as it is. */
static unsigned char
folded (char c)
{
    unsigned char u = (unsigned char) c;
    return u >= 'A' && u <= 'Z' ? (unsigned char) (u + 32) : u;
}

/* Knuth-Morris-Pratt over ASCII-folded bytes: each haystack byte is looked
 * at a bounded number of times (amortised), so a long message costs time
 * linear in its length whatever the needle, unlike a naive scan's n x m. */
bool
dlq_event_filter_contains (const char *haystack, size_t len, const char *needle)
{
    size_t n = strlen (needle);
    if (n == 0)
        return true;
    if (n > len)
        return false;
    size_t *border = dlq_malloc (n * sizeof *border);    /* border [i]: longest proper border of needle [0..i] */
    border [0] = 0;
    for (size_t i = 1, k = 0; i < n; i++) {
        while (k && folded (needle [i]) != folded (needle [k]))
            k = border [k - 1];
        if (folded (needle [i]) == folded (needle [k]))
            k++;
        border [i] = k;
    }
    bool found = false;
    for (size_t i = 0, k = 0; i < len && !found; i++) {
        while (k && folded (haystack [i]) != folded (needle [k]))
            k = border [k - 1];
        if (folded (haystack [i]) == folded (needle [k]))
            k++;
        found = k == n;
    }
    free (border);
    return found;
}

static bool
string_is (const dlq_json_value_t *v, const char *want)
{
    return !want || (v && v->type == DLQ_JSON_STRING && v->len == strlen (want) && memcmp (v->str, want, v->len) == 0);
}

static bool
pair_holds (const dlq_filter_pair_t *pair, const dlq_json_value_t *v)
{
    if (!v)
        return false;
    switch (pair->type) {
        case DLQ_JSON_STRING:
            return v->type == DLQ_JSON_STRING && v->len == strlen (pair->text) && memcmp (v->str, pair->text, v->len) == 0;
        case DLQ_JSON_NUMBER: {
            if (v->type != DLQ_JSON_NUMBER)
                return false;
            char text [64];
            snprintf (text, sizeof text, "%.*s", (int) (v->len < 63 ? v->len : 63), v->str);
            return strtod (text, NULL) == pair->number;
        }
        default:
            return v->type == pair->type;
    }
}

static bool
time_in (const dlq_event_filter_t *f, const dlq_json_value_t *created)
{
    int64_t ms;
    if (!f->has_created_after && !f->has_created_before)
        return true;
    if (!created || created->type != DLQ_JSON_STRING || !dlq_time_parse_iso (created->str, created->len, &ms))
        return false;
    return (!f->has_created_after || ms >= f->created_after) && (!f->has_created_before || ms < f->created_before);
}

static bool
attempts_in (const dlq_event_filter_t *f, const dlq_json_value_t *attempts)
{
    int64_t n = 0;
    if (attempts && !dlq_json_as_int64 (attempts, &n))
        return false;
    return (!f->has_attempts_min || n >= f->attempts_min) && (!f->has_attempts_max || n <= f->attempts_max);
}

static bool
matches_root (const dlq_event_filter_t *f, const dlq_json_value_t *root, const char *fingerprint)
{
    const dlq_json_value_t *error = dlq_json_get (root, "error"), *message = dlq_json_get (error, "message");
    if (!string_is (dlq_json_get (root, "streamName"), f->stream) || !string_is (dlq_json_get (root, "status"), f->status)
        || !string_is (dlq_json_get (error, "type"), f->error_type))
        return false;
    if (f->fingerprint && (!fingerprint || strcmp (fingerprint, f->fingerprint) != 0))
        return false;
    if (f->message_contains && (!message || message->type != DLQ_JSON_STRING
                                || !dlq_event_filter_contains (message->str, message->len, f->message_contains)))
        return false;
    if (!time_in (f, dlq_json_get (root, "createdAt")) || !attempts_in (f, dlq_json_get (root, "attempts")))
        return false;
    const dlq_json_value_t *metadata = dlq_json_get (root, "metadata");
    for (size_t i = 0; i < f->metadata_count; i++)
        if (!pair_holds (&f->metadata [i], dlq_json_get (metadata, f->metadata [i].key)))
            return false;
    return true;
}

bool
dlq_event_filter_matches (const dlq_event_filter_t *f, const char *json, size_t len, const char *fingerprint)
{
    dlq_json_doc_t *doc = NULL;
    if (dlq_json_parse (json, len, &doc, NULL) != DLQ_JSON_OK)
        return false;
    bool match = dlq_json_root (doc)->type == DLQ_JSON_OBJECT && matches_root (f, dlq_json_root (doc), fingerprint);
    dlq_json_doc_destroy (&doc);
    return match;
}

bool
dlq_event_filter_from_json (const char *filter_json, dlq_event_filter_t *filter, char *err, size_t err_len)
{
    const char *text = filter_json && *filter_json ? filter_json : "{}";
    dlq_json_doc_t *doc = NULL;
    if (dlq_json_parse (text, strlen (text), &doc, NULL) != DLQ_JSON_OK) {
        snprintf (err, err_len, "not JSON: %.100s", text);
        return false;
    }
    dlq_error_t why = { 0 };
    bool ok = dlq_event_filter_parse (dlq_json_root (doc), filter, &why) == DLQ_OK;
    if (!ok)
        snprintf (err, err_len, "%s%s%s", why.field, why.field [0] ? ": " : "",
                  why.message [0] ? why.message : "not a JSON object");
    dlq_json_doc_destroy (&doc);
    return ok;
}
