/*  metrics — GET /metrics: every figure of docs/metrics.md, gathered at
 *  scrape time. */
#include "metrics.h"

#include "delivery_health.h"
#include "dlq_alloc.h"
#include "dlq_prom.h"
#include "dlq_time.h"
#include "job_store.h"
#include "ledger_store.h"
#include "plugin_config.h"
#include "spool.h"
#include "verb_table.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#define JOBS_COUNTED_MAX 100000     /* replay jobs read per scrape, at most */

struct dlq_metrics {
    dlq_metrics_sources_t src;
    dlq_state_store_t    *state;    /* the daemon's state file: replay jobs, the delivery ledger */
};

dlq_metrics_t *
dlq_metrics_new (const dlq_metrics_sources_t *sources, char *err, size_t err_len)
{
    dlq_state_store_t *state = dlq_state_store_open (sources->config->data_dir, err, err_len);
    if (!state)
        return NULL;
    dlq_metrics_t *self = dlq_calloc (1, sizeof *self);
    self->src = *sources;
    self->state = state;
    return self;
}

void
dlq_metrics_destroy (dlq_metrics_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_state_store_destroy (&(*self_p)->state);
    free (*self_p);
    *self_p = NULL;
}

int64_t
dlq_metrics_free_bytes (const char *data_dir, int64_t *size_out)
{
    struct statvfs fs;
    if (statvfs (data_dir, &fs) != 0)
        return -1;
    if (size_out)
        *size_out = (int64_t) fs.f_blocks * (int64_t) fs.f_frsize;
    return (int64_t) fs.f_bavail * (int64_t) fs.f_frsize;
}

/* Bytes on disk of the regular files in dir and, up to max_depth levels
 * down, in the directories below it. */
static uint64_t
tree_bytes (const char *dir, int max_depth)
{
    DIR *d = opendir (dir);
    if (!d)
        return 0;
    uint64_t total = 0;
    char path [4400];
    for (struct dirent *e; (e = readdir (d)); ) {
        if (!strcmp (e->d_name, ".") || !strcmp (e->d_name, ".."))
            continue;
        snprintf (path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat (path, &st) != 0)
            continue;
        if (S_ISREG (st.st_mode))
            total += (uint64_t) st.st_blocks * 512;
        else
        if (S_ISDIR (st.st_mode) && max_depth > 0)
            total += tree_bytes (path, max_depth - 1);
    }
    closedir (d);
    return total;
}

/* One family with a single sample without labels. */
static void
single (dlq_buf_t *out, const char *name, const char *type, const char *help, double value)
{
    dlq_prom_family (out, name, type, help);
    dlq_prom_sample (out, name, NULL, 0, value);
}

static void
format_requests (dlq_buf_t *out, const dlq_counters_reading_t *c)
{
    dlq_prom_family (out, "dlqd_requests_total", "counter",
                     "Requests answered, by verb (UNKNOWN: no known verb) and reply code (OK or the ERR code).");
    for (int v = 0; v < DLQ_VERB_SLOTS; v++)
        for (int code = 0; code < DLQ_CODE_COUNT; code++) {
            if (!c->replies [v][code])
                continue;
            dlq_prom_label_t labels [] = {
                { "verb", v == DLQ_VERB_UNKNOWN ? "UNKNOWN" : dlq_verb_table_get ((dlq_verb_t) v)->name },
                { "code", dlq_code_name ((dlq_code_t) code) } };
            dlq_prom_sample (out, "dlqd_requests_total", labels, 2, (double) c->replies [v][code]);
        }
    uint64_t ckpt = c->replies [DLQ_VERB_CKPT_SAVE][DLQ_OK] + c->replies [DLQ_VERB_CKPT_SEEN][DLQ_OK]
                  + c->replies [DLQ_VERB_CKPT_PROCESSED][DLQ_OK] + c->replies [DLQ_VERB_CKPT_DELETE][DLQ_OK];
    single (out, "dlqd_checkpoint_writes_total", "counter",
            "Checkpoint writes acknowledged (CKPT.SAVE, CKPT.SEEN, CKPT.PROCESSED, CKPT.DELETE).", (double) ckpt);
}

