/*  event_stream — new failures as Server-Sent Events (see the header). */
#include "event_stream.h"

#include "dlq_alloc.h"
#include "dlq_json.h"
#include "dlq_time.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <zmq.h>

#define ID_MAX 64                   /* an event id kept to compare (ids are UUIDs: 36) */
#define WAIT_SLICE_MS 500           /* how often a waiting read looks at the gateway stopping */

struct dlq_event_streams {
    void              *ctx;
    char              *tip_endpoint;
    dlq_api_handler_t *api;
    atomic_int         open;
};

struct dlq_event_stream {
    dlq_event_streams_t *owner;
    void                *tip;           /* SUB of the indexer's tip */
    int                  client;        /* the connection's socket, watched for its end; -1: not watched */
    char                *authorization;
    dlq_buf_t            filters;       /* the LIST body's filters: an object without its closing brace */
    bool                 bounded;       /* the filters have their own createdBefore */
    char                 seen [DLQ_EVENT_STREAM_PAGE][ID_MAX];  /* the ids of the last page, newest first */
    size_t               seen_count;
    char                 oldest [DLQ_TIME_ISO_LEN + 8];  /* the createdAt of the last page's oldest */
    dlq_buf_t            pending;       /* what is to be sent, from sent on */
    size_t               sent;
    bool                 woken;         /* the tip moved since the last LIST */
    bool                 over;          /* after "event: error": nothing more */
    int64_t              listed_ms, wrote_ms;
};

dlq_event_streams_t *
dlq_event_streams_new (void *zmq_ctx, const char *tip_endpoint, dlq_api_handler_t *api)
{
    dlq_event_streams_t *self = dlq_calloc (1, sizeof *self);
    self->ctx = zmq_ctx;
    self->tip_endpoint = dlq_strdup (tip_endpoint);
    self->api = api;
    return self;
}

void
dlq_event_streams_destroy (dlq_event_streams_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    free ((*self_p)->tip_endpoint);
    free (*self_p);
    *self_p = NULL;
}

static void
refuse (unsigned *status, unsigned code_status, dlq_buf_t *out, dlq_code_t code, const char *message)
{
    dlq_error_t err;
    dlq_error_set (&err, code, NULL, "%s", message);
    dlq_buf_reset (out);
    dlq_protocol_error_body (out, &err);
    *status = code_status;
}

/* The filters of the query's params as a LIST body without its closing
 * brace, or false with the status and error in out. */
static bool
list_filters (dlq_event_stream_t *s, const dlq_api_param_t *params, size_t count, unsigned *status,
              dlq_buf_t *out)
{
    dlq_buf_t *body = &s->filters;
    for (size_t i = 0; i < count; i++) {
        s->bounded = s->bounded || !strcmp (params [i].name, "createdBefore");
        if (!strcmp (params [i].name, "limit") || !strcmp (params [i].name, "cursor")) {
            refuse (status, 400, out, DLQ_ERR_INVALID_REQUEST, "a stream takes the filters of GET events, not "
                    "limit or cursor: it sends every new event that matches");
            return false;
        }
    }
    const dlq_api_route_t *route = NULL;
    char segment [8], allow [64];
    dlq_api_route_find ("GET", DLQ_API_PREFIX "events", &route, segment, sizeof segment, allow, sizeof allow);
    dlq_error_t err;
    dlq_code_t code = dlq_api_route_body (route, "", params, count, NULL, 0, body, &err);
    if (code != DLQ_OK) {
        dlq_buf_reset (out);
        dlq_protocol_error_body (out, &err);
        *status = dlq_api_route_status (code);
        return false;
    }
    body->len--;                                    /* its closing brace */
    return true;
}

/* A look's LIST body: the filters, the page's limit and, unless the
 * filters bound it, createdBefore a little past now, so that an event
 * stored with a createdAt in the future (a skewed clock) cannot sit on top
 * of every page and hide what comes after it: it is sent when its time
 * comes. */
static void
list_body (const dlq_event_stream_t *s, dlq_buf_t *body)
{
    dlq_buf_reset (body);
    dlq_buf_append (body, s->filters.data, s->filters.len);
    const char *comma = s->filters.len > 1 ? "," : "";
    if (!s->bounded) {
        char before [DLQ_TIME_ISO_LEN + 1];
        dlq_time_format_iso (dlq_time_now_ms () + DLQ_EVENT_STREAM_SKEW_MS, before);
        dlq_buf_printf (body, "%s\"createdBefore\":\"%s\"", comma, before);
        comma = ",";
    }
    dlq_buf_printf (body, "%s\"limit\":%d}", comma, DLQ_EVENT_STREAM_PAGE);
}

