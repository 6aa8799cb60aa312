/*  contract — the fixture of the sink contract suite (contract_suite).
 *
 *  The sink under test is any plugin, named by the environment:
 *      DLQ_CONTRACT_PLUGIN    path of the plugin (.so), required
 *      DLQ_CONTRACT_SETTINGS  extra settings of its sink section, e.g.
 *                             data_dir = "@TMP@"; (optional). Every @TMP@
 *                             is replaced by a fresh directory per test,
 *                             every @NAME@ by a name of the test's own.
 *      DLQ_CONTRACT_CONFIG    extra top-level settings of the dlqd.conf
 *                             (optional; @TMP@ and @NAME@ as above), e.g.
 *                             streams with the sink's per-stream options:
 *                             streams = ( { name = "audit.v2";
 *                                 under_test: { collection = "x"; }; } );
 *  Each test writes a dlqd.conf with
 *      sinks: { under_test: { type = "plugin"; path = "<plugin>"; <settings> }; };
 *      <config>
 *  into its own temporary directory and loads it as the gateway does
 *  (dlqd_config_load: the section is validated against the plugin's
 *  schema), then drives instances through the gateway's host table.
 *
 *  Events are built in canonical form: JSON written here, decoded and
 *  encoded by core's codec, and handed over as the dispatcher does.
 */
#ifndef DLQ_CONTRACT_H
#define DLQ_CONTRACT_H

#include "dlq_buf.h"
#include "dlq_sink.h"
#include "dlq_uuid.h"
#include "dlqd_config.h"
#include "failed_event.h"
#include "plugin_support.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CONTRACT_INSTANCES_MAX 8    /* instances open at once in one test */
#define CONTRACT_BATCH_DEFAULT 1000 /* the batch tried when max_batch is 0 */
#define CONTRACT_DAY_MS (86400LL * 1000)

/* The sink under test, set up afresh for every test. */
typedef struct {
    char                     dir [256];     /* the test's temporary directory */
    dlqd_config_t           *config;
    dlq_sink_config_t       *sink;          /* the section "under_test" */
    const dlq_sink_ops_t    *ops;
    const dlq_sink_host_t   *host;
    void                    *open [CONTRACT_INSTANCES_MAX];
} contract_sink_t;

extern contract_sink_t sut;

/* .init and .fini of every suite: load the sink; close what a failed test
 * left open, unload, remove the directory. */
void contract_setup (void);
void contract_teardown (void);

/* Skip the test when the sink has no deliver call (it only serves
 * queries), cannot be a store (ops->store is NULL), or cannot sweep. The
 * fixture is torn down first, so these may be called from .init. */
void contract_require_deliver (void);
void contract_require_store (void);
void contract_require_sweep (void);

/* Skip the test when the sink has no workbench calls (ops->workbench) or
 * keeps no checkpoints (ops->checkpoints), or cannot be a store; fail it
 * when it has a table the gateway would ignore (older than this version's,
 * or a call NULL). May be called from .init. */
void contract_require_workbench (void);
void contract_require_checkpoints (void);

/* The sink under test as a test_plugin_t (plugin_support.h), for the
 * helpers of plugin_workbench.h and plugin_checkpoints.h. A view: the
 * fixture owns the config and the plugin, so never test_plugin_unload,
 * plugin_wb_close nor plugin_ckpt_close it; instances opened with
 * contract_open are closed by the fixture too. */
test_plugin_t contract_plugin (void);

/* The largest batch to try: ops->max_batch, or CONTRACT_BATCH_DEFAULT. */
size_t contract_max_batch (void);

/* The host's wall clock (ms since the epoch). */
int64_t contract_now (void);

/* A new instance in mode; the test fails with init's message otherwise. */
void *contract_open (dlq_sink_mode_t mode);

/* Destroy an instance made by contract_open. */
void contract_close (void *instance);

/* ---- events ------------------------------------------------------------------ */

typedef enum {
    CONTRACT_PLAIN,     /* include flags off: no fullDocument, no stackTrace */
    CONTRACT_FULL,      /* include flags on: fullDocument and stackTrace */
    CONTRACT_MINIMAL    /* only what a FailedEvent must have */
} contract_shape_t;

/* What an event of a test looks like. */
typedef struct {
    const char       *stream;
    int64_t           created_at;   /* ms since the epoch */
    int64_t           expires_at;   /* DLQ_TIME_NONE: retention 0, kept forever */
    contract_shape_t  shape;
    size_t            padding;      /* FULL: bytes of filler in fullDocument */
} contract_spec_t;

/* A batch of canonical events, and the arrays deliver is called with. */
typedef struct {
    dlq_event_t        **events;
    size_t               count;
    dlq_sink_event_t    *view;      /* built by contract_deliver */
    dlq_sink_outcome_t  *outcomes;  /* count + 1: the last one is a guard */
} contract_batch_t;

#define CONTRACT_BATCH_INIT { NULL, 0, NULL, NULL }

/* Add an event made from spec (with a fresh UUIDv7 id). */
void contract_batch_add (contract_batch_t *batch, const contract_spec_t *spec);

/* Add count events of spec, created_at one ms apart (older first). */
void contract_batch_fill (contract_batch_t *batch, const contract_spec_t *spec, size_t count);

/* Free everything the batch holds; it is left empty. */
void contract_batch_free (contract_batch_t *batch);

/* Deliver the whole batch through instance as the gateway does (outcomes
 * zeroed, every event at delivery_attempt attempt), check that every
 * outcome is well formed and nothing past the last one was written, and
 * return how many are OK. */
size_t contract_deliver (void *instance, contract_batch_t *batch, uint32_t attempt);

/* contract_deliver, expecting every event OK (the first other one's
 * message is reported). */
void contract_deliver_ok (void *instance, contract_batch_t *batch, uint32_t attempt);

/* ---- store answers ----------------------------------------------------------- */

/* The compact form of a JSON text (parse + write), to compare values; the
 * test fails when it is not JSON. Caller frees. */
char *contract_normal (const char *json, size_t len);

/* One event of a LIST page. */
typedef struct {
    char     id [DLQ_UUID_LEN + 1];
    int64_t  created_at;
    char    *normal;                /* its compact JSON (contract_normal) */
} contract_listed_t;

/* Every page of stream, limit events per page, following the cursors:
 * each page must be a JSON array of at most limit events with an id and a
 * createdAt. Fills up to max entries of out; more is a failure. Returns
 * how many; free with contract_listed_free. */
size_t contract_list_all (void *instance, const char *stream, size_t limit, int64_t now_ms,
                          contract_listed_t *out, size_t max);

/* Free the normals of count listed entries. */
void contract_listed_free (contract_listed_t *listed, size_t count);

/* STATS through instance, checked: streams must be a JSON object of counts
 * that add up to the total. Returns stream's count (0 when not in the
 * object); *streams gets how many streams are in it, *events the total. */
int64_t contract_stats (void *instance, const char *stream, size_t *streams, int64_t *events);

#endif
