/*  spool — the append-only log every acknowledged write goes to first.
 *
 *  Records (spool_record.h: length-prefixed, CRC32C-checked) are appended
 *  to segment files in one directory (spool_segment.h). A *position* is a
 *  byte offset in the logical log: segments are named by the position of
 *  their first byte, each starts where the one before ends, and a
 *  record's position never changes or gets reused, so it serves as a
 *  cursor for any consumer and as the record's identity.
 *
 *  Writing is one thread's: dlq_spool_append stages records in memory (one
 *  buffer, reused: no allocation per record once it has grown) and
 *  dlq_spool_sync writes them with one write and one fdatasync (a write of
 *  at most max_write_bytes each; normally one). Only then are they
 *  durable, and only then readable: readers (dlq_spool_reader_*, any
 *  thread, any number) see the log up to its *tip*, the end of the last
 *  sync, and never a byte past it.
 *
 *  A new segment normally starts as a zeroed spare made ahead of time
 *  (spool_spare.h: writes into allocated blocks cost a fraction of writes
 *  that grow a file), so a segment file may be longer than its records:
 *  past them it holds zeros, which never check as a record. A segment is
 *  cut to its records when the next one starts. A segment that grows (the
 *  first of a new log, or one started while no spare was ready) is left
 *  for a spare by the first sync that finds one ready, so such a segment
 *  may be shorter than segment_bytes.
 *
 *  Recovery (dlq_spool_open): at most the last write can have been cut
 *  short by a crash, and a write is either records of at most
 *  max_write_bytes in all or one longer record alone. So in the newest
 *  segment, the bytes past its whole records up to its last non-zero byte
 *  are a torn tail when they are at most max_write_bytes, or when the
 *  record they start with has a whole header that declares a record
 *  reaching past them: the segment is cut there and the cut reported
 *  (dlq_spool_recovery_t). Zeros alone past the records are no tail.
 *  A bad record anywhere else is corruption of synced data: open fails
 *  (and a reader stops) with DLQ_SPOOL_CORRUPT and a message naming the
 *  segment and the offset; nothing is dropped silently.
 *
 *  Space: dlq_spool_release deletes every segment wholly below a position
 *  (the lowest any consumer still needs); the newest segment is never
 *  deleted. A new segment is started by the sync that finds the newest
 *  one at segment_bytes or more (or growing, as above).
 *
 *  The interface — append, sync, read from a position, release, tip — is
 *  all a consumer needs, so a replicated log could stand behind it.
 */
#ifndef DLQ_SPOOL_H
#define DLQ_SPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    DLQ_SPOOL_OK = 0,
    DLQ_SPOOL_END,              /* reader: nothing durable at the position yet */
    DLQ_SPOOL_GONE,             /* reader: the position is below the oldest segment kept */
    DLQ_SPOOL_TOO_LARGE,        /* append: a payload over max_record_bytes */
    DLQ_SPOOL_CORRUPT,          /* a record that does not check; err names the segment and offset */
    DLQ_SPOOL_ERROR             /* an I/O error; err says which */
} dlq_spool_result_t;

typedef struct {
    uint64_t segment_bytes;     /* start a new segment past this size (default 64 MiB) */
    uint32_t max_record_bytes;  /* the longest payload (default 256 MiB: above any event a config
                                 * admits); a longer length is corruption */
    uint32_t max_write_bytes;   /* the longest single write before its fdatasync (default 4 MiB) */
    bool     preallocate;       /* start each new segment from a zeroed spare (spool_spare.h; default on) */
} dlq_spool_options_t;

#define DLQ_SPOOL_RECORD_LIMIT (256u << 20)
#define DLQ_SPOOL_OPTIONS_DEFAULT { 64u << 20, DLQ_SPOOL_RECORD_LIMIT, 4u << 20, true }

typedef struct {
    uint64_t cut_position;      /* where the torn tail was cut (0 when none was) */
    uint64_t cut_bytes;         /* how many bytes were cut */
} dlq_spool_recovery_t;

typedef struct {
    uint64_t begin;             /* position of the oldest byte kept */
    uint64_t tip;               /* the end of the last sync */
    uint64_t bytes;             /* on disk, all segments */
    uint64_t segments;
    uint64_t syncs;             /* since open */
    uint64_t records;           /* appended and synced since open */
    uint64_t torn_cuts;         /* torn tails cut at open (0 or 1) */
    uint64_t torn_bytes;
    uint64_t spares_taken;      /* segments started from a zeroed spare since open (spool_spare.h) */
    uint64_t spares_missed;     /*   started without one: none was ready */
    uint64_t spares_failed;     /* spares that could not be made (an I/O error, too little free space) */
} dlq_spool_stats_t;

typedef struct {
    uint64_t       position;    /* of the record */
    uint64_t       next;        /* of the record after it */
    uint8_t        kind;
    const uint8_t *payload;     /* valid until the reader's next call */
    uint32_t       length;
} dlq_spool_entry_t;

typedef struct {
    const void *data;
    size_t      len;
} dlq_spool_part_t;

