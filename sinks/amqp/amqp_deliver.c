/*  amqp_deliver — deliver of the amqp sink: publish a batch under a window
 *  of publisher confirms and classify each event by what the broker said.
 *
 *  With confirm_mode (the default) up to confirm_window publishes wait for
 *  their confirm at once; the broker's basic.ack (one tag, or every tag up
 *  to it with `multiple`) makes events OK, basic.nack makes them RETRY.
 *  A channel or connection closed by the broker, a lost connection, or no
 *  confirm for confirm_timeout_ms makes every unconfirmed event of the call
 *  RETRY (the connection is dropped, so no late confirm can be mistaken
 *  for a later publish's). A mandatory message no queue takes comes back
 *  (basic.return, before its ack): it is counted ("returned"), logged at
 *  WARN once per call, and is OK (on_return = "log", as flowwarden-amqp) or
 *  RETRY (on_return = "retry").
 *
 *  Without confirm_mode every published event is OK once written to the
 *  socket (fire-and-forget: a broker crash can lose what it had not yet
 *  stored); frames the broker sent are read without waiting, and a
 *  channel or connection the broker closed during the call makes the
 *  call's events RETRY rather than assumed delivered.
 *
 *  A broker that stops reading cannot hold a call forever: each publish
 *  waits for the socket to take data no longer than the confirm deadline.
 *
 *  Before publishing, each exchange is declared or checked (passive
 *  declare) once per connection: events for an exchange that does not
 *  exist are RETRY ("exchange X: 404 NOT_FOUND ...") without spoiling the
 *  channel for the other events. A routing key over 255 bytes is FAIL.
 */
#include "amqp_sink.h"

#include "amqp_format.h"
#include "dlq_alloc.h"
#include "sink_outcome.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#define MISSING_MAX 16          /* exchanges found missing in one call, remembered */

typedef enum {
    FRAME_OK,                   /* read and handled one frame */
    FRAME_TIMEOUT,              /* nothing before the deadline */
    FRAME_BROKEN                /* the channel or connection is gone: err says why */
} frame_result_t;

/* One deliver call. */
typedef struct {
    dlq_amqp_sink_t        *self;
    const dlq_sink_event_t *events;
    size_t                  count;
    dlq_sink_outcome_t     *outcomes;
    int64_t                 deadline;       /* the gateway's */
    int64_t                 last_progress;  /* mono ms of the last confirm (or the first publish) */
    char                    err [DLQ_AMQP_ERR_LEN];
    char                    first_return [DLQ_AMQP_ERR_LEN + 64];
} call_t;

static void
set_outcome (call_t *call, size_t i, dlq_sink_result_t result, const char *fmt, ...)
    __attribute__ ((format (printf, 4, 5)));

static void
set_outcome (call_t *call, size_t i, dlq_sink_result_t result, const char *fmt, ...)
{
    va_list args;
    va_start (args, fmt);
    dlq_sink_outcome_vset (&call->outcomes [i], result, fmt, args);
    va_end (args);
    call->self->pending [i].state = DLQ_AMQP_DONE;
}

/* Every event without an outcome yet is RETRY because of why. */
static void
retry_the_rest (call_t *call, const char *why)
{
    dlq_amqp_sink_t *self = call->self;
    uint64_t unconfirmed = 0;
    for (size_t i = 0; i < call->count; i++) {
        dlq_amqp_state_t state = self->pending [i].state;
        if (state == DLQ_AMQP_SENT && self->confirm)
            unconfirmed++;
        if (state == DLQ_AMQP_UNSENT || state == DLQ_AMQP_SENT)
            set_outcome (call, i, DLQ_SINK_RETRY, "%s%s",
                         state == DLQ_AMQP_SENT ? "unconfirmed: " : "", why);
    }
    self->outstanding = 0;
    if (unconfirmed)
        self->host->count (self->config, "unconfirmed", unconfirmed);
}

/* ---- frames ------------------------------------------------------------------ */

static amqp_bytes_t
bytes_of (const char *s)
{
    return (amqp_bytes_t) { .len = strlen (s), .bytes = (void *) s };
}

/* The publish k of the call, by its delivery tag; false when not ours. */
static bool
publish_of_tag (const dlq_amqp_sink_t *self, uint64_t tag, uint32_t *k)
{
    if (tag < self->first_tag || tag - self->first_tag >= self->published)
        return false;
    *k = (uint32_t) (tag - self->first_tag);
    return true;
}

