/*  test_embedded_workbench — the replay state of events, the scheduled
 *  replay's claim on the embedded store (schema version 5), and the
 *  updater connection they are written through.
 *
 *  Every test works in its own mkdtemp directory, removed afterwards. The
 *  writer creates the store and appends; the workbench calls go through an
 *  updater open beside it, as in the gateway. Events are real ones
 *  (decoded, then encoded canonically), event n having id
 *  0190a1b2-0000-7000-8000-<n>, and bodies full of what a re-serialisation
 *  could change (escapes, number spellings, nested "status" members), so
 *  that the body check of a status change means something. Raw SQLite
 *  connections only look behind the API.
 */
#include "embedded_store.h"
#include "embedded_workbench.h"
#include "dlq_alloc.h"
#include "dlq_buf.h"
#include "dlq_time.h"
#include "failed_event.h"

#include "store_support.h"
#include "test_support.h"

#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmp_dir [256];

static void make_dir (void) { test_tmpdir (tmp_dir); }
static void remove_dir (void) { test_rmtree (tmp_dir); }

TestSuite (embedded_workbench, .init = make_dir, .fini = remove_dir);


/* ------------------------------------------------------------------------ */
/* Helpers */

#define NOW       1781015533500LL       /* 2026-06-09T14:32:13.500Z */
#define MINUTE_MS 60000LL
#define HOUR_MS   3600000LL
#define NO_EXPIRY DLQ_TIME_NONE
#define MAX_EVENTS 64

/* A fullDocument whose text a careless rewrite would change: escapes, a
 * raw U+2028, number spellings, an empty array and object, and a "status"
 * member of its own. */
#define TRICKY_DOCUMENT \
    "{\"status\":\"PAID\",\"total\":1.50,\"exp\":1E+5,\"neg\":-0," \
    "\"big\":123456789012345678901234567890,\"s\":\"q\\\"b\\\\s/ caf\u00e9 \\u2028 \\t\\u0001\"," \
    "\"arr\":[1,[],{}],\"nul\":null,\"t\":true}"

static void
event_id (int n, char *out, size_t len)
{
    snprintf (out, len, "0190a1b2-0000-7000-8000-%012d", n);
}

/* Event n of stream, created at created_at with status, expiring at
 * expires_at (or never), canonical. */
static dlq_event_t *
make_event (int n, const char *stream, int64_t created_at, int64_t expires_at, const char *status)
{
    char id [40], created [DLQ_TIME_ISO_LEN + 1], body [1024];
    event_id (n, id, sizeof id);
    cr_assert_eq (dlq_time_format_iso (created_at, created), DLQ_TIME_ISO_LEN);
    snprintf (body, sizeof body,
              "{\"id\":\"%s\",\"streamName\":\"%s\",\"fullDocument\":" TRICKY_DOCUMENT ","
              "\"error\":{\"type\":\"java.lang.IllegalStateException\",\"message\":\"event %d \\\"x\\\"\"},"
              "\"attempts\":%d,\"status\":\"%s\",\"createdAt\":\"%s\","
              "\"metadata\":{\"tenantId\":\"acme\",\"rate\":2.50,\"status\":{\"a\":[]}}}",
              id, stream, n, n % 5, status, created);
    dlq_error_t err = { 0 };
    dlq_event_t *event = dlq_event_decode (body, strlen (body), created_at, &err);
    cr_assert_not_null (event, "test event does not decode: %s at %s", err.message, err.field);
    event->expires_at = expires_at;
    dlq_event_encode (event);
    return event;
}

/* Append events (then free them) through the writer. */
static void
append_events (dlq_embedded_t *writer, dlq_event_t **events, size_t count)
{
    bool duplicate [MAX_EVENTS];
    char err [512] = "";
    cr_assert_leq (count, MAX_EVENTS);
    cr_assert_eq (dlq_embedded_append (writer, events, count, duplicate, err, sizeof err),
                  DLQ_STORE_OK, "append: %s", err);
    for (size_t i = 0; i < count; i++)
        dlq_event_destroy (&events [i]);
}

/* Append one event of stream "s" and return its canonical body (caller
 * frees). */
static char *
append_one (dlq_embedded_t *writer, int n, int64_t created_at, int64_t expires_at, const char *status)
{
    dlq_event_t *event = make_event (n, "s", created_at, expires_at, status);
    char *body = dlq_strdup (event->json);
    append_events (writer, &event, 1);
    return body;
}

static dlq_embedded_t *open_store (dlq_embedded_mode_t mode) { return test_store_embedded (tmp_dir, mode); }

/* GET of event n at NOW into a string (caller frees); NULL when not found. */
static char *
get_body (dlq_embedded_t *store, int n)
{
    char id [40];
    event_id (n, id, sizeof id);
    dlq_buf_t json = DLQ_BUF_INIT;
    dlq_store_result_t r = dlq_embedded_get (store, id, NOW, &json);
    cr_assert (r == DLQ_STORE_OK || r == DLQ_STORE_NOT_FOUND, "get: %s", dlq_embedded_last_error (store));
    if (r == DLQ_STORE_NOT_FOUND) {
        dlq_buf_free (&json);
        return NULL;
    }
    return dlq_buf_steal (&json, NULL);
}

/* body with its one top-level "status":"<from>" made "status":"<to>"
 * (caller frees); the test bodies hold no other member with that text. */
