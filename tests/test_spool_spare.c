/*  test_spool_spare — the spool's zeroed spares (core/spool/spool_spare.h):
 *  a new segment starts from one and the one before is cut to its records;
 *  a zeroed segment's unwritten part is no tail after a restart, while a
 *  torn write inside it is cut and non-zero bytes past the write window
 *  are corruption; a released segment is recycled into the next spare; a
 *  spare left by an earlier run is taken only when it reads back as
 *  zeros, a half-made one never.
 */
#include "spool.h"
#include "spool_record.h"
#include "spool_segment.h"

#include "test_support.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SEGMENT 16384u
#define WINDOW  4096u

static char dir [256];
static char err [1024];
static const dlq_spool_options_t options = { SEGMENT, 4096, WINDOW, true };

static void setup (void) { test_tmpdir (dir); err [0] = 0; }
static void teardown (void) { test_rmtree (dir); }

TestSuite (spool_spare, .init = setup, .fini = teardown);

static char *
path_in_dir (const char *name)
{
    static char path [512];
    snprintf (path, sizeof path, "%s/%s", dir, name);
    return path;
}

static char *
segment_path (uint64_t base)
{
    static char path [512];
    dlq_spool_segment_path (path, sizeof path, dir, base);
    return path;
}

static uint64_t
file_size (const char *path)
{
    struct stat st;
    cr_assert_eq (stat (path, &st), 0, "%s", path);
    return (uint64_t) st.st_size;
}

/* Is the file at path a segment long and its last bytes zeros? */
static bool
whole_zeros_at_end (const char *path, struct stat *st)
{
    uint8_t tail [128];
    int fd = open (path, O_RDONLY);
    bool whole = fd >= 0 && fstat (fd, st) == 0 && (uint64_t) st->st_size == SEGMENT
              && pread (fd, tail, sizeof tail, (off_t) (SEGMENT - sizeof tail)) == (ssize_t) sizeof tail;
    for (size_t i = 0; whole && i < sizeof tail; i++)
        whole = tail [i] == 0;
    if (fd >= 0)
        close (fd);
    return whole;
}

/* Wait (up to 10 s) until the spare is whole (not one a test left there
 * that the spool has not removed yet); its inode. */
static ino_t
wait_for_spare (void)
{
    struct stat st;
    for (int i = 0; i < 1000; i++) {
        if (whole_zeros_at_end (path_in_dir ("spare.zero"), &st))
            return st.st_ino;
        nanosleep (&(struct timespec) { 0, 10 * 1000 * 1000 }, NULL);
    }
    cr_assert_fail ("no spare was made in %s", dir);
    return 0;
}

static void
payload_of (uint64_t i, uint8_t *out, size_t len)
{
    for (size_t k = 0; k < len; k++)
        out [k] = (uint8_t) ('a' + (i * 7 + k) % 26);
}

static size_t size_of (uint64_t i) { return 100 + (i * 131) % 900; }

/* Append and sync record i; its position. */
static uint64_t
put (dlq_spool_t *spool, uint64_t i)
{
    uint8_t buf [1024];
    payload_of (i, buf, size_of (i));
    dlq_spool_part_t part = { buf, size_of (i) };
    uint64_t position = 0;
    cr_assert_eq (dlq_spool_append (spool, 1, &part, 1, &position), DLQ_SPOOL_OK);
    cr_assert_eq (dlq_spool_sync (spool, err, sizeof err), DLQ_SPOOL_OK, "%s", err);
    return position;
}

static void
expect_all (dlq_spool_t *spool, const uint64_t *positions, uint64_t from, uint64_t to)
{
    dlq_spool_reader_t *reader = dlq_spool_reader_new (spool, positions [from]);
    for (uint64_t i = from; i < to; i++) {
        dlq_spool_entry_t e;
        cr_assert_eq (dlq_spool_reader_next (reader, &e, err, sizeof err), DLQ_SPOOL_OK, "record %llu: %s",
                      (unsigned long long) i, err);
        uint8_t want [1024];
        payload_of (i, want, size_of (i));
        cr_assert_eq (e.position, positions [i]);
        cr_assert_eq (e.length, size_of (i));
        cr_assert (memcmp (e.payload, want, e.length) == 0);
    }
    dlq_spool_entry_t e;
    cr_assert_eq (dlq_spool_reader_next (reader, &e, err, sizeof err), DLQ_SPOOL_END, "nothing after them");
    dlq_spool_reader_destroy (&reader);
}

/* Put records until the log rolls to a new segment (waiting for a spare
 * first); the base of the new segment. */
