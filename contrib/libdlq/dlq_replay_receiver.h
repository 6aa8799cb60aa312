/*  dlq_replay_receiver — how a worker takes the events the gateway replays:
 *  a PULL socket on its replay endpoint. The outcome of each is reported
 *  with dlq_client_resolve() or dlq_client_fail() (dlq_client.h).
 */
#ifndef DLQ_REPLAY_RECEIVER_H
#define DLQ_REPLAY_RECEIVER_H

#include "dlq_result.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A PULL socket on the gateway's replay endpoint. Opaque. */
typedef struct dlq_replay_receiver dlq_replay_receiver_t;

/* The gateway binds a PUSH socket at replay.listen and sends each event a
 * job replays to that endpoint as one message of three frames: [job id,
 * or "schedule" for the scheduled passes] [event id] [event JSON, with
 * its lineage]. Messages go round-robin to the connected receivers; while
 * none is connected, jobs wait. A receiver is a PULL socket connected to
 * that endpoint (reconnecting by itself); it belongs to one thread at a
 * time. Process each event, then report the outcome with
 * dlq_client_resolve() or dlq_client_fail(): an event not reported is
 * due again once its lease (replay.lease_ms) runs out. */

/* A receiver connected (asynchronously) to the replay endpoint, with its
 * own ZeroMQ context. NULL with errno set when endpoint is NULL or
 * malformed, or ZeroMQ cannot make the socket. */
DLQ_CLIENT_EXPORT dlq_replay_receiver_t *dlq_replay_receiver_new (const char *endpoint);

/* A receiver like dlq_replay_receiver_new's, for a gateway with CURVE
 * (security.curve; docs/security.md): server_key is the gateway's public
 * key (40 Z85 characters) or the path of its public certificate,
 * client_cert the path of this client's certificate (its _secret file, or
 * the public file beside it), whose key must be in the gateway's clients
 * directory with streams "*" and the role worker, operator or admin
 * (otherwise the gateway refuses the handshake and nothing arrives). NULL
 * with errno set and, when err is not NULL, a message naming the file in
 * err (err_len bytes) when a key cannot be read. */
DLQ_CLIENT_EXPORT dlq_replay_receiver_t *dlq_replay_receiver_new_curve (const char *endpoint, const char *server_key,
                                                                        const char *client_cert,
                                                                        char *err, size_t err_len);

/* Wait up to timeout_ms (0: do not wait; -1: as long as it takes) for the
 * next replayed event. On OK, job_out and id_out (DLQ_CLIENT_ID_SIZE
 * bytes each) receive the job id (or "schedule") and the event id, and
 * *event_out the event JSON (NUL-terminated, owned by the caller: free()
 * it; its length in *len_out if not NULL). ERR_TIMEOUT when none came in
 * time; ERR_PROTOCOL when a message that is not three frames, or whose
 * ids do not fit, arrived (it is dropped: call again); ERR_TRANSPORT when
 * ZeroMQ failed (errno says why); ERR_ARGS for a NULL argument. */
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_replay_receiver_recv (dlq_replay_receiver_t *self, int timeout_ms,
                                                                char job_out [DLQ_CLIENT_ID_SIZE],
                                                                char id_out [DLQ_CLIENT_ID_SIZE],
                                                                char **event_out, size_t *len_out);

/* Close the socket (messages received by ZeroMQ but not yet taken are
 * dropped: the gateway sends those events again when their lease runs
 * out), terminate the context and free the receiver. Accepts NULL; sets
 * *self_p to NULL. */
DLQ_CLIENT_EXPORT void dlq_replay_receiver_destroy (dlq_replay_receiver_t **self_p);

#ifdef __cplusplus
}
#endif

#endif
