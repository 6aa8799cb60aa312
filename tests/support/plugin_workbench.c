/*  plugin_workbench — a sink plugin's workbench calls driven from a test;
 *  see the header.
 */
#include "plugin_workbench.h"

#include "dlq_json.h"
#include "dlq_time.h"
#include "plugin_host.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOW PLUGIN_WB_NOW

/* ---- the plugin ---------------------------------------------------------------------- */

void
plugin_wb_open (plugin_wb_t *w)
{
    const dlq_sink_ops_t *ops = w->plugin.ops;
    cr_assert (DLQ_SINK_OPS_HAS (ops, workbench) && ops->workbench, "no workbench calls");
    cr_assert_eq (ops->workbench->struct_size, sizeof (dlq_sink_workbench_ops_t));
    w->writer = plugin_wb_instance (w, DLQ_SINK_MODE_DELIVER);
    w->reader = plugin_wb_instance (w, DLQ_SINK_MODE_QUERY);
}

void *
plugin_wb_instance (const plugin_wb_t *w, dlq_sink_mode_t mode)
{
    char err [512];
    void *instance = test_plugin_open (&w->plugin, mode, err, sizeof err);
    cr_assert_not_null (instance, "init (%s): %s", mode == DLQ_SINK_MODE_DELIVER ? "DELIVER" : "QUERY", err);
    return instance;
}

void
plugin_wb_close (plugin_wb_t *w)
{
    if (w->reader)
        w->plugin.ops->destroy (w->reader);
    if (w->writer)
        w->plugin.ops->destroy (w->writer);
    test_plugin_unload (&w->plugin);
    w->writer = w->reader = NULL;
}

const char *
plugin_wb_error (const plugin_wb_t *w, void *instance)
{
    const dlq_sink_store_ops_t *store = w->plugin.ops->store;
    return store->last_error ? store->last_error (instance) : "(the plugin has no last_error call)";
}

/* ---- events --------------------------------------------------------------------------- */

void
plugin_wb_deliver (const plugin_wb_t *w, dlq_event_t **batch, size_t count)
{
    dlq_sink_event_t *view = calloc (count, sizeof *view);
    dlq_sink_outcome_t *outcomes = calloc (count, sizeof *outcomes);
    for (size_t i = 0; i < count; i++)
        view [i] = event_for_sink (batch [i], NULL, 0, 30);
    w->plugin.ops->deliver (w->writer, view, count, outcomes, w->plugin.host->mono_ms () + 60000);
    for (size_t i = 0; i < count; i++)
        cr_assert_eq (outcomes [i].result, DLQ_SINK_OK, "event %zu: %s", i, outcomes [i].message);
    free (outcomes);
    free (view);
}

size_t
plugin_wb_store_varied (const plugin_wb_t *w, dlq_event_t **events, filter_oracle_variety_t variety)
{
    for (int i = 0; i < FILTER_ORACLE_EVENTS; i++)
        events [i] = filter_oracle_event (variety, i);
    plugin_wb_deliver (w, events, FILTER_ORACLE_EVENTS);
    return FILTER_ORACLE_EVENTS;
}

dlq_event_t *
plugin_wb_simple (const char *stream, int64_t ago, const char *status, int64_t expires_at)
{
    char body [768], created [DLQ_TIME_ISO_LEN + 1];
    dlq_time_format_iso (NOW - ago, created);
    snprintf (body, sizeof body, "{\"streamName\":\"%s\",\"status\":\"%s\",\"createdAt\":\"%s\","
              "\"fullDocument\":{\"status\":\"PAID\"},\"error\":{\"type\":\"X\",\"message\":\"boom\"},"
              "\"attempts\":1,\"metadata\":{\"status\":\"meta\"}}", stream, status, created);
    return event_stored (body, expires_at);
}

