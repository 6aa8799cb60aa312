/*  event_ordinal — event counts from the ordinals of event records.
 */
#include "event_ordinal.h"

#include "checkpoint_record.h"
#include "event_record.h"
#include "mark_record.h"
#include "spool_kinds.h"

#include <inttypes.h>
#include <stdio.h>

/* The event count a record carries: an event its ordinal, a checkpoint
 * write or a mark the ordinal of the event before it. False when it has
 * none (another kind, or damaged). */
static bool
record_events (const dlq_spool_entry_t *e, uint64_t *ordinal_out)
{
    dlq_mark_record_t mark;
    switch (e->kind) {
        case DLQ_SPOOL_KIND_EVENT: return dlq_event_record_ordinal (e->payload, e->length, ordinal_out);
        case DLQ_SPOOL_KIND_CHECKPOINT: return dlq_checkpoint_record_events (e->payload, e->length, ordinal_out);
        case DLQ_SPOOL_KIND_MARK:
            if (!dlq_mark_record_decode (e->payload, e->length, &mark))
                return false;
            *ordinal_out = mark.events;
            return true;
        default: return false;
    }
}

/* From the reader's position on, the ordinal of the first event record:
 * OK with it, END when there is none up to the tip, else the failure. */
static dlq_spool_result_t
first_event (dlq_spool_reader_t *reader, uint64_t *ordinal_out, char *err, size_t err_len)
{
    dlq_spool_entry_t e;
    dlq_spool_result_t rc;
    while ((rc = dlq_spool_reader_next (reader, &e, err, err_len)) == DLQ_SPOOL_OK) {
        if (e.kind != DLQ_SPOOL_KIND_EVENT)
            continue;
        if (dlq_event_record_ordinal (e.payload, e.length, ordinal_out))
            return DLQ_SPOOL_OK;
        snprintf (err, err_len, "the event record at %" PRIu64 " of the spool has no ordinal", e.position);
        return DLQ_SPOOL_CORRUPT;
    }
    if (rc == DLQ_SPOOL_GONE)
        snprintf (err, err_len, "the spool no longer holds the records read for an event count");
    return rc;
}

bool
dlq_event_ordinal_last (dlq_spool_t *spool, uint64_t *ordinal_out, char *err, size_t err_len)
{
    *ordinal_out = 0;
    uint64_t last = dlq_spool_last (spool);
    if (last == 0)
        return true;
    /* the newest record tells, whatever its kind (record_events) */
    dlq_spool_reader_t *reader = dlq_spool_reader_new (spool, last);
    dlq_spool_entry_t e;
    dlq_spool_result_t rc = dlq_spool_reader_next (reader, &e, err, err_len);
    bool ok = rc == DLQ_SPOOL_OK && record_events (&e, ordinal_out);
    dlq_spool_reader_destroy (&reader);
    if (rc == DLQ_SPOOL_OK && !ok)
        snprintf (err, err_len, "the newest record of the spool (at %" PRIu64 ", kind %u) has no event count",
                  last, (unsigned) e.kind);
    else
    if (rc == DLQ_SPOOL_END || rc == DLQ_SPOOL_GONE)
        snprintf (err, err_len, "the newest record of the spool (at %" PRIu64 ") cannot be read", last);
    return ok;
}

bool
dlq_event_ordinal_through (dlq_spool_t *spool, int64_t after, uint64_t *ordinal_out, char *err, size_t err_len)
{
    uint64_t begin = dlq_spool_begin (spool);
    dlq_spool_reader_t *reader = dlq_spool_reader_new (spool, begin);
    dlq_spool_result_t rc = DLQ_SPOOL_OK;
    bool past = false;                  /* the answer is the next event's ordinal less one */
    if (after >= 0 && (uint64_t) after >= begin) {
        dlq_spool_entry_t own;
        dlq_spool_reader_seek (reader, (uint64_t) after);
        rc = dlq_spool_reader_next (reader, &own, err, err_len);
        if (rc == DLQ_SPOOL_OK && (own.kind == DLQ_SPOOL_KIND_EVENT || own.kind == DLQ_SPOOL_KIND_CHECKPOINT
                                   || own.kind == DLQ_SPOOL_KIND_MARK)) {
            /* the record at after tells (record_events; the payload is the
             * reader's: read it before the reader goes) */
            bool ok = record_events (&own, ordinal_out);
            dlq_spool_reader_destroy (&reader);
            if (!ok)
                snprintf (err, err_len, "the record at %" PRId64 " of the spool has no event count", after);
            return ok;
        }
    }
    uint64_t next = 0;
    if (rc == DLQ_SPOOL_OK) {
        rc = first_event (reader, &next, err, err_len);
        past = rc == DLQ_SPOOL_OK;
    }
    dlq_spool_reader_destroy (&reader);
    if (past) {
        *ordinal_out = next - 1;
        return true;
    }
    /* no event past after: every event up to the newest is at or before it */
    return rc == DLQ_SPOOL_END && dlq_event_ordinal_last (spool, ordinal_out, err, err_len);
}
