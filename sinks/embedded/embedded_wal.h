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
 *
 *  A writer may hand its PASSIVE checkpoints to a thread of their own
 *  (embedded_wal_behind_start), which copies the WAL back into the
 *  database on its own connection while the writer goes on appending:
 *  the checkpoints took 2.3 s of the indexer's 6.9 s behind 200,000 PUTs
 *  (dlqd_bench), serial with its inserts, while the other core idled once
 *  the acks were done. Only the steps of EMBEDDED_WAL_CHECKPOINT go
 *  there; at EMBEDDED_WAL_FRAMES_MAX the writer does its RESTART tries
 *  itself as above (when the thread is in the middle of a checkpoint the
 *  try finds it busy and the thread's copy goes on), so the WAL is kept
 *  as short as before.
 *
 *  With that thread, the writer also starts the writeback of the
 *  database's and the WAL's dirty pages after its commits, at most every
 *  EMBEDDED_WAL_WRITEBACK_MS (sync_file_range, without waiting for it):
 *  its commits are relaxed and nothing else writes those pages back for
 *  up to the kernel's dirty_expire (30 s), so each checkpoint's fsync had
 *  megabytes to write at once, and the log's fdatasync behind it on the
 *  same disk waited for them. Side by side (dlqd_bench --paced-only, 10,000
 *  PUTs/s): the acks' p99 7.3 / 8.2 ms without it, 5.6 / 4.4 ms with it
 *  (max 12.3 / 14.4 against 10.7 / 6.4 ms); at full load (--events
 *  200000) the same 80k acks/s, their p99 67.5 / 37.6 against 27.9 / 29.3
 *  ms.
 */
#ifndef DLQ_EMBEDDED_WAL_H
#define DLQ_EMBEDDED_WAL_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>

#define EMBEDDED_WAL_CHECKPOINT  1000   /* frames between two checkpoints */
#define EMBEDDED_WAL_FRAMES_MAX  4096   /* frames (32 MiB of 8 KiB pages) before a restart is asked for */
#define EMBEDDED_WAL_PAUSE_MS    20     /* longest pause of a reader between two slices */
#define EMBEDDED_WAL_WRITEBACK_MS 5     /* the writer starts its files' writeback at most this often */

typedef struct embedded_wal_behind embedded_wal_behind_t;

/* The writer's side, kept between commits. */
typedef struct {
    int checkpointed_frames;            /* frames in the WAL at the last checkpoint (0 at first) */
    int busy_timeout_ms;                /* the connection's own busy timeout, restored after a restart try */
    embedded_wal_behind_t *behind;      /* the checkpoints' own thread, or NULL: the writer makes them */
} embedded_wal_t;

/* Make db wait up to timeout_ms for a lock another connection holds,
 * looking again every EMBEDDED_WAL_POLL_US for the first
 * EMBEDDED_WAL_POLL_MS, then every millisecond (sqlite3_busy_timeout's
 * waits grow to 100 ms: a connection writing in a loop would keep the
 * lock from a waiter that sleeps through the microseconds between its
 * transactions, so two writers would take turns of seconds). 0: no wait. */
#define EMBEDDED_WAL_POLL_US     50
#define EMBEDDED_WAL_POLL_MS     10
void embedded_wal_busy_wait (sqlite3 *db, int timeout_ms);

/* Install the writer's checkpoints on db (replacing SQLite's automatic
 * one); wal (the caller's, set up as above) must outlive the connection. */
void embedded_wal_writer (sqlite3 *db, embedded_wal_t *wal);

/* Start a thread that makes the writer's PASSIVE checkpoints on a
 * connection of its own to the database at path (WAL mode already). It
 * runs at the calling thread's priority. False with err set when it cannot
 * (the writer then makes them itself, as before). */
bool embedded_wal_behind_start (embedded_wal_t *wal, const char *path, char *err, size_t err_len);

/* Stop the thread (after the checkpoint it is making, if any) and close
 * its connection; the writer makes its checkpoints again. Accepts a wal
 * without one. */
void embedded_wal_behind_stop (embedded_wal_t *wal);

/* Called by a long read between two slices (outside any transaction): if
 * the writer asked for a restart, wait for its next commit, at most
 * EMBEDDED_WAL_PAUSE_MS. *idle (false at the read's start) becomes true
 * when a pause saw no commit at all: the writer is idle and the rest of
 * the read does not pause. */
void embedded_wal_pause (bool *idle);

#endif