void
plugin_wb_store_simple (const plugin_wb_t *w, dlq_event_t **events, const char *const *stream,
                        const int64_t *ago, const char *const *status, const int64_t *expires, size_t count)
{
    for (size_t i = 0; i < count; i++)
        events [i] = plugin_wb_simple (stream [i], ago [i], status [i], expires [i]);
    plugin_wb_deliver (w, events, count);
}

size_t
plugin_wb_store_marked (const plugin_wb_t *w, dlq_event_t **events)
{
    const char *const stream [] = { "s", "s" };
    const int64_t ago [] = { 5000, 4000 }, expires [] = { DLQ_TIME_NONE, NOW - 1 };
    const char *const status [] = { "DLQ", "PENDING" };
    plugin_wb_store_simple (w, events, stream, ago, status, expires, 2);
    return 2;
}

char *
plugin_wb_body_with_status (const dlq_event_t *e, const char *status)
{
    const char *at = strstr (e->json, ",\"attempts\":1,\"status\":\"");
    cr_assert_not_null (at, "%s", e->json);
    at += strlen (",\"attempts\":1,\"status\":\"");
    const char *end = strchr (at, '"');
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_buf_append (&out, e->json, (size_t) (at - e->json));
    dlq_buf_puts (&out, status);
    dlq_buf_puts (&out, end);
    return dlq_buf_steal (&out, NULL);
}

/* ---- state and marks ------------------------------------------------------------------- */

dlq_sink_event_state_t
plugin_wb_state (const plugin_wb_t *w, const char *id)
{
    dlq_sink_event_state_t st;
    memset (&st, 0x5a, sizeof st);
    cr_assert_eq (w->plugin.ops->workbench->state (w->reader, id, NOW, &st), DLQ_SINK_STATUS_OK, "state of %s: %s",
                  id, plugin_wb_error (w, w->reader));
    return st;
}

dlq_sink_event_state_t
plugin_wb_mark (const plugin_wb_t *w, const char *id, dlq_sink_mark_t how, int64_t retry_after)
{
    dlq_sink_event_state_t st;
    memset (&st, 0x5a, sizeof st);
    cr_assert_eq (w->plugin.ops->workbench->mark (w->reader, id, how, NOW, retry_after, &st), DLQ_SINK_STATUS_OK,
                  "mark %d of %s: %s", (int) how, id, plugin_wb_error (w, w->reader));
    return st;
}

/* FAILED twice: the status PENDING, the counts add up, retry_after set. */
static void
expect_failed (const plugin_wb_t *w, const dlq_event_t *e, plugin_wb_status_fn *everywhere)
{
    dlq_sink_event_state_t st = plugin_wb_mark (w, e->id, DLQ_SINK_MARK_FAILED, NOW + 60000);
    cr_expect_str_eq (st.status, "PENDING");
    cr_expect_eq (st.retry_count, 1);
    cr_expect_eq (st.replay_count, 0);
    cr_expect_eq (st.retry_after, NOW + 60000);
    everywhere (e, "PENDING");

    st = plugin_wb_mark (w, e->id, DLQ_SINK_MARK_FAILED, NOW + 120000);
    cr_expect_eq (st.retry_count, 2, "counters add up on the server");
    cr_expect_eq (st.retry_after, NOW + 120000);
}

