/*  fuzz_spool — the spool reading its own files (core/spool): the record
 *  format (spool_record), the scan and torn-tail recovery of
 *  dlq_spool_open (spool_segment, spool), and the readers, over segment
 *  files of any bytes; then the log written on after recovery.
 *
 *  Input: one control byte, then up to 3 segments' bytes separated by
 *  FUZZ_RS (the last, the newest segment, keeps the rest, separators
 *  included). The control byte picks the first segment's position (bits
 *  0-2: 0 .. 10^19), the options (bit 3: segment, record and write limits
 *  of 4096 / 2048 / 1024 or 1024 / 256 / 128 bytes) and whether a boundary
 *  is off (bits 4-5: 2 the first, 3 the last; bits 6-7: by +1, +12, -1 or
 *  +4096). The segments are written as DIR/<position>.seg, each starting
 *  where the one before it ends unless its boundary is off; an empty older
 *  segment is left out, and a lone empty newest one is no file at all
 *  (open starts the log at the first position).
 *
 *  Oracles. Every record is read by the harness itself too (the layout of
 *  spool_record.h, a CRC32C of its own): dlq_spool_record_parse agrees with
 *  it, and the header of what parses is the encoder's. Open fails exactly
 *  when a boundary is off (CORRUPT naming the segment before it) or when
 *  the bytes past the newest segment's whole records, up to its last
 *  non-zero byte, are more than max_write_bytes and do not start with a
 *  well-formed header whose record reaches past them (CORRUPT naming the
 *  segment and offset, and nothing cut); otherwise it cuts exactly those
 *  bytes (zeros alone after the records are no tail: a zeroed spare's
 *  unwritten part), reports that cut and its stats say so; dlq_spool_last is the last record found (in
 *  the newest segment, else in the one before it). A reader from the first
 *  position returns exactly the records the harness finds, in order (kind,
 *  payload, position, next), then END at the tip; or CORRUPT, again and
 *  without moving, naming segment and offset, at the first record of an
 *  older segment that is not whole and checking within it. A seek back to a
 *  record reads it again; below the first segment is GONE. Then three
 *  records are appended at the tip (an empty one, one of the newest
 *  segment's first bytes in two parts, one of the longest payload: the sync
 *  takes more than one write, and starts a new segment when the newest is
 *  full), one too long and one of kind 0 are refused, and after the sync
 *  the reader that waited at the old tip reads the three (and again after a
 *  seek back). A release below the newest segment recovered deletes exactly
 *  the older ones (the reader reads on; below is GONE); opening the log
 *  again cuts nothing and gives the same first position, tip, last record,
 *  segments and records. Every payload read also goes through the
 *  daemon's record decoders (event_record, checkpoint_record): a checkpoint
 *  record decoded encodes back to its bytes, an event record decoded agrees
 *  with its in-place readers.
 */
#include "checkpoint_record.h"
#include "event_record.h"
#include "mark_record.h"
#include "fuzz_support.h"
#include "spool.h"
#include "spool_record.h"
#include "spool_segment.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SEGMENTS_MAX 3
#define SAMPLES_MAX  16
#define HEADER       DLQ_SPOOL_RECORD_HEADER

static const uint64_t first_bases [8] = {
    0, 1, 4096, 0x1e1e, 123456789, 1ull << 32, 1ull << 40, 10000000000000000000ull
};
static const dlq_spool_options_t option_sets [2] = { { 4096, 2048, 1024, false }, { 1024, 256, 128, false } };
static const int64_t deltas [4] = { 1, 12, -1, 4096 };

typedef struct {
    uint64_t       base;
    const uint8_t *data;
    size_t         len;
    size_t         valid;           /* the whole, checking records at its start */
    size_t         records, last;   /* how many, and the offset of the last of them */
    bool           bad;             /* what follows them is a record that does not check */
    size_t         tail_end;        /* where the bytes after them end, zeros at the end left out */
    size_t         declared_end;    /* where the record after them ends by its whole, well-formed header; 0: none */
    char           path [PATH_MAX];
} segment_t;

typedef struct {
    uint64_t       position;
    const uint8_t *bytes;           /* the record's, header first, in the input */
    size_t         size;
} sample_t;

