/*  amqp_conn — one broker connection with one channel; see amqp_conn.h. */
#include "amqp_conn.h"

#include "dlq_alloc.h"

#include <amqp_ssl_socket.h>
#include <amqp_tcp_socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#define CLOSE_TIMEOUT_MS 1000       /* a polite close waits this long at most */
#define FRAME_MAX        AMQP_DEFAULT_FRAME_SIZE

struct dlq_amqp_conn {
    const dlq_amqp_conn_settings_t *settings;
    int64_t                 (*mono_ms) (void);
    amqp_connection_state_t state;      /* NULL when closed */
    char                  **exchanges;  /* checked on this connection */
    size_t                  exchange_count;
    uint64_t                published;  /* publishes since the channel opened */
};

dlq_amqp_conn_t *
dlq_amqp_conn_new (const dlq_amqp_conn_settings_t *settings, int64_t (*mono_ms) (void))
{
    dlq_amqp_conn_t *self = dlq_calloc (1, sizeof *self);
    self->settings = settings;
    self->mono_ms = mono_ms;
    return self;
}

static void
forget_exchanges (dlq_amqp_conn_t *self)
{
    for (size_t i = 0; i < self->exchange_count; i++)
        free (self->exchanges [i]);
    free (self->exchanges);
    self->exchanges = NULL;
    self->exchange_count = 0;
}

void
dlq_amqp_conn_destroy (dlq_amqp_conn_t **self_p)
{
    dlq_amqp_conn_t *self = *self_p;
    if (!self)
        return;
    dlq_amqp_conn_close (self);
    free (self);
    *self_p = NULL;
}

bool
dlq_amqp_conn_is_open (const dlq_amqp_conn_t *self)
{
    return self->state != NULL;
}

amqp_connection_state_t
dlq_amqp_conn_state (dlq_amqp_conn_t *self)
{
    return self->state;
}

/* ---- time and words ------------------------------------------------------ */

static struct timeval
until (const dlq_amqp_conn_t *self, int64_t deadline_mono_ms)
{
    int64_t left = deadline_mono_ms - self->mono_ms ();
    if (left < 1)
        left = 1;
    return (struct timeval) { .tv_sec = left / 1000, .tv_usec = (left % 1000) * 1000 };
}

/* The RPC timeout of the next calls. */
static void
set_rpc_deadline (dlq_amqp_conn_t *self, int64_t deadline_mono_ms)
{
    struct timeval tv = until (self, deadline_mono_ms);
    amqp_set_rpc_timeout (self->state, &tv);
}

void
dlq_amqp_conn_describe_status (int status, const char *what, char *err, size_t err_len)
{
    snprintf (err, err_len, "%s: %s", what, amqp_error_string2 (status));
}

static int
print_text (char *err, size_t err_len, const char *what, uint16_t code, amqp_bytes_t text)
{
    return snprintf (err, err_len, "%s: %u %.*s", what, (unsigned) code, (int) text.len, (const char *) text.bytes);
}

/* Describe a failed RPC reply; true when the broker refused (a channel or
 * connection close with a code), false for a library error (I/O). The
 * reply code is in *code (0 for a library error). */
static bool
describe_reply (amqp_rpc_reply_t reply, const char *what, char *err, size_t err_len, int *code)
{
    *code = 0;
    switch (reply.reply_type) {
        case AMQP_RESPONSE_NONE:
            snprintf (err, err_len, "%s: no reply from the broker", what);
            return false;
        case AMQP_RESPONSE_LIBRARY_EXCEPTION:
            dlq_amqp_conn_describe_status (reply.library_error, what, err, err_len);
            return false;
        case AMQP_RESPONSE_SERVER_EXCEPTION:
            if (reply.reply.id == AMQP_CONNECTION_CLOSE_METHOD) {
                const amqp_connection_close_t *close = reply.reply.decoded;
                *code = close->reply_code;
                print_text (err, err_len, what, close->reply_code, close->reply_text);
            }
            else if (reply.reply.id == AMQP_CHANNEL_CLOSE_METHOD) {
                const amqp_channel_close_t *close = reply.reply.decoded;
                *code = close->reply_code;
                print_text (err, err_len, what, close->reply_code, close->reply_text);
            }
            else
                snprintf (err, err_len, "%s: unexpected method 0x%08x", what, (unsigned) reply.reply.id);
            return true;
        case AMQP_RESPONSE_NORMAL:
        default:
            break;
    }
    return false;
}

