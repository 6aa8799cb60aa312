/*  spool_kinds — what the daemon writes to the spool (core/spool), by
 *  record kind. The spool itself knows no kinds; these are the daemon's.
 */
#ifndef DLQ_SPOOL_KINDS_H
#define DLQ_SPOOL_KINDS_H

enum {
    DLQ_SPOOL_KIND_EVENT = 1,       /* an accepted event (core/event_record.h) */
    DLQ_SPOOL_KIND_CHECKPOINT = 2,  /* a checkpoint write (core/checkpoint_record.h) */
    DLQ_SPOOL_KIND_MARK = 3         /* a change of an event's replay state (core/mark_record.h) */
};

#endif
