/*  verb_table — the verbs of wire protocol version 1 (see the header). */
#include "verb_table.h"

#include "principal.h"

#include <string.h>

#define W DLQ_ROLE_WORKER
#define V DLQ_ROLE_VIEWER
#define O DLQ_ROLE_OPERATOR
#define A DLQ_ROLE_ADMIN
#define ROW(n, v, optional, l, c, roles, scope, s) { n, v, optional, l, c, roles, DLQ_SCOPE_##scope, false, s }
#define AUDITED(n, v, optional, l, c, roles, scope, s) { n, v, optional, l, c, roles, DLQ_SCOPE_##scope, true, s }

static const dlq_verb_spec_t rows [] = {
    ROW ("PUT", DLQ_VERB_PUT, false, DLQ_LANE_INGEST, false, W | A, EVENT, "store one FailedEvent"),
    ROW ("GET", DLQ_VERB_GET, false, DLQ_LANE_QUERY, false, V | O | A, BY_ID, "one event by id, with its deliveries"),
    ROW ("LIST", DLQ_VERB_LIST, false, DLQ_LANE_QUERY, true, V | O | A, NAMED, "the events that match, newest first, a page at a time"),
    ROW ("COUNT", DLQ_VERB_COUNT, true, DLQ_LANE_QUERY, true, V | O | A, NAMED, "how many events match"),
    ROW ("GROUPS", DLQ_VERB_GROUPS, true, DLQ_LANE_QUERY, true, V | O | A, NAMED, "the events that match, grouped by error fingerprint"),
    ROW ("STATS", DLQ_VERB_STATS, true, DLQ_LANE_QUERY, true, V | O | A, ALL, "counters, the store, the spool and the sinks"),
    ROW ("PING", DLQ_VERB_PING, true, DLQ_LANE_FRONT, false, W | V | O | A, NONE, "the gateway's version, protocol and limits"),
    AUDITED ("REDELIVER", DLQ_VERB_REDELIVER, false, DLQ_LANE_DELIVERY, false, O | A, NAMED,
         "deliver again what failed for good at a sink"),
    AUDITED ("REPLAY", DLQ_VERB_REPLAY, false, DLQ_LANE_REPLAY, true, O | A, NAMED, "send stored events back, as a job (or a dry run)"),
    ROW ("REPLAY.STATUS", DLQ_VERB_REPLAY_STATUS, true, DLQ_LANE_REPLAY, true, V | O | A, ALL, "the replay jobs, or one of them"),
    AUDITED ("REPLAY.PAUSE", DLQ_VERB_REPLAY_PAUSE, false, DLQ_LANE_REPLAY, true, O | A, ALL, "pause a replay job"),
    AUDITED ("REPLAY.RESUME", DLQ_VERB_REPLAY_RESUME, false, DLQ_LANE_REPLAY, true, O | A, ALL, "resume a paused replay job"),
    AUDITED ("REPLAY.CANCEL", DLQ_VERB_REPLAY_CANCEL, false, DLQ_LANE_REPLAY, true, O | A, ALL, "stop a replay job for good"),
    AUDITED ("RESOLVE", DLQ_VERB_RESOLVE, false, DLQ_LANE_REPLAY, true, W | A, BY_ID, "a replayed event was processed: SUCCEEDED"),
    AUDITED ("FAIL", DLQ_VERB_FAIL, false, DLQ_LANE_REPLAY, true, W | A, BY_ID, "a replayed event failed again: due after a backoff"),
    ROW ("CKPT.SAVE", DLQ_VERB_CKPT_SAVE, false, DLQ_LANE_CHECKPOINT_WRITE, false, W | A, NAMED, "write a stream's checkpoint"),
    ROW ("CKPT.SEEN", DLQ_VERB_CKPT_SEEN, false, DLQ_LANE_CHECKPOINT_WRITE, false, W | A, NAMED,
         "move a checkpoint's last seen token"),
    ROW ("CKPT.PROCESSED", DLQ_VERB_CKPT_PROCESSED, false, DLQ_LANE_CHECKPOINT_WRITE, false, W | A, NAMED,
         "move a checkpoint's last processed token"),
    ROW ("CKPT.GET", DLQ_VERB_CKPT_GET, false, DLQ_LANE_CHECKPOINT_READ, false, W | V | O | A, NAMED, "a stream's checkpoint"),
    ROW ("CKPT.LIST", DLQ_VERB_CKPT_LIST, true, DLQ_LANE_CHECKPOINT_READ, false, W | V | O | A, ALL,
         "the checkpoints, by stream name, a page at a time"),
    AUDITED ("CKPT.DELETE", DLQ_VERB_CKPT_DELETE, false, DLQ_LANE_CHECKPOINT_WRITE, false, W | A, NAMED, "delete a stream's checkpoint"),
};

