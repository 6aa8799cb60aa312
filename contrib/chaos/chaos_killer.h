/*  chaos_killer — the kills of a chaos run: at each planned moment,
 *  SIGKILL dlqd and start it again at once on the same config and
 *  data_dir, and in between, notice when dlqd ends by itself (a crash)
 *  and start it again too.
 *
 *  It runs on the calling thread (the run's main thread: dlqd dies with
 *  the thread that started it) until the end of the fault phase. A kill
 *  due while hold is set (the data_dir is full) waits until it is clear,
 *  so a full disk is met by a running gateway, not by one starting.
 */
#ifndef DLQ_CHAOS_KILLER_H
#define DLQ_CHAOS_KILLER_H

#include "chaos_daemon.h"
#include "chaos_load.h"
#include "chaos_plan.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    size_t kills;               /* SIGKILLs sent */
    size_t startup_kills;       /* of those, before that dlqd had answered any request */
    size_t postponed;           /* kills that waited for a full disk to be freed */
    size_t restarts;            /* starts after a kill or an exit */
    size_t exits;               /* dlqd ended by itself (a crash) */
    char   first_exit [256];    /* how, the first time */
    bool   failed;              /* dlqd could not be kept running */
    char   error [512];
} chaos_killer_result_t;

/* Carry out plan's kills on daemon (running) from phase_start_ms
 * (monotonic) until phase_start_ms + phase_ms; live tells whether a dlqd
 * answered anything. False when dlqd could not be started again (then
 * result says why), or on a stop. */
bool chaos_killer_run (chaos_daemon_t *daemon, const chaos_plan_t *plan, int64_t phase_start_ms,
                       int64_t phase_ms, chaos_load_live_t *live, atomic_bool *hold,
                       atomic_bool *stop, chaos_killer_result_t *result);

#endif
