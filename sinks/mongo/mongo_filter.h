/*  mongo_filter — the workbench's filters (event_filter.h) as MongoDB
 *  queries on the event documents (mongo_doc.h), as pure functions (no
 *  server): unit-tested in tests/test_mongo_doc.c, checked against the
 *  reference predicate in tests/itest_mongo_workbench.c.
 *
 *  Every query takes only unexpired events (expiresAt absent, or > now:
 *  {expiresAt: {$not: {$lte: now}}}) that have a body (_fw_body), and
 *  adds, for each filter that is set:
 *      streamName, status, error.type, _fw_fingerprint   equality
 *      createdAt       {$gte: createdAfter, $lt: createdBefore} (dates)
 *      attempts        {$gte: attemptsMin, $lte: attemptsMax}
 *      error.message   {$regex: <messageContains>}: the text with ASCII
 *                      letters as [xX] classes and the regex's own
 *                      characters escaped; no "i" option, which in
 *                      MongoDB's PCRE (UTF-8 mode) also folds non-ASCII
 *                      letters (É / é) where messageContains does not
 *      metadata.KEY    equality with the value (a number as a double:
 *                      MongoDB compares numbers across types, as the
 *                      reference compares them as doubles), and
 *                      metadata.KEY.0 absent: an array holding the value
 *                      matches an equality in MongoDB, not the reference
 *  Which collections a query runs on is the caller's (the stream's, or
 *  every registered one); streamName is in the query all the same, since
 *  streams may share a collection.
 */
#ifndef DLQ_MONGO_FILTER_H
#define DLQ_MONGO_FILTER_H

#include "dlq_buf.h"
#include "event_filter.h"

#include <bson/bson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The query of the unexpired events filter matches at now_ms into query
 * (initialised by the call). */
void dlq_mongo_filter_query (const dlq_event_filter_t *filter, int64_t now_ms, bson_t *query);

/* Add to query (made by dlq_mongo_filter_query) the page condition: the
 * events after (created_at, id) in LIST order, createdAt desc then _id
 * desc. */
void dlq_mongo_filter_after (bson_t *query, int64_t created_at, const char *id);

/* Append to out the regular expression that finds text as
 * messageContains does (ASCII letters either case, every other byte as
 * itself). */
void dlq_mongo_contains_pattern (const char *text, dlq_buf_t *out);

#endif
