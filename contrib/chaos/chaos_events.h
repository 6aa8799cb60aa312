/*  chaos_events — the FailedEvents a chaos run sends, and what became of
 *  each one.
 *
 *  Every event is generated before the run, in canonical form (see
 *  docs/failed-event.md, "Canonical form": the fields in the record's order, compact,
 *  minimal escaping, expiresAt = createdAt + the default 30 days), so
 *  that GET and every sink must give back exactly its bytes. Its id is
 *  made from the run's tag and its index, "TTTTTTTT-c4a0-4000-8000-IIIIIIIIIIII"
 *  (I: the index in hex), so an id read back from a sink leads straight to
 *  its event. The events cycle over CHAOS_EVENTS_STREAMS streams; their
 *  bodies vary in operation type, attempts, status, optional fields and
 *  strings that need escaping (quotes, a backslash, line breaks, tabs,
 *  non-ASCII UTF-8).
 *
 *  The outcome fields are written by the one load client that owns the
 *  event while the load runs, and read by everyone after it is joined.
 */
#ifndef DLQ_CHAOS_EVENTS_H
#define DLQ_CHAOS_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CHAOS_EVENTS_STREAMS 3
#define CHAOS_EVENTS_ID_LEN  36

typedef struct {
    char     id [CHAOS_EVENTS_ID_LEN + 1];
    uint8_t  stream;            /* index into chaos_events_stream_names */
    char    *body;              /* canonical JSON, NUL-terminated */
    size_t   body_len;

    /* the load (chaos_load) */
    uint16_t attempts;          /* PUTs sent for it */
    uint16_t slot;              /* its in-flight slot + 1 in its client; 0 when none */
    bool     acked;             /* an OK reply came */
    bool     dup_acked;         /* an OK reply said "duplicate":true */
    bool     refused;           /* its last PUT was answered UNAVAILABLE (and none OK) */
    bool     uncertain;         /* a PUT of it went without a reply (connection lost, timeout) */
    bool     rejected;          /* an ERR other than UNAVAILABLE */

    /* the checks (chaos_verify) */
    bool     stored;            /* GET found it */
    bool     get_altered;       /* GET gave other bytes than were sent */
} chaos_event_t;

typedef struct {
    chaos_event_t *items;
    size_t         count;
    char           tag [9];     /* the ids' first group */
} chaos_events_t;

/* The stream names ("chaos-orders", ...). */
extern const char *const chaos_events_stream_names [CHAOS_EVENTS_STREAMS];

/* Generate count events from seed. Free them with chaos_events_free. */
void chaos_events_make (chaos_events_t *events, size_t count, uint64_t seed);

void chaos_events_free (chaos_events_t *events);

/* The index of the event whose id is the len bytes of id, or -1 when it
 * is none of this run's (another form, another tag, an index past the
 * end). */
long chaos_events_find (const chaos_events_t *events, const char *id, size_t len);

#endif
