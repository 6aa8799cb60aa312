/*  spool_segment — segment files: naming, listing, scanning, syncing their directory.
 */
#include "spool_segment.h"

#include "dlq_alloc.h"
#include "spool_record.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NAME_DIGITS 20
#define SCAN_CHUNK (1u << 20)

void
dlq_spool_segment_path (char *out, size_t len, const char *dir, uint64_t base)
{
    snprintf (out, len, "%s/%020" PRIu64 DLQ_SPOOL_SEGMENT_SUFFIX, dir, base);
}

bool
dlq_spool_segment_parse_name (const char *name, uint64_t *base_out)
{
    size_t suffix = strlen (DLQ_SPOOL_SEGMENT_SUFFIX);
    if (strlen (name) != NAME_DIGITS + suffix || strcmp (name + NAME_DIGITS, DLQ_SPOOL_SEGMENT_SUFFIX) != 0)
        return false;
    uint64_t base = 0;
    for (int i = 0; i < NAME_DIGITS; i++) {
        if (name [i] < '0' || name [i] > '9')
            return false;
        unsigned digit = (unsigned) (name [i] - '0');
        if (base > (UINT64_MAX - digit) / 10)
            return false;
        base = base * 10 + digit;
    }
    *base_out = base;
    return true;
}

static int
compare_bases (const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
    return x < y ? -1 : x > y;
}

bool
dlq_spool_segment_list (const char *dir, uint64_t **bases_out, size_t *count_out, char *err, size_t err_len)
{
    *bases_out = NULL;
    *count_out = 0;
    DIR *d = opendir (dir);
    if (!d) {
        snprintf (err, err_len, "cannot read the spool directory %s: %s", dir, strerror (errno));
        return false;
    }
    uint64_t *bases = NULL;
    size_t count = 0, cap = 0;
    struct dirent *entry;
    while ((entry = readdir (d))) {
        uint64_t base;
        if (!dlq_spool_segment_parse_name (entry->d_name, &base))
            continue;
        if (count == cap) {
            cap = cap ? cap * 2 : 16;
            bases = dlq_realloc (bases, cap * sizeof *bases);
        }
        bases [count++] = base;
    }
    closedir (d);
    if (count)
        qsort (bases, count, sizeof *bases, compare_bases);
    *bases_out = bases;
    *count_out = count;
    return true;
}

bool
dlq_spool_segment_scan (int fd, uint64_t size, uint32_t max_record_bytes, dlq_spool_scan_t *out,
                        char *err, size_t err_len)
{
    memset (out, 0, sizeof *out);
    /* no more than the file: a small segment is read in one small buffer */
    size_t cap = size < SCAN_CHUNK ? (size_t) size + 1 : SCAN_CHUNK;
    uint8_t *buf = dlq_malloc (cap);
    uint64_t offset = 0;                /* of buf [0] in the file */
    size_t len = 0, at = 0;             /* bytes in buf; where the next record starts in it */
    bool ok = true;
    for (;;) {
        size_t needed = 0;
        dlq_spool_record_result_t rc = dlq_spool_record_parse (buf + at, len - at, max_record_bytes, NULL, &needed);
        if (rc == DLQ_SPOOL_RECORD_OK) {
            out->last_record = offset + at;
            at += needed;
            out->records++;
            out->valid_bytes = offset + at;
            out->declared_end = 0;
            continue;
        }
        uint32_t declared = 0;
        if (rc == DLQ_SPOOL_RECORD_BAD) {
            out->bad = true;
            if (len - at >= DLQ_SPOOL_RECORD_HEADER && dlq_spool_record_declared (buf + at, max_record_bytes, &declared))
                out->declared_end = offset + at + DLQ_SPOOL_RECORD_HEADER + declared;
            out->reaches_end = out->declared_end >= size;
            break;
        }
        /* SHORT: move the partial record to the front and read more, unless
         * the file ends before the record would (then it was cut short) */
        uint64_t left = size - (offset + len);
        if (needed)
            out->declared_end = offset + at + needed;
        if (left == 0 || (needed && offset + at + needed > size))
            break;
        memmove (buf, buf + at, len - at);
        offset += at;
        len -= at;
        at = 0;
        if (needed > cap) {
            cap = needed;
            buf = dlq_realloc (buf, cap);
        }
        size_t want = cap - len < left ? cap - len : (size_t) left;
        ssize_t n = pread (fd, buf + len, want, (off_t) (offset + len));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            snprintf (err, err_len, "cannot read a spool segment: %s", strerror (errno));
            ok = false;
            break;
        }
        if (n == 0)
            break;                      /* the file is shorter than its size said */
        len += (size_t) n;
    }
    free (buf);
    return ok;
}

bool
dlq_spool_segment_sync_dir (const char *dir, char *err, size_t err_len)
{
    int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || fsync (fd) != 0) {
        snprintf (err, err_len, "cannot sync the directory %s: %s", dir, strerror (errno));
        if (fd >= 0)
            close (fd);
        return false;
    }
    close (fd);
    return true;
}
