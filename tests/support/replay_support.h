/*  replay_support — what the replay suites (itest_replay,
 *  itest_replay_postgres) receive on a gateway's ZeroMQ replay endpoint:
 *  a PULL socket connected to it, the replayed messages
 *  ([job][id][body]) one at a time, and where an id stands among the
 *  events a test put.
 */
#ifndef REPLAY_SUPPORT_H
#define REPLAY_SUPPORT_H

#include "dlq_uuid.h"

#include <stdbool.h>

#define REPLAY_JOB_SIZE 64      /* what replay_pull writes into job at most */

/* A PULL socket of zctx connected to endpoint, whose receives give up
 * after timeout_ms (no linger). The test fails when it cannot connect. */
void *replay_pull_open (void *zctx, const char *endpoint, int timeout_ms);

/* One replayed message: its job id into job (REPLAY_JOB_SIZE bytes), the
 * event's id into id (DLQ_UUID_LEN + 1 bytes) and its body into *body
 * (caller frees); each may be NULL when not wanted. False when none came
 * in time; the test fails when a message is not 3 frames. */
bool replay_pull (void *pull, char *job, char *id, char **body);

/* The index of id among ids [0, n), or -1. */
int replay_index_of (char (*ids) [DLQ_UUID_LEN + 1], int n, const char *id);

#endif
