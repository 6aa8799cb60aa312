/*  readiness — what GET /readyz answers: ready (200) when every listener
 *  is bound, the gateway is not stopping, the log takes writes (the last
 *  group commit synced) and the data_dir's filesystem has more than
 *  http.min_free_bytes free; otherwise 503 with {"ready":false,
 *  "reason":"...","message":"..."} naming the first problem. The gateway
 *  sets the state from its thread; the HTTP thread reads it.
 */
#ifndef DLQ_READINESS_H
#define DLQ_READINESS_H

#include "dlq_buf.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct dlq_readiness dlq_readiness_t;

/* The reasons, as /readyz names them. */
typedef enum {
    DLQ_READY = 0,
    DLQ_UNREADY_STARTING,           /* "starting": the listeners are not all bound yet */
    DLQ_UNREADY_STOPPING,           /* "stopping": SIGTERM came, the gateway drains */
    DLQ_UNREADY_LOG,                /* "log": the last group commit could not write or sync the log */
    DLQ_UNREADY_DISK                /* "disk": too little free space on data_dir's filesystem */
} dlq_readiness_reason_t;

dlq_readiness_t *dlq_readiness_new (const char *data_dir, int64_t min_free_bytes);
void dlq_readiness_destroy (dlq_readiness_t **self_p);

/* Gateway side. */
void dlq_readiness_bound (dlq_readiness_t *self);
void dlq_readiness_stopping (dlq_readiness_t *self);
/* The last group commit's outcome: error NULL when it synced. */
void dlq_readiness_commit (dlq_readiness_t *self, const char *error);

/* HTTP side: the state now (free space read now), its JSON body into
 * body. */
dlq_readiness_reason_t dlq_readiness_check (dlq_readiness_t *self, dlq_buf_t *body);

/* "ready", "starting", "stopping", "log" or "disk". Pure. */
const char *dlq_readiness_reason_name (dlq_readiness_reason_t reason);

/* The body for reason with message (NULL: none) and free bytes. Pure. */
void dlq_readiness_format (dlq_readiness_reason_t reason, const char *message, dlq_buf_t *body);

#endif
