/*  metrics — the gateway's figures in the Prometheus text format, for GET
 *  /metrics (docs/metrics.md lists every family). A scrape reads the
 *  counters and histograms the hot paths keep (relaxed atomics: nothing is
 *  locked on the ack path), the sinks' live state, the spool's and the
 *  indexer's positions, and, through a read-only connection of its own to
 *  the embedded store, each sink's ledger figures and the replay jobs. One
 *  scrape at a time (the HTTP thread).
 */
#ifndef DLQ_METRICS_H
#define DLQ_METRICS_H

#include "chain.h"
#include "committer.h"
#include "counters.h"
#include "dlq_buf.h"
#include "dlqd_config.h"
#include "indexer.h"
#include "readiness.h"

#include <stddef.h>

typedef struct dlq_metrics dlq_metrics_t;

/* What a scrape reads; none of it is owned, all must outlive the metrics. */
typedef struct {
    const dlqd_config_t *config;
    dlq_counters_t      *counters;
    dlq_committer_t     *committer;
    dlq_indexer_t       *indexer;
    dlq_chain_t         *sinks;
    dlq_readiness_t     *readiness;
} dlq_metrics_sources_t;

/* Open the store reader. NULL with a message in err on failure. */
dlq_metrics_t *dlq_metrics_new (const dlq_metrics_sources_t *sources, char *err, size_t err_len);

/* Free; accepts NULL and NULLs the pointer. */
void dlq_metrics_destroy (dlq_metrics_t **self_p);

/* Append every metric family, now, to out. */
void dlq_metrics_format (dlq_metrics_t *self, dlq_buf_t *out);

/* Bytes free for an unprivileged writer on the filesystem of data_dir
 * (statvfs f_bavail), -1 when it cannot be read; with size_out (may be
 * NULL), the filesystem's size. */
int64_t dlq_metrics_free_bytes (const char *data_dir, int64_t *size_out);

#endif
