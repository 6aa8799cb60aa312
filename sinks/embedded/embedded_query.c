/*  embedded_query — filtered LIST, COUNT and GROUPS; see embedded_query.h. */
#include "embedded_query.h"

#include "dlq_json.h"
#include "dlq_time.h"
#include "embedded_internal.h"
#include "fingerprint.h"

#include <stdio.h>
#include <string.h>

#define BINDS_MAX (16 + 3 * DLQ_FILTER_METADATA_MAX)

typedef enum { BIND_TEXT, BIND_INT, BIND_REAL } bind_type_t;

typedef struct {
    bind_type_t type;
    const char *text;               /* BIND_TEXT: owned by the filter, or by owned [] */
    int64_t     integer;
    double      real;
} bind_t;

/* A statement being written: its SQL and its parameters, in order. */
typedef struct {
    dlq_buf_t sql;
    bind_t    binds [BINDS_MAX];
    int       count;
    dlq_buf_t owned [2 * DLQ_FILTER_METADATA_MAX + 1];   /* text made here (paths, patterns) */
    int       owned_count;
} query_t;

static void
bind_text (query_t *q, const char *text)
{
    q->binds [q->count++] = (bind_t) { .type = BIND_TEXT, .text = text };
}

static void
bind_int (query_t *q, int64_t n)
{
    q->binds [q->count++] = (bind_t) { .type = BIND_INT, .integer = n };
}

static const char *
own (query_t *q, dlq_buf_t *text)
{
    q->owned [q->owned_count] = *text;
    return q->owned [q->owned_count++].data;
}

/* "AND <column> = ?" for a string filter that is set. */
static void
equal (query_t *q, const char *column, const char *value)
{
    if (!value)
        return;
    dlq_buf_printf (&q->sql, " AND %s = ?", column);
    bind_text (q, value);
}

/* dlq_contains (message, text): messageContains' rule, in linear time. */
static void
sql_contains (sqlite3_context *context, int argc, sqlite3_value **argv)
{
    (void) argc;
    const char *message = (const char *) sqlite3_value_text (argv [0]);
    const char *text = (const char *) sqlite3_value_text (argv [1]);
    if (!message || !text)
        sqlite3_result_int (context, 0);
    else
        sqlite3_result_int (context, dlq_event_filter_contains (message, (size_t) sqlite3_value_bytes (argv [0]),
                                                                text));
}

int
dlq_embedded_query_functions (sqlite3 *db)
{
    return sqlite3_create_function_v2 (db, "dlq_contains", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
                                       sql_contains, NULL, NULL, NULL);
}

/* error.message contains text (read from the body: only the rows the
 * other filters leave are looked at). */
static void
contains (query_t *q, const char *text)
{
    if (!text)
        return;
    dlq_buf_puts (&q->sql, " AND dlq_contains (json_extract (body, '$.error.message'), ?)");
    bind_text (q, text);
}

/* One metadata pair: the member's JSON type, and its value. */
static void
metadata_pair (query_t *q, const dlq_filter_pair_t *pair)
{
    dlq_buf_t path = DLQ_BUF_INIT;
    dlq_buf_puts (&path, "$.metadata.");
    dlq_json_write_string (&path, pair->key, strlen (pair->key));     /* a quoted label */
    const char *p = own (q, &path);
    switch (pair->type) {
        case DLQ_JSON_STRING:
            dlq_buf_puts (&q->sql, " AND json_type (body, ?) = 'text' AND json_extract (body, ?) = ?");
            bind_text (q, p);
            bind_text (q, p);
            bind_text (q, pair->text);
            break;
        case DLQ_JSON_NUMBER:
            dlq_buf_puts (&q->sql, " AND json_type (body, ?) IN ('integer', 'real') AND json_extract (body, ?) = ?");
            bind_text (q, p);
            bind_text (q, p);
            q->binds [q->count++] = (bind_t) { .type = BIND_REAL, .real = pair->number };
            break;
        default:
            dlq_buf_printf (&q->sql, " AND json_type (body, ?) = '%s'", pair->type == DLQ_JSON_TRUE ? "true" : "false");
            bind_text (q, p);
            break;
    }
}

