/*  embedded_wal — how the embedded store keeps its write-ahead log short
 *  while queries read beside the writer.
 *
 *  SQLite starts the WAL over from its beginning only when a checkpoint
 *  has copied all of it back into the database and no reader still reads
 *  an older view. Readers that follow one another without a gap (a COUNT
 *  in slices, query after query) always hold a view older than the
 *  writer's latest commit, so the WAL is never started over: it grows by
 *  everything written (300 MB in 8 s at 2,000 PUTs/s), and when the reads
 *  stop, the commit that checkpoints copies it all back while the PUTs
 *  behind it wait (a 600-700 ms stall of the acks measured after a run of
 *  COUNTs). So:
 *    - the writer checkpoints (PASSIVE) every EMBEDDED_WAL_CHECKPOINT
 *      frames, as SQLite's automatic checkpoint does, but not after every
 *      commit once the WAL is long (each of those fsyncs the database for
 *      the little it can copy);
 *    - once the WAL holds EMBEDDED_WAL_FRAMES_MAX frames, the writer asks
 *      for a restart: after each commit it tries a RESTART checkpoint
 *      that does not wait (the acks never wait for a reader), and the long
 *      reads, between two of their slices, pause until the writer's next
 *      commit (at most EMBEDDED_WAL_PAUSE_MS), so that one finds no reader
 *      in the way.
 *  The request is one flag for the whole process (a process has one
 *  writer per data directory; a reader of another store pauses a few ms
 *  for nothing at worst).
 */
#ifndef DLQ_EMBEDDED_WAL_H
#define DLQ_EMBEDDED_WAL_H

#include <sqlite3.h>
#include <stdbool.h>

#define EMBEDDED_WAL_CHECKPOINT  1000   /* frames between two checkpoints */
#define EMBEDDED_WAL_FRAMES_MAX  4096   /* frames (32 MiB of 8 KiB pages) before a restart is asked for */
#define EMBEDDED_WAL_PAUSE_MS    20     /* longest pause of a reader between two slices */

/* The writer's side, kept between commits. */
typedef struct {
    int checkpointed_frames;            /* frames in the WAL at the last checkpoint (0 at first) */
    int busy_timeout_ms;                /* the connection's own busy timeout, restored after a restart try */
} embedded_wal_t;

/* Install the writer's checkpoints on db (replacing SQLite's automatic
 * one); wal (the caller's, set up as above) must outlive the connection. */
void embedded_wal_writer (sqlite3 *db, embedded_wal_t *wal);

/* Called by a long read between two slices (outside any transaction): if
 * the writer asked for a restart, wait for its next commit, at most
 * EMBEDDED_WAL_PAUSE_MS. *idle (false at the read's start) becomes true
 * when a pause saw no commit at all: the writer is idle and the rest of
 * the read does not pause. */
void embedded_wal_pause (bool *idle);

#endif
