/*  contract — the fixture of the sink contract suite: loading the plugin
 *  under test through a dlqd.conf, instances through the host table,
 *  canonical events and batches, LIST pages read back. See contract.h.
 */
#include "contract.h"

#include "dlq_alloc.h"
#include "dlq_json.h"
#include "dlq_time.h"
#include "plugin_host.h"

#include <criterion/criterion.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define GUARD_BYTE 0xA5     /* fills the outcome past the batch */

contract_sink_t sut;

/* ---- the sink under test ----------------------------------------------------- */

/* A copy of text with every from replaced by to. Caller frees. */
static char *
replace_all (const char *text, const char *from, const char *to)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    const char *at;
    while ((at = strstr (text, from))) {
        dlq_buf_append (&out, text, (size_t) (at - text));
        dlq_buf_puts (&out, to);
        text = at + strlen (from);
    }
    dlq_buf_puts (&out, text);
    return dlq_buf_steal (&out, NULL);
}

/* The settings with @TMP@ (a fresh directory) and @NAME@ (a name no other
 * test has: letters, digits and '_', e.g. a database) filled in. Caller
 * frees. */
static char *
expand_settings (const char *text, const char *tmp)
{
    char name [64];
    const char *suffix = strrchr (sut.dir, '-');
    snprintf (name, sizeof name, "dlq_contract_%s", suffix ? suffix + 1 : "x");
    char *with_tmp = replace_all (text, "@TMP@", tmp);
    char *expanded = replace_all (with_tmp, "@NAME@", name);
    free (with_tmp);
    return expanded;
}

/* Write the test's dlqd.conf into path: the sink's section, then the
 * extra top-level settings. */
static void
write_config (const char *path, const char *plugin, const char *settings, const char *extra)
{
    FILE *f = fopen (path, "w");
    cr_assert_not_null (f, "cannot write %s", path);
    fprintf (f, "sinks: { under_test: { type = \"plugin\"; path = \"%s\";\n%s\n}; };\n%s\n", plugin, settings,
             extra);
    /* the embedded store every config loads (dlqd_config.h: store) is
     * this build's, whatever directory the suite runs from */
    if (!strstr (extra, "gateway"))
        fprintf (f, "gateway: { sink_dir = \"%s\"; };\n", DLQD_PLUGIN_DIR);
    cr_assert_eq (fclose (f), 0, "cannot write %s", path);
    chmod (path, 0600);                 /* it may hold a sink's password (docs/security.md) */
}

/* Make the test's directory and the fresh directory @TMP@ stands for. */
static void
make_dirs (char *tmp, size_t tmp_len)
{
    const char *base = getenv ("TMPDIR");
    snprintf (sut.dir, sizeof sut.dir, "%s/dlq-contract-XXXXXX", base && *base ? base : "/tmp");
    cr_assert_not_null (mkdtemp (sut.dir), "cannot make a temporary directory");
    snprintf (tmp, tmp_len, "%s/tmp", sut.dir);
    cr_assert_eq (mkdir (tmp, 0700), 0, "cannot make %s", tmp);
}

/* Load the test's dlqd.conf; a refused one fails the test (after tearing
 * down: Criterion runs no .fini after a failure in .init). */
static void
load_config (const char *path)
{
    char *err = NULL;
    if (dlqd_config_load (path, &sut.config, &err) == DLQD_CONFIG_OK)
        return;
    char why [1024];
    snprintf (why, sizeof why, "%s", err);
    free (err);
    contract_teardown ();
    cr_assert_fail ("the sink section is refused: %s", why);
}