static char *
with_status (const char *body, const char *from, const char *to)
{
    char old_member [64], new_member [64];
    snprintf (old_member, sizeof old_member, "\"status\":\"%s\"", from);
    snprintf (new_member, sizeof new_member, "\"status\":\"%s\"", to);
    const char *at = strstr (body, old_member);
    cr_assert_not_null (at, "no %s in %s", old_member, body);
    cr_assert_null (strstr (at + 1, old_member), "%s twice in %s", old_member, body);
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_buf_append (&out, body, (size_t) (at - body));
    dlq_buf_puts (&out, new_member);
    dlq_buf_puts (&out, at + strlen (old_member));
    return dlq_buf_steal (&out, NULL);
}

static dlq_sink_event_state_t
state_of (dlq_embedded_t *store, int n, int64_t now_ms)
{
    char id [40];
    event_id (n, id, sizeof id);
    dlq_sink_event_state_t state;
    memset (&state, 0xee, sizeof state);
    cr_assert_eq (dlq_embedded_state (store, id, now_ms, &state), DLQ_STORE_OK, "state of %d: %s", n,
                  dlq_embedded_last_error (store));
    return state;
}

static void
expect_state (dlq_sink_event_state_t got, const char *status, int32_t retry_count, int32_t replay_count,
              int64_t retry_after, const char *what)
{
    cr_assert_str_eq (got.status, status, "%s: status", what);
    cr_assert_eq (got.retry_count, retry_count, "%s: retry_count %d", what, got.retry_count);
    cr_assert_eq (got.replay_count, replay_count, "%s: replay_count %d", what, got.replay_count);
    cr_assert_eq (got.retry_after, retry_after, "%s: retry_after %lld, want %lld", what,
                  (long long) got.retry_after, (long long) retry_after);
}

static dlq_store_result_t
mark (dlq_embedded_t *store, int n, dlq_sink_mark_t how, int64_t now_ms, int64_t retry_after_ms,
      dlq_sink_event_state_t *state_out)
{
    char id [40];
    event_id (n, id, sizeof id);
    return dlq_embedded_mark (store, id, how, now_ms, retry_after_ms, state_out);
}

/* The counts a status change must not disturb, as one string. */
static char *
counts_text (void)
{
    return test_store_text (tmp_dir, "SELECT (SELECT group_concat (stream_name || '=' || events)"
                            " FROM stream_counts) || ' / ' || (SELECT group_concat (fingerprint"
                            " || ':' || stream_name || '=' || events || ',' || sample_seq)"
                            " FROM fingerprint_counts)");
}

/* A claim expected to succeed; its events as the seqs' event numbers,
 * e.g. "3,1", checked against the bodies stored and the replay counts. */
static const char *
claim (dlq_embedded_t *store, const char *stream, const char *owner, int64_t pass_ms, int32_t max_retries,
       size_t batch_size, int64_t now_ms, int64_t lease_until_ms)
{
    static char numbers [512];
    dlq_buf_t out = DLQ_BUF_INIT;
    cr_assert_eq (dlq_embedded_claim (store, stream, owner, pass_ms, max_retries, batch_size, now_ms,
                                      lease_until_ms, &out),
                  DLQ_STORE_OK, "claim: %s", dlq_embedded_last_error (store));
    numbers [0] = '\0';
    cr_assert_eq (out.data [0], '[');
    const char *p = out.data + 1;
    while (*p == '{') {
        int replay_count = -1, n = -1, used = 0;
        cr_assert_eq (sscanf (p, "{\"replayCount\":%d,\"event\":%n", &replay_count, &used), 1, "%s", p);
        p += used;
        cr_assert_eq (sscanf (p, "{\"id\":\"0190a1b2-0000-7000-8000-%d\"", &n), 1, "%s", p);
        char *body = get_body (store, n);
        cr_assert_not_null (body);
        cr_assert_eq (strncmp (p, body, strlen (body)), 0, "event %d as stored", n);
        p += strlen (body);
        free (body);
        cr_assert_eq (*p++, '}');
        cr_assert_eq (replay_count, state_of (store, n, now_ms).replay_count);
        snprintf (numbers + strlen (numbers), sizeof numbers - strlen (numbers), "%s%d",
                  numbers [0] ? "," : "", n);
        if (*p == ',')
            p++;
    }
    cr_assert_str_eq (p, "]", "claim output ends: %s", p);
    dlq_buf_free (&out);
    return numbers;
}


/* ------------------------------------------------------------------------ */
/* State and marks */

