/*  replay_verbs — REPLAY, its job controls, RESOLVE and FAIL. */
#include "replay_verbs.h"

#include "dlq_alloc.h"
#include "dlq_json.h"
#include "failed_event.h"
#include "dlq_log.h"
#include "dlq_time.h"
#include "dlq_uuid.h"
#include "job_store.h"
#include "replay_job.h"
#include "request_params.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JOBS_LIST_MAX 100
#define SAMPLE_DEFAULT 10
#define SAMPLE_MAX 100

#define CONTROL_WAIT_MS 5000       /* how long PAUSE / RESUME / CANCEL wait for the replayer */

struct dlq_replay_verbs {
    const dlqd_config_t *config;
    dlq_primary_t       *primary;
    dlq_replay_control_t *control;
    dlq_state_store_t   *jobs;          /* the daemon's state file, opened at first use */
    char                 error [512];
};

dlq_replay_verbs_t *
dlq_replay_verbs_new (const dlqd_config_t *config, dlq_primary_t *primary, dlq_replay_control_t *control)
{
    dlq_replay_verbs_t *self = dlq_calloc (1, sizeof *self);
    self->config = config;
    self->primary = primary;
    self->control = control;
    return self;
}

void
dlq_replay_verbs_destroy (dlq_replay_verbs_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_state_store_destroy (&(*self_p)->jobs);
    free (*self_p);
    *self_p = NULL;
}

static dlq_code_t
unavailable (const char *what, const char *why, dlq_error_t *err)
{
    dlq_log (DLQ_LOG_ERROR, "%s failed: %s", what, why);
    return dlq_error_set (err, DLQ_ERR_UNAVAILABLE, NULL, "the store could not be %s", what);
}

/* The jobs' connection. */
static dlq_state_store_t *
jobs (dlq_replay_verbs_t *self)
{
    if (!self->jobs)
        self->jobs = dlq_state_store_open (self->config->data_dir, self->error, sizeof self->error);
    return self->jobs;
}

static const char *
jobs_error (dlq_replay_verbs_t *self)
{
    return self->jobs ? dlq_state_store_last_error (self->jobs) : self->error;
}

static dlq_code_t
need_workbench (dlq_replay_verbs_t *self, dlq_error_t *err)
{
    if (dlq_primary_workbench (self->primary))
        return DLQ_OK;
    return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, NULL, "replay state needs a primary that keeps it "
                          "(embedded, postgres or mongo); primary %s does not", self->config->primary);
}

/* ---- REPLAY --------------------------------------------------------------------- */

/* Is v the string word, compared by length (so "route\u0000x" is not "route")? */
static bool
is_word (const dlq_json_value_t *v, const char *word)
{
    return v->type == DLQ_JSON_STRING && v->len == strlen (word) && memcmp (v->str, word, v->len) == 0;
}

/* The streamName (into stream, len bytes) and createdAt of the stored
 * event id. */
static dlq_code_t
stored_event (dlq_replay_verbs_t *self, const char *id, int64_t now, char *stream, size_t len, int64_t *created_at,
              dlq_error_t *err)
{
    dlq_buf_t body = DLQ_BUF_INIT;
    dlq_store_result_t rc = dlq_primary_get (self->primary, id, now, &body);
    dlq_code_t code = DLQ_OK;
    if (rc == DLQ_STORE_NOT_FOUND)
        code = dlq_error_set (err, DLQ_ERR_NOT_FOUND, "ids", "no stored event %s to replace", id);
    else
    if (rc != DLQ_STORE_OK)
        code = unavailable ("read", dlq_primary_last_error (self->primary), err);
    dlq_json_doc_t *doc = NULL;
    if (code == DLQ_OK && dlq_json_parse (body.data, body.len, &doc, NULL) == DLQ_JSON_OK) {
        const dlq_json_value_t *root = dlq_json_root (doc), *event = dlq_json_get (root, "event");
        const dlq_json_value_t *name = dlq_json_get (event ? event : root, "streamName");
        const dlq_json_value_t *created = dlq_json_get (event ? event : root, "createdAt");
        if (name && name->type == DLQ_JSON_STRING)
            snprintf (stream, len, "%.*s", (int) name->len, name->str);
        if (created && created->type == DLQ_JSON_STRING)
            dlq_time_parse_iso (created->str, created->len, created_at);
    }
    dlq_json_doc_destroy (&doc);
    dlq_buf_free (&body);
    return code;
}

