/*  bench_postgres — the postgres sink vs. raw COPY vs. naive INSERTs.
 *
 *  (i) starts dlqd on <dir>/postgres with one postgres sink "pg" in the
 *  default chain, PUTs every event, and polls STATS every 10 ms from the
 *  last ack until the sink's backlog is 0 and delivered is N. (ii) and
 *  (iii) then make their tables LIKE the sink's (the plugin's own DDL) and
 *  write the same rows over one libpq connection. (iv) loads <dir>/
 *  postgres-drain-<n> with no sink, restarts dlqd there with the sink and
 *  polls STATS from PING until it delivered all. See bench_postgres.h.
 */
#include "bench_postgres.h"

#include "bench_daemon.h"
#include "bench_gateway.h"
#include "bench_numbers.h"
#include "bench_sink.h"
#include "dlq_alloc.h"
#include "dlq_buf.h"
#include "dlq_json.h"
#include "dlq_time.h"

#include <errno.h>
#include <libpq-fe.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

#define SINK_NAME           "pg"
#define ERR_LEN             4096
#define WARM_UP_SINK_EVENTS 2000

/* The columns the sink's INSERT fills, in its order; the others
 * (retry_count, retry_after, updated_at) take the table's defaults, as
 * they do for the sink. */
enum {
    COL_ID, COL_STREAM_NAME, COL_OPERATION_TYPE, COL_PAYLOAD, COL_PAYLOAD_TEXT,
    COL_DOCUMENT_KEY, COL_FULL_DOCUMENT, COL_RESUME_TOKEN, COL_ERROR_TYPE,
    COL_ERROR_MESSAGE, COL_ERROR_STACKTRACE, COL_STATUS, COL_ATTEMPTS,
    COL_FIRST_ATTEMPT_AT, COL_LAST_ATTEMPT_AT, COL_CREATED_AT, COL_EXPIRES_AT,
    COL_METADATA, COLS
};

static const char column_list [] =
    "id, stream_name, operation_type, payload, payload_text, document_key, full_document,"
    " resume_token, error_type, error_message, error_stacktrace, status, attempts,"
    " first_attempt_at, last_attempt_at, created_at, expires_at, metadata";

/* One row's column values as text; NULL is SQL NULL. The payloads point
 * into the event's canonical body; the rest is owned. */
typedef struct {
    const char *value [COLS];
} row_t;

typedef struct {
    PGconn *db;
    char    prefix [48];            /* dlq_bench_<tag>: every table of the run */
    char    like [64];              /* an empty table LIKE the sink's first one */
    bool    have_like;
    row_t  *rows;
    size_t  count;
} bench_pg_t;

/* What a timed run measures. */
typedef enum {
    RUN_SINK,                       /* (i) */
    RUN_COPY,                       /* (ii) */
    RUN_DRAIN,                      /* (iv) */
    RUN_KINDS
} run_kind_t;

/* One timed run of (i), (ii) or (iv). */
typedef struct {
    run_kind_t kind;
    size_t number;                  /* 1-based, per kind */
    double eps;
    double seconds;
    double ingest_eps;              /* sink: acks/s */
    double drained_ms;              /* sink: last ack -> all delivered */
    double alone_eps;               /* sink: events/s after the last ack; 0 when none were left */
    double load_eps;                /* drain: acks/s of the load (no sink in the chain) */
    double ping_ms;                 /* drain: restart (exec) -> PING answered */
    bool   failed;
} run_t;


/* ------------------------------------------------------------------------ */
/* Rows: the values the sink derives from a canonical body */

static char *
json_text (const dlq_json_value_t *v)
{
    if (!v || v->type == DLQ_JSON_NULL)
        return NULL;
    if (v->type == DLQ_JSON_STRING || v->type == DLQ_JSON_NUMBER)
        return dlq_strndup (v->str, v->len);
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_json_write (&out, v);
    return dlq_buf_steal (&out, NULL);
}

