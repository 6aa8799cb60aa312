/*  fd_limit — the process's limit on open files (RLIMIT_NOFILE), raised
 *  at start. Every client connection holds a descriptor, so the soft
 *  limit (1024 in most shells and in systemd's default) would cap the
 *  gateway at about a thousand connections, while the hard limit
 *  (typically 524288 under systemd) is what the administrator allows.
 */
#ifndef DLQ_FD_LIMIT_H
#define DLQ_FD_LIMIT_H

#include <stdint.h>

/* Descriptors dlqd keeps for itself (the store's files, the sinks'
 * connections, ZeroMQ's own) when it derives gateway.max_connections
 * from the limit. */
#define DLQ_FD_RESERVED 256

/* Raise the soft limit on open files to the hard limit. Returns the soft
 * limit now in force (-1 when it cannot be read: unlimited is INT64_MAX);
 * *before (when not NULL) gets the soft limit found. */
int64_t dlq_fd_limit_raise (int64_t *before);

/* gateway.max_connections when the config leaves it out: the open-files
 * limit less DLQ_FD_RESERVED, at least 16 and at most 1000000. */
int64_t dlq_fd_limit_connections (int64_t limit);

#endif
