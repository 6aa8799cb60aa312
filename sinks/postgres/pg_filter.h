/*  pg_filter — the failure workbench's filtered queries on the postgres
 *  sink's table as SQL text with their parameters (pure: no libpq), for
 *  LIST (a page, newest first), COUNT and GROUPS.
 *
 *  Each filter of event_filter.h is one condition on the row's columns,
 *  combined with AND, after the one that excludes expired rows
 *  (expires_at <= now):
 *      streamName, status, errorType, fingerprint   column = $n
 *      createdAfter / createdBefore                 created_at >= / < $n
 *      attemptsMin / attemptsMax                    attempts >= / <= $n
 *      metadata {"k": v}                            metadata -> $k = $v::jsonb
 *          (v as JSON: a string equals only a string, a number any equal
 *          number, 1 = 1.0 = 1e0, true / false only themselves)
 *      messageContains                              error_message ILIKE $n COLLATE "C"
 *          ('%text%' with LIKE's %, _ and \ escaped; the C collation folds
 *          ASCII letters only, as the filter's rule says, whatever the
 *          database's locale)
 *  Every value is a parameter, sent as text and cast in the SQL.
 *
 *  The condition of each member is on an indexed column where one helps:
 *  stream_name (the LIST index), fingerprint, created_at, status; the rest
 *  are checked on the rows those leave.
 */
#ifndef DLQ_PG_FILTER_H
#define DLQ_PG_FILTER_H

#include "dlq_buf.h"
#include "event_filter.h"
#include "pg_format.h"
#include "pg_sql.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Most parameters of a statement: now, 9 plain filters, 2 per metadata
 * pair, a cursor (2) and a limit. */
#define DLQ_PG_FILTER_PARAMS_MAX (13 + 2 * DLQ_FILTER_METADATA_MAX)

/* A statement and its text parameters ($1 = values [0], ...). The
 * values point into text; they are set by the builders, and valid until
 * the query is freed. */
typedef struct {
    dlq_buf_t    sql;
    dlq_buf_t    text;                              /* the values, each followed by a NUL */
    size_t       offset [DLQ_PG_FILTER_PARAMS_MAX];
    const char  *values [DLQ_PG_FILTER_PARAMS_MAX];
    int          lengths [DLQ_PG_FILTER_PARAMS_MAX];
    int          count;
} dlq_pg_query_t;

#define DLQ_PG_QUERY_INIT { .sql = DLQ_BUF_INIT, .text = DLQ_BUF_INIT }

/* Where a LIST page starts: after the row (created_us, id) of a cursor. */
typedef struct {
    int64_t created_us;
    char    id [DLQ_PG_UUID_LEN];
} dlq_pg_after_t;

/* One page of filter's unexpired rows at now_ms, newest first (created_at
 * DESC, id DESC), at most fetch rows, after `after` when not NULL. Rows:
 * payload_text, created_at in µs, id (as dlq_pg_sql_list's). */
void dlq_pg_filter_list (dlq_pg_query_t *q, const dlq_pg_names_t *names, const dlq_event_filter_t *filter,
                         int64_t now_ms, const dlq_pg_after_t *after, size_t fetch);

/* How many unexpired rows at now_ms filter matches: one row, one int8. */
void dlq_pg_filter_count (dlq_pg_query_t *q, const dlq_pg_names_t *names, const dlq_event_filter_t *filter,
                          int64_t now_ms);

/* The groups (by fingerprint) of filter's unexpired rows at now_ms, most
 * rows first, then the most recent, then by fingerprint, at most limit.
 * Rows: fingerprint (NULL for rows stored before version 2), count, first
 * and last created_at in ms, the streams (a JSON array), and a sample's
 * error_type, error_message and id (the group's greatest id). */
void dlq_pg_filter_groups (dlq_pg_query_t *q, const dlq_pg_names_t *names, const dlq_event_filter_t *filter,
                           int64_t now_ms, size_t limit);

/* Free what q holds; it is empty and reusable afterwards. */
void dlq_pg_query_free (dlq_pg_query_t *q);

/* The LIKE pattern '%text%' with LIKE's special characters (%, _, \)
 * escaped with a backslash, appended to out. */
void dlq_pg_like_contains (dlq_buf_t *out, const char *text);

#endif
