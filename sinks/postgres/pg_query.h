/*  pg_query — the failure workbench's filtered queries on the postgres
 *  sink's table: query_list, query_count and query_groups of
 *  dlq_sink_workbench_ops_t (dlq_sink.h), one statement each (pg_filter.h
 *  builds it).
 *
 *  filter_json is parsed with core's event_filter (the gateway validated
 *  it already: a filter that does not parse is an ERROR). Answers:
 *      list    a JSON array of payload_text, newest first (created_at
 *              DESC, id DESC), and the cursor "<created_at in µs>.<id>"
 *              of the page's last row when more rows match: the plain
 *              LIST's cursor, parsed as strictly (BAD_CURSOR)
 *      count   the number of matching unexpired rows
 *      groups  a JSON array of {"fingerprint","count","firstSeen",
 *              "lastSeen","streams","errorType","message","sampleId"}, as
 *              the embedded store's (embedded_query.h), message being the
 *              sample's error.message normalised as the fingerprint does
 *  Expired rows (expires_at <= now_ms) never count, GROUPS included (the
 *  embedded store's running counts include them until the sweep; this
 *  store has none, and reads the matching rows: a GROUPS over a large
 *  table without a narrowing filter reads the whole table). Rows stored
 *  before version 2 have no fingerprint: they form one group whose
 *  fingerprint is null.
 */
#ifndef DLQ_PG_QUERY_H
#define DLQ_PG_QUERY_H

#include "dlq_sink.h"

#include <stddef.h>
#include <stdint.h>

dlq_sink_status_t dlq_pg_query_list (void *instance, const char *filter_json, size_t limit, const char *cursor,
                                     int64_t now_ms, dlq_sink_buf_t *events_out, dlq_sink_buf_t *cursor_out);

dlq_sink_status_t dlq_pg_query_count (void *instance, const char *filter_json, int64_t now_ms, int64_t *count_out);

dlq_sink_status_t dlq_pg_query_groups (void *instance, const char *filter_json, size_t limit, int64_t now_ms,
                                       dlq_sink_buf_t *groups_out);

#endif
