/*  amqp_conn — one connection to the broker with one channel, for the amqp
 *  sink (rabbitmq-c): open (TCP or TLS, login, channel, confirm.select),
 *  exchange checks, the broker's close methods, and errors in words.
 *
 *  Opening classifies failures: DOWN is transient (no route, refused,
 *  timeout, a broker shutting down: try again later), REFUSED is what a
 *  retry cannot fix without an operator (bad credentials or vhost, a TLS
 *  file that cannot be read, a broker refusing confirm mode). The
 *  connection advertises itself as "dlqd <sink name>" (see it in
 *  `rabbitmqctl list_connections client_properties`) with the
 *  capabilities publisher_confirms, basic.nack, connection.blocked and
 *  authentication_failure_close (so a bad password is told, not a drop).
 */
#ifndef DLQ_AMQP_CONN_H
#define DLQ_AMQP_CONN_H

#include <amqp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DLQ_AMQP_CHANNEL 1
#define DLQ_AMQP_ERR_LEN 240

typedef struct {
    const char *host;
    int         port;
    const char *vhost;
    const char *user;
    const char *password;
    int         heartbeat_s;        /* 0: none */
    int64_t     connect_timeout_ms; /* TCP/TLS connect, handshake, login, each RPC */
    bool        tls;
    const char *tls_ca_file;        /* NULL: the system's default CAs are not used by
                                     * rabbitmq-c; set it when tls_verify_peer */
    const char *tls_cert_file;      /* client certificate (with tls_key_file) */
    const char *tls_key_file;
    bool        tls_verify_peer;
    bool        tls_verify_hostname;
    bool        confirm;            /* put the channel in confirm mode */
    const char *connection_name;    /* shown by the broker */
} dlq_amqp_conn_settings_t;

typedef enum {
    DLQ_AMQP_CONN_OK = 0,
    DLQ_AMQP_CONN_DOWN,             /* transient: try again later */
    DLQ_AMQP_CONN_REFUSED           /* needs an operator */
} dlq_amqp_conn_result_t;

typedef struct dlq_amqp_conn dlq_amqp_conn_t;

/* A closed connection; settings must outlive it. mono_ms is the clock
 * deadlines are on. */
dlq_amqp_conn_t *dlq_amqp_conn_new (const dlq_amqp_conn_settings_t *settings, int64_t (*mono_ms) (void));
void dlq_amqp_conn_destroy (dlq_amqp_conn_t **self_p);

/* Connect, log in, open the channel and (settings->confirm) select
 * confirm mode, all before deadline_mono_ms. On failure the connection is
 * closed and err says why. */
dlq_amqp_conn_result_t dlq_amqp_conn_open (dlq_amqp_conn_t *self, int64_t deadline_mono_ms,
                                           char *err, size_t err_len);
bool dlq_amqp_conn_is_open (const dlq_amqp_conn_t *self);
/* Drop the connection (a polite connection.close with a short timeout
 * when it still works). Exchange checks are forgotten. */
void dlq_amqp_conn_close (dlq_amqp_conn_t *self);
/* The rabbitmq-c state, while open. */
amqp_connection_state_t dlq_amqp_conn_state (dlq_amqp_conn_t *self);

/* Make sure exchange exists, once per connection (cached): declare it
 * (type, durable) when declare, else check it with a passive declare.
 * NOT_FOUND and PRECONDITION_FAILED (another type) give REFUSED with err;
 * the channel is reopened (in confirm mode) for the next publishes. A
 * broken connection gives DOWN and closes it. */
dlq_amqp_conn_result_t dlq_amqp_conn_exchange (dlq_amqp_conn_t *self, const char *exchange, bool declare,
                                               const char *type, int64_t deadline_mono_ms,
                                               char *err, size_t err_len);

/* The broker closed the channel (code, text as it sent them): answer
 * close-ok and open it again (in confirm mode); false (connection closed,
 * err says why) when that fails. Exchange checks are forgotten. */
bool dlq_amqp_conn_channel_closed (dlq_amqp_conn_t *self, int64_t deadline_mono_ms, char *err, size_t err_len);

/* The broker closed the connection: answer close-ok and drop it. */
void dlq_amqp_conn_connection_closed (dlq_amqp_conn_t *self);

/* The delivery tag of the next publish on the channel: 1 for the first
 * after the channel was (re)opened in confirm mode, then 2, 3, ... */
uint64_t dlq_amqp_conn_next_tag (dlq_amqp_conn_t *self);

/* Text of a library status or RPC reply, "what: why". */
void dlq_amqp_conn_describe_status (int status, const char *what, char *err, size_t err_len);

#endif
