/*  chaos_tally — counting records per event; see chaos_tally.h. */
#include "chaos_tally.h"

#include "dlq_alloc.h"

#include <stdlib.h>
#include <string.h>

void
chaos_tally_init (chaos_tally_t *tally, const char *name, const chaos_events_t *events)
{
    memset (tally, 0, sizeof *tally);
    tally->name = name;
    tally->events = events;
    tally->copies = dlq_calloc (events->count ? events->count : 1, sizeof *tally->copies);
}

void
chaos_tally_free (chaos_tally_t *tally)
{
    free (tally->copies);
    tally->copies = NULL;
}

void
chaos_tally_add (chaos_tally_t *tally, const char *id, size_t id_len, const char *body,
                 size_t body_len)
{
    tally->records++;
    long i = id ? chaos_events_find (tally->events, id, id_len) : -1;
    if (i < 0) {
        tally->foreign++;
        return;
    }
    const chaos_event_t *e = &tally->events->items [i];
    tally->copies [i]++;
    if (body_len != e->body_len || memcmp (body, e->body, body_len) != 0)
        tally->altered++;
}

void
chaos_tally_add_record (void *tally, const char *id, size_t id_len, const char *body,
                        size_t body_len)
{
    chaos_tally_add (tally, id, id_len, body, body_len);
}

void
chaos_tally_summarize (const chaos_tally_t *tally, chaos_tally_summary_t *out)
{
    memset (out, 0, sizeof *out);
    for (size_t i = 0; i < tally->events->count; i++) {
        const chaos_event_t *e = &tally->events->items [i];
        uint32_t copies = tally->copies [i];
        if (copies > 1)
            out->duplicates += copies - 1;
        if (e->stored) {
            out->expected++;
            if (copies)
                out->present++;
            else
                out->missing++;
        } else if (copies) {
            out->unstored++;
        }
        if (e->acked && !copies)
            out->lost++;
    }
}