void
contract_setup (void)
{
    memset (&sut, 0, sizeof sut);
    const char *plugin = getenv ("DLQ_CONTRACT_PLUGIN");
    const char *settings = getenv ("DLQ_CONTRACT_SETTINGS");
    const char *config = getenv ("DLQ_CONTRACT_CONFIG");
    cr_assert (plugin && *plugin, "set DLQ_CONTRACT_PLUGIN to the plugin under test "
               "(and DLQ_CONTRACT_SETTINGS to its sink settings, if it needs any)");
    char tmp [320], path [320];
    make_dirs (tmp, sizeof tmp);
    snprintf (path, sizeof path, "%s/dlqd.conf", sut.dir);
    char *expanded = expand_settings (settings ? settings : "", tmp);
    char *extra = expand_settings (config ? config : "", tmp);
    write_config (path, plugin, expanded, extra);
    free (extra);
    free (expanded);
    load_config (path);
    sut.sink = dlqd_config_sink (sut.config, "under_test");
    cr_assert_not_null (sut.sink);
    sut.ops = dlq_plugin_config_ops (sut.sink);
    sut.host = dlq_plugin_host ();
}

/* nftw callback: remove one entry of the tree. */
static int
remove_entry (const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    remove (path);
    return 0;
}

void
contract_teardown (void)
{
    for (size_t i = 0; i < CONTRACT_INSTANCES_MAX; i++)
        if (sut.open [i])
            contract_close (sut.open [i]);
    dlqd_config_destroy (&sut.config);
    if (sut.dir [0])
        nftw (sut.dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    sut.dir [0] = '\0';
}

/* Tear the fixture down and skip the test, saying why (Criterion runs no
 * .fini after a skip in .init; contract_teardown may run twice). */
static void
skip_test (const char *why)
{
    char type [64];
    snprintf (type, sizeof type, "%s", sut.ops->type);
    contract_teardown ();
    cr_skip_test ("sink type \"%s\" %s", type, why);
}

void
contract_require_deliver (void)
{
    if (!sut.ops->deliver)
        skip_test ("only serves queries (ops->deliver is NULL)");
}

void
contract_require_store (void)
{
    if (!sut.ops->store)
        skip_test ("cannot be a store (ops->store is NULL)");
}

void
contract_require_sweep (void)
{
    contract_require_store ();
    if (!sut.ops->store->sweep)
        skip_test ("has no sweep call (store->sweep is NULL)");
}

/* Tear the fixture down and fail the test, saying why (as skip_test). */
static void
fail_setup (const char *why)
{
    char type [64];
    snprintf (type, sizeof type, "%s", sut.ops->type);
    contract_teardown ();
    cr_assert_fail ("sink type \"%s\" %s", type, why);
}

void
contract_require_workbench (void)
{
    contract_require_store ();
    const dlq_sink_workbench_ops_t *w = DLQ_SINK_OPS_HAS (sut.ops, workbench) ? sut.ops->workbench : NULL;
    if (!w)
        skip_test ("has no workbench calls (ops->workbench is NULL)");
    /* what the gateway takes (router/query/primary.c): else it acts as if there were none */
    if (w->struct_size < sizeof (dlq_sink_workbench_ops_t))
        fail_setup ("has workbench calls of an older version (workbench->struct_size too small): "
                    "the gateway ignores them");
    if (!w->query_list || !w->query_count || !w->query_groups || !w->state || !w->mark || !w->claim)
        fail_setup ("lacks a workbench call (one of them is NULL): the gateway ignores them all");
}

void
contract_require_checkpoints (void)
{
    contract_require_store ();
    const dlq_sink_checkpoint_ops_t *c = DLQ_SINK_OPS_HAS (sut.ops, checkpoints) ? sut.ops->checkpoints : NULL;
    if (!c)
        skip_test ("keeps no checkpoints (ops->checkpoints is NULL)");
    if (c->struct_size < sizeof (dlq_sink_checkpoint_ops_t))
        fail_setup ("has checkpoint calls of an older version (checkpoints->struct_size too small): "
                    "the gateway ignores them");
    if (!c->write || !c->get || !c->list || !c->remove)
        fail_setup ("lacks a checkpoint call (one of them is NULL): the gateway ignores them all");
}

test_plugin_t
contract_plugin (void)
{
    test_plugin_t view;
    memset (&view, 0, sizeof view);
    view.config = sut.config;
    view.sink = sut.sink;
    view.ops = sut.ops;
    view.host = sut.host;
    return view;
}

size_t
contract_max_batch (void)
{
    return sut.ops->max_batch ? sut.ops->max_batch : CONTRACT_BATCH_DEFAULT;
}

int64_t
contract_now (void)
{
    return sut.host->now_ms ();
}

void *
contract_open (dlq_sink_mode_t mode)
{
    size_t slot = 0;
    while (slot < CONTRACT_INSTANCES_MAX && sut.open [slot])
        slot++;
    cr_assert_lt (slot, CONTRACT_INSTANCES_MAX, "too many instances open");
    char err [512] = "";
    void *instance = NULL;
    dlq_sink_status_t status = sut.ops->init (sut.host, sut.sink, mode, &instance, err, sizeof err);
    cr_assert_eq (status, DLQ_SINK_STATUS_OK, "init (%s mode) failed: %s",
                  mode == DLQ_SINK_MODE_DELIVER ? "DELIVER" : "QUERY", err);
    cr_assert_not_null (memchr (err, '\0', sizeof err), "init left err unterminated");
    sut.open [slot] = instance ? instance : (void *) &sut;
    return instance;
}

void
contract_close (void *instance)
{
    void *key = instance ? instance : (void *) &sut;
    for (size_t i = 0; i < CONTRACT_INSTANCES_MAX; i++)
        if (sut.open [i] == key) {
            sut.open [i] = NULL;
            sut.ops->destroy (instance);
            return;
        }
    cr_assert_fail ("closing an instance that is not open");
}

/* ---- events ------------------------------------------------------------------ */

/* Append "key":"<ISO time>", to out. */
static void
put_time (dlq_buf_t *out, const char *key, int64_t ms)
{
    char iso [DLQ_TIME_ISO_LEN + 1];
    cr_assert_neq (dlq_time_format_iso (ms, iso), 0, "%s out of range", key);
    dlq_buf_printf (out, "\"%s\":\"%s\",", key, iso);
}

/* The fullDocument of a FULL event, with padding bytes of filler. */
static void
put_full_document (dlq_buf_t *out, size_t padding)
{
    dlq_buf_puts (out, "\"fullDocument\":{\"_id\":{\"$oid\":\"65f0a1b2c3d4e5f601234567\"},"
                       "\"total\":{\"$numberDecimal\":\"129.90\"},\"items\":3,\"note\":\"");
    for (size_t i = 0; i < padding; i++)
        dlq_buf_putc (out, (char) ('a' + i % 26));
    dlq_buf_puts (out, "\"},");
}

/* The error member of an event of shape. */
static void
put_error (dlq_buf_t *out, contract_shape_t shape)
{
    dlq_buf_puts (out, "\"error\":{\"type\":\"java.lang.IllegalStateException\"");
    if (shape != CONTRACT_MINIMAL)
        dlq_buf_puts (out, ",\"message\":\"downstream call failed: caf\\u00e9 \\\"quoted\\\" \xe2\x98\x95\"");
    if (shape == CONTRACT_FULL)
        dlq_buf_puts (out, ",\"stackTrace\":\"java.lang.IllegalStateException: downstream call failed"
                           "\\n\\tat com.acme.Orders.handle(Orders.java:42)\"");
    dlq_buf_puts (out, "},");
}

/* A FailedEvent body as a worker sends it. Caller frees. */
static char *
event_body (const char *id, const contract_spec_t *spec, size_t *len)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_buf_printf (&out, "{\"id\":\"%s\",\"streamName\":\"%s\",", id, spec->stream);
    if (spec->shape != CONTRACT_MINIMAL)
        dlq_buf_puts (&out, "\"operationType\":\"UPDATE\","
                            "\"documentKey\":{\"_id\":{\"$oid\":\"65f0a1b2c3d4e5f601234567\"}},"
                            "\"resumeToken\":{\"_data\":\"8265F0A1B2000000012B022C0100296E5A1004\"},");
    if (spec->shape == CONTRACT_FULL)
        put_full_document (&out, spec->padding);
    put_error (&out, spec->shape);
    if (spec->shape != CONTRACT_MINIMAL) {
        dlq_buf_puts (&out, "\"attempts\":3,\"status\":\"PENDING\",\"metadata\":{\"tenantId\":\"acme\"},");
        put_time (&out, "firstAttemptAt", spec->created_at - 2000);
        put_time (&out, "lastAttemptAt", spec->created_at - 100);
    }
    if (spec->expires_at != DLQ_TIME_NONE)
        put_time (&out, "expiresAt", spec->expires_at);
    put_time (&out, "createdAt", spec->created_at);
    out.data [out.len - 1] = '}';
    return dlq_buf_steal (&out, len);
}