/* Settle publish k as the broker said (ack: true). */
static void
confirm_one (call_t *call, uint32_t k, bool ack)
{
    dlq_amqp_sink_t *self = call->self;
    uint32_t i = self->by_tag [k];
    if (self->pending [i].state != DLQ_AMQP_SENT)
        return;
    self->outstanding--;
    if (ack)
        self->pending [i].state = DLQ_AMQP_ACKED;
    else {
        set_outcome (call, i, DLQ_SINK_RETRY, "the broker NACKed it (not stored)");
        self->host->count (self->config, "nacked", 1);
    }
}

static void
on_confirm (call_t *call, uint64_t tag, bool multiple, bool ack)
{
    dlq_amqp_sink_t *self = call->self;
    uint32_t k;
    if (multiple) {
        uint32_t last = self->published - 1;    /* tag 0 with multiple: all of them */
        if (tag != 0 && !publish_of_tag (self, tag, &last))
            return;
        for (k = self->oldest; k <= last; k++)
            confirm_one (call, k, ack);
    }
    else if (publish_of_tag (self, tag, &k))
        confirm_one (call, k, ack);
    while (self->oldest < self->published && self->pending [self->by_tag [self->oldest]].state != DLQ_AMQP_SENT)
        self->oldest++;
    call->last_progress = self->host->mono_ms ();
}

/* The event of the call published with this message id, or -1. Returns
 * come in publish order, so the search starts at the oldest unconfirmed. */
static long
event_of_message (const call_t *call, amqp_bytes_t id)
{
    const dlq_amqp_sink_t *self = call->self;
    for (uint32_t k = self->oldest; k < self->published; k++) {
        const char *event_id = call->events [self->by_tag [k]].id;
        if (strlen (event_id) == id.len && memcmp (event_id, id.bytes, id.len) == 0)
            return (long) self->by_tag [k];
    }
    return -1;
}

/* basic.return: read the returned message that follows and mark its event. */
static frame_result_t
on_return (call_t *call, const amqp_basic_return_t *ret)
{
    dlq_amqp_sink_t *self = call->self;
    char why [DLQ_AMQP_ERR_LEN];
    snprintf (why, sizeof why, "returned by the broker: %u %.*s (exchange \"%.*s\", routing key \"%.*s\")",
              (unsigned) ret->reply_code, (int) ret->reply_text.len, (const char *) ret->reply_text.bytes,
              (int) ret->exchange.len, (const char *) ret->exchange.bytes,
              (int) ret->routing_key.len, (const char *) ret->routing_key.bytes);
    amqp_message_t message;
    amqp_rpc_reply_t reply = amqp_read_message (dlq_amqp_conn_state (self->conn), DLQ_AMQP_CHANNEL, &message, 0);
    if (reply.reply_type != AMQP_RESPONSE_NORMAL) {
        snprintf (call->err, sizeof call->err, "reading a returned message failed");
        dlq_amqp_conn_close (self->conn);
        return FRAME_BROKEN;
    }
    long i = -1;
    if (message.properties._flags & AMQP_BASIC_MESSAGE_ID_FLAG)
        i = event_of_message (call, message.properties.message_id);
    amqp_destroy_message (&message);
    self->host->count (self->config, "returned", 1);
    if (!call->first_return [0])
        snprintf (call->first_return, sizeof call->first_return, "%s%s%s", why, i >= 0 ? ", id " : "",
                  i >= 0 ? call->events [i].id : "");
    self->returns++;
    if (i >= 0 && self->pending [i].state == DLQ_AMQP_SENT) {
        self->pending [i].returned = true;
        snprintf (call->outcomes [i].message, sizeof call->outcomes [i].message, "%s", why);
    }
    return FRAME_OK;
}

