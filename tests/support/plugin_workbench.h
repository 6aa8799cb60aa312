/*  plugin_workbench — a sink plugin's workbench calls
 *  (dlq_sink_workbench_ops_t) driven from a test, for the suites that
 *  load a plugin in the test process (the contract suite's
 *  contract_workbench, for any plugin; itest_postgres_workbench and
 *  itest_mongo_workbench, for what only their backend shows): events
 *  delivered through a DELIVER instance;
 *  the state, marks and claims of a QUERY instance, which must succeed;
 *  claims read back; the filtered queries as filter_oracle.h's calls; and
 *  the contract's checks that hold for every store (what each mark does,
 *  NOT_FOUND, a cursor it did not issue, claims in batches, another owner
 *  locked out of a pass, two instances claiming at once). A suite adds
 *  what it sees behind the plugin (a table, documents) through callbacks.
 *
 *  Calls are made at PLUGIN_WB_NOW. Every function fails the calling test
 *  (Criterion asserts) when the plugin does not answer as required.
 */
#ifndef PLUGIN_WORKBENCH_H
#define PLUGIN_WORKBENCH_H

#include "dlq_buf.h"
#include "dlq_sink.h"
#include "event_support.h"
#include "failed_event.h"
#include "filter_oracle.h"
#include "plugin_support.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PLUGIN_WB_NOW       EVENT_RECEIVED_AT
#define PLUGIN_WB_LEASE_MS  600000LL            /* the lease of plugin_wb_claim */

typedef struct {
    test_plugin_t plugin;       /* loaded by the suite */
    void         *writer;       /* a DELIVER instance (plugin_wb_open) */
    void         *reader;       /* a QUERY instance (plugin_wb_open) */
} plugin_wb_t;

/* Open the writer and the reader of the loaded plugin, which must have
 * this version's workbench calls. */
void plugin_wb_open (plugin_wb_t *w);

/* Another instance of the loaded plugin, in mode. */
void *plugin_wb_instance (const plugin_wb_t *w, dlq_sink_mode_t mode);

/* Destroy the writer and the reader, and unload the plugin. */
void plugin_wb_close (plugin_wb_t *w);

/* The plugin's last error on instance (a placeholder when the plugin has
 * no last_error call). */
const char *plugin_wb_error (const plugin_wb_t *w, void *instance);

/* Deliver count events through the writer; every one must be OK. */
void plugin_wb_deliver (const plugin_wb_t *w, dlq_event_t **batch, size_t count);

/* Deliver the varied events of filter_oracle.h, made into events [0,
 * FILTER_ORACLE_EVENTS); their number. */
size_t plugin_wb_store_varied (const plugin_wb_t *w, dlq_event_t **events, filter_oracle_variety_t variety);

/* An event of stream created `ago` ms before PLUGIN_WB_NOW with status,
 * expiring at expires_at: a fullDocument and metadata with a "status" of
 * their own, attempts 1 (event_stored). */
dlq_event_t *plugin_wb_simple (const char *stream, int64_t ago, const char *status, int64_t expires_at);

/* Deliver events [0, count), made by plugin_wb_simple from the arrays. */
void plugin_wb_store_simple (const plugin_wb_t *w, dlq_event_t **events, const char *const *stream,
                             const int64_t *ago, const char *const *status, const int64_t *expires, size_t count);

/* Deliver two plugin_wb_simple events of stream "s" into events [0, 2):
 * status DLQ, and PENDING expired at PLUGIN_WB_NOW - 1 (for
 * plugin_wb_expect_marks and plugin_wb_expect_not_found); returns 2. */
size_t plugin_wb_store_marked (const plugin_wb_t *w, dlq_event_t **events);

/* The canonical body of a plugin_wb_simple event with its status
 * replaced by status. Caller frees. */
char *plugin_wb_body_with_status (const dlq_event_t *e, const char *status);

/* The reader's state of event id, and a mark of it. */
dlq_sink_event_state_t plugin_wb_state (const plugin_wb_t *w, const char *id);
dlq_sink_event_state_t plugin_wb_mark (const plugin_wb_t *w, const char *id, dlq_sink_mark_t how,
                                       int64_t retry_after);

/* Where a suite sees that event e now has status (its body, GET, ...). */
typedef void plugin_wb_status_fn (const dlq_event_t *e, const char *status);

