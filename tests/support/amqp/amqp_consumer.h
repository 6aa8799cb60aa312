/*  amqp_consumer — a small, real AMQP 0-9-1 client (rabbitmq-c) with which
 *  the tests look at what the amqp sink published: bind a queue of their
 *  own to the sink's exchange, then fetch the messages that reached it,
 *  with their routing key, properties and headers in a form easy to
 *  assert on.
 *
 *  Every call that talks to the server returns false (or -1, or NULL) on
 *  failure with a message on stderr, and never hangs: connecting, logging
 *  in and every request wait 10 s at most, a fetch no longer than its
 *  timeout. After a connection-level failure (the server went away, a
 *  connection exception) the consumer fails every call: connect anew.
 *
 *  Type names avoid amqp_message_t & co, which rabbitmq-c's amqp.h takes:
 *  a test may include both.
 */
#ifndef AMQP_CONSUMER_H
#define AMQP_CONSUMER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most messages one fetch returns (the AMQP prefetch is 16 bits). */
#define AMQP_CONSUMER_FETCH_MAX 65535

typedef struct amqp_consumer amqp_consumer_t;

/* One entry of a message's headers table. */
typedef struct {
    char   *name;
    char    kind;           /* the AMQP field kind: 'S' string, 'x' bytes,
                             * 't' boolean, 'b' 'B' 's' 'u' 'I' 'i' 'l' 'L'
                             * integers, 'T' timestamp, 'f' 'd' reals,
                             * 'D' decimal, 'A' array, 'F' table, 'V' void */
    char   *string;         /* 'S' and 'x': the bytes, NUL-terminated; else NULL */
    size_t  string_len;
    int64_t integer;        /* integers, 't' (0 or 1), 'T' (seconds), 'D'
                             * (its unscaled value), the number of entries
                             * of an 'A' or 'F'; else 0 */
    double  real;           /* 'f' 'd' 'D', and every integer kind too */
} amqp_received_header_t;

/* One message as it reached the queue. Properties the publisher did not
 * set are NULL (strings), 0 (delivery_mode), -1 (priority) or flagged
 * absent (has_timestamp, has_headers). */
typedef struct {
    unsigned char *body;            /* NUL-terminated (not counted in body_len) */
    size_t         body_len;
    char          *exchange;        /* as published to ("" the default exchange) */
    char          *routing_key;
    bool           redelivered;

    char          *message_id;
    char          *correlation_id;
    char          *content_type;
    char          *content_encoding;
    char          *type;
    char          *app_id;
    char          *user_id;
    char          *reply_to;
    char          *expiration;
    int            delivery_mode;   /* 1 transient, 2 persistent, 0 absent */
    int            priority;        /* 0..9, -1 absent */
    bool           has_timestamp;
    uint64_t       timestamp;       /* seconds since the epoch */

    bool                    has_headers;
    amqp_received_header_t *headers;
    size_t                  header_count;
} amqp_received_message_t;

typedef struct {
    amqp_received_message_t *items;
    size_t                   count;
} amqp_received_messages_t;

/* Connect and log in to url (amqp://user:pass@host:port/vhost, as
 * amqp_parse_url reads it; an empty vhost, as in "amqp://h:p/", is taken
 * as "/"). NULL on failure. */
amqp_consumer_t *amqp_consumer_connect (const char *url);

/* Close the connection (unacked deliveries go back to their queues) and
 * free c. Deletes nothing: see amqp_consumer_delete_declared. NULL: no-op. */
void amqp_consumer_close (amqp_consumer_t *c);

/* Bind a durable queue to exchange with routing_key_pattern (a topic
 * pattern such as "dlq.#" on a topic exchange; ignored by a fanout one).
 * exchange_type ("topic", "direct", "fanout", "headers"): declare exchange
 * first, durable, with that type; NULL: it must exist already (declared by
 * the sink, or amq.topic). exchange NULL or "": no binding, the queue only
 * gets what is published to the default exchange with its name as routing
 * key. queue (queue_len bytes): in, the queue's name, "" for a server-named
 * one; out, its name. The queue is durable, neither exclusive nor
 * auto-delete: it survives the connection and a restart of the server. */
bool amqp_consumer_bind (amqp_consumer_t *c, const char *exchange, const char *exchange_type,
                         const char *routing_key_pattern, char *queue, size_t queue_len);

/* amqp_consumer_bind, the queue declared with a length limit: it holds
 * max_length ready messages at most (x-max-length), and refuses what is
 * published beyond that (x-overflow = reject-publish): a publisher in
 * confirm mode gets a basic.nack for each message it refused (the others
 * are acked), a publisher without confirms loses them silently. Fetching
 * makes room again. Declaring an existing queue with other arguments fails
 * (406 PRECONDITION_FAILED). */
bool amqp_consumer_bind_limited (amqp_consumer_t *c, const char *exchange,
                                 const char *exchange_type, const char *routing_key_pattern,
                                 long max_length, char *queue, size_t queue_len);

/* Consume from queue until max messages arrived (at most
 * AMQP_CONSUMER_FETCH_MAX) or none came for timeout_ms (the wait is for
 * each next message, so a long fetch on a busy machine is not cut short
 * while messages keep coming), and acknowledge them:
 * they leave the queue; none beyond max is taken. out (free with
 * amqp_messages_free) gets them in their order, out->count < max after a
 * timeout (0 for an empty queue). False on an error: a queue that does not
 * exist, a lost connection; out is then empty. */
bool amqp_consumer_fetch (amqp_consumer_t *c, const char *queue, size_t max, int timeout_ms,
                          amqp_received_messages_t *out);

/* The number of messages ready in queue (not counting those delivered and
 * unacknowledged), from a passive declare. -1 when the queue does not
 * exist (no message on stderr) or on an error. */
long amqp_consumer_queue_count (amqp_consumer_t *c, const char *queue);

/* True when exchange exists (a passive declare; no message when not). */
bool amqp_consumer_exchange_exists (amqp_consumer_t *c, const char *exchange);

/* Delete a queue (with its messages) or an exchange; true when it is gone,
 * also when it never existed. */
bool amqp_consumer_delete_queue (amqp_consumer_t *c, const char *queue);
bool amqp_consumer_delete_exchange (amqp_consumer_t *c, const char *exchange);

/* Delete every queue and exchange that amqp_consumer_bind declared through
 * c: a test's clean-up on a shared server. */
bool amqp_consumer_delete_declared (amqp_consumer_t *c);

/* The header called name of m, or NULL. */
const amqp_received_header_t *amqp_message_header (const amqp_received_message_t *m,
                                                   const char *name);

/* Free the messages of a fetch and empty list. */
void amqp_messages_free (amqp_received_messages_t *list);

#endif