Test (embedded_workbench, each_mark_changes_the_state_and_the_body_status)
{
    static const struct {
        dlq_sink_mark_t mark;
        const char     *before, *after;
        int32_t         retry_count, replay_count;
        bool            sets_retry_after;
    } cases [] = {
        { DLQ_SINK_MARK_RESOLVED,    "PENDING",   "SUCCEEDED",   0, 0, false },
        { DLQ_SINK_MARK_FAILED,      "PENDING",   "PENDING",     1, 0, true  },
        { DLQ_SINK_MARK_REPLAYED,    "PENDING",   "PENDING",     0, 1, true  },
        { DLQ_SINK_MARK_QUARANTINED, "PENDING",   "QUARANTINED", 0, 0, false },
        { DLQ_SINK_MARK_RESOLVED,    "DLQ",       "SUCCEEDED",   0, 0, false },
        { DLQ_SINK_MARK_FAILED,      "SUCCEEDED", "PENDING",     1, 0, true  },
        { DLQ_SINK_MARK_REPLAYED,    "DLQ",       "DLQ",         0, 1, true  },
        { DLQ_SINK_MARK_QUARANTINED, "DLQ",       "QUARANTINED", 0, 0, false },
        { DLQ_SINK_MARK_RELEASED,    "PENDING",   "PENDING",     0, 0, true  },
        { DLQ_SINK_MARK_RELEASED,    "DLQ",       "DLQ",         0, 0, true  },
    };
    enum { CASES = sizeof cases / sizeof cases [0] };
    const int64_t retry_at = NOW + 5 * MINUTE_MS;
    dlq_embedded_t *writer = open_store (DLQ_EMBEDDED_WRITER);
    char *bodies [CASES];
    for (int i = 0; i < CASES; i++)
        bodies [i] = append_one (writer, i + 1, NOW - (i + 1) * MINUTE_MS, NOW + HOUR_MS, cases [i].before);
    char *counts = counts_text ();
    dlq_embedded_t *updater = open_store (DLQ_EMBEDDED_UPDATER);
    dlq_embedded_t *reader = open_store (DLQ_EMBEDDED_READER);

    for (int i = 0; i < CASES; i++) {
        int n = i + 1;
        int64_t created = NOW - n * MINUTE_MS;
        char what [64];
        snprintf (what, sizeof what, "case %d (mark %d on %s)", i, cases [i].mark, cases [i].before);
        expect_state (state_of (reader, n, NOW), cases [i].before, 0, 0, created, what);

        dlq_sink_event_state_t state;
        cr_assert_eq (mark (updater, n, cases [i].mark, NOW, retry_at, &state), DLQ_STORE_OK, "%s: %s", what,
                      dlq_embedded_last_error (updater));
        int64_t after = cases [i].sets_retry_after ? retry_at : created;
        expect_state (state, cases [i].after, cases [i].retry_count, cases [i].replay_count, after, what);
        expect_state (state_of (reader, n, NOW), cases [i].after, cases [i].retry_count,
                      cases [i].replay_count, after, what);

        /* the body: its status member follows, every other byte as it was */
        char *want = strcmp (cases [i].before, cases [i].after) == 0
                   ? dlq_strdup (bodies [i]) : with_status (bodies [i], cases [i].before, cases [i].after);
        char *got = get_body (reader, n);
        cr_assert_str_eq (got, want, "%s: body", what);
        free (got);
        free (want);
        cr_assert_eq (test_store_count (tmp_dir, "SELECT count(*) FROM events WHERE status <> body ->> '$.status'"), 0,
                      "%s: the column and the body agree", what);
    }
    char *counts_after = counts_text ();
    cr_assert_str_eq (counts_after, counts, "stream_counts and fingerprint_counts are untouched");
    free (counts_after);
    free (counts);
    for (int i = 0; i < CASES; i++)
        free (bodies [i]);
    dlq_embedded_destroy (&reader);
    dlq_embedded_destroy (&updater);
    dlq_embedded_destroy (&writer);
}

Test (embedded_workbench, marks_accumulate)
{
    dlq_embedded_t *writer = open_store (DLQ_EMBEDDED_WRITER);
    char *body = append_one (writer, 1, NOW - HOUR_MS, NO_EXPIRY, "PENDING");
    dlq_sink_event_state_t state;
    cr_assert_eq (mark (writer, 1, DLQ_SINK_MARK_FAILED, NOW, NOW + 1000, &state), DLQ_STORE_OK);
    cr_assert_eq (mark (writer, 1, DLQ_SINK_MARK_FAILED, NOW + 1, NOW + 2000, &state), DLQ_STORE_OK);
    expect_state (state, "PENDING", 2, 0, NOW + 2000, "failed twice");
    cr_assert_eq (mark (writer, 1, DLQ_SINK_MARK_REPLAYED, NOW + 2, NOW + 3000, &state), DLQ_STORE_OK);
    cr_assert_eq (mark (writer, 1, DLQ_SINK_MARK_REPLAYED, NOW + 3, NOW + 4000, &state), DLQ_STORE_OK);
    expect_state (state, "PENDING", 2, 2, NOW + 4000, "and replayed twice");
    cr_assert_eq (mark (writer, 1, DLQ_SINK_MARK_QUARANTINED, NOW + 4, 0, &state), DLQ_STORE_OK);
    expect_state (state, "QUARANTINED", 2, 2, NOW + 4000, "quarantined keeps the counters");
    cr_assert_eq (mark (writer, 1, DLQ_SINK_MARK_RESOLVED, NOW + 5, 0, NULL), DLQ_STORE_OK, "state_out may be NULL");
    expect_state (state_of (writer, 1, NOW), "SUCCEEDED", 2, 2, NOW + 4000, "resolved");
    char *want = with_status (body, "PENDING", "SUCCEEDED");
    char *got = get_body (writer, 1);
    cr_assert_str_eq (got, want);
    free (got);
    free (want);
    free (body);
    dlq_embedded_destroy (&writer);
}

/* mark_all: every id marked in one call; an id not stored (or expired) is
 * passed by, the others marked all the same. */