#define ROW_COUNT (sizeof rows / sizeof rows [0])

static const char *const lane_texts [DLQ_LANE_COUNT] = {
    [DLQ_LANE_INGEST] = "the front end, into the next group commit",
    [DLQ_LANE_FRONT] = "the front end, at once",
    [DLQ_LANE_DELIVERY] = "the sink's dispatcher",
    [DLQ_LANE_CHECKPOINT_WRITE] = "the next group commit (a sink primary: a query thread)",
    [DLQ_LANE_QUERY] = "a query thread",
    [DLQ_LANE_CHECKPOINT_READ] = "a query thread",
    [DLQ_LANE_REPLAY] = "a query thread, with the replayer",
};

static const char *const scope_texts [] = {
    [DLQ_SCOPE_NONE] = "none",
    [DLQ_SCOPE_EVENT] = "the event's `streamName`",
    [DLQ_SCOPE_NAMED] = "the body's `streamName` (without one: every stream)",
    [DLQ_SCOPE_BY_ID] = "the stream of the event `id` names",
    [DLQ_SCOPE_ALL] = "every stream",
};

const dlq_verb_spec_t *
dlq_verb_table_find (const void *frame, size_t len)
{
    for (size_t i = 0; i < ROW_COUNT; i++)
        if (strlen (rows [i].name) == len && memcmp (rows [i].name, frame, len) == 0)
            return &rows [i];
    return NULL;
}

const dlq_verb_spec_t *
dlq_verb_table_get (dlq_verb_t verb)
{
    for (size_t i = 0; i < ROW_COUNT; i++)
        if (rows [i].verb == verb)
            return &rows [i];
    return NULL;
}

const dlq_verb_spec_t *
dlq_verb_table_rows (size_t *count_out)
{
    *count_out = ROW_COUNT;
    return rows;
}

const char *
dlq_verb_table_lane_text (dlq_lane_t lane)
{
    return lane < DLQ_LANE_COUNT ? lane_texts [lane] : "?";
}

void
dlq_verb_table_names (dlq_buf_t *out)
{
    for (size_t i = 0; i < ROW_COUNT; i++) {
        if (i)
            dlq_buf_puts (out, i + 1 == ROW_COUNT ? " or " : ", ");
        dlq_buf_puts (out, rows [i].name);
    }
}

void
dlq_verb_table_format_docs (dlq_buf_t *out)
{
    dlq_buf_puts (out, "| verb | body | served by | waits for the index | roles (with CURVE) | streams | audited | what it does |\n"
                       "| --- | --- | --- | --- | --- | --- | --- | --- |\n");
    for (size_t i = 0; i < ROW_COUNT; i++) {
        dlq_buf_printf (out, "| `%s` | %s | %s | %s | ", rows [i].name,
                        rows [i].body_optional ? "may be empty" : "required", lane_texts [rows [i].lane],
                        rows [i].catch_up ? "yes" : "no");
        dlq_principal_roles_text (rows [i].roles, out);
        dlq_buf_printf (out, " | %s | %s | %s |\n", scope_texts [rows [i].scope], rows [i].audited ? "yes" : "no",
                        rows [i].summary);
    }
}
