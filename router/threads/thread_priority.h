/*  thread_priority — the scheduling priority of one thread of dlqd.
 *
 *  Linux keeps a nice value per thread (setpriority on a thread id), so a
 *  thread can step back without slowing the rest of the process: the query
 *  threads do, so that under CPU contention (a COUNT reading a million
 *  rows on a two-core machine) the front end, the committer and ZeroMQ's
 *  I/O thread, which acknowledge PUTs, are scheduled first.
 */
#ifndef DLQ_THREAD_PRIORITY_H
#define DLQ_THREAD_PRIORITY_H

#include <stdbool.h>

/* Add increment (0 to 19) to the calling thread's nice value (lower its
 * priority; any process may). False when the kernel refused. */
bool dlq_thread_priority_lower (int increment);

#endif
