/*  amqp_consumer — an AMQP client for the tests, with rabbitmq-c.
 *
 *  Channel 1 carries the declarations, deletions and passive checks; each
 *  fetch opens channel 2, consumes with a prefetch of exactly the number of
 *  messages it wants (so the server never hands over more), cancels, acks
 *  them all at once and closes the channel, which gives back to the queue
 *  whatever else was in flight. A server-side channel error (a queue that
 *  does not exist) is answered and the channel reopened; a connection-level
 *  one marks the consumer broken.
 */
#include "amqp_consumer.h"
#include "dlq_alloc.h"
#include "dlq_time.h"
#include "test_support.h"

#include <amqp.h>
#include <amqp_tcp_socket.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONTROL_CHANNEL 1
#define FETCH_CHANNEL   2
#define WAIT_SECONDS    10          /* connect, log in, each request */
#define FRAME_MAX       131072

typedef struct {
    char  **names;
    size_t  count;
} name_list_t;

struct amqp_consumer {
    amqp_connection_state_t conn;
    bool                    broken;         /* the connection is unusable */
    bool                    control_open;
    bool                    fetch_open;
    name_list_t             queues;         /* declared by amqp_consumer_bind */
    name_list_t             exchanges;
};

#define complain(...) test_complain ("amqp_consumer", __VA_ARGS__)

/* A NUL-terminated copy of b. */
static char *
copy_bytes (amqp_bytes_t b)
{
    return dlq_strndup (b.bytes, b.len);
}

/* ------------------------------------------------------------------ */
/*  Names of what bind declared                                         */
/* ------------------------------------------------------------------ */

static void
remember (name_list_t *list, const char *name)
{
    for (size_t i = 0; i < list->count; i++)
        if (strcmp (list->names [i], name) == 0)
            return;
    list->names = dlq_realloc (list->names, (list->count + 1) * sizeof *list->names);
    list->names [list->count++] = dlq_strdup (name);
}

static void
forget_all (name_list_t *list)
{
    for (size_t i = 0; i < list->count; i++)
        free (list->names [i]);
    free (list->names);
    list->names = NULL;
    list->count = 0;
}

/* ------------------------------------------------------------------ */
/*  Replies and errors                                                  */
/* ------------------------------------------------------------------ */

static void
mark_channel_closed (amqp_consumer_t *c, amqp_channel_t channel)
{
    if (channel == CONTROL_CHANNEL)
        c->control_open = false;
    else if (channel == FETCH_CHANNEL)
        c->fetch_open = false;
}

/* The server closed the connection: answer, and give up on it. */
static void
connection_closed_by_server (amqp_consumer_t *c, const amqp_connection_close_t *m, const char *what)
{
    complain ("%s: the server closed the connection: %u %.*s", what, m->reply_code,
              (int) m->reply_text.len, (const char *) m->reply_text.bytes);
    amqp_connection_close_ok_t ok = { 0 };
    amqp_send_method (c->conn, 0, AMQP_CONNECTION_CLOSE_OK_METHOD, &ok);
    c->broken = true;
}

/* The server closed a channel: answer, so that it can be opened again. */
static void
channel_closed_by_server (amqp_consumer_t *c, amqp_channel_t channel,
                          const amqp_channel_close_t *m, const char *what, bool quiet_not_found)
{
    if (!(quiet_not_found && m->reply_code == AMQP_NOT_FOUND))
        complain ("%s: %u %.*s", what, m->reply_code,
                  (int) m->reply_text.len, (const char *) m->reply_text.bytes);
    amqp_channel_close_ok_t ok = { 0 };
    if (amqp_send_method (c->conn, channel, AMQP_CHANNEL_CLOSE_OK_METHOD, &ok) != AMQP_STATUS_OK)
        c->broken = true;
    mark_channel_closed (c, channel);
}

/* True when r is a normal reply; else say why (unless it is a 404 and
 * quiet_not_found) and clean up after the failure. */
