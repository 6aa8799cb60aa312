/*  replayer — replay jobs and scheduled passes on one thread (see the
 *  header).
 */
#include "replayer.h"

#include "actor.h"
#include "dlq_alloc.h"
#include "dlq_json.h"
#include "dlq_log.h"
#include "dlq_time.h"
#include "dlq_uuid.h"
#include "job_store.h"
#include "log_store.h"
#include "primary.h"
#include "replay_job.h"
#include "replay_lineage.h"
#include "replay_pacer.h"
#include "replay_target.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TICK_MS 20              /* longest sleep while a job runs */
#define IDLE_MS 250             /* ... while none does */
#define JOBS_REFRESH_MS 250
#define PAGE_SIZE 100           /* events read per page; fixed, so a saved cursor finds its place again */
#define STEP_MAX 100            /* events sent per job per step, at most */
#define JOBS_MAX 64             /* jobs running at once */
#define WAIT_FIRST_MS 500
#define WAIT_MAX_MS 30000

/* A running job's state on this thread. */
typedef struct {
    dlq_replay_job_t  job;              /* its row: counters, cursor ("k|page cursor") */
    dlq_replay_plan_t plan;
    dlq_json_doc_t   *replacement;      /* plan.replacement parsed: sent instead of the stored event */
    dlq_replay_pacer_t       pacer;
    char             *page_cursor;      /* where the current page starts ("" = the first) */
    size_t            page_done;        /* events of the page handled */
    char              last_id [64];     /* the last of them ("" : none yet) */
    dlq_json_doc_t   *page;             /* the current page, NULL when not read */
    const dlq_json_value_t *item;       /* the next event of the page */
    char             *next_cursor;      /* the next page's cursor, NULL on the last */
    int64_t           wait_until;       /* mono ms: after a WAIT */
    int64_t           wait_ms;
    bool              seen;             /* still RUNNING at the last refresh */
} run_t;

/* Events to mark together, in one transaction: those sent and not yet
 * marked REPLAYED, at the end of each step of a job and of each pass (a
 * restart resumes from the progress saved after that, so an event sent
 * but not marked is sent again: at least once, as before); and those a
 * pass could not send, RELEASED. */
typedef struct {
    char       (*ids) [DLQ_UUID_LEN + 1];
    const char **ptrs;
    size_t       count, cap;
} mark_list_t;

typedef struct {
    const dlqd_config_t  *config;
    void                 *zmq_ctx;
    mark_list_t           marks;
    dlq_log_store_t      *store;        /* the primary's instance when it is the embedded store */
    dlq_primary_t        *primary;
    dlq_state_store_t    *jobs;
    dlq_replay_targets_t *targets;
    run_t                *runs [JOBS_MAX];
    size_t                run_count;
    int64_t              *next_pass;    /* mono ms, per scheduled stream */
    int64_t              *pass_wait_ms; /* per scheduled stream: the backoff after passes that had to wait */
    int64_t               next_refresh;
    dlq_replay_control_t *control;
    dlq_mark_channel_t   *mark_channel; /* the spool's mark channel (mark_channel.h) */
    uint64_t              handled;      /* the control generation the jobs were last read for */
    char                  error [512];
} replayer_t;

struct dlq_replayer {
    dlq_actor_t *actor;
    replayer_t   state;
};

/* ---- one event ------------------------------------------------------------------- */

typedef enum { EV_REPLAYED, EV_SKIPPED, EV_QUARANTINED, EV_FAILED, EV_WAIT } event_result_t;

static void
marks_add (mark_list_t *marks, const char *id)
{
    if (marks->count == marks->cap) {
        marks->cap = marks->cap ? 2 * marks->cap : 128;
        marks->ids = dlq_realloc (marks->ids, marks->cap * sizeof *marks->ids);
        marks->ptrs = dlq_realloc (marks->ptrs, marks->cap * sizeof *marks->ptrs);
    }
    snprintf (marks->ids [marks->count], sizeof marks->ids [0], "%s", id);
    marks->count++;
}

/* Mark every event of r->marks as mark, with retry_after, in one call,
 * and empty the list; on a store failure log that (what: the events). */