/* The replacement of a REPLAY of one id (the corrected copy an operator
 * sends instead of the stored event): validated as a PUT's body is, with
 * the id and streamName of the event it replaces (given or left out; its
 * createdAt too, when left out), kept in plan as its canonical JSON. */
static dlq_code_t
read_replacement (dlq_replay_verbs_t *self, const dlq_json_value_t *v, dlq_replay_plan_t *plan, dlq_error_t *err)
{
    if (!plan->by_ids || plan->id_count != 1)
        return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, "replacement", "a replacement replays one event: "
                              "give \"ids\": [its id]");
    if (v->type != DLQ_JSON_OBJECT)
        return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, "replacement", "replacement must be a FailedEvent object");
    int64_t now = dlq_time_now_ms ();
    char stream [DLQ_STREAM_NAME_MAX * 4 + 1] = "";
    int64_t created_at = now;
    dlq_code_t code = stored_event (self, plan->ids [0], now, stream, sizeof stream, &created_at, err);
    if (code != DLQ_OK)
        return code;
    dlq_buf_t text = DLQ_BUF_INIT;
    dlq_json_write (&text, v);
    dlq_error_t why = { DLQ_OK, "", "" };
    dlq_event_t *event = dlq_event_decode (text.data, text.len, now, &why);
    dlq_buf_free (&text);
    if (!event) {
        dlq_error_set (err, why.code, NULL, "replacement: %s", why.message);
        snprintf (err->field, sizeof err->field, "replacement%s%.100s", why.field [0] ? "." : "", why.field);
        return why.code;
    }
    const dlq_json_value_t *id = dlq_json_get (v, "id");
    if (id && strcmp (event->id, plan->ids [0]) != 0)
        code = dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, "replacement.id", "replacement.id must be the id of the "
                              "event it replaces (%s), or left out", plan->ids [0]);
    else
    if (strcmp (event->stream_name, stream) != 0)
        code = dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, "replacement.streamName", "replacement.streamName must "
                              "be the stream of the event it replaces (%s)", stream);
    if (code == DLQ_OK) {
        if (!id) {
            free (event->id);
            event->id = dlq_strdup (plan->ids [0]);
        }
        if (!dlq_json_get (v, "createdAt"))
            event->created_at = created_at;
        dlq_event_encode (event);
        plan->replacement = dlq_strdup (event->json);
    }
    dlq_event_destroy (&event);
    return code;
}

/* target, rate and the selection (ids, or filters / all) of a request. */
static dlq_code_t
read_plan (dlq_replay_verbs_t *self, const dlq_json_value_t *root, dlq_replay_plan_t *plan, dlq_error_t *err)
{
    const dlq_json_value_t *target = dlq_json_get (root, "target");
    if (target && !is_word (target, "route") && !is_word (target, "endpoint"))
        return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, "target", "target must be \"route\" or \"endpoint\"");
    plan->to_endpoint = target && is_word (target, "endpoint");
    if (plan->to_endpoint && !self->config->replay.listen)
        return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, "target", "target \"endpoint\" needs replay.listen "
                              "in the gateway's config");
    dlq_code_t code = dlq_params_int (root, "rate", self->config->replay.rate, 1, 100000, &plan->rate, err);
    if (code != DLQ_OK)
        return code;
    const dlq_json_value_t *ids = dlq_json_get (root, "ids");
    bool all;
    code = dlq_params_bool (root, "all", &all, err);
    if (code != DLQ_OK)
        return code;
    if (ids) {
        for (const dlq_json_value_t *m = root->child; m; m = m->next)
            if (dlq_event_filter_is_member (m->key, m->key_len))
                return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, m->key, "ids and filters do not combine");
        if (!dlq_replay_plan_read_ids (ids, plan))
            return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, "ids", "ids must be an array of 1 to %d UUID strings",
                                  DLQ_REPLAY_IDS_MAX);
        const dlq_json_value_t *replacement = dlq_json_get (root, "replacement");
        if (replacement && all)
            return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, "replacement", "a replacement replays one event: "
                                  "give \"ids\": [its id], without all");
        return replacement ? read_replacement (self, replacement, plan, err) : DLQ_OK;
    }
    if (dlq_json_get (root, "replacement"))
        return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, "replacement", "a replacement replays one event: "
                              "give \"ids\": [its id]");
    code = dlq_event_filter_parse (root, &plan->filter, err);
    if (code == DLQ_OK && dlq_event_filter_is_empty (&plan->filter) && !all)
        return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, "all", "a replay needs filters, ids, or \"all\": true");
    return code;
}

