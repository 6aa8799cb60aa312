/*  spool_spare — zeroed files made ahead of the spool's next segment. */
#include "spool_spare.h"

#include "dlq_alloc.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define ZERO_CHUNK   (1u << 20)
#define SYNC_EVERY   (1u << 20)   /* a shallow device queue: the writer's syncs wait behind at most this */
#define FREE_FACTOR  4            /* a new file only with this many spares' worth of space free */

struct dlq_spool_spare {
    char                    *dir, *making_path, *ready_path, *held_path;
    uint64_t                 bytes;
    pthread_t                thread;
    pthread_mutex_t          lock;
    pthread_cond_t           wake;
    bool                     ready;         /* ready_path is whole */
    bool                     making;        /* making_path is being written, or set by a recycle: a
                                               released segment is there, waiting to be zeroed */
    bool                     held;          /* held_path: a released segment kept for the next one */
    bool                     want;          /* make one */
    bool                     stop;
    dlq_spool_spare_stats_t  stats;
};

static bool
enough_space (const dlq_spool_spare_t *self)
{
    struct statvfs st;
    if (statvfs (self->dir, &st) != 0)
        return false;
    return (uint64_t) st.f_bavail * st.f_frsize > FREE_FACTOR * self->bytes;
}

/* Write zeros over the first bytes of the file at path (made when
 * missing), cut it there and sync it. */
static bool
zero_fill (const char *path, uint64_t bytes, const uint8_t *zeros)
{
    int fd = open (path, O_WRONLY | O_CREAT | O_CLOEXEC, 0640);
    if (fd < 0)
        return false;
    bool ok = true;
    uint64_t done = 0, synced = 0;
    while (ok && done < bytes) {
        size_t n = bytes - done < ZERO_CHUNK ? (size_t) (bytes - done) : ZERO_CHUNK;
        ssize_t w = pwrite (fd, zeros, n, (off_t) done);
        if (w < 0 && errno == EINTR)
            continue;
        ok = w > 0;
        done += ok ? (uint64_t) w : 0;
        if (ok && done - synced >= SYNC_EVERY) {
            ok = fdatasync (fd) == 0;
            synced = done;
        }
    }
    ok = ok && ftruncate (fd, (off_t) bytes) == 0 && fdatasync (fd) == 0;   /* a recycled one may be longer */
    close (fd);
    return ok;
}

