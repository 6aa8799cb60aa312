/*  pg_workbench — replay state, marks and the scheduled claim on the
 *  table (see pg_workbench.h).
 */
#include "pg_workbench.h"

#include "body_status.h"
#include "dlq_time.h"
#include "pg_call.h"
#include "pg_query.h"
#include "pg_sink.h"
#include "sink_mark.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ----------------------------------------------------------------------- */

/* The replay state in columns first.. first + 3 of row i of r (status,
 * retry_count, replay_count, retry_after in ms). */
static void
read_state (const PGresult *r, int i, int first, dlq_sink_event_state_t *state)
{
    memset (state, 0, sizeof *state);
    snprintf (state->status, sizeof state->status, "%s", PQgetvalue (r, i, first));
    state->retry_count = (int32_t) strtol (PQgetvalue (r, i, first + 1), NULL, 10);
    state->replay_count = (int32_t) strtol (PQgetvalue (r, i, first + 2), NULL, 10);
    state->retry_after = strtoll (PQgetvalue (r, i, first + 3), NULL, 10);
}

/* Lengths of n NUL-terminated values. */
static void
lengths_of (const char *const *values, int *lengths, int n)
{
    for (int i = 0; i < n; i++)
        lengths [i] = (int) strlen (values [i]);
}

/* ---- state --------------------------------------------------------------------------- */

/* The replay state of event id; NOT_FOUND when missing or expired. */
static dlq_sink_status_t
pg_state (void *instance, const char *id, int64_t now_ms, dlq_sink_event_state_t *state_out)
{
    dlq_pg_sink_t *self = instance;
    if (!dlq_pg_uuid_valid (id, false))
        return DLQ_SINK_STATUS_NOT_FOUND;
    if (!dlq_pg_call_ready (self, "state"))
        return DLQ_SINK_STATUS_ERROR;
    char now [DLQ_PG_TIME_LEN];
    dlq_pg_format_time (now_ms, now);
    const char *const values [] = { id, now };
    dlq_buf_t sql = DLQ_BUF_INIT;
    dlq_pg_sql_state (&sql, &self->names);
    PGresult *result = NULL;
    dlq_sink_status_t status = dlq_pg_call_query (self, "state", sql.data, values, 2, &result);
    dlq_buf_free (&sql);
    if (status == DLQ_SINK_STATUS_OK && PQntuples (result) == 0)
        status = DLQ_SINK_STATUS_NOT_FOUND;
    if (status == DLQ_SINK_STATUS_OK)
        read_state (result, 0, 0, state_out);
    PQclear (result);
    return status;
}

/* ---- mark ---------------------------------------------------------------------------- */

/* The parameters of a mark: id, now, the new status, retry_after. */
typedef struct {
    const char *values [4];
    int         lengths [4];
    char        now [DLQ_PG_TIME_LEN];
    char        retry_after [DLQ_PG_TIME_LEN];
} mark_params_t;

static void
mark_params (mark_params_t *p, const char *id, const char *status, int64_t now_ms, int64_t retry_after_ms)
{
    dlq_pg_format_time (now_ms, p->now);
    dlq_pg_format_time (retry_after_ms, p->retry_after);
    p->values [0] = id;
    p->values [1] = p->now;
    p->values [2] = status ? status : "";
    p->values [3] = p->retry_after;
    lengths_of (p->values, p->lengths, 4);
}

/* payload_text of id becomes the returned text (column 4 of r) with its
 * status replaced, then COMMIT: the row is still locked by the mark's
 * UPDATE, so no other mark changes it in between. */