static bool
make_rows (bench_pg_t *pg, const bench_events_t *ev, char *err, size_t err_len)
{
    pg->rows = dlq_calloc (ev->count, sizeof *pg->rows);
    pg->count = ev->count;
    for (size_t i = 0; i < ev->count; i++) {
        const bench_row_t *r = &ev->rows [i];
        dlq_json_doc_t *doc = NULL;
        if (dlq_json_parse (r->json, r->json_len, &doc, NULL) != DLQ_JSON_OK) {
            snprintf (err, err_len, "event %zu: the canonical body is not JSON", i);
            return false;
        }
        const dlq_json_value_t *root = dlq_json_root (doc), *error = dlq_json_get (root, "error");
        const char **v = pg->rows [i].value;
        v [COL_ID] = dlq_strdup (r->id);
        v [COL_STREAM_NAME] = dlq_strdup (r->stream_name);
        v [COL_OPERATION_TYPE] = json_text (dlq_json_get (root, "operationType"));
        v [COL_PAYLOAD] = r->json;
        v [COL_PAYLOAD_TEXT] = r->json;
        v [COL_DOCUMENT_KEY] = json_text (dlq_json_get (root, "documentKey"));
        v [COL_FULL_DOCUMENT] = json_text (dlq_json_get (root, "fullDocument"));
        v [COL_RESUME_TOKEN] = json_text (dlq_json_get (root, "resumeToken"));
        v [COL_ERROR_TYPE] = json_text (dlq_json_get (error, "type"));
        v [COL_ERROR_MESSAGE] = json_text (dlq_json_get (error, "message"));
        v [COL_ERROR_STACKTRACE] = json_text (dlq_json_get (error, "stackTrace"));
        v [COL_STATUS] = dlq_strdup ("PENDING");
        v [COL_ATTEMPTS] = json_text (dlq_json_get (root, "attempts"));
        v [COL_FIRST_ATTEMPT_AT] = json_text (dlq_json_get (root, "firstAttemptAt"));
        v [COL_LAST_ATTEMPT_AT] = json_text (dlq_json_get (root, "lastAttemptAt"));
        v [COL_CREATED_AT] = json_text (dlq_json_get (root, "createdAt"));
        v [COL_EXPIRES_AT] = json_text (dlq_json_get (root, "expiresAt"));
        v [COL_METADATA] = json_text (dlq_json_get (root, "metadata"));
        if (!v [COL_ATTEMPTS])
            v [COL_ATTEMPTS] = dlq_strdup ("0");
        dlq_json_doc_destroy (&doc);
    }
    return true;
}

static void
free_rows (bench_pg_t *pg)
{
    for (size_t i = 0; pg->rows && i < pg->count; i++)
        for (int c = 0; c < COLS; c++)
            if (c != COL_PAYLOAD && c != COL_PAYLOAD_TEXT)
                free ((char *) pg->rows [i].value [c]);
    free (pg->rows);
    pg->rows = NULL;
}


/* ------------------------------------------------------------------------ */
/* libpq */

static bool
exec_ok (bench_pg_t *pg, const char *sql, char *err, size_t err_len)
{
    PGresult *r = PQexec (pg->db, sql);
    ExecStatusType status = PQresultStatus (r);
    bool ok = status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK;
    if (!ok)
        snprintf (err, err_len, "%s: %s", sql, PQresultErrorMessage (r));
    PQclear (r);
    return ok;
}

/* One number from sql, or -1 (err says why). */
static long long
exec_count (bench_pg_t *pg, const char *sql, char *err, size_t err_len)
{
    PGresult *r = PQexec (pg->db, sql);
    long long n = -1;
    if (PQresultStatus (r) == PGRES_TUPLES_OK && PQntuples (r) == 1)
        n = atoll (PQgetvalue (r, 0, 0));
    else
        snprintf (err, err_len, "%s: %s", sql, PQresultErrorMessage (r));
    PQclear (r);
    return n;
}

