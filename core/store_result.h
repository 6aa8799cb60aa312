/*  store_result — what a call of a store answers: the embedded store's
 *  calls (sinks/embedded) and the daemon's calls on its primary store
 *  (router/query/primary.h), whichever store stands behind it.
 */
#ifndef DLQ_STORE_RESULT_H
#define DLQ_STORE_RESULT_H

typedef enum {
    DLQ_STORE_OK = 0,
    DLQ_STORE_NOT_FOUND,        /* no such unexpired event */
    DLQ_STORE_BAD_CURSOR,       /* a LIST cursor this store did not issue */
    DLQ_STORE_ERROR,            /* I/O or SQLite error; err says which */
    DLQ_STORE_LOCKED,           /* workbench claim: another owner holds the stream's pass */
    DLQ_STORE_CONFLICT          /* replay job: not in a state that allows the change */
} dlq_store_result_t;

#endif
