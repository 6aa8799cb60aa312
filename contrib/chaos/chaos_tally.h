/*  chaos_tally — what one place (GET, a sink's table, queue, topic or
 *  file) holds of a chaos run's events, and how that compares with what
 *  it must hold.
 *
 *  Records are added as a reader finds them (an id and a body); the
 *  summary is taken against the run's events: every event the gateway
 *  stored (chaos_event_t.stored: GET found it) must be there, acknowledged
 *  or not, with exactly the bytes that were sent.
 */
#ifndef DLQ_CHAOS_TALLY_H
#define DLQ_CHAOS_TALLY_H

#include "chaos_events.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    const char           *name;
    const chaos_events_t *events;
    uint32_t             *copies;       /* per event: records of it */
    size_t                records;      /* every record added */
    size_t                altered;      /* records of an event with other bytes than were sent */
    size_t                foreign;      /* records with no id of this run */
    bool                  read;         /* the reader got to the end */
    char                  error [512];  /* why not */
} chaos_tally_t;

/* What a tally found, against the events. */
typedef struct {
    size_t expected;            /* events stored by the gateway */
    size_t present;             /* of those, found at least once */
    size_t missing;             /* of those, not found */
    size_t lost;                /* acknowledged events not found */
    size_t duplicates;          /* records beyond the first of an event */
    size_t unstored;            /* found, yet the gateway does not hold it */
} chaos_tally_summary_t;

void chaos_tally_init (chaos_tally_t *tally, const char *name, const chaos_events_t *events);

void chaos_tally_free (chaos_tally_t *tally);

/* Add one record: the event's id (NULL or not this run's: foreign) and
 * its body as the place holds it. */
void chaos_tally_add (chaos_tally_t *tally, const char *id, size_t id_len, const char *body,
                      size_t body_len);

/* The same, with a (void *) tally: the readers' callback. */
void chaos_tally_add_record (void *tally, const char *id, size_t id_len, const char *body,
                             size_t body_len);

void chaos_tally_summarize (const chaos_tally_t *tally, chaos_tally_summary_t *out);

#endif
