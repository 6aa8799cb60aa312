/*  chaos_disk — the data_dir's own small filesystem, and filling it up.
 *
 *  The data_dir of a chaos run is a tmpfs of its own (mount(2): needs
 *  root), so that filling it with a ballast file until ENOSPC leaves
 *  dlqd no byte to commit in, without touching any other filesystem;
 *  removing the ballast frees it again.
 */
#ifndef DLQ_CHAOS_DISK_H
#define DLQ_CHAOS_DISK_H

#include <stdbool.h>
#include <stddef.h>

/* Give the calling process a mount namespace of its own, its mounts
 * private (none seen outside, none from outside): a tmpfs mounted then
 * goes away with the last process of the run, even one killed before it
 * could unmount. Call it while the process has one thread. False with err
 * (not root). */
bool chaos_disk_private_mounts (char *err, size_t err_len);

/* Mount a tmpfs of size_mb MiB on dir (an empty directory). False with
 * err (EPERM when not root). */
bool chaos_disk_mount (const char *dir, size_t size_mb, char *err, size_t err_len);

/* Unmount it (lazily, should something still hold it open). */
bool chaos_disk_unmount (const char *dir, char *err, size_t err_len);

/* Create path and write to it until the filesystem has no byte left
 * (ENOSPC for 1 MiB, then for 4 KiB writes); *bytes gets its size. The
 * file stays. False with err on another error. */
bool chaos_disk_fill (const char *path, size_t *bytes, char *err, size_t err_len);

/* Remove the ballast file. */
bool chaos_disk_free (const char *path, char *err, size_t err_len);

/* Bytes used on the filesystem of path, or -1. */
long long chaos_disk_used (const char *path);

#endif
