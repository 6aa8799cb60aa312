/*  dlq_sink.h — the sink plugin ABI, version 1.
 *
 *  A sink is a shared object that exports ONE symbol, DLQ_SINK_ENTRY
 *  ("dlq_sink_entry"): a `const dlq_sink_ops_t` whose abi_version and
 *  struct_size the gateway checks before it touches anything else. Built-in
 *  sinks (noop, embedded, ...) are built and loaded exactly like third-party
 *  ones. A plugin never links the daemon's symbols: everything it needs from
 *  the host (logging, counters, clock, its configuration, output buffers)
 *  comes through the dlq_sink_host_t table it is given at init.
 *
 *  Life of a sink instance (one per dispatcher thread, and one per query
 *  thread for a sink that serves queries):
 *      init (host, config, mode, &instance, err)   on the thread that uses it
 *      deliver (instance, events, count, outcomes)  repeatedly, DELIVER mode
 *      get / list / stats / sweep                   repeatedly, QUERY mode
 *      destroy (instance)
 *  The gateway owns retry: a sink classifies each event of a batch as OK,
 *  RETRY (transient: connection lost, timeout, broker NACK) or FAIL
 *  (permanent: the backend rejects this event as invalid) and returns; it
 *  never sleeps to retry by itself. Delivery is at-least-once: a sink should
 *  be idempotent on the event id where its backend allows.
 *
 *  This header is self-contained (C99, no dlqd internals) and is installed
 *  with the pkg-config module dlqd-sink.
 */
#ifndef DLQ_SINK_H
#define DLQ_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DLQ_SINK_ABI_VERSION 1
#define DLQ_SINK_ENTRY "dlq_sink_entry"
#define DLQ_SINK_TIME_NONE INT64_MIN            /* an absent timestamp */

#if defined(__GNUC__)
#   define DLQ_SINK_EXPORT __attribute__ ((visibility ("default")))
#else
#   define DLQ_SINK_EXPORT
#endif

/* What a sink says about one event of a batch. */
typedef enum {
    DLQ_SINK_OK = 0,            /* delivered (or already there: idempotent) */
    DLQ_SINK_RETRY,             /* transient failure: the gateway retries later */
    DLQ_SINK_FAIL               /* permanent failure: never retried automatically */
} dlq_sink_result_t;

/* What init and the store calls return. */
typedef enum {
    DLQ_SINK_STATUS_OK = 0,
    DLQ_SINK_STATUS_NOT_FOUND,  /* store: no such (unexpired) event */
    DLQ_SINK_STATUS_BAD_CURSOR, /* store: a LIST cursor this store did not issue */
    DLQ_SINK_STATUS_ERROR,      /* anything else; the message says what */
    DLQ_SINK_STATUS_LOCKED      /* workbench claim: another instance holds the pass */
} dlq_sink_status_t;

typedef enum {
    DLQ_SINK_MODE_DELIVER,      /* a dispatcher's instance: deliver is called */
    DLQ_SINK_MODE_QUERY,        /* a query thread's instance: the store calls are */
    DLQ_SINK_MODE_INDEX         /* the one writer of a store fed from the log (log calls, below;
                                 * added after the checkpoint calls) */
} dlq_sink_mode_t;

/* ---- configuration schema ---------------------------------------------- */

typedef enum {
    DLQ_SINK_SETTING_INT,
    DLQ_SINK_SETTING_BOOL,
    DLQ_SINK_SETTING_STRING,
    DLQ_SINK_SETTING_STRING_LIST,   /* ["a", "b"]: e.g. driver options "key=value" */
    /* Added after the first release of version 1. Read it with
     * host->config_float; a gateway without DLQ_SINK_HOST_HAS (host,
     * config_float) predates it (it checks such a setting as a
     * STRING_LIST): fail init there. */
    DLQ_SINK_SETTING_FLOAT          /* a number, integer or not (2, 2.5); bounds: min / max */
} dlq_sink_setting_type_t;

/* One setting of the sink's config section. The array ends with an entry
 * whose name is NULL. The gateway validates the config against it (unknown
 * keys, wrong types and values out of [min, max] are config errors) before
 * the plugin sees anything. */
typedef struct {
    const char              *name;
    dlq_sink_setting_type_t  type;
    const char              *default_value; /* text form ("5672", "true", "x", "2.5"), NULL = none */
    int64_t                  min;           /* INT, FLOAT: value bounds; STRING: length bounds */
    int64_t                  max;
    bool                     per_stream;    /* may be overridden per stream */
    const char              *description;   /* one line, for errors and docs */
} dlq_sink_setting_t;

