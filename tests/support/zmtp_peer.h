/*  zmtp_peer — a ZeroMQ peer on a plain TCP socket, for the resource
 *  tests: it speaks just enough ZMTP 3.0 (the greeting, the NULL
 *  mechanism's READY, short and long frames) to be a DEALER dlqd accepts,
 *  without a ZeroMQ context behind it. So a test can hold ten thousand
 *  connections on ten thousand descriptors (no I/O thread, no pipes), or
 *  write requests and never read a byte of the replies (a DEALER socket's
 *  I/O thread would read them into its own queue).
 */
#ifndef ZMTP_PEER_H
#define ZMTP_PEER_H

#include <stdbool.h>
#include <stddef.h>

/* A plain TCP connection to 127.0.0.1:port (non-blocking), with SO_RCVBUF
 * set to rcvbuf bytes first when rcvbuf > 0 (a small window: the kernel
 * buffers little of what the peer never reads). The descriptor, or -1 when
 * the connection was refused or not made within timeout_ms (the gateway's
 * listen backlog is full). */
int zmtp_peer_tcp_connect (int port, int rcvbuf, int timeout_ms);

/* Do the ZMTP 3.0 handshake as a DEALER with the NULL mechanism on fd:
 * send the greeting and READY, read the gateway's greeting and READY
 * (timeout_ms in all). False when the gateway did not complete it. */
bool zmtp_peer_handshake (int fd, int timeout_ms);

/* zmtp_peer_tcp_connect, then zmtp_peer_handshake (5 s): a connected
 * DEALER's descriptor, or -1 (closed). */
int zmtp_peer_connect (int port, int rcvbuf);

/* Write one message of count frames (frames [i], lens [i] bytes) to fd,
 * waiting at most timeout_ms for the socket to take it. False when it did
 * not (the gateway stopped reading, or the connection broke). */
bool zmtp_peer_send (int fd, const void *const *frames, const size_t *lens, size_t count, int timeout_ms);

/* Read one whole message of at most max frames from fd (timeout_ms in
 * all): each frame malloc'd into frames [i] (NUL-terminated; free them),
 * its length into lens [i]. The frame count, or -1 on timeout, error or
 * more than max frames. */
int zmtp_peer_recv (int fd, char **frames, size_t *lens, size_t max, int timeout_ms);

#endif
