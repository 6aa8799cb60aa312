/*  itest_gateway — dlqd as a process, driven over the wire protocol: bad
 *  input of every kind, the store contract (PUT / GET / LIST), duplicates,
 *  stream policy, STATS counters, the expiry sweep and the SIGTERM drain.
 */
#include "dlq_json.h"
#include "sink_support.h"
#include "test_support.h"

#include <criterion/criterion.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <errno.h>
#include <dirent.h>
#include <sqlite3.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

static test_dlqd_t d;

static void
start (void)
{
    memset (&d, 0, sizeof d);
    cr_assert (test_dlqd_start (&d, "max_message_bytes = 4096; max_frame_bytes = 65536; "
                                    "spool_preallocate = false; "   /* for test_dlqd_fill_disk */
                                    "sweep: { interval_ms = 100; };",
                                "streams = ( { name = \"short\"; retention_days = 1; },"
                                "            { name = \"lean\"; include_original_document = false;"
                                "              include_stack_trace = false; retention_days = 0; } );"),
               "dlqd did not start");
}

static void stop (void) { test_dlqd_cleanup (&d); }

TestSuite (gateway, .init = start, .fini = stop, .timeout = 120);

/* A parsed reply body; the caller destroys it. */
static dlq_json_doc_t *
request_json (const char *verb, const char *body, const char *want_status)
{
    char status [8];
    char *reply = NULL;
    cr_assert (test_request (d.endpoint, verb, body, strlen (body), status, &reply),
               "no reply to %s %s", verb, body);
    cr_assert_str_eq (status, want_status, "%s %s -> %s %s", verb, body, status, reply);
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (reply, strlen (reply), &doc, NULL), DLQ_JSON_OK, "reply is not JSON: %s", reply);
    free (reply);
    return doc;
}

static char *
string_member (const dlq_json_doc_t *doc, const char *key)
{
    const dlq_json_value_t *v = dlq_json_get (dlq_json_root (doc), key);
    cr_assert (v && v->type == DLQ_JSON_STRING, "reply has no string %s", key);
    return strndup (v->str, v->len);
}

static int64_t
int_member (const dlq_json_value_t *obj, const char *key)
{
    int64_t n = -1;
    const dlq_json_value_t *v = dlq_json_get (obj, key);
    if (v)
        dlq_json_as_int64 (v, &n);
    return v ? n : 0;
}

/* The canonical compact text of member key of the reply (e.g. "event"). */
static char *
member_text (const dlq_json_doc_t *doc, const char *key)
{
    const dlq_json_value_t *v = dlq_json_get (dlq_json_root (doc), key);
    cr_assert_not_null (v, "reply has no %s", key);
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_json_write (&out, v);
    return dlq_buf_steal (&out, NULL);
}

static const char *event_body =
    "{\"id\":\"c2e8a5b6-0f1e-4c3a-9b7d-2a1f0e9d8c7b\",\"streamName\":\"orders\",\"operationType\":\"INSERT\","
    "\"documentKey\":{\"_id\":{\"$oid\":\"65f0a1b2c3d4e5f601234567\"}},\"fullDocument\":{\"status\":\"PAID\"},"
    "\"resumeToken\":{\"_data\":\"82ab\"},\"error\":{\"type\":\"java.lang.IllegalStateException\","
    "\"message\":\"downstream call failed\",\"stackTrace\":\"at x\"},\"attempts\":3,\"status\":\"DLQ\","
    "\"firstAttemptAt\":\"2099-06-09T14:32:11.123Z\",\"lastAttemptAt\":\"2099-06-09T14:32:13.456Z\","
    "\"createdAt\":\"2099-06-09T14:32:13.500Z\",\"expiresAt\":\"2099-07-09T14:32:13.500Z\","
    "\"metadata\":{\"tenantId\":\"acme\"}}";

