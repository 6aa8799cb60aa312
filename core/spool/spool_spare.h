/*  spool_spare — the spool's next segment, made ahead of time: a file of
 *  zeros one segment long, written and synced on a thread of its own.
 *
 *  Why: appending to a file that grows is the dear part of a group commit
 *  on ext4. Each write must allocate page-cache pages and reserve blocks,
 *  and each fdatasync must commit the journal for the new size and
 *  extents, which also waits behind every other file's dirty data (the
 *  store's WAL). Measured here (contrib/bench, 300 writes of 630 KB each
 *  followed by fdatasync): a pwrite took 1.3-1.8 ms extending a file and
 *  0.04-0.09 ms into a zeroed one, an fdatasync 0.5-0.7 ms against
 *  0.2-0.3 ms. Overwriting allocated blocks changes no metadata, so the
 *  sync is the data alone.
 *
 *  The spare is DIR/spare.zero once whole (DIR/spare.tmp while being made;
 *  none of these is a segment, spool_segment.h). A segment the spool
 *  releases is recycled: it becomes the spare being made when none is, or
 *  else is kept as DIR/spare.old (one at most) for the next one; it is
 *  overwritten with zeros (its blocks are allocated and its pages mostly
 *  cached, so that costs little). So the data_dir holds up to two
 *  segments' worth of files beside the log. A new file is only made when
 *  the filesystem has more than four segments' worth of space free, so a
 *  small or nearly full filesystem never gives its last bytes to a spare.
 *  A spare is never needed for correctness: without one the spool starts
 *  a segment that grows, as it always did. At start-up a half-made spare
 *  (spare.tmp) is deleted, a whole one (spare.zero: synced before it was
 *  renamed) is read back and taken when it is a segment long and all
 *  zeros, else deleted and made anew, and a kept segment (spare.old) is
 *  kept for the next one.
 */
#ifndef DLQ_SPOOL_SPARE_H
#define DLQ_SPOOL_SPARE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct dlq_spool_spare dlq_spool_spare_t;

typedef struct {
    uint64_t taken;             /* spares that became segments */
    uint64_t missed;            /* segments started without one (none was ready) */
    uint64_t failed;            /* spares that could not be made (I/O error, too little free space) */
} dlq_spool_spare_stats_t;

/* Start making spares of bytes each in dir (which exists). NULL when the
 * thread cannot be started. */
dlq_spool_spare_t *dlq_spool_spare_new (const char *dir, uint64_t bytes);

/* Stop the thread (waits for a spare being made; a whole one stays for
 * nothing: the next start deletes it). Accepts NULL and NULLs the pointer. */
void dlq_spool_spare_destroy (dlq_spool_spare_t **self_p);

/* Is a spare ready to take? */
bool dlq_spool_spare_ready (dlq_spool_spare_t *self);

/* Rename the ready spare to path and start the next one. True with its
 * length in *bytes_out; false when none is ready (counted as missed) or the
 * rename failed: then path does not exist and the caller makes it. */
bool dlq_spool_spare_take (dlq_spool_spare_t *self, const char *path, uint64_t *bytes_out);

/* Offer the released segment at path for a spare. True when it was taken
 * (renamed away at once); false when one is held already: the caller
 * deletes the file. */
bool dlq_spool_spare_recycle (dlq_spool_spare_t *self, const char *path);

void dlq_spool_spare_stats (dlq_spool_spare_t *self, dlq_spool_spare_stats_t *out);

#endif