static bool
was_seen (const dlq_event_stream_t *s, const dlq_json_value_t *id)
{
    for (size_t i = 0; id && id->type == DLQ_JSON_STRING && i < s->seen_count; i++)
        if (strlen (s->seen [i]) == id->len && memcmp (s->seen [i], id->str, id->len) == 0)
            return true;
    return false;
}

/* The createdAt of a LIST item ("" when it has none). */
static const char *
created_at (const dlq_json_value_t *e, size_t *len)
{
    const dlq_json_value_t *v = dlq_json_get (e, "createdAt");
    *len = v && v->type == DLQ_JSON_STRING ? v->len : 0;
    return *len ? v->str : "";
}

/* A LIST's reply: what it has that the last page had not, oldest first,
 * into pending (first: only remember the page); the page becomes the one
 * seen. When the last page was full, an event older than its oldest is
 * not new but back in sight (one above it went: expired, say). */
static void
take_page (dlq_event_stream_t *s, const dlq_buf_t *reply, bool first)
{
    dlq_json_doc_t *doc = NULL;
    if (dlq_json_parse (reply->data, reply->len, &doc, NULL) != DLQ_JSON_OK)
        return;
    const dlq_json_value_t *events = dlq_json_get (dlq_json_root (doc), "events");
    const dlq_json_value_t *page [DLQ_EVENT_STREAM_PAGE];
    bool fresh [DLQ_EVENT_STREAM_PAGE];
    size_t n = 0, fresh_count = 0, oldest_len = 0;
    for (const dlq_json_value_t *e = events ? events->child : NULL; e && n < DLQ_EVENT_STREAM_PAGE; e = e->next) {
        size_t len;
        const char *at = created_at (e, &len);
        bool back = s->seen_count == DLQ_EVENT_STREAM_PAGE
                 && (len < strlen (s->oldest) || (len == strlen (s->oldest) && memcmp (at, s->oldest, len) < 0));
        fresh [n] = !was_seen (s, dlq_json_get (e, "id")) && !back;
        fresh_count += fresh [n];
        page [n++] = e;
    }
    for (size_t i = n; !first && i-- > 0; ) {
        if (!fresh [i])
            continue;
        const dlq_json_value_t *id = dlq_json_get (page [i], "id");
        dlq_buf_puts (&s->pending, "event: failure\n");
        if (id && id->type == DLQ_JSON_STRING)
            dlq_buf_printf (&s->pending, "id: %.*s\n", (int) (id->len < ID_MAX ? id->len : ID_MAX), id->str);
        dlq_buf_puts (&s->pending, "data: ");
        dlq_json_write (&s->pending, page [i]);
        dlq_buf_puts (&s->pending, "\n\n");
    }
    if (!first && fresh_count == DLQ_EVENT_STREAM_PAGE)
        dlq_buf_printf (&s->pending, "event: overflow\ndata: {\"sent\":%d}\n\n", DLQ_EVENT_STREAM_PAGE);
    s->seen_count = 0;
    s->oldest [0] = '\0';
    if (n) {
        const char *at = created_at (page [n - 1], &oldest_len);
        snprintf (s->oldest, sizeof s->oldest, "%.*s", (int) oldest_len, at);
    }
    for (size_t i = 0; i < n; i++) {
        const dlq_json_value_t *id = dlq_json_get (page [i], "id");
        if (id && id->type == DLQ_JSON_STRING && id->len < ID_MAX) {
            memcpy (s->seen [s->seen_count], id->str, id->len);
            s->seen [s->seen_count++][id->len] = '\0';
        }
    }
    dlq_json_doc_destroy (&doc);
}

/* LIST the newest page: its news into pending; a refusal ends the stream. */
static unsigned
list (dlq_event_stream_t *s, bool first, dlq_buf_t *reply)
{
    dlq_buf_t body = DLQ_BUF_INIT;
    list_body (s, &body);
    unsigned status = dlq_api_handler_call (s->owner->api, DLQ_VERB_LIST, body.data, body.len, s->authorization,
                                            reply);
    dlq_buf_free (&body);
    s->listed_ms = dlq_time_mono_ms ();
    s->woken = false;
    if (status == 200)
        take_page (s, reply, first);
    else
    if (!first && status != 503) {              /* 503: the gateway busy or going; the next look tells */
        dlq_buf_puts (&s->pending, "event: error\ndata: ");
        dlq_buf_append (&s->pending, reply->data, reply->len);
        dlq_buf_puts (&s->pending, "\n\n");
        s->over = true;
    }
    return status;
}