typedef struct dlq_spool dlq_spool_t;
typedef struct dlq_spool_reader dlq_spool_reader_t;

/* Open (or create) the log in dir, made if missing; an empty directory
 * starts the log at position start. Cuts a torn tail (what was cut goes in
 * *recovery_out when not NULL). options NULL takes the defaults. NULL with
 * err set on failure (CORRUPT, ERROR: *result_out when not NULL). A zero
 * in options is the default for that option. */
dlq_spool_t *dlq_spool_open (const char *dir, const dlq_spool_options_t *options, uint64_t start,
                             dlq_spool_recovery_t *recovery_out, dlq_spool_result_t *result_out,
                             char *err, size_t err_len);

/* Close (staged records are dropped); accepts NULL and NULLs the pointer.
 * Every reader and consumer must have been destroyed first. */
void dlq_spool_destroy (dlq_spool_t **self_p);

/* Stage a record of kind (1..255) whose payload is the count parts one
 * after the other; its position in *position_out. Durable and readable
 * only after the next dlq_spool_sync succeeds; if it fails, the position
 * is given again. Writer thread only. */
dlq_spool_result_t dlq_spool_append (dlq_spool_t *self, uint8_t kind, const dlq_spool_part_t *parts, size_t count,
                                     uint64_t *position_out);

/* Drop every staged record (none of them is kept; their positions are
 * given again). Writer thread only. */
void dlq_spool_discard (dlq_spool_t *self);

/* The position of the oldest byte kept (any thread). */
uint64_t dlq_spool_begin (dlq_spool_t *self);

/* Bytes staged and not yet synced. */
size_t dlq_spool_staged (const dlq_spool_t *self);

/* Write every staged record and fdatasync: then they are durable and the
 * tip moves past them. On failure (ERROR, err set) the segment is cut back
 * to the tip and nothing staged is kept: the caller answers those writes
 * as failed. Nothing staged is OK at once. Writer thread only. */
dlq_spool_result_t dlq_spool_sync (dlq_spool_t *self, char *err, size_t err_len);

/* The end of the last sync (any thread). */
uint64_t dlq_spool_tip (const dlq_spool_t *self);

/* The position of the last record synced (the newest record found at open
 * before any sync), or 0 when the log holds none (any thread). */
uint64_t dlq_spool_last (const dlq_spool_t *self);

/* A consumer of the log: what it still needs, from needed_from on (any
 * thread sets it), and how many bytes of the log it may hold behind the
 * tip (limit_bytes; 0: no limit). dlq_spool_release_consumed deletes the
 * segments wholly below every consumer's position. */
typedef struct dlq_spool_consumer dlq_spool_consumer_t;

dlq_spool_consumer_t *dlq_spool_consumer_new (dlq_spool_t *self, const char *name, uint64_t needed_from,
                                              uint64_t limit_bytes);

/* The first consumer holding more of the log behind the tip than its
 * limit: true with its name (truncated to name_len), the bytes it holds
 * and its limit. */
bool dlq_spool_over_limit (dlq_spool_t *self, char *name, size_t name_len, uint64_t *held_out,
                           uint64_t *limit_out);
void dlq_spool_consumer_set (dlq_spool_consumer_t *consumer, uint64_t needed_from);
uint64_t dlq_spool_consumer_get (const dlq_spool_consumer_t *consumer);
/* Unregister; accepts NULL and NULLs the pointer. */
void dlq_spool_consumer_destroy (dlq_spool_consumer_t **consumer_p);

/* Release below the lowest consumer's position (nothing when there is no
 * consumer); as dlq_spool_release. */
int dlq_spool_release_consumed (dlq_spool_t *self, char *err, size_t err_len);

/* Each consumer's name and position as JSON members "name":position,...
 * appended to out (a dlq_buf_t *). */
void dlq_spool_consumers_format (dlq_spool_t *self, void *out);

/* Delete every segment that ends at or below position, except the newest.
 * How many were deleted, or -1 with err set. Any thread. */
int dlq_spool_release (dlq_spool_t *self, uint64_t position, char *err, size_t err_len);

void dlq_spool_stats (dlq_spool_t *self, dlq_spool_stats_t *out);

/* A reader at position (a record's position, the tip, or begin). */
dlq_spool_reader_t *dlq_spool_reader_new (dlq_spool_t *spool, uint64_t position);

/* Move to position. */
void dlq_spool_reader_seek (dlq_spool_reader_t *self, uint64_t position);

/* The position the next call reads. */
uint64_t dlq_spool_reader_position (const dlq_spool_reader_t *self);

/* The record at the reader's position, and move past it: OK; END at the
 * tip; GONE below the oldest segment; CORRUPT or ERROR with err set (the
 * reader stays where it was). */
dlq_spool_result_t dlq_spool_reader_next (dlq_spool_reader_t *self, dlq_spool_entry_t *entry,
                                          char *err, size_t err_len);

/* Accepts NULL and NULLs the pointer. */
void dlq_spool_reader_destroy (dlq_spool_reader_t **self_p);

#endif