/* ---- close ------------------------------------------------------------------ */

void
dlq_amqp_conn_close (dlq_amqp_conn_t *self)
{
    if (self->state) {
        set_rpc_deadline (self, self->mono_ms () + CLOSE_TIMEOUT_MS);
        amqp_connection_close (self->state, AMQP_REPLY_SUCCESS);
        amqp_destroy_connection (self->state);
        self->state = NULL;
    }
    forget_exchanges (self);
}

void
dlq_amqp_conn_connection_closed (dlq_amqp_conn_t *self)
{
    if (!self->state)
        return;
    amqp_connection_close_ok_t ok = { 0 };
    amqp_send_method (self->state, 0, AMQP_CONNECTION_CLOSE_OK_METHOD, &ok);
    amqp_destroy_connection (self->state);
    self->state = NULL;
    forget_exchanges (self);
}

/* ---- open ------------------------------------------------------------------- */

static amqp_table_entry_t
flag (const char *name)
{
    return (amqp_table_entry_t) {
        .key = amqp_cstring_bytes (name),
        .value = { .kind = AMQP_FIELD_KIND_BOOLEAN, .value.boolean = 1 }
    };
}

/* The socket, TLS or not; false with err when a TLS file is unusable. */
static bool
make_socket (dlq_amqp_conn_t *self, amqp_socket_t **socket_p, char *err, size_t err_len)
{
    const dlq_amqp_conn_settings_t *s = self->settings;
    if (!s->tls) {
        *socket_p = amqp_tcp_socket_new (self->state);
        if (!*socket_p)
            snprintf (err, err_len, "cannot make a TCP socket");
        return *socket_p != NULL;
    }
    amqp_socket_t *socket = amqp_ssl_socket_new (self->state);
    *socket_p = socket;
    if (!socket) {
        snprintf (err, err_len, "cannot make a TLS socket");
        return false;
    }
    amqp_ssl_socket_set_verify_peer (socket, s->tls_verify_peer);
    amqp_ssl_socket_set_verify_hostname (socket, s->tls_verify_hostname);
    int status;
    if (s->tls_ca_file && (status = amqp_ssl_socket_set_cacert (socket, s->tls_ca_file)) != AMQP_STATUS_OK) {
        snprintf (err, err_len, "tls_ca_file %s: %s", s->tls_ca_file, amqp_error_string2 (status));
        return false;
    }
    if (s->tls_cert_file
        && (status = amqp_ssl_socket_set_key (socket, s->tls_cert_file, s->tls_key_file)) != AMQP_STATUS_OK) {
        snprintf (err, err_len, "tls_cert_file %s / tls_key_file %s: %s", s->tls_cert_file,
                  s->tls_key_file ? s->tls_key_file : "(none)", amqp_error_string2 (status));
        return false;
    }
    return true;
}

/* Does the broker say it can confirm publishes? */
static bool
broker_confirms (amqp_connection_state_t state)
{
    const amqp_table_t *props = amqp_get_server_properties (state);
    for (int i = 0; props && i < props->num_entries; i++) {
        const amqp_table_entry_t *e = &props->entries [i];
        if (e->value.kind != AMQP_FIELD_KIND_TABLE || e->key.len != 12 || memcmp (e->key.bytes, "capabilities", 12))
            continue;
        const amqp_table_t *caps = &e->value.value.table;
        for (int k = 0; k < caps->num_entries; k++) {
            const amqp_table_entry_t *c = &caps->entries [k];
            if (c->key.len == 18 && memcmp (c->key.bytes, "publisher_confirms", 18) == 0)
                return c->value.kind == AMQP_FIELD_KIND_BOOLEAN && c->value.value.boolean;
        }
    }
    return false;
}

