/*  chaos_amqp — the RabbitMQ side of a chaos run (rabbitmq-c): before
 *  dlqd starts, the amqp sink's topic exchange and a durable queue bound
 *  to it with "#", so every persistent message the sink publishes is kept
 *  across the broker's restarts; at the end, every message of that queue.
 */
#ifndef DLQ_CHAOS_AMQP_H
#define DLQ_CHAOS_AMQP_H

#include <stdbool.h>
#include <stddef.h>

/* Called for each message read: its message_id property (NULL, 0 when
 * absent) and its body. */
typedef void (chaos_amqp_message_fn) (void *arg, const char *message_id, size_t id_len,
                                      const char *body, size_t body_len);

/* Declare the durable topic exchange and the durable queue, and bind the
 * queue to it with "#". */
bool chaos_amqp_prepare (const char *url, const char *exchange, const char *queue,
                         char *err, size_t err_len);

/* Take every message the queue holds (acknowledged: they leave it),
 * calling fn for each; *count gets how many. False with err on a failure,
 * or when the queue's count is not reached within timeout_ms. */
bool chaos_amqp_read (const char *url, const char *queue, int timeout_ms,
                      chaos_amqp_message_fn *fn, void *arg, size_t *count,
                      char *err, size_t err_len);

#endif
