/*  filter_oracle — the workbench's filtered queries against the reference
 *  predicate; see the header.
 */
#include "filter_oracle.h"

#include "dlq_alloc.h"
#include "dlq_json.h"
#include "dlq_time.h"
#include "fingerprint.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HOUR_MS     3600000LL
#define DAY_MS      (24 * HOUR_MS)
#define STREAMS     3

/* ---- the varied events ----------------------------------------------------------- */

static const char *const streams [STREAMS] = { "orders", "payments", "audit.v2" };
static const char *const statuses [] = { "PENDING", "DLQ", "SUCCEEDED" };
static const char *const types [] = { "java.lang.IllegalStateException", "java.net.SocketTimeoutException",
                                      "com.acme.ValidationError" };
static const char *const messages [] = { "Order %d not found", "Read timed out after %d ms",
                                         "field 'sku-%d' is required", "Downstream CALL failed (%d)",
                                         "\xc3\x89" "chec 50%% de l'appel %d",
                                         "\xc3\x89" "chec 50%% de l'appel %d [x.y]*" };

/* The message format of event i: the first four messages (PLAIN), or the
 * fifth too, with regular expression characters (ARRAYS) or without. */
static const char *
message_of (filter_oracle_variety_t variety, int i)
{
    if (variety == FILTER_ORACLE_PLAIN)
        return messages [i % 4];
    int k = i % 5;
    return k == 4 && variety == FILTER_ORACLE_ARRAYS ? messages [5] : messages [k];
}

/* Metadata of event i: none, tenant / shard / vip (TYPED: a shard
 * sometimes written 2.0), a shard that is a string (TYPED), or values in
 * arrays (ARRAYS). */
static void
metadata_of (filter_oracle_variety_t variety, int i, char *out, size_t len)
{
    bool typed = variety >= FILTER_ORACLE_TYPED;
    if (i % 5 == 0)
        snprintf (out, len, ",\"metadata\":{\"tenantId\":\"%s\",\"shard\":%d%s,\"vip\":%s}",
                  i % 2 ? "acme" : "globex", i % 4, typed && i % 15 == 0 ? ".0" : "", i % 3 ? "true" : "false");
    else if (typed && i % 7 == 1)
        snprintf (out, len, ",\"metadata\":{\"tenantId\":\"acme\",\"shard\":\"%d\"}", i % 4);
    else if (variety >= FILTER_ORACLE_ARRAYS && i % 11 == 2)
        snprintf (out, len, ",\"metadata\":{\"tenantId\":[\"acme\"],\"shard\":[%d],\"vip\":[true]}", i % 4);
    else
        out [0] = '\0';
}

dlq_event_t *
filter_oracle_event (filter_oracle_variety_t variety, int i)
{
    char body [1024], message [128], created [DLQ_TIME_ISO_LEN + 1], metadata [160];
    snprintf (message, sizeof message, message_of (variety, i), 1000 + i);
    int64_t created_at = FILTER_ORACLE_NOW - (int64_t) (i % 97) * HOUR_MS - i;
    dlq_time_format_iso (created_at, created);
    metadata_of (variety, i, metadata, sizeof metadata);
    snprintf (body, sizeof body, "{\"streamName\":\"%s\",\"status\":\"%s\",\"createdAt\":\"%s\","
              "\"error\":{\"type\":\"%s\",\"message\":\"%s\","
              "\"stackTrace\":\"%s: x\\n\\tat com.acme.F%d.run(F.java:%d)\"},"
              "\"attempts\":%d%s}",
              streams [i % 3], statuses [i % 7 % 3], created, types [i % 11 % 3], message, types [i % 11 % 3],
              i % 2, i, i % 6, metadata);
    int64_t expires_at = i % 10 == 3 ? FILTER_ORACLE_NOW - 1
                       : i % 10 == 4 ? DLQ_TIME_NONE : created_at + 30 * DAY_MS;
    return event_stored (body, expires_at);
}

