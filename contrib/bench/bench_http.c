/*  bench_http — a free port and a plain GET for the benchmarks. */
#include "bench_http.h"

#include "dlq_alloc.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int
bench_http_free_port (void)
{
    int s = socket (AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
    socklen_t len = sizeof a;
    int port = -1;
    if (s >= 0 && bind (s, (struct sockaddr *) &a, sizeof a) == 0 && getsockname (s, (struct sockaddr *) &a, &len) == 0)
        port = ntohs (a.sin_port);
    if (s >= 0)
        close (s);
    return port;
}

bool
bench_http_get (int port, const char *path, size_t max, int *status, char **body_out)
{
    *body_out = NULL;
    int s = socket (AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons ((uint16_t) port),
                             .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
    if (s < 0 || connect (s, (struct sockaddr *) &a, sizeof a) != 0) {
        if (s >= 0)
            close (s);
        return false;
    }
    char request [2048];
    int n = snprintf (request, sizeof request, "GET %s HTTP/1.0\r\nHost: 127.0.0.1:%d\r\n\r\n", path, port);
    bool ok = n > 0 && (size_t) n < sizeof request && write (s, request, (size_t) n) == n;
    char *text = dlq_malloc (max + 1);
    size_t got = 0;
    ssize_t r;
    while (ok && got < max && (r = read (s, text + got, max - got)) > 0)
        got += (size_t) r;
    text [got] = '\0';
    close (s);
    ok = ok && strncmp (text, "HTTP/1.", 7) == 0 && strlen (text) > 12;
    const char *body = ok ? strstr (text, "\r\n\r\n") : NULL;
    if (!ok || !body) {
        free (text);
        return false;
    }
    *status = atoi (text + 9);
    memmove (text, body + 4, strlen (body + 4) + 1);
    *body_out = text;
    return true;
}