/* ---- events ---------------------------------------------------------------- */

/* One event as handed to deliver. Every pointer is valid during the call. */
typedef struct {
    const char *id;                 /* lowercase UUID */
    const char *stream_name;
    const char *operation_type;     /* NULL when absent */
    const char *status;
    const char *document_key;       /* extended JSON text, NULL when absent */
    int32_t     attempts;           /* the worker's attempts (FailedEvent.attempts) */
    int64_t     first_attempt_at;   /* ms since epoch, or DLQ_SINK_TIME_NONE */
    int64_t     created_at;
    int64_t     expires_at;         /* DLQ_SINK_TIME_NONE: kept forever */
    int32_t     retention_days;     /* the stream policy's; 0 = forever */
    const char *json;               /* the canonical JSON body: forward it as is */
    size_t      json_len;
    uint32_t    delivery_attempt;   /* 1 on the first try to this sink, 2 on the first retry, ... */
} dlq_sink_event_t;
/* The fields above are the body's own values (the body is the reference):
 * a sink that needs another field (error.type, ...) reads it from json. */

/* A sink's verdict on one event, filled in by deliver. The gateway zeroes
 * the array (all OK, empty messages) before the call. */
typedef struct {
    dlq_sink_result_t result;
    char              message [240];    /* why, for RETRY and FAIL (the backend's words) */
} dlq_sink_outcome_t;

/* ---- host services ------------------------------------------------------ */

typedef struct dlq_sink_config dlq_sink_config_t;  /* the sink's resolved settings */
typedef struct dlq_sink_buf dlq_sink_buf_t;        /* an output buffer of the host */

typedef enum {
    DLQ_SINK_LOG_DEBUG,
    DLQ_SINK_LOG_INFO,
    DLQ_SINK_LOG_WARN,
    DLQ_SINK_LOG_ERROR
} dlq_sink_log_level_t;

/* What the host offers a plugin. Check abi_version / struct_size before
 * using members added after version 1. All functions are thread-safe. */
typedef struct {
    uint32_t abi_version;
    uint32_t struct_size;
    /* Log one line, prefixed with the sink instance's name. */
    void        (*log) (const dlq_sink_config_t *config, dlq_sink_log_level_t level,
                        const char *fmt, ...) __attribute__ ((format (printf, 3, 4)));
    /* Add n to the sink's own counter name (shown under the sink in STATS). */
    void        (*count) (const dlq_sink_config_t *config, const char *name, uint64_t n);
    /* Wall clock, ms since the epoch; monotonic clock in ms. */
    int64_t     (*now_ms) (void);
    int64_t     (*mono_ms) (void);
    /* The instance name of the sink ("rabbit"), as in the config. */
    const char *(*name) (const dlq_sink_config_t *config);
    /* A setting's value for stream (NULL: the sink section's value). The
     * precedence is: the stream's override > the sink section > the schema's
     * default. The name must be in the schema with that type. STRING gives
     * NULL when unset with no default. Strings live as long as the config. */
    int64_t     (*config_int) (const dlq_sink_config_t *config, const char *stream, const char *name);
    bool        (*config_bool) (const dlq_sink_config_t *config, const char *stream, const char *name);
    const char *(*config_string) (const dlq_sink_config_t *config, const char *stream, const char *name);
    size_t      (*config_list) (const dlq_sink_config_t *config, const char *stream, const char *name,
                                const char *const **items);
    /* Append len bytes to a host buffer (store calls write their JSON there). */
    void        (*append) (dlq_sink_buf_t *buf, const char *data, size_t len);
    /* Added after the first release of version 1: use it only when
     * struct_size covers it (DLQ_SINK_HOST_HAS (host, streams)). The streams
     * listed in the config whose chain names this sink, in the config's
     * order (e.g. to prepare their collections at init; events of other
     * streams may come too, via the default chain). *names lives as long
     * as the config. */
    size_t      (*streams) (const dlq_sink_config_t *config, const char *const **names);
    /* Added after the first release of version 1 (DLQ_SINK_HOST_HAS (host,
     * config_float)): a DLQ_SINK_SETTING_FLOAT setting's value, as
     * config_int gives an INT's. */
    double      (*config_float) (const dlq_sink_config_t *config, const char *stream, const char *name);
} dlq_sink_host_t;