void
plugin_wb_expect_marks (const plugin_wb_t *w, const dlq_event_t *e, plugin_wb_status_fn *everywhere)
{
    dlq_sink_event_state_t st = plugin_wb_state (w, e->id);
    cr_expect_str_eq (st.status, "DLQ", "the status is the event's own at first");
    cr_expect_eq (st.retry_count, 0);
    cr_expect_eq (st.replay_count, 0);
    cr_expect_eq (st.retry_after, e->created_at, "retry_after is createdAt until set");

    expect_failed (w, e, everywhere);

    st = plugin_wb_mark (w, e->id, DLQ_SINK_MARK_REPLAYED, NOW + PLUGIN_WB_LEASE_MS);
    cr_expect_str_eq (st.status, "PENDING", "a replay leaves the status");
    cr_expect_eq (st.retry_count, 2);
    cr_expect_eq (st.replay_count, 1);
    cr_expect_eq (st.retry_after, NOW + PLUGIN_WB_LEASE_MS);
    everywhere (e, "PENDING");

    st = plugin_wb_mark (w, e->id, DLQ_SINK_MARK_RELEASED, NOW + 1);
    cr_expect_str_eq (st.status, "PENDING", "a release changes only retry_after");
    cr_expect_eq (st.retry_count, 2);
    cr_expect_eq (st.replay_count, 1);
    cr_expect_eq (st.retry_after, NOW + 1);
    everywhere (e, "PENDING");
    st = plugin_wb_mark (w, e->id, DLQ_SINK_MARK_REPLAYED, NOW + PLUGIN_WB_LEASE_MS);
    cr_expect_eq (st.replay_count, 2);

    st = plugin_wb_mark (w, e->id, DLQ_SINK_MARK_QUARANTINED, 0);
    cr_expect_str_eq (st.status, "QUARANTINED");
    cr_expect_eq (st.replay_count, 2);
    cr_expect_eq (st.retry_after, NOW + PLUGIN_WB_LEASE_MS, "retry_after is kept");
    everywhere (e, "QUARANTINED");

    st = plugin_wb_mark (w, e->id, DLQ_SINK_MARK_RESOLVED, 0);
    cr_expect_str_eq (st.status, "SUCCEEDED");
    cr_expect_eq (st.retry_count, 2);
    cr_expect_eq (st.replay_count, 2);
    everywhere (e, "SUCCEEDED");
    dlq_sink_event_state_t again = plugin_wb_state (w, e->id);
    cr_expect_eq (memcmp (&again, &st, sizeof st), 0, "state gives what mark returned");
}

void
plugin_wb_expect_not_found (const plugin_wb_t *w, const dlq_event_t *expired)
{
    const dlq_sink_workbench_ops_t *wb = w->plugin.ops->workbench;
    static const char *const ids [] = { "0190f1d2-6c4e-7a01-8b2c-3d4e5f607182", "not a uuid" };
    dlq_sink_event_state_t st;
    for (size_t i = 0; i < 2; i++) {
        cr_expect_eq (wb->state (w->reader, ids [i], NOW, &st), DLQ_SINK_STATUS_NOT_FOUND, "%s", ids [i]);
        cr_expect_eq (wb->mark (w->reader, ids [i], DLQ_SINK_MARK_RESOLVED, NOW, 0, &st), DLQ_SINK_STATUS_NOT_FOUND);
    }
    cr_expect_eq (wb->state (w->reader, expired->id, NOW, &st), DLQ_SINK_STATUS_NOT_FOUND, "expired");
    for (int how = DLQ_SINK_MARK_RESOLVED; how <= DLQ_SINK_MARK_RELEASED; how++)
        cr_expect_eq (wb->mark (w->reader, expired->id, (dlq_sink_mark_t) how, NOW, NOW, &st),
                      DLQ_SINK_STATUS_NOT_FOUND, "mark %d of an expired event", how);
    cr_expect_eq (wb->state (w->reader, expired->id, NOW - 2, &st), DLQ_SINK_STATUS_OK, "not expired before");
    cr_expect_str_eq (st.status, "PENDING", "an expired event's marks changed nothing");
    cr_expect_eq (st.retry_count, 0);
}

/* ---- filtered queries ------------------------------------------------------------------ */

static void
oracle_list (void *store, const char *request, const dlq_event_filter_t *f, size_t limit, const char *cursor,
             dlq_buf_t *page, dlq_buf_t *next)
{
    const plugin_wb_t *w = store;
    (void) f;
    cr_assert_eq (w->plugin.ops->workbench->query_list (w->reader, request, limit, cursor, NOW, dlq_plugin_host_buf (page),
                                                        dlq_plugin_host_buf (next)),
                  DLQ_SINK_STATUS_OK, "%s: %s", request, plugin_wb_error (w, w->reader));
}