Test (embedded_workbench, mark_all_marks_each_id_and_passes_by_the_missing)
{
    dlq_embedded_t *writer = open_store (DLQ_EMBEDDED_WRITER);
    for (int n = 1; n <= 3; n++)
        free (append_one (writer, n, NOW - HOUR_MS, n == 3 ? NOW - 1 : NO_EXPIRY, "PENDING"));
    char ids [4][40];
    const char *ptrs [4];
    for (int n = 1; n <= 4; n++) {
        event_id (n, ids [n - 1], sizeof ids [0]);       /* 3 expired, 4 never stored */
        ptrs [n - 1] = ids [n - 1];
    }
    cr_assert_eq (dlq_embedded_mark_all (writer, ptrs, 4, DLQ_SINK_MARK_REPLAYED, NOW, NOW + 5000), DLQ_STORE_OK);
    cr_assert_eq (dlq_embedded_mark_all (writer, ptrs, 2, DLQ_SINK_MARK_REPLAYED, NOW, NOW + 6000), DLQ_STORE_OK);
    expect_state (state_of (writer, 1, NOW), "PENDING", 0, 2, NOW + 6000, "event 1, replayed twice");
    expect_state (state_of (writer, 2, NOW), "PENDING", 0, 2, NOW + 6000, "event 2, replayed twice");
    dlq_sink_event_state_t state;
    cr_expect_eq (dlq_embedded_state (writer, ids [2], NOW - 2, &state), DLQ_STORE_OK);
    cr_expect_eq (state.replay_count, 0, "an expired event is not marked");
    cr_expect_eq (dlq_embedded_mark_all (writer, ptrs, 0, DLQ_SINK_MARK_RESOLVED, NOW, 0), DLQ_STORE_OK,
                  "nothing to mark");
    dlq_embedded_destroy (&writer);
}

/* json_set on every shape of body the gateway stores: the flowwarden-amqp
 * example (whose fullDocument has a "status" of its own) and the spool
 * suite's variants. */
Test (embedded_workbench, json_set_keeps_a_canonical_body_byte_for_byte)
{
    dlq_embedded_t *writer = open_store (DLQ_EMBEDDED_WRITER);
    static const char *const bodies [] = {
        "{\"id\":\"0190a1b2-0000-7000-8000-000000000001\",\"streamName\":\"orders\",\"operationType\":\"INSERT\","
        "\"documentKey\":{\"_id\":{\"$oid\":\"65f0a1b2c3d4e5f601234567\"}},"
        "\"fullDocument\":{\"_id\":{\"$oid\":\"65f0a1b2c3d4e5f601234567\"},\"status\":\"PAID\","
        "\"total\":{\"$numberDecimal\":\"129.90\"},\"items\":3},"
        "\"resumeToken\":{\"_data\":\"8265F0A1B2000000012B022C0100296E5A1004\"},"
        "\"error\":{\"type\":\"java.lang.IllegalStateException\",\"message\":\"downstream call failed\","
        "\"stackTrace\":\"java.lang.IllegalStateException: downstream call failed\\n\\tat com.acme.Orders.handle(Orders.java:42)\"},"
        "\"attempts\":3,\"status\":\"DLQ\",\"firstAttemptAt\":\"2026-06-09T14:32:11.123Z\","
        "\"lastAttemptAt\":\"2026-06-09T14:32:13.456Z\",\"createdAt\":\"2026-06-09T14:32:13.500Z\","
        "\"expiresAt\":\"2026-07-09T14:32:13.500Z\",\"metadata\":{\"tenantId\":\"acme\"}}",
        "{\"id\":\"0190a1b2-0000-7000-8000-000000000002\",\"streamName\":\"s\","
        "\"documentKey\":\"k-\\\"q\\\" \\\\ caf\u00e9 \\u2028\",\"error\":{\"type\":\"E\"},\"status\":\"DLQ\"}",
        "{\"id\":\"0190a1b2-0000-7000-8000-000000000003\",\"streamName\":\"s\",\"documentKey\":1.50,"
        "\"fullDocument\":{\"a\":[0.1e-7,-1.0E+300,{},[[]]],\"\\ud83d\\ude00\":\"\\ud83d\\ude00 \\/ \\b\\f\\r\"},"
        "\"error\":{\"type\":\"E\",\"message\":\"\"},\"status\":\"DLQ\",\"metadata\":{}}",
    };
    enum { COUNT = sizeof bodies / sizeof bodies [0] };
    char *canonical [COUNT];
    for (int i = 0; i < COUNT; i++) {
        dlq_error_t err = { 0 };
        dlq_event_t *event = dlq_event_decode (bodies [i], strlen (bodies [i]), NOW, &err);
        cr_assert_not_null (event, "body %d: %s at %s", i, err.message, err.field);
        event->expires_at = NO_EXPIRY;
        dlq_event_encode (event);
        canonical [i] = dlq_strdup (event->json);
        append_events (writer, &event, 1);
    }
    static const dlq_sink_mark_t marks [] = {
        DLQ_SINK_MARK_RESOLVED, DLQ_SINK_MARK_FAILED, DLQ_SINK_MARK_QUARANTINED,
    };
    static const char *const statuses [] = { "DLQ", "SUCCEEDED", "PENDING", "QUARANTINED" };
    for (int i = 0; i < COUNT; i++) {
        for (int m = 0; m < 3; m++) {
            cr_assert_eq (mark (writer, i + 1, marks [m], NOW, NOW, NULL), DLQ_STORE_OK);
            char *want = with_status (canonical [i], statuses [0], statuses [m + 1]);
            char *got = get_body (writer, i + 1);
            cr_assert_str_eq (got, want, "body %d after mark %d", i, marks [m]);
            free (got);
            free (want);
        }
        free (canonical [i]);
    }
    dlq_embedded_destroy (&writer);
}