static bool
reply_ok (amqp_consumer_t *c, amqp_rpc_reply_t r, amqp_channel_t channel, const char *what,
          bool quiet_not_found)
{
    switch (r.reply_type) {
    case AMQP_RESPONSE_NORMAL:
        return true;
    case AMQP_RESPONSE_NONE:
        complain ("%s: no reply from the server", what);
        c->broken = true;
        return false;
    case AMQP_RESPONSE_LIBRARY_EXCEPTION:
        complain ("%s: %s", what, amqp_error_string2 (r.library_error));
        c->broken = true;
        return false;
    case AMQP_RESPONSE_SERVER_EXCEPTION:
        if (r.reply.id == AMQP_CONNECTION_CLOSE_METHOD)
            connection_closed_by_server (c, r.reply.decoded, what);
        else if (r.reply.id == AMQP_CHANNEL_CLOSE_METHOD)
            channel_closed_by_server (c, channel, r.reply.decoded, what, quiet_not_found);
        else {
            complain ("%s: unexpected method 0x%08x from the server", what, r.reply.id);
            c->broken = true;
        }
        return false;
    }
    return false;
}

/* The reply of the last request (rabbitmq-c's generated RPC calls). */
static bool
last_reply_ok (amqp_consumer_t *c, amqp_channel_t channel, const char *what, bool quiet_not_found)
{
    return reply_ok (c, amqp_get_rpc_reply (c->conn), channel, what, quiet_not_found);
}

static bool
open_channel (amqp_consumer_t *c, amqp_channel_t channel)
{
    amqp_channel_open (c->conn, channel);
    return last_reply_ok (c, channel, "channel.open", false);
}

/* True when c can make a request on its control channel (reopened after
 * a channel error). */
static bool
usable (amqp_consumer_t *c)
{
    if (!c)
        return false;
    if (c->broken) {
        complain ("the connection was lost earlier: connect again");
        return false;
    }
    amqp_maybe_release_buffers (c->conn);
    if (!c->control_open)
        c->control_open = open_channel (c, CONTROL_CHANNEL);
    return c->control_open;
}

/* ------------------------------------------------------------------ */
/*  Connecting                                                          */
/* ------------------------------------------------------------------ */

static bool
log_in (amqp_consumer_t *c, struct amqp_connection_info *info)
{
    amqp_socket_t *socket = amqp_tcp_socket_new (c->conn);
    if (!socket) {
        complain ("cannot make a socket");
        return false;
    }
    struct timeval wait = { WAIT_SECONDS, 0 };
    amqp_set_handshake_timeout (c->conn, &wait);
    amqp_set_rpc_timeout (c->conn, &wait);
    int status = amqp_socket_open_noblock (socket, info->host, info->port, &wait);
    if (status != AMQP_STATUS_OK) {
        complain ("cannot connect to %s:%d: %s", info->host, info->port,
                  amqp_error_string2 (status));
        return false;
    }
    const char *vhost = info->vhost [0] ? info->vhost : "/";
    /* without this capability the server cancels a consumer (its queue
     * deleted) silently, and a fetch would wait out its timeout */
    amqp_table_entry_t capability = {
        .key = amqp_cstring_bytes ("consumer_cancel_notify"),
        .value = { .kind = AMQP_FIELD_KIND_BOOLEAN, .value.boolean = 1 },
    };
    amqp_table_entry_t property = {
        .key = amqp_cstring_bytes ("capabilities"),
        .value = { .kind = AMQP_FIELD_KIND_TABLE,
                   .value.table = { .num_entries = 1, .entries = &capability } },
    };
    amqp_table_t properties = { .num_entries = 1, .entries = &property };
    amqp_rpc_reply_t r = amqp_login_with_properties (c->conn, vhost, 0, FRAME_MAX, 0, &properties,
                                                     AMQP_SASL_METHOD_PLAIN, info->user,
                                                     info->password);
    char what [512];
    snprintf (what, sizeof what, "log in to %s:%d vhost '%s' as '%s'", info->host, info->port,
              vhost, info->user);
    return reply_ok (c, r, 0, what, false);
}

amqp_consumer_t *
amqp_consumer_connect (const char *url)
{
    char *parsed_url = dlq_strdup (url ? url : "");
    struct amqp_connection_info info;
    amqp_default_connection_info (&info);
    if (amqp_parse_url (parsed_url, &info) != AMQP_STATUS_OK) {
        complain ("bad URL '%s'", url ? url : "(null)");
        free (parsed_url);
        return NULL;
    }
    if (info.ssl) {
        complain ("amqps URLs are not supported: '%s'", url);
        free (parsed_url);
        return NULL;
    }
    amqp_consumer_t *c = dlq_calloc (1, sizeof *c);
    c->conn = amqp_new_connection ();
    bool ok = c->conn && log_in (c, &info);
    free (parsed_url);
    if (ok)
        c->control_open = open_channel (c, CONTROL_CHANNEL);
    if (!ok || !c->control_open) {
        c->broken = true;
        amqp_consumer_close (c);
        return NULL;
    }
    return c;
}

