/*  chaos_amqp — declarations and the final read; see chaos_amqp.h.
 *
 *  One connection per call, channel 1. The read learns the queue's length
 *  from a passive declare, then consumes with a prefetch window and
 *  acknowledges every message (multiple) as it goes, until it has them
 *  all: nobody publishes any more by then (the sinks have drained).
 */
#include "chaos_amqp.h"

#include "dlq_alloc.h"
#include "dlq_time.h"

#include <amqp.h>
#include <amqp_tcp_socket.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#define CHANNEL         1
#define WAIT_SECONDS    10
#define FRAME_MAX       131072
#define PREFETCH        1000
#define ACK_EVERY       500

static bool
chaos_amqp_reply_ok (amqp_rpc_reply_t r, const char *what, char *err, size_t err_len)
{
    switch (r.reply_type) {
    case AMQP_RESPONSE_NORMAL:
        return true;
    case AMQP_RESPONSE_LIBRARY_EXCEPTION:
        snprintf (err, err_len, "amqp: %s: %s", what, amqp_error_string2 (r.library_error));
        return false;
    case AMQP_RESPONSE_SERVER_EXCEPTION:
        if (r.reply.id == AMQP_CONNECTION_CLOSE_METHOD || r.reply.id == AMQP_CHANNEL_CLOSE_METHOD) {
            const amqp_channel_close_t *m = r.reply.decoded;
            snprintf (err, err_len, "amqp: %s: %u %.*s", what, m->reply_code,
                      (int) m->reply_text.len, (const char *) m->reply_text.bytes);
        } else {
            snprintf (err, err_len, "amqp: %s: server exception 0x%08x", what, r.reply.id);
        }
        return false;
    default:
        snprintf (err, err_len, "amqp: %s: no reply", what);
        return false;
    }
}

/* Connect, log in and open channel 1; NULL with err. */
static amqp_connection_state_t
chaos_amqp_connect (const char *url, char *err, size_t err_len)
{
    char *copy = dlq_strdup (url);
    struct amqp_connection_info info;
    if (amqp_parse_url (copy, &info) != AMQP_STATUS_OK) {
        snprintf (err, err_len, "amqp: cannot parse %s", url);
        free (copy);
        return NULL;
    }
    amqp_connection_state_t conn = amqp_new_connection ();
    amqp_socket_t *socket = amqp_tcp_socket_new (conn);
    struct timeval wait = { WAIT_SECONDS, 0 };
    amqp_set_handshake_timeout (conn, &wait);
    amqp_set_rpc_timeout (conn, &wait);
    int status = socket ? amqp_socket_open_noblock (socket, info.host, info.port, &wait)
                        : AMQP_STATUS_SOCKET_ERROR;
    bool ok = status == AMQP_STATUS_OK;
    if (!ok)
        snprintf (err, err_len, "amqp: cannot connect to %s:%d: %s", info.host, info.port,
                  amqp_error_string2 (status));
    ok = ok && chaos_amqp_reply_ok (amqp_login (conn, info.vhost [0] ? info.vhost : "/", 0,
                                                FRAME_MAX, 0, AMQP_SASL_METHOD_PLAIN, info.user,
                                                info.password), "log in", err, err_len);
    if (ok) {
        amqp_channel_open (conn, CHANNEL);
        ok = chaos_amqp_reply_ok (amqp_get_rpc_reply (conn), "open channel", err, err_len);
    }
    free (copy);
    if (!ok) {
        amqp_destroy_connection (conn);
        return NULL;
    }
    return conn;
}

static void
chaos_amqp_close (amqp_connection_state_t conn)
{
    amqp_channel_close (conn, CHANNEL, AMQP_REPLY_SUCCESS);
    amqp_connection_close (conn, AMQP_REPLY_SUCCESS);
    amqp_destroy_connection (conn);
}

