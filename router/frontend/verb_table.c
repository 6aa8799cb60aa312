/*  verb_table — the verbs of wire protocol version 1 (see the header). */
#include "verb_table.h"

#include <string.h>

#define ROW(n, v, optional, l, c, s) { n, v, optional, l, c, DLQ_ROLES_ANY, s }

static const dlq_verb_spec_t rows [] = {
    ROW ("PUT", DLQ_VERB_PUT, false, DLQ_LANE_INGEST, false, "store one FailedEvent"),
    ROW ("GET", DLQ_VERB_GET, false, DLQ_LANE_QUERY, false, "one event by id, with its deliveries"),
    ROW ("LIST", DLQ_VERB_LIST, false, DLQ_LANE_QUERY, true, "the events that match, newest first, a page at a time"),
    ROW ("COUNT", DLQ_VERB_COUNT, true, DLQ_LANE_QUERY, true, "how many events match"),
    ROW ("GROUPS", DLQ_VERB_GROUPS, true, DLQ_LANE_QUERY, true, "the events that match, grouped by error fingerprint"),
    ROW ("STATS", DLQ_VERB_STATS, true, DLQ_LANE_QUERY, true, "counters, the store, the spool and the sinks"),
    ROW ("PING", DLQ_VERB_PING, true, DLQ_LANE_FRONT, false, "the gateway's version, protocol and limits"),
    ROW ("REDELIVER", DLQ_VERB_REDELIVER, false, DLQ_LANE_DELIVERY, false,
         "deliver again what failed for good at a sink"),
    ROW ("REPLAY", DLQ_VERB_REPLAY, false, DLQ_LANE_REPLAY, true, "send stored events back, as a job (or a dry run)"),
    ROW ("REPLAY.STATUS", DLQ_VERB_REPLAY_STATUS, true, DLQ_LANE_REPLAY, true, "the replay jobs, or one of them"),
    ROW ("REPLAY.PAUSE", DLQ_VERB_REPLAY_PAUSE, false, DLQ_LANE_REPLAY, true, "pause a replay job"),
    ROW ("REPLAY.RESUME", DLQ_VERB_REPLAY_RESUME, false, DLQ_LANE_REPLAY, true, "resume a paused replay job"),
    ROW ("REPLAY.CANCEL", DLQ_VERB_REPLAY_CANCEL, false, DLQ_LANE_REPLAY, true, "stop a replay job for good"),
    ROW ("RESOLVE", DLQ_VERB_RESOLVE, false, DLQ_LANE_REPLAY, true, "a replayed event was processed: SUCCEEDED"),
    ROW ("FAIL", DLQ_VERB_FAIL, false, DLQ_LANE_REPLAY, true, "a replayed event failed again: due after a backoff"),
    ROW ("CKPT.SAVE", DLQ_VERB_CKPT_SAVE, false, DLQ_LANE_CHECKPOINT_WRITE, false, "write a stream's checkpoint"),
    ROW ("CKPT.SEEN", DLQ_VERB_CKPT_SEEN, false, DLQ_LANE_CHECKPOINT_WRITE, false,
         "move a checkpoint's last seen token"),
    ROW ("CKPT.PROCESSED", DLQ_VERB_CKPT_PROCESSED, false, DLQ_LANE_CHECKPOINT_WRITE, false,
         "move a checkpoint's last processed token"),
    ROW ("CKPT.GET", DLQ_VERB_CKPT_GET, false, DLQ_LANE_CHECKPOINT_READ, false, "a stream's checkpoint"),
    ROW ("CKPT.LIST", DLQ_VERB_CKPT_LIST, true, DLQ_LANE_CHECKPOINT_READ, false,
         "the checkpoints, by stream name, a page at a time"),
    ROW ("CKPT.DELETE", DLQ_VERB_CKPT_DELETE, false, DLQ_LANE_CHECKPOINT_WRITE, false, "delete a stream's checkpoint"),
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
    dlq_buf_puts (out, "| verb | body | served by | waits for the index | what it does |\n"
                       "| --- | --- | --- | --- | --- |\n");
    for (size_t i = 0; i < ROW_COUNT; i++)
        dlq_buf_printf (out, "| `%s` | %s | %s | %s | %s |\n", rows [i].name,
                        rows [i].body_optional ? "may be empty" : "required", lane_texts [rows [i].lane],
                        rows [i].catch_up ? "yes" : "no", rows [i].summary);
}
