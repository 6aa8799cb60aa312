/*  filter_oracle — the workbench's filtered queries checked against the
 *  reference predicate (event_filter.h), for any store: a set of varied
 *  events (streams, statuses, error types and messages, attempts,
 *  metadata, creation times, some expired) and a table of filters alone
 *  and combined; LIST paged to the end must give exactly the matching
 *  unexpired events, newest first, each once; COUNT their number; GROUPS
 *  one group per fingerprint with the reference's facts.
 *
 *  A suite stores the events in its store (test_embedded_query, the
 *  contract suite's contract_workbench for any store plugin) and hands the oracle
 *  the store's LIST, COUNT and GROUPS calls (filter_oracle_calls_t; a
 *  sink plugin's: plugin_workbench.h).
 *  Every function fails the calling test (Criterion) on a disagreement.
 */
#ifndef FILTER_ORACLE_H
#define FILTER_ORACLE_H

#include "dlq_buf.h"
#include "event_filter.h"
#include "event_support.h"
#include "failed_event.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FILTER_ORACLE_EVENTS 600                    /* the varied events */
#define FILTER_ORACLE_NOW    EVENT_RECEIVED_AT     /* their clock, and the queries' */

/* How varied the events (and so the filters) are; each adds to the one
 * before it. */
typedef enum {
    FILTER_ORACLE_PLAIN,    /* ASCII messages, metadata of numbers and booleans */
    FILTER_ORACLE_TYPED,    /* a non-ASCII message with % and ', a shard written 2.0 or as a string */
    FILTER_ORACLE_ARRAYS    /* regular expression characters in a message, metadata values in arrays */
} filter_oracle_variety_t;

/* A store's queries, at FILTER_ORACLE_NOW, of request (a LIST filter's
 * JSON object) or of f (what it parses to). Each must succeed: the call
 * fails the test otherwise.
 *   list: the page of at most limit events after cursor (NULL: the first)
 *         as a JSON array into page, the next cursor into next (empty
 *         after the last page);
 *   count: the number of matching unexpired events;
 *   groups: at most limit groups as a JSON array into out. */
typedef struct {
    void    (*list) (void *store, const char *request, const dlq_event_filter_t *f, size_t limit,
                     const char *cursor, dlq_buf_t *page, dlq_buf_t *next);
    int64_t (*count) (void *store, const char *request, const dlq_event_filter_t *f);
    void    (*groups) (void *store, const char *request, const dlq_event_filter_t *f, size_t limit,
                       dlq_buf_t *out);
} filter_oracle_calls_t;

typedef struct {
    const filter_oracle_calls_t *calls;
    void                        *store;     /* handed to the calls */
    dlq_event_t *const          *events;    /* what the store holds */
    size_t                       stored;    /* events [0, stored) */
    bool                         bodies;    /* LIST's events compared body by body (else by id) */
} filter_oracle_t;

/* Varied event i (0 <= i < FILTER_ORACLE_EVENTS) as the store holds it
 * (event_stored): its fields cycle through tables with different periods;
 * one in ten expired, one in ten kept forever, the rest for 30 days. */
dlq_event_t *filter_oracle_event (filter_oracle_variety_t variety, int i);

/* The filters for events of variety: the k-th, or NULL after the last. */
const char *filter_oracle_filter (filter_oracle_variety_t variety, size_t k);

/* request parsed into f (the test fails when it does not parse). */
void filter_oracle_parse (const char *request, dlq_event_filter_t *f);

/* The stored events f takes (unexpired), in LIST order (createdAt, then
 * id, descending): indexes into o->events, into out (room for o->stored). */
size_t filter_oracle_expected (const filter_oracle_t *o, const dlq_event_filter_t *f, int *out);

/* The stored event of id (len bytes), or NULL. */
const dlq_event_t *filter_oracle_event_by_id (const filter_oracle_t *o, const char *id, size_t len);

/* LIST of request paged by page_size to the end agrees with the
 * reference, event by event; then COUNT. */
void filter_oracle_expect_list (const filter_oracle_t *o, const char *request, size_t page_size);

/* Each filter of variety: LIST in pages of 7 and of 1000, and COUNT. */
void filter_oracle_expect_filters (const filter_oracle_t *o, filter_oracle_variety_t variety);

/* A fingerprint filter of every 37th stored event: LIST in pages of 5. */
void filter_oracle_expect_fingerprints (const filter_oracle_t *o);

/* GROUPS of request: one group per fingerprint of the matching events,
 * most events first (then the latest), each with the reference's count,
 * firstSeen, lastSeen, streams, a matching sampleId, errorType and
 * normalised message; together every matching event. */
void filter_oracle_expect_groups (const filter_oracle_t *o, const char *request);

/* GROUPS of each filter of variety; then a limit of 2 gives two groups. */
void filter_oracle_expect_all_groups (const filter_oracle_t *o, filter_oracle_variety_t variety);

#endif