bool
chaos_amqp_prepare (const char *url, const char *exchange, const char *queue, char *err,
                    size_t err_len)
{
    amqp_connection_state_t conn = chaos_amqp_connect (url, err, err_len);
    if (!conn)
        return false;
    amqp_exchange_declare (conn, CHANNEL, amqp_cstring_bytes (exchange), amqp_cstring_bytes ("topic"),
                           0, 1, 0, 0, amqp_empty_table);
    bool ok = chaos_amqp_reply_ok (amqp_get_rpc_reply (conn), "declare exchange", err, err_len);
    if (ok) {
        amqp_queue_declare (conn, CHANNEL, amqp_cstring_bytes (queue), 0, 1, 0, 0, amqp_empty_table);
        ok = chaos_amqp_reply_ok (amqp_get_rpc_reply (conn), "declare queue", err, err_len);
    }
    if (ok) {
        amqp_queue_bind (conn, CHANNEL, amqp_cstring_bytes (queue), amqp_cstring_bytes (exchange),
                         amqp_cstring_bytes ("#"), amqp_empty_table);
        ok = chaos_amqp_reply_ok (amqp_get_rpc_reply (conn), "bind queue", err, err_len);
    }
    chaos_amqp_close (conn);
    return ok;
}

/* The number of messages ready in queue (passive declare), or -1. */
static long
chaos_amqp_queue_length (amqp_connection_state_t conn, const char *queue, char *err, size_t err_len)
{
    amqp_queue_declare_ok_t *ok = amqp_queue_declare (conn, CHANNEL, amqp_cstring_bytes (queue),
                                                      1, 0, 0, 0, amqp_empty_table);
    if (!chaos_amqp_reply_ok (amqp_get_rpc_reply (conn), "passive declare", err, err_len) || !ok)
        return -1;
    return (long) ok->message_count;
}

bool
chaos_amqp_read (const char *url, const char *queue, int timeout_ms, chaos_amqp_message_fn *fn,
                 void *arg, size_t *count, char *err, size_t err_len)
{
    *count = 0;
    amqp_connection_state_t conn = chaos_amqp_connect (url, err, err_len);
    if (!conn)
        return false;
    long want = chaos_amqp_queue_length (conn, queue, err, err_len);
    bool ok = want >= 0;
    if (ok) {
        amqp_basic_qos (conn, CHANNEL, 0, PREFETCH, 0);
        ok = chaos_amqp_reply_ok (amqp_get_rpc_reply (conn), "basic.qos", err, err_len);
    }
    if (ok) {
        amqp_basic_consume (conn, CHANNEL, amqp_cstring_bytes (queue), amqp_empty_bytes, 0, 0, 0,
                            amqp_empty_table);
        ok = chaos_amqp_reply_ok (amqp_get_rpc_reply (conn), "basic.consume", err, err_len);
    }
    int64_t deadline = dlq_time_mono_ms () + timeout_ms;
    uint64_t last_tag = 0;
    while (ok && (long) *count < want) {
        int64_t left = deadline - dlq_time_mono_ms ();
        if (left <= 0) {
            snprintf (err, err_len, "amqp: %zu of the %ld messages of %s in %d ms", *count, want,
                      queue, timeout_ms);
            ok = false;
            break;
        }
        struct timeval wait = { (time_t) (left / 1000), (suseconds_t) (left % 1000) * 1000 };
        amqp_envelope_t envelope;
        amqp_maybe_release_buffers (conn);
        amqp_rpc_reply_t r = amqp_consume_message (conn, &envelope, &wait, 0);
        if (r.reply_type == AMQP_RESPONSE_LIBRARY_EXCEPTION && r.library_error == AMQP_STATUS_TIMEOUT)
            continue;
        if (!chaos_amqp_reply_ok (r, "consume", err, err_len)) {
            ok = false;
            break;
        }
        const amqp_basic_properties_t *p = &envelope.message.properties;
        bool has_id = (p->_flags & AMQP_BASIC_MESSAGE_ID_FLAG) != 0;
        fn (arg, has_id ? p->message_id.bytes : NULL, has_id ? p->message_id.len : 0,
            envelope.message.body.bytes, envelope.message.body.len);
        (*count)++;
        last_tag = envelope.delivery_tag;
        if (*count % ACK_EVERY == 0)
            amqp_basic_ack (conn, CHANNEL, last_tag, 1);
        amqp_destroy_envelope (&envelope);
    }
    if (last_tag)
        amqp_basic_ack (conn, CHANNEL, last_tag, 1);
    chaos_amqp_close (conn);
    return ok;
}