/* " FROM events WHERE <unexpired> AND <each filter>". */
static void
where (query_t *q, const dlq_event_filter_t *f, int64_t now_ms)
{
    dlq_buf_puts (&q->sql, " FROM events WHERE (expires_at IS NULL OR expires_at > ?)");
    bind_int (q, now_ms);
    equal (q, "stream_name", f->stream);
    equal (q, "status", f->status);
    equal (q, "error_type", f->error_type);
    equal (q, "fingerprint", f->fingerprint);
    if (f->has_created_after) {
        dlq_buf_puts (&q->sql, " AND created_at >= ?");
        bind_int (q, f->created_after);
    }
    if (f->has_created_before) {
        dlq_buf_puts (&q->sql, " AND created_at < ?");
        bind_int (q, f->created_before);
    }
    if (f->has_attempts_min) {
        dlq_buf_puts (&q->sql, " AND attempts >= ?");
        bind_int (q, f->attempts_min);
    }
    if (f->has_attempts_max) {
        dlq_buf_puts (&q->sql, " AND attempts <= ?");
        bind_int (q, f->attempts_max);
    }
    contains (q, f->message_contains);
    for (size_t i = 0; i < f->metadata_count; i++)
        metadata_pair (q, &f->metadata [i]);
}

static void
query_free (query_t *q)
{
    dlq_buf_free (&q->sql);
    for (int i = 0; i < q->owned_count; i++)
        dlq_buf_free (&q->owned [i]);
}

/* Prepare q on the store's connection and bind its parameters. */
static sqlite3_stmt *
prepare (dlq_embedded_t *self, query_t *q, const char *what)
{
    if (self->schema_version < SCHEMA_VERSION_FILTERS) {
        embedded_fail_text (self, "%s: the store is at schema version %lld; filters need version %d"
                            " (the gateway's writer upgrades it when it starts)", what,
                            (long long) self->schema_version, SCHEMA_VERSION_FILTERS);
        return NULL;
    }
    sqlite3_stmt *stmt = NULL;
    if (sqlite3_prepare_v2 (self->db, q->sql.data, (int) q->sql.len, &stmt, NULL) != SQLITE_OK) {
        embedded_fail_sqlite (self, what);
        return NULL;
    }
    for (int i = 0; i < q->count; i++) {
        const bind_t *b = &q->binds [i];
        if (b->type == BIND_TEXT)
            sqlite3_bind_text (stmt, i + 1, b->text, -1, SQLITE_STATIC);
        else if (b->type == BIND_INT)
            sqlite3_bind_int64 (stmt, i + 1, b->integer);
        else
            sqlite3_bind_double (stmt, i + 1, b->real);
    }
    return stmt;
}

/* ---- LIST ----------------------------------------------------------------------- */

dlq_store_result_t
dlq_embedded_query_list (dlq_embedded_t *self, const dlq_event_filter_t *filter, size_t limit,
                         const char *cursor, int64_t now_ms, dlq_buf_t *events_out, dlq_buf_t *next_cursor_out)
{
    dlq_buf_reset (events_out);
    dlq_buf_reset (next_cursor_out);
    int64_t created_at = 0, seq = 0;
    bool after = cursor && *cursor;
    if (after && !embedded_parse_cursor (cursor, &created_at, &seq))
        return DLQ_STORE_BAD_CURSOR;
    query_t q = { .sql = DLQ_BUF_INIT };
    dlq_buf_puts (&q.sql, "SELECT created_at, seq, body");
    where (&q, filter, now_ms);
    if (after) {
        dlq_buf_puts (&q.sql, " AND (created_at < ? OR (created_at = ? AND seq < ?))");
        bind_int (&q, created_at);
        bind_int (&q, created_at);
        bind_int (&q, seq);
    }
    dlq_buf_puts (&q.sql, " ORDER BY created_at DESC, seq DESC LIMIT ?");
    bind_int (&q, (int64_t) limit + 1);
    sqlite3_stmt *stmt = prepare (self, &q, "list");
    bool ok = stmt && embedded_collect_page (self, stmt, limit, events_out, next_cursor_out);
    sqlite3_finalize (stmt);
    query_free (&q);
    return ok ? DLQ_STORE_OK : DLQ_STORE_ERROR;
}

/* ---- COUNT ------------------------------------------------------------------------ */

#define COUNT_SLICE 1024        /* seqs a scanning COUNT reads per read transaction */

/* Only streamName, if anything: the running counts answer. */
static bool
counts_answer (const dlq_event_filter_t *f)
{
    dlq_event_filter_t rest = *f;
    rest.stream = NULL;
    return dlq_event_filter_is_empty (&rest);
}

/* The integer the one-row statement sql answers, its parameters :now
 * and :stream (those it has) bound to now_ms and stream. */
