/*  test_position_file — a position kept durably under a name
 *  (core/spool/position_file): a new file has none; what is written is read
 *  back after reopening, the last write winning; a torn or zeroed slot
 *  leaves the position before it; a file of another kind, or short, has
 *  none; a missing directory is made; a sequence at its end starts again;
 *  an unwritable path is a clear error.
 */
#include "position_file.h"
#include "spool_record.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir [64], path [96];

static void
setup (void)
{
    snprintf (dir, sizeof dir, "/tmp/test_position_file.XXXXXX");
    cr_assert_not_null (mkdtemp (dir));
    snprintf (path, sizeof path, "%s/sink-a", dir);
}

static void
teardown (void)
{
    unlink (path);
    rmdir (dir);
}

TestSuite (position_file, .init = setup, .fini = teardown);

static uint64_t
reopen (bool *found)
{
    char err [256] = "";
    uint64_t position = 99;
    dlq_position_file_t *file = dlq_position_file_open (path, &position, found, err, sizeof err);
    cr_assert_not_null (file, "%s", err);
    dlq_position_file_destroy (&file);
    cr_assert_null (file);
    return position;
}

Test (position_file, the_last_position_written_is_read_back)
{
    bool found = true;
    cr_assert_eq (reopen (&found), 0);
    cr_assert_not (found, "a new file holds no position");
    char err [256] = "";
    uint64_t position;
    dlq_position_file_t *file = dlq_position_file_open (path, &position, &found, err, sizeof err);
    for (uint64_t p = 1; p <= 5; p++)
        cr_assert_eq (dlq_position_file_write (file, p * 1000, err, sizeof err), DLQ_POSITION_FILE_OK, "%s", err);
    dlq_position_file_destroy (&file);
    cr_assert_eq (reopen (&found), 5000);
    cr_assert (found);
    /* written again after a reopen: the sequence goes on from the file's */
    file = dlq_position_file_open (path, &position, &found, err, sizeof err);
    cr_assert_eq (dlq_position_file_write (file, 7000, err, sizeof err), DLQ_POSITION_FILE_OK);
    dlq_position_file_destroy (&file);
    cr_assert_eq (reopen (&found), 7000);
}

/* The slot the last write used, torn (a byte changed) or zeroed: the
 * position before it, from the other slot. */
Test (position_file, a_torn_last_write_leaves_the_position_before_it)
{
    char err [256] = "";
    uint64_t position;
    bool found;
    dlq_position_file_t *file = dlq_position_file_open (path, &position, &found, err, sizeof err);
    cr_assert_eq (dlq_position_file_write (file, 10, err, sizeof err), DLQ_POSITION_FILE_OK);
    cr_assert_eq (dlq_position_file_write (file, 20, err, sizeof err), DLQ_POSITION_FILE_OK);
    dlq_position_file_destroy (&file);
    int fd = open (path, O_RDWR);
    uint8_t bytes [DLQ_POSITION_FILE_BYTES];
    cr_assert_eq (pread (fd, bytes, sizeof bytes, 0), (ssize_t) sizeof bytes);
    uint64_t seq;
    cr_assert_eq (dlq_position_file_parse (bytes, sizeof bytes, &position, &seq), DLQ_POSITION_FILE_OK);
    cr_assert_eq (position, 20);
    size_t last = (seq % 2) * 32;
    uint8_t torn [DLQ_POSITION_FILE_BYTES];
    memcpy (torn, bytes, sizeof torn);
    torn [last + 17] ^= 0x40;                   /* the position's second byte */
    cr_assert_eq (dlq_position_file_parse (torn, sizeof torn, &position, &seq), DLQ_POSITION_FILE_OK);
    cr_assert_eq (position, 10, "the torn slot is passed over");
    memset (torn + last, 0, 32);
    cr_assert_eq (dlq_position_file_parse (torn, sizeof torn, &position, &seq), DLQ_POSITION_FILE_OK);
    cr_assert_eq (position, 10, "a zeroed slot too");
    cr_assert_eq (pwrite (fd, torn, sizeof torn, 0), (ssize_t) sizeof torn);
    close (fd);
    cr_assert_eq (reopen (&found), 10);
    cr_assert (found);
}

