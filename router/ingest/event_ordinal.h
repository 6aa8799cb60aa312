/*  event_ordinal — how many events the spool holds between two positions,
 *  without counting them: every event record carries its ordinal
 *  (core/event_record.h: 1 for the first event the log ever held, one
 *  more for each after), so the events past a position are the newest
 *  ordinal less the ordinal there, each read from one record (a
 *  checkpoint write's record and a mark's carry the ordinal of the event
 *  before it, core/checkpoint_record.h and core/mark_record.h). A sink's backlog in STATS costs a
 *  subtraction, whatever its size.
 */
#ifndef DLQ_EVENT_ORDINAL_H
#define DLQ_EVENT_ORDINAL_H

#include "spool.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The ordinal of the newest event record synced, 0 when the log holds
 * none. False with err set when the record cannot be read. */
bool dlq_event_ordinal_last (dlq_spool_t *spool, uint64_t *ordinal_out, char *err, size_t err_len);

/* The ordinal of the last event at or before position after (a record's
 * position, or below the oldest segment kept, or -1 for none): the
 * ordinal of the first event record past it less one, the newest's when
 * none is past it. False with err set when the log cannot be read. */
bool dlq_event_ordinal_through (dlq_spool_t *spool, int64_t after, uint64_t *ordinal_out,
                                char *err, size_t err_len);

#endif