/* A method the broker sent on our channel or on channel 0. */
static frame_result_t
on_method (call_t *call, const amqp_frame_t *frame)
{
    dlq_amqp_sink_t *self = call->self;
    const amqp_method_t *method = &frame->payload.method;
    switch (method->id) {
        case AMQP_BASIC_ACK_METHOD: {
            const amqp_basic_ack_t *ack = method->decoded;
            on_confirm (call, ack->delivery_tag, ack->multiple, true);
            return FRAME_OK;
        }
        case AMQP_BASIC_NACK_METHOD: {
            const amqp_basic_nack_t *nack = method->decoded;
            on_confirm (call, nack->delivery_tag, nack->multiple, false);
            return FRAME_OK;
        }
        case AMQP_BASIC_RETURN_METHOD:
            return on_return (call, method->decoded);
        case AMQP_CHANNEL_CLOSE_METHOD: {
            const amqp_channel_close_t *close = method->decoded;
            snprintf (call->err, sizeof call->err, "the broker closed the channel: %u %.*s",
                      (unsigned) close->reply_code, (int) close->reply_text.len, (const char *) close->reply_text.bytes);
            char reopen [DLQ_AMQP_ERR_LEN];
            dlq_amqp_conn_channel_closed (self->conn, self->host->mono_ms () + self->conn_settings.connect_timeout_ms,
                                          reopen, sizeof reopen);
            return FRAME_BROKEN;
        }
        case AMQP_CONNECTION_CLOSE_METHOD: {
            const amqp_connection_close_t *close = method->decoded;
            snprintf (call->err, sizeof call->err, "the broker closed the connection: %u %.*s",
                      (unsigned) close->reply_code, (int) close->reply_text.len, (const char *) close->reply_text.bytes);
            dlq_amqp_conn_connection_closed (self->conn);
            return FRAME_BROKEN;
        }
        case AMQP_CONNECTION_BLOCKED_METHOD: {
            const amqp_connection_blocked_t *blocked = method->decoded;
            self->blocked = true;
            snprintf (self->blocked_reason, sizeof self->blocked_reason, "%.*s",
                      (int) blocked->reason.len, (const char *) blocked->reason.bytes);
            self->host->log (self->config, DLQ_SINK_LOG_WARN, "the broker blocks publishing: %s", self->blocked_reason);
            return FRAME_OK;
        }
        case AMQP_CONNECTION_UNBLOCKED_METHOD:
            self->blocked = false;
            self->host->log (self->config, DLQ_SINK_LOG_INFO, "the broker unblocked publishing");
            return FRAME_OK;
        default:
            return FRAME_OK;
    }
}

/* Wait for one frame until wait_deadline (mono ms; already passed: only
 * what is there) and handle it. */
static frame_result_t
read_frame (call_t *call, int64_t wait_deadline)
{
    dlq_amqp_sink_t *self = call->self;
    amqp_connection_state_t state = dlq_amqp_conn_state (self->conn);
    int64_t left = wait_deadline - self->host->mono_ms ();
    if (left < 0)
        left = 0;
    struct timeval tv = { .tv_sec = left / 1000, .tv_usec = (left % 1000) * 1000 };
    amqp_frame_t frame;
    int status = amqp_simple_wait_frame_noblock (state, &frame, &tv);
    if (status == AMQP_STATUS_TIMEOUT)
        return FRAME_TIMEOUT;
    if (status != AMQP_STATUS_OK) {
        dlq_amqp_conn_describe_status (status, "connection lost", call->err, sizeof call->err);
        dlq_amqp_conn_close (self->conn);
        return FRAME_BROKEN;
    }
    frame_result_t result = FRAME_OK;
    if (frame.frame_type == AMQP_FRAME_METHOD)
        result = on_method (call, &frame);
    if (dlq_amqp_conn_is_open (self->conn))
        amqp_maybe_release_buffers (dlq_amqp_conn_state (self->conn));
    return result;
}

/* Handle every frame already there, without waiting. */
static frame_result_t
read_ready_frames (call_t *call)
{
    frame_result_t result;
    while ((result = read_frame (call, 0)) == FRAME_OK)
        ;
    return result == FRAME_TIMEOUT ? FRAME_OK : result;
}

/* When a confirm must have come by. */
static int64_t
confirm_deadline (const call_t *call)
{
    int64_t by = call->last_progress + call->self->confirm_timeout_ms;
    return by < call->deadline ? by : call->deadline;
}

/* Wait for a confirm (or anything) until the confirm deadline; false
 * (every unsettled event RETRY) when none came or the channel broke. */
static bool
await_progress (call_t *call)
{
    dlq_amqp_sink_t *self = call->self;
    frame_result_t result = read_frame (call, confirm_deadline (call));
    if (result == FRAME_OK)
        result = read_ready_frames (call);
    if (result == FRAME_OK)
        return true;
    if (result == FRAME_TIMEOUT) {
        snprintf (call->err, sizeof call->err, "%s", self->blocked
                  ? "the broker blocks publishing" : "no confirm from the broker in time");
        if (self->blocked)
            snprintf (call->err + strlen (call->err), sizeof call->err - strlen (call->err), " (%s)",
                      self->blocked_reason);
        dlq_amqp_conn_close (self->conn);   /* no late confirm may be taken for another publish's */
    }
    retry_the_rest (call, call->err);
    return false;
}

