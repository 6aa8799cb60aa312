/*  dlqd_config — load dlqd.conf and validate it against the settings
 *  table below.
 *
 *  The table is the one source of truth for every setting of the file but
 *  a sink section's (plugin_config.c has the gateway's, the plugin the
 *  rest): its name, type, bounds, default, one-line description, where its
 *  value is kept and its entry in the configuration reference. Reading,
 *  checking, defaults, `dlqd --config-reference` and the docs come from it
 *  (test_config holds docs/configuration.md and config/dlqd.conf to it).
 *  What a row cannot say is code below: the settings read by code of their
 *  own (listen, chains, routes, streams, sinks) and the checks across
 *  settings.
 */
#include "dlqd_config.h"

#include "config_text.h"
#include "dlq_alloc.h"
#include "dlq_buf.h"
#include "dlq_cert.h"
#include "dlq_endpoint.h"
#include "dlq_log.h"
#include "replay_config.h"

#include <dirent.h>
#include <errno.h>
#include <libconfig.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MIB (1024LL * 1024)
#define DAY_MS 86400000LL

#define HOME_CONFIG DLQD_HOME_CONFIG
#define HOME_POLICY DLQD_HOME_POLICY
#define HOME_SCHEDULE DLQD_HOME_SCHEDULE

#define SETTING(path, type, def, min, max, desc, home, offset, type_docs, default_docs, docs) \
    { { path, DLQ_SINK_SETTING_##type, def, min, max, false, desc }, DLQ_SHAPE_VALUE, home, offset, \
      type_docs, default_docs, docs }
#define SHAPED(path, shape, desc, default_docs, docs) \
    { { path, DLQ_SINK_SETTING_STRING, NULL, 0, 0, false, desc }, DLQ_SHAPE_##shape, DLQ_HOME_CODE, 0, \
      NULL, default_docs, docs }

static const dlq_setting_t rows [] = {
    SETTING ("gateway.listen", STRING_LIST, NULL, 1, 1024,
             "ZeroMQ endpoints to bind, e.g. [\"tcp://127.0.0.1:5560\"]",
             DLQ_HOME_CODE, 0, NULL, "`[\"tcp://127.0.0.1:5560\"]`",
             "ZeroMQ endpoints the ROUTER socket binds (`tcp://`, `ipc://`); at least one"),
    SETTING ("gateway.data_dir", STRING, "./var", 1, 4096,
             "directory of the log, the state file and the embedded store",
             HOME_CONFIG, offsetof (dlqd_config_t, data_dir), NULL, NULL,
             "directory of the log, the state file and, with the embedded primary, its store; created if missing (relative to the working directory)"),
    SETTING ("gateway.max_message_bytes", INT, "1048576", 1024, 64 * MIB,
             "largest request body accepted",
             HOME_CONFIG, offsetof (dlqd_config_t, max_message_bytes), NULL, NULL,
             "largest request body; a larger one is answered `TOO_LARGE`"),
    SETTING ("gateway.max_frame_bytes", INT, NULL, 1024, 1024 * MIB,
             "largest frame the transport reads; bigger drops the connection",
             HOME_CONFIG, offsetof (dlqd_config_t, max_frame_bytes), "integer `max_message_bytes`–1073741824 (1 GiB)", "4 × `max_message_bytes` + 65536",
             "largest frame the transport reads at all (`ZMQ_MAXMSGSIZE`); a bigger one drops the sender's connection without a reply, so a huge frame cannot exhaust memory"),
    SETTING ("gateway.query_threads", INT, "2", 1, 64,
             "threads answering GET, LIST and STATS",
             HOME_CONFIG, offsetof (dlqd_config_t, query_threads), NULL, NULL,
             "threads answering `GET`, `LIST`, `STATS`, each with its own read-only store connection"),
    SETTING ("gateway.query_nice", INT, "19", 0, 19,
             "how much lower the query threads' priority is (nice increment)",
             HOME_CONFIG, offsetof (dlqd_config_t, query_nice), NULL, NULL,
             "how much lower the query threads' scheduling priority is than the rest of dlqd (a nice increment, per thread; 19 is the lowest priority): when the CPUs are busy, the threads that acknowledge PUTs are scheduled first, and queries get what is left (a COUNT beside 2,000 PUTs/s on two busy cores: the acks' p99 1.8–2.2× the quiet one at 10, 0.9–2.0× at 19: [Benchmark](benchmarks.md))"),
    SETTING ("gateway.index_nice", INT, "19", 0, 19,
             "how much lower the indexer thread's priority is (nice increment)",
             HOME_CONFIG, offsetof (dlqd_config_t, index_nice), NULL, NULL,
             "how much lower the indexer thread's scheduling priority is (a nice increment, as `query_nice`): in a storm the acks go first and the store catches up once the CPUs have time, so LIST / COUNT / GROUPS trail further (STATS `spool.indexLagEvents`) while the time until everything is queryable stays the same. Measured side by side (`dlqd_bench --events 300000`, three runs each): 69.4–71.6k acks/s at 19 against 57.6–62.7k at 0, everything queryable 7.3–7.7 s after the first PUT at both. The sinks' outcome updates ride the indexer's commits: a sink goes on delivering while they wait, up to 64 batches (with retry or failure rows of 4), so only a sink that outruns the indexer for longer, on a host whose CPUs stay busy, waits for it: 0 puts the indexer level with the ingest threads"),
    SETTING ("gateway.max_connections", INT, NULL, 1, 1000000,
             "most client connections at once; more are closed as they come",
             HOME_CONFIG, offsetof (dlqd_config_t, max_connections), NULL, "the open-files limit less 256",
             "most client connections at once; a new one past it is closed at once ([Limits](protocol.md#limits))"),
    SETTING ("gateway.request_hwm", INT, NULL, 1, 1000000,
             "requests ZeroMQ queues per connection before the gateway reads them",
             HOME_CONFIG, offsetof (dlqd_config_t, request_hwm), NULL, "16 MiB / `max_message_bytes`, from 8 to 1000",
             "requests ZeroMQ reads from one connection ahead of the gateway (`ZMQ_RCVHWM`)"),
    SETTING ("gateway.reply_hwm", INT, "10000", 1, 10000000,
             "replies queued per connection; past that they are dropped",
             HOME_CONFIG, offsetof (dlqd_config_t, reply_hwm), NULL, NULL,
             "replies queued for one client (`ZMQ_SNDHWM`); past it they are dropped and counted in STATS `repliesDropped`"),
    SETTING ("gateway.max_checkpoint_bytes", INT, "268435456", MIB, 1024 * 1024 * MIB,
             "memory the checkpoints may take; a write past it is refused",
             HOME_CONFIG, offsetof (dlqd_config_t, max_checkpoint_bytes), NULL, NULL,
             "memory the embedded primary's checkpoints may take (each: its strings and 72 bytes); a checkpoint write that would take them past it is answered `UNAVAILABLE` naming the setting and changes nothing, while a write that does not grow them (a `CKPT.DELETE`, a token of the same length) is always taken"),
    SETTING ("gateway.spool_preallocate", BOOL, "true", 0, 0,
             "start each spool segment from a zeroed file made ahead (off on copy-on-write filesystems)",
             HOME_CONFIG, offsetof (dlqd_config_t, spool_preallocate), NULL, NULL,
             "start each new spool segment from a *spare*, a file of zeros one segment long written ahead of time on a thread of its own, so a group commit writes into allocated blocks and its fdatasync has no metadata to journal ([Operations](operations.md#the-spool): the spool); turn it off on a copy-on-write filesystem (btrfs, ZFS), where overwriting zeros allocates new blocks anyway"),
    SETTING ("gateway.commit.max_batch", INT, "4096", 1, 100000,
             "most events in one transaction",
             HOME_CONFIG, offsetof (dlqd_config_t, commit_max_batch), NULL, NULL,
             "most events in one transaction"),
    SETTING ("gateway.commit.max_batch_bytes", INT, "16777216", 65536, 1024 * MIB,
             "most bytes of events (canonical JSON) in one transaction",
             HOME_CONFIG, offsetof (dlqd_config_t, commit_max_batch_bytes), NULL, NULL,
             "most bytes of events (their canonical JSON) in one transaction; a batch always takes one event"),
    SETTING ("gateway.commit.max_delay_ms", INT, "0", 0, 1000,
             "extra wait for a batch to fill before committing",
             HOME_CONFIG, offsetof (dlqd_config_t, commit_max_delay_ms), NULL, NULL,
             "how long a batch may wait to fill while the store is idle; 0 commits at once (batches still grow under load)"),
    SETTING ("gateway.sweep.interval_ms", INT, "60000", 100, 86400000,
             "how often expired events are deleted",
             HOME_CONFIG, offsetof (dlqd_config_t, sweep_interval_ms), NULL, NULL,
             "how often expired events are deleted"),
    SETTING ("gateway.sweep.batch", INT, "1000", 1, 1000000,
             "most events deleted per transaction",
             HOME_CONFIG, offsetof (dlqd_config_t, sweep_batch), NULL, NULL,
             "most events deleted per sweep transaction (a sweep repeats until none are left)"),
    SETTING ("gateway.sink_dir", STRING, NULL, 1, 4096,
             "where built-in sink plugins are found (':'-separated)",
             HOME_CONFIG, offsetof (dlqd_config_t, sink_search), NULL, "see its meaning",
             "`:`-separated directories where built-in sink plugins (`libdlq_sink_<type>.so`) are looked up, in order: the first file of the name found is loaded, and a wrong one there is an error (the next directory is not tried). The embedded store's is among them (`libdlq_sink_embedded.so`: every gateway loads it). A relative directory is relative to dlqd's working directory. Default: `<dir of dlqd>/../plugins` (the build tree), then `<prefix>/lib/dlqd/sinks` (installed)"),
    SETTING ("primary", STRING, "embedded", 1, 64,
             "the store that answers queries: \"embedded\" or a sink that can",
             HOME_CONFIG, offsetof (dlqd_config_t, primary), NULL, NULL,
             "the store that answers `GET`, `LIST` and `STATS`: `\"embedded\"` (the embedded SQLite store, fed from the log) or the name of a sink that can serve queries (a `postgres` or `mongo` sink, or an `embedded` sink writing to another directory). Delivery state always comes from the spool. A sink primary holds only what its sink was delivered: an event from its delivery on (not from the `PUT`'s ack: see [PUT](protocol.md#put--store-one-failedevent)), and only of streams whose chain names it. **Name a sink primary in every stream's chain** (`defaults.chain` and each stream's own `chain`): the events of a stream whose chain leaves it out are acknowledged and kept in the spool but never reach the primary, so `GET` answers `NOT_FOUND` and `LIST`, `COUNT` and replays never see them (adding the primary to the chain later does not send them: its dispatcher has passed them). `dlqd` and `--check-config` warn of such a chain (the file is still valid): `dlqd: warning: FILE: stream \"X\": its chain leaves out the primary \"P\": its events are acknowledged but never found by GET, LIST or a replay` (or `defaults.chain leaves out the primary \"P\": ...`). A sink primary's expired events are deleted by the gateway every `sweep.interval_ms`, `sweep.batch` at a time (a `mongo` primary's by its TTL index)"),
    SETTING ("defaults.retention_days", INT, "30", 0, DLQ_RETENTION_DAYS_MAX,
             "days an event is kept; 0 = forever",
             HOME_POLICY, offsetof (dlq_policy_t, retention_days), NULL, NULL,
             "days an event is kept after `createdAt`; 0 = forever"),
    SETTING ("defaults.include_original_document", BOOL, "true", 0, 0,
             "keep fullDocument",
             HOME_POLICY, offsetof (dlq_policy_t, include_original_document), NULL, NULL,
             "keep `fullDocument`"),
    SETTING ("defaults.include_stack_trace", BOOL, "true", 0, 0,
             "keep error.stackTrace",
             HOME_POLICY, offsetof (dlq_policy_t, include_stack_trace), NULL, NULL,
             "keep `error.stackTrace`"),
    SETTING ("defaults.chain", STRING_LIST, NULL, 0, 0,
             "the sinks (names in sinks) events go to, in order",
             DLQ_HOME_CODE, 0, "array of sink names", "`[]`",
             "the sinks every event is delivered to (each name must be in `sinks`)"),
    SETTING ("defaults.replay_route", STRING, NULL, 1, 255,
             "where replays go: \"endpoint\" or a sink's name",
             DLQ_HOME_CODE, 0, NULL, NULL,
             "where replays of a stream go: `\"endpoint\"` (the replay endpoint) or the name of a sink in `sinks` that delivers (e.g. a `kafka` sink with `topic_prefix = \"retry.\"`, or an `amqp` sink with the exchange the workers consume; it need not be in any chain). A replay of a stream without one counts its events `failed`. `\"endpoint\"` (on a stream or in `defaults`) needs `replay.listen`: without it `dlqd` and `--check-config` refuse the file, naming the setting (`streams.[i].replay_route` or `defaults.replay_route`)"),
    SHAPED ("streams", LIST, "per-stream policy overrides, ( { name = \"...\"; ... }, ... )", "`()`",
            "per-stream policy: each `{ name = \"...\"; }` plus any of the `defaults` settings, which override "
            "the defaults for that stream (including `chain`), plus a group named after a sink with that sink's "
            "per-stream settings; a stream listed twice is an error"),
    SETTING ("streams.[i].name", STRING, NULL, 1, 255,
             "the stream name",
             DLQ_HOME_CODE, 0, NULL, "required",
             "the stream's name, as events carry it in `streamName` (any characters, dots too: that is why "
             "streams are a list with names rather than settings named after them)"),
    SETTING ("streams.[i].schedule.enabled", BOOL, "true", 0, 0,
             "run scheduled passes for the stream",
             HOME_SCHEDULE, offsetof (dlq_schedule_t, enabled), NULL, "true (when the group is there)",
             "run scheduled passes for the stream (needs its `replay_route`; streams only, not `defaults`)"),
    SETTING ("streams.[i].schedule.max_retries", INT, "240", 1, 1000000,
             "events with this many FAILs are left alone",
             HOME_SCHEDULE, offsetof (dlq_schedule_t, max_retries), NULL, NULL,
             "events with this many `FAIL`s are left alone"),
    SETTING ("streams.[i].schedule.batch_size", INT, "50", 1, 100000,
             "events replayed per pass, at most",
             HOME_SCHEDULE, offsetof (dlq_schedule_t, batch_size), NULL, NULL,
             "events per pass, at most"),
    SETTING ("streams.[i].schedule.interval_ms", INT, "21600000", 100, 365 * DAY_MS,
             "time between passes",
             HOME_SCHEDULE, offsetof (dlq_schedule_t, interval_ms), NULL, NULL,
             "time between passes (and how long a pass holds the stream's lock)"),
    SETTING ("replay.listen", STRING, NULL, 1, 1024,
             "the ZeroMQ replay endpoint workers connect to (PULL)",
             HOME_CONFIG, offsetof (dlqd_config_t, replay.listen), NULL, NULL,
             "the ZeroMQ replay endpoint (`PUSH`) workers connect to; without it, `REPLAY` with `target` `\"endpoint\"` is refused and `replay_route = \"endpoint\"` is a configuration error"),
    SETTING ("replay.rate", INT, "100", 1, 100000,
             "events per second of a replay job unless it says",
             HOME_CONFIG, offsetof (dlqd_config_t, replay.rate), NULL, NULL,
             "events per second of a `REPLAY` job that does not say"),
    SETTING ("replay.max_replays", INT, "10", 0, 1000000,
             "replays of one event before it is QUARANTINED",
             HOME_CONFIG, offsetof (dlqd_config_t, replay.max_replays), NULL, NULL,
             "the loop guard: an event replayed this many times is `QUARANTINED` instead of being replayed again"),
    SETTING ("replay.backoff_ms", INT, "60000", 0, 30 * DAY_MS,
             "FAIL: the first retry delay, doubled per retry",
             HOME_CONFIG, offsetof (dlqd_config_t, replay.backoff_ms), NULL, NULL,
             "`FAIL`: `retryAfter` = now + `backoff_ms` × 2^(retryCount − 1), at most `backoff_max_ms`"),
    SETTING ("replay.backoff_max_ms", INT, "21600000", 0, 365 * DAY_MS,
             "FAIL: the longest retry delay",
             HOME_CONFIG, offsetof (dlqd_config_t, replay.backoff_max_ms), "integer `backoff_ms`–31536000000 (365 days)", NULL,
             "the longest `FAIL` delay; below `backoff_ms` is an error (`replay.backoff_max_ms: expected at least backoff_ms (60000)`, with the file's `backoff_ms`; without `backoff_max_ms` in the file, a `backoff_ms` above its default is `replay.backoff_ms: expected at most backoff_max_ms (21600000, its default)`)"),
    SETTING ("replay.lease_ms", INT, "600000", 0, 365 * DAY_MS,
             "a replayed event is not due for a scheduled pass for this long",
             HOME_CONFIG, offsetof (dlqd_config_t, replay.lease_ms), NULL, NULL,
             "after a replay, the event is not due for a scheduled pass for this long (the worker's time to answer)"),
    SETTING ("replay.owner", STRING, NULL, 1, 255,
             "this instance's name in scheduler locks",
             HOME_CONFIG, offsetof (dlqd_config_t, replay.owner), NULL, "`\"<hostname>:<pid>\"`",
             "this gateway's name in the scheduler's lock rows"),
    SETTING ("security.curve.server_secret_key", STRING, NULL, 1, 240,
             "the gateway's CURVE certificate: the _secret file of the pair",
             HOME_CONFIG, offsetof (dlqd_config_t, security.server_secret_key), "path", NULL,
             "the gateway's CURVE key pair: the `_secret` file of a certificate in the ZPL format of CZMQ's zcert (`dlqctl keygen`), mode 0600 or stricter (a file others can read is refused, with the `chmod` that fixes it). With it, every endpoint dlqd binds (`gateway.listen`, `replay.listen`) is a CURVE server and every client must present a key of `clients`. Needs `clients` (see [Security](security.md))"),
    SETTING ("security.curve.clients", STRING, NULL, 1, 4096,
             "the directory of the clients' public certificates",
             HOME_CONFIG, offsetof (dlqd_config_t, security.clients), "path", NULL,
             "a directory of public certificates, one per client key, each with the metadata `name`, `role` (`worker`, `viewer`, `operator` or `admin`) and `streams` (names or `*` patterns, comma-separated). Read at start, on `SIGHUP`, and within 2 s of a change to its files. Needs `server_secret_key`"),
    SETTING ("security.audit_log", STRING, NULL, 1, 4096,
             "the audit log's file (default: the main log)",
             HOME_CONFIG, offsetof (dlqd_config_t, security.audit_log), "path", NULL,
             "where the audit log goes: one JSON object per line for every `REPLAY` and its controls, `REDELIVER`, `RESOLVE`, `FAIL`, `CKPT.DELETE`, refused request and reload of the keys (created mode 0640, appended to). Without it, those lines go to the main log, after `audit: `"),
    SETTING ("security.allow_insecure", BOOL, "false", 0, 0,
             "allow a non-loopback listen without CURVE",
             HOME_CONFIG, offsetof (dlqd_config_t, security.allow_insecure), NULL, NULL,
             "without `curve`, an endpoint reachable from the network (anything but `tcp://` on a loopback address, `ipc://` or `inproc://`) is a configuration error unless this is `true`; then dlqd warns at every start"),
    SETTING ("http.listen", STRING_LIST, NULL, 0, 16,
             "HTTP addresses of /metrics, /healthz and /readyz, e.g. [\"127.0.0.1:9560\"]",
             HOME_CONFIG, offsetof (dlqd_config_t, http.listen), "array of `\"HOST:PORT\"`", "`[]` (no HTTP listener)",
             "the addresses the HTTP listener binds, each `\"HOST:PORT\"` (`127.0.0.1:9560`, `[::1]:9560`, `localhost:9560`; `*:9560` or `0.0.0.0:9560` for every interface). It serves `GET /metrics` (Prometheus), `/healthz` and `/readyz` ([Metrics and health](metrics.md)). Nothing on it authenticates: an address reachable from the network is a configuration error unless `security.allow_insecure` is `true`"),
    SETTING ("http.min_free_bytes", INT, "104857600", 0, 4611686018427387904LL,
             "/readyz fails when data_dir's filesystem has this little free space",
             HOME_CONFIG, offsetof (dlqd_config_t, http.min_free_bytes), NULL, "104857600 (100 MiB)",
             "`/readyz` answers 503 (reason `disk`) while the filesystem of `gateway.data_dir` has at most this many bytes free to dlqd, and 200 again once there is more"),
    SETTING ("log_format", STRING, "text", 1, 16,
             "\"text\" (one line per message) or \"json\" (one JSON object per line)",
             HOME_CONFIG, offsetof (dlqd_config_t, log_format), "`\"text\"` or `\"json\"`", NULL,
             "how the log is written to standard error: `text`, `TIME dlqd[PID] LEVEL message`; or `json`, one object per line with `time`, `level`, `pid`, `message` and, where the message is about one, `sink`, `stream`, `eventId`, `principal` ([Metrics and health](metrics.md#logs))"),
    SETTING ("log_level", STRING, "info", 1, 16,
             "the least severe messages logged: \"debug\", \"info\", \"warn\" or \"error\"",
             HOME_CONFIG, offsetof (dlqd_config_t, log_level), "`\"debug\"`, `\"info\"`, `\"warn\"` or `\"error\"`",
             NULL, "the least severe messages written to the log; read again at `SIGHUP` (`dlqd --log-level` "
             "overrides it, at start and at every reload)"),
    SHAPED ("sinks", GROUP, "the sinks events fan out to, { name: { type = \"...\"; ... }; ... }", "`{}`",
            "the sinks, each a group `NAME: { type = \"...\"; ... }` with the settings below"),
};

#define ROW_COUNT (sizeof rows / sizeof rows [0])

const dlq_setting_t *
dlqd_config_rows (size_t *count_out)
{
    *count_out = ROW_COUNT;
    return rows;
}

void
dlqd_config_reference (dlq_buf_t *out)
{
    size_t sink_count = 0;
    const dlq_setting_t *sink_rows = dlq_plugin_config_rows (&sink_count);
    const dlq_setting_t *tables [] = { rows, sink_rows };
    size_t counts [] = { ROW_COUNT, sink_count };
    dlq_config_format_reference (tables, counts, 2, out);
}

int64_t
dlqd_config_request_hwm (int64_t max_message_bytes)
{
    int64_t hwm = DLQD_REQUEST_QUEUE_BYTES / max_message_bytes;
    return hwm < 8 ? 8 : hwm > 1000 ? 1000 : hwm;
}

/* The table's defaults, and the one made at start: replay.owner is this
 * host and process. false when a default of the table does not parse. */
static bool
set_defaults (dlqd_config_t *c)
{
    char host [256] = "dlqd";
    gethostname (host, sizeof host - 1);
    host [sizeof host - 1] = '\0';
    char owner [300];
    snprintf (owner, sizeof owner, "%s:%ld", host, (long) getpid ());
    c->replay.owner = dlq_strdup (owner);
    return dlq_config_set_defaults (rows, ROW_COUNT, "", HOME_CONFIG, c)
        && dlq_config_set_defaults (rows, ROW_COUNT, "defaults.", HOME_POLICY, &c->defaults);
}

static void
read_listen (const config_setting_t *root, dlqd_config_t *c)
{
    const config_setting_t *listen = config_setting_lookup ((config_setting_t *) root, "gateway.listen");
    if (!listen) {
        c->listen = dlq_calloc (1, sizeof (char *));
        c->listen [0] = dlq_strdup ("tcp://127.0.0.1:5560");
        c->listen_count = 1;
        return;
    }
    c->listen_count = (size_t) config_setting_length (listen);
    c->listen = dlq_calloc (c->listen_count ? c->listen_count : 1, sizeof (char *));
    for (size_t i = 0; i < c->listen_count; i++)
        c->listen [i] = dlq_strdup (config_setting_get_string_elem (listen, (int) i));
}

/* What one setting may not be given the others. */
static bool
check_across (const config_setting_t *root, const dlqd_config_t *c, dlq_config_error_t *err)
{
    if (c->listen_count == 0)
        return dlq_config_fail (err, config_setting_lookup ((config_setting_t *) root, "gateway.listen"),
                                "expected at least one endpoint");
    if (strcmp (c->log_format, "text") && strcmp (c->log_format, "json"))
        return dlq_config_fail (err, config_setting_lookup ((config_setting_t *) root, "log_format"),
                                "expected \"text\" or \"json\", got \"%s\"", c->log_format);
    dlq_log_level_t level;
    if (!dlq_log_parse_level (c->log_level, &level))
        return dlq_config_fail (err, config_setting_lookup ((config_setting_t *) root, "log_level"),
                                "expected \"debug\", \"info\", \"warn\" or \"error\", got \"%s\"", c->log_level);
    if (c->max_frame_bytes && c->max_frame_bytes < c->max_message_bytes)
        return dlq_config_fail (err, config_setting_lookup ((config_setting_t *) root, "gateway.max_frame_bytes"),
                                "expected at least max_message_bytes (%lld)", (long long) c->max_message_bytes);
    /* the error names the setting the file has: backoff_max_ms, or, when
     * it is left at its default, backoff_ms */
    const dlqd_replay_config_t *r = &c->replay;
    if (r->backoff_max_ms < r->backoff_ms) {
        const config_setting_t *max = config_setting_lookup ((config_setting_t *) root, "replay.backoff_max_ms");
        return max ? dlq_config_fail (err, max, "expected at least backoff_ms (%lld)", (long long) r->backoff_ms)
                   : dlq_config_fail (err, config_setting_lookup ((config_setting_t *) root, "replay.backoff_ms"),
                                      "expected at most backoff_max_ms (%lld, its default)",
                                      (long long) r->backoff_max_ms);
    }
    return true;
}

/* The chain of a policy group: sink names into a bit set. */
static bool
read_chain (const config_setting_t *g, const dlqd_config_t *c, uint64_t *chain, dlq_config_error_t *err)
{
    const config_setting_t *list = config_setting_get_member (g, "chain");
    if (!list)
        return true;
    *chain = 0;
    for (int i = 0; i < config_setting_length (list); i++) {
        const char *name = config_setting_get_string_elem (list, i);
        const dlq_sink_config_t *sink = dlqd_config_sink (c, name);
        if (!sink)
            return dlq_config_fail (err, list, "names sink \"%s\", which is not in sinks", name);
        *chain |= 1ULL << dlq_plugin_config_index (sink);
    }
    return true;
}

/* Read retention, include flags, chain and replay settings of a policy
 * group over what policy holds; stream is NULL for the defaults. */
static bool
read_policy (const config_setting_t *g, dlqd_config_t *c, const char *stream, dlq_policy_t *policy,
             dlq_config_error_t *err)
{
    dlq_replay_read_t replay = { rows, ROW_COUNT, HOME_SCHEDULE, c->sinks, c->sink_count, c->replay.listen != NULL };
    if (!dlq_config_read (g, rows, ROW_COUNT, "defaults.", HOME_POLICY, policy, err)
    ||  !read_chain (g, c, &policy->chain, err)
    ||  !dlq_replay_policy_read (g, &replay, stream != NULL, policy, err))
        return false;
    if (policy->schedule.enabled) {
        dlqd_replay_config_t *r = &c->replay;
        r->scheduled = dlq_realloc (r->scheduled, (r->scheduled_count + 1) * sizeof (char *));
        r->scheduled [r->scheduled_count++] = dlq_strdup (stream);
    }
    return true;
}

static bool
read_defaults (const config_setting_t *g, dlqd_config_t *c, dlq_config_error_t *err)
{
    return !g || read_policy (g, c, NULL, &c->defaults, err);
}

/* The members of a streams entry: its name, the policy settings, its
 * schedule and, for each sink, a group of that sink's per-stream settings
 * (the member named after the sink). */
static bool
check_stream_entry (const config_setting_t *s, const dlqd_config_t *c, dlq_config_error_t *err)
{
    const char *also [3 + DLQ_SINKS_MAX] = { "name", "schedule" };
    for (size_t i = 0; i < c->sink_count; i++)
        also [2 + i] = dlq_plugin_config_name (c->sinks [i]);
    if (!dlq_config_check_group (s, rows, ROW_COUNT, "defaults.", also, err))
        return false;
    const char *own [] = { "name", "schedule" };
    for (size_t i = 0; i < 2; i++) {
        const config_setting_t *m = config_setting_get_member (s, own [i]);
        if (m && dlq_config_check_member (m, rows, ROW_COUNT, "streams.[i].", err) != DLQ_MEMBER_OK)
            return false;
    }
    return true;
}

/* Each sink's per-stream group of a streams entry. */
static bool
read_stream_sinks (const config_setting_t *s, const char *stream, dlqd_config_t *c, dlq_config_error_t *err)
{
    for (size_t i = 0; i < c->sink_count; i++) {
        const config_setting_t *m = config_setting_get_member (s, dlq_plugin_config_name (c->sinks [i]));
        if (m && !dlq_plugin_config_add_stream (c->sinks [i], stream, m, err))
            return false;
    }
    return true;
}

static bool
read_streams (const config_setting_t *list, dlqd_config_t *c, dlq_config_error_t *err)
{
    c->policies = dlq_policy_table_new (&c->defaults);
    for (int i = 0; list && i < config_setting_length (list); i++) {
        const config_setting_t *s = config_setting_get_elem (list, (unsigned) i);
        if (config_setting_type (s) != CONFIG_TYPE_GROUP)
            return dlq_config_fail (err, s, "expected a group { name = \"...\"; ... }");
        const config_setting_t *m = config_setting_get_member (s, "name");
        dlq_setting_value_t name = { 0 };
        dlq_policy_t policy = c->defaults;
        bool ok = check_stream_entry (s, c, err);
        if (ok && !m)
            ok = dlq_config_fail (err, s, "expected a name = \"stream name\"; setting");
        ok = ok && dlq_setting_value_read (m, &dlq_config_row (rows, ROW_COUNT, "streams.[i].name")->spec, &name, err);
        if (ok && dlq_policy_table_has (c->policies, name.s))
            ok = dlq_config_fail (err, s, "stream \"%s\" is listed twice", name.s);
        ok = ok && read_policy (s, c, name.s, &policy, err) && read_stream_sinks (s, name.s, c, err);
        if (ok) {
            dlq_policy_table_set (c->policies, name.s, &policy);
            for (size_t k = 0; k < c->sink_count; k++)
                if (policy.chain & (1ULL << k))
                    dlq_plugin_config_route_stream (c->sinks [k], name.s);
        }
        dlq_setting_value_free (&name);
        if (!ok)
            return false;
    }
    return true;
}

static bool
read_sinks (const config_setting_t *group, dlqd_config_t *c, dlq_config_error_t *err)
{
    if (!group)
        return true;
    int count = config_setting_length (group);
    if (count > DLQ_SINKS_MAX)
        return dlq_config_fail (err, group, "expected at most %d sinks", DLQ_SINKS_MAX);
    c->sinks = dlq_calloc ((size_t) count + 1, sizeof (dlq_sink_config_t *));
    const char *search = c->sink_search ? c->sink_search : dlqd_config_default_sink_search ();
    for (int i = 0; i < count; i++) {
        const config_setting_t *s = config_setting_get_elem (group, (unsigned) i);
        if (config_setting_type (s) != CONFIG_TYPE_GROUP)
            return dlq_config_fail (err, s, "expected a group { type = \"...\"; ... }");
        if (strcmp (config_setting_name (s), "embedded") == 0)
            return dlq_config_fail (err, s, "\"embedded\" is the name of the built-in store; "
                                    "name this sink otherwise");
        c->sinks [i] = dlq_plugin_config_new (s, i, search, err);
        if (!c->sinks [i])
            return false;
        c->sink_count++;
    }
    return true;
}

/* The embedded store: the plugin of type embedded, as a sink section
 * `embedded { type = "embedded"; data_dir = ...; }` would make it (in no
 * chain: index -1), whose log calls the gateway needs. */
static bool
load_store (const config_setting_t *root, dlqd_config_t *c, dlq_config_error_t *err)
{
    const config_setting_t *sink_dir = config_setting_lookup ((config_setting_t *) root, "gateway.sink_dir");
    const config_setting_t *at = sink_dir ? sink_dir : root;
    config_t cf;
    config_init (&cf);
    config_setting_t *group = config_setting_add (config_root_setting (&cf), "embedded", CONFIG_TYPE_GROUP);
    config_setting_set_string (config_setting_add (group, "type", CONFIG_TYPE_STRING), "embedded");
    config_setting_set_string (config_setting_add (group, "data_dir", CONFIG_TYPE_STRING), c->data_dir);
    dlq_config_error_t why = { NULL };
    c->store = dlq_plugin_config_new (group, -1, c->sink_search ? c->sink_search : dlqd_config_default_sink_search (),
                                      &why);
    config_destroy (&cf);
    if (!c->store) {
        /* "(config):0: embedded.type: no sink of type ...": the setting is made here, not the file's */
        const char *text = why.text ? why.text : "cannot load it";
        const char *colon = strstr (text, ".type: ");
        dlq_config_fail (err, at, "the embedded store, which every gateway runs: %s"
                         " (gateway.sink_dir says where its plugin is looked for)", colon ? colon + 7 : text);
        dlq_config_error_clear (&why);
        return false;
    }
    const dlq_sink_ops_t *ops = dlq_plugin_config_ops (c->store);
    const dlq_sink_log_ops_t *log = DLQ_SINK_OPS_HAS (ops, log) ? ops->log : NULL;
    if (!log || log->struct_size < sizeof (dlq_sink_log_ops_t) || log->log_format != DLQ_SINK_LOG_FORMAT)
        return dlq_config_fail (err, at, "the embedded store's plugin %s was not built with this gateway "
                                "(its log calls are missing or of another log format): install the one of this "
                                "release (gateway.sink_dir says where its plugin is looked for)",
                                dlq_plugin_config_path (c->store));
    return true;
}

const char *
dlqd_config_default_sink_search (void)
{
    static char search [PATH_MAX * 2 + 16];
    char exe [PATH_MAX];
    ssize_t n = readlink ("/proc/self/exe", exe, sizeof exe - 1);
    exe [n > 0 ? n : 0] = '\0';
    char *slash = strrchr (exe, '/');
    if (slash)
        *slash = '\0';
    snprintf (search, sizeof search, "%s/../plugins:%s", exe, DLQD_INSTALL_PLUGIN_DIR);
    return search;
}

const char *
dlqd_config_default_path (void)
{
    char exe [PATH_MAX];
    ssize_t n = readlink ("/proc/self/exe", exe, sizeof exe - 1);
    exe [n > 0 ? n : 0] = '\0';
    size_t build = strlen (DLQD_BUILD_DIR);
    bool in_build = strncmp (exe, DLQD_BUILD_DIR, build) == 0 && exe [build] == '/';
    return in_build ? DLQD_CONFIG_BUILD_TREE : DLQD_INSTALL_CONFIG;
}

const char *dlqd_config_installed_path (void) { return DLQD_INSTALL_CONFIG; }

dlq_sink_config_t *
dlqd_config_sink (const dlqd_config_t *config, const char *name)
{
    for (size_t i = 0; i < config->sink_count; i++)
        if (strcmp (dlq_plugin_config_name (config->sinks [i]), name) == 0)
            return config->sinks [i];
    return NULL;
}

static void
add_warning (dlqd_config_t *c, const char *format, ...) __attribute__ ((format (printf, 2, 3)));

static void
add_warning (dlqd_config_t *c, const char *format, ...)
{
    char line [1024];
    va_list args;
    va_start (args, format);
    vsnprintf (line, sizeof line, format, args);
    va_end (args);
    c->warnings = dlq_realloc (c->warnings, (c->warning_count + 1) * sizeof (char *));
    c->warnings [c->warning_count++] = dlq_strdup (line);
}

/* A sink primary answers only for the events delivered to it: a stream
 * whose chain leaves it out is acknowledged but never found. Valid (the
 * events are kept in the spool and go to the other sinks), but say so. */
static void
warn_chains_without_primary (const config_setting_t *streams, dlqd_config_t *c)
{
    uint64_t bit = 1ULL << dlq_plugin_config_index (c->primary_sink);
    if (!(c->defaults.chain & bit))
        add_warning (c, "defaults.chain leaves out the primary \"%s\": events of streams not listed in streams "
                     "are acknowledged but never found by GET, LIST or a replay", c->primary);
    for (int i = 0; streams && i < config_setting_length (streams); i++) {
        const char *name = NULL;
        config_setting_lookup_string (config_setting_get_elem (streams, (unsigned) i), "name", &name);
        if (name && !(dlq_policy_table_lookup (c->policies, name)->chain & bit))
            add_warning (c, "stream \"%s\": its chain leaves out the primary \"%s\": its events are acknowledged "
                         "but never found by GET, LIST or a replay", name, c->primary);
    }
}

/* primary names "embedded" or a sink that can answer what is asked of it. */
static bool
check_primary (const config_setting_t *root, dlqd_config_t *c, dlq_config_error_t *err)
{
    if (strcmp (c->primary, "embedded") == 0)
        return true;
    const config_setting_t *at = config_setting_get_member (root, "primary");
    c->primary_sink = dlqd_config_sink (c, c->primary);
    if (!c->primary_sink)
        return dlq_config_fail (err, at, "expected \"embedded\" or the name of a sink in sinks, got \"%s\"",
                                c->primary);
    const dlq_sink_ops_t *ops = dlq_plugin_config_ops (c->primary_sink);
    if (!ops->store)
        return dlq_config_fail (err, at, "sink \"%s\" (type %s) cannot answer queries", c->primary, ops->type);
    if (c->replay.scheduled_count && !dlq_replay_primary_keeps_state (ops))
        return dlq_config_fail (err, at, "stream \"%s\" has a schedule, but sink \"%s\" (type %s) keeps no replay "
                                "state: use \"embedded\" or a postgres or mongo sink", c->replay.scheduled [0],
                                c->primary, ops->type);
    return true;
}

/* An endpoint of setting (path) that the network can reach needs CURVE
 * or allow_insecure. */
static bool
check_exposed (const config_setting_t *root, const dlqd_config_t *c, const char *path, const char *endpoint,
               dlq_config_error_t *err)
{
    if (c->security.server_secret_key || c->security.allow_insecure || dlq_endpoint_is_local (endpoint))
        return true;
    return dlq_config_fail (err, config_setting_lookup ((config_setting_t *) root, path),
                            "%s is reachable from the network and nothing authenticates its clients: "
                            "configure security.curve (docs/security.md), listen on a loopback address, "
                            "or set security.allow_insecure = true", endpoint);
}

/* An HTTP listen address is HOST:PORT; nothing authenticates its
 * clients, so one the network can reach needs allow_insecure. */
static bool
check_http_listen (const config_setting_t *root, const dlqd_config_t *c, const char *listen, dlq_config_error_t *err)
{
    char host [256];
    unsigned port;
    const config_setting_t *at = config_setting_lookup ((config_setting_t *) root, "http.listen");
    if (!dlq_endpoint_split_http (listen, host, sizeof host, &port))
        return dlq_config_fail (err, at, "%s: expected \"HOST:PORT\" (e.g. \"127.0.0.1:9560\", \"[::1]:9560\")",
                                listen);
    if (c->security.allow_insecure || dlq_endpoint_http_is_local (listen))
        return true;
    return dlq_config_fail (err, at, "%s is reachable from the network and nothing authenticates HTTP clients: "
                            "listen on a loopback address or set security.allow_insecure = true", listen);
}

/* CURVE needs both of its settings, a server key that loads and a clients
 * directory that can be read; without CURVE every endpoint is local
 * unless allow_insecure says otherwise. */
static bool
check_security (const config_setting_t *root, dlqd_config_t *c, dlq_config_error_t *err)
{
    const dlqd_security_config_t *s = &c->security;
    const config_setting_t *curve = config_setting_lookup ((config_setting_t *) root, "security.curve");
    if (curve && (!s->server_secret_key || !s->clients))
        return dlq_config_fail (err, curve, "expected both server_secret_key and clients");
    if (s->server_secret_key) {
        char why [512];
        dlq_cert_t *cert = NULL;
        if (dlq_cert_load (s->server_secret_key, true, &cert, why, sizeof why) != DLQ_CERT_OK)
            return dlq_config_fail (err, config_setting_lookup ((config_setting_t *) root,
                                    "security.curve.server_secret_key"), "%s", why);
        dlq_cert_destroy (&cert);
        DIR *d = opendir (s->clients);
        if (!d)
            return dlq_config_fail (err, config_setting_lookup ((config_setting_t *) root, "security.curve.clients"),
                                    "%s: %s", s->clients, strerror (errno));
        closedir (d);
    }
    for (size_t i = 0; i < c->listen_count; i++)
        if (!check_exposed (root, c, "gateway.listen", c->listen [i], err))
            return false;
    const config_setting_t *http_listen = config_setting_lookup ((config_setting_t *) root, "http.listen");
    if (c->http.listen.count > DLQD_HTTP_LISTEN_MAX)
        return dlq_config_fail (err, http_listen, "expected at most %d addresses, got %zu", DLQD_HTTP_LISTEN_MAX,
                                c->http.listen.count);
    for (size_t i = 0; i < c->http.listen.count; i++) {
        if (!check_http_listen (root, c, c->http.listen.items [i], err))
            return false;
        for (size_t k = 0; k < i; k++)
            if (strcmp (c->http.listen.items [k], c->http.listen.items [i]) == 0)
                return dlq_config_fail (err, http_listen, "%s is given twice", c->http.listen.items [i]);
    }
    if (c->replay.listen && !check_exposed (root, c, "replay.listen", c->replay.listen, err))
        return false;
    if (s->allow_insecure && !s->server_secret_key)
        add_warning (c, "security.allow_insecure is true and security.curve is not set: anyone who can reach "
                     "an endpoint may store, read, replay and delete (docs/security.md)");
    return true;
}

/* The defaults group holds what every stream's entry may, but no name and
 * no schedule, which are a stream's own. */
static bool
check_defaults (const config_setting_t *root, dlq_config_error_t *err)
{
    const config_setting_t *g = config_setting_get_member (root, "defaults");
    if (!g || config_setting_type (g) != CONFIG_TYPE_GROUP)
        return true;                    /* none, or the type check says it */
    if (config_setting_get_member (g, "name"))
        return dlq_config_fail (err, config_setting_get_member (g, "name"),
                                "unknown setting; the defaults apply to every stream and have no name");
    if (config_setting_get_member (g, "schedule"))
        return dlq_config_fail (err, config_setting_get_member (g, "schedule"),
                                "a schedule belongs to a stream in streams, not to the defaults");
    return true;
}

static bool
read_top (const config_setting_t *root, dlqd_config_t *c, dlq_config_error_t *err)
{
    const config_setting_t *streams = config_setting_get_member (root, "streams");
    bool ok = check_defaults (root, err)
           && dlq_config_check_group (root, rows, ROW_COUNT, "", NULL, err)
           && dlq_config_read (root, rows, ROW_COUNT, "", HOME_CONFIG, c, err);
    if (ok)
        read_listen (root, c);
    ok = ok && check_across (root, c, err)
            && check_security (root, c, err)
            && read_sinks (config_setting_get_member (root, "sinks"), c, err)
            && read_defaults (config_setting_get_member (root, "defaults"), c, err)
            && read_streams (streams, c, err)
            && check_primary (root, c, err)
            && load_store (root, c, err);
    if (ok && c->max_frame_bytes == 0)
        c->max_frame_bytes = 4 * c->max_message_bytes + 65536;
    if (ok && c->request_hwm == 0)
        c->request_hwm = dlqd_config_request_hwm (c->max_message_bytes);
    if (ok && c->primary_sink)
        warn_chains_without_primary (streams, c);
    return ok;
}

/* A file that holds a credential itself must be private to its owner, as
 * ssh has it for keys (docs/security.md). */
static bool
check_file_mode (const char *path, const dlqd_config_t *c, dlq_config_error_t *err)
{
    struct stat st;
    if (stat (path, &st) != 0 || !(st.st_mode & 077))
        return true;
    for (size_t i = 0; i < c->sink_count; i++) {
        const char *setting = dlq_plugin_config_inline_secret (c->sinks [i]);
        if (setting)
            return dlq_config_fail (err, NULL, "%s holds a secret (sinks.%s.%s) and others can read it (mode %04o): "
                                    "run chmod 600 %s, or move it to %s_file or %s_env", path,
                                    dlq_plugin_config_name (c->sinks [i]), setting, (unsigned) (st.st_mode & 07777),
                                    path, setting, setting);
    }
    return true;
}

/* The file's text with its 64-bit integers marked for libconfig
 * (config_text.h), or NULL when it cannot be read. */
static char *
read_widened (const char *path)
{
    FILE *f = fopen (path, "rb");
    if (!f)
        return NULL;
    dlq_buf_t raw = DLQ_BUF_INIT;
    char chunk [65536];
    size_t n;
    while ((n = fread (chunk, 1, sizeof chunk, f)) > 0)
        dlq_buf_append (&raw, chunk, n);
    bool failed = ferror (f) != 0;
    fclose (f);
    char *text = failed ? NULL : dlq_config_text_widen (raw.data ? raw.data : "", raw.len, NULL);
    dlq_buf_free (&raw);
    return text;
}

dlqd_config_result_t
dlqd_config_load (const char *path, dlqd_config_t **config_p, char **err_p)
{
    *config_p = NULL;
    *err_p = NULL;
    config_t cf;
    config_init (&cf);
    dlqd_config_result_t rc = DLQD_CONFIG_OK;
    char *text = read_widened (path);
    if (!text || !config_read_string (&cf, text)) {
        dlq_buf_t msg = DLQ_BUF_INIT;
        if (!text || config_error_type (&cf) == CONFIG_ERR_FILE_IO) {
            dlq_buf_printf (&msg, "%s: cannot read the file", path);
            rc = DLQD_CONFIG_ERR_IO;
        }
        else {
            dlq_buf_printf (&msg, "%s:%d: %s", config_error_file (&cf) ? config_error_file (&cf) : path,
                            config_error_line (&cf), config_error_text (&cf));
            rc = DLQD_CONFIG_ERR_SYNTAX;
        }
        *err_p = dlq_buf_steal (&msg, NULL);
        config_destroy (&cf);
        free (text);
        return rc;
    }
    free (text);
    config_setting_set_hook (config_root_setting (&cf), (void *) path);     /* names the file in errors */
    dlqd_config_t *c = dlq_calloc (1, sizeof *c);
    dlq_config_error_t err = { NULL };
    if (!set_defaults (c))
        dlq_config_fail (&err, NULL, "%s: a default of the settings table does not parse (a bug)", path);
    if (err.text || !read_top (config_root_setting (&cf), c, &err) || !check_file_mode (path, c, &err)) {
        *err_p = err.text;
        dlqd_config_destroy (&c);
        rc = DLQD_CONFIG_ERR_INVALID;
    }
    else
    if (!c->policies)
        c->policies = dlq_policy_table_new (&c->defaults);
    config_destroy (&cf);
    *config_p = c;
    return rc;
}

void
dlqd_config_destroy (dlqd_config_t **config_p)
{
    if (!config_p || !*config_p)
        return;
    dlqd_config_t *c = *config_p;
    for (size_t i = 0; i < c->listen_count; i++)
        free (c->listen [i]);
    free (c->listen);
    dlq_config_free_values (rows, ROW_COUNT, HOME_CONFIG, c);
    for (size_t i = 0; i < c->sink_count; i++)
        dlq_plugin_config_destroy (&c->sinks [i]);
    free (c->sinks);
    dlq_plugin_config_destroy (&c->store);
    dlq_policy_table_destroy (&c->policies);
    for (size_t i = 0; i < c->replay.scheduled_count; i++)
        free (c->replay.scheduled [i]);
    free (c->replay.scheduled);
    for (size_t i = 0; i < c->warning_count; i++)
        free (c->warnings [i]);
    free (c->warnings);
    free (c);
    *config_p = NULL;
}