void
amqp_consumer_close (amqp_consumer_t *c)
{
    if (!c)
        return;
    if (c->conn) {
        if (!c->broken)
            amqp_connection_close (c->conn, AMQP_REPLY_SUCCESS);
        amqp_destroy_connection (c->conn);
    }
    forget_all (&c->queues);
    forget_all (&c->exchanges);
    free (c);
}

/* ------------------------------------------------------------------ */
/*  Declaring, binding, deleting                                        */
/* ------------------------------------------------------------------ */

static bool
declare_exchange (amqp_consumer_t *c, const char *exchange, const char *type)
{
    amqp_exchange_declare (c->conn, CONTROL_CHANNEL, amqp_cstring_bytes (exchange),
                           amqp_cstring_bytes (type), 0, 1, 0, 0, amqp_empty_table);
    char what [320];
    snprintf (what, sizeof what, "declare exchange '%s' (%s)", exchange, type);
    if (!last_reply_ok (c, CONTROL_CHANNEL, what, false))
        return false;
    remember (&c->exchanges, exchange);
    return true;
}

/* queue.declare of queue on the control channel: a durable queue, or
 * (passive) only a look at one that must exist (quietly when it does
 * not). The server's answer, or NULL when it refused. */
static amqp_queue_declare_ok_t *
queue_declare (amqp_consumer_t *c, const char *queue, bool passive, amqp_table_t arguments)
{
    amqp_queue_declare_ok_t *ok = amqp_queue_declare (c->conn, CONTROL_CHANNEL, amqp_cstring_bytes (queue),
                                                      passive, !passive, 0, 0, arguments);
    char what [320];
    snprintf (what, sizeof what, "%s '%s'", passive ? "passive declare of queue" : "declare queue", queue);
    return last_reply_ok (c, CONTROL_CHANNEL, what, passive) ? ok : NULL;
}

/* Declare queue (in/out: "" for a server-named one) with arguments. */
static bool
declare_queue (amqp_consumer_t *c, char *queue, size_t queue_len, amqp_table_t arguments)
{
    amqp_queue_declare_ok_t *ok = queue_declare (c, queue, false, arguments);
    if (!ok)
        return false;
    if (ok->queue.len + 1 > queue_len) {
        complain ("queue name '%.*s' longer than %zu bytes", (int) ok->queue.len,
                  (const char *) ok->queue.bytes, queue_len - 1);
        return false;
    }
    memcpy (queue, ok->queue.bytes, ok->queue.len);
    queue [ok->queue.len] = '\0';
    remember (&c->queues, queue);
    return true;
}

static bool
bind_queue (amqp_consumer_t *c, const char *queue, const char *exchange, const char *pattern)
{
    amqp_queue_bind (c->conn, CONTROL_CHANNEL, amqp_cstring_bytes (queue),
                     amqp_cstring_bytes (exchange), amqp_cstring_bytes (pattern), amqp_empty_table);
    char what [640];
    snprintf (what, sizeof what, "bind queue '%s' to exchange '%s' with '%s'", queue, exchange,
              pattern);
    return last_reply_ok (c, CONTROL_CHANNEL, what, false);
}

/* amqp_consumer_bind, the queue declared with arguments. */
static bool
bind_with_arguments (amqp_consumer_t *c, const char *exchange, const char *exchange_type,
                     const char *routing_key_pattern, amqp_table_t arguments, char *queue,
                     size_t queue_len)
{
    if (!queue || queue_len == 0 || !usable (c))
        return false;
    bool to_exchange = exchange && exchange [0];
    if (to_exchange && exchange_type && !declare_exchange (c, exchange, exchange_type))
        return false;
    if (!declare_queue (c, queue, queue_len, arguments))
        return false;
    return !to_exchange
        || bind_queue (c, queue, exchange, routing_key_pattern ? routing_key_pattern : "");
}