/* ---- the filters ------------------------------------------------------------------- */

/* A filter, and the least variety of events it is asked of. */
typedef struct {
    filter_oracle_variety_t variety;
    const char             *request;
} filter_t;

static const filter_t filters [] = {
    { FILTER_ORACLE_PLAIN,  "{}" },
    { FILTER_ORACLE_PLAIN,  "{\"streamName\":\"orders\"}" },
    { FILTER_ORACLE_PLAIN,  "{\"streamName\":\"audit.v2\",\"status\":\"DLQ\"}" },
    { FILTER_ORACLE_PLAIN,  "{\"status\":\"SUCCEEDED\"}" },
    { FILTER_ORACLE_PLAIN,  "{\"errorType\":\"java.net.SocketTimeoutException\"}" },
    { FILTER_ORACLE_PLAIN,  "{\"messageContains\":\"TIMED OUT\"}" },
    { FILTER_ORACLE_PLAIN,  "{\"messageContains\":\"sku-1_\"}" },
    { FILTER_ORACLE_PLAIN,  "{\"messageContains\":\"%\"}" },
    { FILTER_ORACLE_TYPED,  "{\"messageContains\":\"50% DE\"}" },
    { FILTER_ORACLE_TYPED,  "{\"messageContains\":\"\xc3\x89" "CHEC\"}" },
    { FILTER_ORACLE_TYPED,  "{\"messageContains\":\"\xc3\xa9" "chec\"}" },
    { FILTER_ORACLE_TYPED,  "{\"messageContains\":\"l'appel 100\"}" },
    { FILTER_ORACLE_ARRAYS, "{\"messageContains\":\"[x.y]*\"}" },
    { FILTER_ORACLE_ARRAYS, "{\"messageContains\":\"(10\"}" },
    { FILTER_ORACLE_PLAIN,  "{\"createdAfter\":\"2026-06-08T00:00:00Z\",\"createdBefore\":\"2026-06-09T00:00:00Z\"}" },
    { FILTER_ORACLE_TYPED,  "{\"createdAfter\":\"2026-06-09T13:32:13.499Z\"}" },
    { FILTER_ORACLE_PLAIN,  "{\"attemptsMin\":2,\"attemptsMax\":3}" },
    { FILTER_ORACLE_TYPED,  "{\"attemptsMax\":0}" },
    { FILTER_ORACLE_PLAIN,  "{\"metadata\":{\"tenantId\":\"acme\"}}" },
    { FILTER_ORACLE_PLAIN,  "{\"metadata\":{\"shard\":2,\"vip\":true}}" },
    { FILTER_ORACLE_TYPED,  "{\"metadata\":{\"shard\":0}}" },
    { FILTER_ORACLE_TYPED,  "{\"metadata\":{\"shard\":\"2\"}}" },
    { FILTER_ORACLE_TYPED,  "{\"metadata\":{\"shard\":1e0}}" },
    { FILTER_ORACLE_TYPED,  "{\"metadata\":{\"vip\":false},\"streamName\":\"orders\"}" },
    { FILTER_ORACLE_PLAIN,  "{\"metadata\":{\"vip\":false},\"streamName\":\"payments\"}" },
    { FILTER_ORACLE_TYPED,  "{\"metadata\":{\"missing\":true}}" },
    { FILTER_ORACLE_PLAIN,
      "{\"streamName\":\"orders\",\"status\":\"PENDING\",\"errorType\":\"com.acme.ValidationError\",\"attemptsMin\":1}" },
    { FILTER_ORACLE_TYPED,  "{\"streamName\":\"nowhere\"}" },
};

#define FILTER_COUNT (sizeof filters / sizeof filters [0])

const char *
filter_oracle_filter (filter_oracle_variety_t variety, size_t k)
{
    for (size_t i = 0; i < FILTER_COUNT; i++)
        if (filters [i].variety <= variety && k-- == 0)
            return filters [i].request;
    return NULL;
}