static int64_t
oracle_count (void *store, const char *request, const dlq_event_filter_t *f)
{
    const plugin_wb_t *w = store;
    (void) f;
    int64_t count = -1;
    cr_assert_eq (w->plugin.ops->workbench->query_count (w->reader, request, NOW, &count), DLQ_SINK_STATUS_OK,
                  "%s: %s", request, plugin_wb_error (w, w->reader));
    return count;
}

static void
oracle_groups (void *store, const char *request, const dlq_event_filter_t *f, size_t limit, dlq_buf_t *out)
{
    const plugin_wb_t *w = store;
    (void) f;
    cr_assert_eq (w->plugin.ops->workbench->query_groups (w->reader, request, limit, NOW, dlq_plugin_host_buf (out)),
                  DLQ_SINK_STATUS_OK, "%s: %s", request, plugin_wb_error (w, w->reader));
}

static const filter_oracle_calls_t oracle_calls = { oracle_list, oracle_count, oracle_groups };

filter_oracle_t
plugin_wb_oracle (const plugin_wb_t *w, dlq_event_t *const *events, size_t stored)
{
    return (filter_oracle_t) { &oracle_calls, (void *) w, events, stored, true };
}

void
plugin_wb_expect_bad_cursors (const plugin_wb_t *w)
{
    dlq_buf_t page = DLQ_BUF_INIT, next = DLQ_BUF_INIT;
    /* malformed in every store's cursor format (embedded: created_at.seq,
     * postgres: the time and the id, mongo: the time and the id) */
    static const char *const bad [] = { "nonsense", "1717940000000.42x", "1717940000000.",
                                        "1.0190F1D2-6C4E-7A01-8B2C-3D4E5F607182" };
    for (size_t i = 0; i < sizeof bad / sizeof bad [0]; i++)
        cr_expect_eq (w->plugin.ops->workbench->query_list (w->reader, "{}", 10, bad [i], NOW, dlq_plugin_host_buf (&page),
                                                            dlq_plugin_host_buf (&next)),
                      DLQ_SINK_STATUS_BAD_CURSOR, "%s", bad [i]);
    cr_expect_eq (page.len + next.len, 0, "nothing written");
    dlq_buf_free (&page);
    dlq_buf_free (&next);
}

/* ---- claims ------------------------------------------------------------------------------ */

dlq_sink_status_t
plugin_wb_claim (const plugin_wb_t *w, void *instance, const char *stream, const char *owner, int64_t pass_ms,
                 int32_t max_retries, size_t batch, int64_t now, dlq_buf_t *out)
{
    dlq_buf_reset (out);
    return w->plugin.ops->workbench->claim (instance, stream, owner, pass_ms, max_retries, batch, now,
                                            now + PLUGIN_WB_LEASE_MS, dlq_plugin_host_buf (out));
}

/* The claimed event is the body of its id among events [0, checked). */
static void
expect_claimed_body (const dlq_buf_t *out, const dlq_json_value_t *event, const dlq_json_value_t *id,
                     dlq_event_t *const *events, size_t checked)
{
    const filter_oracle_t held = { .events = events, .stored = checked };
    const dlq_event_t *e = filter_oracle_event_by_id (&held, id->str, id->len);
    cr_assert_not_null (e, "%s", out->data);
    dlq_buf_t body = DLQ_BUF_INIT;
    dlq_json_write (&body, event);
    cr_expect_str_eq (body.data, e->json, "the stored body");
    dlq_buf_free (&body);
}