dlq_event_stream_t *
dlq_event_stream_open (dlq_event_streams_t *self, const dlq_api_param_t *params, size_t param_count,
                       const char *authorization, int client_fd, unsigned *status, dlq_buf_t *out)
{
    if (atomic_fetch_add (&self->open, 1) >= DLQ_EVENT_STREAM_MAX) {
        atomic_fetch_sub (&self->open, 1);
        refuse (status, 503, out, DLQ_ERR_UNAVAILABLE, "too many event streams open (at most 32): try again later");
        return NULL;
    }
    dlq_event_stream_t *s = dlq_calloc (1, sizeof *s);
    s->owner = self;
    s->client = client_fd;
    s->authorization = authorization ? dlq_strdup (authorization) : NULL;
    if (!list_filters (s, params, param_count, status, out) || (*status = list (s, true, out)) != 200) {
        dlq_event_stream_close (&s);
        return NULL;
    }
    s->tip = zmq_socket (self->ctx, ZMQ_SUB);
    int linger = 0;
    zmq_setsockopt (s->tip, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt (s->tip, ZMQ_SUBSCRIBE, "", 0);
    zmq_connect (s->tip, self->tip_endpoint);
    dlq_buf_printf (&s->pending, "retry: %d\n: new failures as they are stored (docs/api.md, Live events)\n\n",
                    DLQ_EVENT_STREAM_RETRY_MS);
    s->wrote_ms = dlq_time_mono_ms ();
    return s;
}

/* Has the client closed its end (a read finds the end of the stream)?
 * Bytes it sent after its request are left for libmicrohttpd, and the
 * socket no longer watched (it would stay readable). */
static bool
client_gone (dlq_event_stream_t *s, short revents)
{
    if (revents & (ZMQ_POLLERR))
        return true;
    char c;
    ssize_t n = recv (s->client, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n > 0)
        s->client = -1;
    return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

/* Wait for the tip, or the client's end, at most wait_ms; drain what came.
 * A client gone ends the stream (its slot is free at once, not at the
 * next write that fails). */
static void
wait_tip (dlq_event_stream_t *s, int64_t wait_ms)
{
    zmq_pollitem_t items [2] = { { s->tip, 0, ZMQ_POLLIN, 0 }, { NULL, s->client, ZMQ_POLLIN, 0 } };
    if (zmq_poll (items, s->client >= 0 ? 2 : 1, (long) wait_ms) <= 0)
        return;
    if (s->client >= 0 && items [1].revents && client_gone (s, items [1].revents))
        s->over = true;
    char seq [16];
    while (zmq_recv (s->tip, seq, sizeof seq, ZMQ_DONTWAIT) >= 0)
        s->woken = true;
}

ssize_t
dlq_event_stream_read (dlq_event_stream_t *s, char *buf, size_t max)
{
    dlq_buf_t reply = DLQ_BUF_INIT;
    while (s->sent == s->pending.len && !s->over && !dlq_api_handler_closed (s->owner->api)) {
        dlq_buf_reset (&s->pending);
        s->sent = 0;
        int64_t now = dlq_time_mono_ms ();
        int64_t since = now - s->listed_ms;
        if ((s->woken && since >= DLQ_EVENT_STREAM_MIN_GAP_MS) || since >= DLQ_EVENT_STREAM_CHECK_MS)
            list (s, false, &reply);
        else
        if (now - s->wrote_ms >= DLQ_EVENT_STREAM_KEEPALIVE_MS)
            dlq_buf_puts (&s->pending, ": keepalive\n\n");
        else {
            int64_t wait = s->woken ? DLQ_EVENT_STREAM_MIN_GAP_MS - since : WAIT_SLICE_MS;
            wait_tip (s, wait < 1 ? 1 : wait > WAIT_SLICE_MS ? WAIT_SLICE_MS : wait);
        }
    }
    dlq_buf_free (&reply);
    if (s->sent == s->pending.len)
        return -1;
    size_t n = s->pending.len - s->sent < max ? s->pending.len - s->sent : max;
    memcpy (buf, s->pending.data + s->sent, n);
    s->sent += n;
    s->wrote_ms = dlq_time_mono_ms ();
    return (ssize_t) n;
}

void
dlq_event_stream_close (dlq_event_stream_t **stream_p)
{
    if (!stream_p || !*stream_p)
        return;
    dlq_event_stream_t *s = *stream_p;
    if (s->tip)
        zmq_close (s->tip);
    atomic_fetch_sub (&s->owner->open, 1);
    free (s->authorization);
    dlq_buf_free (&s->filters);
    dlq_buf_free (&s->pending);
    free (s);
    *stream_p = NULL;
}