/* ---- the reference ----------------------------------------------------------------- */

void
filter_oracle_parse (const char *request, dlq_event_filter_t *f)
{
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (request, strlen (request), &doc, NULL), DLQ_JSON_OK, "%s", request);
    dlq_error_t err = { 0 };
    cr_assert_eq (dlq_event_filter_parse (dlq_json_root (doc), f, &err), DLQ_OK, "%s: %s", request, err.message);
    dlq_json_doc_destroy (&doc);
}

static bool
unexpired (const dlq_event_t *e)
{
    return e->expires_at == DLQ_TIME_NONE || e->expires_at > FILTER_ORACLE_NOW;
}

/* Does x come after y in LIST order (created_at desc, then id desc)? */
static bool
listed_after (const dlq_event_t *x, const dlq_event_t *y)
{
    return x->created_at < y->created_at || (x->created_at == y->created_at && strcmp (x->id, y->id) < 0);
}

size_t
filter_oracle_expected (const filter_oracle_t *o, const dlq_event_filter_t *f, int *out)
{
    dlq_event_t *const *events = o->events;
    size_t n = 0;
    for (size_t i = 0; i < o->stored; i++)
        if (unexpired (events [i])
            && dlq_event_filter_matches (f, events [i]->json, events [i]->json_len, events [i]->fingerprint))
            out [n++] = (int) i;
    for (size_t a = 1; a < n; a++)
        for (size_t b = a; b > 0 && listed_after (events [out [b - 1]], events [out [b]]); b--) {
            int t = out [b - 1];
            out [b - 1] = out [b];
            out [b] = t;
        }
    return n;
}

/* Room for the indexes of every stored event. Caller frees. */
static int *
indexes (const filter_oracle_t *o)
{
    return dlq_calloc (o->stored + 1, sizeof (int));
}

/* ---- LIST and COUNT -------------------------------------------------------------------- */

/* Listed event e is the reference's event w (the k-th of request). */
static void
expect_listed (const filter_oracle_t *o, const char *request, size_t k, const dlq_json_value_t *e,
               const dlq_event_t *w)
{
    if (!o->bodies) {
        const dlq_json_value_t *id = dlq_json_get (e, "id");
        cr_expect_str_eq (id->str, w->id, "%s: event %zu", request, k);
        return;
    }
    dlq_buf_t body = DLQ_BUF_INIT;
    dlq_json_write (&body, e);
    cr_expect_str_eq (body.data, w->json, "%s: event %zu", request, k);
    dlq_buf_free (&body);
}

/* Page through LIST, comparing with want [0, n); the number listed. */
static size_t
list_pages (const filter_oracle_t *o, const char *request, const dlq_event_filter_t *f, size_t page_size,
            const int *want, size_t n)
{
    dlq_buf_t page = DLQ_BUF_INIT, next = DLQ_BUF_INIT;
    char *cursor = NULL;
    size_t got = 0;
    for (size_t pages = 0; pages <= o->stored; pages++) {
        dlq_buf_reset (&page);
        dlq_buf_reset (&next);
        o->calls->list (o->store, request, f, page_size, cursor, &page, &next);
        dlq_json_doc_t *doc = NULL;
        cr_assert_eq (dlq_json_parse (page.data, page.len, &doc, NULL), DLQ_JSON_OK, "%s", page.data);
        for (const dlq_json_value_t *e = dlq_json_root (doc)->child; e; e = e->next) {
            cr_assert_lt (got, n, "%s: more events than the %zu expected", request, n);
            expect_listed (o, request, got, e, o->events [want [got]]);
            got++;
        }
        cr_expect_leq (dlq_json_root (doc)->count, page_size);
        dlq_json_doc_destroy (&doc);
        free (cursor);
        cursor = next.len ? strdup (next.data) : NULL;
        if (!cursor)
            break;
    }
    free (cursor);
    dlq_buf_free (&page);
    dlq_buf_free (&next);
    return got;
}