char *
plugin_wb_claimed (const dlq_buf_t *out, dlq_event_t *const *events, size_t checked)
{
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (out->data, out->len, &doc, NULL), DLQ_JSON_OK, "%s", out->data);
    cr_assert_eq (dlq_json_root (doc)->type, DLQ_JSON_ARRAY, "%s", out->data);
    dlq_buf_t ids = DLQ_BUF_INIT;
    dlq_buf_puts (&ids, "");
    for (const dlq_json_value_t *c = dlq_json_root (doc)->child; c; c = c->next) {
        const dlq_json_value_t *event = dlq_json_get (c, "event"), *id = dlq_json_get (event, "id");
        int64_t replays = -1;
        cr_assert (dlq_json_as_int64 (dlq_json_get (c, "replayCount"), &replays), "%s", out->data);
        cr_assert (id && id->type == DLQ_JSON_STRING, "%s", out->data);
        if (checked)
            expect_claimed_body (out, event, id, events, checked);
        dlq_buf_printf (&ids, "%s:%lld,", id->str, (long long) replays);
    }
    dlq_json_doc_destroy (&doc);
    return dlq_buf_steal (&ids, NULL);
}

char *
plugin_wb_ids_of (dlq_event_t *const *events, const int *order, const int *replays)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_buf_puts (&out, "");
    for (int k = 0; order [k] >= 0; k++)
        dlq_buf_printf (&out, "%s:%d,", events [order [k]]->id, replays ? replays [k] : 0);
    return dlq_buf_steal (&out, NULL);
}

void
plugin_wb_expect_claimed (const dlq_buf_t *out, dlq_event_t *const *events, size_t checked, const int *order,
                          const int *replays, const char *why)
{
    char *got = plugin_wb_claimed (out, events, checked);
    char *want = plugin_wb_ids_of (events, order, replays);
    cr_expect_str_eq (got, want, "%s", why);
    free (got);
    free (want);
}

/* The events of plugin_wb_expect_claims, marked: 0-5 eligible (in age
 * order 5, 0, 3, 1, 4, 2 after the marks); 6 SUCCEEDED; 7 status DLQ; 8
 * failed past max_retries 3; 9 due later; 10 expired; 11 another stream. */
static void
store_claimable (const plugin_wb_t *w, dlq_event_t **events)
{
    const char *const stream [] = { "s", "s", "s", "s", "s", "s", "s", "s", "s", "s", "s", "t" };
    const int64_t ago [] = { 9000, 7000, 5000, 8000, 6000, 9500, 9900, 9800, 9700, 9600, 9950, 9990 };
    const char *const status [] = { "PENDING", "PENDING", "PENDING", "PENDING", "PENDING", "PENDING", "PENDING",
                                    "DLQ", "PENDING", "PENDING", "PENDING", "PENDING" };
    int64_t expires [12];
    for (int i = 0; i < 12; i++)
        expires [i] = i == 10 ? NOW - 1 : DLQ_TIME_NONE;
    plugin_wb_store_simple (w, events, stream, ago, status, expires, 12);
    plugin_wb_mark (w, events [6]->id, DLQ_SINK_MARK_RESOLVED, 0);
    for (int k = 0; k < 3; k++)
        plugin_wb_mark (w, events [8]->id, DLQ_SINK_MARK_FAILED, NOW - 1);
    plugin_wb_mark (w, events [9]->id, DLQ_SINK_MARK_FAILED, NOW + 1);
    plugin_wb_mark (w, events [0]->id, DLQ_SINK_MARK_REPLAYED, NOW - 10);    /* replayed before, due again */
    plugin_wb_mark (w, events [3]->id, DLQ_SINK_MARK_FAILED, NOW);           /* due exactly now */
}