static bool
check_rows (bench_pg_t *pg, const char *table, size_t want, char *err, size_t err_len)
{
    char sql [160];
    snprintf (sql, sizeof sql, "SELECT count(*) FROM \"%s\"", table);
    long long n = exec_count (pg, sql, err, err_len);
    if (n == (long long) want)
        return true;
    if (n >= 0)
        snprintf (err, err_len, "table %s holds %lld rows, expected %zu", table, n, want);
    return false;
}

static void
drop_table (bench_pg_t *pg, const char *table)
{
    char sql [160], err [ERR_LEN];
    snprintf (sql, sizeof sql, "DROP TABLE IF EXISTS \"%s\"", table);
    if (!exec_ok (pg, sql, err, sizeof err))
        fprintf (stderr, "dlqd_bench: %s\n", err);
}

/* A table like the sink's (same columns, defaults, constraints, indexes). */
static bool
create_like (bench_pg_t *pg, const char *table, char *err, size_t err_len)
{
    char sql [256];
    snprintf (sql, sizeof sql, "DROP TABLE IF EXISTS \"%s\"", table);
    if (!exec_ok (pg, sql, err, err_len))
        return false;
    snprintf (sql, sizeof sql, "CREATE TABLE \"%s\" (LIKE \"%s\" INCLUDING ALL)", table, pg->like);
    return exec_ok (pg, sql, err, err_len);
}

/* Before a timed run: what earlier runs left dirty is written out, so
 * that no run pays for another's pages. */
static bool
settle (bench_pg_t *pg)
{
    char err [ERR_LEN];
    sync ();
    if (exec_ok (pg, "CHECKPOINT", err, sizeof err))
        return true;
    fprintf (stderr, "dlqd_bench: %s\n", err);
    return false;
}


/* ------------------------------------------------------------------------ */
/* (i) the sink */

/* The sink's section for table, in the default chain. */
static void
sink_config (const bench_postgres_options_t *o, const char *table, dlq_buf_t *config)
{
    dlq_buf_puts (config, "sinks: { " SINK_NAME ": { type = \"postgres\"; conninfo = \"");
    bench_sink_config_string (config, o->conninfo);
    dlq_buf_printf (config, "\"; table = \"%s\"; %s }; };\ndefaults: { chain = [\"" SINK_NAME "\"]; };",
                    table, o->settings ? o->settings : "");
}

/* Load, then poll until the sink delivered everything. */
static bool
measure_sink (const bench_postgres_options_t *o, void *ctx, const char *endpoint,
              const bench_events_t *ev, run_t *out, char *err, size_t err_len)
{
    void *sock = bench_gateway_connect (ctx, endpoint);
    bench_sink_stats_t at_ack;
    if (!sock || !bench_sink_stats (sock, SINK_NAME, &at_ack, err, err_len)) {
        if (!sock)
            snprintf (err, err_len, "cannot connect for STATS");
        else
            zmq_close (sock);
        return false;
    }
    bench_gateway_result_t g;
    bool complete = bench_gateway_run (ctx, endpoint, ev, o->clients, o->window,
                                       o->reply_timeout_ms, &g);
    int64_t start_ns = g.end_ns - (int64_t) (g.seconds * 1e9), done_ns = 0;
    bool ok = complete && g.errors == 0;
    if (!ok)
        snprintf (err, err_len, "%s%s%zu ERR replies (first: %s)", complete ? "" : g.failure,
                  complete ? "" : "; ", g.errors, g.first_err);
    if (ok)
        ok = bench_sink_wait_delivered (sock, SINK_NAME, ev->count, g.end_ns, "the last ack", &done_ns,
                                        &at_ack, err, err_len);
    if (ok) {
        out->seconds = (double) (done_ns - start_ns) / 1e9;
        out->eps = out->seconds > 0 ? (double) ev->count / out->seconds : 0;
        out->ingest_eps = g.seconds > 0 ? (double) g.ok / g.seconds : 0;
        out->drained_ms = (double) (done_ns - g.end_ns) / 1e6;
        long long rest = (long long) ev->count - at_ack.delivered;
        if (rest > 0 && out->drained_ms > 0)
            out->alone_eps = (double) rest / (out->drained_ms / 1e3);
    }
    bench_gateway_result_free (&g);
    zmq_close (sock);
    return ok;
}