/* How many of the plan's events exist (ids) or match (filters) now. */
static dlq_store_result_t
count_plan (dlq_replay_verbs_t *self, const dlq_replay_plan_t *plan, int64_t now, int64_t *count)
{
    if (!plan->by_ids)
        return dlq_primary_query_count (self->primary, &plan->filter, now, count);
    *count = 0;
    for (size_t i = 0; i < plan->id_count; i++) {
        dlq_sink_event_state_t state;
        dlq_store_result_t rc = dlq_primary_state (self->primary, plan->ids [i], now, &state);
        if (rc == DLQ_STORE_OK)
            (*count)++;
        else
        if (rc != DLQ_STORE_NOT_FOUND)
            return rc;
    }
    return DLQ_STORE_OK;
}

/* The first n events of the plan as a JSON array. */
static dlq_store_result_t
sample_plan (dlq_replay_verbs_t *self, const dlq_replay_plan_t *plan, size_t n, int64_t now, dlq_buf_t *out)
{
    if (!plan->by_ids) {
        dlq_buf_t next = DLQ_BUF_INIT;
        dlq_store_result_t rc = n ? dlq_primary_query_list (self->primary, &plan->filter, n, NULL, now, out, &next)
                                  : DLQ_STORE_OK;
        if (n == 0)
            dlq_buf_puts (out, "[]");
        dlq_buf_free (&next);
        return rc;
    }
    dlq_buf_putc (out, '[');
    size_t taken = 0;
    dlq_buf_t event = DLQ_BUF_INIT;
    for (size_t i = 0; i < plan->id_count && taken < n; i++) {
        dlq_store_result_t rc = dlq_primary_get (self->primary, plan->ids [i], now, &event);
        if (rc == DLQ_STORE_NOT_FOUND)
            continue;
        if (rc != DLQ_STORE_OK) {
            dlq_buf_free (&event);
            return rc;
        }
        dlq_buf_puts (out, taken++ ? "," : "");
        if (plan->replacement)          /* what would be sent: the corrected copy */
            dlq_buf_puts (out, plan->replacement);
        else
            dlq_buf_append (out, event.data, event.len);
    }
    dlq_buf_free (&event);
    dlq_buf_putc (out, ']');
    return DLQ_STORE_OK;
}

static dlq_code_t
dry_run (dlq_replay_verbs_t *self, const dlq_json_value_t *root, const dlq_replay_plan_t *plan, int64_t now,
         dlq_buf_t *out, dlq_error_t *err)
{
    int64_t sample = 0, count = 0;
    dlq_code_t code = dlq_params_int (root, "sample", SAMPLE_DEFAULT, 0, SAMPLE_MAX, &sample, err);
    if (code != DLQ_OK)
        return code;
    dlq_buf_t events = DLQ_BUF_INIT;
    dlq_store_result_t rc = count_plan (self, plan, now, &count);
    if (rc == DLQ_STORE_OK)
        rc = sample_plan (self, plan, (size_t) sample, now, &events);
    if (rc == DLQ_STORE_OK) {
        dlq_buf_printf (out, "{\"dryRun\":true,\"count\":%" PRId64 ",\"sample\":", count);
        dlq_buf_append (out, events.data, events.len);
        dlq_buf_putc (out, '}');
    }
    dlq_buf_free (&events);
    return rc == DLQ_STORE_OK ? DLQ_OK : unavailable ("read", dlq_primary_last_error (self->primary), err);
}

