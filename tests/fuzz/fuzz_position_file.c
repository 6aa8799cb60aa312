/*  fuzz_position_file — a sink's attempted marker read back from a file of
 *  any bytes (core/spool/position_file): the input is the file.
 *
 *  Oracles. The harness reads the two slots itself (the layout of
 *  position_file.h, a CRC32C of its own): dlq_position_file_parse finds a
 *  position exactly when a slot is whole, and then the one of the whole
 *  slot with the higher sequence (the first on a tie). Opening the file
 *  gives the same position; two writes then a reopen give the second
 *  position written, whatever the file held, and a third write torn (the
 *  first bytes of its slot on disk, the rest the first write's) leaves the
 *  second.
 */
#include "fuzz_support.h"
#include "position_file.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char     path [PATH_MAX];
static uint32_t crc_table [256];          /* CRC32C, reflected: the harness's own */

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
    (void) argc; (void) argv;
    snprintf (path, sizeof path, "%s/attempted", fuzz_scratch_dir ("fuzz-position-file"));
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
        crc_table [i] = c;
    }
    return 0;
}

static uint32_t
own_crc32c (const uint8_t *p, size_t len)
{
    uint32_t crc = ~0u;
    while (len--)
        crc = crc_table [(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return ~crc;
}

static uint64_t
le64 (const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p [i];
    return v;
}

/* The harness's reading of one slot of 32 bytes. */
static bool
own_slot (const uint8_t *s, uint64_t *seq, uint64_t *pos)
{
    static const uint8_t zero [4];
    uint32_t crc = (uint32_t) s [28] | (uint32_t) s [29] << 8 | (uint32_t) s [30] << 16 | (uint32_t) s [31] << 24;
    *seq = le64 (s + 8);
    *pos = le64 (s + 16);
    return memcmp (s, "DLQP\1", 5) == 0 && memcmp (s + 5, zero, 3) == 0 && memcmp (s + 24, zero, 4) == 0
           && crc == own_crc32c (s, 28) && *seq != 0;
}

static uint64_t
open_read (bool *found)
{
    char err [512];
    uint64_t position;
    dlq_position_file_t *file = dlq_position_file_open (path, &position, found, err, sizeof err);
    if (!file)
        fuzz_fail ("open: %s", err);
    dlq_position_file_destroy (&file);
    return position;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    bool want = false;
    uint64_t want_pos = 0, want_seq = 0;
    for (size_t at = 0; at + 32 <= size && at < DLQ_POSITION_FILE_BYTES; at += 32) {
        uint64_t seq, pos;
        if (own_slot (data + at, &seq, &pos) && (!want || seq > want_seq)) {
            want = true;
            want_seq = seq;
            want_pos = pos;
        }
    }
    uint64_t pos, seq;
    dlq_position_file_result_t rc = dlq_position_file_parse (data, size, &pos, &seq);
    FUZZ_CHECK (rc == (want ? DLQ_POSITION_FILE_OK : DLQ_POSITION_FILE_NONE));
    FUZZ_CHECK (pos == want_pos && seq == want_seq);

    if (!fuzz_write_file (path, data, size))
        fuzz_fail ("cannot write %s", path);
    bool found;
    FUZZ_CHECK (open_read (&found) == want_pos && found == want);

    /* two writes, then a third torn (its first bytes on disk, the rest
     * still the first write's): the second survives */
    char err [512];
    dlq_position_file_t *file = dlq_position_file_open (path, &pos, &found, err, sizeof err);
    if (!file)
        fuzz_fail ("open: %s", err);
    uint64_t first = want_pos ^ 0x5a5a5a5a5a5aULL, second = first + 1 + (size ? data [size - 1] : 0);
    FUZZ_CHECK (dlq_position_file_write (file, first, err, sizeof err) == DLQ_POSITION_FILE_OK);
    FUZZ_CHECK (dlq_position_file_write (file, second, err, sizeof err) == DLQ_POSITION_FILE_OK);
    dlq_position_file_destroy (&file);
    FUZZ_CHECK (open_read (&found) == second && found);
    uint8_t bytes [DLQ_POSITION_FILE_BYTES] = { 0 };
    int fd = open (path, O_RDWR);
    FUZZ_CHECK (pread (fd, bytes, sizeof bytes, 0) == (ssize_t) sizeof bytes);
    FUZZ_CHECK (dlq_position_file_parse (bytes, sizeof bytes, &pos, &seq) == DLQ_POSITION_FILE_OK && pos == second);
    size_t older = (size_t) ((seq + 1) % 2) * 32;   /* the first write's slot: where the next goes */
    uint64_t older_seq, older_pos;
    FUZZ_CHECK (own_slot (bytes + older, &older_seq, &older_pos) && older_seq == seq - 1 && older_pos == first);
    uint8_t third [32];
    memcpy (third, bytes + older, 32);
    for (int i = 0; i < 8; i++)
        third [8 + i] = (uint8_t) ((seq + 1) >> (8 * i));       /* its sequence and position; */
    for (int i = 0; i < 8; i++)
        third [16 + i] = (uint8_t) ((second + 7) >> (8 * i));   /* the checksum never reached the disk */
    size_t cut = size ? data [0] % 32 : 0;
    FUZZ_CHECK (pwrite (fd, third, cut, (off_t) older) == (ssize_t) cut);
    close (fd);
    FUZZ_CHECK (open_read (&found) == second && found);
    return 0;
}