/* Open the channel, in confirm mode when asked. */
static dlq_amqp_conn_result_t
open_channel (dlq_amqp_conn_t *self, int64_t deadline_mono_ms, char *err, size_t err_len)
{
    int code;
    self->published = 0;
    set_rpc_deadline (self, deadline_mono_ms);
    amqp_channel_open (self->state, DLQ_AMQP_CHANNEL);
    amqp_rpc_reply_t reply = amqp_get_rpc_reply (self->state);
    if (reply.reply_type != AMQP_RESPONSE_NORMAL) {
        describe_reply (reply, "channel.open", err, err_len, &code);
        return DLQ_AMQP_CONN_DOWN;
    }
    if (!self->settings->confirm)
        return DLQ_AMQP_CONN_OK;
    if (!broker_confirms (self->state)) {
        snprintf (err, err_len, "the broker does not offer publisher confirms: set confirm_mode = false "
                  "to publish without them (fire-and-forget)");
        return DLQ_AMQP_CONN_REFUSED;
    }
    amqp_confirm_select (self->state, DLQ_AMQP_CHANNEL);
    reply = amqp_get_rpc_reply (self->state);
    if (reply.reply_type != AMQP_RESPONSE_NORMAL) {
        bool refused = describe_reply (reply, "the broker refuses confirm mode (confirm.select)", err, err_len, &code);
        return refused ? DLQ_AMQP_CONN_REFUSED : DLQ_AMQP_CONN_DOWN;
    }
    return DLQ_AMQP_CONN_OK;
}

/* Log in (with our client properties). */
static dlq_amqp_conn_result_t
login (dlq_amqp_conn_t *self, char *err, size_t err_len)
{
    const dlq_amqp_conn_settings_t *s = self->settings;
    amqp_table_entry_t capabilities [] = {
        flag ("publisher_confirms"), flag ("basic.nack"), flag ("connection.blocked"),
        flag ("authentication_failure_close"),
    };
    amqp_table_entry_t properties [] = {
        { .key = amqp_cstring_bytes ("connection_name"),
          .value = { .kind = AMQP_FIELD_KIND_UTF8, .value.bytes = amqp_cstring_bytes (s->connection_name) } },
        { .key = amqp_cstring_bytes ("product"),
          .value = { .kind = AMQP_FIELD_KIND_UTF8, .value.bytes = amqp_cstring_bytes ("dlqd") } },
        { .key = amqp_cstring_bytes ("capabilities"),
          .value = { .kind = AMQP_FIELD_KIND_TABLE,
                     .value.table = { .num_entries = 4, .entries = capabilities } } },
    };
    amqp_table_t table = { .num_entries = 3, .entries = properties };
    amqp_rpc_reply_t reply = amqp_login_with_properties (self->state, s->vhost, 0, FRAME_MAX, s->heartbeat_s,
                                                         &table, AMQP_SASL_METHOD_PLAIN, s->user, s->password);
    if (reply.reply_type == AMQP_RESPONSE_NORMAL)
        return DLQ_AMQP_CONN_OK;
    int code;
    char what [320];
    snprintf (what, sizeof what, "login to vhost %s as %s", s->vhost, s->user);
    describe_reply (reply, what, err, err_len, &code);
    /* 403 ACCESS_REFUSED (credentials), 530 NOT_ALLOWED (vhost) */
    if (code == AMQP_ACCESS_REFUSED || code == AMQP_NOT_ALLOWED)
        return DLQ_AMQP_CONN_REFUSED;
    if (reply.reply_type == AMQP_RESPONSE_LIBRARY_EXCEPTION && reply.library_error == AMQP_STATUS_CONNECTION_CLOSED)
        snprintf (err + strlen (err), err_len - strlen (err), " (wrong user or password?)");
    return DLQ_AMQP_CONN_DOWN;
}

