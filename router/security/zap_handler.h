/*  zap_handler — the ZAP handler (ZeroMQ RFC 27) of a CURVE gateway: the
 *  thread libzmq asks, during every CURVE handshake on a socket of the
 *  gateway's context with a ZAP domain, whether the client's public key
 *  may connect. It answers from its own key table (key_table.h) of
 *  security.curve.clients, read again on dlq_zap_handler_reload.
 *
 *  Domains:
 *      DLQ_ZAP_DOMAIN_GATEWAY  the listen endpoints: any key of the table;
 *                              what each request may do is decided per
 *                              message by the front end.
 *      DLQ_ZAP_DOMAIN_REPLAY   the replay endpoint (PUSH): it sends events
 *                              of every stream to whoever is connected,
 *                              so only a key whose scope is every stream
 *                              and whose role is worker, operator or admin.
 *  The User-Id of an accepted connection is the client's public key (Z85),
 *  which every message it sends carries (zmq_msg_gets "User-Id").
 *
 *  libzmq asks the handler at inproc://zeromq.zap.01 of the context the
 *  socket belongs to; the handler is bound there before any socket of the
 *  context binds with a ZAP domain, and stopped only after they are
 *  closed: a CURVE server whose context has no handler lets every client
 *  in (libzmq's stable API has no option to refuse them instead;
 *  ZMQ_ZAP_ENFORCE_DOMAIN is a draft).
 */
#ifndef DLQ_ZAP_HANDLER_H
#define DLQ_ZAP_HANDLER_H

#include "counters.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DLQ_ZAP_DOMAIN_GATEWAY "dlqd"
#define DLQ_ZAP_DOMAIN_REPLAY  "dlqd-replay"
#define DLQ_ZAP_ENDPOINT       "inproc://zeromq.zap.01"

typedef struct dlq_zap_handler dlq_zap_handler_t;

/* Start the handler on zmq_ctx for the certificates of clients_dir; each
 * handshake it refuses is counted in counters (counters.h). NULL and err
 * when the directory cannot be read or the ZAP endpoint is taken. */
dlq_zap_handler_t *dlq_zap_handler_new (void *zmq_ctx, const char *clients_dir, dlq_counters_t *counters,
                                        char *err, size_t err_len);

/* Read the directory again (the handler's next answer uses it); returns
 * when the new table is in use. */
void dlq_zap_handler_reload (dlq_zap_handler_t *self);

/* Make socket a CURVE server with secret_key (40 Z85 characters) whose
 * handshakes this handler answers for domain. false when libzmq refused
 * an option (no CURVE support: zmq_has ("curve")). */
bool dlq_zap_handler_secure (void *socket, const char *secret_key, const char *domain);

/* Stop the thread and unbind. Accepts NULL and NULLs the pointer. */
void dlq_zap_handler_destroy (dlq_zap_handler_t **self_p);

#endif
