/*  embedded_wal — the writer's wal_hook and the readers' pauses; see
 *  embedded_wal.h. The hook runs on the writer's thread inside each commit
 *  (after it is durable), with the number of frames in the WAL. */
#include "embedded_wal.h"

#include "dlq_alloc.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PAUSE_STEP_NS 250000            /* how often a pausing reader looks again */

static atomic_bool restart_wanted;      /* the writer's WAL is over EMBEDDED_WAL_FRAMES_MAX */
static atomic_uint_fast64_t commits;    /* the writer's commits, counted by the hook */

struct embedded_wal_behind {
    sqlite3         *db;                /* its own connection */
    pthread_t        thread;
    pthread_mutex_t  lock;
    pthread_cond_t   wake;
    bool             asked;             /* the writer asked for a checkpoint since the last one began */
    bool             stop;
    int              files [2];         /* the database and its WAL, for their writeback (-1: none) */
    int64_t          written_back_ns;   /* when the writer last started it (monotonic) */
};

static int64_t
mono_ns (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* On the writer's thread after a commit, at most every
 * EMBEDDED_WAL_WRITEBACK_MS: start writing the files' dirty pages out
 * (sync_file_range, no wait for them). */
static void
behind_write_back (embedded_wal_behind_t *self)
{
    int64_t now = mono_ns ();
    if (now - self->written_back_ns < EMBEDDED_WAL_WRITEBACK_MS * 1000000LL)
        return;
    self->written_back_ns = now;
    for (int i = 0; i < 2; i++)
        if (self->files [i] >= 0)
            sync_file_range (self->files [i], 0, 0, SYNC_FILE_RANGE_WRITE);
}

static void *
behind_run (void *arg)
{
    embedded_wal_behind_t *self = arg;
    pthread_setname_np (pthread_self (), "dlqd-wal");
    pthread_mutex_lock (&self->lock);
    while (!self->stop) {
        if (!self->asked) {
            pthread_cond_wait (&self->wake, &self->lock);
            continue;
        }
        self->asked = false;
        pthread_mutex_unlock (&self->lock);
        /* copies what the writer committed so far, never waiting for it;
         * BUSY when the writer's own RESTART try is copying */
        sqlite3_wal_checkpoint_v2 (self->db, "main", SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
        pthread_mutex_lock (&self->lock);
    }
    pthread_mutex_unlock (&self->lock);
    return NULL;
}

static void
behind_ask (embedded_wal_behind_t *self)
{
    pthread_mutex_lock (&self->lock);
    self->asked = true;
    pthread_cond_signal (&self->wake);
    pthread_mutex_unlock (&self->lock);
}

static void
close_files (embedded_wal_behind_t *self)
{
    for (int i = 0; i < 2; i++)
        if (self->files [i] >= 0)
            close (self->files [i]);
}

bool
embedded_wal_behind_start (embedded_wal_t *wal, const char *path, char *err, size_t err_len)
{
    embedded_wal_behind_t *self = dlq_calloc (1, sizeof *self);
    /* synchronous NORMAL: a checkpoint syncs the WAL before it copies and
     * the database before the WAL may start over, as the writer's do */
    if (sqlite3_open_v2 (path, &self->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK
    ||  sqlite3_exec (self->db, "PRAGMA synchronous = NORMAL", NULL, NULL, NULL) != SQLITE_OK) {
        snprintf (err, err_len, "cannot open a checkpoint connection to %s: %s", path,
                  self->db ? sqlite3_errmsg (self->db) : "out of memory");
        sqlite3_close (self->db);
        free (self);
        return false;
    }
    size_t len = strlen (path) + sizeof "-wal";
    char *wal_path = dlq_malloc (len);
    snprintf (wal_path, len, "%s-wal", path);
    self->files [0] = open (path, O_RDONLY | O_CLOEXEC);      /* -1: that file is not paced, no more */
    self->files [1] = open (wal_path, O_RDONLY | O_CLOEXEC);
    free (wal_path);
    pthread_mutex_init (&self->lock, NULL);
    pthread_cond_init (&self->wake, NULL);
    if (pthread_create (&self->thread, NULL, behind_run, self) != 0) {
        snprintf (err, err_len, "cannot start the checkpoint thread of %s", path);
        close_files (self);
        pthread_cond_destroy (&self->wake);
        pthread_mutex_destroy (&self->lock);
        sqlite3_close (self->db);
        free (self);
        return false;
    }
    wal->behind = self;
    return true;
}

void
embedded_wal_behind_stop (embedded_wal_t *wal)
{
    embedded_wal_behind_t *self = wal->behind;
    if (!self)
        return;
    pthread_mutex_lock (&self->lock);
    self->stop = true;
    pthread_cond_signal (&self->wake);
    pthread_mutex_unlock (&self->lock);
    pthread_join (self->thread, NULL);
    close_files (self);
    pthread_cond_destroy (&self->wake);
    pthread_mutex_destroy (&self->lock);
    sqlite3_close (self->db);
    free (self);
    wal->behind = NULL;
}

static int
wal_hook (void *arg, sqlite3 *db, const char *name, int frames)
{
    embedded_wal_t *wal = arg;
    atomic_fetch_add_explicit (&commits, 1, memory_order_release);
    if (wal->behind)
        behind_write_back (wal->behind);
    if (frames < wal->checkpointed_frames)
        wal->checkpointed_frames = 0;   /* the WAL started over */
    bool over = frames >= EMBEDDED_WAL_FRAMES_MAX;
    if (!over && frames - wal->checkpointed_frames < EMBEDDED_WAL_CHECKPOINT) {
        atomic_store_explicit (&restart_wanted, false, memory_order_release);
        return SQLITE_OK;
    }
    if (!over && wal->behind) {
        atomic_store_explicit (&restart_wanted, false, memory_order_release);
        behind_ask (wal->behind);
        wal->checkpointed_frames = frames;
        return SQLITE_OK;
    }
    if (over) {
        atomic_store_explicit (&restart_wanted, true, memory_order_release);
        embedded_wal_busy_wait (db, 0); /* never wait for a reader here */
    }
    int rc = sqlite3_wal_checkpoint_v2 (db, name, over ? SQLITE_CHECKPOINT_RESTART : SQLITE_CHECKPOINT_PASSIVE,
                                        NULL, NULL);
    if (over) {
        embedded_wal_busy_wait (db, wal->busy_timeout_ms);
        if (rc == SQLITE_OK)
            atomic_store_explicit (&restart_wanted, false, memory_order_release);
    }
    wal->checkpointed_frames = frames;
    return SQLITE_OK;
}

/* The busy handler: its argument is the timeout in ms; count is how many
 * times it was called for this lock (the waits so far follow from it). */
static int
busy_poll (void *arg, int count)
{
    int64_t timeout_us = (int64_t) (intptr_t) arg * 1000;
    int64_t polls = EMBEDDED_WAL_POLL_MS * 1000 / EMBEDDED_WAL_POLL_US;
    int64_t waited_us = count < polls ? (int64_t) count * EMBEDDED_WAL_POLL_US
                                      : EMBEDDED_WAL_POLL_MS * 1000 + (count - polls) * 1000;
    if (waited_us >= timeout_us)
        return 0;
    int64_t step_us = count < polls ? EMBEDDED_WAL_POLL_US : 1000;
    struct timespec ts = { 0, (long) step_us * 1000 };
    nanosleep (&ts, NULL);
    return 1;
}

void
embedded_wal_busy_wait (sqlite3 *db, int timeout_ms)
{
    if (timeout_ms <= 0)
        sqlite3_busy_handler (db, NULL, NULL);
    else
        sqlite3_busy_handler (db, busy_poll, (void *) (intptr_t) timeout_ms);
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