static dlq_sink_status_t
commit_text (dlq_pg_sink_t *self, const char *id, const char *status, const PGresult *r)
{
    dlq_buf_t text = DLQ_BUF_INIT, sql = DLQ_BUF_INIT;
    size_t old_len = (size_t) PQgetlength (r, 0, 4);
    const char *old = PQgetvalue (r, 0, 4);
    if (dlq_body_set_status (old, old_len, status, &text) != DLQ_BODY_STATUS_OK)
        self->host->log (self->config, DLQ_SINK_LOG_WARN, "event %s: payload_text is not a JSON object: "
                         "its status stays as it was", id);
    bool changed = text.len > 0 && (text.len != old_len || memcmp (text.data, old, old_len) != 0);
    dlq_pg_sql_set_text (&sql, &self->names);
    const char *const values [] = { id, text.data };
    const int lengths [] = { (int) strlen (id), (int) text.len };
    dlq_pg_stmt_t stmts [2] = {
        { .sql = sql.data, .nparams = 2, .values = values, .lengths = lengths },
        { .sql = "COMMIT" },
    };
    PGresult *results [2];
    dlq_sink_status_t result = dlq_pg_call_run (self, "mark", changed ? stmts : stmts + 1, changed ? 2 : 1, results);
    dlq_pg_results_clear (results, changed ? 2 : 1);
    dlq_buf_free (&text);
    dlq_buf_free (&sql);
    return result;
}

/* The mark's UPDATE (in a transaction when it changes the status, so that
 * payload_text follows before anyone sees it); its result into *result. */
static dlq_sink_status_t
update (dlq_pg_sink_t *self, dlq_sink_mark_t mark, const mark_params_t *p, bool in_transaction,
        PGresult **result)
{
    dlq_buf_t sql = DLQ_BUF_INIT;
    dlq_pg_sql_mark (&sql, &self->names, mark);
    dlq_pg_stmt_t stmts [2] = {
        { .sql = "BEGIN" },
        { .sql = sql.data, .nparams = 4, .values = p->values, .lengths = p->lengths },
    };
    PGresult *results [2] = { NULL, NULL };
    dlq_sink_status_t status = dlq_pg_call_run (self, "mark", in_transaction ? stmts : stmts + 1,
                                                in_transaction ? 2 : 1, in_transaction ? results : results + 1);
    PQclear (results [0]);
    *result = results [1];
    dlq_buf_free (&sql);
    return status;
}

/* Change event id's state as mark says; NOT_FOUND when missing or expired. */
static dlq_sink_status_t
pg_mark (void *instance, const char *id, dlq_sink_mark_t mark, int64_t now_ms, int64_t retry_after_ms,
         dlq_sink_event_state_t *state_out)
{
    dlq_pg_sink_t *self = instance;
    if (!dlq_sink_mark_effect (mark)) {
        snprintf (self->last_error, sizeof self->last_error, "postgres mark: unknown mark %d", (int) mark);
        return DLQ_SINK_STATUS_ERROR;
    }
    if (!dlq_pg_uuid_valid (id, false))
        return DLQ_SINK_STATUS_NOT_FOUND;
    if (!dlq_pg_call_ready (self, "mark"))
        return DLQ_SINK_STATUS_ERROR;
    const char *new_status = dlq_pg_mark_status (mark);
    mark_params_t p;
    mark_params (&p, id, new_status, now_ms, retry_after_ms);
    PGresult *result = NULL;
    dlq_sink_status_t status = update (self, mark, &p, new_status != NULL, &result);
    if (status == DLQ_SINK_STATUS_OK && PQntuples (result) == 0) {
        dlq_pg_conn_rollback (self->conn);
        status = DLQ_SINK_STATUS_NOT_FOUND;
    }
    if (status == DLQ_SINK_STATUS_OK && new_status)
        status = commit_text (self, id, new_status, result);
    if (status == DLQ_SINK_STATUS_OK)
        read_state (result, 0, 0, state_out);
    PQclear (result);
    return status;
}

/* ---- claim --------------------------------------------------------------------------- */

/* BEGIN and take the stream's pass for owner until until_ms; *taken says
 * whether it was (else the transaction is rolled back). */
static dlq_sink_status_t
take_pass (dlq_pg_sink_t *self, const char *stream, const char *owner, int64_t now_ms, int64_t until_ms,
           bool *taken)
{
    char now [DLQ_PG_TIME_LEN], until [DLQ_PG_TIME_LEN];
    dlq_pg_format_time (now_ms, now);
    dlq_pg_format_time (until_ms, until);
    const char *const values [] = { stream, owner, until, now };
    int lengths [4];
    lengths_of (values, lengths, 4);
    dlq_buf_t sql = DLQ_BUF_INIT;
    dlq_pg_sql_take_pass (&sql, &self->names);
    dlq_pg_stmt_t stmts [2] = {
        { .sql = "BEGIN" },
        { .sql = sql.data, .nparams = 4, .values = values, .lengths = lengths },
    };
    PGresult *results [2];
    dlq_sink_status_t status = dlq_pg_call_run (self, "claim", stmts, 2, results);
    *taken = status == DLQ_SINK_STATUS_OK && PQntuples (results [1]) > 0;
    if (status == DLQ_SINK_STATUS_OK && !*taken)
        dlq_pg_conn_rollback (self->conn);
    dlq_pg_results_clear (results, 2);
    dlq_buf_free (&sql);
    return status;
}

