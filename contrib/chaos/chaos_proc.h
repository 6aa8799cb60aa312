/*  chaos_proc — child processes of the chaos run: dlqd itself and the
 *  service scripts.
 *
 *  A child gets none of the run's descriptors (the mock Kafka brokers'
 *  listening sockets, the clients' ZeroMQ sockets): a listener a child
 *  kept open would go on accepting connections after its broker was taken
 *  down. Its stdout and stderr go where the caller says.
 */
#ifndef DLQ_CHAOS_PROC_H
#define DLQ_CHAOS_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Start argv [0] (a path) with argv, stdin from /dev/null, stdout to the
 * descriptor out_fd and stderr to err_fd (-1: /dev/null), and, when
 * parent_death is set, SIGKILL when the calling thread ends (use it from
 * the thread that outlives the child). The child's pid, or -1 with errno. */
pid_t chaos_proc_spawn (char *const argv [], int out_fd, int err_fd, bool parent_death);

/* Run argv to its end: its stdout in out (NUL-terminated, cut to out_len
 * - 1; trailing line breaks removed; out may be NULL), its stderr appended
 * to the file log_path (NULL: /dev/null). Its wait status (see
 * chaos_proc_describe), or -1 when it could not be started. */
int chaos_proc_run (char *const argv [], char *out, size_t out_len, const char *log_path);

/* "exit status 3", "killed by signal 9 (Killed)". */
void chaos_proc_describe (int status, char *out, size_t len);

#endif