/* Does this host table have member (added after version 1's first release)? */
#define DLQ_SINK_HOST_HAS(host, member) \
    ((host)->struct_size >= offsetof (dlq_sink_host_t, member) + sizeof ((host)->member))

/* ---- store calls (sinks that can serve queries) -------------------------- */

/* Output shapes are those of the wire protocol (README): get writes the
 * canonical event JSON; list writes a JSON array of canonical events,
 * newest first (createdAt desc; ties in any stable order), and the next
 * page's opaque cursor (nothing when it is the last page); stats writes a
 * JSON object {"stream": count, ...}. The output buffers are empty on entry;
 * write to them only on DLQ_SINK_STATUS_OK. An event is expired when
 * expires_at <= now_ms. The gateway calls these on instances opened in
 * QUERY mode, one per query thread. */
typedef struct {
    dlq_sink_status_t (*get) (void *instance, const char *id, int64_t now_ms, dlq_sink_buf_t *event_out);
    dlq_sink_status_t (*list) (void *instance, const char *stream, size_t limit, const char *cursor,
                               int64_t now_ms, dlq_sink_buf_t *events_out, dlq_sink_buf_t *cursor_out);
    dlq_sink_status_t (*stats) (void *instance, dlq_sink_buf_t *streams_out,
                                int64_t *events_out, int64_t *bytes_out);
    /* Optional (NULL: the backend expires events itself, e.g. a TTL index).
     * Delete up to max_rows expired events; returns how many, or -1. It
     * writes, so a QUERY instance may need a connection that can. */
    int64_t           (*sweep) (void *instance, int64_t now_ms, int64_t max_rows);
    /* Optional: why the last call on this instance returned
     * DLQ_SINK_STATUS_ERROR (or -1), for the gateway's log and ERR reply. */
    const char *      (*last_error) (void *instance);
} dlq_sink_store_ops_t;

/* ---- workbench calls (added after version 1's first release) -------------
 *
 * A store that implements these answers the failure workbench on a sink
 * primary: filtered LIST / COUNT / GROUPS, the mutable replay state of an
 * event (RESOLVE, FAIL, replay lineage, the loop guard) and the scheduled
 * replay's claim. Same threading and output rules as the store calls. */

/* How a workbench call changes an event's replay state. */
typedef enum {
    DLQ_SINK_MARK_RESOLVED = 0, /* status SUCCEEDED (a worker processed its replay) */
    DLQ_SINK_MARK_FAILED,       /* status PENDING, retry_count + 1, retry_after = the given time */
    DLQ_SINK_MARK_REPLAYED,     /* replay_count + 1, retry_after = the given time (a lease) */
    DLQ_SINK_MARK_QUARANTINED,  /* status QUARANTINED (the loop guard) */
    DLQ_SINK_MARK_RELEASED      /* retry_after = the given time, nothing else (a claimed event that
                                 * could not be sent is due again; added after the first four) */
} dlq_sink_mark_t;

/* An event's replay state. The body's "status" member follows status (GET
 * and LIST show it); the other members live beside the body. */
typedef struct {
    char    status [40];        /* PENDING, SUCCEEDED, QUARANTINED, or the worker's own (at most 32) */
    int32_t retry_count;        /* FAILs reported */
    int32_t replay_count;       /* times replayed */
    int64_t retry_after;        /* ms since epoch: not due before (createdAt until set) */
} dlq_sink_event_state_t;

