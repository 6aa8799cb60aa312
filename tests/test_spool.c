/*  test_spool — the append-only log (core/spool): the record format and
 *  its checksum, append / sync / read from any position, recovery (a torn
 *  tail is cut and reported, a bad record before the tail or a gap
 *  between segments is corruption named by segment and offset), segment
 *  roll and release, a reader tailing a writer, and a failed write that
 *  leaves nothing behind (a file size limit stands in for a full disk).
 */
#include "dlq_buf.h"
#include "spool.h"
#include "spool_record.h"
#include "spool_segment.h"

#include "test_support.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir [256];
static char err [1024];

static void setup (void) { test_tmpdir (dir); err [0] = 0; }
static void teardown (void) { test_rmtree (dir); }

TestSuite (spool, .init = setup, .fini = teardown);

/* A payload of len bytes, different for every i. */
static void
payload_of (uint64_t i, uint8_t *out, size_t len)
{
    for (size_t k = 0; k < len; k++)
        out [k] = (uint8_t) ('a' + (i * 7 + k) % 26);
}

static size_t size_of (uint64_t i) { return 1 + (i * 131) % 2000; }

static uint64_t
append_one (dlq_spool_t *spool, uint64_t i)
{
    uint8_t buf [4096];
    size_t len = size_of (i);
    payload_of (i, buf, len);
    dlq_spool_part_t parts [2] = { { buf, len / 2 }, { buf + len / 2, len - len / 2 } };
    uint64_t position = 0;
    cr_assert_eq (dlq_spool_append (spool, (uint8_t) (1 + i % 250), parts, 2, &position), DLQ_SPOOL_OK);
    return position;
}

static void
expect_record (dlq_spool_reader_t *reader, uint64_t i, uint64_t position)
{
    dlq_spool_entry_t e;
    dlq_spool_result_t rc = dlq_spool_reader_next (reader, &e, err, sizeof err);
    cr_assert_eq (rc, DLQ_SPOOL_OK, "record %llu: %d %s", (unsigned long long) i, rc, err);
    uint8_t want [4096];
    payload_of (i, want, size_of (i));
    cr_assert_eq (e.position, position);
    cr_assert_eq (e.kind, 1 + i % 250);
    cr_assert_eq (e.length, size_of (i));
    cr_assert (memcmp (e.payload, want, e.length) == 0, "record %llu's payload", (unsigned long long) i);
    cr_assert_eq (e.next, position + DLQ_SPOOL_RECORD_HEADER + e.length);
}

static dlq_spool_t *
open_spool (const dlq_spool_options_t *options, dlq_spool_recovery_t *recovery)
{
    dlq_spool_result_t rc;
    dlq_spool_t *spool = dlq_spool_open (dir, options, 0, recovery, &rc, err, sizeof err);
    cr_assert (spool, "open: %d %s", rc, err);
    return spool;
}

static char *
segment_path (uint64_t base)
{
    static char path [512];
    dlq_spool_segment_path (path, sizeof path, dir, base);
    return path;
}