static void
marks_apply (replayer_t *r, dlq_sink_mark_t mark, int64_t now, int64_t retry_after, const char *what)
{
    mark_list_t *marks = &r->marks;
    if (!marks->count)
        return;
    for (size_t i = 0; i < marks->count; i++)
        marks->ptrs [i] = marks->ids [i];
    if (dlq_primary_mark_all (r->primary, marks->ptrs, marks->count, mark, now, retry_after) == DLQ_STORE_ERROR)
        dlq_log (DLQ_LOG_ERROR, "replay: %zu %s: %s", marks->count, what, dlq_primary_last_error (r->primary));
    marks->count = 0;
}

/* Mark the events sent since the last flush REPLAYED (the lease starts
 * now). */
static void
sent_flush (replayer_t *r)
{
    int64_t now = dlq_time_now_ms ();
    marks_apply (r, DLQ_SINK_MARK_REPLAYED, now, now + r->config->replay.lease_ms,
                 "events sent, but their replay could not be recorded");
}

/* Replay one stored event (its canonical body, or body when not NULL: a
 * corrected copy of it): the loop guard, the lineage, the send; a sent
 * event joins r->marks (sent_flush marks it). replay_count: what the
 * store says. */
static event_result_t
replay_event (replayer_t *r, const char *job, bool to_endpoint, const dlq_json_value_t *event,
              const dlq_json_value_t *body_root, int32_t replay_count, char *why, size_t why_len)
{
    const dlqd_replay_config_t *conf = &r->config->replay;
    const dlq_json_value_t *id = dlq_json_get (event, "id");
    const dlq_json_value_t *stream = dlq_json_get (event, "streamName");
    if (!id || id->type != DLQ_JSON_STRING || !stream || stream->type != DLQ_JSON_STRING) {
        snprintf (why, why_len, "a stored event without id or streamName");
        return EV_FAILED;
    }
    int64_t now = dlq_time_now_ms ();
    dlq_sink_event_state_t state;
    if (replay_count >= conf->max_replays) {
        if (dlq_primary_mark (r->primary, id->str, DLQ_SINK_MARK_QUARANTINED, now, 0, &state) == DLQ_STORE_ERROR) {
            snprintf (why, why_len, "%s", dlq_primary_last_error (r->primary));
            return EV_WAIT;
        }
        dlq_log (DLQ_LOG_WARN, "replay: event %s replayed %d times (max_replays %lld): QUARANTINED", id->str,
                 (int) replay_count, (long long) conf->max_replays);
        return EV_QUARANTINED;
    }
    dlq_buf_t body = DLQ_BUF_INIT;
    dlq_replay_lineage_of (body_root ? body_root : event, id->str, replay_count + 1, &body);
    dlq_replay_send_t sent = dlq_replay_targets_send (r->targets, to_endpoint, job, stream->str, id->str,
                                                      body.data, body.len, why, why_len);
    dlq_buf_free (&body);
    if (sent == DLQ_REPLAY_WAIT)
        return EV_WAIT;
    if (sent == DLQ_REPLAY_FAILED)
        return EV_FAILED;
    marks_add (&r->marks, id->str);
    return EV_REPLAYED;
}

/* A job's event: skipped when gone, resolved or quarantined already. */
static event_result_t
job_event (replayer_t *r, run_t *run, const dlq_json_value_t *event, char *why, size_t why_len)
{
    const dlq_json_value_t *id = dlq_json_get (event, "id");
    dlq_sink_event_state_t state;
    dlq_store_result_t rc = id && id->type == DLQ_JSON_STRING
                          ? dlq_primary_state (r->primary, id->str, dlq_time_now_ms (), &state) : DLQ_STORE_NOT_FOUND;
    if (rc == DLQ_STORE_NOT_FOUND)
        return EV_SKIPPED;
    if (rc != DLQ_STORE_OK) {
        snprintf (why, why_len, "%s", dlq_primary_last_error (r->primary));
        return EV_WAIT;
    }
    if (strcmp (state.status, "SUCCEEDED") == 0 || strcmp (state.status, "QUARANTINED") == 0)
        return EV_SKIPPED;
    return replay_event (r, run->job.id, run->plan.to_endpoint, event,
                         run->replacement ? dlq_json_root (run->replacement) : NULL, state.replay_count, why, why_len);
}

