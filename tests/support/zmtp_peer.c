/*  zmtp_peer — ZMTP 3.0 by hand over a plain TCP socket (RFC 23/ZMTP:
 *  a 64-byte greeting, then frames of a flags byte, a 1- or 8-byte size
 *  and the body; the NULL mechanism's handshake is one READY command each
 *  way). The descriptor is non-blocking; every call waits with poll.
 */
#include "zmtp_peer.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define FLAG_MORE    0x01
#define FLAG_LONG    0x02
#define FLAG_COMMAND 0x04

static int64_t
now_ms (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait until fd is ready for events, at most until deadline (ms). */
static bool
wait_for (int fd, short events, int64_t deadline)
{
    while (true) {
        int64_t left = deadline - now_ms ();
        if (left <= 0)
            return false;
        struct pollfd p = { fd, events, 0 };
        int rc = poll (&p, 1, (int) left);
        if (rc > 0)
            return true;
        if (rc < 0 && errno != EINTR)
            return false;
    }
}

static bool
write_all (int fd, const void *data, size_t len, int64_t deadline)
{
    const char *p = data;
    while (len > 0) {
        ssize_t n = send (fd, p, len, MSG_NOSIGNAL);
        if (n > 0) {
            p += n;
            len -= (size_t) n;
            continue;
        }
        if (n < 0 && errno != EAGAIN && errno != EINTR)
            return false;
        if (!wait_for (fd, POLLOUT, deadline))
            return false;
    }
    return true;
}

static bool
read_exact (int fd, void *data, size_t len, int64_t deadline)
{
    char *p = data;
    while (len > 0) {
        ssize_t n = recv (fd, p, len, 0);
        if (n > 0) {
            p += n;
            len -= (size_t) n;
            continue;
        }
        if (n == 0 || (errno != EAGAIN && errno != EINTR))
            return false;
        if (!wait_for (fd, POLLIN, deadline))
            return false;
    }
    return true;
}

/* Read one frame's header: its flags and size. */
static bool
read_header (int fd, unsigned char *flags, uint64_t *size, int64_t deadline)
{
    unsigned char b [8];
    if (!read_exact (fd, flags, 1, deadline))
        return false;
    if (!(*flags & FLAG_LONG)) {
        if (!read_exact (fd, b, 1, deadline))
            return false;
        *size = b [0];
        return true;
    }
    if (!read_exact (fd, b, 8, deadline))
        return false;
    *size = 0;
    for (int i = 0; i < 8; i++)
        *size = (*size << 8) | b [i];
    return true;
}

int
zmtp_peer_tcp_connect (int port, int rcvbuf, int timeout_ms)
{
    int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -1;
    if (rcvbuf > 0)
        setsockopt (fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons ((uint16_t) port) };
    addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    int error = 0;
    socklen_t len = sizeof error;
    if (connect (fd, (struct sockaddr *) &addr, sizeof addr) != 0
    &&  (errno != EINPROGRESS || !wait_for (fd, POLLOUT, now_ms () + timeout_ms)
         || getsockopt (fd, SOL_SOCKET, SO_ERROR, &error, &len) != 0 || error != 0)) {
        close (fd);
        return -1;
    }
    return fd;
}

bool
zmtp_peer_handshake (int fd, int timeout_ms)
{
    int64_t deadline = now_ms () + timeout_ms;
    unsigned char greeting [64] = { 0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0x7F, 3, 0, 'N', 'U', 'L', 'L' };
    static const char ready [] = "\x04\x1c\x05READY\x0bSocket-Type\x00\x00\x00\x06" "DEALER";
    unsigned char theirs [64];
    if (!write_all (fd, greeting, sizeof greeting, deadline) || !write_all (fd, ready, sizeof ready - 1, deadline)
    ||  !read_exact (fd, theirs, sizeof theirs, deadline) || theirs [0] != 0xFF || theirs [9] != 0x7F
    ||  theirs [10] < 3)
        return false;
    unsigned char flags;
    uint64_t size;
    if (!read_header (fd, &flags, &size, deadline) || !(flags & FLAG_COMMAND) || size > 4096)
        return false;
    char command [4096];
    return read_exact (fd, command, (size_t) size, deadline) && size >= 6 && memcmp (command, "\x05READY", 6) == 0;
}

int
zmtp_peer_connect (int port, int rcvbuf)
{
    int fd = zmtp_peer_tcp_connect (port, rcvbuf, 5000);
    if (fd >= 0 && !zmtp_peer_handshake (fd, 5000)) {
        close (fd);
        fd = -1;
    }
    return fd;
}

bool
zmtp_peer_send (int fd, const void *const *frames, const size_t *lens, size_t count, int timeout_ms)
{
    int64_t deadline = now_ms () + timeout_ms;
    for (size_t i = 0; i < count; i++) {
        unsigned char header [9];
        size_t header_len;
        unsigned char more = i + 1 < count ? FLAG_MORE : 0;
        if (lens [i] <= 255) {
            header [0] = more;
            header [1] = (unsigned char) lens [i];
            header_len = 2;
        }
        else {
            header [0] = more | FLAG_LONG;
            for (int b = 0; b < 8; b++)
                header [1 + b] = (unsigned char) ((uint64_t) lens [i] >> (56 - 8 * b));
            header_len = 9;
        }
        if (!write_all (fd, header, header_len, deadline) || !write_all (fd, frames [i], lens [i], deadline))
            return false;
    }
    return true;
}

int
zmtp_peer_recv (int fd, char **frames, size_t *lens, size_t max, int timeout_ms)
{
    int64_t deadline = now_ms () + timeout_ms;
    size_t count = 0;
    while (true) {
        unsigned char flags;
        uint64_t size;
        if (!read_header (fd, &flags, &size, deadline) || size > ((uint64_t) 1 << 32))
            break;
        char *body = malloc ((size_t) size + 1);
        if (!body || !read_exact (fd, body, (size_t) size, deadline)) {
            free (body);
            break;
        }
        body [size] = '\0';
        if (flags & FLAG_COMMAND) {         /* e.g. a PING of the heartbeat: not a frame */
            free (body);
            continue;
        }
        if (count == max) {
            free (body);
            break;
        }
        frames [count] = body;
        lens [count++] = (size_t) size;
        if (!(flags & FLAG_MORE))
            return (int) count;
    }
    for (size_t i = 0; i < count; i++)
        free (frames [i]);
    return -1;
}