typedef struct {
    uint32_t struct_size;       /* sizeof (dlq_sink_workbench_ops_t) */
    /* filter_json is a JSON object of the LIST filter members (README,
     * "Filters"), already validated by the gateway ("{}": every event).
     * Outputs as the LIST, COUNT and GROUPS replies' members (events and
     * nextCursor; count; groups). */
    dlq_sink_status_t (*query_list) (void *instance, const char *filter_json, size_t limit, const char *cursor,
                                     int64_t now_ms, dlq_sink_buf_t *events_out, dlq_sink_buf_t *cursor_out);
    dlq_sink_status_t (*query_count) (void *instance, const char *filter_json, int64_t now_ms, int64_t *count_out);
    dlq_sink_status_t (*query_groups) (void *instance, const char *filter_json, size_t limit, int64_t now_ms,
                                       dlq_sink_buf_t *groups_out);
    /* The replay state of event id; NOT_FOUND when missing or expired. */
    dlq_sink_status_t (*state) (void *instance, const char *id, int64_t now_ms, dlq_sink_event_state_t *state_out);
    /* Change the state of event id as mark says (retry_after_ms is used by
     * FAILED and REPLAYED) and return the new state; NOT_FOUND when missing
     * or expired. */
    dlq_sink_status_t (*mark) (void *instance, const char *id, dlq_sink_mark_t mark, int64_t now_ms,
                               int64_t retry_after_ms, dlq_sink_event_state_t *state_out);
    /* One scheduled replay pass of stream, for owner (an instance's name).
     * If another owner took the stream's pass less than pass_ms ago, return
     * DLQ_SINK_STATUS_LOCKED and change nothing; else take the pass (a lock
     * held in the store, e.g. a lock row) and lease up to batch_size events
     * of the stream with status PENDING, retry_count < max_retries and
     * retry_after <= now_ms, oldest first (createdAt asc): set their
     * retry_after to lease_until_ms in the same transaction, claiming the
     * rows so that a concurrent claimer skips them (FOR UPDATE SKIP
     * LOCKED). events_out: a JSON array [{"replayCount":n,"event":{...}},
     * ...] of the leased events (the canonical bodies), oldest first. */
    dlq_sink_status_t (*claim) (void *instance, const char *stream, const char *owner, int64_t pass_ms,
                                int32_t max_retries, size_t batch_size, int64_t now_ms,
                                int64_t lease_until_ms, dlq_sink_buf_t *events_out);
} dlq_sink_workbench_ops_t;

/* ---- checkpoint calls (added after the workbench calls) -------------------
 *
 * A store that implements these keeps the workers' stream positions
 * (FlowWarden's CheckpointStore contract) when it is the primary: CKPT.*
 * verbs. */

/* What a checkpoint write changes. */
typedef enum {
    DLQ_SINK_CKPT_SAVE = 0,     /* every field (absent ones become absent) */
    DLQ_SINK_CKPT_SEEN,         /* last_seen_token and last_seen_at only */
    DLQ_SINK_CKPT_PROCESSED     /* last_processed_token and last_processed_at only */
} dlq_sink_ckpt_write_t;

/* One checkpoint record. Tokens and metadata are compact JSON object text
 * (a token is a BSON document in MongoDB extended JSON); NULL / NONE when
 * absent. */
typedef struct {
    const char *stream_name;
    const char *instance_id;
    const char *last_seen_token;
    int64_t     last_seen_at;           /* ms since epoch, or DLQ_SINK_TIME_NONE */
    const char *last_processed_token;
    int64_t     last_processed_at;
    const char *metadata;
    int64_t     updated_at;             /* set by the store on every write */
} dlq_sink_checkpoint_t;

typedef struct {
    uint32_t struct_size;       /* sizeof (dlq_sink_checkpoint_ops_t) */
    /* Upsert ckpt->stream_name as kind says (SEEN / PROCESSED must not
     * touch any other field, also when they interleave: one targeted write,
     * no read-modify-write; a missing record is created with the other
     * fields absent), updated_at = now_ms; durable on return. record_out:
     * the record after the write, as dlq_checkpoint_format (core) writes
     * it. */
    dlq_sink_status_t (*write) (void *instance, dlq_sink_ckpt_write_t kind, const dlq_sink_checkpoint_t *ckpt,
                                int64_t now_ms, dlq_sink_buf_t *record_out);
    /* The record of stream into record_out; NOT_FOUND when there is none. */
    dlq_sink_status_t (*get) (void *instance, const char *stream, dlq_sink_buf_t *record_out);
    /* Records whose stream name starts with prefix ("" : all), in byte
     * order of the name, after cursor (NULL: from the first), at most
     * limit: records_out a JSON array, cursor_out the next page's cursor
     * (nothing on the last page). */
    dlq_sink_status_t (*list) (void *instance, const char *prefix, size_t limit, const char *cursor,
                               dlq_sink_buf_t *records_out, dlq_sink_buf_t *cursor_out);
    /* Delete the record of stream; *deleted_out false when there was none
     * (still OK). */
    dlq_sink_status_t (*remove) (void *instance, const char *stream, bool *deleted_out);
} dlq_sink_checkpoint_ops_t;

