/*  spool_lookup — read-your-writes: the event an id names, read from the
 *  spool (core/spool) by the position the id index holds for it, for a GET
 *  that comes before the primary store has the event (the embedded store
 *  indexes behind the ack; a sink primary has it once delivered).
 *
 *  One per query thread: it keeps its own spool reader.
 */
#ifndef DLQ_SPOOL_LOOKUP_H
#define DLQ_SPOOL_LOOKUP_H

#include "failed_event.h"
#include "id_index.h"
#include "spool.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct dlq_spool_lookup dlq_spool_lookup_t;

/* spool and ids are not owned. */
dlq_spool_lookup_t *dlq_spool_lookup_new (dlq_spool_t *spool, dlq_id_index_t *ids);

/* Accepts NULL and NULLs the pointer. */
void dlq_spool_lookup_destroy (dlq_spool_lookup_t **self_p);

/* The unexpired event id as a partial event (event_record.h: its routing
 * members and canonical JSON; caller destroys), or NULL when the spool no
 * longer holds its record. */
dlq_event_t *dlq_spool_lookup_get (dlq_spool_lookup_t *self, const char *id, int64_t now_ms);

#endif