static uint64_t
roll (dlq_spool_t *spool, uint64_t *positions, uint64_t *count)
{
    wait_for_spare ();
    dlq_spool_stats_t st;
    dlq_spool_stats (spool, &st);
    uint64_t segments = st.segments;
    while (st.segments == segments) {
        positions [*count] = put (spool, *count);
        (*count)++;
        dlq_spool_stats (spool, &st);
    }
    return positions [*count - 1];
}

static dlq_spool_t *
open_spool (dlq_spool_recovery_t *recovery)
{
    dlq_spool_result_t rc;
    dlq_spool_t *spool = dlq_spool_open (dir, &options, 0, recovery, &rc, err, sizeof err);
    cr_assert (spool, "open: %d %s", rc, err);
    return spool;
}

Test (spool_spare, a_new_segment_starts_from_the_spare_and_the_one_before_is_cut_to_its_records)
{
    uint64_t positions [400], n = 0;
    dlq_spool_t *spool = open_spool (NULL);
    uint64_t first = roll (spool, positions, &n);
    uint64_t second = roll (spool, positions, &n);
    cr_assert_eq (file_size (segment_path (0)), first, "the first segment holds its records and nothing else");
    cr_assert_eq (file_size (segment_path (first)), second - first, "so does the second, made from a spare");
    cr_assert_eq (file_size (segment_path (second)), SEGMENT, "the newest is a spare's length");
    cr_assert_lt (dlq_spool_tip (spool) - second, SEGMENT, "... longer than its records");
    expect_all (spool, positions, 0, n);
    uint64_t tip = dlq_spool_tip (spool);
    dlq_spool_destroy (&spool);
    /* after a restart its zeros are no tail: nothing is cut and the log goes on */
    dlq_spool_recovery_t recovery;
    spool = open_spool (&recovery);
    cr_assert_eq (recovery.cut_bytes, 0);
    cr_assert_eq (dlq_spool_tip (spool), tip);
    cr_assert_eq (dlq_spool_last (spool), positions [n - 1]);
    positions [n] = put (spool, n);
    cr_assert_eq (positions [n], tip);
    n++;
    expect_all (spool, positions, 0, n);
    dlq_spool_destroy (&spool);
}

Test (spool_spare, a_growing_segment_found_at_start_moves_to_a_spare_once_one_is_ready)
{
    dlq_spool_options_t growing = options;
    growing.preallocate = false;
    uint64_t positions [400], n = 0;
    dlq_spool_result_t rc;
    dlq_spool_t *spool = dlq_spool_open (dir, &growing, 0, NULL, &rc, err, sizeof err);
    cr_assert (spool, "%s", err);
    for (; n < 3; n++)
        positions [n] = put (spool, n);
    dlq_spool_destroy (&spool);
    cr_assert_eq (file_size (segment_path (0)), positions [2] + DLQ_SPOOL_RECORD_HEADER + size_of (2),
                  "a file as long as its records");
    spool = open_spool (NULL);
    uint64_t base = roll (spool, positions, &n);
    cr_assert_eq (n, 4, "the first sync after the spare was ready started a segment from it");
    cr_assert_eq (file_size (segment_path (base)), SEGMENT);
    expect_all (spool, positions, 0, n);
    dlq_spool_destroy (&spool);
}

/* Write len bytes of c at offset in the file at path. */
static void
write_at (const char *path, uint64_t offset, int c, size_t len)
{
    uint8_t *bytes = malloc (len);
    memset (bytes, c, len);
    int fd = open (path, O_WRONLY | O_CREAT, 0640);
    cr_assert_geq (fd, 0);
    cr_assert_eq (pwrite (fd, bytes, len, (off_t) offset), (ssize_t) len);
    close (fd);
    free (bytes);
}