Test (embedded_workbench, a_missing_or_expired_event_is_not_found)
{
    dlq_embedded_t *writer = open_store (DLQ_EMBEDDED_WRITER);
    char *body = append_one (writer, 1, NOW - HOUR_MS, NOW, "PENDING");       /* expires at NOW */
    free (append_one (writer, 2, NOW - HOUR_MS, NOW + 1, "PENDING"));
    dlq_embedded_t *updater = open_store (DLQ_EMBEDDED_UPDATER);
    char missing [40];
    event_id (99, missing, sizeof missing);
    dlq_sink_event_state_t state;
    cr_assert_eq (dlq_embedded_state (updater, missing, NOW, &state), DLQ_STORE_NOT_FOUND);
    for (int m = DLQ_SINK_MARK_RESOLVED; m <= DLQ_SINK_MARK_QUARANTINED; m++) {
        cr_assert_eq (dlq_embedded_mark (updater, missing, (dlq_sink_mark_t) m, NOW, NOW, &state),
                      DLQ_STORE_NOT_FOUND);
        cr_assert_eq (mark (updater, 1, (dlq_sink_mark_t) m, NOW, NOW + 1, &state), DLQ_STORE_NOT_FOUND,
                      "expires_at <= now is expired");
    }
    char id [40];
    event_id (1, id, sizeof id);
    cr_assert_eq (dlq_embedded_state (updater, id, NOW, &state), DLQ_STORE_NOT_FOUND);
    expect_state (state_of (updater, 1, NOW - 1), "PENDING", 0, 0, NOW - HOUR_MS, "untouched before expiry");
    cr_assert_eq (test_store_count (tmp_dir, "SELECT count(*) FROM events WHERE seq = 1 AND status = 'PENDING'"
                                    " AND retry_count = 0 AND replay_count = 0 AND retry_after IS NULL"), 1);
    cr_assert_eq (mark (updater, 2, DLQ_SINK_MARK_RESOLVED, NOW, 0, &state), DLQ_STORE_OK, "not yet expired");
    cr_assert_eq (mark (updater, 2, (dlq_sink_mark_t) 9, NOW, 0, &state), DLQ_STORE_ERROR, "unknown mark");
    free (body);
    dlq_embedded_destroy (&updater);
    dlq_embedded_destroy (&writer);
}


/* ------------------------------------------------------------------------ */
/* Claim */

Test (embedded_workbench, claim_takes_the_due_pending_events_oldest_first)
{
    enum { MAX_RETRIES = 3 };
    dlq_embedded_t *writer = open_store (DLQ_EMBEDDED_WRITER);
    /* event n created n minutes ago unless said: */
    dlq_event_t *events [] = {
        make_event (1, "s", NOW - 10 * MINUTE_MS, NO_EXPIRY, "PENDING"),       /* due */
        make_event (2, "s", NOW - 20 * MINUTE_MS, NO_EXPIRY, "PENDING"),       /* resolved below */
        make_event (3, "s", NOW - 30 * MINUTE_MS, NO_EXPIRY, "PENDING"),       /* quarantined below */
        make_event (4, "s", NOW - 40 * MINUTE_MS, NO_EXPIRY, "PENDING"),       /* failed max_retries times */
        make_event (5, "s", NOW - 50 * MINUTE_MS, NO_EXPIRY, "PENDING"),       /* failed, not due yet */
        make_event (6, "s", NOW - 60 * MINUTE_MS, NOW, "PENDING"),             /* expired */
        make_event (7, "t", NOW - 70 * MINUTE_MS, NO_EXPIRY, "PENDING"),       /* another stream */
        make_event (8, "s", NOW - 80 * MINUTE_MS, NO_EXPIRY, "PENDING"),       /* failed, due again */
        make_event (9, "s", NOW + 1, NO_EXPIRY, "PENDING"),                    /* created in the future */
        make_event (10, "s", NOW - 100 * MINUTE_MS, NO_EXPIRY, "DLQ"),         /* not PENDING */
        make_event (11, "s", NOW, NOW + 1, "PENDING"),                         /* due: created now */
        make_event (12, "s", NOW + HOUR_MS, NO_EXPIRY, "PENDING"),             /* future, but retry_after past */
    };
    append_events (writer, events, sizeof events / sizeof events [0]);
    dlq_embedded_t *updater = open_store (DLQ_EMBEDDED_UPDATER);
    cr_assert_eq (mark (updater, 2, DLQ_SINK_MARK_RESOLVED, NOW, 0, NULL), DLQ_STORE_OK);
    cr_assert_eq (mark (updater, 3, DLQ_SINK_MARK_QUARANTINED, NOW, 0, NULL), DLQ_STORE_OK);
    for (int i = 0; i < MAX_RETRIES; i++)
        cr_assert_eq (mark (updater, 4, DLQ_SINK_MARK_FAILED, NOW, NOW - 1, NULL), DLQ_STORE_OK);
    cr_assert_eq (mark (updater, 5, DLQ_SINK_MARK_FAILED, NOW, NOW + 1, NULL), DLQ_STORE_OK);
    for (int i = 0; i < MAX_RETRIES - 1; i++)
        cr_assert_eq (mark (updater, 8, DLQ_SINK_MARK_FAILED, NOW, NOW, NULL), DLQ_STORE_OK);
    cr_assert_eq (mark (updater, 12, DLQ_SINK_MARK_FAILED, NOW, NOW - 1, NULL), DLQ_STORE_OK);
    cr_assert_eq (mark (updater, 12, DLQ_SINK_MARK_REPLAYED, NOW, NOW - 1, NULL), DLQ_STORE_OK);
    char *counts = counts_text ();

    const int64_t lease = NOW + HOUR_MS;
    cr_assert_str_eq (claim (updater, "s", "a", MINUTE_MS, MAX_RETRIES, 100, NOW, lease), "8,1,11,12");
    /* retry_after of events 1 .. 12 afterwards: the claimed ones leased,
     * the others as they were (read just before event 6 expires) */
    const int64_t want [] = {
        lease, NOW - 20 * MINUTE_MS, NOW - 30 * MINUTE_MS, NOW - 1, NOW + 1, NOW - 60 * MINUTE_MS,
        NOW - 70 * MINUTE_MS, lease, NOW + 1, NOW - 100 * MINUTE_MS, lease, lease,
    };
    for (int n = 1; n <= 12; n++)
        cr_assert_eq (state_of (updater, n, NOW - 1).retry_after, want [n - 1], "event %d", n);
    cr_assert_eq (state_of (updater, 12, NOW).replay_count, 1);
    cr_assert_eq (state_of (updater, 8, NOW).retry_count, MAX_RETRIES - 1, "a claim leaves retry_count alone");
    char *counts_after = counts_text ();
    cr_assert_str_eq (counts_after, counts);
    free (counts_after);
    free (counts);
    cr_assert_str_eq (claim (updater, "t", "a", MINUTE_MS, MAX_RETRIES, 100, NOW, lease), "7");
    cr_assert_str_eq (claim (updater, "nothing", "a", MINUTE_MS, MAX_RETRIES, 100, NOW, lease), "");
    dlq_embedded_destroy (&updater);
    dlq_embedded_destroy (&writer);
}