void
filter_oracle_expect_list (const filter_oracle_t *o, const char *request, size_t page_size)
{
    dlq_event_filter_t f = DLQ_EVENT_FILTER_INIT;
    filter_oracle_parse (request, &f);
    int *want = indexes (o);
    size_t n = filter_oracle_expected (o, &f, want);
    size_t got = list_pages (o, request, &f, page_size, want, n);
    cr_expect_eq (got, n, "%s: %zu listed, %zu expected", request, got, n);
    cr_expect_eq (o->calls->count (o->store, request, &f), (int64_t) n, "%s: COUNT", request);
    free (want);
    dlq_event_filter_free (&f);
}

void
filter_oracle_expect_filters (const filter_oracle_t *o, filter_oracle_variety_t variety)
{
    const char *request;
    for (size_t k = 0; (request = filter_oracle_filter (variety, k)); k++) {
        filter_oracle_expect_list (o, request, 7);
        filter_oracle_expect_list (o, request, 1000);
    }
}

void
filter_oracle_expect_fingerprints (const filter_oracle_t *o)
{
    for (size_t i = 0; i < o->stored; i += 37) {
        char request [64];
        snprintf (request, sizeof request, "{\"fingerprint\":\"%s\"}", o->events [i]->fingerprint);
        filter_oracle_expect_list (o, request, 5);
    }
}

/* ---- GROUPS ----------------------------------------------------------------------------- */

/* The reference's facts about the group of fingerprint fp among the
 * events filter f matches: count, first and last createdAt, streams. */
typedef struct {
    int64_t count, first, last;
    bool    stream [STREAMS];
} group_facts_t;

static group_facts_t
facts_of (const filter_oracle_t *o, const dlq_event_filter_t *f, const char *fp)
{
    group_facts_t g = { .first = INT64_MAX, .last = INT64_MIN };
    int *want = indexes (o);
    size_t n = filter_oracle_expected (o, f, want);
    for (size_t k = 0; k < n; k++) {
        const dlq_event_t *e = o->events [want [k]];
        if (strcmp (e->fingerprint, fp) != 0)
            continue;
        g.count++;
        g.first = e->created_at < g.first ? e->created_at : g.first;
        g.last = e->created_at > g.last ? e->created_at : g.last;
        for (int s = 0; s < STREAMS; s++)
            g.stream [s] = g.stream [s] || strcmp (e->stream_name, streams [s]) == 0;
    }
    free (want);
    return g;
}

const dlq_event_t *
filter_oracle_event_by_id (const filter_oracle_t *o, const char *id, size_t len)
{
    for (size_t i = 0; i < o->stored; i++)
        if (strlen (o->events [i]->id) == len && memcmp (o->events [i]->id, id, len) == 0)
            return o->events [i];
    return NULL;
}

/* The sample of group g (fingerprint fp) is a stored event of the group
 * that f matches, and the group has its error type and normalised message. */
static void
expect_sample (const filter_oracle_t *o, const char *request, const dlq_event_filter_t *f,
               const dlq_json_value_t *g, const dlq_json_value_t *fp)
{
    const dlq_json_value_t *sample = dlq_json_get (g, "sampleId");
    cr_assert (sample && sample->type == DLQ_JSON_STRING, "%s: no sampleId", request);
    const dlq_event_t *e = filter_oracle_event_by_id (o, sample->str, sample->len);
    cr_assert_not_null (e, "%s: sampleId %s is no event", request, sample->str);
    cr_expect_str_eq (e->fingerprint, fp->str, "%s: the sample is of another group", request);
    cr_expect (dlq_event_filter_matches (f, e->json, e->json_len, e->fingerprint), "%s: the sample does not match",
               request);
    cr_expect_str_eq (dlq_json_get (g, "errorType")->str, e->error_type);
    dlq_buf_t normalised = DLQ_BUF_INIT;
    dlq_fingerprint_normalise_message (e->error_message, strlen (e->error_message), &normalised);
    cr_expect_str_eq (dlq_json_get (g, "message")->str, normalised.data, "%s: the message is normalised", request);
    dlq_buf_free (&normalised);
}

