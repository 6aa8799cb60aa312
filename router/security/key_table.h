/*  key_table — the clients a CURVE gateway knows: security.curve.clients,
 *  a directory of public certificates (dlq_cert.h), one per client, each
 *  with the metadata
 *      name     who it is, in logs, STATS and the audit log
 *      role     worker, viewer, operator or admin (principal.h)
 *      streams  the names and '*' patterns it may use, comma-separated
 *               (not needed for an admin: every stream)
 *      token_sha256  optional: the SHA-256s of the principal's HTTP API
 *               tokens (dlq_token.h), comma-separated
 *  indexed by public key and by token hash. Files whose name ends in
 *  "_secret" or starts with '.' are not read. A file that is not such a
 *  certificate is left out, with a line saying why; so is the second file
 *  of a key already read, and a file naming a token hash that a file read
 *  before it named. A table is built whole and then used as it is:
 *  reloading is building a new one (dlq_key_table_signature says when the
 *  directory changed). One thread uses a table.
 */
#ifndef DLQ_KEY_TABLE_H
#define DLQ_KEY_TABLE_H

#include "dlq_buf.h"
#include "principal.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct dlq_key_table dlq_key_table_t;

/* Read every certificate of dir. NULL and err when dir cannot be read;
 * otherwise the table (caller destroys), and one line per file left out
 * appended to problems ("<file>: <why>\n"). */
dlq_key_table_t *dlq_key_table_load (const char *dir, dlq_buf_t *problems, char *err, size_t err_len);

/* The principal of a public key (40 Z85 characters), or NULL. */
dlq_principal_t *dlq_key_table_find (const dlq_key_table_t *self, const char *public_key);

/* The principal whose token_sha256 names the SHA-256 of len bytes of
 * token, or NULL (none, empty, or over DLQ_TOKEN_MAX bytes). */
dlq_principal_t *dlq_key_table_find_token (const dlq_key_table_t *self, const void *token, size_t len);

/* Keys in the table. */
size_t dlq_key_table_count (const dlq_key_table_t *self);

/* A value that changes when a file of dir is added, removed, renamed,
 * resized or modified; false when dir cannot be read. */
bool dlq_key_table_signature (const char *dir, uint64_t *signature);

void dlq_key_table_destroy (dlq_key_table_t **self_p);

#endif