/* Ties in created_at go by seq; the batch limit cuts the oldest first. */
Test (embedded_workbench, claim_pages_through_a_backlog_in_batches)
{
    enum { COUNT = 10, BATCH = 4 };
    static const int age [COUNT] = { 5, 9, 1, 9, 3, 7, 2, 9, 6, 4 };   /* minutes, event n = index + 1 */
    dlq_embedded_t *writer = open_store (DLQ_EMBEDDED_WRITER);
    dlq_event_t *events [COUNT];
    for (int i = 0; i < COUNT; i++)
        events [i] = make_event (i + 1, "s", NOW - age [i] * MINUTE_MS, NO_EXPIRY, "PENDING");
    append_events (writer, events, COUNT);
    const int64_t lease = NOW + HOUR_MS;
    cr_assert_str_eq (claim (writer, "s", "a", 1, 10, BATCH, NOW, lease), "2,4,8,6");
    cr_assert_str_eq (claim (writer, "s", "a", 1, 10, BATCH, NOW + 1, lease), "9,1,10,5");
    cr_assert_str_eq (claim (writer, "s", "a", 1, 10, BATCH, NOW + 2, lease), "7,3");
    cr_assert_str_eq (claim (writer, "s", "a", 1, 10, BATCH, NOW + 3, lease), "");
    cr_assert_str_eq (claim (writer, "s", "a", 1, 10, 0, NOW + 4, lease + 1), "", "a batch of 0");
    /* once the lease runs out, all are due again, oldest first */
    cr_assert_str_eq (claim (writer, "s", "a", 1, 10, COUNT, lease, lease + HOUR_MS), "2,4,8,6,9,1,10,5,7,3");
    dlq_embedded_destroy (&writer);
}

Test (embedded_workbench, a_leased_event_is_not_claimed_again_until_the_lease_ends)
{
    const int64_t pass = MINUTE_MS, lease = NOW + HOUR_MS;
    dlq_embedded_t *writer = open_store (DLQ_EMBEDDED_WRITER);
    for (int n = 1; n <= 3; n++)
        free (append_one (writer, n, NOW - n * MINUTE_MS, NO_EXPIRY, "PENDING"));
    dlq_embedded_t *updater = open_store (DLQ_EMBEDDED_UPDATER);
    cr_assert_str_eq (claim (updater, "s", "a", pass, 5, 2, NOW, lease), "3,2");
    /* the lock has run out, the lease has not */
    cr_assert_str_eq (claim (updater, "s", "a", pass, 5, 10, NOW + pass, lease), "1");
    cr_assert_str_eq (claim (updater, "s", "a", pass, 5, 10, NOW + 2 * pass, lease), "");
    /* a worker reported event 3 failed: due again after its backoff */
    cr_assert_eq (mark (updater, 3, DLQ_SINK_MARK_FAILED, NOW + 2 * pass, NOW + 3 * pass, NULL), DLQ_STORE_OK);
    cr_assert_str_eq (claim (updater, "s", "a", pass, 5, 10, NOW + 3 * pass, lease), "3");
    cr_assert_str_eq (claim (updater, "s", "a", pass, 5, 10, lease - 1, lease), "");
    cr_assert_str_eq (claim (updater, "s", "a", pass, 5, 10, lease, lease + HOUR_MS), "3,2,1");
    dlq_embedded_destroy (&updater);
    dlq_embedded_destroy (&writer);
}

