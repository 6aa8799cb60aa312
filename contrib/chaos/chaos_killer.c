/*  chaos_killer — SIGKILL and restart; see chaos_killer.h.
 *
 *  A dlqd that exits by itself is started again after RESTART_PAUSE_MS;
 *  MAX_EXIT_STREAK such exits in a row, without a reply from the gateway
 *  in between, end the run (dlqd cannot start: a configuration or store
 *  it refuses).
 */
#include "chaos_killer.h"

#include "chaos_proc.h"
#include "dlq_time.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define STEP_MS             2
#define RESTART_PAUSE_MS    100
#define MAX_EXIT_STREAK     5

typedef struct {
    chaos_daemon_t        *daemon;
    chaos_load_live_t     *live;
    atomic_bool           *stop;
    chaos_killer_result_t *result;
    unsigned long long     replies_at_start;   /* live->replies when dlqd was last started */
    int                    exit_streak;
} chaos_killer_t;

static bool
chaos_killer_restart (chaos_killer_t *k)
{
    if (!chaos_daemon_start (k->daemon, k->result->error, sizeof k->result->error)) {
        k->result->failed = true;
        return false;
    }
    k->result->restarts++;
    k->replies_at_start = atomic_load (&k->live->replies);
    return true;
}

/* Whether the dlqd started last answered anything. */
static bool
chaos_killer_answered (const chaos_killer_t *k)
{
    return atomic_load (&k->live->replies) != k->replies_at_start;
}

/* Note an exit dlqd made by itself (status), and start it again. */
static bool
chaos_killer_exited (chaos_killer_t *k, int status)
{
    chaos_killer_result_t *r = k->result;
    r->exits++;
    char how [128];
    chaos_proc_describe (status, how, sizeof how);
    if (!r->first_exit [0])
        snprintf (r->first_exit, sizeof r->first_exit, "%s (start %zu; see %s)", how,
                  chaos_daemon_starts (k->daemon), chaos_daemon_log_path (k->daemon));
    k->exit_streak = chaos_killer_answered (k) ? 1 : k->exit_streak + 1;
    if (k->exit_streak >= MAX_EXIT_STREAK) {
        snprintf (r->error, sizeof r->error, "dlqd exited %d times in a row without answering (last: %s; see %s)",
                  k->exit_streak, how, chaos_daemon_log_path (k->daemon));
        r->failed = true;
        return false;
    }
    usleep (RESTART_PAUSE_MS * 1000);
    return chaos_killer_restart (k);
}

/* Until the monotonic time until_ms (and, with hold, until it is clear),
 * restart dlqd whenever it exits. False when it cannot be kept up, or on a
 * stop. */
static bool
chaos_killer_watch_until (chaos_killer_t *k, int64_t until_ms, atomic_bool *hold)
{
    bool held = false;
    for (;;) {
        if (atomic_load (k->stop))
            return false;
        int status;
        if (chaos_daemon_exited (k->daemon, &status) && !chaos_killer_exited (k, status))
            return false;
        bool holding = hold && atomic_load (hold);
        if (holding && !held) {
            held = true;
            k->result->postponed++;
        }
        if (dlq_time_mono_ms () >= until_ms && !holding)
            return true;
        usleep (STEP_MS * 1000);
    }
}

static bool
chaos_killer_kill (chaos_killer_t *k)
{
    bool answered = chaos_killer_answered (k);
    int status = 0;
    if (!chaos_daemon_kill (k->daemon, &status))
        return chaos_killer_restart (k);
    if (!(WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL))
        return chaos_killer_exited (k, status);
    k->result->kills++;
    k->result->startup_kills += !answered;
    if (answered)
        k->exit_streak = 0;
    return chaos_killer_restart (k);
}

bool
chaos_killer_run (chaos_daemon_t *daemon, const chaos_plan_t *plan, int64_t phase_start_ms,
                  int64_t phase_ms, chaos_load_live_t *live, atomic_bool *hold, atomic_bool *stop,
                  chaos_killer_result_t *result)
{
    memset (result, 0, sizeof *result);
    chaos_killer_t k = {
        .daemon = daemon, .live = live, .stop = stop, .result = result,
        .replies_at_start = atomic_load (&live->replies),
    };
    for (size_t i = 0; i < plan->kills; i++)
        if (!chaos_killer_watch_until (&k, phase_start_ms + plan->kill_at_ms [i], hold)
            || !chaos_killer_kill (&k))
            return false;
    return chaos_killer_watch_until (&k, phase_start_ms + phase_ms, NULL);
}