bool
amqp_consumer_bind (amqp_consumer_t *c, const char *exchange, const char *exchange_type,
                    const char *routing_key_pattern, char *queue, size_t queue_len)
{
    return bind_with_arguments (c, exchange, exchange_type, routing_key_pattern,
                                amqp_empty_table, queue, queue_len);
}

bool
amqp_consumer_bind_limited (amqp_consumer_t *c, const char *exchange, const char *exchange_type,
                            const char *routing_key_pattern, long max_length, char *queue,
                            size_t queue_len)
{
    if (max_length < 0) {
        complain ("bad queue length limit %ld", max_length);
        return false;
    }
    amqp_table_entry_t limits [] = {
        { .key = amqp_cstring_bytes ("x-max-length"),
          .value = { .kind = AMQP_FIELD_KIND_I64, .value.i64 = max_length } },
        { .key = amqp_cstring_bytes ("x-overflow"),
          .value = { .kind = AMQP_FIELD_KIND_UTF8,
                     .value.bytes = amqp_cstring_bytes ("reject-publish") } },
    };
    amqp_table_t arguments = { .num_entries = 2, .entries = limits };
    return bind_with_arguments (c, exchange, exchange_type, routing_key_pattern, arguments,
                                queue, queue_len);
}

long
amqp_consumer_queue_count (amqp_consumer_t *c, const char *queue)
{
    if (!usable (c))
        return -1;
    amqp_queue_declare_ok_t *ok = queue_declare (c, queue, true, amqp_empty_table);
    return ok ? (long) ok->message_count : -1;
}

bool
amqp_consumer_exchange_exists (amqp_consumer_t *c, const char *exchange)
{
    if (!usable (c))
        return false;
    amqp_exchange_declare (c->conn, CONTROL_CHANNEL, amqp_cstring_bytes (exchange),
                           amqp_cstring_bytes (""), 1, 0, 0, 0, amqp_empty_table);
    char what [320];
    snprintf (what, sizeof what, "passive declare of exchange '%s'", exchange);
    return last_reply_ok (c, CONTROL_CHANNEL, what, true);
}

/* A 404 on a delete means it is gone already. */
static bool
deleted (amqp_consumer_t *c, const char *what)
{
    amqp_rpc_reply_t r = amqp_get_rpc_reply (c->conn);
    if (reply_ok (c, r, CONTROL_CHANNEL, what, true))
        return true;
    return r.reply_type == AMQP_RESPONSE_SERVER_EXCEPTION
        && r.reply.id == AMQP_CHANNEL_CLOSE_METHOD
        && ((amqp_channel_close_t *) r.reply.decoded)->reply_code == AMQP_NOT_FOUND;
}

bool
amqp_consumer_delete_queue (amqp_consumer_t *c, const char *queue)
{
    if (!usable (c))
        return false;
    amqp_queue_delete (c->conn, CONTROL_CHANNEL, amqp_cstring_bytes (queue), 0, 0);
    char what [320];
    snprintf (what, sizeof what, "delete queue '%s'", queue);
    return deleted (c, what);
}

bool
amqp_consumer_delete_exchange (amqp_consumer_t *c, const char *exchange)
{
    if (!usable (c))
        return false;
    amqp_exchange_delete (c->conn, CONTROL_CHANNEL, amqp_cstring_bytes (exchange), 0);
    char what [320];
    snprintf (what, sizeof what, "delete exchange '%s'", exchange);
    return deleted (c, what);
}

bool
amqp_consumer_delete_declared (amqp_consumer_t *c)
{
    if (!c)
        return false;
    bool ok = true;
    for (size_t i = 0; i < c->queues.count; i++)
        ok = amqp_consumer_delete_queue (c, c->queues.names [i]) && ok;
    for (size_t i = 0; i < c->exchanges.count; i++)
        ok = amqp_consumer_delete_exchange (c, c->exchanges.names [i]) && ok;
    if (ok) {
        forget_all (&c->queues);
        forget_all (&c->exchanges);
    }
    return ok;
}

/* ------------------------------------------------------------------ */
/*  Received messages                                                   */
/* ------------------------------------------------------------------ */