/* A claim expected to find the pass locked: nothing changes. */
static void
expect_locked (dlq_embedded_t *store, const char *stream, const char *owner, int64_t pass_ms, int64_t now_ms)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_buf_puts (&out, "stale");
    cr_assert_eq (dlq_embedded_claim (store, stream, owner, pass_ms, 5, 10, now_ms, now_ms + HOUR_MS, &out),
                  DLQ_STORE_LOCKED, "%s at %lld: %s", owner, (long long) now_ms, dlq_embedded_last_error (store));
    cr_assert_eq (out.len, 0, "no events with LOCKED: %s", out.data);
    dlq_buf_free (&out);
}

Test (embedded_workbench, another_owner_is_locked_out_for_the_pass)
{
    const int64_t pass = 10 * MINUTE_MS;
    dlq_embedded_t *writer = open_store (DLQ_EMBEDDED_WRITER);
    dlq_event_t *events [] = {
        make_event (1, "s", NOW - HOUR_MS, NO_EXPIRY, "PENDING"),
        make_event (2, "t", NOW - HOUR_MS, NO_EXPIRY, "PENDING"),
        make_event (3, "s", NOW + 1, NO_EXPIRY, "PENDING"),
    };
    append_events (writer, events, 3);
    dlq_embedded_t *a = open_store (DLQ_EMBEDDED_UPDATER);
    dlq_embedded_t *b = open_store (DLQ_EMBEDDED_UPDATER);
    cr_assert_str_eq (claim (a, "s", "host-a", pass, 5, 10, NOW, NOW + 1), "1");
    cr_assert_eq (test_store_count (tmp_dir, "SELECT count(*) FROM scheduler_locks WHERE stream_name = 's'"
                                    " AND owner = 'host-a' AND locked_until = 1781016133500"), 1);
    /* event 1's lease ends and event 3 falls due, but b may not take them */
    expect_locked (b, "s", "host-b", pass, NOW + 2);
    expect_locked (b, "s", "host-b", pass, NOW + pass - 1);
    expect_state (state_of (b, 1, NOW), "PENDING", 0, 0, NOW + 1, "a locked claim leases nothing");
    expect_state (state_of (b, 3, NOW), "PENDING", 0, 0, NOW + 1, "a locked claim leases nothing");
    cr_assert_eq (test_store_count (tmp_dir, "SELECT count(*) FROM scheduler_locks WHERE owner = 'host-a'"), 1);
    /* the lock is per stream */
    cr_assert_str_eq (claim (b, "t", "host-b", pass, 5, 10, NOW + 2, NOW + HOUR_MS), "2");
    /* the same owner is never locked out; its pass is extended */
    cr_assert_str_eq (claim (a, "s", "host-a", pass, 5, 10, NOW + 3, NOW + HOUR_MS), "1,3");
    expect_locked (b, "s", "host-b", pass, NOW + pass);
    /* once the lock has run out, the other owner takes the pass over */
    cr_assert_str_eq (claim (b, "s", "host-b", pass, 5, 10, NOW + 3 + pass, NOW + 2 * HOUR_MS), "");
    expect_locked (a, "s", "host-a", pass, NOW + 4 + pass);
    cr_assert_eq (test_store_count (tmp_dir, "SELECT count(*) FROM scheduler_locks"), 2);
    cr_assert_eq (test_store_count (tmp_dir, "SELECT count(*) FROM scheduler_locks WHERE stream_name = 's'"
                                    " AND owner = 'host-b'"), 1);
    dlq_embedded_destroy (&b);
    dlq_embedded_destroy (&a);
    dlq_embedded_destroy (&writer);
}

/* These must match the statement in embedded_workbench.c. */
#define DUE_SQL "SELECT seq, replay_count, body FROM events" \
    " WHERE stream_name = ?1 AND status = 'PENDING' AND retry_count < ?2" \
    " AND coalesce (retry_after, created_at) <= ?3" \
    " AND (expires_at IS NULL OR expires_at > ?3)" \
    " ORDER BY created_at, seq LIMIT ?4"

Test (embedded_workbench, claim_walks_the_stream_index_without_sorting)
{
    dlq_embedded_t *writer = open_store (DLQ_EMBEDDED_WRITER);
    for (int n = 1; n <= 20; n++)
        free (append_one (writer, n, NOW - n * MINUTE_MS, n % 2 ? NO_EXPIRY : NOW + n, "PENDING"));
    dlq_embedded_destroy (&writer);
    sqlite3 *db = test_store_open (tmp_dir, SQLITE_OPEN_READONLY);
    sqlite3_stmt *stmt = NULL;
    cr_assert_eq (sqlite3_prepare_v2 (db, "EXPLAIN QUERY PLAN " DUE_SQL, -1, &stmt, NULL), SQLITE_OK, "%s",
                  sqlite3_errmsg (db));
    dlq_buf_t plan = DLQ_BUF_INIT;
    while (sqlite3_step (stmt) == SQLITE_ROW)
        dlq_buf_printf (&plan, "%s | ", (const char *) sqlite3_column_text (stmt, 3));
    sqlite3_finalize (stmt);
    sqlite3_close (db);
    cr_assert_not_null (strstr (plan.data, "SEARCH events USING INDEX events_by_stream (stream_name=?)"),
                        "plan: %s", plan.data);
    cr_assert_null (strstr (plan.data, "TEMP B-TREE"), "sorts instead of walking the index: %s", plan.data);
    dlq_buf_free (&plan);
}


