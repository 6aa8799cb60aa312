/*  dir_lock — one process at a time in a directory: an exclusive,
 *  non-blocking flock(2) on a file in it (created if missing) that lasts
 *  as long as the lock object (the kernel drops it when the process dies,
 *  SIGKILL included, so a crash leaves no stale lock). The file holds the
 *  owner's pid, for the message of whoever is refused.
 */
#ifndef DLQ_DIR_LOCK_H
#define DLQ_DIR_LOCK_H

#include <stddef.h>

typedef struct dlq_dir_lock dlq_dir_lock_t;

typedef enum {
    DLQ_DIR_LOCK_OK = 0,
    DLQ_DIR_LOCK_HELD,          /* another process holds it (err names its pid when known) */
    DLQ_DIR_LOCK_ERROR          /* the file cannot be opened or locked (err says why) */
} dlq_dir_lock_result_t;

/* Lock dir/name. On DLQ_DIR_LOCK_OK *lock_out is the lock; otherwise NULL
 * and err (err_len bytes) says why. */
dlq_dir_lock_result_t dlq_dir_lock_take (const char *dir, const char *name, dlq_dir_lock_t **lock_out,
                                         char *err, size_t err_len);

/* Let go (the file stays); accepts NULL and NULLs the pointer. */
void dlq_dir_lock_release (dlq_dir_lock_t **lock_p);

#endif
