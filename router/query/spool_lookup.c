/*  spool_lookup — an event by id from the spool.
 */
#include "spool_lookup.h"

#include "dlq_alloc.h"
#include "dlq_log.h"
#include "dlq_time.h"
#include "event_record.h"
#include "spool_kinds.h"

#include <stdlib.h>
#include <string.h>

struct dlq_spool_lookup {
    dlq_spool_t        *spool;
    dlq_id_index_t     *ids;
    dlq_spool_reader_t *reader;
};

dlq_spool_lookup_t *
dlq_spool_lookup_new (dlq_spool_t *spool, dlq_id_index_t *ids)
{
    dlq_spool_lookup_t *self = dlq_calloc (1, sizeof *self);
    self->spool = spool;
    self->ids = ids;
    self->reader = dlq_spool_reader_new (spool, 0);
    return self;
}

void
dlq_spool_lookup_destroy (dlq_spool_lookup_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_spool_reader_destroy (&(*self_p)->reader);
    free (*self_p);
    *self_p = NULL;
}

dlq_event_t *
dlq_spool_lookup_get (dlq_spool_lookup_t *self, const char *id, int64_t now_ms)
{
    size_t id_len = strlen (id);
    uint64_t position;
    if (!dlq_id_index_get (self->ids, dlq_id_index_hash (id, id_len), &position))
        return NULL;
    dlq_spool_reader_seek (self->reader, position);
    dlq_spool_entry_t e;
    char err [512];
    dlq_spool_result_t rc = dlq_spool_reader_next (self->reader, &e, err, sizeof err);
    if (rc == DLQ_SPOOL_CORRUPT || rc == DLQ_SPOOL_ERROR)
        dlq_log (DLQ_LOG_ERROR, "GET %s from the spool: %s", id, err);
    if (rc != DLQ_SPOOL_OK || e.kind != DLQ_SPOOL_KIND_EVENT)
        return NULL;                /* released since: the store has it */
    const char *stored;
    size_t stored_len;
    if (!dlq_event_record_id (e.payload, e.length, &stored, &stored_len) || stored_len != id_len
        || memcmp (stored, id, id_len) != 0)
        return NULL;                /* another id with the same hash */
    dlq_event_t *event = dlq_event_record_decode (e.payload, e.length);
    if (event && event->expires_at != DLQ_TIME_NONE && event->expires_at <= now_ms)
        dlq_event_destroy (&event);
    return event;
}