Test (spool, the_checksum_is_crc32c_and_covers_the_header)
{
    cr_assert_eq (dlq_spool_record_crc32c (0, "123456789", 9), 0xE3069283u);   /* the CRC-32C check value */
    cr_assert_eq (dlq_spool_record_crc32c (dlq_spool_record_crc32c (0, "1234", 4), "56789", 5), 0xE3069283u);
    uint8_t rec [DLQ_SPOOL_RECORD_HEADER + 5];
    dlq_spool_record_header (rec, 7, "hello", 5);
    memcpy (rec + DLQ_SPOOL_RECORD_HEADER, "hello", 5);
    dlq_spool_record_t r;
    size_t needed = 0;
    cr_assert_eq (dlq_spool_record_parse (rec, sizeof rec, 100, &r, &needed), DLQ_SPOOL_RECORD_OK);
    cr_assert_eq (needed, sizeof rec);
    cr_assert_eq (r.kind, 7);
    cr_assert_eq (r.length, 5);
    cr_assert_eq (dlq_spool_record_size (rec), sizeof rec);
    cr_assert_eq (dlq_spool_record_parse (rec, sizeof rec - 1, 100, &r, &needed), DLQ_SPOOL_RECORD_SHORT);
    cr_assert_eq (needed, sizeof rec, "a short record says how many bytes it takes");
    cr_assert_eq (dlq_spool_record_parse (rec, 5, 100, &r, &needed), DLQ_SPOOL_RECORD_SHORT);
    cr_assert_eq (needed, 0);
    cr_assert_eq (dlq_spool_record_parse (rec, sizeof rec, 4, &r, &needed), DLQ_SPOOL_RECORD_BAD, "over the limit");
    for (size_t byte = 0; byte < sizeof rec; byte++) {
        for (int bit = 0; bit < 8; bit++) {
            rec [byte] ^= (uint8_t) (1 << bit);
            dlq_spool_record_result_t rc = dlq_spool_record_parse (rec, sizeof rec, 100, &r, NULL);
            cr_assert_neq (rc, DLQ_SPOOL_RECORD_OK, "a flipped bit %d of byte %zu goes unseen", bit, byte);
            rec [byte] ^= (uint8_t) (1 << bit);
        }
    }
    uint8_t zeros [64] = { 0 };
    cr_assert_eq (dlq_spool_record_parse (zeros, sizeof zeros, 100, &r, NULL), DLQ_SPOOL_RECORD_BAD,
                  "a file's unwritten tail is no record");
}

Test (spool, records_are_read_back_from_any_position_and_only_once_synced)
{
    dlq_spool_t *spool = open_spool (NULL, NULL);
    uint64_t positions [1000];
    for (uint64_t i = 0; i < 500; i++)
        positions [i] = append_one (spool, i);
    cr_assert_eq (positions [0], 0);
    dlq_spool_reader_t *reader = dlq_spool_reader_new (spool, 0);
    dlq_spool_entry_t e;
    cr_assert_eq (dlq_spool_reader_next (reader, &e, err, sizeof err), DLQ_SPOOL_END, "staged is not readable");
    cr_assert_eq (dlq_spool_sync (spool, err, sizeof err), DLQ_SPOOL_OK, "%s", err);
    for (uint64_t i = 500; i < 1000; i++)
        positions [i] = append_one (spool, i);
    cr_assert_eq (dlq_spool_sync (spool, err, sizeof err), DLQ_SPOOL_OK, "%s", err);
    for (uint64_t i = 0; i < 1000; i++)
        expect_record (reader, i, positions [i]);
    cr_assert_eq (dlq_spool_reader_next (reader, &e, err, sizeof err), DLQ_SPOOL_END);
    cr_assert_eq (dlq_spool_reader_position (reader), dlq_spool_tip (spool));
    for (uint64_t i = 999; i > 0; i -= 37) {            /* random access, backwards */
        dlq_spool_reader_seek (reader, positions [i]);
        expect_record (reader, i, positions [i]);
    }
    dlq_spool_stats_t st;
    dlq_spool_stats (spool, &st);
    cr_assert_eq (st.records, 1000);
    cr_assert_eq (st.syncs, 2);
    cr_assert_eq (st.bytes, st.tip);
    dlq_spool_reader_destroy (&reader);
    dlq_spool_destroy (&spool);

    spool = open_spool (NULL, NULL);                    /* and again after a restart */
    reader = dlq_spool_reader_new (spool, positions [0]);
    for (uint64_t i = 0; i < 1000; i++)
        expect_record (reader, i, positions [i]);
    dlq_spool_reader_destroy (&reader);
    dlq_spool_destroy (&spool);
}

