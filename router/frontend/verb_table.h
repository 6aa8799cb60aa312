/*  verb_table — the one table of the wire protocol's verbs: for each, its
 *  name, whether its body may be empty, the lane that serves it, whether a
 *  query thread lets the index catch up before answering it, the roles
 *  that may call it and the streams it touches (checked when the gateway
 *  authenticates its clients: docs/security.md), whether the audit log
 *  records it, and a line of docs. The front end dispatches on the
 *  lane (router/frontend/gateway.c), the query threads on the lane and then the
 *  verb (router/query/query_service.c); docs/protocol.md's verb table is
 *  dlq_verb_table_format_docs () and test_verb_table holds it to that.
 *  Adding a verb is a row here and its handler in its lane. Pure.
 */
#ifndef DLQ_VERB_TABLE_H
#define DLQ_VERB_TABLE_H

#include "dlq_buf.h"
#include "protocol.h"

#include <stdbool.h>
#include <stddef.h>

/* Who serves a verb. */
typedef enum {
    DLQ_LANE_INGEST = 0,        /* the front end, into the next group commit; answered once durable */
    DLQ_LANE_FRONT,             /* the front end, answered at once */
    DLQ_LANE_DELIVERY,          /* checked on the front end, answered by the named sink's dispatcher */
    DLQ_LANE_CHECKPOINT_WRITE,  /* embedded primary: into the next group commit; a sink primary: a
                                   query thread, in order per client */
    DLQ_LANE_QUERY,             /* a query thread */
    DLQ_LANE_CHECKPOINT_READ,   /* a query thread, from the checkpoints as committed */
    DLQ_LANE_REPLAY,            /* a query thread, with the replayer */
    DLQ_LANE_COUNT
} dlq_lane_t;

/* Which streams a request touches, for the check of a CURVE caller's
 * scope (principal.h; docs/security.md). */
typedef enum {
    DLQ_SCOPE_NONE = 0,         /* no stream's events (PING) */
    DLQ_SCOPE_EVENT,            /* the streamName of the event in the body (PUT) */
    DLQ_SCOPE_NAMED,            /* the body's streamName; a body without one: every stream */
    DLQ_SCOPE_BY_ID,            /* the stream of the event the body's id names, checked where it is read */
    DLQ_SCOPE_ALL               /* every stream (STATS, replay jobs, CKPT.LIST) */
} dlq_verb_scope_t;

typedef struct {
    const char *name;           /* as it goes on the wire, upper case */
    dlq_verb_t  verb;
    bool        body_optional;  /* an empty body (or only whitespace) is {} */
    dlq_lane_t  lane;
    bool        catch_up;       /* answered after the index has what was acknowledged before it */
    unsigned    roles;          /* who may call it, with CURVE: dlq_role_t bits (principal.h) */
    dlq_verb_scope_t scope;     /* the streams it touches */
    bool        audited;        /* an action an operator answers for: written to the audit log (dlq_audit.h) */
    const char *summary;        /* one line, for the docs */
} dlq_verb_spec_t;

/* The row of the verb named by len bytes of frame, or NULL (an unknown
 * verb: names are case-sensitive). */
const dlq_verb_spec_t *dlq_verb_table_find (const void *frame, size_t len);

/* The row of verb (not DLQ_VERB_UNKNOWN). */
const dlq_verb_spec_t *dlq_verb_table_get (dlq_verb_t verb);

/* The rows, in the order the docs list them; *count_out their number. */
const dlq_verb_spec_t *dlq_verb_table_rows (size_t *count_out);

/* How the docs name a lane ("the front end, answered at once"). */
const char *dlq_verb_table_lane_text (dlq_lane_t lane);

/* "PUT, GET, ... or CKPT.DELETE" into out: every name, for the
 * UNKNOWN_VERB message. */
void dlq_verb_table_names (dlq_buf_t *out);

/* docs/protocol.md's verb table (Markdown: a header row and one row per
 * verb) into out. */
void dlq_verb_table_format_docs (dlq_buf_t *out);

#endif