Test (gateway, put_then_get_returns_the_same_event)
{
    dlq_json_doc_t *ack = request_json ("PUT", event_body, "OK");
    char *id = string_member (ack, "id");
    cr_expect_str_eq (id, "c2e8a5b6-0f1e-4c3a-9b7d-2a1f0e9d8c7b");
    cr_expect_eq (dlq_json_get (dlq_json_root (ack), "duplicate")->type, DLQ_JSON_FALSE);
    dlq_json_doc_destroy (&ack);

    dlq_json_doc_t *got = request_json ("GET", "{\"id\":\"C2E8A5B6-0F1E-4C3A-9B7D-2A1F0E9D8C7B\"}", "OK");
    char *stored = member_text (got, "event");
    cr_expect_str_eq (stored, event_body, "the default policy keeps every field; expiresAt "
                      "= createdAt + 30 days as sent");
    free (stored);
    free (id);
    dlq_json_doc_destroy (&got);
}

Test (gateway, the_same_id_twice_is_stored_once_and_acked_as_duplicate)
{
    dlq_json_doc_destroy (&(dlq_json_doc_t *) { request_json ("PUT", event_body, "OK") });
    char changed [2048];
    snprintf (changed, sizeof changed, "%s", event_body);
    memcpy (strstr (changed, "PAID"), "LOST", 4);
    dlq_json_doc_t *ack = request_json ("PUT", changed, "OK");
    cr_expect_eq (dlq_json_get (dlq_json_root (ack), "duplicate")->type, DLQ_JSON_TRUE);
    dlq_json_doc_destroy (&ack);
    dlq_json_doc_t *got = request_json ("GET", "{\"id\":\"c2e8a5b6-0f1e-4c3a-9b7d-2a1f0e9d8c7b\"}", "OK");
    char *stored = member_text (got, "event");
    cr_expect_not_null (strstr (stored, "PAID"), "the first body is kept");
    free (stored);
    dlq_json_doc_destroy (&got);
    dlq_json_doc_t *stats = request_json ("STATS", "", "OK");
    const dlq_json_value_t *root = dlq_json_root (stats);
    cr_expect_eq (int_member (root, "events"), 1);
    cr_expect_eq (int_member (dlq_json_get (root, "streams"), "orders"), 1);
    cr_expect_eq (int_member (dlq_json_get (root, "counters"), "accepted"), 1);
    cr_expect_eq (int_member (dlq_json_get (root, "counters"), "duplicate"), 1);
    dlq_json_doc_destroy (&stats);
}

Test (gateway, stream_policy_is_applied_before_storing)
{
    const char *body = "{\"streamName\":\"lean\",\"fullDocument\":{\"a\":1},\"error\":{\"type\":\"T\","
                       "\"stackTrace\":\"secret\"},\"expiresAt\":\"2099-01-01T00:00:00.000Z\"}";
    dlq_json_doc_t *ack = request_json ("PUT", body, "OK");
    char *id = string_member (ack, "id");
    char get [128];
    snprintf (get, sizeof get, "{\"id\":\"%s\"}", id);
    dlq_json_doc_t *got = request_json ("GET", get, "OK");
    char *stored = member_text (got, "event");
    cr_expect_null (strstr (stored, "fullDocument"), "%s", stored);
    cr_expect_null (strstr (stored, "secret"), "%s", stored);
    cr_expect_null (strstr (stored, "expiresAt"), "retention 0 keeps forever: %s", stored);
    cr_expect_not_null (strstr (stored, "\"status\":\"PENDING\""), "%s", stored);
    free (stored);
    free (id);
    dlq_json_doc_destroy (&ack);
    dlq_json_doc_destroy (&got);
}