static void
copy_field (amqp_received_header_t *h, const amqp_field_value_t *v)
{
    h->kind = (char) v->kind;
    switch (v->kind) {
    case AMQP_FIELD_KIND_BOOLEAN:   h->integer = v->value.boolean ? 1 : 0; break;
    case AMQP_FIELD_KIND_I8:        h->integer = v->value.i8; break;
    case AMQP_FIELD_KIND_U8:        h->integer = v->value.u8; break;
    case AMQP_FIELD_KIND_I16:       h->integer = v->value.i16; break;
    case AMQP_FIELD_KIND_U16:       h->integer = v->value.u16; break;
    case AMQP_FIELD_KIND_I32:       h->integer = v->value.i32; break;
    case AMQP_FIELD_KIND_U32:       h->integer = v->value.u32; break;
    case AMQP_FIELD_KIND_I64:       h->integer = v->value.i64; break;
    case AMQP_FIELD_KIND_U64:       h->integer = (int64_t) v->value.u64; break;
    case AMQP_FIELD_KIND_TIMESTAMP: h->integer = (int64_t) v->value.u64; break;
    case AMQP_FIELD_KIND_F32:       h->real = v->value.f32; return;
    case AMQP_FIELD_KIND_F64:       h->real = v->value.f64; return;
    case AMQP_FIELD_KIND_ARRAY:     h->integer = v->value.array.num_entries; return;
    case AMQP_FIELD_KIND_TABLE:     h->integer = v->value.table.num_entries; return;
    case AMQP_FIELD_KIND_DECIMAL: {
        h->integer = v->value.decimal.value;
        double scale = 1;
        for (unsigned i = 0; i < v->value.decimal.decimals; i++)
            scale *= 10;
        h->real = (double) v->value.decimal.value / scale;
        return;
    }
    case AMQP_FIELD_KIND_UTF8:
    case AMQP_FIELD_KIND_BYTES:
        h->string = copy_bytes (v->value.bytes);
        h->string_len = v->value.bytes.len;
        return;
    default:                        /* void, or a kind rabbitmq-c does not name */
        return;
    }
    h->real = (double) h->integer;  /* the integer kinds */
}

static void
copy_headers (amqp_received_message_t *m, const amqp_table_t *table)
{
    m->has_headers = true;
    m->header_count = (size_t) (table->num_entries > 0 ? table->num_entries : 0);
    m->headers = dlq_calloc (m->header_count, sizeof *m->headers);
    for (size_t i = 0; i < m->header_count; i++) {
        m->headers [i].name = copy_bytes (table->entries [i].key);
        copy_field (&m->headers [i], &table->entries [i].value);
    }
}

/* A copy of property flag of p, or NULL when it is absent. */
#define COPY_PROPERTY(p, flag, field) \
    (((p)->_flags & (flag)) ? copy_bytes ((p)->field) : NULL)

static void
copy_properties (amqp_received_message_t *m, const amqp_basic_properties_t *p)
{
    m->message_id = COPY_PROPERTY (p, AMQP_BASIC_MESSAGE_ID_FLAG, message_id);
    m->correlation_id = COPY_PROPERTY (p, AMQP_BASIC_CORRELATION_ID_FLAG, correlation_id);
    m->content_type = COPY_PROPERTY (p, AMQP_BASIC_CONTENT_TYPE_FLAG, content_type);
    m->content_encoding = COPY_PROPERTY (p, AMQP_BASIC_CONTENT_ENCODING_FLAG, content_encoding);
    m->type = COPY_PROPERTY (p, AMQP_BASIC_TYPE_FLAG, type);
    m->app_id = COPY_PROPERTY (p, AMQP_BASIC_APP_ID_FLAG, app_id);
    m->user_id = COPY_PROPERTY (p, AMQP_BASIC_USER_ID_FLAG, user_id);
    m->reply_to = COPY_PROPERTY (p, AMQP_BASIC_REPLY_TO_FLAG, reply_to);
    m->expiration = COPY_PROPERTY (p, AMQP_BASIC_EXPIRATION_FLAG, expiration);
    m->delivery_mode = (p->_flags & AMQP_BASIC_DELIVERY_MODE_FLAG) ? p->delivery_mode : 0;
    m->priority = (p->_flags & AMQP_BASIC_PRIORITY_FLAG) ? p->priority : -1;
    m->has_timestamp = (p->_flags & AMQP_BASIC_TIMESTAMP_FLAG) != 0;
    m->timestamp = m->has_timestamp ? p->timestamp : 0;
    if (p->_flags & AMQP_BASIC_HEADERS_FLAG)
        copy_headers (m, &p->headers);
}