/* ---- log calls (added after the checkpoint calls) ------------------------
 *
 * A store that implements these is fed from the gateway's log itself, not
 * through deliver: the gateway reads the log behind the ack and hands the
 * store its records in order, in large transactions, and the store keeps
 * the log position it has indexed up to in the same transactions (so it
 * need not wait for the disk on each: after a crash the gateway reads the
 * records past that position again). Such a store can be the primary
 * ("embedded"): read-your-writes holds from the log, and the gateway loads
 * its duplicate check and checkpoints from it at start.
 *
 * The records are the log's own, in the record formats of the gateway the
 * store was built with (event, checkpoint and mark records: core/
 * event_record.h, checkpoint_record.h, mark_record.h); log_format says
 * which, and the gateway refuses a store whose log_format is not its
 * DLQ_SINK_LOG_FORMAT. So only a store built with the gateway (the
 * built-in "embedded") can be fed this way; a third-party store is a sink.
 *
 * Threads: one INDEX instance (the indexer's thread) makes every write;
 * QUERY instances (any number, each on one thread) read. */
#define DLQ_SINK_LOG_FORMAT 1

/* A log record's kind. */
typedef enum {
    DLQ_SINK_RECORD_EVENT = 1,      /* an acknowledged event */
    DLQ_SINK_RECORD_CHECKPOINT = 2, /* a checkpoint write (a SAVE of the whole record, or a DELETE) */
    DLQ_SINK_RECORD_MARK = 3        /* a change of an event's replay state (RESOLVE, FAIL, a replay's) */
} dlq_sink_record_kind_t;

/* One log record handed to index. For a MARK, index fills status (OK, or
 * NOT_FOUND: the event is missing or expired at the mark's time) and, when
 * OK, state (what the mark left). */
typedef struct {
    uint64_t                position;   /* in the log: an event is stored with it as its seq */
    dlq_sink_record_kind_t  kind;
    const void             *payload;
    size_t                  length;
    dlq_sink_status_t       status;     /* out, MARK */
    dlq_sink_event_state_t  state;      /* out, MARK */
} dlq_sink_record_t;

/* Called per stored event by each_id (expires_at: DLQ_SINK_TIME_NONE when
 * kept forever). */
typedef void (dlq_sink_id_fn) (const char *id, size_t len, int64_t seq, int64_t expires_at, void *arg);
/* Called per deleted event by sweep_each. */
typedef void (dlq_sink_swept_fn) (const char *id, size_t len, int64_t seq, void *arg);
/* Called per checkpoint by each_checkpoint. */
typedef void (dlq_sink_checkpoint_fn) (const dlq_sink_checkpoint_t *record, void *arg);
/* Called per event by read_after; the event is valid during the call (its
 * members as deliver gets them; delivery_attempt 0). */
typedef void (dlq_sink_archive_fn) (int64_t seq, const dlq_sink_event_t *event, void *arg);

typedef struct {
    uint32_t struct_size;       /* sizeof (dlq_sink_log_ops_t) */
    uint32_t log_format;        /* DLQ_SINK_LOG_FORMAT of the store's build */

    /* INDEX mode. The log position indexed up to: *indexed_out false when
     * the store never indexed one (a new store, or one from before the log). */
    dlq_sink_status_t (*position) (void *instance, uint64_t *position_out, bool *indexed_out);
    /* In ONE transaction: store the events (seq = position; an id already
     * stored is passed over), apply the checkpoint writes and then the marks
     * in log order (each MARK's status and state filled), and set the indexed
     * position to end; then commit. durable: the commit waits for the disk
     * (it and every commit before it); else it need not. *last_seq_out: the
     * highest seq stored after the commit. Nothing is kept on ERROR (the
     * gateway hands the same records again). A record that does not decode
     * is logged and passed over. */
    dlq_sink_status_t (*index) (void *instance, dlq_sink_record_t *records, size_t count, uint64_t end,
                                bool durable, int64_t *last_seq_out);
    /* Delete up to max_rows events expired at now_ms, calling fn for each;
     * how many, or -1. */
    int64_t           (*sweep_each) (void *instance, int64_t now_ms, int64_t max_rows, dlq_sink_swept_fn *fn,
                                     void *arg);

    /* Any mode. Every stored event (expired ones until swept), in seq
     * order; how many, or -1. */
    int64_t           (*each_id) (void *instance, dlq_sink_id_fn *fn, void *arg);
    /* How many events are stored (expired ones until swept), or -1. */
    int64_t           (*count) (void *instance);
    /* Every checkpoint record; how many, or -1. */
    int64_t           (*each_checkpoint) (void *instance, dlq_sink_checkpoint_fn *fn, void *arg);
    /* The highest seq ever stored (0 when none), or -1. */
    int64_t           (*last_seq) (void *instance);
    /* The seq of stored event id; NOT_FOUND when it holds none. */
    dlq_sink_status_t (*seq_of) (void *instance, const char *id, int64_t *seq_out);

    /* The archive: events by seq, for a sink whose backlog the log no
     * longer holds. read_after calls fn for up to limit stored events with
     * seq > after, in seq order (expired ones too); how many, or -1. */
    int64_t           (*read_after) (void *instance, int64_t after, size_t limit, dlq_sink_archive_fn *fn,
                                     void *arg);
    /* Stored events with after < seq < below, or -1. */
    int64_t           (*count_between) (void *instance, int64_t after, int64_t below);
} dlq_sink_log_ops_t;