static void
format_gateway (dlq_buf_t *out, const dlq_counters_reading_t *c)
{
    dlq_prom_family (out, "dlqd_build_info", "gauge", "Always 1; the version of this dlqd in its label.");
    dlq_prom_label_t version = { "version", DLQD_VERSION };
    dlq_prom_sample (out, "dlqd_build_info", &version, 1, 1);
    single (out, "dlqd_uptime_seconds", "gauge", "Seconds since the gateway started.", (double) c->uptime_seconds);
    format_requests (out, c);
    single (out, "dlqd_events_accepted_total", "counter", "PUTs stored for the first time.", (double) c->accepted);
    single (out, "dlqd_events_duplicate_total", "counter", "PUTs acknowledged as duplicates of a stored event.",
            (double) c->duplicate);
    single (out, "dlqd_requests_rejected_total", "counter", "Requests refused for bad input (frames, JSON, "
            "UTF-8, size, parameters).", (double) c->rejected);
    single (out, "dlqd_replies_dropped_total", "counter", "Replies not sent: the client's queue was full or it "
            "had gone.", (double) c->replies_dropped);
    single (out, "dlqd_connected_clients", "gauge", "Client connections open now.", (double) c->connections);
    dlq_prom_family (out, "dlqd_ack_latency_seconds", "histogram",
                     "Seconds from a PUT's arrival to its acknowledgement (after the sync that covers it).");
    dlq_prom_histogram (out, "dlqd_ack_latency_seconds", NULL, 0, &c->ack_latency);
    dlq_prom_family (out, "dlqd_group_commit_writes", "histogram", "Writes (PUTs and checkpoint writes) per "
                     "group commit.");
    dlq_prom_histogram (out, "dlqd_group_commit_writes", NULL, 0, &c->commit_writes);
    dlq_prom_family (out, "dlqd_group_commit_duration_seconds", "histogram",
                     "Seconds one group commit took: its append to the log and the sync.");
    dlq_prom_histogram (out, "dlqd_group_commit_duration_seconds", NULL, 0, &c->commit_seconds);
    dlq_prom_family (out, "dlqd_auth_refusals_total", "counter", "Refusals: CURVE handshakes by a key not in the "
                     "clients directory (unknown_key) or of the replay endpoint by a key that may not receive "
                     "(replay_denied), and requests answered FORBIDDEN (forbidden).");
    const struct { const char *reason; uint64_t n; } refusals [] = {
        { "unknown_key", c->handshakes_unknown_key }, { "replay_denied", c->handshakes_replay_denied },
        { "forbidden", c->forbidden } };
    for (size_t i = 0; i < 3; i++) {
        dlq_prom_label_t reason = { "reason", refusals [i].reason };
        dlq_prom_sample (out, "dlqd_auth_refusals_total", &reason, 1, (double) refusals [i].n);
    }
}

/* The log (the spool), the store beside it and the disk they are on. */
static void
format_storage (dlq_metrics_t *self, dlq_buf_t *out)
{
    dlq_spool_stats_t st;
    dlq_spool_stats (dlq_committer_spool (self->src.committer), &st);
    char spool_dir [4200];
    snprintf (spool_dir, sizeof spool_dir, "%s/spool", self->src.config->data_dir);
    single (out, "dlqd_log_bytes", "gauge", "Bytes of the log's records, in all its segments.", (double) st.bytes);
    single (out, "dlqd_log_segments", "gauge", "Segment files of the log.", (double) st.segments);
    single (out, "dlqd_log_disk_bytes", "gauge", "Bytes on disk of the log's directory: its segments with their "
            "preallocated room, and the zeroed spare segments.", (double) tree_bytes (spool_dir, 0));
    single (out, "dlqd_store_bytes", "gauge", "Bytes on disk of the SQLite files in data_dir: the embedded "
            "store's and the daemon's state file (databases, write-ahead logs, shared memory).",
            (double) tree_bytes (self->src.config->data_dir, 0));
    int64_t size = 0, free_bytes = dlq_metrics_free_bytes (self->src.config->data_dir, &size);
    single (out, "dlqd_data_dir_free_bytes", "gauge", "Bytes free to dlqd on the filesystem of data_dir.",
            (double) (free_bytes < 0 ? 0 : free_bytes));
    single (out, "dlqd_data_dir_size_bytes", "gauge", "Size in bytes of the filesystem of data_dir.",
            (double) (free_bytes < 0 ? 0 : size));
    dlq_indexer_stats_t ix;
    dlq_indexer_stats (self->src.indexer, &ix);
    uint64_t appended = dlq_committer_events (self->src.committer);
    single (out, "dlqd_index_lag_events", "gauge", "Events acknowledged and not yet in the embedded store's "
            "index.", (double) (appended > ix.events ? appended - ix.events : 0));
    single (out, "dlqd_index_lag_bytes", "gauge", "Bytes of the log not yet indexed.", (double) ix.behind_bytes);
    single (out, "dlqd_index_lag_seconds", "gauge", "Age of the oldest record of the log not yet indexed "
            "(0 when none).", (double) ix.lag_ms / 1000.0);
}