Test (spool, an_empty_directory_starts_the_log_at_the_position_given)
{
    dlq_spool_t *spool = dlq_spool_open (dir, NULL, 123456, NULL, NULL, err, sizeof err);
    cr_assert (spool, "%s", err);
    cr_assert_eq (dlq_spool_tip (spool), 123456);
    cr_assert_eq (append_one (spool, 0), 123456);
    cr_assert_eq (dlq_spool_sync (spool, err, sizeof err), DLQ_SPOOL_OK);
    struct stat st;
    cr_assert_eq (stat (segment_path (123456), &st), 0, "the segment is named by its first position");
    dlq_spool_destroy (&spool);
}

/* Write count records (synced in batches of 10), close; their positions. */
static uint64_t
write_log (const dlq_spool_options_t *options, uint64_t count, uint64_t *positions)
{
    dlq_spool_t *spool = open_spool (options, NULL);
    for (uint64_t i = 0; i < count; i++) {
        positions [i] = append_one (spool, i);
        if (i % 10 == 9 || i + 1 == count)
            cr_assert_eq (dlq_spool_sync (spool, err, sizeof err), DLQ_SPOOL_OK, "%s", err);
    }
    uint64_t tip = dlq_spool_tip (spool);
    dlq_spool_destroy (&spool);
    return tip;
}

static void
append_bytes (const char *path, const void *bytes, size_t len)
{
    int fd = open (path, O_WRONLY | O_APPEND);
    cr_assert (fd >= 0);
    cr_assert_eq (write (fd, bytes, len), (ssize_t) len);
    close (fd);
}

static void
flip_byte (const char *path, off_t offset)
{
    int fd = open (path, O_RDWR);
    uint8_t b;
    cr_assert_eq (pread (fd, &b, 1, offset), 1);
    b ^= 0x40;
    cr_assert_eq (pwrite (fd, &b, 1, offset), 1);
    close (fd);
}

Test (spool, a_torn_tail_is_cut_and_reported_and_the_log_goes_on)
{
    uint64_t positions [100];
    uint64_t tip = write_log (NULL, 100, positions);
    /* a crash mid-write: a whole record, then one cut short */
    uint8_t rec [DLQ_SPOOL_RECORD_HEADER + 300];
    memset (rec + DLQ_SPOOL_RECORD_HEADER, 'x', 300);
    dlq_spool_record_header (rec, 1, rec + DLQ_SPOOL_RECORD_HEADER, 300);
    append_bytes (segment_path (0), rec, sizeof rec - 17);
    dlq_spool_recovery_t recovery;
    dlq_spool_t *spool = open_spool (NULL, &recovery);
    cr_assert_eq (recovery.cut_position, tip);
    cr_assert_eq (recovery.cut_bytes, sizeof rec - 17);
    dlq_spool_stats_t st;
    dlq_spool_stats (spool, &st);
    cr_assert_eq (st.torn_cuts, 1);
    cr_assert_eq (st.torn_bytes, sizeof rec - 17);
    cr_assert_eq (dlq_spool_tip (spool), tip);
    cr_assert_eq (append_one (spool, 100), tip, "the next record takes the cut record's place");
    cr_assert_eq (dlq_spool_sync (spool, err, sizeof err), DLQ_SPOOL_OK);
    dlq_spool_reader_t *reader = dlq_spool_reader_new (spool, 0);
    for (uint64_t i = 0; i < 100; i++)
        expect_record (reader, i, positions [i]);
    expect_record (reader, 100, tip);
    dlq_spool_reader_destroy (&reader);
    dlq_spool_destroy (&spool);
    /* zeros past the records (a zeroed spare's unwritten part, or an
     * unwritten tail) are no tail: nothing is cut, the next record goes
     * over them, and all of it is there after the next open */
    uint8_t zeros [4096] = { 0 };
    append_bytes (segment_path (0), zeros, sizeof zeros);
    spool = open_spool (NULL, &recovery);
    cr_assert_eq (recovery.cut_bytes, 0);
    uint64_t next = dlq_spool_tip (spool);
    cr_assert_eq (append_one (spool, 101), next);
    cr_assert_eq (dlq_spool_sync (spool, err, sizeof err), DLQ_SPOOL_OK);
    dlq_spool_destroy (&spool);
    spool = open_spool (NULL, &recovery);
    cr_assert_eq (recovery.cut_bytes, 0);
    reader = dlq_spool_reader_new (spool, next);
    expect_record (reader, 101, next);
    dlq_spool_reader_destroy (&reader);
    dlq_spool_destroy (&spool);
}