/* A job's selection is what matches when it starts: without a
 * createdBefore of its own, the filter ends just after the newest match
 * then (or now, whichever is later), so events stored later do not join
 * it and its pages stay where its saved cursor says. */
static dlq_store_result_t
cap_filter (dlq_replay_verbs_t *self, dlq_event_filter_t *filter, int64_t now)
{
    if (filter->has_created_before)
        return DLQ_STORE_OK;
    dlq_buf_t newest = DLQ_BUF_INIT, next = DLQ_BUF_INIT;
    dlq_store_result_t rc = dlq_primary_query_list (self->primary, filter, 1, NULL, now, &newest, &next);
    int64_t cap = now;
    dlq_json_doc_t *doc = NULL;
    if (rc == DLQ_STORE_OK && dlq_json_parse (newest.data, newest.len, &doc, NULL) == DLQ_JSON_OK) {
        const dlq_json_value_t *created = dlq_json_get (dlq_json_root (doc)->child, "createdAt");
        int64_t at = 0;
        if (created && created->type == DLQ_JSON_STRING && dlq_time_parse_iso (created->str, created->len, &at)
        &&  at > cap)
            cap = at;
    }
    dlq_json_doc_destroy (&doc);
    dlq_buf_free (&newest);
    dlq_buf_free (&next);
    filter->has_created_before = true;
    filter->created_before = cap + 1;
    return rc;
}

static dlq_code_t
create_job (dlq_replay_verbs_t *self, dlq_replay_plan_t *plan, int64_t now, dlq_buf_t *out, dlq_error_t *err)
{
    if (!plan->by_ids && cap_filter (self, &plan->filter, now) != DLQ_STORE_OK)
        return unavailable ("read", dlq_primary_last_error (self->primary), err);
    dlq_replay_job_t job = { .state = DLQ_JOB_RUNNING, .created_at = now, .updated_at = now };
    if (count_plan (self, plan, now, &job.total) != DLQ_STORE_OK)
        return unavailable ("read", dlq_primary_last_error (self->primary), err);
    dlq_uuid_v7 (now, job.id);
    dlq_buf_t request = DLQ_BUF_INIT;
    dlq_replay_plan_write (plan, &request);
    dlq_buf_putc (&request, '\0');
    job.request = request.data;
    dlq_store_result_t rc = jobs (self) ? dlq_job_store_create (self->jobs, &job) : DLQ_STORE_ERROR;
    if (rc == DLQ_STORE_OK) {
        dlq_replay_job_format (&job, out);
        dlq_log (DLQ_LOG_INFO, "replay %s: %" PRId64 " events, %s", job.id, job.total, request.data);
    }
    dlq_buf_free (&request);
    return rc == DLQ_STORE_OK ? DLQ_OK : unavailable ("written", jobs_error (self), err);
}

static dlq_code_t
do_replay (dlq_replay_verbs_t *self, const dlq_json_value_t *root, dlq_buf_t *out, dlq_error_t *err)
{
    static const char *const allowed [] = { "ids", "all", "target", "rate", "dryRun", "sample", "replacement", NULL };
    bool dry = false;
    dlq_code_t code = dlq_params_check (root, allowed, true, err);
    if (code == DLQ_OK)
        code = dlq_params_bool (root, "dryRun", &dry, err);
    if (code == DLQ_OK && !dry && dlq_json_get (root, "sample"))
        code = dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, "sample", "sample is for a dry run");
    if (code == DLQ_OK)
        code = need_workbench (self, err);
    dlq_replay_plan_t plan = { 0 };
    if (code == DLQ_OK)
        code = read_plan (self, root, &plan, err);
    int64_t now = dlq_time_now_ms ();
    if (code == DLQ_OK)
        code = dry ? dry_run (self, root, &plan, now, out, err) : create_job (self, &plan, now, out, err);
    dlq_replay_plan_free (&plan);
    return code;
}

/* ---- job controls --------------------------------------------------------------- */

