/*  mongo_query — the workbench's filtered LIST and COUNT on the mongo
 *  sink (query_list, query_count of dlq_sink_workbench_ops_t): the
 *  filter as a query (mongo_filter.h) run on the stream's collection, or
 *  on every collection _fw_dlq_streams registers.
 *
 *  LIST: on each collection, a find of the page (after the cursor:
 *  createdAt < c, or = c and _id < id) sorted {createdAt: -1, _id: -1}
 *  (the LIST index), limit + 1 documents; the answers are merged here,
 *  newest first, and the page is the first limit of them (a next cursor
 *  when one more exists). A page thus reads up to (limit + 1) documents
 *  per collection. Cursors are LIST's ("<createdAt ms>.<id>"); one this
 *  sink did not make is BAD_CURSOR.
 *  COUNT: the sum of count_documents over the collections.
 */
#ifndef DLQ_MONGO_QUERY_H
#define DLQ_MONGO_QUERY_H

#include "dlq_sink.h"
#include "event_filter.h"
#include "mongo_lookup.h"

dlq_sink_status_t dlq_mongo_query_list (void *instance, const char *filter_json, size_t limit, const char *cursor,
                                        int64_t now_ms, dlq_sink_buf_t *events_out, dlq_sink_buf_t *cursor_out);

dlq_sink_status_t dlq_mongo_query_count (void *instance, const char *filter_json, int64_t now_ms,
                                         int64_t *count_out);

#endif
