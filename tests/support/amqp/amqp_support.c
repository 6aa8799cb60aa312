/*  amqp_support — RabbitMQ nodes for the tests, via rabbitmq-server.sh. */
#include "amqp_support.h"

#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef DLQ_SOURCE_DIR
#error "DLQ_SOURCE_DIR must be defined (tests/CMakeLists.txt)"
#endif

#define AMQP_SCRIPT DLQ_SOURCE_DIR "/contrib/scripts/rabbitmq-server.sh"

/* The AMQPS URL and the directory of its PEM files, from a line of
 * "rabbitmq-server.sh tls DIR": "amqps://guest:guest@localhost:P/ DIR". */
static bool
parse_tls_line (amqp_server_t *s, const char *line)
{
    const char *space = strchr (line, ' ');
    const char *colon = space ? memrchr (line, ':', (size_t) (space - line)) : NULL;
    int port = colon ? atoi (colon + 1) : 0;
    if (port <= 0 || (size_t) (space - line) >= sizeof s->tls_url
        || strlen (space + 1) >= sizeof s->tls_dir) {
        fprintf (stderr, "amqp_support: unexpected TLS line '%s'\n", line);
        return false;
    }
    s->tls_port = port;
    memcpy (s->tls_url, line, (size_t) (space - line));
    s->tls_url [space - line] = '\0';
    strcpy (s->tls_dir, space + 1);
    return true;
}

/* The TLS side of our node. */
static bool
ask_tls (amqp_server_t *s)
{
    char args [512], line [600];
    snprintf (args, sizeof args, "tls '%s'", s->dir);
    return test_run_script (AMQP_SCRIPT, args, line, sizeof line) && parse_tls_line (s, line);
}

/* The TLS side of the shared node, from the environment: both variables,
 * else none. */
static void
tls_from_environment (amqp_server_t *s)
{
    const char *port = getenv (AMQP_TLS_PORT_ENV);
    const char *dir = getenv (AMQP_TLS_DIR_ENV);
    if (!port || atoi (port) <= 0 || !dir || !*dir || strlen (dir) >= sizeof s->tls_dir)
        return;
    s->tls_port = atoi (port);
    snprintf (s->tls_dir, sizeof s->tls_dir, "%s", dir);
    snprintf (s->tls_url, sizeof s->tls_url, "amqps://guest:guest@localhost:%d/", s->tls_port);
}

bool
amqp_server_start (amqp_server_t *s)
{
    memset (s, 0, sizeof *s);
    /* /tmp, not $TMPDIR: the node's user must reach it */
    return test_script_server_start (AMQP_SCRIPT, "/tmp/dlqd-rabbitmq-XXXXXX", s->dir, sizeof s->dir,
                                     &s->port, s->url, sizeof s->url)
        && s->url [0] && ask_tls (s);
}

bool
amqp_server_shared (amqp_server_t *s)
{
    const char *env = getenv (AMQP_URL_ENV);
    if (env && *env) {
        memset (s, 0, sizeof *s);
        snprintf (s->url, sizeof s->url, "%s", env);
        tls_from_environment (s);
        return true;
    }
    return amqp_server_start (s);
}

/* Run "rabbitmq-server.sh COMMAND DIR" for our node. */
static bool
own_node_command (amqp_server_t *s, const char *command)
{
    return test_script_server_command (AMQP_SCRIPT, command, s->dir, NULL, 0);
}

bool
amqp_server_pause (amqp_server_t *s)
{
    return own_node_command (s, "pause");
}

bool
amqp_server_resume (amqp_server_t *s)
{
    char url [256];
    if (!test_script_server_command (AMQP_SCRIPT, "resume", s->dir, url, sizeof url) || !url [0])
        return false;
    snprintf (s->url, sizeof s->url, "%s", url);
    return true;
}

bool
amqp_server_freeze (amqp_server_t *s)
{
    return own_node_command (s, "freeze");
}

bool
amqp_server_thaw (amqp_server_t *s)
{
    return own_node_command (s, "thaw");
}

void
amqp_server_stop (amqp_server_t *s)
{
    own_node_command (s, "stop");
    memset (s, 0, sizeof *s);
}

void
amqp_unique_name (const char *prefix, char *out, size_t len)
{
    snprintf (out, len, "%s.%016llx", prefix, (unsigned long long) test_random_u64 ());
}