static void
run_sink (const bench_postgres_options_t *o, bench_pg_t *pg, const char *dir,
          const bench_events_t *ev, run_t *run)
{
    char path [4096], err [ERR_LEN] = "", table [64];
    snprintf (path, sizeof path, "%s/postgres-%zu", dir, run->number);
    snprintf (table, sizeof table, "%s_sink%zu", pg->prefix, run->number);
    if (mkdir (path, 0700) != 0) {
        fprintf (stderr, "dlqd_bench: cannot create %s: %s\n", path, strerror (errno));
        run->failed = true;
        return;
    }
    dlq_buf_t config = DLQ_BUF_INIT;
    sink_config (o, table, &config);
    void *ctx = zmq_ctx_new ();
    bench_daemon_t daemon = { 0 };
    bool ok = bench_daemon_start (&daemon, ctx, o->dlqd, path, config.data, o->ready_ms, err, sizeof err);
    if (ok) {
        ok = measure_sink (o, ctx, daemon.endpoint, ev, run, err, sizeof err);
        double stop_s;
        char stop_err [ERR_LEN];
        if (!bench_daemon_stop (&daemon, o->stop_ms, &stop_s, stop_err, sizeof stop_err)) {
            fprintf (stderr, "dlqd_bench: %s\n", stop_err);
            ok = false;
        }
    }
    zmq_ctx_term (ctx);
    dlq_buf_free (&config);
    if (ok && !check_rows (pg, table, ev->count, err, sizeof err))
        ok = false;
    if (ok && !pg->have_like) {             /* the plugin's DDL, for (ii) and (iii) */
        snprintf (pg->like, sizeof pg->like, "%s_like", pg->prefix);
        char sql [256];
        snprintf (sql, sizeof sql, "CREATE TABLE \"%s\" (LIKE \"%s\" INCLUDING ALL)", pg->like, table);
        ok = pg->have_like = exec_ok (pg, sql, err, sizeof err);
    }
    if (!ok)
        fprintf (stderr, "dlqd_bench: postgres sink run %zu: %s\n", run->number, err);
    if (!o->keep)
        drop_table (pg, table);
    run->failed = !ok;
}


/* ------------------------------------------------------------------------ */
/* (iv) the sink draining a stored backlog (bench_sink_drain) */

static void
run_drain (const bench_postgres_options_t *o, bench_pg_t *pg, const char *dir,
           const bench_events_t *ev, run_t *run)
{
    char path [4096], err [ERR_LEN] = "", table [64];
    snprintf (path, sizeof path, "%s/postgres-drain-%zu", dir, run->number);
    snprintf (table, sizeof table, "%s_drain%zu", pg->prefix, run->number);
    dlq_buf_t config = DLQ_BUF_INIT;
    sink_config (o, table, &config);
    const bench_sink_dlqd_t dlqd = { o->dlqd, o->clients, o->window, o->ready_ms, o->reply_timeout_ms,
                                     o->stop_ms };
    bench_sink_drain_t d;
    bool ok = bench_sink_drain (&dlqd, path, SINK_NAME, config.data, ev, &d, err, sizeof err);
    dlq_buf_free (&config);
    run->eps = d.eps;
    run->seconds = d.seconds;
    run->load_eps = d.load_eps;
    run->ping_ms = d.ping_ms;
    if (ok && !check_rows (pg, table, ev->count, err, sizeof err))
        ok = false;
    if (!ok)
        fprintf (stderr, "dlqd_bench: postgres sink drain run %zu: %s\n", run->number, err);
    if (!o->keep)
        drop_table (pg, table);
    run->failed = !ok;
}


