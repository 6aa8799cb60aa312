/*  dlqc_ckpt — the checkpoint verbs' request bodies and the record in
 *  their replies (internal, not installed).
 *
 *  Behind dlq_client_ckpt_* (dlq_client.h): CKPT.SAVE's body made of a
 *  dlq_client_checkpoint_t, CKPT.SEEN's and CKPT.PROCESSED's of a stream,
 *  a token and a timestamp, and a record read back into a
 *  dlq_client_checkpoint_t whose strings share one allocation. Tokens and
 *  metadata go into bodies as the JSON text given (checked to be one
 *  object first) and come out of replies as the gateway's text, byte for
 *  byte.
 */
#ifndef DLQC_CKPT_H
#define DLQC_CKPT_H

#include "dlq_client.h"
#include "dlqc_body.h"

#include <stdbool.h>
#include <stddef.h>

/* Size of an ISO-8601 UTC instant with milliseconds plus NUL. */
#define DLQC_CKPT_ISO_SIZE 25

/* True when checkpoint can be sent by CKPT.SAVE: a stream name, and each
 * token and the metadata NULL or one JSON object. */
bool dlqc_ckpt_record_ok (const dlq_client_checkpoint_t *checkpoint);

/* True when a CKPT.SEEN / CKPT.PROCESSED can be sent: a stream name and a
 * token that is one JSON object. */
bool dlqc_ckpt_token_ok (const char *stream_name, const char *token);

/* Append CKPT.SAVE's members: streamName and each member that is not
 * NULL (updatedAt never). */
void dlqc_ckpt_write_record (dlqc_body_t *body, const dlq_client_checkpoint_t *checkpoint);

/* Append CKPT.SEEN's / CKPT.PROCESSED's members: streamName, token and
 * timestamp (NULL: now, dlqc_ckpt_now). */
void dlqc_ckpt_write_token (dlqc_body_t *body, const char *stream_name, const char *token,
                            const char *timestamp);

/* Read a record (len bytes of a JSON object with a streamName string)
 * into *out, every string a copy in out->storage. False (out cleared)
 * when it is not one. */
bool dlqc_ckpt_read (const char *json, size_t len, dlq_client_checkpoint_t *out);

/* Free out->storage and clear every member. */
void dlqc_ckpt_clear (dlq_client_checkpoint_t *out);

/* The current time (CLOCK_REALTIME) as "YYYY-MM-DDTHH:MM:SS.mmmZ". */
void dlqc_ckpt_now (char out [DLQC_CKPT_ISO_SIZE]);

#endif