static const char *const circuit_states [] = { "closed", "open", "half-open" };

/* What a scrape shows of one sink, read once: its live state and its
 * ledger row. */
typedef struct {
    const char                    *name;
    dlq_delivery_health_reading_t  health;
    int64_t                        backlog, retrying;   /* past the cursor, waiting for a retry */
    dlq_sink_state_t               ledger;
    int64_t                        failed_now;          /* rows failed for good */
} sink_figures_t;

static sink_figures_t *
read_sinks (dlq_metrics_t *self, size_t n)
{
    sink_figures_t *f = dlq_calloc (n ? n : 1, sizeof *f);
    uint64_t newest = dlq_committer_ordinal (self->src.committer);
    for (size_t i = 0; i < n; i++) {
        dlq_delivery_health_t *health = dlq_chain_health (self->src.sinks, i);
        f [i].name = dlq_plugin_config_name (self->src.config->sinks [i]);
        dlq_delivery_health_read (health, &f [i].health);
        dlq_delivery_health_queue (health, newest, &f [i].backlog, &f [i].retrying);
        dlq_ledger_store_sink_state (self->state, f [i].name, &f [i].ledger);
        int64_t failed = dlq_ledger_store_count_state (self->state, f [i].name, DLQ_DELIVERY_FAILED);
        f [i].failed_now = failed > 0 ? failed : 0;
    }
    return f;
}

/* One family of a sample per sink, the value of each from figures. */
static void
per_sink (dlq_buf_t *out, const char *name, const char *type, const char *help, const sink_figures_t *f, size_t n,
          double (*value) (const sink_figures_t *, int64_t now, uint64_t tip), int64_t now, uint64_t tip)
{
    dlq_prom_family (out, name, type, help);
    for (size_t i = 0; i < n; i++) {
        dlq_prom_label_t sink = { "sink", f [i].name };
        dlq_prom_sample (out, name, &sink, 1, value (&f [i], now, tip));
    }
}

static double v_backlog (const sink_figures_t *f, int64_t now, uint64_t tip) { (void) now, (void) tip; return (double) (f->backlog + f->retrying); }
static double v_retrying (const sink_figures_t *f, int64_t now, uint64_t tip) { (void) now, (void) tip; return (double) f->retrying; }
static double v_failed_now (const sink_figures_t *f, int64_t now, uint64_t tip) { (void) now, (void) tip; return (double) f->failed_now; }
static double v_delivered (const sink_figures_t *f, int64_t now, uint64_t tip) { (void) now, (void) tip; return (double) f->ledger.delivered; }
static double v_retried (const sink_figures_t *f, int64_t now, uint64_t tip) { (void) now, (void) tip; return (double) f->health.retried; }
static double v_failed (const sink_figures_t *f, int64_t now, uint64_t tip) { (void) now, (void) tip; return (double) f->ledger.failed; }
static double v_redelivered (const sink_figures_t *f, int64_t now, uint64_t tip) { (void) now, (void) tip; return (double) f->ledger.redelivered; }

static double
v_backlog_bytes (const sink_figures_t *f, int64_t now, uint64_t tip)
{
    (void) now;
    bool waiting = f->backlog + f->retrying > 0;
    return waiting && tip > f->health.held_from ? (double) (tip - f->health.held_from) : 0;
}

static double
v_oldest_age (const sink_figures_t *f, int64_t now, uint64_t tip)
{
    (void) tip;
    int64_t at = f->health.oldest_at_ms;
    bool waiting = f->backlog + f->retrying > 0;
    return waiting && at != DLQ_TIME_NONE && at <= now ? (double) (now - at) / 1000.0 : 0;
}