void
contract_batch_add (contract_batch_t *batch, const contract_spec_t *spec)
{
    char id [DLQ_UUID_LEN + 1];
    dlq_uuid_v7 (spec->created_at, id);
    size_t len;
    char *body = event_body (id, spec, &len);
    dlq_error_t err = { 0 };
    dlq_event_t *event = dlq_event_decode (body, len, spec->created_at, &err);
    cr_assert_not_null (event, "the test's event does not decode: %s (%s) in %s", err.message, err.field, body);
    free (body);
    dlq_event_encode (event);
    batch->events = dlq_realloc (batch->events, (batch->count + 1) * sizeof *batch->events);
    batch->events [batch->count++] = event;
}

void
contract_batch_fill (contract_batch_t *batch, const contract_spec_t *spec, size_t count)
{
    contract_spec_t each = *spec;
    for (size_t i = 0; i < count; i++, each.created_at++)
        contract_batch_add (batch, &each);
}

void
contract_batch_free (contract_batch_t *batch)
{
    for (size_t i = 0; i < batch->count; i++)
        dlq_event_destroy (&batch->events [i]);
    free (batch->events);
    free (batch->view);
    free (batch->outcomes);
    *batch = (contract_batch_t) CONTRACT_BATCH_INIT;
}

/* The retention of an event, in days, as its stream policy would say. */
static int32_t
retention_days (const dlq_event_t *e)
{
    if (e->expires_at == DLQ_TIME_NONE || e->expires_at <= e->created_at)
        return 0;
    return (int32_t) ((e->expires_at - e->created_at + CONTRACT_DAY_MS - 1) / CONTRACT_DAY_MS);
}

