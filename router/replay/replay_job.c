/*  replay_job — a job's stored request and its JSON form (see the header). */
#include "replay_job.h"

#include "dlq_alloc.h"
#include "dlq_json.h"
#include "dlq_strmap.h"
#include "dlq_time.h"
#include "dlq_uuid.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void
dlq_replay_plan_write (const dlq_replay_plan_t *plan, dlq_buf_t *out)
{
    dlq_buf_printf (out, "{\"target\":\"%s\",\"rate\":%" PRId64 ",", plan->to_endpoint ? "endpoint" : "route",
                    plan->rate);
    if (!plan->by_ids) {
        dlq_buf_puts (out, "\"filter\":");
        dlq_event_filter_to_json (&plan->filter, out);
    }
    else {
        dlq_buf_puts (out, "\"ids\":[");
        for (size_t i = 0; i < plan->id_count; i++)
            dlq_buf_printf (out, "%s\"%s\"", i ? "," : "", plan->ids [i]);
        dlq_buf_putc (out, ']');
        if (plan->replacement) {
            dlq_buf_puts (out, ",\"replacement\":");
            dlq_buf_puts (out, plan->replacement);
        }
    }
    dlq_buf_putc (out, '}');
}

bool
dlq_replay_plan_read_ids (const dlq_json_value_t *ids, dlq_replay_plan_t *plan)
{
    if (ids->type != DLQ_JSON_ARRAY || ids->count == 0 || ids->count > DLQ_REPLAY_IDS_MAX)
        return false;
    plan->by_ids = true;
    plan->ids = dlq_calloc (ids->count ? ids->count : 1, sizeof *plan->ids);
    dlq_strmap_t *seen = dlq_strmap_new (NULL);       /* an id given twice is replayed once */
    bool ok = true;
    for (const dlq_json_value_t *v = ids->child; v && ok; v = v->next) {
        char *id = plan->ids [plan->id_count];
        ok = v->type == DLQ_JSON_STRING && dlq_uuid_parse (v->str, v->len, id);
        if (ok && !dlq_strmap_get (seen, id)) {
            dlq_strmap_put (seen, id, id);
            plan->id_count++;
        }
    }
    dlq_strmap_destroy (&seen);
    return ok;
}

bool
dlq_replay_plan_read (const char *json, size_t len, dlq_replay_plan_t *plan)
{
    memset (plan, 0, sizeof *plan);
    dlq_json_doc_t *doc = NULL;
    if (dlq_json_parse (json, len, &doc, NULL) != DLQ_JSON_OK)
        return false;
    const dlq_json_value_t *root = dlq_json_root (doc);
    const dlq_json_value_t *target = dlq_json_get (root, "target");
    const dlq_json_value_t *rate = dlq_json_get (root, "rate");
    const dlq_json_value_t *filter = dlq_json_get (root, "filter");
    const dlq_json_value_t *ids = dlq_json_get (root, "ids");
    bool endpoint = target && target->type == DLQ_JSON_STRING && target->len == 8
                 && memcmp (target->str, "endpoint", 8) == 0;
    bool route = target && target->type == DLQ_JSON_STRING && target->len == 5 && memcmp (target->str, "route", 5) == 0;
    bool ok = (endpoint || route) && rate && dlq_json_as_int64 (rate, &plan->rate) && plan->rate > 0
           && (filter || ids);
    if (ok) {
        plan->to_endpoint = endpoint;
        ok = ids ? dlq_replay_plan_read_ids (ids, plan)
                 : filter->type == DLQ_JSON_OBJECT && dlq_event_filter_parse (filter, &plan->filter, NULL) == DLQ_OK;
    }
    const dlq_json_value_t *replacement = dlq_json_get (root, "replacement");
    if (ok && replacement) {
        ok = ids && plan->id_count == 1 && replacement->type == DLQ_JSON_OBJECT;
        dlq_buf_t text = DLQ_BUF_INIT;
        dlq_json_write (&text, replacement);
        plan->replacement = dlq_buf_steal (&text, NULL);
    }
    dlq_json_doc_destroy (&doc);
    if (!ok)
        dlq_replay_plan_free (plan);
    return ok;
}

void
dlq_replay_plan_free (dlq_replay_plan_t *plan)
{
    dlq_event_filter_free (&plan->filter);
    free (plan->ids);
    free (plan->replacement);
    memset (plan, 0, sizeof *plan);
}

static void
put_time (dlq_buf_t *out, const char *name, int64_t ms)
{
    char iso [DLQ_TIME_ISO_LEN + 1];
    if (dlq_time_format_iso (ms, iso))
        dlq_buf_printf (out, ",\"%s\":\"%s\"", name, iso);
}

void
dlq_replay_job_format (const dlq_replay_job_t *job, dlq_buf_t *out)
{
    dlq_replay_plan_t plan;
    bool known = job->request && dlq_replay_plan_read (job->request, strlen (job->request), &plan);
    dlq_buf_printf (out, "{\"job\":\"%s\",\"state\":\"%s\",\"target\":\"%s\",\"rate\":%" PRId64 ","
                    "\"total\":%" PRId64 ",\"done\":%" PRId64 ",\"replayed\":%" PRId64 ",\"skipped\":%" PRId64 ","
                    "\"quarantined\":%" PRId64 ",\"failed\":%" PRId64,
                    job->id, dlq_job_state_name (job->state),
                    known && plan.to_endpoint ? "endpoint" : "route", known ? plan.rate : 0,
                    job->total, job->done, job->replayed, job->skipped, job->quarantined, job->failed);
    put_time (out, "createdAt", job->created_at);
    put_time (out, "updatedAt", job->updated_at);
    if (job->last_error) {
        dlq_buf_puts (out, ",\"lastError\":");
        dlq_json_write_string (out, job->last_error, strlen (job->last_error));
    }
    dlq_buf_putc (out, '}');
    if (known)
        dlq_replay_plan_free (&plan);
}
