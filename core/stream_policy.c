/*  stream_policy — per-stream DlqPolicy lookup and application.
 *
 *  The table is a small open-addressing hash (FNV-1a), built once from the
 *  config and then only read, so lookups from any thread are safe.
 */
#include "stream_policy.h"

#include "dlq_alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MS_PER_DAY 86400000LL

/* The last instant a timestamp holds, 9999-12-31T23:59:59.999Z (dlq_time.h:
 * years 0001-9999): a later expiry is this one, so that the stored body,
 * which writes every timestamp as ISO-8601, keeps it. */
#define LAST_INSTANT_MS 253402300799999LL

typedef struct {
    char        *stream;
    dlq_policy_t policy;
} entry_t;

struct dlq_policy_table {
    dlq_policy_t defaults;
    entry_t     *slots;
    size_t       capacity;          /* power of two */
    size_t       count;
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

static uint64_t
fnv1a (const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char) *s) * 1099511628211ULL;
    return h;
}

dlq_policy_table_t *
dlq_policy_table_new (const dlq_policy_t *defaults)
{
    dlq_policy_table_t *self = dlq_calloc (1, sizeof *self);
    self->defaults = *defaults;
    self->capacity = 16;
    self->slots = dlq_calloc (self->capacity, sizeof (entry_t));
    return self;
}

static entry_t *
find_slot (entry_t *slots, size_t capacity, const char *stream)
{
    size_t i = (size_t) fnv1a (stream) & (capacity - 1);
    while (slots [i].stream && strcmp (slots [i].stream, stream) != 0)
        i = (i + 1) & (capacity - 1);
    return &slots [i];
}

static void
grow (dlq_policy_table_t *self)
{
    size_t capacity = self->capacity * 2;
    entry_t *slots = dlq_calloc (capacity, sizeof (entry_t));
    for (size_t i = 0; i < self->capacity; i++)
        if (self->slots [i].stream)
            *find_slot (slots, capacity, self->slots [i].stream) = self->slots [i];
    free (self->slots);
    self->slots = slots;
    self->capacity = capacity;
}

void
dlq_policy_table_set (dlq_policy_table_t *self, const char *stream, const dlq_policy_t *policy)
{
    if ((self->count + 1) * 2 > self->capacity)
        grow (self);
    entry_t *slot = find_slot (self->slots, self->capacity, stream);
    if (!slot->stream) {
        slot->stream = dlq_strdup (stream);
        self->count++;
    }
    slot->policy = *policy;
}

const dlq_policy_t *
dlq_policy_table_lookup (const dlq_policy_table_t *self, const char *stream)
{
    if (self->count == 0)
        return &self->defaults;
    entry_t *slot = find_slot (self->slots, self->capacity, stream);
    return slot->stream ? &slot->policy : &self->defaults;
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
    for (size_t i = 0; i < self->capacity; i++)
        free (self->slots [i].stream);
    free (self->slots);
    free (self);
    *self_p = NULL;
}