/* ---- the entry ---------------------------------------------------------- */

typedef struct {
    uint32_t                    abi_version;    /* DLQ_SINK_ABI_VERSION */
    uint32_t                    struct_size;    /* sizeof (dlq_sink_ops_t) */
    const char                 *type;           /* "noop", "amqp", ... as in `type = "..."` */
    const char                 *description;    /* one line */
    const dlq_sink_setting_t   *settings;       /* the config schema */
    uint32_t                    max_batch;      /* most events per deliver (0: no limit) */

    /* Make an instance on the calling thread (connect, open files...). On
     * failure return DLQ_SINK_STATUS_ERROR with a message in err: the
     * gateway reports it (at startup: a startup error) and leaves nothing
     * of the instance behind. */
    dlq_sink_status_t (*init) (const dlq_sink_host_t *host, const dlq_sink_config_t *config,
                               dlq_sink_mode_t mode, void **instance, char *err, size_t err_len);

    /* Deliver count events (1 to max_batch), setting outcomes [i] for each.
     * deadline_mono_ms is when the gateway stops waiting (host->mono_ms
     * clock): use it for I/O timeouts; a call that returns after it has all
     * its events retried. NULL for a sink that only serves queries. */
    void              (*deliver) (void *instance, const dlq_sink_event_t *events, size_t count,
                                  dlq_sink_outcome_t *outcomes, int64_t deadline_mono_ms);

    /* Free an instance (close connections). */
    void              (*destroy) (void *instance);

    /* NULL unless the sink can be the primary store. */
    const dlq_sink_store_ops_t *store;

    /* Added after the first release of version 1 (the gateway reads it
     * only when struct_size covers it: DLQ_SINK_OPS_HAS (ops, check)).
     * Optional (NULL: nothing to check). Check the settings deeper than
     * the schema can (a driver option the driver does not know, a URI
     * that does not parse), WITHOUT connecting or keeping anything: the
     * gateway calls it for `dlqd --check-config` and before it starts,
     * and reports a failure as a config error naming the sink. */
    dlq_sink_status_t (*check) (const dlq_sink_host_t *host, const dlq_sink_config_t *config,
                                char *err, size_t err_len);

    /* Added after check (DLQ_SINK_OPS_HAS (ops, workbench)). NULL unless
     * the store serves the failure workbench (above); needs store. */
    const dlq_sink_workbench_ops_t *workbench;

    /* Added after workbench (DLQ_SINK_OPS_HAS (ops, checkpoints)). NULL
     * unless the store keeps checkpoints (above); needs store. */
    const dlq_sink_checkpoint_ops_t *checkpoints;

    /* Added after checkpoints (DLQ_SINK_OPS_HAS (ops, log)). NULL unless
     * the store is fed from the gateway's log (above); needs store. */
    const dlq_sink_log_ops_t   *log;
} dlq_sink_ops_t;

/* Does this plugin's ops table have member (added after version 1's first
 * release)? */
#define DLQ_SINK_OPS_HAS(ops, member) \
    ((ops)->struct_size >= offsetof (dlq_sink_ops_t, member) + sizeof ((ops)->member))

/* The size of version 1's first ops table: a plugin built then has this
 * struct_size, and is loaded as it is. */
#define DLQ_SINK_OPS_V1_SIZE (offsetof (dlq_sink_ops_t, store) + sizeof (void *))

#ifdef __cplusplus
}
#endif

#endif