/* ------------------------------------------------------------------------ */
/* (ii) raw COPY */

/* Append value in COPY's text format (\N for NULL). */
static void
copy_value (dlq_buf_t *out, const char *value)
{
    if (!value) {
        dlq_buf_puts (out, "\\N");
        return;
    }
    const char *run = value, *p = value;
    for (; *p; p++) {
        const char *escape = *p == '\\' ? "\\\\" : *p == '\n' ? "\\n" : *p == '\r' ? "\\r"
                           : *p == '\t' ? "\\t" : NULL;
        if (!escape)
            continue;
        dlq_buf_append (out, run, (size_t) (p - run));
        dlq_buf_puts (out, escape);
        run = p + 1;
    }
    dlq_buf_append (out, run, (size_t) (p - run));
}

static bool
copy_chunk (bench_pg_t *pg, const char *sql, size_t from, size_t to, dlq_buf_t *text,
            char *err, size_t err_len)
{
    PGresult *r = PQexec (pg->db, sql);
    if (PQresultStatus (r) != PGRES_COPY_IN) {
        snprintf (err, err_len, "%s: %s", sql, PQresultErrorMessage (r));
        PQclear (r);
        return false;
    }
    PQclear (r);
    dlq_buf_reset (text);
    for (size_t i = from; i < to; i++) {
        for (int c = 0; c < COLS; c++) {
            if (c)
                dlq_buf_putc (text, '\t');
            copy_value (text, pg->rows [i].value [c]);
        }
        dlq_buf_putc (text, '\n');
    }
    bool ok = PQputCopyData (pg->db, text->data, (int) text->len) == 1
           && PQputCopyEnd (pg->db, NULL) == 1;
    while ((r = PQgetResult (pg->db))) {
        if (PQresultStatus (r) != PGRES_COMMAND_OK && ok) {
            snprintf (err, err_len, "COPY: %s", PQresultErrorMessage (r));
            ok = false;
        }
        PQclear (r);
    }
    if (!ok && !err [0])
        snprintf (err, err_len, "COPY: %s", PQerrorMessage (pg->db));
    return ok;
}

static void
run_copy (const bench_postgres_options_t *o, bench_pg_t *pg, run_t *run)
{
    char err [ERR_LEN] = "", sql [512], table [64];
    snprintf (table, sizeof table, "%s_copy%zu", pg->prefix, run->number);
    bool ok = create_like (pg, table, err, sizeof err);
    snprintf (sql, sizeof sql, "COPY \"%s\" (%s) FROM STDIN", table, column_list);
    dlq_buf_t text = DLQ_BUF_INIT;
    int64_t start = dlq_time_mono_ns ();
    for (size_t i = 0; ok && i < pg->count; i += BENCH_POSTGRES_COPY_ROWS) {
        size_t to = i + BENCH_POSTGRES_COPY_ROWS < pg->count ? i + BENCH_POSTGRES_COPY_ROWS : pg->count;
        ok = copy_chunk (pg, sql, i, to, &text, err, sizeof err);
    }
    run->seconds = (double) (dlq_time_mono_ns () - start) / 1e9;
    dlq_buf_free (&text);
    if (ok)
        ok = check_rows (pg, table, pg->count, err, sizeof err);
    if (!ok)
        fprintf (stderr, "dlqd_bench: raw COPY run %zu: %s\n", run->number, err);
    if (!o->keep)
        drop_table (pg, table);
    run->eps = ok && run->seconds > 0 ? (double) pg->count / run->seconds : 0;
    run->failed = !ok;
}


/* ------------------------------------------------------------------------ */
/* (iii) naive */