/* The ABI view of one event, as the dispatcher fills it. */
static dlq_sink_event_t
view_of (const dlq_event_t *e, uint32_t attempt)
{
    return (dlq_sink_event_t) {
        .id = e->id, .stream_name = e->stream_name, .operation_type = e->operation_type,
        .status = e->status, .document_key = e->document_key, .attempts = e->attempts,
        .first_attempt_at = e->first_attempt_at, .created_at = e->created_at,
        .expires_at = e->expires_at, .retention_days = retention_days (e),
        .json = e->json, .json_len = e->json_len, .delivery_attempt = attempt,
    };
}

/* Check one outcome: a known result and a NUL-terminated message. */
static void
check_outcome (const dlq_sink_outcome_t *outcome, size_t i)
{
    cr_expect (outcome->result == DLQ_SINK_OK || outcome->result == DLQ_SINK_RETRY
               || outcome->result == DLQ_SINK_FAIL,
               "outcome %zu has result %d, not OK, RETRY or FAIL", i, (int) outcome->result);
    cr_expect_not_null (memchr (outcome->message, '\0', sizeof outcome->message),
                        "outcome %zu: the message is not NUL-terminated within its array", i);
}

/* True when the guard outcome past the batch is untouched. */
static bool
guard_intact (const dlq_sink_outcome_t *guard)
{
    const unsigned char *bytes = (const unsigned char *) guard;
    for (size_t i = 0; i < sizeof *guard; i++)
        if (bytes [i] != GUARD_BYTE)
            return false;
    return true;
}

