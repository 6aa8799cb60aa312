/*  mongo_groups — the workbench's GROUPS on the mongo sink (query_groups
 *  of dlq_sink_workbench_ops_t): the matching events per error
 *  fingerprint, most events first (then the most recently seen), in the
 *  shape of sinks/embedded/embedded_query.h:
 *    {"fingerprint":"...","count":n,"firstSeen":"<ISO>","lastSeen":"<ISO>",
 *     "streams":["...",...],"errorType":"...","message":"<normalised>",
 *     "sampleId":"..."}
 *
 *  Each collection the filter runs on (mongo_query.h) answers one
 *  aggregate, [{$match: <the filter's query>}, {$group: {_id:
 *  "$_fw_fingerprint", n: {$sum: 1}, first/last: {$min/$max:
 *  "$createdAt"}, streams: {$addToSet: "$streamName"}, and $first of
 *  error.type, error.message and _id}}]: the server reads the matching
 *  events, only the groups come back. The collections' groups are merged
 *  here (counts added, streams united), sorted, and the first limit
 *  written. The sample (errorType, message, sampleId) is one event of the
 *  group. Documents without a fingerprint (stored before it was) form
 *  the group "fingerprint":null. Only unexpired events count (unlike the
 *  embedded store's running counts, nothing is kept up to date as events
 *  arrive: the cost is the aggregate's scan of the matching events).
 */
#ifndef DLQ_MONGO_GROUPS_H
#define DLQ_MONGO_GROUPS_H

#include "dlq_sink.h"

dlq_sink_status_t dlq_mongo_query_groups (void *instance, const char *filter_json, size_t limit, int64_t now_ms,
                                          dlq_sink_buf_t *groups_out);

#endif