/* ---- jobs ------------------------------------------------------------------------ */

static void
run_drop_page (run_t *run)
{
    dlq_json_doc_destroy (&run->page);
    run->item = NULL;
    free (run->next_cursor);
    run->next_cursor = NULL;
}

static void
run_destroy (run_t **run_p)
{
    run_t *run = *run_p;
    run_drop_page (run);
    free (run->page_cursor);
    dlq_replay_plan_free (&run->plan);
    dlq_json_doc_destroy (&run->replacement);
    dlq_replay_job_clear (&run->job);
    free (run);
    *run_p = NULL;
}

/* A job seen RUNNING for the first time: its plan and saved place. */
static run_t *
run_new (dlq_replay_job_t *job)
{
    run_t *run = dlq_calloc (1, sizeof *run);
    run->job = *job;
    memset (job, 0, sizeof *job);
    if (!dlq_replay_plan_read (run->job.request, strlen (run->job.request), &run->plan)
        || (run->plan.replacement && dlq_json_parse (run->plan.replacement, strlen (run->plan.replacement),
                                                     &run->replacement, NULL) != DLQ_JSON_OK)) {
        run_destroy (&run);
        return NULL;
    }
    /* The saved place: "<handled>|<last id handled>|<page cursor>". */
    const char *cursor = run->job.cursor ? run->job.cursor : "0||";
    const char *bar = strchr (cursor, '|');
    const char *bar2 = bar ? strchr (bar + 1, '|') : NULL;
    run->page_done = (size_t) strtoull (cursor, NULL, 10);
    if (bar2 && (size_t) (bar2 - bar - 1) < sizeof run->last_id)
        snprintf (run->last_id, sizeof run->last_id, "%.*s", (int) (bar2 - bar - 1), bar + 1);
    run->page_cursor = dlq_strdup (bar2 ? bar2 + 1 : "");
    dlq_replay_pacer_start (&run->pacer, (double) run->plan.rate, dlq_time_mono_ms ());
    return run;
}

/* Where a page read again goes on: after the last event handled (events
 * swept from the page meanwhile do not shift the place); when that one is
 * gone too, from the page's start (at-least-once: the page's handled
 * events may go again, none is skipped). */
static const dlq_json_value_t *
resume_point (const run_t *run, const dlq_json_value_t *page)
{
    for (const dlq_json_value_t *e = page->child; run->last_id [0] && e; e = e->next) {
        const dlq_json_value_t *id = dlq_json_get (e, "id");
        if (id && id->type == DLQ_JSON_STRING && strcmp (id->str, run->last_id) == 0)
            return e->next;
    }
    if (run->last_id [0])
        return page->child;
    const dlq_json_value_t *item = page->child;
    for (size_t i = 0; i < run->page_done && item; i++)
        item = item->next;
    return item;
}

/* Read the page at page_cursor and step over the events already done. */
static bool
read_page (replayer_t *r, run_t *run)
{
    dlq_buf_t events = DLQ_BUF_INIT, next = DLQ_BUF_INIT;
    dlq_store_result_t rc = DLQ_STORE_OK;
    if (run->plan.by_ids) {
        size_t start = (size_t) strtoull (run->page_cursor, NULL, 10);
        dlq_buf_t one = DLQ_BUF_INIT;
        dlq_buf_putc (&events, '[');
        size_t end = start + PAGE_SIZE < run->plan.id_count ? start + PAGE_SIZE : run->plan.id_count;
        for (size_t i = start, n = 0; i < end && rc != DLQ_STORE_ERROR; i++) {
            rc = dlq_primary_get (r->primary, run->plan.ids [i], dlq_time_now_ms (), &one);
            if (rc == DLQ_STORE_OK) {
                dlq_buf_puts (&events, n++ ? "," : "");
                dlq_buf_append (&events, one.data, one.len);
            }
        }
        dlq_buf_putc (&events, ']');
        dlq_buf_free (&one);
        if (end < run->plan.id_count)
            dlq_buf_printf (&next, "%zu", end);
    }
    else
        rc = dlq_primary_query_list (r->primary, &run->plan.filter, PAGE_SIZE,
                                     run->page_cursor [0] ? run->page_cursor : NULL, dlq_time_now_ms (),
                                     &events, &next);
    bool ok = rc != DLQ_STORE_ERROR && rc != DLQ_STORE_BAD_CURSOR
           && dlq_json_parse (events.data, events.len, &run->page, NULL) == DLQ_JSON_OK;
    if (ok) {
        run->item = resume_point (run, dlq_json_root (run->page));
        dlq_buf_putc (&next, '\0');
        run->next_cursor = next.len > 1 ? dlq_buf_steal (&next, NULL) : NULL;
    }
    else {
        free (run->job.last_error);
        run->job.last_error = dlq_strdup (dlq_primary_last_error (r->primary));
    }
    dlq_buf_free (&events);
    dlq_buf_free (&next);
    return ok;
}