size_t
contract_deliver (void *instance, contract_batch_t *batch, uint32_t attempt)
{
    size_t n = batch->count;
    cr_assert (n >= 1 && n <= contract_max_batch (), "a test batch of %zu events", n);
    batch->view = dlq_realloc (batch->view, n * sizeof *batch->view);
    batch->outcomes = dlq_realloc (batch->outcomes, (n + 1) * sizeof *batch->outcomes);
    for (size_t i = 0; i < n; i++)
        batch->view [i] = view_of (batch->events [i], attempt);
    memset (batch->outcomes, 0, n * sizeof *batch->outcomes);
    memset (&batch->outcomes [n], GUARD_BYTE, sizeof *batch->outcomes);
    sut.ops->deliver (instance, batch->view, n, batch->outcomes, sut.host->mono_ms () + 30000);
    size_t ok = 0;
    for (size_t i = 0; i < n; i++) {
        check_outcome (&batch->outcomes [i], i);
        ok += batch->outcomes [i].result == DLQ_SINK_OK;
    }
    cr_expect (guard_intact (&batch->outcomes [n]), "deliver wrote past the last of %zu outcomes", n);
    return ok;
}

void
contract_deliver_ok (void *instance, contract_batch_t *batch, uint32_t attempt)
{
    size_t ok = contract_deliver (instance, batch, attempt);
    for (size_t i = 0; i < batch->count && ok < batch->count; i++)
        if (batch->outcomes [i].result != DLQ_SINK_OK)
            cr_assert_fail ("%zu of %zu events OK (attempt %u); event %zu: %s \"%.240s\"", ok,
                            batch->count, attempt, i,
                            batch->outcomes [i].result == DLQ_SINK_RETRY ? "RETRY" : "FAIL",
                            batch->outcomes [i].message);
}

/* ---- store answers ----------------------------------------------------------- */

char *
contract_normal (const char *json, size_t len)
{
    dlq_json_doc_t *doc = NULL;
    dlq_json_error_t err = { 0, "" };
    cr_assert_eq (dlq_json_parse (json, len, &doc, &err), DLQ_JSON_OK,
                  "not JSON (%s at %zu): %.*s", err.message, err.offset, (int) (len > 300 ? 300 : len),
                  json ? json : "");
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_json_write (&out, dlq_json_root (doc));
    dlq_json_doc_destroy (&doc);
    return dlq_buf_steal (&out, NULL);
}

/* One element of a page into listed. */
static void
read_listed (const dlq_json_value_t *event, contract_listed_t *listed)
{
    cr_assert_eq (event->type, DLQ_JSON_OBJECT, "a listed event is not a JSON object");
    const dlq_json_value_t *id = dlq_json_get (event, "id");
    const dlq_json_value_t *created = dlq_json_get (event, "createdAt");
    cr_assert (id && id->type == DLQ_JSON_STRING && id->len == DLQ_UUID_LEN, "a listed event has no id");
    cr_assert (created && created->type == DLQ_JSON_STRING
               && dlq_time_parse_iso (created->str, created->len, &listed->created_at),
               "listed event %s has no createdAt", id->str);
    memcpy (listed->id, id->str, DLQ_UUID_LEN + 1);
    dlq_buf_t normal = DLQ_BUF_INIT;
    dlq_json_write (&normal, event);
    listed->normal = dlq_buf_steal (&normal, NULL);
}

