/*  replay_job — what a replay job replays and how, as stored with the job
 *  (job_store.h keeps the text): the normalised request
 *      {"target":"route"|"endpoint","rate":n,"filter":{...}}   or
 *      {"target":...,"rate":n,"ids":["uuid",...]}
 *      {"target":...,"rate":n,"ids":["uuid"],"replacement":{...}}
 *  (the last: one event replayed as a corrected copy, the replacement's
 *  canonical JSON) read back into a plan, and a job's JSON as the REPLAY verbs answer it.
 */
#ifndef DLQ_REPLAY_JOB_H
#define DLQ_REPLAY_JOB_H

#include "dlq_buf.h"
#include "dlq_code.h"
#include "dlq_json.h"
#include "replay_job_record.h"
#include "event_filter.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DLQ_REPLAY_IDS_MAX 10000

typedef struct {
    bool                to_endpoint;    /* target "endpoint", else each stream's replay_route */
    int64_t             rate;           /* events per second */
    bool                by_ids;
    dlq_event_filter_t  filter;         /* when !by_ids */
    char              (*ids) [37];      /* when by_ids */
    size_t              id_count;
    char               *replacement;    /* by one id: the event sent instead of the stored one (its
                                         * canonical JSON, owned; the stored one never changes), or NULL */
} dlq_replay_plan_t;

/* Write the stored request of a plan. Pure. */
void dlq_replay_plan_write (const dlq_replay_plan_t *plan, dlq_buf_t *out);

/* Read a stored request (len bytes) into plan (zeroed first); false when it
 * is not one (plan left empty). */
bool dlq_replay_plan_read (const char *json, size_t len, dlq_replay_plan_t *plan);

/* Set plan's selection to ids, a JSON array of 1 to DLQ_REPLAY_IDS_MAX
 * UUID strings (an id given twice is kept once); false when it is not
 * one. */
bool dlq_replay_plan_read_ids (const dlq_json_value_t *ids, dlq_replay_plan_t *plan);

/* Free what plan holds; it is zeroed. */
void dlq_replay_plan_free (dlq_replay_plan_t *plan);

/* Append a job as {"job":...,"state":...,"target":...,"rate":n,"total":n,
 * "done":n,"replayed":n,"skipped":n,"quarantined":n,"failed":n,
 * "createdAt":"ISO","updatedAt":"ISO"[,"lastError":"..."]}. Pure. */
void dlq_replay_job_format (const dlq_replay_job_t *job, dlq_buf_t *out);

#endif