Test (spool, a_bad_record_before_the_tail_is_corruption_named_by_segment_and_offset)
{
    dlq_spool_options_t options = { 1u << 30, 4096, 4096, false };     /* torn window: 8 KiB + header */
    uint64_t positions [200];
    write_log (&options, 200, positions);
    flip_byte (segment_path (0), (off_t) positions [3] + 20);
    dlq_spool_result_t rc;
    dlq_spool_t *spool = dlq_spool_open (dir, &options, 0, NULL, &rc, err, sizeof err);
    cr_assert_null (spool);
    cr_assert_eq (rc, DLQ_SPOOL_CORRUPT);
    char offset [64];
    snprintf (offset, sizeof offset, "offset %llu", (unsigned long long) positions [3]);
    cr_assert (strstr (err, segment_path (0)) && strstr (err, offset), "%s", err);
    /* nothing was cut: the records after it are all still there */
    struct stat st;
    cr_assert_eq (stat (segment_path (0), &st), 0);
    cr_assert_eq ((uint64_t) st.st_size, positions [199] + DLQ_SPOOL_RECORD_HEADER + size_of (199));
}

Test (spool, segments_roll_read_across_and_are_released_below_a_position)
{
    dlq_spool_options_t options = { 16384, 4096, 4096, false };
    uint64_t positions [300];
    dlq_spool_t *spool = open_spool (&options, NULL);
    for (uint64_t i = 0; i < 300; i++) {
        positions [i] = append_one (spool, i);
        if (i % 5 == 4)
            cr_assert_eq (dlq_spool_sync (spool, err, sizeof err), DLQ_SPOOL_OK, "%s", err);
    }
    dlq_spool_stats_t st;
    dlq_spool_stats (spool, &st);
    cr_assert_gt (st.segments, 10);
    cr_assert_eq (st.begin, 0);
    uint64_t *bases = NULL;
    size_t count = 0;
    cr_assert (dlq_spool_segment_list (dir, &bases, &count, err, sizeof err));
    cr_assert_eq (count, st.segments);
    for (size_t k = 1; k < count; k++) {
        struct stat fs;
        cr_assert_eq (stat (segment_path (bases [k - 1]), &fs), 0);
        cr_assert_eq (bases [k - 1] + (uint64_t) fs.st_size, bases [k], "segments follow each other");
    }
    dlq_spool_reader_t *reader = dlq_spool_reader_new (spool, 0);
    for (uint64_t i = 0; i < 300; i++)
        expect_record (reader, i, positions [i]);
    /* release below record 150: every segment ending at or below it goes */
    int deleted = dlq_spool_release (spool, positions [150], err, sizeof err);
    cr_assert_gt (deleted, 0);
    dlq_spool_stats (spool, &st);
    cr_assert_leq (st.begin, positions [150]);
    cr_assert_gt (st.begin, 0);
    cr_assert_eq (st.segments, count - (size_t) deleted);
    dlq_spool_reader_seek (reader, positions [0]);
    dlq_spool_entry_t e;
    cr_assert_eq (dlq_spool_reader_next (reader, &e, err, sizeof err), DLQ_SPOOL_GONE);
    dlq_spool_reader_seek (reader, positions [150]);
    for (uint64_t i = 150; i < 300; i++)
        expect_record (reader, i, positions [i]);
    /* the newest segment is never released */
    dlq_spool_release (spool, UINT64_MAX, err, sizeof err);
    dlq_spool_stats (spool, &st);
    cr_assert_eq (st.segments, 1);
    cr_assert_eq (st.tip, dlq_spool_tip (spool));
    dlq_spool_reader_destroy (&reader);
    dlq_spool_destroy (&spool);
    free (bases);
    /* a restart takes the remaining segment as it is */
    spool = open_spool (&options, NULL);
    cr_assert_eq (dlq_spool_tip (spool), st.tip);
    dlq_spool_destroy (&spool);
}

