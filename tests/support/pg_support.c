/*  pg_support — PostgreSQL servers for the tests, via pg-server.sh. */
#include "pg_support.h"

#include "test_support.h"

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

#define PG_SCRIPT DLQ_SOURCE_DIR "/contrib/scripts/pg-server.sh"

/* Run the script with args; its first stdout line goes to out. */
static bool
script (const char *args, char *out, size_t out_len)
{
    return test_run_script (PG_SCRIPT, args, out, out_len);
}

bool
pg_server_start (pg_server_t *s)
{
    memset (s, 0, sizeof *s);
    /* /tmp, not $TMPDIR: the server's user must reach it, and the socket
     * path in it must stay short */
    snprintf (s->dir, sizeof s->dir, "/tmp/dlqd-pg-XXXXXX");
    if (!mkdtemp (s->dir)) {
        perror ("mkdtemp");
        s->dir [0] = '\0';
        return false;
    }
    char args [512], port [32];
    /* spread the first port tried, so that parallel tests rarely race */
    snprintf (args, sizeof args, "free-port %d", 40000 + (int) ((unsigned) getpid () * 7919u % 20000u));
    if (!script (args, port, sizeof port))
        return false;
    s->port = atoi (port);
    /* the script's watchdog removes the server should this process die
     * before pg_server_stop (a test killed on a timeout) */
    snprintf (args, sizeof args, "start '%s' %d %d", s->dir, s->port, (int) getpid ());
    return script (args, s->conninfo, sizeof s->conninfo) && s->conninfo [0];
}

bool
pg_server_shared (pg_server_t *s)
{
    const char *env = getenv (PG_CONNINFO_ENV);
    if (env && *env) {
        memset (s, 0, sizeof *s);
        snprintf (s->conninfo, sizeof s->conninfo, "%s", env);
        return true;
    }
    return pg_server_start (s);
}

bool
pg_server_pause (pg_server_t *s)
{
    if (!s->dir [0])
        return false;
    char args [512];
    snprintf (args, sizeof args, "pause '%s'", s->dir);
    return script (args, NULL, 0);
}

bool
pg_server_resume (pg_server_t *s)
{
    if (!s->dir [0])
        return false;
    char args [512], conninfo [256];
    snprintf (args, sizeof args, "resume '%s'", s->dir);
    return script (args, conninfo, sizeof conninfo);
}

void
pg_server_stop (pg_server_t *s)
{
    if (s->dir [0]) {
        char args [512];
        snprintf (args, sizeof args, "stop '%s'", s->dir);
        script (args, NULL, 0);
    }
    memset (s, 0, sizeof *s);
}

void
pg_table_name (char *out, size_t len)
{
    uint64_t r = 0;
    int fd = open ("/dev/urandom", O_RDONLY);
    if (fd < 0 || read (fd, &r, sizeof r) != (ssize_t) sizeof r)
        r = (uint64_t) time (NULL) * 6364136223846793005ULL ^ (uint64_t) getpid ();
    if (fd >= 0)
        close (fd);
    snprintf (out, len, "dlq_t_%016llx", (unsigned long long) r);
}