/* The first batch: the four oldest eligible, oldest first, leased. */
static void
expect_first_batch (const plugin_wb_t *w, dlq_event_t **events, size_t checked, plugin_wb_event_fn *kept)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    cr_assert_eq (plugin_wb_claim (w, w->reader, "s", "a", 60000, 3, 4, NOW, &out), DLQ_SINK_STATUS_OK, "%s",
                  plugin_wb_error (w, w->reader));
    static const int first [] = { 5, 0, 3, 1, -1 }, first_replays [] = { 0, 1, 0, 0 };
    plugin_wb_expect_claimed (&out, events, checked, first, first_replays,
                              "the first batch: the four oldest eligible, oldest first");
    for (int k = 0; first [k] >= 0; k++) {
        dlq_sink_event_state_t st = plugin_wb_state (w, events [first [k]]->id);
        cr_expect_eq (st.retry_after, NOW + PLUGIN_WB_LEASE_MS, "a leased event's retry_after is the lease");
        cr_expect_str_eq (st.status, "PENDING");
    }
    if (kept)
        kept (events [5]);
    dlq_buf_free (&out);
}

size_t
plugin_wb_expect_claims (const plugin_wb_t *w, dlq_event_t **events, bool bodies, plugin_wb_event_fn *kept)
{
    store_claimable (w, events);
    size_t checked = bodies ? 12 : 0;
    expect_first_batch (w, events, checked, kept);
    dlq_buf_t out = DLQ_BUF_INIT;
    cr_assert_eq (plugin_wb_claim (w, w->reader, "s", "a", 60000, 3, 4, NOW, &out), DLQ_SINK_STATUS_OK);
    static const int second [] = { 4, 2, -1 };
    plugin_wb_expect_claimed (&out, events, checked, second, NULL, "the second batch: the rest");
    cr_assert_eq (plugin_wb_claim (w, w->reader, "s", "a", 60000, 3, 4, NOW, &out), DLQ_SINK_STATUS_OK);
    cr_expect_str_eq (out.data, "[]", "nothing left");

    cr_assert_eq (plugin_wb_claim (w, w->reader, "s", "a", 60000, 4, 10, NOW + 1, &out), DLQ_SINK_STATUS_OK);
    static const int later [] = { 8, 9, -1 };
    plugin_wb_expect_claimed (&out, events, checked, later, NULL,
                              "max_retries 4 takes the event failed 3 times; the one due at NOW + 1 is due");
    cr_assert_eq (plugin_wb_claim (w, w->reader, "s", "a", 60000, 4, 10, NOW + PLUGIN_WB_LEASE_MS, &out),
                  DLQ_SINK_STATUS_OK);
    static const int leased_out [] = { 5, 0, 3, 1, 4, 2, -1 }, leased_replays [] = { 0, 1, 0, 0, 0, 0 };
    plugin_wb_expect_claimed (&out, events, checked, leased_out, leased_replays,
                              "when the lease runs out the events are due again");
    cr_assert_eq (plugin_wb_claim (w, w->reader, "t", "a", 60000, 4, 0, NOW, &out), DLQ_SINK_STATUS_OK);
    cr_expect_str_eq (out.data, "[]", "a batch of 0");
    dlq_buf_free (&out);
    return 12;
}

