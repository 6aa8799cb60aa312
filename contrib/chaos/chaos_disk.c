/*  chaos_disk — tmpfs and ballast; see chaos_disk.h.
 *
 *  tmpfs hands out whole pages, so once a 4 KiB write fails with ENOSPC
 *  nothing is left for anyone: no SQLite page, no WAL frame, no new file.
 */
#include "chaos_disk.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define BIG_CHUNK   (1024 * 1024)
#define SMALL_CHUNK 4096

bool
chaos_disk_private_mounts (char *err, size_t err_len)
{
    if (unshare (CLONE_NEWNS) != 0) {
        snprintf (err, err_len, "unshare (CLONE_NEWNS): %s", strerror (errno));
        return false;
    }
    if (mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
        snprintf (err, err_len, "making / private in the run's mount namespace: %s", strerror (errno));
        return false;
    }
    return true;
}

bool
chaos_disk_mount (const char *dir, size_t size_mb, char *err, size_t err_len)
{
    char options [64];
    snprintf (options, sizeof options, "size=%zum,mode=0755", size_mb);
    if (mount ("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, options) == 0)
        return true;
    snprintf (err, err_len, "mount -t tmpfs -o %s tmpfs %s: %s", options, dir, strerror (errno));
    return false;
}

bool
chaos_disk_unmount (const char *dir, char *err, size_t err_len)
{
    if (umount2 (dir, MNT_DETACH) == 0)
        return true;
    snprintf (err, err_len, "umount %s: %s", dir, strerror (errno));
    return false;
}

/* Write chunk-sized blocks of zeros to fd until ENOSPC. */
static bool
chaos_disk_write_until_full (int fd, const char *zeros, size_t chunk, size_t *bytes)
{
    for (;;) {
        ssize_t n = write (fd, zeros, chunk);
        if (n > 0) {
            *bytes += (size_t) n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        return n < 0 && errno == ENOSPC;
    }
}

bool
chaos_disk_fill (const char *path, size_t *bytes, char *err, size_t err_len)
{
    *bytes = 0;
    int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf (err, err_len, "cannot create %s: %s", path, strerror (errno));
        return false;
    }
    char *zeros = calloc (1, BIG_CHUNK);
    bool ok = zeros && chaos_disk_write_until_full (fd, zeros, BIG_CHUNK, bytes)
              && chaos_disk_write_until_full (fd, zeros, SMALL_CHUNK, bytes);
    if (!ok)
        snprintf (err, err_len, "filling %s: %s", path, strerror (errno));
    free (zeros);
    close (fd);
    return ok;
}

bool
chaos_disk_free (const char *path, char *err, size_t err_len)
{
    if (unlink (path) == 0 || errno == ENOENT)
        return true;
    snprintf (err, err_len, "cannot remove %s: %s", path, strerror (errno));
    return false;
}

long long
chaos_disk_used (const char *path)
{
    struct statvfs st;
    if (statvfs (path, &st) != 0)
        return -1;
    return (long long) (st.f_blocks - st.f_bfree) * (long long) st.f_frsize;
}
