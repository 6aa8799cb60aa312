/*  embedded_query — the failure workbench's queries on the embedded store:
 *  LIST with filters (across streams or within one), COUNT and GROUPS
 *  (events per error fingerprint), each a SQL statement built from an
 *  event_filter.h filter and run on a reader's (or the writer's)
 *  connection.
 *
 *  Each filter is a condition on a column of events (schema version 4):
 *  stream_name, status, error_type and fingerprint by equality,
 *  created_at and attempts by range, the body's error.message through
 *  dlq_contains (the filter's own linear search, event_filter.h: SQLite's
 *  LIKE '%text%' costs length x pattern, 3.5 s for one 1 MiB message and
 *  a 1 KiB pattern), metadata pairs on the body with json_type /
 *  json_extract.
 *  Expired events (expires_at <= now) are never part of an answer. The
 *  indexes (by stream from version 1; by created_at and by fingerprint
 *  from version 4) let SQLite narrow by stream or fingerprint, or walk
 *  every event newest first, and read pages without sorting; the other
 *  filters are checked on the rows it walks.
 */
#ifndef DLQ_EMBEDDED_QUERY_H
#define DLQ_EMBEDDED_QUERY_H

#include "dlq_buf.h"
#include "embedded_store.h"
#include "event_filter.h"

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

/* Register the SQL functions the queries call (dlq_contains) on db:
 * every connection that runs them. SQLITE_OK or SQLite's error code. */
int dlq_embedded_query_functions (sqlite3 *db);

/* A page of the events filter matches, newest first (created_at desc, seq
 * desc), after cursor (a nextCursor of this call; NULL or "" for the
 * first page): as dlq_embedded_list, whose cursors it shares. */
dlq_store_result_t dlq_embedded_query_list (dlq_embedded_t *self, const dlq_event_filter_t *filter, size_t limit,
                                            const char *cursor, int64_t now_ms,
                                            dlq_buf_t *events_out, dlq_buf_t *next_cursor_out);

/* How many unexpired events filter matches. */
dlq_store_result_t dlq_embedded_query_count (dlq_embedded_t *self, const dlq_event_filter_t *filter,
                                             int64_t now_ms, int64_t *count_out);

/* The fingerprints of the events filter matches, most events first (then
 * the most recent), at most limit: groups_out gets a JSON array of
 *   {"fingerprint":"...","count":n,"firstSeen":"<ISO>","lastSeen":"<ISO>",
 *    "streams":["...",...],"errorType":"...","message":"<normalised>",
 *    "sampleId":"..."}
 * (message: a sample's error.message normalised as the fingerprint does;
 * sampleId: one of the group's events), of the unexpired events only.
 * With no filter but streamName the counts come from the running counts
 * (fingerprint_counts) less the expired events not swept yet, and
 * firstSeen, lastSeen and the sample (the newest) from two index walks
 * per group; with any other filter from the matching events themselves. */
dlq_store_result_t dlq_embedded_query_groups (dlq_embedded_t *self, const dlq_event_filter_t *filter,
                                              size_t limit, int64_t now_ms, dlq_buf_t *groups_out);

#endif
