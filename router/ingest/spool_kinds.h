/*  spool_kinds — what the daemon writes to the spool (core/spool), by
 *  record kind. The spool itself knows no kinds; these are the daemon's,
 *  and the log calls' of a store fed from the log (dlq_sink.h) are the same.
 */
#ifndef DLQ_SPOOL_KINDS_H
#define DLQ_SPOOL_KINDS_H

#include "dlq_sink.h"

enum {
    DLQ_SPOOL_KIND_EVENT = DLQ_SINK_RECORD_EVENT,           /* an accepted event (core/event_record.h) */
    DLQ_SPOOL_KIND_CHECKPOINT = DLQ_SINK_RECORD_CHECKPOINT, /* a checkpoint write (core/checkpoint_record.h) */
    DLQ_SPOOL_KIND_MARK = DLQ_SINK_RECORD_MARK              /* a change of an event's replay state
                                                             * (core/mark_record.h) */
};

#endif