static void
format_sinks (dlq_metrics_t *self, dlq_buf_t *out)
{
    size_t n = self->src.config->sink_count;
    sink_figures_t *f = read_sinks (self, n);
    dlq_spool_stats_t st;
    dlq_spool_stats (dlq_committer_spool (self->src.committer), &st);
    int64_t now = dlq_time_now_ms ();
    per_sink (out, "dlqd_sink_delivered_total", "counter", "Events the sink took.", f, n, v_delivered, now, st.tip);
    per_sink (out, "dlqd_sink_retried_total", "counter", "Deliveries the sink answered RETRY (or that timed out) and "
              "that were queued for another attempt.", f, n, v_retried, now, st.tip);
    per_sink (out, "dlqd_sink_failed_total", "counter", "Failures for good at the sink (attempts spent, or a FAIL "
              "outcome); an event redelivered and failing again counts again.", f, n, v_failed, now, st.tip);
    per_sink (out, "dlqd_sink_redelivered_total", "counter", "Events delivered again after a restart: they may have "
              "reached the sink before it (a REDELIVER counts in delivered, not here).", f, n, v_redelivered, now,
              st.tip);
    dlq_prom_family (out, "dlqd_sink_delivery_duration_seconds", "histogram", "Seconds one call of the sink's "
                     "deliver took (a batch of events).");
    for (size_t i = 0; i < n; i++) {
        dlq_prom_label_t sink = { "sink", f [i].name };
        dlq_prom_histogram (out, "dlqd_sink_delivery_duration_seconds", &sink, 1, &f [i].health.delivery_seconds);
    }
    per_sink (out, "dlqd_sink_backlog_events", "gauge", "Events the sink has not delivered yet: past its cursor or "
              "waiting for a retry.", f, n, v_backlog, now, st.tip);
    per_sink (out, "dlqd_sink_retrying_events", "gauge", "Of those, the events waiting for a retry.", f, n,
              v_retrying, now, st.tip);
    per_sink (out, "dlqd_sink_backlog_bytes", "gauge", "Bytes of the log the sink still needs (from its oldest event "
              "not handled to the tip).", f, n, v_backlog_bytes, now, st.tip);
    per_sink (out, "dlqd_sink_oldest_undelivered_age_seconds", "gauge", "Age of the oldest event the sink has not "
              "handled yet (since it was accepted); 0 when none waits.", f, n, v_oldest_age, now, st.tip);
    per_sink (out, "dlqd_sink_failed_events", "gauge", "Events that failed for good at the sink and were not "
              "redelivered (REDELIVER takes them).", f, n, v_failed_now, now, st.tip);
    dlq_prom_family (out, "dlqd_sink_circuit_state", "gauge", "1 for the state the sink's circuit breaker is "
                     "in (closed, open, half-open), 0 for the others.");
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < 3; c++) {
            dlq_prom_label_t labels [] = { { "sink", f [i].name }, { "state", circuit_states [c] } };
            dlq_prom_sample (out, "dlqd_sink_circuit_state", labels, 2, strcmp (f [i].health.circuit,
                                                                                  circuit_states [c]) == 0);
        }
    free (f);
}

static void
format_replay (dlq_metrics_t *self, dlq_buf_t *out)
{
    dlq_replay_job_t *jobs = NULL;
    size_t count = 0;
    uint64_t by_state [DLQ_JOB_DONE + 1] = { 0 }, replayed = 0;
    if (dlq_job_store_list (self->state, false, JOBS_COUNTED_MAX, &jobs, &count) == DLQ_STORE_OK)
        for (size_t i = 0; i < count; i++) {
            if ((unsigned) jobs [i].state <= DLQ_JOB_DONE)
                by_state [jobs [i].state]++;
            replayed += jobs [i].replayed > 0 ? (uint64_t) jobs [i].replayed : 0;
            dlq_replay_job_clear (&jobs [i]);
        }
    free (jobs);
    dlq_prom_family (out, "dlqd_replay_jobs", "gauge", "Replay jobs, by state.");
    for (int s = DLQ_JOB_RUNNING; s <= DLQ_JOB_DONE; s++) {
        dlq_prom_label_t state = { "state", dlq_job_state_name ((dlq_job_state_t) s) };
        dlq_prom_sample (out, "dlqd_replay_jobs", &state, 1, (double) by_state [s]);
    }
    single (out, "dlqd_replay_events_replayed_total", "counter", "Events sent back by replay jobs.",
            (double) replayed);
}

void
dlq_metrics_format (dlq_metrics_t *self, dlq_buf_t *out)
{
    dlq_counters_reading_t c;
    dlq_counters_read (self->src.counters, &c);
    format_gateway (out, &c);
    dlq_buf_t why = DLQ_BUF_INIT;
    dlq_readiness_reason_t ready = dlq_readiness_check (self->src.readiness, &why);
    dlq_buf_free (&why);
    dlq_prom_family (out, "dlqd_ready", "gauge", "1 when /readyz answers 200; 0 with the reason it names "
                     "(starting, stopping, log, disk) in the label.");
    dlq_prom_label_t reason = { "reason", dlq_readiness_reason_name (ready) };
    dlq_prom_sample (out, "dlqd_ready", &reason, 1, ready == DLQ_READY);
    format_storage (self, out);
    format_sinks (self, out);
    format_replay (self, out);
}