/* Past the current page: to the next, or the end of the job. */
static bool
next_page (run_t *run)
{
    if (!run->next_cursor)
        return false;
    free (run->page_cursor);
    run->page_cursor = run->next_cursor;
    run->next_cursor = NULL;
    run->page_done = 0;
    run->last_id [0] = '\0';
    dlq_json_doc_destroy (&run->page);
    return true;
}

static void
count_result (run_t *run, event_result_t result, const char *why)
{
    dlq_replay_job_t *job = &run->job;
    job->replayed += result == EV_REPLAYED;
    job->skipped += result == EV_SKIPPED;
    job->quarantined += result == EV_QUARANTINED;
    job->failed += result == EV_FAILED;
    job->done++;
    if (result == EV_FAILED) {
        free (job->last_error);
        job->last_error = dlq_strdup (why);
    }
}

static void
save_progress (replayer_t *r, run_t *run)
{
    size_t len = strlen (run->page_cursor) + sizeof run->last_id + 32;
    char *cursor = dlq_calloc (1, len);
    snprintf (cursor, len, "%zu|%s|%s", run->page_done, run->last_id, run->page_cursor);
    free (run->job.cursor);
    run->job.cursor = cursor;
    if (dlq_job_store_progress (r->jobs, &run->job, dlq_time_now_ms ()) != DLQ_STORE_OK)
        dlq_log (DLQ_LOG_ERROR, "replay %s: progress not saved: %s", run->job.id, dlq_state_store_last_error (r->jobs));
}

/* Send what the pacer allows; true when the job is finished. */
static bool
step_job (replayer_t *r, run_t *run)
{
    int64_t mono = dlq_time_mono_ms ();
    if (mono < run->wait_until)
        return false;
    size_t allowed = dlq_replay_pacer_allow (&run->pacer, mono, STEP_MAX), sent = 0;
    bool finished = false, changed = false;
    char why [512] = "";
    while (sent < allowed && dlq_replay_control_requested (r->control) == r->handled) {
        if (!run->page && !read_page (r, run)) {
            run->wait_until = mono + WAIT_MAX_MS;      /* the store failed: lastError says why */
            changed = true;
            break;
        }
        if (!run->item) {
            if (!next_page (run)) {
                finished = true;
                break;
            }
            changed = true;
            continue;
        }
        event_result_t result = job_event (r, run, run->item, why, sizeof why);
        if (result == EV_WAIT) {
            run->wait_ms = run->wait_ms ? (run->wait_ms * 2 < WAIT_MAX_MS ? run->wait_ms * 2 : WAIT_MAX_MS)
                                        : WAIT_FIRST_MS;
            run->wait_until = mono + run->wait_ms;
            if (!run->job.last_error || strcmp (run->job.last_error, why) != 0) {
                free (run->job.last_error);
                run->job.last_error = dlq_strdup (why);
                changed = true;
            }
            break;
        }
        run->wait_ms = 0;
        count_result (run, result, why);
        const dlq_json_value_t *id = dlq_json_get (run->item, "id");
        snprintf (run->last_id, sizeof run->last_id, "%s", id && id->type == DLQ_JSON_STRING ? id->str : "");
        run->item = run->item->next;
        run->page_done++;
        sent++;
        changed = true;
    }
    dlq_replay_pacer_sent (&run->pacer, sent);
    sent_flush (r);
    if (changed || finished)
        save_progress (r, run);
    return finished;
}

