/*  protocol — wire protocol version 1: the verbs (their properties are in
 *  verb_table.h), frame limits and the pure formatters of reply bodies. docs/protocol.md, "Wire protocol", is the contract.
 */
#ifndef DLQ_PROTOCOL_H
#define DLQ_PROTOCOL_H

#include "dlq_buf.h"
#include "dlq_code.h"

#include <stdbool.h>
#include <stddef.h>

#define DLQ_PROTOCOL_VERSION 1
#define DLQ_REQUEST_ID_MAX 255      /* bytes */

typedef enum {
    DLQ_VERB_UNKNOWN = 0,
    DLQ_VERB_PUT,
    DLQ_VERB_GET,
    DLQ_VERB_LIST,
    DLQ_VERB_STATS,
    DLQ_VERB_PING,
    DLQ_VERB_REDELIVER,
    DLQ_VERB_COUNT,
    DLQ_VERB_GROUPS,
    DLQ_VERB_REPLAY,
    DLQ_VERB_REPLAY_STATUS,
    DLQ_VERB_REPLAY_PAUSE,
    DLQ_VERB_REPLAY_RESUME,
    DLQ_VERB_REPLAY_CANCEL,
    DLQ_VERB_RESOLVE,
    DLQ_VERB_FAIL,
    DLQ_VERB_CKPT_SAVE,
    DLQ_VERB_CKPT_SEEN,
    DLQ_VERB_CKPT_PROCESSED,
    DLQ_VERB_CKPT_GET,
    DLQ_VERB_CKPT_LIST,
    DLQ_VERB_CKPT_DELETE
} dlq_verb_t;

/* One past the last verb: the size of an array indexed by dlq_verb_t. */
#define DLQ_VERB_SLOTS (DLQ_VERB_CKPT_DELETE + 1)

/* {"code":...,"message":...,"field":...} for err into out. Pure. */
void dlq_protocol_error_body (dlq_buf_t *out, const dlq_error_t *err);

/* {"id":...,"duplicate":...} into out. Pure. */
void dlq_protocol_put_body (dlq_buf_t *out, const char *id, bool duplicate);

/* {"pong":true,"version":...,"protocol":1,"maxMessageBytes":N} into out,
 * and with a caller (CURVE or an HTTP token) "principal": {"name":..,
 * "role":..,"streams":[..],"verbs":[the verbs its role may call — for a
 * caller limited to some streams, not those that look across every
 * stream]}. Pure. */
typedef struct dlq_principal dlq_principal_t;
void dlq_protocol_ping_body (dlq_buf_t *out, long long max_message_bytes, const dlq_principal_t *caller);

#endif
