/*  fuzz_params — the parameters of every verb's body that is not PUT
 *  (router/frontend/request_params) and the workbench's filters (core/event_filter)
 *  and a replay job's stored request (router/replay/replay_job).
 *
 *  Input: one byte choosing a verb of the table below, then its body. The
 *  body is read as that verb reads it (dlq_params_parse_body: one object,
 *  no name twice in any object of it), unknown members refused, then each
 *  parameter with its bounds, then the filters. Oracles: the body reader
 *  agrees with the JSON parser and dlq_json_find_duplicate; a refusal is
 *  INVALID_REQUEST naming a member; a filter that parses is written
 *  (dlq_event_filter_to_json) and read back to the same filter, which
 *  writes the same bytes and matches the same sample events; a body that
 *  reads as a stored replay request writes back to one that reads the same.
 */
#include "dlq_json.h"
#include "event_filter.h"
#include "failed_event.h"
#include "fuzz_support.h"
#include "replay_job.h"
#include "request_params.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *name;
    int64_t     def, min, max;
} int_param_t;

typedef struct {
    const char        *allowed [8];         /* NULL-ended */
    bool               filters;             /* the filter members too */
    bool               optional;            /* an empty body is {} */
    int_param_t        ints [2];
    const char        *bools [2];
    const char        *strings [2];
    const char        *uuids [2];
} verb_t;

#define LIMIT(def) { "limit", def, 1, 1000 }

/* What each verb's body may hold (docs/protocol.md, "Verbs"). */
static const verb_t verbs [] = {
    { .allowed = { "id" }, .uuids = { "id" } },                                  /* GET, RESOLVE, FAIL */
    { .allowed = { "streamName", "limit", "cursor" }, .ints = { LIMIT (100) },
      .strings = { "cursor", "streamName" } },                                   /* LIST of a stream */
    { .allowed = { "limit", "cursor" }, .filters = true, .ints = { LIMIT (100) },
      .strings = { "cursor" } },                                                 /* LIST, filtered */
    { .allowed = { NULL }, .filters = true, .optional = true },                  /* COUNT */
    { .allowed = { "limit" }, .filters = true, .optional = true, .ints = { LIMIT (20) } }, /* GROUPS */
    { .allowed = { "ids", "all", "target", "rate", "dryRun", "sample" }, .filters = true,
      .ints = { { "rate", 100, 1, 100000 }, { "sample", 10, 0, 100 } }, .bools = { "all", "dryRun" },
      .strings = { "target" } },                                                 /* REPLAY */
    { .allowed = { "job" }, .uuids = { "job" } },                                /* REPLAY.STATUS ... CANCEL */
    { .allowed = { "prefix", "limit", "cursor" }, .optional = true, .ints = { LIMIT (100) },
      .strings = { "prefix", "cursor" } },                                       /* CKPT.LIST */
    { .allowed = { "sink", "streamName", "id" }, .strings = { "sink", "streamName" },
      .uuids = { "id" } },                                                       /* REDELIVER */
    { .allowed = { NULL }, .optional = true },                                   /* STATS, PING */
};

#define VERB_COUNT (sizeof verbs / sizeof verbs [0])

/* Canonical events the filters are matched against, with fingerprints. */
static const char *const sample_bodies [] = {
    ("{\"id\":\"0190f1d2-6c4e-7a01-8b2c-3d4e5f607182\",\"streamName\":\"orders\",\"error\":{\"type\":\"T\","
    "\"message\":\"Read timed out after 3000 ms calling 10.0.0.1:8080\"},\"attempts\":3,\"status\":\"PENDING\","
    "\"createdAt\":\"2026-06-09T14:32:13.500Z\",\"metadata\":{\"tenantId\":\"acme\",\"n\":1.5,\"ok\":true}}"),
    ("{\"id\":\"0190f1d2-6c4e-7a01-8b2c-3d4e5f607183\",\"streamName\":\"payments\",\"error\":{\"type\":"
    "\"java.lang.IllegalStateException\",\"message\":\"BOOM\"},\"attempts\":0,\"status\":\"DLQ\","
    "\"createdAt\":\"2001-01-01T00:00:00.000Z\",\"metadata\":{\"n\":2,\"tenantId\":\"globex\"}}"),
    ("{\"id\":\"0190f1d2-6c4e-7a01-8b2c-3d4e5f607184\",\"streamName\":\"s\",\"error\":{\"type\":\"E\"},"
    "\"attempts\":2147483647,\"createdAt\":\"9999-12-31T23:59:59.999Z\"}"),
};

#define SAMPLE_COUNT (sizeof sample_bodies / sizeof sample_bodies [0])

