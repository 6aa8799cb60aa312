/*  stream_policy — per-stream DlqPolicy lookup and application.
 *
 *  The table is a dlq_strmap of the streams that have a policy of their
 *  own, built once from the config and then only read, so lookups from any
 *  thread are safe.
 */
#include "stream_policy.h"

#include "dlq_alloc.h"
#include "dlq_strmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MS_PER_DAY 86400000LL

/* The last instant a timestamp holds, 9999-12-31T23:59:59.999Z (dlq_time.h:
 * years 0001-9999): a later expiry is this one, so that the stored body,
 * which writes every timestamp as ISO-8601, keeps it. */
#define LAST_INSTANT_MS 253402300799999LL

struct dlq_policy_table {
    dlq_policy_t  defaults;
    dlq_strmap_t *streams;          /* stream name -> its dlq_policy_t (owned) */
};

void
dlq_policy_apply (const dlq_policy_t *policy, dlq_event_t *event)
{
    if (!policy->include_original_document)
        dlq_event_drop (event, &event->full_document);
    if (!policy->include_stack_trace)
        dlq_event_drop (event, &event->error_stack_trace);
    int64_t expires = event->created_at + policy->retention_days * MS_PER_DAY;
    event->expires_at = policy->retention_days <= 0 ? DLQ_TIME_NONE
                      : expires < LAST_INSTANT_MS ? expires : LAST_INSTANT_MS;
}

dlq_policy_table_t *
dlq_policy_table_new (const dlq_policy_t *defaults)
{
    dlq_policy_table_t *self = dlq_calloc (1, sizeof *self);
    self->defaults = *defaults;
    self->streams = dlq_strmap_new (free);
    return self;
}

void
dlq_policy_table_set (dlq_policy_table_t *self, const char *stream, const dlq_policy_t *policy)
{
    dlq_policy_t *own = dlq_strmap_get (self->streams, stream);
    if (!own) {
        own = dlq_malloc (sizeof *own);
        dlq_strmap_put (self->streams, stream, own);
    }
    *own = *policy;
}

const dlq_policy_t *
dlq_policy_table_lookup (const dlq_policy_table_t *self, const char *stream)
{
    const dlq_policy_t *own = dlq_strmap_size (self->streams) ? dlq_strmap_get (self->streams, stream) : NULL;
    return own ? own : &self->defaults;
}

bool
dlq_policy_table_has (const dlq_policy_table_t *self, const char *stream)
{
    return dlq_policy_table_lookup (self, stream) != &self->defaults;
}

void
dlq_policy_table_destroy (dlq_policy_table_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_policy_table_t *self = *self_p;
    dlq_strmap_destroy (&self->streams);
    free (self);
    *self_p = NULL;
}
