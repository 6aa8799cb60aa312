/*  principal — who sent a request, as the key table knows them: a name, a
 *  role and the streams they may use; and the one decision of
 *  authorization, whether a principal may call a verb on a stream.
 *
 *  Roles (docs/security.md): a worker writes its streams (PUT, RESOLVE,
 *  FAIL, CKPT.*), a viewer reads (GET, LIST, COUNT, GROUPS, STATS,
 *  REPLAY.STATUS, CKPT.GET, CKPT.LIST), an operator reads and acts
 *  (REPLAY and its controls, REDELIVER), an admin may do everything.
 *  Every role may PING. Which roles may call a verb is its row of the verb
 *  table (verb_table.h); the streams a principal may touch, whatever its
 *  role, are its scope: names, or patterns where '*' stands for any run of
 *  characters ("orders", "billing.*", "*"). An admin's scope is always
 *  every stream.
 *
 *  A verb that looks at one stream is checked against that stream; one
 *  that may look across streams (LIST, COUNT, GROUPS, REPLAY, REDELIVER
 *  without a streamName; STATS; REPLAY.STATUS; CKPT.LIST) needs a scope of
 *  every stream unless its request names a stream it may use. Pure: the
 *  cache of decisions belongs to the principal, and a principal to one
 *  thread.
 */
#ifndef DLQ_PRINCIPAL_H
#define DLQ_PRINCIPAL_H

#include "dlq_buf.h"

#include <stdbool.h>
#include <stddef.h>

/* Roles, as bits of dlq_verb_spec_t.roles. */
typedef enum {
    DLQ_ROLE_WORKER   = 1u << 0,
    DLQ_ROLE_VIEWER   = 1u << 1,
    DLQ_ROLE_OPERATOR = 1u << 2,
    DLQ_ROLE_ADMIN    = 1u << 3
} dlq_role_t;

#define DLQ_ROLES_ALL (DLQ_ROLE_WORKER | DLQ_ROLE_VIEWER | DLQ_ROLE_OPERATOR | DLQ_ROLE_ADMIN)

/* A role by its name ("worker", ...); false for any other text. */
bool dlq_principal_role_parse (const char *name, dlq_role_t *role);

/* The name of a role ("worker", ...). */
const char *dlq_principal_role_name (dlq_role_t role);

/* The role names in roles ("viewer, operator or admin") into out. */
void dlq_principal_roles_text (unsigned roles, dlq_buf_t *out);

typedef struct dlq_principal dlq_principal_t;

/* A principal called name with role whose scope is streams: names and
 * patterns separated by commas (spaces around each are dropped; empty
 * entries are an error). NULL and a message in err when name is empty or
 * has control characters, or streams is empty or has an empty entry. */
dlq_principal_t *dlq_principal_new (const char *name, dlq_role_t role, const char *streams,
                                    char *err, size_t err_len);

void dlq_principal_destroy (dlq_principal_t **self_p);

const char *dlq_principal_name (const dlq_principal_t *self);
dlq_role_t dlq_principal_role (const dlq_principal_t *self);

/* The scope's names and patterns as given: how many, and the i-th. */
size_t dlq_principal_entry_count (const dlq_principal_t *self);
const char *dlq_principal_entry (const dlq_principal_t *self, size_t i);

/* True when the scope is every stream ("*" among it, or an admin). */
bool dlq_principal_all_streams (const dlq_principal_t *self);

/* May the principal use stream (len bytes, may hold any byte)? */
bool dlq_principal_may_stream (dlq_principal_t *self, const char *stream, size_t len);

/* The scope as one frame for another thread: the principal's name, then,
 * unless it may use every stream, each name or pattern; each ended by a
 * NUL byte. */
void dlq_principal_scope_frame (const dlq_principal_t *self, dlq_buf_t *out);

/* Does a scope frame (len bytes, as dlq_principal_scope_frame made it)
 * allow stream? An empty frame (no CURVE) and a frame with only a name
 * allow every stream. */
bool dlq_principal_scope_allows (const void *frame, size_t len, const char *stream, size_t stream_len);

/* Does the scope frame allow every stream? */
bool dlq_principal_scope_all (const void *frame, size_t len);

/* The principal's name in a scope frame (it starts with it), or NULL for
 * an empty frame. */
const char *dlq_principal_scope_name (const void *frame, size_t len);

/* Does pattern ('*': any run of bytes, every other byte itself) match
 * len bytes of text? */
bool dlq_principal_glob (const char *pattern, size_t pattern_len, const char *text, size_t len);

#endif