static dlq_event_t *samples [SAMPLE_COUNT];

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
    for (size_t i = 0; i < SAMPLE_COUNT; i++) {
        dlq_error_t err;
        samples [i] = dlq_event_decode (sample_bodies [i], strlen (sample_bodies [i]), 0, &err);
        if (!samples [i])
            fuzz_fail ("sample %zu: %s", i, err.message);
        dlq_event_fingerprint (samples [i]);
        dlq_event_encode (samples [i]);
    }
    return 0;
}

static bool
same_text (const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp (a, b) == 0);
}

static void
check_same_filter (const dlq_event_filter_t *a, const dlq_event_filter_t *b)
{
    FUZZ_CHECK (same_text (a->stream, b->stream) && same_text (a->status, b->status));
    FUZZ_CHECK (same_text (a->error_type, b->error_type) && same_text (a->fingerprint, b->fingerprint));
    FUZZ_CHECK (same_text (a->message_contains, b->message_contains));
    FUZZ_CHECK (a->has_created_after == b->has_created_after && a->has_created_before == b->has_created_before);
    FUZZ_CHECK (!a->has_created_after || a->created_after == b->created_after);
    FUZZ_CHECK (!a->has_created_before || a->created_before == b->created_before);
    FUZZ_CHECK (a->has_attempts_min == b->has_attempts_min && a->has_attempts_max == b->has_attempts_max);
    FUZZ_CHECK (!a->has_attempts_min || a->attempts_min == b->attempts_min);
    FUZZ_CHECK (!a->has_attempts_max || a->attempts_max == b->attempts_max);
    FUZZ_CHECK (a->metadata_count == b->metadata_count && a->metadata_count <= DLQ_FILTER_METADATA_MAX);
    for (size_t i = 0; i < a->metadata_count; i++) {
        const dlq_filter_pair_t *x = &a->metadata [i], *y = &b->metadata [i];
        FUZZ_CHECK (same_text (x->key, y->key) && x->type == y->type && same_text (x->text, y->text));
        FUZZ_CHECK (x->type != DLQ_JSON_NUMBER || x->number == y->number || (x->number != x->number && y->number != y->number));
    }
}

/* Filter -> JSON -> filter: the same filter, the same bytes, the same matches. */
static void
round_trip_filter (const dlq_event_filter_t *filter)
{
    dlq_buf_t once = DLQ_BUF_INIT, twice = DLQ_BUF_INIT;
    dlq_event_filter_to_json (filter, &once);
    dlq_json_doc_t *doc = NULL;
    FUZZ_CHECK (dlq_json_parse (once.data, once.len, &doc, NULL) == DLQ_JSON_OK);
    dlq_event_filter_t again = DLQ_EVENT_FILTER_INIT;
    dlq_error_t err;
    if (dlq_event_filter_parse (dlq_json_root (doc), &again, &err) != DLQ_OK)
        fuzz_fail ("the filter's JSON is refused: %s: %s\n%s", err.field, err.message, once.data);
    check_same_filter (filter, &again);
    FUZZ_CHECK (dlq_event_filter_is_empty (filter) == dlq_event_filter_is_empty (&again));
    FUZZ_CHECK (dlq_event_filter_is_empty (filter) == (once.len == 2));
    dlq_event_filter_to_json (&again, &twice);
    FUZZ_CHECK (once.len == twice.len && memcmp (once.data, twice.data, once.len) == 0);
    for (size_t i = 0; i < SAMPLE_COUNT; i++)
        FUZZ_CHECK (dlq_event_filter_matches (filter, samples [i]->json, samples [i]->json_len, samples [i]->fingerprint)
                    == dlq_event_filter_matches (&again, samples [i]->json, samples [i]->json_len,
                                                 samples [i]->fingerprint));
    dlq_event_filter_free (&again);
    dlq_json_doc_destroy (&doc);
    dlq_buf_free (&once);
    dlq_buf_free (&twice);
}

/* The body as a replay job's stored request: read, write, read, write. */
static void
round_trip_plan (const uint8_t *data, size_t size)
{
    dlq_replay_plan_t plan, again;
    if (!dlq_replay_plan_read ((const char *) data, size, &plan))
        return;
    dlq_buf_t once = DLQ_BUF_INIT, twice = DLQ_BUF_INIT;
    dlq_replay_plan_write (&plan, &once);
    FUZZ_CHECK (dlq_replay_plan_read (once.data, once.len, &again));
    FUZZ_CHECK (again.to_endpoint == plan.to_endpoint && again.rate == plan.rate && again.by_ids == plan.by_ids);
    FUZZ_CHECK (again.id_count == plan.id_count);
    if (plan.by_ids)
        FUZZ_CHECK (memcmp (again.ids, plan.ids, plan.id_count * sizeof plan.ids [0]) == 0);
    else
        check_same_filter (&plan.filter, &again.filter);
    dlq_replay_plan_write (&again, &twice);
    FUZZ_CHECK (once.len == twice.len && memcmp (once.data, twice.data, once.len) == 0);
    dlq_replay_plan_free (&plan);
    dlq_replay_plan_free (&again);
    dlq_buf_free (&once);
    dlq_buf_free (&twice);
}