/* Is the file at path bytes long and all zeros? (zeros: ZERO_CHUNK of them) */
static bool
all_zeros (const char *path, uint64_t bytes, const uint8_t *zeros)
{
    int fd = open (path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    bool ok = fd >= 0 && fstat (fd, &st) == 0 && (uint64_t) st.st_size == bytes;
    uint8_t *buf = ok ? dlq_malloc (ZERO_CHUNK) : NULL;
    for (uint64_t done = 0; ok && done < bytes; ) {
        size_t n = bytes - done < ZERO_CHUNK ? (size_t) (bytes - done) : ZERO_CHUNK;
        ssize_t got = pread (fd, buf, n, (off_t) done);
        ok = got == (ssize_t) n && memcmp (buf, zeros, n) == 0;
        done += n;
    }
    free (buf);
    if (fd >= 0)
        close (fd);
    return ok;
}

static void *
run (void *arg)
{
    dlq_spool_spare_t *self = arg;
    uint8_t *zeros = dlq_calloc (1, ZERO_CHUNK);
    /* a spare an earlier run left whole (synced before its rename) is
     * taken as it is, once read back as zeros: a restart writes nothing */
    bool whole = all_zeros (self->ready_path, self->bytes, zeros);
    if (!whole)
        unlink (self->ready_path);
    pthread_mutex_lock (&self->lock);
    self->ready = whole;
    for (;;) {
        while (!self->stop && (self->ready || (!self->want && !self->making)))
            pthread_cond_wait (&self->wake, &self->lock);
        if (self->stop)
            break;
        if (!self->making && self->held) {
            self->held = false;
            if (rename (self->held_path, self->making_path) == 0)
                self->making = true;
            else
                unlink (self->held_path);
        }
        bool recycled = self->making;   /* only a recycle sets it before this point */
        if (!recycled && !enough_space (self)) {
            self->stats.failed++;
            self->want = self->making = false;
            continue;
        }
        self->making = true;
        self->want = false;
        pthread_mutex_unlock (&self->lock);
        bool ok = zero_fill (self->making_path, self->bytes, zeros)
                  && rename (self->making_path, self->ready_path) == 0;
        if (!ok)
            unlink (self->making_path);
        pthread_mutex_lock (&self->lock);
        self->making = false;
        self->ready = ok;
        self->stats.failed += !ok;
    }
    pthread_mutex_unlock (&self->lock);
    free (zeros);
    return NULL;
}

static void
free_spare (dlq_spool_spare_t **self_p)
{
    dlq_spool_spare_t *self = *self_p;
    pthread_cond_destroy (&self->wake);
    pthread_mutex_destroy (&self->lock);
    free (self->dir);
    free (self->making_path);
    free (self->ready_path);
    free (self->held_path);
    free (self);
    *self_p = NULL;
}

dlq_spool_spare_t *
dlq_spool_spare_new (const char *dir, uint64_t bytes)
{
    dlq_spool_spare_t *self = dlq_calloc (1, sizeof *self);
    self->dir = dlq_strdup (dir);
    size_t len = strlen (dir) + sizeof "/spare.zero";
    self->making_path = dlq_malloc (len);
    self->ready_path = dlq_malloc (len);
    self->held_path = dlq_malloc (len);
    snprintf (self->making_path, len, "%s/spare.tmp", dir);
    snprintf (self->ready_path, len, "%s/spare.zero", dir);
    snprintf (self->held_path, len, "%s/spare.old", dir);
    unlink (self->making_path);             /* half made */
    self->held = access (self->held_path, F_OK) == 0;
    self->bytes = bytes;
    self->want = true;
    pthread_mutex_init (&self->lock, NULL);
    pthread_cond_init (&self->wake, NULL);
    if (pthread_create (&self->thread, NULL, run, self) != 0)
        free_spare (&self);
    return self;
}

void
dlq_spool_spare_destroy (dlq_spool_spare_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_spool_spare_t *self = *self_p;
    pthread_mutex_lock (&self->lock);
    self->stop = true;
    pthread_cond_signal (&self->wake);
    pthread_mutex_unlock (&self->lock);
    pthread_join (self->thread, NULL);
    if (self->making)
        unlink (self->making_path);     /* recycled, never started on */
    if (self->held)
        unlink (self->held_path);
    free_spare (self_p);
}

bool
dlq_spool_spare_ready (dlq_spool_spare_t *self)
{
    pthread_mutex_lock (&self->lock);
    bool ready = self->ready;
    pthread_mutex_unlock (&self->lock);
    return ready;
}

bool
dlq_spool_spare_take (dlq_spool_spare_t *self, const char *path, uint64_t *bytes_out)
{
    pthread_mutex_lock (&self->lock);
    bool taken = self->ready && rename (self->ready_path, path) == 0;
    if (self->ready && !taken)
        unlink (self->ready_path);
    if (taken)
        self->stats.taken++;
    else
        self->stats.missed++;
    self->ready = false;
    self->want = true;
    pthread_cond_signal (&self->wake);
    pthread_mutex_unlock (&self->lock);
    *bytes_out = taken ? self->bytes : 0;
    return taken;
}

bool
dlq_spool_spare_recycle (dlq_spool_spare_t *self, const char *path)
{
    pthread_mutex_lock (&self->lock);
    bool taken = false;
    if (!self->ready && !self->making && rename (path, self->making_path) == 0) {
        taken = self->making = true;
        pthread_cond_signal (&self->wake);
    }
    else
    if (!self->held && rename (path, self->held_path) == 0)
        taken = self->held = true;      /* made into the spare after the next take */
    pthread_mutex_unlock (&self->lock);
    return taken;
}

void
dlq_spool_spare_stats (dlq_spool_spare_t *self, dlq_spool_spare_stats_t *out)
{
    pthread_mutex_lock (&self->lock);
    *out = self->stats;
    pthread_mutex_unlock (&self->lock);
}
