/*  dlqd_config — the daemon's configuration file (libconfig syntax):
 *  loading, validation against the settings table, defaults, and the
 *  configuration reference made from the table (docs/configuration.md,
 *  `dlqd --config-reference`).
 */
#ifndef DLQD_CONFIG_H
#define DLQD_CONFIG_H

#include "config_schema.h"
#include "dlq_buf.h"
#include "plugin_config.h"
#include "stream_policy.h"

#include <stddef.h>
#include <stdint.h>

typedef enum {
    DLQD_CONFIG_OK = 0,
    DLQD_CONFIG_ERR_IO,         /* the file cannot be read */
    DLQD_CONFIG_ERR_SYNTAX,     /* not libconfig syntax */
    DLQD_CONFIG_ERR_INVALID     /* unknown setting, wrong type, out of range */
} dlqd_config_result_t;

/* The replay settings (the top-level group replay). */
typedef struct {
    char               *listen;             /* the ZeroMQ replay endpoint, NULL: none */
    int64_t             rate;               /* default events/s of a REPLAY job */
    int64_t             max_replays;        /* loop guard */
    int64_t             backoff_ms;         /* FAIL's first retry delay */
    int64_t             backoff_max_ms;     /* ... and its cap */
    int64_t             lease_ms;           /* a replayed event is not due again for this long */
    char               *owner;              /* this instance in scheduler locks */
    char              **scheduled;          /* streams whose schedule is enabled */
    size_t              scheduled_count;
} dlqd_replay_config_t;

/* The security settings (the top-level group security; docs/security.md). */
typedef struct {
    char               *server_secret_key;  /* curve.server_secret_key: the _secret file; NULL: no CURVE */
    char               *clients;            /* curve.clients: the directory of client certificates */
    bool                allow_insecure;     /* a non-loopback listen without CURVE is allowed */
    char               *audit_log;          /* the audit log's file (dlq_audit.h); NULL: the main log */
} dlqd_security_config_t;

/* The HTTP listener's settings (the top-level group http; docs/metrics.md). */
#define DLQD_HTTP_LISTEN_MAX 16             /* addresses in http.listen, at most */
typedef struct {
    dlq_setting_list_t  listen;             /* "HOST:PORT" addresses; none: no HTTP listener */
    int64_t             min_free_bytes;     /* /readyz fails at or below this much free space */
} dlqd_http_config_t;

typedef struct {
    char              **listen;             /* ZeroMQ endpoints to bind */
    size_t              listen_count;
    char               *data_dir;           /* created if missing */
    int64_t             max_message_bytes;  /* largest accepted body */
    int64_t             max_frame_bytes;    /* transport limit (ZMQ_MAXMSGSIZE) */
    int64_t             commit_max_batch;   /* events per group commit, at most */
    int64_t             commit_max_batch_bytes; /* canonical JSON bytes per group commit, at most */
    int64_t             max_connections;    /* client connections at once; 0: from the open-files limit */
    int64_t             request_hwm;        /* ZMQ_RCVHWM of the ROUTER: requests queued per connection */
    int64_t             reply_hwm;          /* ZMQ_SNDHWM of the ROUTER: replies queued per connection */
    int64_t             max_checkpoint_bytes; /* memory the embedded primary's checkpoints may take */
    bool                spool_preallocate;    /* new spool segments from zeroed spares (spool_spare.h) */
    int64_t             commit_max_delay_ms;/* extra wait to grow a batch (0: none) */
    int64_t             query_threads;      /* threads answering GET / LIST / STATS */
    int64_t             query_nice;         /* nice increment of the query threads */
    int64_t             index_nice;         /* nice increment of the indexer thread */
    int64_t             sweep_interval_ms;  /* expired-event sweep period */
    int64_t             sweep_batch;        /* rows deleted per sweep transaction */
    char               *primary;            /* the store answering queries */
    dlq_sink_config_t  *primary_sink;       /* that sink, or NULL for the embedded store */
    dlq_sink_config_t  *store;              /* the embedded store's plugin (type embedded, its data_dir
                                             * this one), which the gateway feeds from its log:
                                             * the primary when primary_sink is NULL */
    char               *sink_search;        /* ':'-separated plugin directories */
    dlq_sink_config_t **sinks;              /* configured sinks; index = chain bit */
    size_t              sink_count;
    dlq_policy_t        defaults;           /* policy of streams not listed */
    dlq_policy_table_t *policies;           /* per-stream policy, default included */
    dlqd_replay_config_t replay;
    dlqd_security_config_t security;
    dlqd_http_config_t  http;
    char               *log_format;         /* "text" or "json" (dlq_log.h) */
    char               *log_level;          /* "debug", "info", "warn" or "error" */
    char              **warnings;           /* what is valid but likely a mistake, one line each */
    size_t              warning_count;
} dlqd_config_t;

/* Read and validate path. On DLQD_CONFIG_OK *config_p receives a new config
 * (caller destroys; its warnings say what is valid but likely a mistake,
 * e.g. a stream whose chain leaves out a sink primary); otherwise *err_p
 * receives a message that names the file, line and setting and says what
 * was expected (caller frees). */
dlqd_config_result_t dlqd_config_load (const char *path, dlqd_config_t **config_p, char **err_p);

/* Bytes of requests ZeroMQ may hold per connection before the gateway
 * reads them, by default: gateway.request_hwm defaults to this over
 * max_message_bytes. */
#define DLQD_REQUEST_QUEUE_BYTES (16LL * 1024 * 1024)

/* The default gateway.request_hwm for max_message_bytes:
 * DLQD_REQUEST_QUEUE_BYTES / max_message_bytes, from 8 to 1000 (16 for
 * the default 1 MiB). */
int64_t dlqd_config_request_hwm (int64_t max_message_bytes);

/* The plugin search path used when gateway.sink_dir is not set: the
 * "plugins" directory beside the running program's directory (the build
 * tree) and the installed plugin directory. */
const char *dlqd_config_default_sink_search (void);

#define DLQD_CONFIG_BUILD_TREE "config/dlqd.conf"

/* The config file dlqd reads without -c: DLQD_CONFIG_BUILD_TREE (relative
 * to the working directory, as run.sh runs it) for a dlqd inside the build
 * tree it was built in, else the installed one (/etc/dlqd/dlqd.conf under
 * the prefix /usr). */
const char *dlqd_config_default_path (void);

/* The installed config file (/etc/dlqd/dlqd.conf under the prefix /usr). */
const char *dlqd_config_installed_path (void);

/* Where the settings table's rows keep their values (dlq_setting_t.home). */
enum {
    DLQD_HOME_CONFIG = 0,       /* dlqd_config_t */
    DLQD_HOME_POLICY,           /* dlq_policy_t: defaults.* and each streams entry */
    DLQD_HOME_SCHEDULE          /* dlq_schedule_t: a streams entry's schedule */
};

/* The settings table of the file (a sink section's gateway settings are
 * plugin_config.h's, the rest of it the plugin's); *count_out its rows. */
const dlq_setting_t *dlqd_config_rows (size_t *count_out);

/* The configuration reference: every row of the table and of the sink
 * sections' gateway settings, as the Markdown table docs/configuration.md
 * holds ("Every setting"), into out. */
void dlqd_config_reference (dlq_buf_t *out);

/* The configured sink called name, or NULL. */
dlq_sink_config_t *dlqd_config_sink (const dlqd_config_t *config, const char *name);

/* Free a config; accepts NULL and NULLs the pointer. */
void dlqd_config_destroy (dlqd_config_t **config_p);

#endif
