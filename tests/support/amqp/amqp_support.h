/*  amqp_support — a RabbitMQ node for the tests of the amqp sink, through
 *  contrib/scripts/rabbitmq-server.sh (no rabbitmq-c here; amqp_consumer
 *  is the AMQP client). Both are in dlq_test_amqp (tests/support/
 *  CMakeLists.txt), for the suites of the amqp sink (DLQD_WITH_AMQP).
 *
 *  The node a test uses is the one contrib/scripts/test.sh started for the
 *  whole run (its URL in DLQD_TEST_AMQP_URL), or, when that is unset (ctest
 *  or a test binary run alone), one started for the test and stopped after
 *  it. A test that stops, restarts or freezes the node always gets its own.
 *  Tests share a node by using exchanges and queues of their own
 *  (amqp_unique_name).
 *
 *  Every node also listens for AMQPS (TLS) with a throwaway PKI of its own
 *  (rabbitmq-server.sh): ca.pem, server.pem, server.key, client.pem and
 *  client.key in tls_dir; the server certificate names the host
 *  "localhost" (rabbitmq-c checks DNS names only: verify "localhost", not
 *  "127.0.0.1"). A client certificate is checked against ca.pem when one
 *  is given, and none is needed. The shared node's TLS side is known from
 *  DLQD_TEST_AMQP_TLS_PORT and DLQD_TEST_AMQP_TLS_DIR (test.sh exports
 *  them with the URL); without them tls_port is 0: skip the TLS tests.
 */
#ifndef AMQP_SUPPORT_H
#define AMQP_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>

#define AMQP_URL_ENV      "DLQD_TEST_AMQP_URL"
#define AMQP_TLS_PORT_ENV "DLQD_TEST_AMQP_TLS_PORT"
#define AMQP_TLS_DIR_ENV  "DLQD_TEST_AMQP_TLS_DIR"

typedef struct {
    char dir [256];             /* the node's directory; "" when not ours */
    int  port;                  /* its AMQP port (0 for the shared one) */
    char url [256];             /* amqp://guest:guest@127.0.0.1:P/ */
    int  tls_port;              /* its AMQPS port; 0: no TLS known */
    char tls_dir [256];         /* the directory of its PEM files; "" when
                                 * tls_port is 0 */
    char tls_url [256];         /* amqps://guest:guest@localhost:TLS_PORT/;
                                 * "" when tls_port is 0 */
} amqp_server_t;

/* Start a node of our own: a fresh directory under /tmp, four free ports
 * (AMQP, distribution, epmd, AMQPS). Takes some 4 to 7 s. False when the
 * script failed (its messages are on stderr). */
bool amqp_server_start (amqp_server_t *s);

/* DLQD_TEST_AMQP_URL when set (s->dir stays empty; TLS from
 * DLQD_TEST_AMQP_TLS_PORT and DLQD_TEST_AMQP_TLS_DIR when both are set),
 * else a node of our own (amqp_server_start). */
bool amqp_server_shared (amqp_server_t *s);

/* Stop our node keeping its data (durable queues and their persistent
 * messages), and start it again on the same port (some 5 s). Only for a
 * node of our own. */
bool amqp_server_pause (amqp_server_t *s);
bool amqp_server_resume (amqp_server_t *s);

/* SIGSTOP our node's Erlang VM: connections and connects to it still
 * succeed (the kernel keeps its sockets) but it answers nothing, as a hung
 * broker; thaw (SIGCONT) lets it carry on. Only for a node of our own;
 * amqp_server_stop and amqp_server_pause handle a frozen node too. */
bool amqp_server_freeze (amqp_server_t *s);
bool amqp_server_thaw (amqp_server_t *s);

/* Stop our node and remove its directory; nothing for the shared one. */
void amqp_server_stop (amqp_server_t *s);

/* A name no other test uses, for an exchange or a queue:
 * <prefix>.<16 hex digits>. */
void amqp_unique_name (const char *prefix, char *out, size_t len);

#endif