static void
copy_envelope (amqp_received_message_t *m, const amqp_envelope_t *env)
{
    m->body = (unsigned char *) copy_bytes (env->message.body);
    m->body_len = env->message.body.len;
    m->exchange = copy_bytes (env->exchange);
    m->routing_key = copy_bytes (env->routing_key);
    m->redelivered = env->redelivered != 0;
    copy_properties (m, &env->message.properties);
}

static void
free_message (amqp_received_message_t *m)
{
    free (m->body);
    free (m->exchange);
    free (m->routing_key);
    free (m->message_id);
    free (m->correlation_id);
    free (m->content_type);
    free (m->content_encoding);
    free (m->type);
    free (m->app_id);
    free (m->user_id);
    free (m->reply_to);
    free (m->expiration);
    for (size_t i = 0; i < m->header_count; i++) {
        free (m->headers [i].name);
        free (m->headers [i].string);
    }
    free (m->headers);
}

void
amqp_messages_free (amqp_received_messages_t *list)
{
    if (!list)
        return;
    for (size_t i = 0; i < list->count; i++)
        free_message (&list->items [i]);
    free (list->items);
    list->items = NULL;
    list->count = 0;
}

const amqp_received_header_t *
amqp_message_header (const amqp_received_message_t *m, const char *name)
{
    for (size_t i = 0; m && i < m->header_count; i++)
        if (strcmp (m->headers [i].name, name) == 0)
            return &m->headers [i];
    return NULL;
}

/* ------------------------------------------------------------------ */
/*  Fetching                                                            */
/* ------------------------------------------------------------------ */

/* The time until deadline in *left; false when it has passed. */
static bool
time_left (int64_t deadline, struct timeval *left)
{
    int64_t ms = deadline - dlq_time_mono_ms ();
    if (ms <= 0)
        return false;
    left->tv_sec = (time_t) (ms / 1000);
    left->tv_usec = (suseconds_t) (ms % 1000 * 1000);
    return true;
}

/* A frame other than a delivery came while consuming: read it. False
 * when it ends the fetch (the channel or the connection closed, the
 * consumer cancelled by the server because the queue went away). */
static bool
other_frame (amqp_consumer_t *c, const char *queue)
{
    amqp_frame_t frame;
    int status = amqp_simple_wait_frame (c->conn, &frame);
    if (status != AMQP_STATUS_OK) {
        complain ("fetch from '%s': %s", queue, amqp_error_string2 (status));
        c->broken = true;
        return false;
    }
    if (frame.frame_type != AMQP_FRAME_METHOD)
        return true;                /* a stray content frame */
    char what [320];
    snprintf (what, sizeof what, "fetch from '%s'", queue);
    switch (frame.payload.method.id) {
    case AMQP_CONNECTION_CLOSE_METHOD:
        connection_closed_by_server (c, frame.payload.method.decoded, what);
        return false;
    case AMQP_CHANNEL_CLOSE_METHOD:
        channel_closed_by_server (c, frame.channel, frame.payload.method.decoded, what, false);
        return false;
    case AMQP_BASIC_CANCEL_METHOD:
        complain ("%s: the server cancelled the consumer (queue deleted?)", what);
        return false;
    default:
        return true;
    }
}

/* Take deliveries on the fetch channel into out until it holds max or the
 * deadline; *last_tag: the delivery tag of the last one. */