Test (gateway, expired_events_are_not_found_and_swept)
{
    /* retention 1 day on "short": created two days ago, so already expired */
    char body [256], iso [32];
    time_t t = time (NULL) - 2 * 86400;
    strftime (iso, sizeof iso, "%Y-%m-%dT%H:%M:%S.000Z", gmtime (&t));
    snprintf (body, sizeof body, "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-3d4e5f607182\",\"streamName\":\"short\","
              "\"error\":{\"type\":\"T\"},\"createdAt\":\"%s\"}", iso);
    dlq_json_doc_destroy (&(dlq_json_doc_t *) { request_json ("PUT", body, "OK") });
    dlq_json_doc_destroy (&(dlq_json_doc_t *) {
        request_json ("GET", "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-3d4e5f607182\"}", "ERR") });
    dlq_json_doc_t *list = request_json ("LIST", "{\"streamName\":\"short\"}", "OK");
    cr_expect_eq (dlq_json_get (dlq_json_root (list), "events")->count, 0);
    dlq_json_doc_destroy (&list);
    /* the sweep (every 100 ms here) removes it from the store: wait for it */
    int64_t events = -1;
    for (int i = 0; i < 100 && events != 0; i++) {
        dlq_json_doc_t *stats = request_json ("STATS", "{}", "OK");
        events = int_member (dlq_json_root (stats), "events");
        dlq_json_doc_destroy (&stats);
        if (events)
            usleep (50 * 1000);
    }
    cr_expect_eq (events, 0, "the sweep did not delete the expired event");
    /* swept, its id is free: the same PUT is stored anew, not a duplicate */
    dlq_json_doc_t *again = request_json ("PUT", body, "OK");
    cr_expect_eq (dlq_json_get (dlq_json_root (again), "duplicate")->type, DLQ_JSON_FALSE,
                  "a swept event's id is still taken");
    dlq_json_doc_destroy (&again);
}

Test (gateway, list_pages_newest_first_with_a_cursor)
{
    char body [256];
    for (int i = 0; i < 25; i++) {
        snprintf (body, sizeof body, "{\"streamName\":\"paged\",\"error\":{\"type\":\"T%d\"},"
                  "\"createdAt\":\"2099-01-01T00:00:%02d.000Z\"}", i, i);
        dlq_json_doc_destroy (&(dlq_json_doc_t *) { request_json ("PUT", body, "OK") });
    }
    int next_expected = 24, pages = 0;
    char *cursor = NULL;
    do {
        char req [256];
        if (cursor)
            snprintf (req, sizeof req, "{\"streamName\":\"paged\",\"limit\":10,\"cursor\":\"%s\"}", cursor);
        else
            snprintf (req, sizeof req, "{\"streamName\":\"paged\",\"limit\":10}");
        free (cursor);
        cursor = NULL;
        dlq_json_doc_t *page = request_json ("LIST", req, "OK");
        const dlq_json_value_t *events = dlq_json_get (dlq_json_root (page), "events");
        for (const dlq_json_value_t *e = events->child; e; e = e->next) {
            char want [16];
            snprintf (want, sizeof want, "T%d", next_expected--);
            const dlq_json_value_t *type = dlq_json_get (dlq_json_get (e, "error"), "type");
            cr_expect_str_eq (type->str, want);
        }
        const dlq_json_value_t *next = dlq_json_get (dlq_json_root (page), "nextCursor");
        if (next)
            cursor = strndup (next->str, next->len);
        dlq_json_doc_destroy (&page);
        pages++;
    } while (cursor && pages < 10);
    cr_expect_eq (pages, 3);
    cr_expect_eq (next_expected, -1, "every event listed exactly once");

    dlq_json_doc_t *none = request_json ("LIST", "{\"streamName\":\"nothing-here\"}", "OK");
    cr_expect_eq (dlq_json_get (dlq_json_root (none), "events")->count, 0);
    cr_expect_null (dlq_json_get (dlq_json_root (none), "nextCursor"));
    dlq_json_doc_destroy (&none);
}

/* A raw request of any frames; returns the reply frames' status and body
 * through the out parameters, or false when no reply came within timeout. */
