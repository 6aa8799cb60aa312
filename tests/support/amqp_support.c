/*  amqp_support — RabbitMQ nodes for the tests, via rabbitmq-server.sh. */
#include "amqp_support.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef DLQ_SOURCE_DIR
#error "DLQ_SOURCE_DIR must be defined (tests/CMakeLists.txt)"
#endif

#define AMQP_SCRIPT DLQ_SOURCE_DIR "/contrib/scripts/rabbitmq-server.sh"

/* Run the script with args; its first stdout line goes to out (when not
 * NULL). True when it exited 0. */
static bool
script (const char *args, char *out, size_t out_len)
{
    char cmd [1024];
    snprintf (cmd, sizeof cmd, "'%s' %s", AMQP_SCRIPT, args);
    FILE *p = popen (cmd, "r");
    if (!p) {
        perror ("popen");
        return false;
    }
    char line [512] = "";
    if (!fgets (line, sizeof line, p))
        line [0] = '\0';
    char rest [256];
    while (fgets (rest, sizeof rest, p))
        ;
    int status = pclose (p);
    line [strcspn (line, "\n")] = '\0';
    if (out)
        snprintf (out, out_len, "%s", line);
    bool ok = status != -1 && WIFEXITED (status) && WEXITSTATUS (status) == 0;
    if (!ok)
        fprintf (stderr, "amqp_support: '%s' failed (status %d)\n", cmd, status);
    return ok;
}

/* Where free-port starts looking: spread by process, so that parallel
 * tests rarely race, and below the kernel's ephemeral ports (32768 up),
 * where outgoing connections would take ports from under us. */
static int
first_port_to_try (void)
{
    return 20000 + (int) ((unsigned) getpid () * 7919u % 12000u);
}

bool
amqp_server_start (amqp_server_t *s)
{
    memset (s, 0, sizeof *s);
    /* /tmp, not $TMPDIR: the node's user must reach it */
    snprintf (s->dir, sizeof s->dir, "/tmp/dlqd-rabbitmq-XXXXXX");
    if (!mkdtemp (s->dir)) {
        perror ("mkdtemp");
        s->dir [0] = '\0';
        return false;
    }
    char args [512], port [32];
    snprintf (args, sizeof args, "free-port %d", first_port_to_try ());
    if (!script (args, port, sizeof port))
        return false;
    s->port = atoi (port);
    /* the script's watchdog removes the node should this process die
     * before amqp_server_stop (a test killed on a timeout) */
    snprintf (args, sizeof args, "start '%s' %d %d", s->dir, s->port, (int) getpid ());
    return script (args, s->url, sizeof s->url) && s->url [0];
}

bool
amqp_server_shared (amqp_server_t *s)
{
    const char *env = getenv (AMQP_URL_ENV);
    if (env && *env) {
        memset (s, 0, sizeof *s);
        snprintf (s->url, sizeof s->url, "%s", env);
        return true;
    }
    return amqp_server_start (s);
}

bool
amqp_server_pause (amqp_server_t *s)
{
    if (!s->dir [0])
        return false;
    char args [512];
    snprintf (args, sizeof args, "pause '%s'", s->dir);
    return script (args, NULL, 0);
}

bool
amqp_server_resume (amqp_server_t *s)
{
    if (!s->dir [0])
        return false;
    char args [512], url [256];
    snprintf (args, sizeof args, "resume '%s'", s->dir);
    if (!script (args, url, sizeof url) || !url [0])
        return false;
    snprintf (s->url, sizeof s->url, "%s", url);
    return true;
}

void
amqp_server_stop (amqp_server_t *s)
{
    if (s->dir [0]) {
        char args [512];
        snprintf (args, sizeof args, "stop '%s'", s->dir);
        script (args, NULL, 0);
    }
    memset (s, 0, sizeof *s);
}

void
amqp_unique_name (const char *prefix, char *out, size_t len)
{
    uint64_t r = 0;
    int fd = open ("/dev/urandom", O_RDONLY);
    if (fd < 0 || read (fd, &r, sizeof r) != (ssize_t) sizeof r)
        r = (uint64_t) time (NULL) * 6364136223846793005ULL ^ (uint64_t) getpid ();
    if (fd >= 0)
        close (fd);
    snprintf (out, len, "%s.%016llx", prefix, (unsigned long long) r);
}
