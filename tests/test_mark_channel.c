/*  test_mark_channel — the path of a mark (RESOLVE, FAIL, a replay's
 *  marks) through the spool (router/ingest/mark_channel): an asker is
 *  answered only once the indexer applied every one of its marks, with
 *  each one's own result; a sync that failed fails the ask with its
 *  reason; an asker that stopped waiting leaves its marks to be applied
 *  all the same; a closed channel answers at once. The committer and the
 *  indexer are played by a thread of the test.
 */
#include "mark_channel.h"

#include <criterion/criterion.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>

typedef struct {
    dlq_mark_channel_t *channel;
    bool                sync_ok;
    uint64_t            first_position;
    size_t              taken;
} player_t;

/* The committer's part, then the indexer's: the first mark applied with
 * retry count 1, any other NOT_FOUND. */
static void *
play (void *arg)
{
    player_t *p = arg;
    struct pollfd fd = { dlq_mark_channel_fd (p->channel), POLLIN, 0 };
    cr_assert_eq (poll (&fd, 1, 5000), 1, "the committer's descriptor never became readable");
    dlq_mark_t **marks = dlq_mark_channel_take (p->channel, &p->taken);
    for (size_t i = 0; i < p->taken; i++)
        marks [i]->position = p->first_position + i;
    dlq_mark_channel_appended (p->channel);
    dlq_mark_channel_synced (p->channel, p->sync_ok, "No space left on device");
    if (!p->sync_ok)
        return NULL;
    for (size_t i = 0; i < p->taken; i++) {
        dlq_sink_event_state_t state = { "PENDING", 1, 0, 42 };
        dlq_mark_channel_applied (p->channel, p->first_position + i, i == 0 ? DLQ_STORE_OK : DLQ_STORE_NOT_FOUND,
                                  &state);
    }
    return NULL;
}

Test (mark_channel, an_ask_is_answered_once_its_marks_are_applied_each_with_its_own_result)
{
    dlq_mark_channel_t *channel = dlq_mark_channel_new ();
    player_t p = { channel, true, 1000, 0 };
    pthread_t thread;
    pthread_create (&thread, NULL, play, &p);
    const char *ids [2] = { "a", "b" };
    dlq_store_result_t rcs [2] = { DLQ_STORE_ERROR, DLQ_STORE_ERROR };
    dlq_sink_event_state_t states [2];
    char err [256] = "";
    cr_assert_eq (dlq_mark_channel_apply (channel, ids, 2, DLQ_SINK_MARK_FAILED, 1, 2, 5000, rcs, states,
                                          err, sizeof err), DLQ_STORE_OK, "%s", err);
    pthread_join (thread, NULL);
    cr_assert_eq (p.taken, 2, "both marks went in one take");
    cr_assert_eq (rcs [0], DLQ_STORE_OK);
    cr_assert_eq (rcs [1], DLQ_STORE_NOT_FOUND);
    cr_assert_str_eq (states [0].status, "PENDING");
    cr_assert_eq (states [0].retry_count, 1);
    cr_assert_eq (states [0].retry_after, 42);
    dlq_mark_channel_destroy (&channel);
    cr_assert_null (channel);
}

Test (mark_channel, a_failed_sync_fails_the_ask_with_its_reason)
{
    dlq_mark_channel_t *channel = dlq_mark_channel_new ();
    player_t p = { channel, false, 7, 0 };
    pthread_t thread;
    pthread_create (&thread, NULL, play, &p);
    const char *id = "a";
    char err [256] = "";
    cr_assert_eq (dlq_mark_channel_apply (channel, &id, 1, DLQ_SINK_MARK_RESOLVED, 1, 0, 5000, NULL, NULL,
                                          err, sizeof err), DLQ_STORE_ERROR);
    cr_assert (strstr (err, "No space left on device"), "%s", err);
    pthread_join (thread, NULL);
    /* nothing of it is in flight: a late answer for its position finds no one */
    dlq_mark_channel_applied (channel, 7, DLQ_STORE_OK, NULL);
    dlq_mark_channel_destroy (&channel);
}

/* The committer's part for the one mark queued: its record at position,
 * synced. Its id. */
static const char *
commit_one (dlq_mark_channel_t *channel, uint64_t position)
{
    size_t count = 0;
    dlq_mark_t **marks = dlq_mark_channel_take (channel, &count);
    cr_assert_eq (count, 1);
    marks [0]->position = position;
    const char *id = marks [0]->id;
    dlq_mark_channel_appended (channel);
    dlq_mark_channel_synced (channel, true, NULL);
    return id;
}

Test (mark_channel, an_ask_not_answered_in_time_fails_and_its_mark_goes_on_without_it)
{
    dlq_mark_channel_t *channel = dlq_mark_channel_new ();
    const char *id = "late";
    char err [256] = "";
    cr_assert_eq (dlq_mark_channel_apply (channel, &id, 1, DLQ_SINK_MARK_RESOLVED, 1, 0, 50, NULL, NULL,
                                          err, sizeof err), DLQ_STORE_ERROR);
    cr_assert (strstr (err, "not applied in time"), "%s", err);
    /* the committer and the indexer come to it later (ASan: freed once, when applied) */
    cr_assert_str_eq (commit_one (channel, 9), "late");
    dlq_mark_channel_applied (channel, 9, DLQ_STORE_OK, NULL);
    size_t count = 1;
    dlq_mark_channel_take (channel, &count);
    cr_assert_eq (count, 0, "nothing is queued any more");
    dlq_mark_channel_synced (channel, true, NULL);
    dlq_mark_channel_destroy (&channel);
}

Test (mark_channel, an_abandoned_mark_still_held_is_freed_with_the_channel)
{
    dlq_mark_channel_t *channel = dlq_mark_channel_new ();
    const char *id = "held";
    char err [256] = "";
    cr_assert_eq (dlq_mark_channel_apply (channel, &id, 1, DLQ_SINK_MARK_RESOLVED, 1, 0, 10, NULL, NULL,
                                          err, sizeof err), DLQ_STORE_ERROR);
    cr_assert_str_eq (commit_one (channel, 3), "held");
    dlq_mark_channel_destroy (&channel);    /* in flight, never applied: LeakSanitizer checks it is freed */
}

Test (mark_channel, a_closed_channel_answers_every_ask_at_once)
{
    dlq_mark_channel_t *channel = dlq_mark_channel_new ();
    dlq_mark_channel_close (channel);
    const char *id = "a";
    char err [256] = "";
    cr_assert_eq (dlq_mark_channel_apply (channel, &id, 1, DLQ_SINK_MARK_RESOLVED, 1, 0, 60000, NULL, NULL,
                                          err, sizeof err), DLQ_STORE_ERROR);
    cr_assert (strstr (err, "stopping"), "%s", err);
    size_t count = 1;
    dlq_mark_channel_take (channel, &count);
    cr_assert_eq (count, 0, "an ask of a closed channel queues nothing");
    dlq_mark_channel_synced (channel, true, NULL);
    dlq_mark_channel_destroy (&channel);
}