/* The state of e (a plugin_wb_simple event of status DLQ, never marked)
 * through each mark: FAILED twice, REPLAYED, QUARANTINED, RESOLVED; after
 * each that changes the status everywhere says so; then state gives what
 * the last mark returned. */
void plugin_wb_expect_marks (const plugin_wb_t *w, const dlq_event_t *e, plugin_wb_status_fn *everywhere);

/* A missing event, an id that is no UUID and the expired event (PENDING,
 * expired at PLUGIN_WB_NOW - 1) are NOT_FOUND to state and every mark;
 * the expired one is unchanged before it expired. */
void plugin_wb_expect_not_found (const plugin_wb_t *w, const dlq_event_t *expired);

/* The oracle of filter_oracle.h over events [0, stored), which the store
 * holds, querying it through the reader; LIST compared body by body. */
filter_oracle_t plugin_wb_oracle (const plugin_wb_t *w, dlq_event_t *const *events, size_t stored);

/* LIST with a cursor the plugin did not issue is BAD_CURSOR and writes
 * nothing. */
void plugin_wb_expect_bad_cursors (const plugin_wb_t *w);

/* A claim through instance (the lease: now + PLUGIN_WB_LEASE_MS) into out
 * (reset first); its status. */
dlq_sink_status_t plugin_wb_claim (const plugin_wb_t *w, void *instance, const char *stream, const char *owner,
                                   int64_t pass_ms, int32_t max_retries, size_t batch, int64_t now, dlq_buf_t *out);

/* The claimed "<id>:<replayCount>," of a claim's answer, in its order;
 * each event must be the body of its id among events [0, checked)
 * (checked 0: not looked at). Caller frees. */
char *plugin_wb_claimed (const dlq_buf_t *out, dlq_event_t *const *events, size_t checked);

/* "<id of events [k]>:<replays [k]>," for each index k of order (-1
 * ends; replays NULL: all 0). Caller frees. */
char *plugin_wb_ids_of (dlq_event_t *const *events, const int *order, const int *replays);

/* A claim's answer claimed the events of order with replays
 * (plugin_wb_ids_of), bodies checked as plugin_wb_claimed does. */
void plugin_wb_expect_claimed (const dlq_buf_t *out, dlq_event_t *const *events, size_t checked, const int *order,
                               const int *replays, const char *why);

/* A check of what a suite sees behind the plugin: of event e, or of the
 * store as a whole. NULL where one is taken: nothing to check. */
typedef void plugin_wb_event_fn (const dlq_event_t *e);
typedef void plugin_wb_check_fn (void);

/* Deliver 12 events of streams "s" and "t" into events [0, 12), mark some
 * of them, and claim in batches: the eligible ones (PENDING, under
 * max_retries, due, unexpired, of the stream) come oldest first, leased
 * (kept: the store still holds a claimed event's body), until none is
 * left, and again when the lease ran out; a batch of 0 claims nothing.
 * Bodies checked when bodies (plugin_wb_claimed). Returns 12. */
size_t plugin_wb_expect_claims (const plugin_wb_t *w, dlq_event_t **events, bool bodies, plugin_wb_event_fn *kept);

/* Deliver 3 events (streams "s", "s", "u") into events [0, 3); the reader
 * claims one of "s" as host-a with a pass of 60 s (held: the store's lock
 * of "s" says host-a until PLUGIN_WB_NOW + 60000); another instance is
 * LOCKED out of "s" (changing nothing) until the pass is over, not out of
 * "u"; the owner may claim again. Returns 3. */
size_t plugin_wb_expect_locked_out (const plugin_wb_t *w, dlq_event_t **events, bool bodies,
                                    plugin_wb_check_fn *held);

/* The number of events of the store whose retry_after is at. */
typedef int64_t plugin_wb_leased_fn (int64_t at);

/* count events of stream "busy" delivered, then claimed by two QUERY
 * instances at once in batches of batch (pass_ms 0) until none is left:
 * each claimed exactly once, never LOCKED, and all leased (as leased
 * counts them; NULL: as the reader's state of each says). */
void plugin_wb_expect_claimed_once (const plugin_wb_t *w, int count, size_t batch, plugin_wb_leased_fn *leased);

#endif