static bool
raw_request (void *s, const char *const *frames, const size_t *lens, int count,
             char *status, char **body, char *rid, size_t *rid_len)
{
    for (int i = 0; i < count; i++)
        zmq_send (s, frames [i], lens [i], i + 1 < count ? ZMQ_SNDMORE : 0);
    char buf [3][8192];
    int n [3];
    for (int i = 0; i < 3; i++) {
        n [i] = zmq_recv (s, buf [i], sizeof buf [i], 0);
        if (n [i] < 0)
            return false;
        n [i] = n [i] > (int) sizeof buf [i] - 1 ? (int) sizeof buf [i] - 1 : n [i];
        buf [i][n [i]] = '\0';
    }
    snprintf (status, 8, "%.7s", buf [0]);
    memcpy (rid, buf [1], (size_t) n [1]);
    *rid_len = (size_t) n [1];
    *body = strdup (buf [2]);
    return true;
}

typedef struct {
    const char *name;
    const char *frames [5];
    size_t      lens [5];       /* 0 = strlen */
    int         count;
    const char *code;
    const char *field;
} wire_case_t;

static char big_body [5000];
static char long_id [300];

Test (gateway, every_bad_input_gets_its_documented_error_and_is_counted)
{
    memset (big_body, ' ', sizeof big_body - 1);
    big_body [0] = '{';
    big_body [sizeof big_body - 2] = '}';
    memset (long_id, 'r', sizeof long_id - 1);
    wire_case_t cases [] = {
        { "invalid JSON", { "PUT", "1", "{\"streamName\":" }, {0}, 3, "INVALID_JSON", NULL },
        { "not an object", { "PUT", "2", "[1,2,3]" }, {0}, 3, "INVALID_EVENT", NULL },
        { "missing streamName", { "PUT", "3", "{\"error\":{\"type\":\"T\"}}" }, {0}, 3, "INVALID_EVENT", "streamName" },
        { "missing error.type", { "PUT", "4", "{\"streamName\":\"s\",\"error\":{}}" }, {0}, 3, "INVALID_EVENT", "error.type" },
        { "ill-typed attempts", { "PUT", "5", "{\"streamName\":\"s\",\"error\":{\"type\":\"T\"},\"attempts\":\"x\"}" }, {0}, 3, "INVALID_EVENT", "attempts" },
        { "bad timestamp", { "PUT", "6", "{\"streamName\":\"s\",\"error\":{\"type\":\"T\"},\"createdAt\":\"2026-02-30T00:00:00Z\"}" }, {0}, 3, "INVALID_TIMESTAMP", "createdAt" },
        { "too large", { "PUT", "7", big_body }, {0}, 3, "TOO_LARGE", NULL },
        { "unknown verb", { "DELETE", "8", "{}" }, {0}, 3, "UNKNOWN_VERB", NULL },
        { "lower-case verb", { "put", "9", "{}" }, {0}, 3, "UNKNOWN_VERB", NULL },
        { "two frames", { "PUT", "10" }, {0}, 2, "BAD_FRAMES", NULL },
        { "four frames", { "PUT", "11", "{}", "extra" }, {0}, 4, "BAD_FRAMES", NULL },
        { "one frame", { "PING" }, {0}, 1, "BAD_FRAMES", NULL },
        { "empty body", { "PUT", "12", "" }, {0}, 3, "EMPTY_BODY", NULL },
        { "empty GET body", { "GET", "13", "" }, {0}, 3, "EMPTY_BODY", NULL },
        { "GET body of whitespace", { "GET", "13b", " \n\t" }, {0}, 3, "EMPTY_BODY", NULL },
        { "invalid UTF-8", { "PUT", "14", "{\"streamName\":\"\xc3\x28\",\"error\":{\"type\":\"T\"}}" }, {0}, 3, "INVALID_UTF8", NULL },
        { "request id too long", { "PING", long_id, "" }, {0}, 3, "BAD_FRAMES", NULL },
        { "GET without id", { "GET", "15", "{}" }, {0}, 3, "INVALID_REQUEST", "id" },
        { "GET of a missing id", { "GET", "16", "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-3d4e5f607183\"}" }, {0}, 3, "NOT_FOUND", "id" },
        { "LIST limit 0", { "LIST", "17", "{\"streamName\":\"s\",\"limit\":0}" }, {0}, 3, "INVALID_REQUEST", "limit" },
        { "LIST bad cursor", { "LIST", "18", "{\"streamName\":\"s\",\"cursor\":\"zzz\"}" }, {0}, 3, "INVALID_REQUEST", "cursor" },
        { "LIST unknown parameter", { "LIST", "19", "{\"streamName\":\"s\",\"sort\":\"asc\"}" }, {0}, 3, "INVALID_REQUEST", "sort" },
        { "STATS with a non-object body", { "STATS", "20", "[]" }, {0}, 3, "INVALID_REQUEST", NULL },
    };
    void *ctx = zmq_ctx_new ();
    void *s = zmq_socket (ctx, ZMQ_DEALER);
    int timeout = 5000, linger = 0;
    zmq_setsockopt (s, ZMQ_RCVTIMEO, &timeout, sizeof timeout);
    zmq_setsockopt (s, ZMQ_LINGER, &linger, sizeof linger);
    zmq_connect (s, d.endpoint);
    size_t ncases = sizeof cases / sizeof cases [0];
    int rejected = 0;
    for (size_t i = 0; i < ncases; i++) {
        wire_case_t *c = &cases [i];
        size_t lens [5];
        for (int f = 0; f < c->count; f++)
            lens [f] = strlen (c->frames [f]);
        char status [8], rid [300];
        size_t rid_len = 0;
        char *body = NULL;
        cr_assert (raw_request (s, c->frames, lens, c->count, status, &body, rid, &rid_len),
                   "%s: no reply", c->name);
        cr_expect_str_eq (status, "ERR", "%s: %s", c->name, body);
        char want [64];
        snprintf (want, sizeof want, "\"code\":\"%s\"", c->code);
        cr_expect_not_null (strstr (body, want), "%s: want %s, got %s", c->name, c->code, body);
        if (c->field) {
            snprintf (want, sizeof want, "\"field\":\"%s\"", c->field);
            cr_expect_not_null (strstr (body, want), "%s: want field %s, got %s", c->name, c->field, body);
        }
        if (c->count >= 2 && strlen (c->frames [1]) <= 255)
            cr_expect (rid_len == strlen (c->frames [1]) && memcmp (rid, c->frames [1], rid_len) == 0,
                       "%s: the request id is echoed", c->name);
        rejected += strcmp (c->code, "NOT_FOUND") != 0;
        free (body);
    }
    /* a frame over max_frame_bytes: the transport drops that connection */
    void *rogue = zmq_socket (ctx, ZMQ_DEALER);
    zmq_setsockopt (rogue, ZMQ_LINGER, &linger, sizeof linger);
    zmq_connect (rogue, d.endpoint);
    size_t huge_len = 200000;
    char *huge = calloc (1, huge_len);
    zmq_send (rogue, "PUT", 3, ZMQ_SNDMORE);
    zmq_send (rogue, "x", 1, ZMQ_SNDMORE);
    zmq_send (rogue, huge, huge_len, 0);
    free (huge);

    /* ... and the gateway goes on serving everybody, counting each rejection */
    dlq_json_doc_t *ok = request_json ("PUT", "{\"streamName\":\"s\",\"error\":{\"type\":\"T\"}}", "OK");
    dlq_json_doc_destroy (&ok);
    dlq_json_doc_t *pong = request_json ("PING", " \n", "OK");               /* whitespace: as empty */
    dlq_json_doc_destroy (&pong);
    dlq_json_doc_t *count = request_json ("COUNT", " \r\n\t", "OK");
    cr_expect_eq (int_member (dlq_json_root (count), "count"), 1);
    dlq_json_doc_destroy (&count);
    dlq_json_doc_t *stats = request_json ("STATS", "", "OK");
    const dlq_json_value_t *counters = dlq_json_get (dlq_json_root (stats), "counters");
    cr_expect_eq (int_member (counters, "rejected"), rejected);
    cr_expect_eq (int_member (counters, "accepted"), 1);
    const dlq_json_value_t *errors = dlq_json_get (counters, "errors");
    cr_expect_eq (int_member (errors, "BAD_FRAMES"), 4);
    cr_expect_eq (int_member (errors, "INVALID_REQUEST"), 5);
    cr_expect_eq (int_member (errors, "UNKNOWN_VERB"), 2);
    cr_expect_eq (int_member (errors, "EMPTY_BODY"), 3);
    cr_expect_eq (int_member (errors, "NOT_FOUND"), 1);
    cr_expect_eq (int_member (errors, "TOO_LARGE"), 1);
    dlq_json_doc_destroy (&stats);
    zmq_close (rogue);
    zmq_close (s);
    zmq_ctx_term (ctx);
}

