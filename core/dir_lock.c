/*  dir_lock — one process at a time in a directory (see the header). */
#include "dir_lock.h"

#include "dlq_alloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

struct dlq_dir_lock {
    int fd;
};

/* The pid written in the file, or 0. */
static long
owner_of (int fd)
{
    char text [32] = "";
    ssize_t n = pread (fd, text, sizeof text - 1, 0);
    return n > 0 ? strtol (text, NULL, 10) : 0;
}

dlq_dir_lock_result_t
dlq_dir_lock_take (const char *dir, const char *name, dlq_dir_lock_t **lock_out, char *err, size_t err_len)
{
    *lock_out = NULL;
    char path [PATH_MAX];
    snprintf (path, sizeof path, "%s/%s", dir, name);
    int fd = open (path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf (err, err_len, "cannot open %s: %s", path, strerror (errno));
        return DLQ_DIR_LOCK_ERROR;
    }
    if (flock (fd, LOCK_EX | LOCK_NB) != 0) {
        int code = errno;
        long pid = code == EWOULDBLOCK ? owner_of (fd) : 0;
        close (fd);
        if (code != EWOULDBLOCK) {
            snprintf (err, err_len, "cannot lock %s: %s", path, strerror (code));
            return DLQ_DIR_LOCK_ERROR;
        }
        if (pid > 0)
            snprintf (err, err_len, "%s is in use by another process (pid %ld holds %s)", dir, pid, path);
        else
            snprintf (err, err_len, "%s is in use by another process (it holds %s)", dir, path);
        return DLQ_DIR_LOCK_HELD;
    }
    char text [32];
    int len = snprintf (text, sizeof text, "%ld\n", (long) getpid ());
    /* the pid is for the next one's message only: the lock holds without it */
    bool noted = ftruncate (fd, 0) == 0 && pwrite (fd, text, (size_t) len, 0) == len;
    (void) noted;
    dlq_dir_lock_t *self = dlq_calloc (1, sizeof *self);
    self->fd = fd;
    *lock_out = self;
    return DLQ_DIR_LOCK_OK;
}

void
dlq_dir_lock_release (dlq_dir_lock_t **lock_p)
{
    if (!lock_p || !*lock_p)
        return;
    close ((*lock_p)->fd);
    free (*lock_p);
    *lock_p = NULL;
}
