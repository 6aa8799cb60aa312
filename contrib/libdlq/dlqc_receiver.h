/*  dlqc_receiver — the replay receiver of libdlq (internal, not
 *  installed): dlq_replay_receiver_new / _recv / _destroy of dlq_client.h.
 *
 *  A PULL socket (LINGER 0, its own context) connected to the gateway's
 *  replay endpoint, whose messages are [job][event id][event JSON]: the
 *  framing of a reply, so they are read with dlqc_wire_recv. This header
 *  holds the check of a received message, the one part with rules of its
 *  own.
 */
#ifndef DLQC_RECEIVER_H
#define DLQC_RECEIVER_H

#include "dlq_client.h"

#include <stdbool.h>
#include <stddef.h>

/* Copy a message's job frame (job_len bytes) and event id frame (id_len
 * bytes) into job_out and id_out as strings: false when either is empty,
 * does not fit (more than DLQ_CLIENT_ID_SIZE - 1 bytes) or holds a NUL. */
bool dlqc_receiver_take_ids (const void *job, size_t job_len, const void *id, size_t id_len,
                             char job_out [DLQ_CLIENT_ID_SIZE], char id_out [DLQ_CLIENT_ID_SIZE]);

#endif