static dlq_code_t
answer_job (dlq_replay_verbs_t *self, dlq_store_result_t rc, const dlq_replay_job_t *job, const char *id,
            const char *verb, dlq_buf_t *out, dlq_error_t *err)
{
    if (rc == DLQ_STORE_NOT_FOUND)
        return dlq_error_set (err, DLQ_ERR_NOT_FOUND, "job", "no replay job %s", id);
    if (rc == DLQ_STORE_CONFLICT)
        return dlq_error_set (err, DLQ_ERR_INVALID_STATE, "job", "job %s is %s: %s does not apply", id,
                              dlq_job_state_name (job->state), verb);
    if (rc != DLQ_STORE_OK)
        return unavailable ("read", jobs_error (self), err);
    dlq_replay_job_format (job, out);
    return DLQ_OK;
}

static dlq_code_t
list_jobs (dlq_replay_verbs_t *self, dlq_buf_t *out, dlq_error_t *err)
{
    dlq_replay_job_t *list = NULL;
    size_t count = 0;
    if (!jobs (self) || dlq_job_store_list (self->jobs, false, JOBS_LIST_MAX, &list, &count) != DLQ_STORE_OK)
        return unavailable ("read", jobs_error (self), err);
    dlq_buf_puts (out, "{\"jobs\":[");
    for (size_t i = 0; i < count; i++) {
        dlq_buf_puts (out, i ? "," : "");
        dlq_replay_job_format (&list [i], out);
        dlq_replay_job_clear (&list [i]);
    }
    free (list);
    dlq_buf_puts (out, "]}");
    return DLQ_OK;
}

/* A job whose state was just changed, once the replayer took the change
 * in (CONTROL_WAIT_MS at most): a paused or cancelled job sends nothing
 * more, and job is read again for its final counters. */
static dlq_store_result_t
job_taken_in (dlq_replay_verbs_t *self, const char *id, dlq_replay_job_t *job)
{
    if (!dlq_replay_control_wait (self->control, dlq_replay_control_request (self->control), CONTROL_WAIT_MS)) {
        dlq_log (DLQ_LOG_WARN, "replay %s: the replayer did not take its new state in within %d ms", id,
                 CONTROL_WAIT_MS);
        return DLQ_STORE_OK;
    }
    dlq_replay_job_t again = { .state = DLQ_JOB_RUNNING };
    dlq_store_result_t rc = dlq_job_store_get (self->jobs, id, &again);
    if (rc == DLQ_STORE_OK) {
        dlq_replay_job_clear (job);
        *job = again;
    }
    return rc;
}

static dlq_code_t
do_job (dlq_replay_verbs_t *self, dlq_verb_t verb, const dlq_json_value_t *root, dlq_buf_t *out, dlq_error_t *err)
{
    static const char *const allowed [] = { "job", NULL };
    dlq_code_t code = dlq_params_check (root, allowed, false, err);
    if (code != DLQ_OK)
        return code;
    if (verb == DLQ_VERB_REPLAY_STATUS && !(root && dlq_json_get (root, "job")))
        return list_jobs (self, out, err);
    char id [DLQ_UUID_LEN + 1];
    code = dlq_params_uuid (root, "job", id, err);
    if (code != DLQ_OK)
        return code;
    if (!jobs (self))
        return unavailable ("read", jobs_error (self), err);
    dlq_replay_job_t job = { .state = DLQ_JOB_RUNNING };
    dlq_store_result_t rc;
    const char *name = "REPLAY.STATUS";
    int64_t now = dlq_time_now_ms ();
    unsigned running = 1u << DLQ_JOB_RUNNING, paused = 1u << DLQ_JOB_PAUSED;
    if (verb == DLQ_VERB_REPLAY_PAUSE) {
        name = "PAUSE";
        rc = dlq_job_store_set_state (self->jobs, id, running | paused, DLQ_JOB_PAUSED, now, &job);
    }
    else
    if (verb == DLQ_VERB_REPLAY_RESUME) {
        name = "RESUME";
        rc = dlq_job_store_set_state (self->jobs, id, running | paused, DLQ_JOB_RUNNING, now, &job);
    }
    else
    if (verb == DLQ_VERB_REPLAY_CANCEL) {
        name = "CANCEL";
        rc = dlq_job_store_set_state (self->jobs, id, running | paused | (1u << DLQ_JOB_CANCELLED),
                                         DLQ_JOB_CANCELLED, now, &job);
    }
    else
        rc = dlq_job_store_get (self->jobs, id, &job);
    if (rc == DLQ_STORE_OK && verb != DLQ_VERB_REPLAY_STATUS)
        rc = job_taken_in (self, id, &job);
    code = answer_job (self, rc, &job, id, name, out, err);
    if (code == DLQ_OK && verb != DLQ_VERB_REPLAY_STATUS)
        dlq_log (DLQ_LOG_INFO, "replay %s: %s, now %s", id, name, dlq_job_state_name (job.state));
    dlq_replay_job_clear (&job);
    return code;
}