Test (position_file, another_kind_of_file_or_a_short_one_holds_none)
{
    uint64_t position, seq;
    uint8_t text [DLQ_POSITION_FILE_BYTES];
    memset (text, 'x', sizeof text);
    cr_assert_eq (dlq_position_file_parse (text, sizeof text, &position, &seq), DLQ_POSITION_FILE_NONE);
    cr_assert_eq (position, 0);
    cr_assert_eq (dlq_position_file_parse (text, 31, &position, &seq), DLQ_POSITION_FILE_NONE);
    cr_assert_eq (dlq_position_file_parse (NULL, 0, &position, &seq), DLQ_POSITION_FILE_NONE);
    /* a whole slot of version 2, its checksum right: not ours */
    char err [256] = "";
    bool found;
    dlq_position_file_t *file = dlq_position_file_open (path, &position, &found, err, sizeof err);
    cr_assert_eq (dlq_position_file_write (file, 5, err, sizeof err), DLQ_POSITION_FILE_OK);
    dlq_position_file_destroy (&file);
    int fd = open (path, O_RDONLY);
    uint8_t bytes [DLQ_POSITION_FILE_BYTES];
    cr_assert_eq (pread (fd, bytes, sizeof bytes, 0), (ssize_t) sizeof bytes);
    close (fd);
    cr_assert_eq (dlq_position_file_parse (bytes, sizeof bytes, &position, &seq), DLQ_POSITION_FILE_OK);
    bytes [32 + 4] = 2;
    uint32_t crc = dlq_spool_record_crc32c (0, bytes + 32, 28);
    for (int i = 0; i < 4; i++)
        bytes [32 + 28 + i] = (uint8_t) (crc >> (8 * i));
    cr_assert_eq (dlq_position_file_parse (bytes, sizeof bytes, &position, &seq), DLQ_POSITION_FILE_NONE);
}

Test (position_file, an_unwritable_path_is_a_clear_error)
{
    char err [256] = "";
    uint64_t position;
    bool found;
    cr_assert_null (dlq_position_file_open ("/nonexistent-dir/sub/x", &position, &found, err, sizeof err));
    cr_assert (strstr (err, "/nonexistent-dir/sub/x") && strstr (err, "No such file"), "%s", err);
}

Test (position_file, a_missing_directory_is_made)
{
    char sub [128], file_path [160];
    snprintf (sub, sizeof sub, "%s/attempted", dir);
    snprintf (file_path, sizeof file_path, "%s/sink-b", sub);
    char err [256] = "";
    uint64_t position;
    bool found;
    dlq_position_file_t *file = dlq_position_file_open (file_path, &position, &found, err, sizeof err);
    cr_assert_not_null (file, "%s", err);
    cr_assert_eq (dlq_position_file_write (file, 42, err, sizeof err), DLQ_POSITION_FILE_OK);
    dlq_position_file_destroy (&file);
    file = dlq_position_file_open (file_path, &position, &found, err, sizeof err);
    cr_assert (found);
    cr_assert_eq (position, 42);
    dlq_position_file_destroy (&file);
    unlink (file_path);
    rmdir (sub);
}

/* A file whose sequence is the highest there is: its position is kept and
 * the writes after it are read back (they would wrap to 0, no slot's). */
Test (position_file, a_sequence_at_its_end_starts_again)
{
    uint8_t slot [32] = { 'D', 'L', 'Q', 'P', 1 };
    memset (slot + 8, 0xff, 8);
    slot [16] = 77;
    uint32_t crc = dlq_spool_record_crc32c (0, slot, 28);
    for (int i = 0; i < 4; i++)
        slot [28 + i] = (uint8_t) (crc >> (8 * i));
    int fd = open (path, O_RDWR | O_CREAT, 0600);
    cr_assert_eq (pwrite (fd, slot, sizeof slot, 32), (ssize_t) sizeof slot);
    close (fd);
    char err [256] = "";
    uint64_t position;
    bool found;
    dlq_position_file_t *file = dlq_position_file_open (path, &position, &found, err, sizeof err);
    cr_assert_not_null (file, "%s", err);
    cr_assert (found);
    cr_assert_eq (position, 77);
    cr_assert_eq (dlq_position_file_write (file, 78, err, sizeof err), DLQ_POSITION_FILE_OK);
    dlq_position_file_destroy (&file);
    cr_assert_eq (reopen (&found), 78);
}