static bool
run_naive (const bench_postgres_options_t *o, bench_pg_t *pg, size_t count, bench_postgres_result_t *out)
{
    char err [ERR_LEN] = "", table [64];
    snprintf (table, sizeof table, "%s_naive", pg->prefix);
    if (!create_like (pg, table, err, sizeof err)) {
        fprintf (stderr, "dlqd_bench: naive INSERT: %s\n", err);
        return false;
    }
    dlq_buf_t sql = DLQ_BUF_INIT;
    dlq_buf_printf (&sql, "INSERT INTO \"%s\" (%s) VALUES (", table, column_list);
    for (int c = 0; c < COLS; c++)
        dlq_buf_printf (&sql, "%s$%d", c ? ", " : "", c + 1);
    dlq_buf_puts (&sql, ") ON CONFLICT (id) DO NOTHING");
    PGresult *r = PQprepare (pg->db, "naive", sql.data, COLS, NULL);
    bool ok = PQresultStatus (r) == PGRES_COMMAND_OK;
    if (!ok)
        snprintf (err, sizeof err, "%s: %s", sql.data, PQresultErrorMessage (r));
    PQclear (r);
    dlq_buf_free (&sql);
    int64_t start = dlq_time_mono_ns ();
    for (size_t i = 0; ok && i < count; i++) {
        r = PQexecPrepared (pg->db, "naive", COLS, pg->rows [i].value, NULL, NULL, 0);
        if (PQresultStatus (r) != PGRES_COMMAND_OK) {
            snprintf (err, sizeof err, "INSERT: %s", PQresultErrorMessage (r));
            ok = false;
        }
        PQclear (r);
    }
    double seconds = (double) (dlq_time_mono_ns () - start) / 1e9;
    if (ok)
        ok = check_rows (pg, table, count, err, sizeof err);
    if (!o->keep)
        drop_table (pg, table);
    if (!ok) {
        fprintf (stderr, "dlqd_bench: naive INSERT: %s\n", err);
        return false;
    }
    out->naive_eps = seconds > 0 ? (double) count / seconds : 0;
    printf ("naive INSERT    : %7.0f events/s  (%zu rows in %.2f s, one INSERT + commit each)\n",
            out->naive_eps, count, seconds);
    return true;
}


/* ------------------------------------------------------------------------ */

static bool
connect_db (bench_pg_t *pg, const char *conninfo)
{
    pg->db = PQconnectdb (conninfo);
    if (PQstatus (pg->db) != CONNECTION_OK) {
        fprintf (stderr, "dlqd_bench: cannot connect to PostgreSQL (%s): %s", conninfo,
                 PQerrorMessage (pg->db));
        return false;
    }
    char err [ERR_LEN];
    if (!exec_ok (pg, "SET TimeZone = 'UTC'", err, sizeof err)
    ||  !exec_ok (pg, "SET client_min_messages = warning", err, sizeof err)) {
        fprintf (stderr, "dlqd_bench: %s\n", err);
        return false;
    }
    PGresult *r = PQexec (pg->db, "SELECT current_setting('server_version'), current_setting('fsync'),"
                                  " current_setting('synchronous_commit')");
    if (PQresultStatus (r) == PGRES_TUPLES_OK && PQntuples (r) == 1)
        printf ("postgres        : server %s, fsync %s, synchronous_commit %s; tables %s_*\n",
                PQgetvalue (r, 0, 0), PQgetvalue (r, 0, 1), PQgetvalue (r, 0, 2), pg->prefix);
    PQclear (r);
    return true;
}

static const char *const kind_names [RUN_KINDS] = {
    [RUN_SINK] = "sink", [RUN_COPY] = "raw COPY", [RUN_DRAIN] = "sink drain"
};