Test (spool, a_bad_record_in_an_older_segment_stops_the_reader_where_it_is)
{
    dlq_spool_options_t options = { 16384, 4096, 4096, false };
    uint64_t positions [100];
    write_log (&options, 100, positions);
    flip_byte (segment_path (0), (off_t) positions [2] + DLQ_SPOOL_RECORD_HEADER + 1);
    dlq_spool_t *spool = open_spool (&options, NULL);     /* an older segment is not scanned at start */
    dlq_spool_reader_t *reader = dlq_spool_reader_new (spool, 0);
    expect_record (reader, 0, positions [0]);
    expect_record (reader, 1, positions [1]);
    dlq_spool_entry_t e;
    for (int again = 0; again < 2; again++) {
        cr_assert_eq (dlq_spool_reader_next (reader, &e, err, sizeof err), DLQ_SPOOL_CORRUPT);
        cr_assert (strstr (err, segment_path (0)), "%s", err);
        cr_assert_eq (dlq_spool_reader_position (reader), positions [2], "the reader stays at the bad record");
    }
    dlq_spool_reader_destroy (&reader);
    dlq_spool_destroy (&spool);
}

Test (spool, a_gap_between_segments_is_corruption)
{
    dlq_spool_options_t options = { 16384, 4096, 4096, false };
    uint64_t positions [100];
    write_log (&options, 100, positions);
    uint64_t *bases = NULL;
    size_t count = 0;
    cr_assert (dlq_spool_segment_list (dir, &bases, &count, err, sizeof err));
    cr_assert_geq (count, 3);
    cr_assert_eq (unlink (segment_path (bases [1])), 0);
    dlq_spool_result_t rc;
    cr_assert_null (dlq_spool_open (dir, &options, 0, NULL, &rc, err, sizeof err));
    cr_assert_eq (rc, DLQ_SPOOL_CORRUPT);
    cr_assert (strstr (err, segment_path (bases [0])), "%s", err);
    free (bases);
}

typedef struct {
    dlq_spool_t *spool;
    uint64_t     count;
} tail_arg_t;

static void *
tail (void *p)
{
    tail_arg_t *arg = p;
    dlq_spool_reader_t *reader = dlq_spool_reader_new (arg->spool, 0);
    uint64_t seen = 0, position = 0;
    char e_err [512];
    while (seen < arg->count) {
        dlq_spool_entry_t e;
        dlq_spool_result_t rc = dlq_spool_reader_next (reader, &e, e_err, sizeof e_err);
        if (rc == DLQ_SPOOL_END)
            continue;
        if (rc != DLQ_SPOOL_OK || e.position != position || e.length != size_of (seen))
            break;
        uint8_t want [4096];
        payload_of (seen, want, e.length);
        if (memcmp (want, e.payload, e.length) != 0)
            break;
        position = e.next;
        seen++;
    }
    dlq_spool_reader_destroy (&reader);
    return (void *) (uintptr_t) seen;
}

Test (spool, a_reader_tails_the_writer_and_never_sees_a_partial_record)
{
    dlq_spool_options_t options = { 1u << 20, 1u << 16, 1u << 16, false };
    dlq_spool_t *spool = open_spool (&options, NULL);
    tail_arg_t arg = { spool, 20000 };
    pthread_t thread;
    pthread_create (&thread, NULL, tail, &arg);
    for (uint64_t i = 0; i < arg.count; i++) {
        append_one (spool, i);
        if (i % 17 == 16 || i + 1 == arg.count)
            cr_assert_eq (dlq_spool_sync (spool, err, sizeof err), DLQ_SPOOL_OK, "%s", err);
    }
    void *seen = NULL;
    pthread_join (thread, &seen);
    cr_assert_eq ((uint64_t) (uintptr_t) seen, arg.count, "the reader saw %llu of the records in order",
                  (unsigned long long) (uintptr_t) seen);
    dlq_spool_stats_t st;
    dlq_spool_stats (spool, &st);
    cr_assert_gt (st.segments, 10, "the writer rolled segments under the reader");
    dlq_spool_destroy (&spool);
}

