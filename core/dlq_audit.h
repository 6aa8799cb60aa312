/*  dlq_audit — the audit log: one line per action an operator answers for
 *  (REPLAY and its controls, REDELIVER, RESOLVE, FAIL, CKPT.DELETE), per
 *  refused request, and per reload of the clients' keys, on a channel of
 *  its own: the file security.audit_log names, else the main log (INFO,
 *  after "audit: "). A line is one JSON object:
 *      {"time":"2026-06-09T14:32:11.123Z","principal":"alice","verb":"REPLAY",
 *       "request":"{\"streamName\":\"orders\",\"all\":true}","result":"OK"}
 *  (principal "-" without CURVE; request is the body as a JSON string, its
 *  first DLQ_AUDIT_REQUEST_MAX bytes of valid UTF-8; result "OK" (or
 *  "OK: <what>") or "ERR <CODE>: <message>"; a reload of the keys has verb
 *  "RELOAD", no request, and says how many keys it read). Thread-safe: one write(2)
 *  per line to a file opened O_APPEND.
 */
#ifndef DLQ_AUDIT_H
#define DLQ_AUDIT_H

#include "dlq_code.h"

#include <stdbool.h>
#include <stddef.h>

#define DLQ_AUDIT_REQUEST_MAX 4096

/* Write the audit log to path from now on (created mode 0640 if missing,
 * appended to); NULL: to the main log. false and err when path cannot be
 * opened. */
bool dlq_audit_open (const char *path, char *err, size_t err_len);

/* Log one action: who (NULL: "-"), the verb, len bytes of the request's
 * body (NULL: none), and its result: DLQ_OK (message, if not NULL, says
 * what was done), or the code and message of the ERR. */
void dlq_audit (const char *principal, const char *verb, const void *body, size_t len, dlq_code_t code,
                const char *message);

/* Close the file (the main log again). */
void dlq_audit_close (void);

#endif
