/*  position_file — two checksummed slots written in turn (position_file.h
 *  has the format), with pwrite and fdatasync.
 */
#include "position_file.h"

#include "dlq_alloc.h"
#include "dlq_bytes.h"
#include "spool_record.h"
#include "spool_segment.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SLOT_BYTES 32
#define SLOT_CRC_AT 28
#define SEQUENCE_MAX (1ULL << 62)    /* a file's sequence above this (never reached by writes) starts again */

struct dlq_position_file {
    int      fd;
    uint64_t sequence;          /* of the last write (or of the slot read) */
    char    *path;
};

/* One slot's sequence and position, if it is whole. */
static bool
slot_parse (const uint8_t *slot, uint64_t *sequence, uint64_t *position)
{
    dlq_bytes_reader_t r = { slot + 8, slot + SLOT_BYTES };
    uint32_t zero, crc;
    if (memcmp (slot, "DLQP\1\0\0\0", 8) != 0
    ||  !dlq_bytes_get_u64 (&r, sequence) || !dlq_bytes_get_u64 (&r, position)
    ||  !dlq_bytes_get_u32 (&r, &zero) || !dlq_bytes_get_u32 (&r, &crc)
    ||  zero != 0 || crc != dlq_spool_record_crc32c (0, slot, SLOT_CRC_AT))
        return false;
    return *sequence != 0;
}

dlq_position_file_result_t
dlq_position_file_parse (const uint8_t *bytes, size_t len, uint64_t *position_out, uint64_t *sequence_out)
{
    bool found = false;
    uint64_t best_seq = 0, best_pos = 0;
    for (size_t at = 0; at + SLOT_BYTES <= len && at < DLQ_POSITION_FILE_BYTES; at += SLOT_BYTES) {
        uint64_t seq, pos;
        if (slot_parse (bytes + at, &seq, &pos) && (!found || seq > best_seq)) {
            best_seq = seq;
            best_pos = pos;
            found = true;
        }
    }
    *position_out = best_pos;
    *sequence_out = best_seq;
    return found ? DLQ_POSITION_FILE_OK : DLQ_POSITION_FILE_NONE;
}

/* Sync the directory holding path, so a file just created stays. */
static bool
sync_dir_of (const char *path, char *err, size_t err_len)
{
    char *copy = dlq_strdup (path);
    bool ok = dlq_spool_segment_sync_dir (dirname (copy), err, err_len);
    free (copy);
    return ok;
}

/* Make the directory of path when missing (its parent's entry synced). */
static void
make_dir_of (const char *path)
{
    char *copy = dlq_strdup (path);
    char *dir = dirname (copy);
    char ignored [256];
    if (mkdir (dir, 0750) == 0)
        sync_dir_of (dir, ignored, sizeof ignored);     /* best effort: a power cut that loses it loses only positions */
    free (copy);
}

dlq_position_file_t *
dlq_position_file_open (const char *path, uint64_t *position_out, bool *found_out, char *err, size_t err_len)
{
    *position_out = 0;
    *found_out = false;
    int fd = open (path, O_RDWR | O_CLOEXEC);
    bool created = false;
    if (fd < 0 && errno == ENOENT) {
        make_dir_of (path);
        fd = open (path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        created = fd >= 0;
    }
    if (fd < 0) {
        snprintf (err, err_len, "cannot open %s: %s", path, strerror (errno));
        return NULL;
    }
    uint8_t bytes [DLQ_POSITION_FILE_BYTES] = { 0 };
    ssize_t n = pread (fd, bytes, sizeof bytes, 0);
    if (n < 0)
        snprintf (err, err_len, "cannot read %s: %s", path, strerror (errno));
    if (n < 0 || (created && !sync_dir_of (path, err, err_len))) {
        close (fd);
        return NULL;
    }
    dlq_position_file_t *self = dlq_calloc (1, sizeof *self);
    self->fd = fd;
    self->path = dlq_strdup (path);
    *found_out = dlq_position_file_parse (bytes, (size_t) n, position_out, &self->sequence)
                 == DLQ_POSITION_FILE_OK;
    if (self->sequence > SEQUENCE_MAX) {
        /* the position again under sequences 1 and 2, so the next writes
         * do not wrap to 0 (which no slot may hold) */
        self->sequence = 0;
        if (dlq_position_file_write (self, *position_out, err, err_len) != DLQ_POSITION_FILE_OK
        ||  dlq_position_file_write (self, *position_out, err, err_len) != DLQ_POSITION_FILE_OK) {
            dlq_position_file_destroy (&self);
            return NULL;
        }
    }
    return self;
}

void
dlq_position_file_destroy (dlq_position_file_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    close ((*self_p)->fd);
    free ((*self_p)->path);
    free (*self_p);
    *self_p = NULL;
}

dlq_position_file_result_t
dlq_position_file_write (dlq_position_file_t *self, uint64_t position, char *err, size_t err_len)
{
    uint64_t sequence = self->sequence + 1;
    uint8_t slot [SLOT_BYTES];
    dlq_buf_t b = DLQ_BUF_INIT;
    dlq_buf_append (&b, "DLQP\1\0\0\0", 8);
    dlq_bytes_put_u64 (&b, sequence);
    dlq_bytes_put_u64 (&b, position);
    dlq_bytes_put_u32 (&b, 0);
    dlq_bytes_put_u32 (&b, dlq_spool_record_crc32c (0, b.data, SLOT_CRC_AT));
    memcpy (slot, b.data, SLOT_BYTES);
    dlq_buf_free (&b);
    off_t at = (off_t) (sequence % 2) * SLOT_BYTES;
    errno = 0;
    if (pwrite (self->fd, slot, sizeof slot, at) != (ssize_t) sizeof slot || fdatasync (self->fd) != 0) {
        snprintf (err, err_len, "cannot write %s: %s", self->path, errno ? strerror (errno) : "short write");
        return DLQ_POSITION_FILE_ERROR;
    }
    self->sequence = sequence;
    return DLQ_POSITION_FILE_OK;
}