dlq_amqp_conn_result_t
dlq_amqp_conn_open (dlq_amqp_conn_t *self, int64_t deadline_mono_ms, char *err, size_t err_len)
{
    const dlq_amqp_conn_settings_t *s = self->settings;
    dlq_amqp_conn_close (self);
    int64_t connect_by = self->mono_ms () + s->connect_timeout_ms;
    if (connect_by > deadline_mono_ms)
        connect_by = deadline_mono_ms;
    self->state = amqp_new_connection ();
    amqp_socket_t *socket = NULL;
    if (!make_socket (self, &socket, err, err_len)) {
        dlq_amqp_conn_close (self);
        return DLQ_AMQP_CONN_REFUSED;
    }
    struct timeval tv = until (self, connect_by);
    amqp_set_handshake_timeout (self->state, &tv);
    amqp_set_rpc_timeout (self->state, &tv);
    int status = amqp_socket_open_noblock (socket, s->host, s->port, &tv);
    if (status != AMQP_STATUS_OK) {
        char what [320];
        snprintf (what, sizeof what, "%s to %s:%d", s->tls ? "TLS connect" : "connect", s->host, s->port);
        dlq_amqp_conn_describe_status (status, what, err, err_len);
        dlq_amqp_conn_close (self);
        return DLQ_AMQP_CONN_DOWN;
    }
    dlq_amqp_conn_result_t result = login (self, err, err_len);
    if (result == DLQ_AMQP_CONN_OK)
        result = open_channel (self, connect_by, err, err_len);
    if (result != DLQ_AMQP_CONN_OK)
        dlq_amqp_conn_close (self);
    return result;
}

uint64_t
dlq_amqp_conn_next_tag (dlq_amqp_conn_t *self)
{
    return ++self->published;
}

/* ---- exchanges and the channel ---------------------------------------------------- */

bool
dlq_amqp_conn_channel_closed (dlq_amqp_conn_t *self, int64_t deadline_mono_ms, char *err, size_t err_len)
{
    if (!self->state)
        return false;
    forget_exchanges (self);
    amqp_channel_close_ok_t ok = { 0 };
    int status = amqp_send_method (self->state, DLQ_AMQP_CHANNEL, AMQP_CHANNEL_CLOSE_OK_METHOD, &ok);
    if (status != AMQP_STATUS_OK) {
        dlq_amqp_conn_describe_status (status, "channel.close-ok", err, err_len);
        dlq_amqp_conn_close (self);
        return false;
    }
    if (open_channel (self, deadline_mono_ms, err, err_len) != DLQ_AMQP_CONN_OK) {
        dlq_amqp_conn_close (self);
        return false;
    }
    return true;
}

static bool
exchange_checked (const dlq_amqp_conn_t *self, const char *exchange)
{
    for (size_t i = 0; i < self->exchange_count; i++)
        if (strcmp (self->exchanges [i], exchange) == 0)
            return true;
    return false;
}

dlq_amqp_conn_result_t
dlq_amqp_conn_exchange (dlq_amqp_conn_t *self, const char *exchange, bool declare, const char *type,
                        int64_t deadline_mono_ms, char *err, size_t err_len)
{
    /* "" is the default exchange: always there, cannot be declared */
    if (!exchange [0] || exchange_checked (self, exchange))
        return DLQ_AMQP_CONN_OK;
    set_rpc_deadline (self, deadline_mono_ms);
    amqp_exchange_declare (self->state, DLQ_AMQP_CHANNEL, amqp_cstring_bytes (exchange), amqp_cstring_bytes (type),
                           !declare, /* durable */ 1, /* auto_delete */ 0, /* internal */ 0, amqp_empty_table);
    amqp_rpc_reply_t reply = amqp_get_rpc_reply (self->state);
    if (reply.reply_type == AMQP_RESPONSE_NORMAL) {
        self->exchanges = dlq_realloc (self->exchanges, (self->exchange_count + 1) * sizeof *self->exchanges);
        self->exchanges [self->exchange_count++] = dlq_strdup (exchange);
        return DLQ_AMQP_CONN_OK;
    }
    char what [320];
    snprintf (what, sizeof what, "exchange %s", exchange);
    int code;
    bool refused = describe_reply (reply, what, err, err_len, &code);
    if (refused && reply.reply.id == AMQP_CHANNEL_CLOSE_METHOD) {
        char reopen [DLQ_AMQP_ERR_LEN];
        if (!dlq_amqp_conn_channel_closed (self, deadline_mono_ms, reopen, sizeof reopen))
            return DLQ_AMQP_CONN_DOWN;
        return DLQ_AMQP_CONN_REFUSED;
    }
    if (refused && reply.reply.id == AMQP_CONNECTION_CLOSE_METHOD)
        dlq_amqp_conn_connection_closed (self);
    else
        dlq_amqp_conn_close (self);
    return DLQ_AMQP_CONN_DOWN;
}