Test (gateway, sigterm_answers_everything_received_then_exits_0)
{
    enum { N = 3000 };
    void *ctx = zmq_ctx_new ();
    void *s = zmq_socket (ctx, ZMQ_DEALER);
    int timeout = 10000, linger = 0, hwm = 0;
    zmq_setsockopt (s, ZMQ_RCVTIMEO, &timeout, sizeof timeout);
    zmq_setsockopt (s, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt (s, ZMQ_SNDHWM, &hwm, sizeof hwm);
    zmq_connect (s, d.endpoint);
    char body [256], rid [16];
    for (int i = 0; i < N; i++) {
        snprintf (body, sizeof body, "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-%012d\",\"streamName\":\"drain\","
                  "\"error\":{\"type\":\"T\"}}", i);
        snprintf (rid, sizeof rid, "%d", i);
        zmq_send (s, "PUT", 3, ZMQ_SNDMORE);
        zmq_send (s, rid, strlen (rid), ZMQ_SNDMORE);
        zmq_send (s, body, strlen (body), 0);
    }
    /* wait for the first ack so the gateway is busy, then ask it to stop */
    char frame [512];
    int replies = 0, acked = 0;
    cr_assert_gt (zmq_recv (s, frame, sizeof frame, 0), 0);
    acked += memcmp (frame, "OK", 2) == 0;
    zmq_recv (s, frame, sizeof frame, 0);
    zmq_recv (s, frame, sizeof frame, 0);
    replies++;
    kill (d.pid, SIGTERM);
    while (zmq_recv (s, frame, sizeof frame, 0) >= 0) {
        acked += memcmp (frame, "OK", 2) == 0;
        zmq_recv (s, frame, sizeof frame, 0);
        zmq_recv (s, frame, sizeof frame, 0);
        if (++replies == N)
            break;
        timeout = 2000;                 /* after the drain nothing more comes */
        zmq_setsockopt (s, ZMQ_RCVTIMEO, &timeout, sizeof timeout);
    }
    int status;
    waitpid (d.pid, &status, 0);
    d.pid = 0;
    cr_expect (WIFEXITED (status) && WEXITSTATUS (status) == 0, "dlqd exits 0 after SIGTERM");
    cr_log_info ("%d of %d PUTs answered before the drain ended, %d acked", replies, N, acked);
    cr_expect_gt (replies, 0);
    zmq_close (s);
    zmq_ctx_term (ctx);

    /* every acked event is there after a restart */
    cr_assert (test_dlqd_restart (&d));
    dlq_json_doc_t *stats = request_json ("STATS", "", "OK");
    cr_expect_eq (int_member (dlq_json_get (dlq_json_root (stats), "streams"), "drain"), acked);
    dlq_json_doc_destroy (&stats);
}

Test (gateway, a_failed_commit_is_unavailable_and_stores_nothing)
{
    /* the spool's write fails as on a full disk */
    test_dlqd_fill_disk (&d, true);
    dlq_json_doc_t *err = request_json ("PUT", "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-3d4e5f607199\","
                                        "\"streamName\":\"poison\",\"error\":{\"type\":\"T\"}}", "ERR");
    test_dlqd_fill_disk (&d, false);
    char *code = string_member (err, "code");
    cr_expect_str_eq (code, "UNAVAILABLE");
    free (code);
    dlq_json_doc_destroy (&err);
    dlq_json_doc_destroy (&(dlq_json_doc_t *) {
        request_json ("GET", "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-3d4e5f607199\"}", "ERR") });

    /* the gateway goes on committing other batches */
    dlq_json_doc_destroy (&(dlq_json_doc_t *) {
        request_json ("PUT", "{\"streamName\":\"fine\",\"error\":{\"type\":\"T\"}}", "OK") });
    dlq_json_doc_t *pong = request_json ("PING", " \n", "OK");               /* whitespace: as empty */
    dlq_json_doc_destroy (&pong);
    dlq_json_doc_t *count = request_json ("COUNT", "{\"streamName\":\"fine\"}", "OK");
    cr_expect_eq (int_member (dlq_json_root (count), "count"), 1);
    dlq_json_doc_destroy (&count);
    dlq_json_doc_t *stats = request_json ("STATS", "", "OK");
    const dlq_json_value_t *counters = dlq_json_get (dlq_json_root (stats), "counters");
    cr_expect_eq (int_member (dlq_json_get (counters, "errors"), "UNAVAILABLE"), 1);
    cr_expect_eq (int_member (counters, "rejected"), 0, "a store failure is not the client's bad input");
    cr_expect_eq (int_member (dlq_json_get (dlq_json_root (stats), "streams"), "poison"), 0);
    dlq_json_doc_destroy (&stats);
}

/* Run dlqd on config to its exit; its output into out, its status returned. */
static int
run_to_exit (const char *config, char *out, size_t out_len)
{
    char command [600];
    snprintf (command, sizeof command, "%s -c %s 2>&1", DLQD_BINARY, config);
    FILE *p = popen (command, "r");
    cr_assert_not_null (p);
    size_t n = fread (out, 1, out_len - 1, p);
    out [n] = '\0';
    return pclose (p);
}

Test (gateway, a_second_dlqd_on_the_same_data_dir_is_refused_and_a_killed_one_leaves_no_lock)
{
    /* two gateways appending to one log would interleave their records */
    char *reply = sink_request (d.endpoint, "PUT", "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-3d4e5f607182\","
                                "\"streamName\":\"orders\",\"error\":{\"type\":\"E\",\"message\":\"m\"}}", "OK");
    free (reply);
    char out [4096];
    int status = run_to_exit (d.config, out, sizeof out);
    cr_expect (WIFEXITED (status) && WEXITSTATUS (status) != 0, "the second dlqd exited with an error: %s", out);
    cr_expect_not_null (strstr (out, "another dlqd runs on it"), "%s", out);
    char pid [32];
    snprintf (pid, sizeof pid, "pid %d", (int) d.pid);
    cr_expect_not_null (strstr (out, pid), "the message names the owner (%s): %s", pid, out);
    /* the first one serves on */
    reply = sink_request (d.endpoint, "GET", "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-3d4e5f607182\"}", "OK");
    free (reply);
    /* SIGKILL leaves no stale lock: the next start takes it */
    test_dlqd_signal_wait (&d, SIGKILL);
    cr_assert (test_dlqd_restart (&d), "dlqd starts again after the one holding the lock was killed");
    reply = sink_request (d.endpoint, "GET", "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-3d4e5f607182\"}", "OK");
    free (reply);
}