/* [{"replayCount":n,"event":<payload_text>},...] from r's rows. */
static void
write_claimed (const dlq_pg_sink_t *self, const PGresult *r, dlq_sink_buf_t *events_out)
{
    dlq_buf_t json = DLQ_BUF_INIT;
    dlq_buf_putc (&json, '[');
    for (int i = 0; i < PQntuples (r); i++) {
        dlq_buf_printf (&json, "%s{\"replayCount\":%s,\"event\":", i > 0 ? "," : "", PQgetvalue (r, i, 0));
        dlq_buf_append (&json, PQgetvalue (r, i, 1), (size_t) PQgetlength (r, i, 1));
        dlq_buf_putc (&json, '}');
    }
    dlq_buf_putc (&json, ']');
    dlq_pg_call_put (self, events_out, json.data, json.len);
    dlq_buf_free (&json);
}

/* Lease the batch (the pass is taken) and COMMIT. */
static dlq_sink_status_t
lease (dlq_pg_sink_t *self, const char *stream, int32_t max_retries, size_t batch_size, int64_t now_ms,
       int64_t lease_until_ms, dlq_sink_buf_t *events_out)
{
    char now [DLQ_PG_TIME_LEN], until [DLQ_PG_TIME_LEN], retries [16], batch [24];
    dlq_pg_format_time (now_ms, now);
    dlq_pg_format_time (lease_until_ms, until);
    snprintf (retries, sizeof retries, "%" PRId32, max_retries);
    snprintf (batch, sizeof batch, "%zu", batch_size);
    const char *const values [] = { stream, retries, now, batch, until };
    int lengths [5];
    lengths_of (values, lengths, 5);
    dlq_buf_t sql = DLQ_BUF_INIT;
    dlq_pg_sql_claim (&sql, &self->names);
    dlq_pg_stmt_t stmts [2] = {
        { .sql = sql.data, .nparams = 5, .values = values, .lengths = lengths },
        { .sql = "COMMIT" },
    };
    PGresult *results [2];
    dlq_sink_status_t status = dlq_pg_call_run (self, "claim", stmts, 2, results);
    if (status == DLQ_SINK_STATUS_OK)
        write_claimed (self, results [0], events_out);
    dlq_pg_results_clear (results, 2);
    dlq_buf_free (&sql);
    return status;
}

/* One scheduled pass of stream for owner; LOCKED when another owner has it. */
static dlq_sink_status_t
pg_claim (void *instance, const char *stream, const char *owner, int64_t pass_ms, int32_t max_retries,
          size_t batch_size, int64_t now_ms, int64_t lease_until_ms, dlq_sink_buf_t *events_out)
{
    dlq_pg_sink_t *self = instance;
    if (!dlq_pg_call_ready (self, "claim"))
        return DLQ_SINK_STATUS_ERROR;
    bool taken = false;
    dlq_sink_status_t status = take_pass (self, stream, owner, now_ms, dlq_time_add (now_ms, pass_ms < 0 ? 0 : pass_ms),
                                          &taken);
    if (status != DLQ_SINK_STATUS_OK)
        return status;
    if (!taken)
        return DLQ_SINK_STATUS_LOCKED;
    return lease (self, stream, max_retries, batch_size, now_ms, lease_until_ms, events_out);
}

const dlq_sink_workbench_ops_t dlq_pg_workbench_ops = {
    .struct_size  = sizeof (dlq_sink_workbench_ops_t),
    .query_list   = dlq_pg_query_list,
    .query_count  = dlq_pg_query_count,
    .query_groups = dlq_pg_query_groups,
    .state        = pg_state,
    .mark         = pg_mark,
    .claim        = pg_claim,
};