static void
finish_job (replayer_t *r, run_t *run)
{
    dlq_replay_job_t job = { .state = DLQ_JOB_RUNNING };
    if (dlq_job_store_set_state (r->jobs, run->job.id, 1u << DLQ_JOB_RUNNING, DLQ_JOB_DONE,
                                    dlq_time_now_ms (), &job) == DLQ_STORE_OK)
        dlq_log (DLQ_LOG_INFO, "replay %s: DONE, %" PRId64 " replayed, %" PRId64 " skipped, %" PRId64
                 " quarantined, %" PRId64 " failed", job.id, job.replayed, job.skipped, job.quarantined, job.failed);
    dlq_replay_job_clear (&job);
}

static run_t *
find_run (replayer_t *r, const char *id)
{
    for (size_t i = 0; i < r->run_count; i++)
        if (strcmp (r->runs [i]->job.id, id) == 0)
            return r->runs [i];
    return NULL;
}

/* Take up new RUNNING jobs, let go of those paused or cancelled meanwhile. */
static void
refresh_jobs (replayer_t *r)
{
    dlq_replay_job_t *list = NULL;
    size_t count = 0;
    if (dlq_job_store_list (r->jobs, true, JOBS_MAX, &list, &count) != DLQ_STORE_OK) {
        dlq_log (DLQ_LOG_ERROR, "replay: cannot read the jobs: %s", dlq_state_store_last_error (r->jobs));
        return;
    }
    for (size_t i = 0; i < r->run_count; i++)
        r->runs [i]->seen = false;
    for (size_t i = 0; i < count; i++) {
        run_t *run = find_run (r, list [i].id);
        if (!run && r->run_count < JOBS_MAX && (run = run_new (&list [i])) != NULL)
            r->runs [r->run_count++] = run;
        if (run)
            run->seen = true;
        dlq_replay_job_clear (&list [i]);
    }
    free (list);
    for (size_t i = 0; i < r->run_count; ) {
        if (r->runs [i]->seen) {
            i++;
            continue;
        }
        run_destroy (&r->runs [i]);
        r->runs [i] = r->runs [--r->run_count];
    }
}

static void
step_jobs (replayer_t *r)
{
    for (size_t i = 0; i < r->run_count; ) {
        if (!step_job (r, r->runs [i])) {
            i++;
            continue;
        }
        finish_job (r, r->runs [i]);
        run_destroy (&r->runs [i]);
        r->runs [i] = r->runs [--r->run_count];
    }
}

/* ---- scheduled passes ---------------------------------------------------------- */

typedef enum { PASS_DONE, PASS_LOCKED, PASS_WAITED } pass_result_t;

/* Give claimed events back (due again at now), in one call: the ones a
 * pass could not send, so that they need not sit out their lease. */
static void
release_claimed (replayer_t *r, const dlq_json_value_t *c, int64_t now)
{
    for (; c; c = c->next) {
        const dlq_json_value_t *id = dlq_json_get (dlq_json_get (c, "event"), "id");
        if (id && id->type == DLQ_JSON_STRING)
            marks_add (&r->marks, id->str);
    }
    marks_apply (r, DLQ_SINK_MARK_RELEASED, now, now, "claimed events not released (due again after their lease)");
}

/* One pass of stream. An event that must wait (no worker at the endpoint,
 * the route's sink not taking it) ends the pass: it and the rest of the
 * batch are released, and the pass is tried again soon (PASS_WAITED). */