static bool
receive (amqp_consumer_t *c, const char *queue, size_t max, int timeout_ms,
         amqp_received_messages_t *out, uint64_t *last_tag)
{
    struct timeval left;
    int64_t deadline = dlq_time_mono_ms () + timeout_ms;
    while (out->count < max && time_left (deadline, &left)) {
        amqp_envelope_t env;
        amqp_maybe_release_buffers (c->conn);
        amqp_rpc_reply_t r = amqp_consume_message (c->conn, &env, &left, 0);
        if (r.reply_type == AMQP_RESPONSE_NORMAL) {
            if (env.channel == FETCH_CHANNEL) {
                copy_envelope (&out->items [out->count++], &env);
                *last_tag = env.delivery_tag;
                deadline = dlq_time_mono_ms () + timeout_ms;   /* the wait is for the next message */
            }
            amqp_destroy_envelope (&env);
            continue;
        }
        bool library_error = r.reply_type == AMQP_RESPONSE_LIBRARY_EXCEPTION;
        if (library_error && r.library_error == AMQP_STATUS_TIMEOUT)
            break;
        if (library_error && r.library_error == AMQP_STATUS_UNEXPECTED_STATE) {
            if (!other_frame (c, queue))
                return false;
            continue;
        }
        char what [320];
        snprintf (what, sizeof what, "fetch from '%s'", queue);
        return reply_ok (c, r, FETCH_CHANNEL, what, false);
    }
    return true;
}

/* Start a consumer on the fetch channel that gets at most max unacked
 * messages; its tag into *tag (amqp_bytes_free it). */
static bool
start_consuming (amqp_consumer_t *c, const char *queue, size_t max, amqp_bytes_t *tag)
{
    char what [320];
    amqp_basic_qos (c->conn, FETCH_CHANNEL, 0, (uint16_t) max, 0);
    if (!last_reply_ok (c, FETCH_CHANNEL, "basic.qos", false))
        return false;
    amqp_basic_consume_ok_t *ok = amqp_basic_consume (c->conn, FETCH_CHANNEL,
                                                      amqp_cstring_bytes (queue), amqp_empty_bytes,
                                                      0, 0, 0, amqp_empty_table);
    snprintf (what, sizeof what, "consume from queue '%s'", queue);
    if (!last_reply_ok (c, FETCH_CHANNEL, what, false))
        return false;
    *tag = amqp_bytes_malloc_dup (ok->consumer_tag);
    return tag->bytes != NULL;
}

/* Cancel the consumer, ack what was taken (all up to last_tag). */
static bool
finish_consuming (amqp_consumer_t *c, amqp_bytes_t tag, uint64_t last_tag)
{
    amqp_basic_cancel (c->conn, FETCH_CHANNEL, tag);
    if (!last_reply_ok (c, FETCH_CHANNEL, "basic.cancel", false))
        return false;
    if (last_tag && amqp_basic_ack (c->conn, FETCH_CHANNEL, last_tag, 1) != AMQP_STATUS_OK) {
        complain ("basic.ack failed");
        c->broken = true;
        return false;
    }
    return true;
}

/* Close the fetch channel (the server requeues what was delivered and not
 * acked), and drop the frames rabbitmq-c queued for it meanwhile. */
static void
close_fetch_channel (amqp_consumer_t *c)
{
    if (c->broken || !c->fetch_open)
        return;
    c->fetch_open = false;
    amqp_rpc_reply_t r = amqp_channel_close (c->conn, FETCH_CHANNEL, AMQP_REPLY_SUCCESS);
    reply_ok (c, r, FETCH_CHANNEL, "channel.close", false);
    while (!c->broken && amqp_frames_enqueued (c->conn)) {
        amqp_frame_t frame;
        if (amqp_simple_wait_frame (c->conn, &frame) != AMQP_STATUS_OK)
            c->broken = true;
    }
}

bool
amqp_consumer_fetch (amqp_consumer_t *c, const char *queue, size_t max, int timeout_ms,
                     amqp_received_messages_t *out)
{
    memset (out, 0, sizeof *out);
    if (!usable (c))
        return false;
    if (max > AMQP_CONSUMER_FETCH_MAX)
        max = AMQP_CONSUMER_FETCH_MAX;
    if (max == 0)
        return true;
    c->fetch_open = open_channel (c, FETCH_CHANNEL);
    if (!c->fetch_open)
        return false;
    out->items = dlq_calloc (max, sizeof *out->items);
    amqp_bytes_t tag = amqp_empty_bytes;
    uint64_t last_tag = 0;
    bool ok = start_consuming (c, queue, max, &tag)
        && receive (c, queue, max, timeout_ms > 0 ? timeout_ms : 0, out, &last_tag)
        && finish_consuming (c, tag, last_tag);
    close_fetch_channel (c);
    amqp_bytes_free (tag);
    if (!ok || c->broken) {
        amqp_messages_free (out);
        return false;
    }
    return true;
}