/* ---- before publishing -------------------------------------------------------- */

/* Connect when needed; an open connection first reads what the broker
 * sent meanwhile (a close after idling, heartbeats). */
static bool
ensure_connected (call_t *call)
{
    dlq_amqp_sink_t *self = call->self;
    if (dlq_amqp_conn_is_open (self->conn) && read_ready_frames (call) != FRAME_OK)
        self->host->log (self->config, DLQ_SINK_LOG_INFO, "reconnecting: %s", call->err);
    if (dlq_amqp_sink_connect (self, call->deadline, call->err, sizeof call->err) == DLQ_AMQP_CONN_OK)
        return true;
    retry_the_rest (call, call->err);
    return false;
}

typedef struct {
    const char *exchange;
    char        why [DLQ_AMQP_ERR_LEN];
} missing_t;

/* Resolve each event's route and check its exchange: events that cannot
 * go are settled now. False when the connection broke. */
static bool
route_events (call_t *call)
{
    dlq_amqp_sink_t *self = call->self;
    missing_t missing [MISSING_MAX];
    size_t missing_count = 0;
    for (size_t i = 0; i < call->count; i++) {
        const dlq_amqp_route_t *route = dlq_amqp_routes_get (self->routes, call->events [i].stream_name);
        self->pending [i].route = route;
        if (!route->valid) {
            set_outcome (call, i, DLQ_SINK_FAIL, "the routing key of stream %s is longer than %d bytes",
                         call->events [i].stream_name, DLQ_AMQP_SHORTSTR_MAX);
            continue;
        }
        size_t m = 0;
        while (m < missing_count && strcmp (missing [m].exchange, route->exchange) != 0)
            m++;
        if (m < missing_count) {
            set_outcome (call, i, DLQ_SINK_RETRY, "%s", missing [m].why);
            continue;
        }
        char why [DLQ_AMQP_ERR_LEN];
        switch (dlq_amqp_conn_exchange (self->conn, route->exchange, self->declare_exchange, self->exchange_type,
                                        call->deadline, why, sizeof why)) {
            case DLQ_AMQP_CONN_OK:
                break;
            case DLQ_AMQP_CONN_REFUSED:
                set_outcome (call, i, DLQ_SINK_RETRY, "%s", why);
                if (missing_count < MISSING_MAX) {
                    missing [missing_count].exchange = route->exchange;
                    snprintf (missing [missing_count++].why, sizeof missing [0].why, "%s", why);
                }
                break;
            case DLQ_AMQP_CONN_DOWN:
            default:
                snprintf (call->err, sizeof call->err, "%s", why);
                retry_the_rest (call, why);
                return false;
        }
    }
    return true;
}

/* ---- publishing ------------------------------------------------------------------ */

static void
begin_call (dlq_amqp_sink_t *self, size_t count)
{
    if (count > self->capacity) {
        self->pending = dlq_realloc (self->pending, count * sizeof *self->pending);
        self->by_tag = dlq_realloc (self->by_tag, count * sizeof *self->by_tag);
        self->capacity = count;
    }
    memset (self->pending, 0, count * sizeof *self->pending);
    self->first_tag = 0;
    self->published = 0;
    self->oldest = 0;
    self->outstanding = 0;
    self->returns = 0;
}

/* rabbitmq-c writes a publish with no time limit: a broker that stopped
 * reading (hung, or blocking us before we heard of it) would hold the
 * call forever once the socket's buffer is full. So the socket must take
 * data before the confirm deadline; false (the rest RETRY, the connection
 * dropped) when it does not. */
static bool
await_writable (call_t *call)
{
    dlq_amqp_sink_t *self = call->self;
    struct pollfd pfd = { .fd = amqp_get_sockfd (dlq_amqp_conn_state (self->conn)), .events = POLLOUT };
    int64_t by = self->confirm ? confirm_deadline (call) : call->deadline;
    for (;;) {
        int64_t left = by - self->host->mono_ms ();
        int ready = poll (&pfd, 1, left > 0 ? (int) left : 0);
        if (ready > 0)
            return true;
        if (ready < 0 && errno == EINTR)
            continue;
        snprintf (call->err, sizeof call->err, "the broker stopped reading (its socket takes no data)");
        dlq_amqp_conn_close (self->conn);
        retry_the_rest (call, call->err);
        return false;
    }
}