Test (spool, a_failed_write_leaves_nothing_and_the_next_sync_works)
{
    signal (SIGXFSZ, SIG_IGN);
    dlq_spool_t *spool = open_spool (NULL, NULL);
    uint64_t first = append_one (spool, 0);
    cr_assert_eq (dlq_spool_sync (spool, err, sizeof err), DLQ_SPOOL_OK);
    uint64_t tip = dlq_spool_tip (spool);
    struct rlimit old, small = { tip + 3000, RLIM_INFINITY };
    getrlimit (RLIMIT_FSIZE, &old);
    small.rlim_max = old.rlim_max;
    cr_assert_eq (setrlimit (RLIMIT_FSIZE, &small), 0);
    for (uint64_t i = 1; i < 20; i++)
        append_one (spool, i);                      /* ~20 KB: past the limit */
    dlq_spool_result_t rc = dlq_spool_sync (spool, err, sizeof err);
    setrlimit (RLIMIT_FSIZE, &old);
    cr_assert_eq (rc, DLQ_SPOOL_ERROR);
    cr_assert (strstr (err, "cannot write"), "%s", err);
    cr_assert_eq (dlq_spool_tip (spool), tip, "the tip did not move");
    cr_assert_eq (dlq_spool_staged (spool), 0, "the failed batch is dropped");
    struct stat st;
    cr_assert_eq (stat (segment_path (0), &st), 0);
    cr_assert_eq ((uint64_t) st.st_size, tip, "what the failed sync wrote is cut back");
    cr_assert_eq (append_one (spool, 20), tip, "the next record takes the tip");
    cr_assert_eq (dlq_spool_sync (spool, err, sizeof err), DLQ_SPOOL_OK, "%s", err);
    dlq_spool_reader_t *reader = dlq_spool_reader_new (spool, 0);
    expect_record (reader, 0, first);
    expect_record (reader, 20, tip);
    dlq_spool_entry_t e;
    cr_assert_eq (dlq_spool_reader_next (reader, &e, err, sizeof err), DLQ_SPOOL_END);
    dlq_spool_reader_destroy (&reader);
    dlq_spool_destroy (&spool);
}

Test (spool, a_payload_over_the_limit_is_refused_when_appended)
{
    dlq_spool_options_t options = { 1u << 20, 100, 4096, false };
    dlq_spool_t *spool = open_spool (&options, NULL);
    uint8_t big [101] = { 0 };
    dlq_spool_part_t part = { big, sizeof big };
    uint64_t position;
    cr_assert_eq (dlq_spool_append (spool, 1, &part, 1, &position), DLQ_SPOOL_TOO_LARGE);
    cr_assert_eq (dlq_spool_staged (spool), 0);
    dlq_spool_destroy (&spool);
}