static char     dir [PATH_MAX];
static char     err [2048];
static uint32_t crc_table [256];          /* CRC32C, reflected: the harness's own */
static uint8_t  longest [2048 + 1];       /* payloads of the longest records and one byte more */

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
    (void) argc; (void) argv;
    snprintf (dir, sizeof dir, "%s/spool", fuzz_scratch_dir ("fuzz-spool"));
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
        crc_table [i] = c;
    }
    for (size_t i = 0; i < sizeof longest; i++)
        longest [i] = (uint8_t) (i * 31 + 7);
    return 0;
}

static uint32_t
own_crc32c (uint32_t crc, const uint8_t *p, size_t len)
{
    crc = ~crc;
    while (len--)
        crc = crc_table [(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return ~crc;
}

static uint32_t
le32 (const uint8_t *p)
{
    return (uint32_t) p [0] | (uint32_t) p [1] << 8 | (uint32_t) p [2] << 16 | (uint32_t) p [3] << 24;
}

/* The harness's own reading of the record at b (spool_record.h). */
static dlq_spool_record_result_t
own_parse (const uint8_t *b, size_t avail, uint32_t max_length, size_t *needed_out)
{
    *needed_out = 0;
    if (avail < HEADER)
        return DLQ_SPOOL_RECORD_SHORT;
    uint32_t length = le32 (b + 4);
    if (b [8] == 0 || b [9] || b [10] || b [11] || length > max_length)
        return DLQ_SPOOL_RECORD_BAD;
    *needed_out = HEADER + (size_t) length;
    if (avail < *needed_out)
        return DLQ_SPOOL_RECORD_SHORT;
    uint32_t crc = own_crc32c (own_crc32c (0, b + 4, HEADER - 4), b + HEADER, length);
    return crc == le32 (b) ? DLQ_SPOOL_RECORD_OK : DLQ_SPOOL_RECORD_BAD;
}

/* dlq_spool_record_parse at b, checked against own_parse and the encoder. */
static dlq_spool_record_result_t
parse_record (const uint8_t *b, size_t avail, uint32_t max_length, size_t *needed_out)
{
    size_t own_needed = 0, needed = 0;
    dlq_spool_record_t record;
    dlq_spool_record_result_t own = own_parse (b, avail, max_length, &own_needed);
    dlq_spool_record_result_t rc = dlq_spool_record_parse (b, avail, max_length, &record, &needed);
    if (rc != own || needed != own_needed)
        fuzz_fail ("dlq_spool_record_parse says %d (needed %zu) of %zu bytes, the harness %d (needed %zu)",
                   rc, needed, avail, own, own_needed);
    if (rc == DLQ_SPOOL_RECORD_OK) {
        FUZZ_CHECK (record.kind == b [8] && record.length == needed - HEADER && record.payload == b + HEADER);
        FUZZ_CHECK (dlq_spool_record_size (b) == needed);
        uint8_t header [HEADER];
        dlq_spool_record_header (header, record.kind, record.payload, record.length);
        FUZZ_CHECK (memcmp (header, b, HEADER) == 0);
    }
    *needed_out = needed;
    return rc;
}

/* How many bytes of whole, checking records s starts with, and whether a
 * record that does not check (else the end, or one cut short) follows. */
static void
scan_segment (segment_t *s, uint32_t max_length)
{
    size_t at = 0, needed;
    dlq_spool_record_result_t rc;
    while ((rc = parse_record (s->data + at, s->len - at, max_length, &needed)) == DLQ_SPOOL_RECORD_OK) {
        s->records++;
        s->last = at;
        at += needed;
    }
    s->valid = at;
    s->bad = rc == DLQ_SPOOL_RECORD_BAD;
    const uint8_t *h = s->data + at;
    s->declared_end = s->len - at >= HEADER && h [8] && !h [9] && !h [10] && !h [11] && le32 (h + 4) <= max_length
                      ? at + HEADER + (size_t) le32 (h + 4) : 0;
    s->tail_end = s->len;
    while (s->tail_end > at && s->data [s->tail_end - 1] == 0)
        s->tail_end--;
}

static uint64_t
file_size (const char *path)
{
    struct stat st;
    if (stat (path, &st) != 0)
        fuzz_fail ("cannot stat %s", path);
    return (uint64_t) st.st_size;
}

/* The daemon's payload decoders over what a record holds, any bytes: a
 * checkpoint record or a mark record decoded encodes back to the same
 * bytes; an event record decoded has the id and expiry its in-place
 * readers give. */
static void
check_payload (const uint8_t *payload, uint32_t length)
{
    dlq_sink_checkpoint_t record;
    bool removed;
    char *block = NULL;
    if (dlq_checkpoint_record_decode (payload, length, &record, &removed, &block)) {
        uint64_t events = 0;
        FUZZ_CHECK (dlq_checkpoint_record_events (payload, length, &events));
        dlq_buf_t again = DLQ_BUF_INIT;
        dlq_checkpoint_record_encode (&record, removed, events, &again);
        FUZZ_CHECK (again.len == length && memcmp (again.data, payload, length) == 0);
        dlq_buf_free (&again);
        free (block);
    }
    dlq_mark_record_t mark;
    if (dlq_mark_record_decode (payload, length, &mark)) {
        FUZZ_CHECK (mark.id_len > 0 && !memchr (mark.id, 0, mark.id_len));
        dlq_buf_t again = DLQ_BUF_INIT;
        dlq_mark_record_encode (&mark, &again);
        FUZZ_CHECK (again.len == length && memcmp (again.data, payload, length) == 0);
        dlq_buf_free (&again);
    }
    dlq_event_t *event = dlq_event_record_decode (payload, length);
    if (event) {
        const char *id;
        size_t id_len;
        int64_t expires;
        uint64_t ordinal;
        FUZZ_CHECK (dlq_event_record_id (payload, length, &id, &id_len));
        FUZZ_CHECK (id_len == strlen (event->id) && memcmp (id, event->id, id_len) == 0);
        FUZZ_CHECK (dlq_event_record_expires_at (payload, length, &expires) && expires == event->expires_at);
        FUZZ_CHECK (dlq_event_record_ordinal (payload, length, &ordinal));
        dlq_event_destroy (&event);
    }
}

static void
expect_entry (dlq_spool_reader_t *reader, uint64_t position, uint8_t kind, const uint8_t *payload, uint32_t length)
{
    dlq_spool_entry_t e;
    err [0] = '\0';
    dlq_spool_result_t rc = dlq_spool_reader_next (reader, &e, err, sizeof err);
    if (rc != DLQ_SPOOL_OK)
        fuzz_fail ("the record at position %" PRIu64 " is not read: %d %s", position, rc, err);
    FUZZ_CHECK (e.position == position);
    FUZZ_CHECK (e.next == position + HEADER + length);
    FUZZ_CHECK (e.kind == kind && e.length == length);
    FUZZ_CHECK (length == 0 || memcmp (e.payload, payload, length) == 0);
    FUZZ_CHECK (dlq_spool_reader_position (reader) == e.next);
    check_payload (e.payload, e.length);
}

static void
expect_record (dlq_spool_reader_t *reader, uint64_t position, const uint8_t *bytes, size_t size)
{
    expect_entry (reader, position, bytes [8], bytes + HEADER, (uint32_t) (size - HEADER));
}

static void
expect_result (dlq_spool_reader_t *reader, dlq_spool_result_t want, uint64_t position)
{
    dlq_spool_entry_t e;
    err [0] = '\0';
    dlq_spool_result_t rc = dlq_spool_reader_next (reader, &e, err, sizeof err);
    if (rc != want)
        fuzz_fail ("the reader at position %" PRIu64 " says %d, not %d: %s", position, rc, want, err);
    FUZZ_CHECK (dlq_spool_reader_position (reader) == position);
}

/* Read the log from the first segment as the harness parsed it; true when
 * the reader ended at the tip (END), false at an older segment's bad
 * record (CORRUPT). */
static bool
read_log (dlq_spool_reader_t *reader, segment_t *segs, size_t n, uint32_t max_length)
{
    sample_t samples [SAMPLES_MAX];
    size_t sampled = 0;
    uint64_t records = 0;
    for (size_t i = 0; i < n; i++) {
        size_t at = 0, needed;
        while (at < segs [i].valid) {
            FUZZ_CHECK (parse_record (segs [i].data + at, segs [i].len - at, max_length, &needed)
                        == DLQ_SPOOL_RECORD_OK);
            expect_record (reader, segs [i].base + at, segs [i].data + at, needed);
            if ((records & (records - 1)) == 0 && sampled < SAMPLES_MAX)     /* the 0th, 1st, 2nd, 4th, 8th, ... */
                samples [sampled++] = (sample_t) { segs [i].base + at, segs [i].data + at, needed };
            records++;
            at += needed;
        }
        if (i + 1 < n && at < segs [i].len) {
            uint64_t position = segs [i].base + at;
            for (int again = 0; again < 2; again++) {
                expect_result (reader, DLQ_SPOOL_CORRUPT, position);
                char offset [64];
                snprintf (offset, sizeof offset, "offset %zu ", at);
                if (!strstr (err, segs [i].path) || !strstr (err, offset))
                    fuzz_fail ("the reader's CORRUPT names neither %s nor %s: %s", segs [i].path, offset, err);
            }
            return false;
        }
    }
    uint64_t tip = segs [n - 1].base + segs [n - 1].valid;
    expect_result (reader, DLQ_SPOOL_END, tip);
    while (sampled > 0) {                                   /* back to records read, newest first */
        sample_t *s = &samples [--sampled];
        dlq_spool_reader_seek (reader, s->position);
        expect_record (reader, s->position, s->bytes, s->size);
    }
    dlq_spool_reader_seek (reader, tip);
    expect_result (reader, DLQ_SPOOL_END, tip);
    if (segs [0].base > 0) {
        dlq_spool_reader_seek (reader, segs [0].base - 1);
        expect_result (reader, DLQ_SPOOL_GONE, segs [0].base - 1);
        dlq_spool_reader_seek (reader, tip);
    }
    return true;
}

static dlq_spool_t *
open_ok (const dlq_spool_options_t *options, uint64_t start, dlq_spool_recovery_t *recovery)
{
    dlq_spool_result_t rc = DLQ_SPOOL_OK;
    err [0] = '\0';
    dlq_spool_t *spool = dlq_spool_open (dir, options, start, recovery, &rc, err, sizeof err);
    if (!spool)
        fuzz_fail ("the log does not open: %d %s", rc, err);
    return spool;
}

/* The records the harness appends after recovery: what they are. */
typedef struct {
    uint8_t        kind;
    const uint8_t *payload;
    uint32_t       length;
    uint64_t       position;
} appended_t;

static void
expect_appended (dlq_spool_reader_t *reader, const appended_t *a, size_t count, uint64_t tip)
{
    for (size_t i = 0; i < count; i++)
        expect_entry (reader, a [i].position, a [i].kind, a [i].payload, a [i].length);
    expect_result (reader, DLQ_SPOOL_END, tip);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    uint8_t control = size ? data [0] : 0;
    const dlq_spool_options_t *options = &option_sets [(control >> 3) & 1];
    uint32_t max_length = options->max_record_bytes;
    fuzz_span_t spans [SEGMENTS_MAX];
    size_t count = fuzz_split (size ? data + 1 : data, size ? size - 1 : 0, FUZZ_RS, spans, SEGMENTS_MAX);

    /* the segments: the older ones that are not empty, then the newest */
    segment_t segs [SEGMENTS_MAX];
    size_t n = 0;
    for (size_t i = 0; i < count; i++)
        if (spans [i].len > 0 || i + 1 == count)
            segs [n++] = (segment_t) { .data = spans [i].data, .len = spans [i].len };
    size_t off_boundary = (control >> 4) & 3;       /* 2: before the second segment, 3: before the last */
    off_boundary = off_boundary == 2 ? 1 : off_boundary == 3 ? n - 1 : 0;
    int64_t delta = deltas [control >> 6];
    size_t off = 0;                                 /* the boundary that is off, before segs [off] (0: none) */
    segs [0].base = first_bases [control & 7];
    for (size_t i = 1; i < n; i++) {
        segs [i].base = segs [i - 1].base + segs [i - 1].len;
        if (i == off_boundary) {
            off = i;
            segs [i].base += delta < 0 && segs [i - 1].len < 2 ? 1 : (uint64_t) delta;
        }
    }
    bool no_files = n == 1 && segs [0].len == 0;

    fuzz_remove_tree (dir);
    if (!no_files && mkdir (dir, 0750) != 0)
        fuzz_fail ("cannot make %s", dir);
    for (size_t i = 0; i < n; i++) {
        dlq_spool_segment_path (segs [i].path, sizeof segs [i].path, dir, segs [i].base);
        if (!no_files && !fuzz_write_file (segs [i].path, segs [i].data, segs [i].len))
            fuzz_fail ("cannot write %s", segs [i].path);
        scan_segment (&segs [i], max_length);
    }
    segment_t *newest = &segs [n - 1];
    /* open: CORRUPT exactly at a boundary that is off, or a bad record of the
     * newest segment that starts before its last write and is not a lone
     * record reaching the end (a write is at most max_write_bytes, or one
     * longer record alone) */
    dlq_spool_recovery_t recovery = { 77, 77 };
    dlq_spool_result_t rc = DLQ_SPOOL_OK;
    err [0] = '\0';
    dlq_spool_t *spool = dlq_spool_open (dir, options, segs [0].base, &recovery, &rc, err, sizeof err);
    const char *corrupt_path = off ? segs [off - 1].path
                             : newest->tail_end - newest->valid > options->max_write_bytes
                               && newest->declared_end < newest->tail_end ? newest->path : NULL;
    if (spool ? rc != DLQ_SPOOL_OK : !memchr (err, '\0', sizeof err) || !err [0])
        fuzz_fail ("open says %d, with a message of \"%s\"", rc, err);
    if (!spool && rc != DLQ_SPOOL_CORRUPT)
        fuzz_fail ("open fails with %d (not CORRUPT): %s", rc, err);
    if (!spool != !!corrupt_path)
        fuzz_fail ("open %s, though the harness finds %s: %s", spool ? "succeeds" : "fails",
                   corrupt_path ? corrupt_path : "nothing corrupt", err);
    if (!spool) {
        char offset [64];
        snprintf (offset, sizeof offset, "offset %zu ", newest->valid);
        if (!strstr (err, corrupt_path) || (!off && !strstr (err, offset)))
            fuzz_fail ("open's CORRUPT does not name %s%s%s: %s", corrupt_path, off ? "" : " and ",
                       off ? "" : offset, err);
        for (size_t i = 0; i < n; i++)
            FUZZ_CHECK (file_size (segs [i].path) == segs [i].len);  /* nothing was cut */
        return 0;
    }

    /* recovery: exactly the bytes past the newest segment's whole records are cut */
    uint64_t cut = newest->tail_end - newest->valid, tip = newest->base + newest->valid, bytes = 0;
    for (size_t i = 0; i + 1 < n; i++)
        bytes += segs [i].len;
    bytes += newest->valid;
    FUZZ_CHECK (recovery.cut_bytes == cut);
    FUZZ_CHECK (recovery.cut_position == (cut ? tip : 0));
    uint64_t kept = cut ? newest->valid : newest->len;     /* zeros alone are kept */
    FUZZ_CHECK (file_size (newest->path) == kept);
    FUZZ_CHECK (dlq_spool_tip (spool) == tip);
    dlq_spool_stats_t st;
    dlq_spool_stats (spool, &st);
    FUZZ_CHECK (st.begin == segs [0].base && st.tip == tip && st.segments == n && st.bytes == bytes);
    FUZZ_CHECK (st.torn_cuts == (cut > 0) && st.torn_bytes == cut && st.syncs == 0 && st.records == 0);
    const segment_t *holding = newest->records || n == 1 ? newest : &segs [n - 2];
    uint64_t last = holding->records ? holding->base + holding->last : 0;
    if (dlq_spool_last (spool) != last)
        fuzz_fail ("the last record found at open is at %" PRIu64 ", not %" PRIu64, dlq_spool_last (spool), last);

    dlq_spool_reader_t *reader = dlq_spool_reader_new (spool, segs [0].base);
    bool at_tip = read_log (reader, segs, n, max_length);

    /* write on: an empty record, one from the input, one of the longest
     * payload; one too long and one of kind 0 refused */
    size_t from_input = newest->len < max_length / 2 ? newest->len : max_length / 2;
    appended_t a [3] = {
        { 255, NULL, 0, 0 },
        { (uint8_t) (1 + size % 255), newest->data, (uint32_t) from_input, 0 },
        { 1, longest, max_length, 0 },
    };
    uint64_t at = tip;
    dlq_spool_part_t halves [2] = { { newest->data, from_input / 2 },
                                    { newest->data + from_input / 2, from_input - from_input / 2 } };
    dlq_spool_part_t whole = { longest, max_length }, too_long = { longest, (size_t) max_length + 1 };
    FUZZ_CHECK (dlq_spool_append (spool, a [0].kind, NULL, 0, &a [0].position) == DLQ_SPOOL_OK);
    FUZZ_CHECK (dlq_spool_append (spool, a [1].kind, halves, 2, &a [1].position) == DLQ_SPOOL_OK);
    uint64_t refused = 0;
    FUZZ_CHECK (dlq_spool_append (spool, 1, &too_long, 1, &refused) == DLQ_SPOOL_TOO_LARGE);
    FUZZ_CHECK (dlq_spool_append (spool, 0, NULL, 0, &refused) != DLQ_SPOOL_OK);
    FUZZ_CHECK (dlq_spool_append (spool, a [2].kind, &whole, 1, &a [2].position) == DLQ_SPOOL_OK);
    for (size_t i = 0; i < 3; i++) {
        FUZZ_CHECK (a [i].position == at);
        at += HEADER + a [i].length;
    }
    FUZZ_CHECK (dlq_spool_staged (spool) == at - tip);
    FUZZ_CHECK (dlq_spool_tip (spool) == tip);
    bool rolls = newest->valid >= options->segment_bytes;
    if (dlq_spool_sync (spool, err, sizeof err) != DLQ_SPOOL_OK)
        fuzz_fail ("the sync after recovery fails: %s", err);
    FUZZ_CHECK (dlq_spool_tip (spool) == at && dlq_spool_staged (spool) == 0);
    FUZZ_CHECK (dlq_spool_last (spool) == a [2].position);
    dlq_spool_stats (spool, &st);
    FUZZ_CHECK (st.segments == n + rolls && st.syncs == 1 && st.records == 3 && st.bytes == bytes + (at - tip));
    char path [PATH_MAX];
    dlq_spool_segment_path (path, sizeof path, dir, tip);
    if (rolls)                                      /* a new segment at the old tip holds them */
        FUZZ_CHECK (file_size (path) == at - tip && file_size (newest->path) == newest->valid);
    else
        FUZZ_CHECK (file_size (newest->path) == (kept > newest->valid + (at - tip) ? kept : newest->valid + (at - tip)));
    if (at_tip)
        expect_appended (reader, a, 3, at);         /* the reader that waited at the tip */
    dlq_spool_reader_seek (reader, tip);            /* and again, or from the bad record it stopped at */
    expect_appended (reader, a, 3, at);

    /* release below the newest segment recovered: the older ones go, the
     * reader reads on and below them is GONE */
    int deleted = dlq_spool_release (spool, newest->base, err, sizeof err);
    if (deleted != (int) n - 1)
        fuzz_fail ("release below %" PRIu64 " deletes %d of %zu older segments: %s", newest->base, deleted, n - 1,
                   deleted < 0 ? err : "");
    for (size_t i = 0; i + 1 < n; i++)
        FUZZ_CHECK (access (segs [i].path, F_OK) != 0);
    dlq_spool_stats (spool, &st);
    FUZZ_CHECK (st.begin == newest->base && st.segments == 1 + rolls && st.tip == at);
    dlq_spool_reader_seek (reader, tip);
    expect_appended (reader, a, 3, at);
    if (n > 1) {
        dlq_spool_reader_seek (reader, segs [0].base);
        expect_result (reader, DLQ_SPOOL_GONE, segs [0].base);
    }
    dlq_spool_reader_destroy (&reader);
    FUZZ_CHECK (reader == NULL);
    dlq_spool_destroy (&spool);
    FUZZ_CHECK (spool == NULL);

    /* open again: nothing to cut, the same log */
    spool = open_ok (options, 0, &recovery);
    FUZZ_CHECK (recovery.cut_bytes == 0 && recovery.cut_position == 0);
    dlq_spool_stats (spool, &st);
    FUZZ_CHECK (st.begin == newest->base && st.tip == at && st.segments == 1 + rolls && st.torn_cuts == 0);
    FUZZ_CHECK (dlq_spool_last (spool) == a [2].position);
    reader = dlq_spool_reader_new (spool, tip);
    expect_appended (reader, a, 3, at);
    dlq_spool_reader_destroy (&reader);
    dlq_spool_destroy (&spool);
    return 0;
}