/* ---- RESOLVE and FAIL ------------------------------------------------------------- */

int64_t
dlq_replay_fail_delay (const dlqd_replay_config_t *replay, int32_t n)
{
    int64_t delay = replay->backoff_ms;
    for (int32_t i = 1; i < n && delay < replay->backoff_max_ms; i++)
        delay *= 2;
    return delay < replay->backoff_max_ms ? delay : replay->backoff_max_ms;
}

/* "retryCount":n,"replayCount":n[,"retryAfter":"ISO"] */
static void
state_members (const dlq_sink_event_state_t *state, dlq_buf_t *out)
{
    dlq_buf_printf (out, "\"retryCount\":%d,\"replayCount\":%d", (int) state->retry_count,
                    (int) state->replay_count);
    char iso [DLQ_TIME_ISO_LEN + 1];
    if (dlq_time_format_iso (state->retry_after, iso))
        dlq_buf_printf (out, ",\"retryAfter\":\"%s\"", iso);
}

void
dlq_replay_state_format (const dlq_sink_event_state_t *state, dlq_buf_t *out)
{
    dlq_buf_puts (out, ",\"replay\":{");
    state_members (state, out);
    dlq_buf_putc (out, '}');
}

static dlq_code_t
do_outcome (dlq_replay_verbs_t *self, dlq_verb_t verb, const dlq_json_value_t *root, dlq_buf_t *out,
            dlq_error_t *err)
{
    static const char *const allowed [] = { "id", NULL };
    char id [DLQ_UUID_LEN + 1];
    dlq_code_t code = dlq_params_check (root, allowed, false, err);
    if (code == DLQ_OK)
        code = dlq_params_uuid (root, "id", id, err);
    if (code == DLQ_OK)
        code = need_workbench (self, err);
    if (code != DLQ_OK)
        return code;
    int64_t now = dlq_time_now_ms ();
    dlq_sink_event_state_t state;
    dlq_store_result_t rc;
    if (verb == DLQ_VERB_RESOLVE)
        rc = dlq_primary_mark (self->primary, id, DLQ_SINK_MARK_RESOLVED, now, 0, &state);
    else {
        /* the delay grows with the FAILs so far: read them first */
        rc = dlq_primary_state (self->primary, id, now, &state);
        if (rc == DLQ_STORE_OK)
            rc = dlq_primary_mark (self->primary, id, DLQ_SINK_MARK_FAILED, now,
                                   now + dlq_replay_fail_delay (&self->config->replay, state.retry_count + 1), &state);
    }
    if (rc == DLQ_STORE_NOT_FOUND)
        return dlq_error_set (err, DLQ_ERR_NOT_FOUND, "id", "no event %s (never stored, or expired)", id);
    if (rc != DLQ_STORE_OK)
        return unavailable ("written", dlq_primary_last_error (self->primary), err);
    dlq_buf_printf (out, "{\"id\":\"%s\",\"status\":", id);
    dlq_json_write_string (out, state.status, strlen (state.status));
    dlq_buf_putc (out, ',');
    state_members (&state, out);
    dlq_buf_putc (out, '}');
    return DLQ_OK;
}

dlq_code_t
dlq_replay_verbs_answer (dlq_replay_verbs_t *self, dlq_verb_t verb, const dlq_json_value_t *root,
                         dlq_buf_t *out, dlq_error_t *err)
{
    if (verb == DLQ_VERB_REPLAY)
        return do_replay (self, root, out, err);
    if (verb == DLQ_VERB_RESOLVE || verb == DLQ_VERB_FAIL)
        return do_outcome (self, verb, root, out, err);
    return do_job (self, verb, root, out, err);
}