size_t
plugin_wb_expect_locked_out (const plugin_wb_t *w, dlq_event_t **events, bool bodies, plugin_wb_check_fn *held)
{
    const char *const stream [] = { "s", "s", "u" };
    const int64_t ago [] = { 3000, 2000, 1000 }, expires [] = { DLQ_TIME_NONE, DLQ_TIME_NONE, DLQ_TIME_NONE };
    const char *const status [] = { "PENDING", "PENDING", "PENDING" };
    plugin_wb_store_simple (w, events, stream, ago, status, expires, 3);
    void *other = plugin_wb_instance (w, DLQ_SINK_MODE_QUERY);
    dlq_buf_t out = DLQ_BUF_INIT;
    cr_assert_eq (plugin_wb_claim (w, w->reader, "s", "host-a", 60000, 10, 1, NOW, &out), DLQ_SINK_STATUS_OK, "%s",
                  plugin_wb_error (w, w->reader));
    cr_assert_eq (plugin_wb_claim (w, other, "s", "host-b", 60000, 10, 1, NOW + 1000, &out), DLQ_SINK_STATUS_LOCKED,
                  "%s", plugin_wb_error (w, other));
    cr_expect_eq (out.len, 0, "LOCKED writes nothing");
    cr_expect_eq (plugin_wb_state (w, events [1]->id).retry_after, events [1]->created_at, "LOCKED changes nothing");
    if (held)
        held ();
    cr_assert_eq (plugin_wb_claim (w, other, "u", "host-b", 60000, 10, 1, NOW + 1000, &out), DLQ_SINK_STATUS_OK,
                  "another stream's pass is free");
    cr_assert_eq (plugin_wb_claim (w, w->reader, "s", "host-a", 60000, 10, 1, NOW + 1000, &out),
                  DLQ_SINK_STATUS_OK, "the owner may run its pass again");
    static const int next [] = { 1, -1 };
    plugin_wb_expect_claimed (&out, events, bodies ? 3 : 0, next, NULL, "the owner's next event");
    cr_assert_eq (plugin_wb_claim (w, other, "s", "host-b", 60000, 10, 1, NOW + 60999, &out), DLQ_SINK_STATUS_LOCKED,
                  "the pass taken again at NOW + 1000 runs until NOW + 61000");
    cr_assert_eq (plugin_wb_claim (w, other, "s", "host-b", 60000, 10, 1, NOW + 61000, &out), DLQ_SINK_STATUS_OK,
                  "the pass is over: another owner takes it");
    w->plugin.ops->destroy (other);
    dlq_buf_free (&out);
    return 3;
}

/* ---- two instances claiming at once ------------------------------------------------------- */

typedef struct {
    const plugin_wb_t *w;
    void              *instance;
    char               owner [16];
    size_t             batch;
    int                passes;          /* at most */
    char             **ids;             /* what it claimed */
    size_t             count, capacity;
    int                locked, errors;
    char               error [512];
} claimer_t;

static void
remember_claims (claimer_t *c, const dlq_json_value_t *root)
{
    for (const dlq_json_value_t *e = root->child; e; e = e->next) {
        const dlq_json_value_t *id = dlq_json_get (dlq_json_get (e, "event"), "id");
        if (!id)
            continue;
        if (c->count == c->capacity) {
            c->capacity = c->capacity ? 2 * c->capacity : 256;
            c->ids = realloc (c->ids, c->capacity * sizeof *c->ids);
        }
        c->ids [c->count++] = strndup (id->str, id->len);
    }
}

/* Claim batches of "busy" until none is left; record every id. */
static void *
claimer (void *arg)
{
    claimer_t *c = arg;
    dlq_buf_t out = DLQ_BUF_INIT;
    for (int passes = 0; passes < c->passes && c->errors < 5; passes++) {
        dlq_sink_status_t status = plugin_wb_claim (c->w, c->instance, "busy", c->owner, 0, 10, c->batch, NOW, &out);
        if (status == DLQ_SINK_STATUS_LOCKED) {
            c->locked++;
            continue;
        }
        dlq_json_doc_t *doc = NULL;
        if (status != DLQ_SINK_STATUS_OK || dlq_json_parse (out.data, out.len, &doc, NULL) != DLQ_JSON_OK) {
            snprintf (c->error, sizeof c->error, "%s: %.200s", plugin_wb_error (c->w, c->instance),
                      out.data ? out.data : "");
            c->errors++;
            continue;
        }
        remember_claims (c, dlq_json_root (doc));
        bool done = dlq_json_root (doc)->count == 0;
        dlq_json_doc_destroy (&doc);
        if (done)
            break;
    }
    dlq_buf_free (&out);
    return NULL;
}

static int
by_text (const void *a, const void *b)
{
    return strcmp (*(char *const *) a, *(char *const *) b);
}