static bool
count_value (dlq_embedded_t *self, const char *sql, int64_t now_ms, const char *stream, int64_t *out)
{
    sqlite3_stmt *stmt = NULL;
    bool ok = sqlite3_prepare_v2 (self->db, sql, -1, &stmt, NULL) == SQLITE_OK;
    if (ok) {
        int now_at = sqlite3_bind_parameter_index (stmt, ":now");
        int stream_at = sqlite3_bind_parameter_index (stmt, ":stream");
        if (now_at)
            sqlite3_bind_int64 (stmt, now_at, now_ms);
        if (stream_at)
            sqlite3_bind_text (stmt, stream_at, stream, -1, SQLITE_STATIC);
        ok = sqlite3_step (stmt) == SQLITE_ROW;
    }
    if (ok)
        *out = sqlite3_column_int64 (stmt, 0);
    sqlite3_finalize (stmt);
    return ok;
}

/* COUNT of every event or of one stream: the running counts of the
 * stream_counts table (kept by every append and sweep) less the expired
 * events the sweep has not removed yet (through the expiry index), read in
 * one transaction: the same number as counting the rows, without reading
 * a million of them. */
static bool
count_from_totals (dlq_embedded_t *self, const char *stream, int64_t now_ms, int64_t *count_out)
{
    bool own = sqlite3_get_autocommit (self->db) && sqlite3_exec (self->db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK;
    int64_t total = 0, expired = 0;
    bool ok = stream
        ? count_value (self, "SELECT coalesce ((SELECT events FROM stream_counts WHERE stream_name = :stream), 0)",
                       now_ms, stream, &total)
       && count_value (self, "SELECT count (*) FROM events WHERE expires_at IS NOT NULL AND expires_at <= :now"
                       " AND +stream_name = :stream", now_ms, stream, &expired)     /* the expiry index */
        : count_value (self, "SELECT coalesce (sum (events), 0) FROM stream_counts", now_ms, NULL, &total)
       && count_value (self, "SELECT count (*) FROM events WHERE expires_at IS NOT NULL AND expires_at <= :now",
                       now_ms, NULL, &expired);
    if (!ok)
        embedded_fail_sqlite (self, "count");
    if (own)
        sqlite3_exec (self->db, "COMMIT", NULL, NULL, NULL);
    *count_out = total - expired;
    return ok;
}

/* Does an index narrow the rows a filter reads (stream, fingerprint, a
 * createdAt range)? */
static bool
narrowed (const dlq_event_filter_t *f)
{
    return f->stream || f->fingerprint || f->has_created_after || f->has_created_before;
}

/* COUNT of a filter no index narrows (status, errorType, attempts,
 * messageContains, metadata: every event is read) in slices of COUNT_SLICE
 * seqs (about a millisecond each), each its own read transaction, up to the highest
 * seq when it starts. A reader holding one transaction through a million
 * events (seconds) keeps every checkpoint from finishing meanwhile: the
 * write-ahead log grows by all that is written (300 MB in 8 s at 2,000
 * PUTs/s), and the commit after the count copies it all back while the
 * PUTs behind it wait; between slices it can start over (embedded_wal.h:
 * a slice pauses when the writer asks for it). An event is counted as it
 * was when its slice was read. */
static bool
count_in_slices (dlq_embedded_t *self, const dlq_event_filter_t *filter, int64_t now_ms, int64_t *count_out)
{
    int64_t first = 0, last = 0;
    if (!count_value (self, "SELECT coalesce (min (seq), 1) - 1 FROM events", 0, NULL, &first)
    ||  !count_value (self, "SELECT coalesce (max (seq), 0) FROM events", 0, NULL, &last)) {
        embedded_fail_sqlite (self, "count");
        return false;
    }
    query_t q = { .sql = DLQ_BUF_INIT };
    dlq_buf_puts (&q.sql, "SELECT count (*)");
    where (&q, filter, now_ms);
    int lo = q.count + 1;
    dlq_buf_printf (&q.sql, " AND seq > ?%d AND seq <= ?%d", lo, lo + 1);
    sqlite3_stmt *stmt = prepare (self, &q, "count");
    bool ok = stmt != NULL, idle = false;
    *count_out = 0;
    for (int64_t from = first; ok && from < last; from += COUNT_SLICE) {
        sqlite3_bind_int64 (stmt, lo, from);
        sqlite3_bind_int64 (stmt, lo + 1, from + COUNT_SLICE < last ? from + COUNT_SLICE : last);
        ok = sqlite3_step (stmt) == SQLITE_ROW;
        if (ok)
            *count_out += sqlite3_column_int64 (stmt, 0);
        else
            embedded_fail_sqlite (self, "count");
        sqlite3_reset (stmt);       /* ends the slice's read transaction */
        embedded_wal_pause (&idle);
    }
    sqlite3_finalize (stmt);
    query_free (&q);
    return ok;
}

dlq_store_result_t
dlq_embedded_query_count (dlq_embedded_t *self, const dlq_event_filter_t *filter, int64_t now_ms, int64_t *count_out)
{
    if (self->schema_version >= SCHEMA_VERSION_FILTERS && counts_answer (filter))
        return count_from_totals (self, filter->stream, now_ms, count_out) ? DLQ_STORE_OK : DLQ_STORE_ERROR;
    if (!narrowed (filter))
        return count_in_slices (self, filter, now_ms, count_out) ? DLQ_STORE_OK : DLQ_STORE_ERROR;
    query_t q = { .sql = DLQ_BUF_INIT };
    dlq_buf_puts (&q.sql, "SELECT count (*)");
    where (&q, filter, now_ms);
    sqlite3_stmt *stmt = prepare (self, &q, "count");
    bool ok = stmt && sqlite3_step (stmt) == SQLITE_ROW;
    if (ok)
        *count_out = sqlite3_column_int64 (stmt, 0);
    else if (stmt)
        embedded_fail_sqlite (self, "count");
    sqlite3_finalize (stmt);
    query_free (&q);
    return ok ? DLQ_STORE_OK : DLQ_STORE_ERROR;
}

/* ---- GROUPS --------------------------------------------------------------------- */

static void
put_time (dlq_buf_t *out, const char *name, int64_t ms)
{
    char iso [DLQ_TIME_ISO_LEN + 1];
    dlq_time_format_iso (ms, iso);
    dlq_buf_printf (out, ",\"%s\":\"%s\"", name, iso);
}

static void
put_text (dlq_buf_t *out, const char *name, sqlite3_stmt *stmt, int column)
{
    dlq_buf_printf (out, ",\"%s\":", name);
    const char *text = (const char *) sqlite3_column_text (stmt, column);
    if (text)
        dlq_json_write_string (out, text, (size_t) sqlite3_column_bytes (stmt, column));
    else
        dlq_buf_puts (out, "null");
}

/* One group's JSON from a row of the GROUPS statement. */
static void
write_group (dlq_buf_t *out, sqlite3_stmt *stmt)
{
    dlq_buf_puts (out, "{\"fingerprint\":");
    const char *fingerprint = (const char *) sqlite3_column_text (stmt, 0);
    if (fingerprint)
        dlq_json_write_string (out, fingerprint, (size_t) sqlite3_column_bytes (stmt, 0));
    else
        dlq_buf_puts (out, "null");
    dlq_buf_printf (out, ",\"count\":%lld", (long long) sqlite3_column_int64 (stmt, 1));
    put_time (out, "firstSeen", sqlite3_column_int64 (stmt, 2));
    put_time (out, "lastSeen", sqlite3_column_int64 (stmt, 3));
    dlq_buf_puts (out, ",\"streams\":");
    dlq_buf_append (out, sqlite3_column_text (stmt, 4), (size_t) sqlite3_column_bytes (stmt, 4));
    put_text (out, "errorType", stmt, 5);
    dlq_buf_t normalised = DLQ_BUF_INIT;
    const char *message = (const char *) sqlite3_column_text (stmt, 6);
    if (message)
        dlq_fingerprint_normalise_message (message, (size_t) sqlite3_column_bytes (stmt, 6), &normalised);
    dlq_buf_puts (out, ",\"message\":");
    dlq_json_write_string (out, normalised.data ? normalised.data : "", normalised.len);
    dlq_buf_free (&normalised);
    put_text (out, "sampleId", stmt, 7);
    dlq_buf_putc (out, '}');
}

/* " AND stream_name = ?" when f names a stream (bound), else nothing. */
static void
and_stream (query_t *q, const dlq_event_filter_t *f, const char *column)
{
    if (!f->stream)
        return;
    dlq_buf_printf (&q->sql, " AND %s = ?", column);
    bind_text (q, f->stream);
}

/* " AND (expires_at IS NULL OR expires_at > ?)" (bound to now_ms). */
static void
and_unexpired (query_t *q, int64_t now_ms)
{
    dlq_buf_puts (&q->sql, " AND (expires_at IS NULL OR expires_at > ?)");
    bind_int (q, now_ms);
}

/* GROUPS from fingerprint_counts (schema version 4): each group's count
 * and streams are the running counts less the expired events the sweep
 * has not removed yet (read through the expiry index: few); its firstSeen
 * and lastSeen, and its sample (the newest), are the oldest and newest
 * unexpired events of the group (two walks of events_by_fingerprint), for
 * the groups that can make the answer only: those with at least the
 * count of the limit-th biggest (ties included, since lastSeen orders
 * them). The same answer as the scan, without reading every event. */
static void
groups_from_counts (query_t *q, const dlq_event_filter_t *f, size_t limit, int64_t now_ms)
{
    dlq_buf_puts (&q->sql, "WITH x AS (SELECT fingerprint, stream_name, count (*) AS n FROM events"
                           " WHERE expires_at IS NOT NULL AND expires_at <= ?");
    bind_int (q, now_ms);
    and_stream (q, f, "+stream_name");  /* "+": the expiry index, not the stream's (all its events) */
    dlq_buf_puts (&q->sql, " GROUP BY fingerprint, stream_name),"
                           " c AS (SELECT fc.fingerprint, fc.stream_name, fc.events - coalesce (x.n, 0) AS n,"
                           " fc.error_type FROM fingerprint_counts AS fc LEFT JOIN x"
                           " ON x.fingerprint = fc.fingerprint AND x.stream_name = fc.stream_name WHERE 1");
    and_stream (q, f, "fc.stream_name");
    dlq_buf_puts (&q->sql, "), g AS MATERIALIZED (SELECT fingerprint, sum (n) AS n,"
                           " json_group_array (stream_name) AS streams, max (error_type) AS error_type"
                           " FROM c WHERE n > 0 GROUP BY fingerprint),"
                           " t AS (SELECT * FROM g WHERE n >= coalesce ((SELECT n FROM g ORDER BY n DESC"
                           " LIMIT 1 OFFSET ?), 0))"
                           " SELECT t.fingerprint, t.n, (SELECT created_at FROM events"
                           " WHERE fingerprint = t.fingerprint");
    bind_int (q, limit > 0 ? (int64_t) limit - 1 : 0);
    and_unexpired (q, now_ms);
    and_stream (q, f, "stream_name");
    /* ORDER BY ... LIMIT 1, not min (): the walk stops at the first match */
    dlq_buf_puts (&q->sql, " ORDER BY created_at, seq LIMIT 1) AS first_seen, s.created_at AS last_seen,"
                           " t.streams, t.error_type,"
                           " json_extract (s.body, '$.error.message'), s.id"
                           " FROM t JOIN events AS s ON s.seq = (SELECT seq FROM events"
                           " WHERE fingerprint = t.fingerprint");
    and_unexpired (q, now_ms);
    and_stream (q, f, "stream_name");
    dlq_buf_puts (&q->sql, " ORDER BY created_at DESC, seq DESC LIMIT 1)"
                           " ORDER BY t.n DESC, last_seen DESC LIMIT ?");
}

/* GROUPS by reading every matching event. */
static void
groups_from_events (query_t *q, const dlq_event_filter_t *f, int64_t now_ms)
{
    dlq_buf_puts (&q->sql, "SELECT fingerprint, count (*) AS n, min (created_at), max (created_at),"
                           " json_group_array (DISTINCT stream_name), error_type,"
                           " json_extract (body, '$.error.message'), id");
    where (q, f, now_ms);
    dlq_buf_puts (&q->sql, " GROUP BY fingerprint ORDER BY n DESC, max (created_at) DESC LIMIT ?");
}

dlq_store_result_t
dlq_embedded_query_groups (dlq_embedded_t *self, const dlq_event_filter_t *filter, size_t limit, int64_t now_ms,
                           dlq_buf_t *groups_out)
{
    dlq_buf_reset (groups_out);
    query_t q = { .sql = DLQ_BUF_INIT };
    if (counts_answer (filter))
        groups_from_counts (&q, filter, limit, now_ms);
    else
        groups_from_events (&q, filter, now_ms);
    bind_int (&q, (int64_t) limit);
    sqlite3_stmt *stmt = prepare (self, &q, "groups");
    int rc = SQLITE_DONE;
    size_t rows = 0;
    dlq_buf_putc (groups_out, '[');
    while (stmt && (rc = sqlite3_step (stmt)) == SQLITE_ROW) {
        if (rows++)
            dlq_buf_putc (groups_out, ',');
        write_group (groups_out, stmt);
    }
    dlq_buf_putc (groups_out, ']');
    bool ok = stmt && rc == SQLITE_DONE;
    if (stmt && !ok)
        embedded_fail_sqlite (self, "groups");
    sqlite3_finalize (stmt);
    query_free (&q);
    return ok ? DLQ_STORE_OK : DLQ_STORE_ERROR;
}