Test (embedded_workbench, replay_state_survives_a_reopen)
{
    dlq_embedded_t *writer = open_store (DLQ_EMBEDDED_WRITER);
    free (append_one (writer, 1, NOW - HOUR_MS, NO_EXPIRY, "PENDING"));
    dlq_embedded_t *updater = open_store (DLQ_EMBEDDED_UPDATER);
    cr_assert_eq (mark (updater, 1, DLQ_SINK_MARK_FAILED, NOW, NOW + 7, NULL), DLQ_STORE_OK);
    cr_assert_str_eq (claim (updater, "s", "a", HOUR_MS, 5, 10, NOW + 7, NOW + 8), "1");
    dlq_embedded_destroy (&updater);
    dlq_embedded_destroy (&writer);

    writer = open_store (DLQ_EMBEDDED_WRITER);
    expect_state (state_of (writer, 1, NOW), "PENDING", 1, 0, NOW + 8, "after reopening");
    expect_locked (writer, "s", "b", HOUR_MS, NOW + 9);
    dlq_embedded_destroy (&writer);
}


/* ------------------------------------------------------------------------ */
/* The updater connection */

Test (embedded_workbench, an_updater_needs_an_existing_current_store)
{
    char err [512] = "";
    cr_assert_null (dlq_embedded_open (tmp_dir, DLQ_EMBEDDED_UPDATER, err, sizeof err));
    cr_assert_not_null (strstr (err, "no writer has created the store yet"), "err: %s", err);
    char path [512];
    snprintf (path, sizeof path, "%s/%s", tmp_dir, DLQ_EMBEDDED_FILE);
    cr_assert_neq (access (path, F_OK), 0, "an updater creates no file");
    dlq_embedded_t *writer = open_store (DLQ_EMBEDDED_WRITER);
    dlq_embedded_destroy (&writer);

    /* an older version waits for the writer's upgrade */
    test_store_exec (tmp_dir, "UPDATE meta SET value = '4' WHERE key = 'schema_version'");
    cr_assert_null (dlq_embedded_open (tmp_dir, DLQ_EMBEDDED_UPDATER, err, sizeof err));
    cr_assert_not_null (strstr (err, "schema version 4; an updater needs version 6"), "err: %s", err);
    test_store_exec (tmp_dir, "UPDATE meta SET value = '6' WHERE key = 'schema_version'");

    /* it writes the workbench's tables, not events: no append, no sweep */
    writer = open_store (DLQ_EMBEDDED_WRITER);
    dlq_embedded_t *updater = open_store (DLQ_EMBEDDED_UPDATER);
    dlq_event_t *event = make_event (1, "s", NOW, NO_EXPIRY, "PENDING");
    bool duplicate = false;
    cr_assert_eq (dlq_embedded_append (updater, &event, 1, &duplicate, err, sizeof err), DLQ_STORE_ERROR);
    cr_assert_not_null (strstr (err, "updater"), "err: %s", err);
    cr_assert_eq (dlq_embedded_sweep (updater, NOW, 10), -1);
    append_events (writer, &event, 1);
    /* it reads like a reader, and sees the writer's commits */
    char *body = get_body (updater, 1);
    cr_assert_not_null (body);
    free (body);
    dlq_buf_t streams = DLQ_BUF_INIT;
    int64_t total = 0, bytes = 0;
    cr_assert_eq (dlq_embedded_stats (updater, &streams, &total, &bytes), DLQ_STORE_OK);
    cr_assert_eq (total, 1);
    dlq_buf_free (&streams);
    /* and its writes are seen by the writer's connection at once */
    cr_assert_eq (mark (updater, 1, DLQ_SINK_MARK_RESOLVED, NOW, 0, NULL), DLQ_STORE_OK);
    expect_state (state_of (writer, 1, NOW), "SUCCEEDED", 0, 0, NOW, "seen by the writer");
    dlq_embedded_destroy (&updater);
    dlq_embedded_destroy (&writer);
}

Test (embedded_workbench, a_reader_reads_the_state_but_cannot_change_it)
{
    dlq_embedded_t *writer = open_store (DLQ_EMBEDDED_WRITER);
    free (append_one (writer, 1, NOW - HOUR_MS, NO_EXPIRY, "PENDING"));
    dlq_embedded_t *reader = open_store (DLQ_EMBEDDED_READER);
    expect_state (state_of (reader, 1, NOW), "PENDING", 0, 0, NOW - HOUR_MS, "reader");
    cr_assert_eq (mark (reader, 1, DLQ_SINK_MARK_RESOLVED, NOW, 0, NULL), DLQ_STORE_ERROR);
    cr_assert_not_null (strstr (dlq_embedded_last_error (reader), "read-only"), "%s",
                        dlq_embedded_last_error (reader));
    dlq_buf_t out = DLQ_BUF_INIT;
    cr_assert_eq (dlq_embedded_claim (reader, "s", "a", 1, 5, 10, NOW, NOW, &out), DLQ_STORE_ERROR);
    dlq_buf_free (&out);
    expect_state (state_of (writer, 1, NOW), "PENDING", 0, 0, NOW - HOUR_MS, "unchanged");
    dlq_embedded_destroy (&reader);
    dlq_embedded_destroy (&writer);
}
