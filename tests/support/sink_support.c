/*  sink_support — a running dlqd as the sink suites see it; see the header. */
#include "sink_support.h"

#include "dlq_time.h"
#include "dlq_uuid.h"
#include "test_support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>

#define POLL_US (50 * 1000)

char *
sink_request (const char *endpoint, const char *verb, const char *body, const char *want_status)
{
    char status [8];
    char *reply = NULL;
    cr_assert (test_request (endpoint, verb, body, strlen (body), status, &reply), "%s: no reply", verb);
    cr_assert_str_eq (status, want_status, "%s %s -> %s", verb, body, reply);
    return reply;
}

int64_t
sink_reply_int (const char *reply, const char *member)
{
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (reply, strlen (reply), &doc, NULL), DLQ_JSON_OK, "%s", reply);
    int64_t n = -1;
    cr_assert (dlq_json_as_int64 (dlq_json_get (dlq_json_root (doc), member), &n), "no %s in %s", member, reply);
    dlq_json_doc_destroy (&doc);
    return n;
}

char *
sink_reply_text (const char *reply, const char *member)
{
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (reply, strlen (reply), &doc, NULL), DLQ_JSON_OK, "%s", reply);
    const dlq_json_value_t *v = dlq_json_get (dlq_json_root (doc), member);
    char *s = v && v->type == DLQ_JSON_STRING ? strndup (v->str, v->len) : NULL;
    dlq_json_doc_destroy (&doc);
    return s;
}

int64_t
sink_count (const char *endpoint, const char *filters)
{
    char *reply = sink_request (endpoint, "COUNT", filters, "OK");
    int64_t n = sink_reply_int (reply, "count");
    free (reply);
    return n;
}

char *
sink_get (const char *endpoint, const char *id, const char *want_status)
{
    char body [128];
    snprintf (body, sizeof body, "{\"id\":\"%s\"}", id);
    return sink_request (endpoint, "GET", body, want_status);
}

dlq_json_doc_t *
sink_stats (const char *endpoint)
{
    char *body = sink_request (endpoint, "STATS", "", "OK");
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (body, strlen (body), &doc, NULL), DLQ_JSON_OK, "%s", body);
    free (body);
    return doc;
}

int64_t
sink_spool_stat (const char *endpoint, const char *field)
{
    dlq_json_doc_t *doc = sink_stats (endpoint);
    int64_t n = -1;
    cr_assert (dlq_json_as_int64 (dlq_json_get (dlq_json_get (dlq_json_root (doc), "spool"), field), &n),
               "STATS has no spool.%s", field);
    dlq_json_doc_destroy (&doc);
    return n;
}

static const dlq_json_value_t *
member (const dlq_json_doc_t *doc, const char *sink, const char *field)
{
    return dlq_json_get (dlq_json_get (dlq_json_get (dlq_json_root (doc), "sinks"), sink), field);
}

int64_t
sink_stats_int (const dlq_json_doc_t *doc, const char *sink, const char *field)
{
    int64_t n = -1;
    cr_assert (dlq_json_as_int64 (member (doc, sink, field), &n), "STATS has no sinks.%s.%s", sink, field);
    return n;
}

int64_t
sink_stat (const char *endpoint, const char *sink, const char *field)
{
    dlq_json_doc_t *doc = sink_stats (endpoint);
    int64_t n = sink_stats_int (doc, sink, field);
    dlq_json_doc_destroy (&doc);
    return n;
}

char *
sink_text (const char *endpoint, const char *sink, const char *field)
{
    dlq_json_doc_t *doc = sink_stats (endpoint);
    const dlq_json_value_t *v = member (doc, sink, field);
    char *text = strdup (v && v->type == DLQ_JSON_STRING ? v->str : "");
    dlq_json_doc_destroy (&doc);
    return text;
}

int64_t
sink_counter (const char *endpoint, const char *sink, const char *name)
{
    dlq_json_doc_t *doc = sink_stats (endpoint);
    int64_t n = 0;
    dlq_json_as_int64 (dlq_json_get (member (doc, sink, "counters"), name), &n);
    dlq_json_doc_destroy (&doc);
    return n;
}

int64_t
sink_wait_stat (const char *endpoint, const char *sink, const char *field, int64_t want, int seconds)
{
    int64_t deadline = dlq_time_mono_ms () + seconds * 1000LL, got;
    while ((got = sink_stat (endpoint, sink, field)) != want && dlq_time_mono_ms () < deadline)
        usleep (POLL_US);
    return got;
}

char *
sink_wait_error (const char *endpoint, const char *sink, int seconds)
{
    int64_t deadline = dlq_time_mono_ms () + seconds * 1000LL;
    char *error;
    while (!(error = sink_text (endpoint, sink, "lastError")) [0] && dlq_time_mono_ms () < deadline) {
        free (error);
        usleep (POLL_US);
    }
    return error;
}