static void
print_run (const run_t *r, size_t count)
{
    if (r->failed) {
        printf ("  %-14s: FAILED (see above)\n", kind_names [r->kind]);
        return;
    }
    if (r->number == 0) {
        printf ("  warm-up %-6s: %7.0f events/s  (%.2f s, not counted)\n", r->kind == RUN_SINK ? "sink" : "COPY",
                r->eps, r->seconds);
        return;
    }
    if (r->kind == RUN_DRAIN)
        printf ("  sink drain #%-2zu: %7.0f events/s  (restart (PING) -> all %zu delivered in %.2f s; exec ->"
                " PING %.0f ms; load without the sink: acks %.0f events/s)\n", r->number, r->eps, count,
                r->seconds, r->ping_ms, r->load_eps);
    else
    if (r->kind == RUN_SINK) {
        printf ("  sink #%-8zu: %7.0f events/s  (first PUT -> all %zu delivered in %.2f s; acks %.0f"
                " events/s; done %.0f ms after the last ack", r->number, r->eps, count, r->seconds,
                r->ingest_eps, r->drained_ms);
        if (r->alone_eps > 0)
            printf (", %.0f events/s from then on", r->alone_eps);
        printf (")\n");
    }
    else
        printf ("  raw COPY #%-4zu: %7.0f events/s  (%zu rows in %.2f s)\n", r->number, r->eps, count,
                r->seconds);
}

/* Median of a field of one kind's runs (all of them completed). */
static double
median (const run_t *runs, size_t count, run_kind_t kind, size_t offset)
{
    double values [RUN_KINDS * 100];
    size_t n = 0;
    for (size_t i = 0; i < count; i++)
        if (runs [i].kind == kind)
            memcpy (&values [n++], (const char *) &runs [i] + offset, sizeof (double));
    return bench_median (values, n);
}

static void
summarise (const run_t *runs, size_t count, size_t repeat, bench_postgres_result_t *out)
{
    out->sink_eps = median (runs, count, RUN_SINK, offsetof (run_t, eps));
    out->ingest_eps = median (runs, count, RUN_SINK, offsetof (run_t, ingest_eps));
    out->drained_ms = median (runs, count, RUN_SINK, offsetof (run_t, drained_ms));
    out->copy_eps = median (runs, count, RUN_COPY, offsetof (run_t, eps));
    out->drain_eps = median (runs, count, RUN_DRAIN, offsetof (run_t, eps));
    printf ("postgres sink   : %7.0f events/s  (median of %zu; first PUT -> delivered = N, backlog 0)\n",
            out->sink_eps, repeat);
    printf ("postgres sink (drain): %7.0f events/s  (median of %zu; restart (PING) with a stored backlog"
            " of N -> delivered = N, backlog 0)\n", out->drain_eps, repeat);
    printf ("raw COPY %-7d: %7.0f events/s  (median of %zu; one COPY + commit per %d rows)\n",
            BENCH_POSTGRES_COPY_ROWS, out->copy_eps, repeat, BENCH_POSTGRES_COPY_ROWS);
}

static void
print_ratios (const bench_postgres_result_t *out)
{
    double vs_copy = out->copy_eps > 0 ? out->sink_eps / out->copy_eps : 0;
    char naive [48] = "n/a";
    if (out->naive_eps > 0)
        snprintf (naive, sizeof naive, "%.1fx", out->sink_eps / out->naive_eps);
    printf ("postgres ratios : sink / raw COPY %.2f (target >= %.2f: %s), sink / naive %s\n",
            vs_copy, BENCH_POSTGRES_TARGET_COPY,
            vs_copy >= BENCH_POSTGRES_TARGET_COPY ? "met" : "MISSED", naive);
    double drain_vs_copy = out->copy_eps > 0 ? out->drain_eps / out->copy_eps : 0;
    printf ("postgres ratios : sink (drain) / raw COPY %.2f (target >= %.2f: %s)\n",
            drain_vs_copy, BENCH_POSTGRES_TARGET_COPY,
            drain_vs_copy >= BENCH_POSTGRES_TARGET_COPY ? "met" : "MISSED");
}

