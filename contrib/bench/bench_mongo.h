/*  bench_mongo — the mongo sink against MongoDB used directly (mongoc),
 *  on the same generated events, in the same run (dlqd_bench --mongo
 *  [URI]):
 *
 *    the server: without URI, the MongoDB wire-protocol test server of
 *          tests/mongo (mongo_server.h), run by threads of this process
 *          on loopback, command recording off; with URI, that MongoDB;
 *    (i)   sink (drain): a private dlqd without sinks takes every PUT
 *          (acked), is stopped and started again on the same data dir with
 *          one mongo sink in the default chain (bench_sink.h); events/s from
 *          the restart (PING answered) until STATS shows delivered = N and
 *          backlog 0;
 *    (ii)  raw: one mongoc client writing what the sink writes: the events
 *          in batches of the sink's size (batch.max_events, default 1000),
 *          and in a batch, collection by collection (in the order the sink
 *          takes them: by first event), one unordered bulk insert of the
 *          event documents (each event as the gateway hands it to the sink,
 *          made while timed by the sink's own dlq_mongo_event_doc) into the
 *          stream's collection, then one of their index entries
 *          (dlq_mongo_index_doc) into _fw_dlq_index; events/s from the
 *          first document made until the last bulk is acknowledged (the
 *          default write concern, as the sink's). Before the timing, the
 *          run's collections get the indexes the sink makes (a TTL index on
 *          expiresAt, the LIST index), so that a real server maintains the
 *          same indexes in both.
 *
 *  Every run writes to a database of its own, dlq_bench_<tag>_<run>.
 *  After the run each stream's collection must hold exactly the run's
 *  events of that stream and _fw_dlq_index one entry per event (counted
 *  in the test server's memory, or with the count command); then the
 *  database is dropped (unless keep).
 *
 *  Fairness on a small, shared machine: an uncounted warm-up raw run
 *  first, then (i) and (ii) run repeat times each, alternating which goes
 *  first; medians are compared. Ratio: sink / raw (target >= 0.80); also
 *  printed, from the first STATS on / raw (the sink's head start before
 *  dlqd answers PING left out).
 *
 *  The sink's settings come from the benchmark (uri, database) and
 *  settings; the raw writer follows settings' collection_prefix,
 *  batch.max_events and mongoc (the URI options, added to its URI), so
 *  both write alike.
 */
#ifndef DLQ_BENCH_MONGO_H
#define DLQ_BENCH_MONGO_H

#include "bench_events.h"
#include "bench_sink.h"

#include <stdbool.h>
#include <stddef.h>

#define BENCH_MONGO_TARGET_RAW      0.80    /* sink / raw, at least */

typedef struct {
    const char       *uri;          /* a MongoDB's mongodb:// URI; NULL: run the test server */
    const char       *settings;     /* more settings of the sink's section (libconfig), or NULL */
    bench_sink_dlqd_t dlqd;         /* the dlqds of (i) and the PUT load they take */
    size_t            repeat;       /* runs of (i) and of (ii), at most 100; 0 means 1 */
    bool              keep;         /* keep each run's database (on a real MongoDB) */
} bench_mongo_options_t;

/* (i) and (ii), medians */
typedef bench_sink_result_t bench_mongo_result_t;

/* Start the test server (no uri), run (i) and (ii) with dlqd's
 * directories under dir, printing a line each and the ratio, and stop the
 * server. False when something failed (messages on stderr); what cannot
 * run after a failure is skipped. */
bool bench_mongo_run (const bench_mongo_options_t *options, const char *dir,
                      const bench_events_t *events, bench_mongo_result_t *result);

#endif