char *
sink_event_of_get (const char *reply)
{
    const char *prefix = "{\"event\":";
    cr_assert_eq (strncmp (reply, prefix, strlen (prefix)), 0, "%s", reply);
    const char *start = reply + strlen (prefix), *end = NULL;
    for (const char *p = start; (p = strstr (p, ",\"deliveries\":[")); p++)
        end = p;                            /* the last one: deliveries come after the event */
    if (!end)
        end = reply + strlen (reply) - 1;   /* the closing brace */
    return strndup (start, (size_t) (end - start));
}

void
sink_put_one (const char *endpoint, const char *body, char *id)
{
    char *reply = sink_request (endpoint, "PUT", body, "OK");
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (reply, strlen (reply), &doc, NULL), DLQ_JSON_OK, "%s", reply);
    const dlq_json_value_t *v = dlq_json_get (dlq_json_root (doc), "id");
    cr_assert (v && v->type == DLQ_JSON_STRING && v->len == DLQ_UUID_LEN, "%s", reply);
    memcpy (id, v->str, DLQ_UUID_LEN + 1);
    dlq_json_doc_destroy (&doc);
    free (reply);
}

void
sink_put_minimal (const char *endpoint, const char *stream, char *id)
{
    char body [256];
    snprintf (body, sizeof body, "{\"streamName\":\"%s\",\"error\":{\"type\":\"E\"}}", stream);
    sink_put_one (endpoint, body, id);
}

char *
sink_stored_event (const char *endpoint, const char *id)
{
    char *reply = sink_get (endpoint, id, "OK");
    char *event = sink_event_of_get (reply);
    free (reply);
    return event;
}

void
sink_put_bodies (const char *endpoint, char *const *bodies, int n)
{
    void *ctx = zmq_ctx_new ();
    void *s = zmq_socket (ctx, ZMQ_DEALER);
    int linger = 0, timeout = 30000, hwm = 0;
    zmq_setsockopt (s, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt (s, ZMQ_RCVTIMEO, &timeout, sizeof timeout);
    zmq_setsockopt (s, ZMQ_SNDHWM, &hwm, sizeof hwm);
    zmq_setsockopt (s, ZMQ_RCVHWM, &hwm, sizeof hwm);
    cr_assert_eq (zmq_connect (s, endpoint), 0);
    for (int i = 0; i < n; i++) {
        zmq_send (s, "PUT", 3, ZMQ_SNDMORE);
        zmq_send (s, &i, sizeof i, ZMQ_SNDMORE);
        zmq_send (s, bodies [i], strlen (bodies [i]), 0);
    }
    char frame [512];
    for (int i = 0; i < n; i++) {
        int len = zmq_recv (s, frame, sizeof frame - 1, 0);
        cr_assert_gt (len, 0, "PUT %d of %d not answered", i, n);
        bool ok = len == 2 && memcmp (frame, "OK", 2) == 0;
        zmq_recv (s, frame, sizeof frame, 0);
        len = zmq_recv (s, frame, sizeof frame - 1, 0);
        frame [len > 0 ? (len < (int) sizeof frame ? len : (int) sizeof frame - 1) : 0] = '\0';
        cr_assert (ok, "a PUT was refused: %s", frame);
    }
    zmq_close (s);
    zmq_ctx_term (ctx);
}

char *
sink_small_event (const char *stream, int64_t created_at, int n, char *id)
{
    char iso [DLQ_TIME_ISO_LEN + 1];
    dlq_uuid_v7 (dlq_time_now_ms (), id);
    dlq_time_format_iso (created_at, iso);
    char *body = NULL;
    cr_assert (asprintf (&body, "{\"id\":\"%s\",\"streamName\":\"%s\",\"createdAt\":\"%s\","
                         "\"error\":{\"type\":\"java.lang.RuntimeException\",\"message\":\"event %d\"},"
                         "\"metadata\":{\"n\":%d}}", id, stream, iso, n, n) > 0);
    return body;
}

char **
sink_small_events (const char *stream, int64_t first_created_at, int n, char (*ids) [DLQ_UUID_LEN + 1])
{
    char **bodies = calloc ((size_t) n, sizeof *bodies);
    for (int i = 0; i < n; i++)
        bodies [i] = sink_small_event (stream, first_created_at + i, i, ids [i]);
    return bodies;
}

void
sink_free_events (char **bodies, int n)
{
    for (int i = 0; i < n; i++)
        free (bodies [i]);
    free (bodies);
}

void
sink_put_small_events (const char *endpoint, const char *stream, int n, char (*ids) [DLQ_UUID_LEN + 1])
{
    char **bodies = sink_small_events (stream, dlq_time_now_ms (), n, ids);
    sink_put_bodies (endpoint, bodies, n);
    sink_free_events (bodies, n);
}

void
sink_expect_startup_error (test_dlqd_t *d, bool started, const char *settings, const char *want)
{
    cr_assert_not (started, "dlqd started with: %s", settings);
    char *log = test_read_file (d->log, NULL);
    cr_expect_not_null (strstr (log, want), "want \"%s\" in:\n%s", want, log);
    free (log);
    test_dlqd_cleanup (d);
    test_tmpdir (d->dir);
}