static pass_result_t
run_pass (replayer_t *r, const char *stream, const dlq_schedule_t *schedule)
{
    const dlqd_replay_config_t *conf = &r->config->replay;
    int64_t now = dlq_time_now_ms ();
    dlq_buf_t claimed = DLQ_BUF_INIT;
    dlq_store_result_t rc = dlq_primary_claim (r->primary, stream, conf->owner, schedule->interval_ms,
                                               schedule->max_retries, (size_t) schedule->batch_size, now,
                                               now + conf->lease_ms, &claimed);
    dlq_json_doc_t *doc = NULL;
    pass_result_t result = PASS_DONE;
    if (rc == DLQ_STORE_LOCKED) {
        dlq_log (DLQ_LOG_DEBUG, "schedule %s: another instance holds this pass", stream);
        result = PASS_LOCKED;
    }
    else
    if (rc != DLQ_STORE_OK || dlq_json_parse (claimed.data, claimed.len, &doc, NULL) != DLQ_JSON_OK)
        dlq_log (DLQ_LOG_ERROR, "schedule %s: claim failed: %s", stream, dlq_primary_last_error (r->primary));
    else {
        int64_t counts [EV_WAIT + 1] = { 0 };
        char why [512] = "";
        const dlq_json_value_t *c = dlq_json_root (doc)->child;
        for (; c; c = c->next) {
            int64_t replays = 0;
            dlq_json_as_int64 (dlq_json_get (c, "replayCount"), &replays);
            event_result_t sent = replay_event (r, "schedule", false, dlq_json_get (c, "event"), NULL, (int32_t) replays,
                                                why, sizeof why);
            if (sent == EV_WAIT)
                break;
            counts [sent]++;
        }
        sent_flush (r);
        if (c) {
            for (const dlq_json_value_t *rest = c; rest; rest = rest->next)
                counts [EV_WAIT]++;
            release_claimed (r, c, now);
            result = PASS_WAITED;
        }
        if (dlq_json_root (doc)->count)
            dlq_log (result == PASS_WAITED ? DLQ_LOG_WARN : DLQ_LOG_INFO, "schedule %s: %" PRId64 " replayed, %"
                     PRId64 " quarantined, %" PRId64 " failed, %" PRId64 " released to wait%s%s", stream,
                     counts [EV_REPLAYED], counts [EV_QUARANTINED], counts [EV_FAILED], counts [EV_WAIT],
                     why [0] ? ": " : "", why);
    }
    dlq_json_doc_destroy (&doc);
    dlq_buf_free (&claimed);
    return result;
}

/* When stream i's next pass is due after a pass that ended so. A pass
 * another gateway holds is looked at again every tenth of the interval,
 * so one gateway takes over soon after another stops; one that had to
 * wait is tried again after a backoff (0.5 s doubling to 30 s, at most
 * the interval). */
static int64_t
next_pass_after (replayer_t *r, size_t i, pass_result_t result, int64_t interval_ms)
{
    if (result != PASS_WAITED) {
        r->pass_wait_ms [i] = 0;
        return result == PASS_LOCKED ? interval_ms / 10 : interval_ms;
    }
    int64_t wait = r->pass_wait_ms [i] ? r->pass_wait_ms [i] * 2 : WAIT_FIRST_MS;
    wait = wait > WAIT_MAX_MS ? WAIT_MAX_MS : wait;
    r->pass_wait_ms [i] = wait;
    return wait < interval_ms ? wait : interval_ms;
}

static void
run_passes (replayer_t *r, int64_t mono)
{
    const dlqd_replay_config_t *conf = &r->config->replay;
    for (size_t i = 0; i < conf->scheduled_count; i++) {
        if (mono < r->next_pass [i])
            continue;
        const dlq_policy_t *policy = dlq_policy_table_lookup (r->config->policies, conf->scheduled [i]);
        pass_result_t result = run_pass (r, conf->scheduled [i], &policy->schedule);
        r->next_pass [i] = mono + next_pass_after (r, i, result, policy->schedule.interval_ms);
    }
}

/* ---- the thread ------------------------------------------------------------------ */

static bool
open_all (replayer_t *r)
{
    if (!r->config->primary_sink) {
        r->store = dlq_log_store_open (r->config, DLQ_SINK_MODE_QUERY, r->error, sizeof r->error);
        if (!r->store)
            return false;
    }
    r->primary = dlq_primary_open (r->config, r->store, r->error, sizeof r->error);
    if (r->primary)
        dlq_primary_use_marks (r->primary, r->mark_channel);
    if (r->primary && r->config->replay.scheduled_count && !dlq_primary_workbench (r->primary)) {
        snprintf (r->error, sizeof r->error, "stream %s has a schedule, but primary %s keeps no replay state "
                  "(use embedded, postgres or mongo)", r->config->replay.scheduled [0], r->config->primary);
        return false;
    }
    if (r->primary)
        r->jobs = dlq_state_store_open (r->config->data_dir, r->error, sizeof r->error);
    if (r->jobs)
        r->targets = dlq_replay_targets_new (r->zmq_ctx, r->config, r->error, sizeof r->error);
    r->next_pass = dlq_calloc (r->config->replay.scheduled_count + 1, sizeof (int64_t));
    r->pass_wait_ms = dlq_calloc (r->config->replay.scheduled_count + 1, sizeof (int64_t));
    return r->targets != NULL;
}