/* One group of a GROUPS answer against the reference facts. */
static void
expect_group (const filter_oracle_t *o, const char *request, const dlq_event_filter_t *f,
              const dlq_json_value_t *g)
{
    const dlq_json_value_t *fp = dlq_json_get (g, "fingerprint");
    cr_assert (fp && fp->type == DLQ_JSON_STRING && fp->len == 16, "%s: a group without a fingerprint", request);
    group_facts_t want = facts_of (o, f, fp->str);
    int64_t count = 0;
    cr_assert (dlq_json_as_int64 (dlq_json_get (g, "count"), &count));
    cr_expect_eq (count, want.count, "%s: group %s", request, fp->str);
    char first [DLQ_TIME_ISO_LEN + 1], last [DLQ_TIME_ISO_LEN + 1];
    dlq_time_format_iso (want.first, first);
    dlq_time_format_iso (want.last, last);
    cr_expect_str_eq (dlq_json_get (g, "firstSeen")->str, first, "%s: group %s", request, fp->str);
    cr_expect_str_eq (dlq_json_get (g, "lastSeen")->str, last, "%s: group %s", request, fp->str);
    const dlq_json_value_t *in = dlq_json_get (g, "streams");
    size_t want_streams = (size_t) want.stream [0] + want.stream [1] + want.stream [2];
    cr_expect (in && in->type == DLQ_JSON_ARRAY && in->count == want_streams, "%s: streams of %s", request, fp->str);
    expect_sample (o, request, f, g, fp);
}

void
filter_oracle_expect_groups (const filter_oracle_t *o, const char *request)
{
    dlq_event_filter_t f = DLQ_EVENT_FILTER_INIT;
    filter_oracle_parse (request, &f);
    dlq_buf_t out = DLQ_BUF_INIT;
    o->calls->groups (o->store, request, &f, 1000, &out);
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (out.data, out.len, &doc, NULL), DLQ_JSON_OK, "%s", out.data);
    int64_t total = 0, previous = INT64_MAX, previous_last = INT64_MAX;
    for (const dlq_json_value_t *g = dlq_json_root (doc)->child; g; g = g->next) {
        expect_group (o, request, &f, g);
        int64_t count = 0, last = 0;
        dlq_json_as_int64 (dlq_json_get (g, "count"), &count);
        const dlq_json_value_t *seen = dlq_json_get (g, "lastSeen");
        cr_assert (dlq_time_parse_iso (seen->str, seen->len, &last));
        cr_expect (count < previous || (count == previous && last <= previous_last),
                   "%s: not most events first, then the latest", request);
        previous = count;
        previous_last = last;
        total += count;
    }
    int *want = indexes (o);
    cr_expect_eq (total, (int64_t) filter_oracle_expected (o, &f, want), "%s: the groups cover every matching event",
                  request);
    free (want);
    dlq_json_doc_destroy (&doc);
    dlq_buf_free (&out);
    dlq_event_filter_free (&f);
}

void
filter_oracle_expect_all_groups (const filter_oracle_t *o, filter_oracle_variety_t variety)
{
    const char *request;
    for (size_t k = 0; (request = filter_oracle_filter (variety, k)); k++)
        filter_oracle_expect_groups (o, request);
    dlq_event_filter_t all = DLQ_EVENT_FILTER_INIT;
    dlq_buf_t out = DLQ_BUF_INIT;
    o->calls->groups (o->store, "{}", &all, 2, &out);
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (out.data, out.len, &doc, NULL), DLQ_JSON_OK);
    cr_expect_eq (dlq_json_root (doc)->count, 2, "limit 2: two groups");
    dlq_json_doc_destroy (&doc);
    dlq_buf_free (&out);
}