static void
check_refusal (const dlq_error_t *err, dlq_code_t code)
{
    FUZZ_CHECK (code == DLQ_ERR_INVALID_REQUEST && err->code == code);
    FUZZ_CHECK (memchr (err->message, '\0', sizeof err->message) && err->message [0]);
}

/* Read root as verb reads it; DLQ_OK when every parameter is acceptable. */
static dlq_code_t
read_params (const verb_t *verb, const dlq_json_value_t *root, dlq_error_t *err)
{
    dlq_code_t code = dlq_params_check (root, verb->allowed, verb->filters, err);
    for (size_t i = 0; code == DLQ_OK && i < 2 && verb->ints [i].name; i++) {
        int64_t v;
        code = dlq_params_int (root, verb->ints [i].name, verb->ints [i].def, verb->ints [i].min,
                               verb->ints [i].max, &v, err);
        FUZZ_CHECK (code != DLQ_OK || (v >= verb->ints [i].min && v <= verb->ints [i].max));
    }
    for (size_t i = 0; code == DLQ_OK && i < 2 && verb->bools [i]; i++) {
        bool b;
        code = dlq_params_bool (root, verb->bools [i], &b, err);
    }
    for (size_t i = 0; code == DLQ_OK && i < 2 && verb->strings [i]; i++) {
        char *s = NULL;
        code = dlq_params_string (root, verb->strings [i], 1024, &s, err);
        FUZZ_CHECK (code == DLQ_OK || s == NULL);
        FUZZ_CHECK (!s || strlen (s) <= 1024);
        free (s);
    }
    for (size_t i = 0; code == DLQ_OK && i < 2 && verb->uuids [i]; i++) {
        char uuid [DLQ_UUID_LEN + 1];
        if (dlq_json_get (root, verb->uuids [i]))
            code = dlq_params_uuid (root, verb->uuids [i], uuid, err);
        FUZZ_CHECK (code != DLQ_OK || !dlq_json_get (root, verb->uuids [i]) || strlen (uuid) == DLQ_UUID_LEN);
    }
    return code;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const verb_t *verb = &verbs [data [0] % VERB_COUNT];
    round_trip_plan (data + 1, size - 1);
    dlq_json_doc_t *doc = NULL, *plain = NULL;
    dlq_error_t err = { DLQ_OK, "", "" };
    dlq_code_t code = dlq_params_parse_body (data + 1, size - 1, verb->optional, &doc, &err);
    dlq_json_result_t rc = dlq_json_parse ((const char *) data + 1, size - 1, &plain, NULL);
    const dlq_json_value_t *dup = plain ? dlq_json_find_duplicate (dlq_json_root (plain), NULL, 0) : NULL;
    FUZZ_CHECK ((code == DLQ_OK) == ((rc == DLQ_JSON_OK && dlq_json_root (plain)->type == DLQ_JSON_OBJECT && !dup)
                                    || (rc == DLQ_JSON_ERR_EMPTY && verb->optional)));
    FUZZ_CHECK (code == DLQ_OK || (!doc && (code == DLQ_ERR_EMPTY_BODY || code == DLQ_ERR_INVALID_UTF8
                                            || code == DLQ_ERR_INVALID_JSON || code == DLQ_ERR_INVALID_REQUEST)));
    FUZZ_CHECK (!dup || code == DLQ_ERR_INVALID_REQUEST);
    dlq_json_doc_destroy (&plain);
    if (!doc)
        return 0;
    const dlq_json_value_t *root = dlq_json_root (doc);
    code = read_params (verb, root, &err);
    if (code != DLQ_OK)
        check_refusal (&err, code);
    dlq_event_filter_t filter = DLQ_EVENT_FILTER_INIT;     /* of any object: the filter reader skips the rest */
    code = dlq_event_filter_parse (root, &filter, &err);
    if (code == DLQ_OK)
        round_trip_filter (&filter);
    else {
        check_refusal (&err, code);
        FUZZ_CHECK (dlq_event_filter_is_empty (&filter));
    }
    dlq_event_filter_free (&filter);
    dlq_json_doc_destroy (&doc);
    return 0;
}