Test (spool, the_last_record_is_known_after_syncs_and_after_a_restart)
{
    dlq_spool_options_t options = { 4096, 4096, 4096, false };
    dlq_spool_t *spool = open_spool (&options, NULL);
    cr_assert_eq (dlq_spool_last (spool), 0, "an empty log has none");
    uint64_t last = 0;
    for (uint64_t i = 0; i < 50; i++) {
        last = append_one (spool, i);
        cr_assert_eq (dlq_spool_sync (spool, err, sizeof err), DLQ_SPOOL_OK);
        cr_assert_eq (dlq_spool_last (spool), last);
    }
    append_one (spool, 50);
    cr_assert_eq (dlq_spool_last (spool), last, "a staged record is not the last yet");
    dlq_spool_destroy (&spool);
    spool = open_spool (&options, NULL);
    cr_assert_eq (dlq_spool_last (spool), last, "found again at open");
    dlq_spool_destroy (&spool);
    /* a crash right after a new segment was made: the last record is in the one before */
    uint64_t tip;
    spool = open_spool (&options, NULL);
    tip = dlq_spool_tip (spool);
    dlq_spool_destroy (&spool);
    int fd = open (segment_path (tip), O_WRONLY | O_CREAT | O_EXCL, 0640);
    cr_assert (fd >= 0);
    close (fd);
    spool = open_spool (&options, NULL);
    cr_assert_eq (dlq_spool_tip (spool), tip);
    cr_assert_eq (dlq_spool_last (spool), last);
    dlq_spool_destroy (&spool);
}

Test (spool, segments_are_released_below_the_lowest_consumer_only)
{
    dlq_spool_options_t options = { 4096, 4096, 4096, false };
    dlq_spool_t *spool = open_spool (&options, NULL);
    uint64_t positions [200];
    for (uint64_t i = 0; i < 200; i++) {
        positions [i] = append_one (spool, i);
        cr_assert_eq (dlq_spool_sync (spool, err, sizeof err), DLQ_SPOOL_OK);
    }
    cr_assert_eq (dlq_spool_release_consumed (spool, err, sizeof err), 0, "no consumer: nothing is released");
    dlq_spool_consumer_t *fast = dlq_spool_consumer_new (spool, "index", positions [190], 0);
    dlq_spool_consumer_t *slow = dlq_spool_consumer_new (spool, "sink:slow", positions [20], 1000);
    dlq_spool_release_consumed (spool, err, sizeof err);
    dlq_spool_stats_t st;
    dlq_spool_stats (spool, &st);
    cr_assert_leq (st.begin, positions [20], "the slow consumer's records are kept");
    char over [64];
    uint64_t held = 0, limit = 0;
    cr_assert (dlq_spool_over_limit (spool, over, sizeof over, &held, &limit), "the slow one holds more than 1000 bytes");
    cr_assert_str_eq (over, "sink:slow");
    cr_assert_eq (held, dlq_spool_tip (spool) - positions [20]);
    cr_assert_eq (limit, 1000);
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_spool_consumers_format (spool, &out);
    char want [128];
    snprintf (want, sizeof want, "\"sink:slow\":%llu", (unsigned long long) positions [20]);
    cr_assert (strstr (out.data, want) && strstr (out.data, "\"index\":"), "%s", out.data);
    dlq_buf_free (&out);
    dlq_spool_consumer_set (slow, positions [150]);
    cr_assert_eq (dlq_spool_consumer_get (slow), positions [150]);
    cr_assert_gt (dlq_spool_release_consumed (spool, err, sizeof err), 0);
    dlq_spool_stats (spool, &st);
    cr_assert_gt (st.begin, positions [20]);
    cr_assert_leq (st.begin, positions [150]);
    dlq_spool_consumer_set (slow, dlq_spool_tip (spool) - 500);
    cr_assert_not (dlq_spool_over_limit (spool, over, sizeof over, &held, &limit), "back under its limit");
    dlq_spool_consumer_destroy (&slow);
    dlq_spool_release_consumed (spool, err, sizeof err);
    dlq_spool_stats (spool, &st);
    cr_assert_gt (st.begin, positions [150], "once the slow consumer is gone, the fast one decides");
    dlq_spool_consumer_destroy (&fast);
    cr_assert_null (fast);
    dlq_spool_destroy (&spool);
}

/* Write a header declaring length bytes of kind 1, then fill bytes of 'g'
 * (a payload whose checksum does not hold). */