static void
close_all (replayer_t *r)
{
    for (size_t i = 0; i < r->run_count; i++)
        run_destroy (&r->runs [i]);
    r->run_count = 0;
    dlq_replay_targets_destroy (&r->targets);
    dlq_state_store_destroy (&r->jobs);
    dlq_primary_close (&r->primary);
    dlq_log_store_close (&r->store);
    free (r->next_pass);
    r->next_pass = NULL;
    free (r->pass_wait_ms);
    r->pass_wait_ms = NULL;
    free (r->marks.ids);
    free (r->marks.ptrs);
    memset (&r->marks, 0, sizeof r->marks);
}

/* How long to sleep: until the next due event, pass or refresh. */
static long
sleep_ms (replayer_t *r, int64_t mono)
{
    int64_t until = r->next_refresh;
    for (size_t i = 0; i < r->config->replay.scheduled_count; i++)
        until = r->next_pass [i] < until ? r->next_pass [i] : until;
    for (size_t i = 0; i < r->run_count; i++) {
        int64_t due = dlq_replay_pacer_due (&r->runs [i]->pacer);
        due = r->runs [i]->wait_until > due ? r->runs [i]->wait_until : due;
        until = due < until ? due : until;
    }
    int64_t wait = until - mono;
    int64_t cap = r->run_count ? TICK_MS : IDLE_MS;
    return (long) (wait < 0 ? 0 : wait > cap ? cap : wait);
}

static void
run (void *pipe, void *arg)
{
    replayer_t *r = arg;
    dlq_actor_name ("dlqd-replayer");
    bool ok = open_all (r);
    dlq_actor_ready (pipe, ok);
    if (!ok) {
        close_all (r);
        dlq_replay_control_close (r->control);
        return;
    }
    while (true) {
        int64_t mono = dlq_time_mono_ms ();
        uint64_t requested = dlq_replay_control_requested (r->control);
        if (mono >= r->next_refresh || requested != r->handled) {
            refresh_jobs (r);
            r->next_refresh = mono + JOBS_REFRESH_MS;
            r->handled = requested;
            dlq_replay_control_handled (r->control, requested);
        }
        step_jobs (r);
        run_passes (r, mono);
        bool asked = dlq_replay_control_requested (r->control) != r->handled;
        zmq_pollitem_t item = { pipe, 0, ZMQ_POLLIN, 0 };
        if (zmq_poll (&item, 1, asked ? 0 : sleep_ms (r, dlq_time_mono_ms ())) > 0)
            break;                  /* the only message is stop */
    }
    zmq_msg_t msg;
    zmq_msg_init (&msg);
    zmq_msg_recv (&msg, pipe, 0);
    zmq_msg_close (&msg);
    close_all (r);
    dlq_replay_control_close (r->control);
}

dlq_replayer_t *
dlq_replayer_new (void *zmq_ctx, const dlqd_config_t *config, dlq_replay_control_t *control,
                  dlq_mark_channel_t *marks, char *err, size_t err_len)
{
    dlq_replayer_t *self = dlq_calloc (1, sizeof *self);
    self->state.config = config;
    self->state.control = control;
    self->state.mark_channel = marks;
    self->state.zmq_ctx = zmq_ctx;
    snprintf (self->state.error, sizeof self->state.error, "cannot start the replayer");
    self->actor = dlq_actor_new (zmq_ctx, run, &self->state);
    if (!self->actor) {
        snprintf (err, err_len, "replay: %s", self->state.error);
        dlq_replay_control_close (control);
        free (self);
        return NULL;
    }
    return self;
}

void
dlq_replayer_destroy (dlq_replayer_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_actor_destroy (&(*self_p)->actor);
    free (*self_p);
    *self_p = NULL;
}