/* Publish event i; false (the rest RETRY) when the connection broke. */
static bool
publish (call_t *call, size_t i)
{
    dlq_amqp_sink_t *self = call->self;
    if (!await_writable (call))
        return false;
    const dlq_amqp_route_t *route = self->pending [i].route;
    dlq_amqp_message_t message;
    dlq_amqp_message_format (&message, &call->events [i]);
    int status = amqp_basic_publish (dlq_amqp_conn_state (self->conn), DLQ_AMQP_CHANNEL, bytes_of (route->exchange),
                                     bytes_of (route->routing_key), route->mandatory, 0, &message.props, message.body);
    if (status != AMQP_STATUS_OK) {
        dlq_amqp_conn_describe_status (status, "publish failed", call->err, sizeof call->err);
        dlq_amqp_conn_close (self->conn);
        retry_the_rest (call, call->err);
        return false;
    }
    uint64_t tag = dlq_amqp_conn_next_tag (self->conn);
    if (self->published == 0) {
        self->first_tag = tag;
        call->last_progress = self->host->mono_ms ();
    }
    self->by_tag [self->published++] = (uint32_t) i;
    self->pending [i].state = DLQ_AMQP_SENT;
    self->outstanding++;
    return true;
}

/* Fire-and-forget: wait while the broker blocks us, until the deadline. */
static bool
await_unblocked (call_t *call)
{
    while (call->self->blocked) {
        frame_result_t result = read_frame (call, call->deadline);
        if (result != FRAME_OK) {
            if (result == FRAME_TIMEOUT)
                snprintf (call->err, sizeof call->err, "the broker blocks publishing (%s)",
                          call->self->blocked_reason);
            retry_the_rest (call, call->err);
            return false;
        }
    }
    return true;
}

static bool
publish_all (call_t *call)
{
    dlq_amqp_sink_t *self = call->self;
    for (size_t i = 0; i < call->count; i++) {
        if (self->pending [i].state != DLQ_AMQP_UNSENT)
            continue;
        if (self->confirm) {
            while (self->outstanding >= self->window || self->blocked)
                if (!await_progress (call))
                    return false;
        }
        else if (!await_unblocked (call))
            return false;
        if (!publish (call, i))
            return false;
    }
    return true;
}

/* The outcome of every published event, once the broker had its say. */
static void
settle_published (call_t *call)
{
    dlq_amqp_sink_t *self = call->self;
    for (size_t i = 0; i < call->count; i++) {
        dlq_amqp_pending_t *p = &self->pending [i];
        if (p->state != DLQ_AMQP_ACKED && p->state != DLQ_AMQP_SENT)
            continue;
        if (p->returned && self->return_retry)
            call->outcomes [i].result = DLQ_SINK_RETRY;     /* the message says why */
        else {
            call->outcomes [i].result = DLQ_SINK_OK;
            call->outcomes [i].message [0] = '\0';
        }
        p->state = DLQ_AMQP_DONE;
    }
    if (self->returns)
        self->host->log (self->config, DLQ_SINK_LOG_WARN, "%u message(s) %s; first: %s", self->returns,
                         self->return_retry ? "returned, to be retried" : "returned unroutable (kept as delivered)",
                         call->first_return);
}

void
dlq_amqp_sink_deliver (void *instance, const dlq_sink_event_t *events, size_t count,
                       dlq_sink_outcome_t *outcomes, int64_t deadline_mono_ms)
{
    dlq_amqp_sink_t *self = instance;
    call_t call = { .self = self, .events = events, .count = count, .outcomes = outcomes,
                    .deadline = deadline_mono_ms, .last_progress = self->host->mono_ms () };
    begin_call (self, count);
    if (!ensure_connected (&call) || !route_events (&call) || !publish_all (&call))
        return;
    if (self->confirm) {
        while (self->outstanding > 0)
            if (!await_progress (&call))
                return;
    }
    else if (read_ready_frames (&call) != FRAME_OK) {
        /* the broker closed something during the call: what it dropped is unknown */
        retry_the_rest (&call, call.err);
        return;
    }
    settle_published (&call);
}
