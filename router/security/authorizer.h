/*  authorizer — the front end's side of CURVE (docs/security.md): the
 *  server key, the ZAP handler of the gateway's context, the key table the
 *  front end decides each request from, and keeping that table current.
 *
 *  Every request of a CURVE connection carries the client's public key
 *  (its User-Id); a request of the HTTP API (which reaches the gateway in
 *  process, where there is no CURVE) carries the caller's token instead.
 *  dlq_authorizer_check looks either up in the current table —
 *  a key removed from the clients directory is refused from the next
 *  request on, on connections already open — then checks the verb's roles
 *  (the verb table) and the streams the request names against the key's
 *  scope (principal.h). A request it refuses is answered FORBIDDEN, counted
 *  for its principal in STATS and logged; it reaches no store.
 *
 *  The front end's thread owns the authorizer; the ZAP handler it starts
 *  has a thread of its own.
 */
#ifndef DLQ_AUTHORIZER_H
#define DLQ_AUTHORIZER_H

#include "counters.h"
#include "dlq_buf.h"
#include "dlq_code.h"
#include "dlqd_config.h"
#include "principal.h"
#include "verb_table.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zmq.h>

#define DLQ_AUTHORIZER_CHECK_MS 2000    /* how often the clients directory is looked at for changes */
#define DLQ_AUTHORIZER_NO_TOKEN "(unknown token)"  /* whom STATS and the audit log name for a refused token */

typedef struct dlq_authorizer dlq_authorizer_t;

/* Load the server key and the clients directory of security, and start
 * the ZAP handler on zmq_ctx (before any socket binds). NULL and err when
 * a file cannot be read or the handler cannot start. */
dlq_authorizer_t *dlq_authorizer_new (void *zmq_ctx, const dlqd_security_config_t *security,
                                      dlq_counters_t *counters, char *err, size_t err_len);

/* Make socket a CURVE server of domain (zap_handler.h); false when libzmq
 * refused (it was built without CURVE). */
bool dlq_authorizer_secure (dlq_authorizer_t *self, void *socket, const char *domain);

/* What the check decided. */
typedef struct {
    dlq_principal_t *principal;     /* who sent it (owned by the table: valid until the next reload) */
    dlq_buf_t        scope;         /* BY_ID verbs of a principal limited to some streams: the scope
                                       frame the thread that reads the event checks (principal.h) */
} dlq_authorizer_grant_t;

/* May the request of verb spec (its verb frame, which carries the
 * metadata, and body) go on? token: NULL, or for a request without a
 * User-Id (the HTTP API's, in process) the caller's token. DLQ_OK and
 * *grant filled (free its scope with dlq_buf_free), or DLQ_ERR_FORBIDDEN
 * (DLQ_ERR_UNAUTHENTICATED: no User-Id and no token, or a token no
 * certificate names) and err, counted and logged (grant then holds
 * nothing to free).
 * The stream of a PUT's event is checked by dlq_authorizer_check_stream
 * once the event is read. */
dlq_code_t dlq_authorizer_check (dlq_authorizer_t *self, const dlq_verb_spec_t *spec, zmq_msg_t *verb_frame,
                                 zmq_msg_t *token, const void *body, size_t len, dlq_authorizer_grant_t *grant,
                                 dlq_error_t *err);

/* May principal write stream (len bytes) with verb spec? DLQ_OK, or
 * DLQ_ERR_FORBIDDEN and err, counted and logged. */
dlq_code_t dlq_authorizer_check_stream (dlq_authorizer_t *self, dlq_principal_t *principal,
                                        const dlq_verb_spec_t *spec, const char *stream, size_t len,
                                        dlq_error_t *err);

/* Read the clients directory again now (SIGHUP): the front end and the
 * ZAP handler both use the new table from their next decision on. */
void dlq_authorizer_reload (dlq_authorizer_t *self);

/* Reload when the directory changed since the last look, at most every
 * DLQ_AUTHORIZER_CHECK_MS; call it from the front end's loop. */
void dlq_authorizer_tick (dlq_authorizer_t *self, int64_t now_mono_ms);

/* Stop the ZAP handler, after every socket it answers for is closed.
 * Accepts NULL and NULLs the pointer. */
void dlq_authorizer_destroy (dlq_authorizer_t **self_p);

#endif