bool
bench_postgres_run (const bench_postgres_options_t *o, const char *dir, const bench_events_t *ev,
                    bench_postgres_result_t *out)
{
    memset (out, 0, sizeof *out);
    bench_pg_t pg = { 0 };
    unsigned tag = (unsigned) getpid () ^ (unsigned) (dlq_time_now_ms () & 0xffffff);
    snprintf (pg.prefix, sizeof pg.prefix, "dlq_bench_%x", tag);
    size_t repeat = o->repeat == 0 ? 1 : o->repeat > 100 ? 100 : o->repeat, count = RUN_KINDS * repeat;
    char err [ERR_LEN] = "";
    bool ok = connect_db (&pg, o->conninfo);
    if (ok && !make_rows (&pg, ev, err, sizeof err)) {
        fprintf (stderr, "dlqd_bench: %s\n", err);
        ok = false;
    }
    if (ok)
        printf ("postgres runs   : a warm-up (a sink run of %zu events, whose table the others copy, then"
                " a COPY run), then %zu of each, alternating, a CHECKPOINT before each\n",
                ev->count < WARM_UP_SINK_EVENTS ? ev->count : WARM_UP_SINK_EVENTS, repeat);
    if (ok)
        printf ("postgres runs   : and %zu sink drain runs among them (load N into a dlqd without the sink,"
                " SIGTERM, restart on the same data dir with the sink in the default chain; timed from"
                " PING answered)\n", repeat);
    if (ok && o->settings)
        printf ("postgres sink   : with %s\n", o->settings);
    /* Not counted: the first runs on a fresh cluster also create its WAL
     * segments, which later runs recycle. */
    bench_events_t few = *ev;
    few.count = ev->count < WARM_UP_SINK_EVENTS ? ev->count : WARM_UP_SINK_EVENTS;
    run_t warm_sink = { .kind = RUN_SINK, .number = 0 }, warm_copy = { .kind = RUN_COPY, .number = 0 };
    if (ok && (ok = settle (&pg))) {
        run_sink (o, &pg, dir, &few, &warm_sink);
        print_run (&warm_sink, few.count);
        ok = !warm_sink.failed;
    }
    if (ok && (ok = settle (&pg))) {
        run_copy (o, &pg, &warm_copy);
        print_run (&warm_copy, ev->count);
        ok = !warm_copy.failed;
    }
    run_t runs [RUN_KINDS * 100];
    memset (runs, 0, sizeof runs);
    for (size_t i = 0; ok && i < count; i++) {
        /* rounds rotate which kind goes first: sink copy drain, copy drain
         * sink, drain sink copy, ... */
        size_t round = i / RUN_KINDS;
        runs [i].kind = (run_kind_t) ((i + round) % RUN_KINDS);
        runs [i].number = round + 1;
        ok = settle (&pg);
        if (!ok)
            break;
        if (runs [i].kind == RUN_SINK)
            run_sink (o, &pg, dir, ev, &runs [i]);
        else
        if (runs [i].kind == RUN_COPY)
            run_copy (o, &pg, &runs [i]);
        else
            run_drain (o, &pg, dir, ev, &runs [i]);
        print_run (&runs [i], ev->count);
        ok = !runs [i].failed;
    }
    if (ok)
        summarise (runs, count, repeat, out);
    if (ok && o->naive_events)
        ok = settle (&pg) && run_naive (o, &pg, o->naive_events < ev->count ? o->naive_events : ev->count, out);
    if (ok)
        print_ratios (out);
    if (pg.db && PQstatus (pg.db) == CONNECTION_OK) {
        if (o->keep)
            printf ("kept tables     : %s_*\n", pg.prefix);
        else
        if (pg.have_like)
            drop_table (&pg, pg.like);
    }
    PQfinish (pg.db);
    free_rows (&pg);
    out->failed = !ok;
    return ok;
}
