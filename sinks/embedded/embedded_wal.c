/*  embedded_wal — the writer's wal_hook and the readers' pauses; see
 *  embedded_wal.h. The hook runs on the writer's thread inside each commit
 *  (after it is durable), with the number of frames in the WAL. */
#include "embedded_wal.h"

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#define PAUSE_STEP_NS 250000            /* how often a pausing reader looks again */

static atomic_bool restart_wanted;      /* the writer's WAL is over EMBEDDED_WAL_FRAMES_MAX */
static atomic_uint_fast64_t commits;    /* the writer's commits, counted by the hook */

static int
wal_hook (void *arg, sqlite3 *db, const char *name, int frames)
{
    embedded_wal_t *wal = arg;
    atomic_fetch_add_explicit (&commits, 1, memory_order_release);
    if (frames < wal->checkpointed_frames)
        wal->checkpointed_frames = 0;   /* the WAL started over */
    bool over = frames >= EMBEDDED_WAL_FRAMES_MAX;
    if (!over && frames - wal->checkpointed_frames < EMBEDDED_WAL_CHECKPOINT) {
        atomic_store_explicit (&restart_wanted, false, memory_order_release);
        return SQLITE_OK;
    }
    if (over) {
        atomic_store_explicit (&restart_wanted, true, memory_order_release);
        sqlite3_busy_timeout (db, 0);   /* never wait for a reader here */
    }
    int rc = sqlite3_wal_checkpoint_v2 (db, name, over ? SQLITE_CHECKPOINT_RESTART : SQLITE_CHECKPOINT_PASSIVE,
                                        NULL, NULL);
    if (over) {
        sqlite3_busy_timeout (db, wal->busy_timeout_ms);
        if (rc == SQLITE_OK)
            atomic_store_explicit (&restart_wanted, false, memory_order_release);
    }
    wal->checkpointed_frames = frames;
    return SQLITE_OK;
}

void
embedded_wal_writer (sqlite3 *db, embedded_wal_t *wal)
{
    sqlite3_wal_hook (db, wal_hook, wal);
}

void
embedded_wal_pause (bool *idle)
{
    if (*idle || !atomic_load_explicit (&restart_wanted, memory_order_acquire))
        return;
    uint_fast64_t seen = atomic_load_explicit (&commits, memory_order_acquire);
    struct timespec step = { 0, PAUSE_STEP_NS };
    for (long waited = 0; waited < EMBEDDED_WAL_PAUSE_MS * 1000000L; waited += PAUSE_STEP_NS) {
        nanosleep (&step, NULL);
        if (atomic_load_explicit (&commits, memory_order_acquire) != seen
        ||  !atomic_load_explicit (&restart_wanted, memory_order_acquire))
            return;
    }
    *idle = true;
}