/* count events of stream "busy", created within a second, delivered. */
static dlq_event_t **
deliver_busy (const plugin_wb_t *w, int count)
{
    dlq_event_t **busy = calloc ((size_t) count, sizeof *busy);
    for (int i = 0; i < count; i++) {
        char body [256], created [DLQ_TIME_ISO_LEN + 1];
        dlq_time_format_iso (NOW - 1000000 + i * 7 % 1000, created);
        snprintf (body, sizeof body, "{\"streamName\":\"busy\",\"createdAt\":\"%s\",\"error\":{\"type\":\"X\"}}",
                  created);
        busy [i] = event_stored (body, DLQ_TIME_NONE);
    }
    for (int i = 0; i < count; i += 500)
        plugin_wb_deliver (w, busy + i, count - i < 500 ? (size_t) (count - i) : 500);
    return busy;
}

/* How many of busy [0, count) the reader's state says are leased until
 * NOW + PLUGIN_WB_LEASE_MS. */
static int64_t
leased_by_state (const plugin_wb_t *w, dlq_event_t **busy, int count)
{
    int64_t n = 0;
    for (int i = 0; i < count; i++)
        n += plugin_wb_state (w, busy [i]->id).retry_after == NOW + PLUGIN_WB_LEASE_MS;
    return n;
}

/* The claims of both claimers: each of busy [0, count) exactly once. */
static void
expect_each_once (claimer_t *c, dlq_event_t **busy, int count)
{
    char **all = calloc ((size_t) count * 2, sizeof *all);
    size_t n = 0;
    for (int t = 0; t < 2; t++) {
        cr_expect_eq (c [t].errors, 0, "%s: %s", c [t].owner, c [t].error);
        cr_expect_eq (c [t].locked, 0, "pass_ms 0: the pass is always free");
        for (size_t k = 0; k < c [t].count && n < (size_t) count * 2; k++)
            all [n++] = c [t].ids [k];
    }
    cr_log_info ("claimed by owner-0: %zu, by owner-1: %zu", c [0].count, c [1].count);
    cr_expect_eq (n, (size_t) count, "%zu claims for %d events", n, count);
    qsort (all, n, sizeof *all, by_text);
    for (size_t k = 1; k < n; k++)
        cr_expect_str_neq (all [k - 1], all [k], "%s claimed twice", all [k]);
    char **want = calloc ((size_t) count, sizeof *want);
    for (int i = 0; i < count; i++)
        want [i] = busy [i]->id;
    qsort (want, (size_t) count, sizeof *want, by_text);
    for (size_t k = 0; k < n && k < (size_t) count; k++)
        cr_expect_str_eq (all [k], want [k], "claimed events are the stored ones");
    free (all);
    free (want);
}

void
plugin_wb_expect_claimed_once (const plugin_wb_t *w, int count, size_t batch, plugin_wb_leased_fn *leased)
{
    dlq_event_t **busy = deliver_busy (w, count);
    claimer_t c [2];
    pthread_t threads [2];
    memset (c, 0, sizeof c);
    for (int t = 0; t < 2; t++) {
        c [t].w = w;
        c [t].instance = plugin_wb_instance (w, DLQ_SINK_MODE_QUERY);
        c [t].batch = batch;
        c [t].passes = 10 * count;
        snprintf (c [t].owner, sizeof c [t].owner, "owner-%d", t);
    }
    for (int t = 0; t < 2; t++)
        cr_assert_eq (pthread_create (&threads [t], NULL, claimer, &c [t]), 0);
    for (int t = 0; t < 2; t++)
        pthread_join (threads [t], NULL);
    expect_each_once (c, busy, count);
    int64_t carried = leased ? leased (NOW + PLUGIN_WB_LEASE_MS) : leased_by_state (w, busy, count);
    cr_expect_eq (carried, count, "every event carries the lease");
    for (int t = 0; t < 2; t++) {
        for (size_t k = 0; k < c [t].count; k++)
            free (c [t].ids [k]);
        free (c [t].ids);
        w->plugin.ops->destroy (c [t].instance);
    }
    for (int i = 0; i < count; i++)
        dlq_event_destroy (&busy [i]);
    free (busy);
}