/* Read one page (a JSON array of at most limit events) into out. */
static size_t
read_page (const dlq_buf_t *page, size_t limit, contract_listed_t *out, size_t room)
{
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (page->data, page->len, &doc, NULL), DLQ_JSON_OK,
                  "a LIST page is not JSON: %.300s", page->data ? page->data : "(nothing)");
    const dlq_json_value_t *array = dlq_json_root (doc);
    cr_assert_eq (array->type, DLQ_JSON_ARRAY, "a LIST page is not a JSON array: %.300s", page->data);
    cr_assert_leq (array->count, limit, "a LIST page of limit %zu has %zu events", limit, array->count);
    cr_assert_leq (array->count, room, "LIST gives more events than were delivered");
    size_t n = 0;
    for (const dlq_json_value_t *event = array->child; event; event = event->next)
        read_listed (event, &out [n++]);
    dlq_json_doc_destroy (&doc);
    return n;
}

size_t
contract_list_all (void *instance, const char *stream, size_t limit, int64_t now_ms,
                   contract_listed_t *out, size_t max)
{
    dlq_buf_t page = DLQ_BUF_INIT, cursor = DLQ_BUF_INIT, next = DLQ_BUF_INIT;
    size_t n = 0;
    for (size_t pages = 0; ; pages++) {
        cr_assert_leq (pages, max + 1, "LIST keeps giving a next cursor");
        dlq_buf_reset (&page);
        dlq_buf_reset (&next);
        dlq_sink_status_t status = sut.ops->store->list (instance, stream, limit, cursor.len ? cursor.data : NULL,
                                                         now_ms, dlq_plugin_host_buf (&page), dlq_plugin_host_buf (&next));
        cr_assert_eq (status, DLQ_SINK_STATUS_OK, "LIST %s page %zu: status %d", stream, pages, (int) status);
        n += read_page (&page, limit, out + n, max - n);
        if (next.len == 0)
            break;
        dlq_buf_reset (&cursor);
        dlq_buf_append (&cursor, next.data, next.len);
    }
    dlq_buf_free (&page);
    dlq_buf_free (&cursor);
    dlq_buf_free (&next);
    return n;
}

void
contract_listed_free (contract_listed_t *listed, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free (listed [i].normal);
}

/* The count of one member of a STATS object; the test fails unless it is
 * a non-negative integer. */
static int64_t
member_count (const dlq_json_value_t *member)
{
    int64_t count = -1;
    cr_assert (dlq_json_as_int64 (member, &count) && count >= 0,
               "STATS: the count of stream %s is not a non-negative integer", member->key);
    return count;
}

int64_t
contract_stats (void *instance, const char *stream, size_t *streams, int64_t *events)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    int64_t bytes = -1;
    *events = -1;
    dlq_sink_status_t status = sut.ops->store->stats (instance, dlq_plugin_host_buf (&out), events, &bytes);
    cr_assert_eq (status, DLQ_SINK_STATUS_OK, "STATS: status %d", (int) status);
    cr_expect_geq (bytes, 0, "STATS: store bytes %lld", (long long) bytes);
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (out.data, out.len, &doc, NULL), DLQ_JSON_OK,
                  "STATS streams are not JSON: %.300s", out.data ? out.data : "(nothing)");
    const dlq_json_value_t *object = dlq_json_root (doc);
    cr_assert_eq (object->type, DLQ_JSON_OBJECT, "STATS streams are not an object: %.300s", out.data);
    int64_t sum = 0, count = 0;
    for (const dlq_json_value_t *member = object->child; member; member = member->next) {
        int64_t n = member_count (member);
        sum += n;
        if (strcmp (member->key, stream) == 0)
            count = n;
    }
    *streams = object->count;
    cr_expect_eq (sum, *events, "STATS: the streams add up to %lld, the total is %lld",
                  (long long) sum, (long long) *events);
    dlq_json_doc_destroy (&doc);
    dlq_buf_free (&out);
    return count;
}