Test (spool_spare, a_torn_write_in_a_zeroed_segment_is_cut_and_bytes_past_the_write_window_are_corruption)
{
    uint64_t positions [400], n = 0;
    dlq_spool_t *spool = open_spool (NULL);
    uint64_t base = roll (spool, positions, &n);
    for (int i = 0; i < 3; i++, n++)
        positions [n] = put (spool, n);
    uint64_t tip = dlq_spool_tip (spool);
    dlq_spool_destroy (&spool);
    /* a crash inside the next write: a header and part of its record */
    uint8_t rec [DLQ_SPOOL_RECORD_HEADER + 500];
    memset (rec + DLQ_SPOOL_RECORD_HEADER, 'x', 500);
    dlq_spool_record_header (rec, 1, rec + DLQ_SPOOL_RECORD_HEADER, 500);
    int fd = open (segment_path (base), O_WRONLY);
    cr_assert_eq (pwrite (fd, rec, 300, (off_t) (tip - base)), 300);
    close (fd);
    dlq_spool_recovery_t recovery;
    spool = open_spool (&recovery);
    cr_assert_eq (recovery.cut_position, tip);
    cr_assert_eq (recovery.cut_bytes, 300, "the torn bytes, not the zeros after them");
    expect_all (spool, positions, 0, n);
    dlq_spool_destroy (&spool);
    /* a non-zero byte past the last write's window was synced data: corruption */
    cr_assert_eq (truncate (segment_path (base), SEGMENT), 0, "zeros again past the records");
    write_at (segment_path (base), tip - base + WINDOW + 100, 'y', 1);
    dlq_spool_result_t rc;
    cr_assert_null (dlq_spool_open (dir, &options, 0, NULL, &rc, err, sizeof err));
    cr_assert_eq (rc, DLQ_SPOOL_CORRUPT, "%s", err);
    cr_assert (strstr (err, segment_path (base)), "names the segment: %s", err);
}

Test (spool_spare, a_released_segment_is_recycled_into_the_next_spare)
{
    uint64_t positions [400], n = 0;
    dlq_spool_t *spool = open_spool (NULL);
    uint64_t first = roll (spool, positions, &n), kept = n - 1;
    roll (spool, positions, &n);
    wait_for_spare ();
    struct stat st;
    cr_assert_eq (stat (segment_path (0), &st), 0);
    ino_t oldest = st.st_ino;
    cr_assert_eq (dlq_spool_release (spool, first, err, sizeof err), 1, "%s", err);
    cr_assert_neq (stat (segment_path (0), &st), 0, "the segment is gone from the log");
    /* a spare is ready, so it is held; the next roll makes it the spare */
    cr_assert_eq (stat (path_in_dir ("spare.old"), &st), 0);
    cr_assert_eq (st.st_ino, oldest);
    roll (spool, positions, &n);
    cr_assert_eq (wait_for_spare (), oldest, "the released file, zeroed");
    uint64_t size = file_size (path_in_dir ("spare.zero"));
    cr_assert_eq (size, SEGMENT);
    uint8_t *bytes = malloc (size), *zeros = calloc (1, size);
    int fd = open (path_in_dir ("spare.zero"), O_RDONLY);
    cr_assert_eq (read (fd, bytes, size), (ssize_t) size);
    close (fd);
    cr_assert (memcmp (bytes, zeros, size) == 0, "nothing of its records is left");
    free (bytes);
    free (zeros);
    expect_all (spool, positions, kept, n);
    dlq_spool_destroy (&spool);
}

Test (spool_spare, a_whole_spare_left_by_an_earlier_run_is_taken_as_it_is)
{
    dlq_spool_t *spool = open_spool (NULL);
    ino_t made = wait_for_spare ();
    dlq_spool_destroy (&spool);
    spool = open_spool (NULL);
    cr_assert_eq (wait_for_spare (), made, "the same file: nothing was written again");
    uint64_t positions [400], n = 0;
    uint64_t base = roll (spool, positions, &n);
    struct stat st;
    cr_assert_eq (stat (segment_path (base), &st), 0);
    cr_assert_eq (st.st_ino, made, "and the next segment is made from it");
    dlq_spool_destroy (&spool);
}

Test (spool_spare, a_spare_left_by_an_earlier_run_is_made_anew_unless_it_is_whole_zeros)
{
    dlq_spool_t *spool = open_spool (NULL);
    wait_for_spare ();
    dlq_spool_destroy (&spool);
    /* a half-made spare, and one whose end is not zeros */
    write_at (path_in_dir ("spare.tmp"), 0, 'z', 100);
    write_at (path_in_dir ("spare.zero"), SEGMENT - 100, 'z', 100);
    write_at (path_in_dir ("spare.old"), 0, 'z', 100);
    uint64_t positions [400], n = 0;
    spool = open_spool (NULL);
    uint64_t base = roll (spool, positions, &n);
    dlq_spool_destroy (&spool);
    cr_assert_neq (access (path_in_dir ("spare.old"), F_OK), 0);
    cr_assert_neq (access (path_in_dir ("spare.tmp"), F_OK), 0);
    cr_assert_eq (file_size (segment_path (base)), SEGMENT);
    dlq_spool_recovery_t recovery;
    spool = open_spool (&recovery);
    cr_assert_eq (recovery.cut_bytes, 0, "the segment made from the new spare holds only zeros past its records");
    expect_all (spool, positions, 0, n);
    dlq_spool_destroy (&spool);
}