static void
append_bad_record (uint32_t length, size_t fill)
{
    uint8_t header [DLQ_SPOOL_RECORD_HEADER];
    dlq_spool_record_header (header, 1, "", 0);
    header [4] = (uint8_t) length;
    header [5] = (uint8_t) (length >> 8);
    header [6] = (uint8_t) (length >> 16);
    header [7] = (uint8_t) (length >> 24);
    append_bytes (segment_path (0), header, sizeof header);
    char *junk = malloc (fill);
    memset (junk, 'g', fill);
    append_bytes (segment_path (0), junk, fill);
    free (junk);
}

Test (spool, a_lone_long_record_cut_short_is_a_torn_tail_however_long)
{
    /* a write is records of at most max_write_bytes in all, or one longer
     * record alone: a record longer than a write that reaches the end of the
     * file is what a crash inside that one write leaves */
    dlq_spool_options_t options = { 1u << 30, 1u << 20, 4096, false };
    uint64_t positions [20];
    uint64_t tip = write_log (&options, 20, positions);
    append_bad_record (200000, 200000);
    dlq_spool_recovery_t recovery;
    dlq_spool_t *spool = open_spool (&options, &recovery);
    cr_assert_eq (recovery.cut_position, tip);
    cr_assert_eq (recovery.cut_bytes, DLQ_SPOOL_RECORD_HEADER + 200000);
    dlq_spool_destroy (&spool);
    /* ... but one that ends before the file does was followed by more writes: corruption */
    append_bad_record (200000, 200000 + 8192);
    dlq_spool_result_t rc;
    cr_assert_null (dlq_spool_open (dir, &options, 0, NULL, &rc, err, sizeof err));
    cr_assert_eq (rc, DLQ_SPOOL_CORRUPT, "%s", err);
}

Test (spool, a_header_declaring_more_than_the_file_holds_costs_no_allocation_of_it)
{
    /* the scan stops at a record the file ends inside, whatever length it declares */
    uint64_t positions [5];
    uint64_t tip = write_log (NULL, 5, positions);
    append_bad_record (DLQ_SPOOL_RECORD_LIMIT, 100);
    dlq_spool_recovery_t recovery;
    dlq_spool_t *spool = open_spool (NULL, &recovery);
    cr_assert_eq (recovery.cut_position, tip);
    cr_assert_eq (dlq_spool_tip (spool), tip);
    dlq_spool_destroy (&spool);
}

Test (spool, discarded_records_are_never_written)
{
    dlq_spool_t *spool = open_spool (NULL, NULL);
    uint64_t first = append_one (spool, 0);
    dlq_spool_discard (spool);
    cr_assert_eq (dlq_spool_staged (spool), 0);
    cr_assert_eq (append_one (spool, 1), first, "the discarded record's position is given again");
    cr_assert_eq (dlq_spool_sync (spool, err, sizeof err), DLQ_SPOOL_OK);
    dlq_spool_reader_t *reader = dlq_spool_reader_new (spool, dlq_spool_begin (spool));
    expect_record (reader, 1, first);
    dlq_spool_entry_t e;
    cr_assert_eq (dlq_spool_reader_next (reader, &e, err, sizeof err), DLQ_SPOOL_END);
    dlq_spool_reader_destroy (&reader);
    dlq_spool_destroy (&spool);
}

Test (spool, a_zero_option_is_the_default)
{
    dlq_spool_options_t zeros = { 0, 0, 0, false };
    dlq_spool_t *spool = open_spool (&zeros, NULL);
    uint8_t payload [4096] = { 7 };
    dlq_spool_part_t part = { payload, sizeof payload };
    uint64_t position = 0;
    for (int i = 0; i < 8; i++) {
        cr_assert_eq (dlq_spool_append (spool, 1, &part, 1, &position), DLQ_SPOOL_OK, "a 4 KiB record");
        cr_assert_eq (dlq_spool_sync (spool, err, sizeof err), DLQ_SPOOL_OK, "sync %d: %s", i, err);
    }
    dlq_spool_stats_t st;
    dlq_spool_stats (spool, &st);
    cr_assert_eq (st.segments, 1, "64 MiB segments: 32 KiB is one");
    dlq_spool_destroy (&spool);
}
