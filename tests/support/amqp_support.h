/*  amqp_support — a RabbitMQ node for the tests of the amqp sink, through
 *  contrib/scripts/rabbitmq-server.sh (no rabbitmq-c here: every test
 *  binary links this helper library; amqp_consumer is the AMQP client).
 *
 *  The node a test uses is the one contrib/scripts/test.sh started for the
 *  whole run (its URL in DLQD_TEST_AMQP_URL), or, when that is unset (ctest
 *  or a test binary run alone), one started for the test and stopped after
 *  it. A test that stops and restarts the node always gets its own. Tests
 *  share a node by using exchanges and queues of their own
 *  (amqp_unique_name).
 */
#ifndef AMQP_SUPPORT_H
#define AMQP_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>

#define AMQP_URL_ENV "DLQD_TEST_AMQP_URL"

typedef struct {
    char dir [256];             /* the node's directory; "" when not ours */
    int  port;                  /* its AMQP port (0 for the shared one) */
    char url [256];             /* amqp://guest:guest@127.0.0.1:P/ */
} amqp_server_t;

/* Start a node of our own: a fresh directory under /tmp, three free ports
 * (AMQP, distribution, epmd). Takes some 6 s. False when the script failed
 * (its messages are on stderr). */
bool amqp_server_start (amqp_server_t *s);

/* DLQD_TEST_AMQP_URL when set (s->dir stays empty), else a node of our own
 * (amqp_server_start). */
bool amqp_server_shared (amqp_server_t *s);

/* Stop our node keeping its data (durable queues and their persistent
 * messages), and start it again on the same port (some 5 s). Only for a
 * node of our own. */
bool amqp_server_pause (amqp_server_t *s);
bool amqp_server_resume (amqp_server_t *s);

/* Stop our node and remove its directory; nothing for the shared one. */
void amqp_server_stop (amqp_server_t *s);

/* A name no other test uses, for an exchange or a queue:
 * <prefix>.<16 hex digits>. */
void amqp_unique_name (const char *prefix, char *out, size_t len);

#endif
