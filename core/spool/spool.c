/*  spool — the log: segments, the staged batch, sync, tip, release, and
 *  the readers. The writer thread owns the staging buffer and the newest
 *  segment's descriptor; the segment table is shared with readers and
 *  release under a mutex; the tip is an atomic that the writer stores
 *  (release) after each fdatasync and readers load (acquire), so a reader
 *  never reads past what is durable.
 */
#include "spool.h"

#include "dlq_alloc.h"
#include "dlq_buf.h"
#include "spool_record.h"
#include "spool_segment.h"
#include "spool_spare.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define READ_CHUNK (256u << 10)

typedef struct {
    uint64_t base;              /* position of its first byte */
    uint64_t size;              /* bytes; the newest's grows with each sync */
} segment_t;

struct dlq_spool {
    char                *dir;
    dlq_spool_options_t  options;
    pthread_mutex_t      lock;          /* segments, count, the counters */
    segment_t           *segments;      /* oldest first; the last is the newest */
    size_t               count, cap;
    int                  fd;            /* the newest segment, for writing */
    uint64_t             allocated;     /* its file's length when made longer than its records (a spare) */
    dlq_spool_spare_t   *spare;         /* NULL: options.preallocate off, or no thread */
    _Atomic uint64_t     tip;
    dlq_buf_t            staged;        /* records appended since the last sync */
    uint64_t             staged_records;
    bool                 cut_pending;   /* a failed write left bytes past the tip */
    dlq_spool_stats_t    counters;      /* syncs, records, torn_* */
    _Atomic uint64_t     last;          /* the last record synced */
    uint64_t             last_staged;
    dlq_spool_consumer_t *consumers;    /* under lock */
};

struct dlq_spool_consumer {
    dlq_spool_t          *spool;
    char                 *name;
    _Atomic uint64_t      needed_from;
    uint64_t              limit_bytes;
    dlq_spool_consumer_t *next;
};

struct dlq_spool_reader {
    dlq_spool_t *spool;
    uint64_t     position;
    int          fd;                    /* the segment holding position, or -1 */
    segment_t    segment;               /* which, and its size when last looked up */
    uint8_t     *buf;                   /* bytes of the segment from buf_position on */
    size_t       buf_cap, buf_len;
    uint64_t     buf_position;
};

static void
path_of (const dlq_spool_t *self, uint64_t base, char *out, size_t len)
{
    dlq_spool_segment_path (out, len, self->dir, base);
}

static void
push_segment (dlq_spool_t *self, uint64_t base, uint64_t size)
{
    if (self->count == self->cap) {
        self->cap = self->cap ? self->cap * 2 : 16;
        self->segments = dlq_realloc (self->segments, self->cap * sizeof *self->segments);
    }
    self->segments [self->count++] = (segment_t) { base, size };
}

/* Cut the newest segment's file to its records (size), synced: a
 * segment before the newest is exactly as long as its records. */
static bool
seal_newest (dlq_spool_t *self, uint64_t size, char *err, size_t err_len)
{
    if (self->fd < 0 || self->allocated <= size)
        return true;
    if (ftruncate (self->fd, (off_t) size) != 0 || fdatasync (self->fd) != 0) {
        snprintf (err, err_len, "cannot cut the spool segment before position %" PRIu64 " to its records: %s",
                  atomic_load (&self->tip), strerror (errno));
        return false;
    }
    self->allocated = 0;
    return true;
}

/* Create the segment at base as the newest, open for writing: the spare
 * when one is ready, else an empty file. The newest before it is sealed
 * first (sealed_size: its records), so a crash between the two leaves
 * either it or the new one empty as the newest. */
static bool
create_segment (dlq_spool_t *self, uint64_t base, uint64_t sealed_size, char *err, size_t err_len)
{
    char path [PATH_MAX];
    path_of (self, base, path, sizeof path);
    if (!seal_newest (self, sealed_size, err, err_len))
        return false;
    uint64_t allocated = 0;
    int fd = -1;
    if (self->spare && dlq_spool_spare_take (self->spare, path, &allocated)) {
        fd = open (path, O_WRONLY | O_CLOEXEC);
        if (fd < 0) {
            unlink (path);
            allocated = 0;
        }
    }
    if (fd < 0)
        fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
    if (fd < 0) {
        snprintf (err, err_len, "cannot create the spool segment %s: %s", path, strerror (errno));
        return false;
    }
    if (!dlq_spool_segment_sync_dir (self->dir, err, err_len)) {
        close (fd);
        unlink (path);
        return false;
    }
    if (self->fd >= 0)
        close (self->fd);
    self->fd = fd;
    self->allocated = allocated;
    pthread_mutex_lock (&self->lock);
    push_segment (self, base, 0);
    pthread_mutex_unlock (&self->lock);
    return true;
}


/* Where the bytes from..size of the file open on fd end once the zeros at
 * their end are left out (from when all are zeros). */
static bool
nonzero_end (int fd, uint64_t from, uint64_t size, uint64_t *end_out, char *err, size_t err_len)
{
    uint8_t buf [64 * 1024];
    uint64_t end = size;
    while (end > from) {
        size_t n = end - from < sizeof buf ? (size_t) (end - from) : sizeof buf;
        ssize_t got = pread (fd, buf, n, (off_t) (end - n));
        if (got < 0 && errno == EINTR)
            continue;
        if (got != (ssize_t) n) {
            snprintf (err, err_len, "cannot read the end of a spool segment: %s",
                      got < 0 ? strerror (errno) : "it is shorter than its size");
            return false;
        }
        for (size_t i = n; i > 0; i--)
            if (buf [i - 1]) {
                *end_out = end - n + i;
                return true;
            }
        end -= n;
    }
    *end_out = from;
    return true;
}

/* Find where the newest segment's whole records end and cut the rest. */
static dlq_spool_result_t
recover_newest (dlq_spool_t *self, uint64_t base, dlq_spool_recovery_t *recovery, char *err, size_t err_len)
{
    char path [PATH_MAX];
    path_of (self, base, path, sizeof path);
    int fd = open (path, O_WRONLY | O_CLOEXEC);
    int rfd = open (path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || rfd < 0 || fstat (rfd, &st) != 0) {
        snprintf (err, err_len, "cannot open the spool segment %s: %s", path, strerror (errno));
        if (fd >= 0)
            close (fd);
        if (rfd >= 0)
            close (rfd);
        return DLQ_SPOOL_ERROR;
    }
    uint64_t size = (uint64_t) st.st_size;
    dlq_spool_scan_t scan;
    if (!dlq_spool_segment_scan (rfd, size, self->options.max_record_bytes, &scan, err, err_len)) {
        close (rfd);
        close (fd);
        return DLQ_SPOOL_ERROR;
    }
    uint64_t tail_end = scan.valid_bytes;
    if (scan.valid_bytes < size && !nonzero_end (rfd, scan.valid_bytes, size, &tail_end, err, err_len)) {
        close (rfd);
        close (fd);
        return DLQ_SPOOL_ERROR;
    }
    close (rfd);
    if (tail_end - scan.valid_bytes > self->options.max_write_bytes && scan.declared_end < tail_end) {
        snprintf (err, err_len, "spool segment %s: the record at offset %" PRIu64 " (position %" PRIu64
                  ") does not check, %" PRIu64 " bytes before the end: the log is corrupt there, not torn",
                  path, scan.valid_bytes, base + scan.valid_bytes, tail_end - scan.valid_bytes);
        close (fd);
        return DLQ_SPOOL_CORRUPT;
    }
    self->allocated = size > scan.valid_bytes ? size : 0;  /* zeros after the records: a spare's */
    if (tail_end > scan.valid_bytes) {
        if (ftruncate (fd, (off_t) scan.valid_bytes) != 0 || fdatasync (fd) != 0) {
            snprintf (err, err_len, "cannot cut the torn tail of %s: %s", path, strerror (errno));
            close (fd);
            return DLQ_SPOOL_ERROR;
        }
        recovery->cut_position = base + scan.valid_bytes;
        recovery->cut_bytes = tail_end - scan.valid_bytes;
        self->counters.torn_cuts = 1;
        self->counters.torn_bytes = recovery->cut_bytes;
        self->allocated = 0;
    }
    self->fd = fd;
    push_segment (self, base, scan.valid_bytes);
    if (scan.records)
        atomic_store (&self->last, base + scan.last_record);
    return DLQ_SPOOL_OK;
}

/* The last record of a sealed segment (for a newest one still empty). */
static dlq_spool_result_t
find_last (dlq_spool_t *self, const segment_t *segment, char *err, size_t err_len)
{
    char path [PATH_MAX];
    path_of (self, segment->base, path, sizeof path);
    int fd = open (path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf (err, err_len, "cannot open the spool segment %s: %s", path, strerror (errno));
        return DLQ_SPOOL_ERROR;
    }
    dlq_spool_scan_t scan;
    bool ok = dlq_spool_segment_scan (fd, segment->size, self->options.max_record_bytes, &scan, err, err_len);
    close (fd);
    if (ok && scan.records)
        atomic_store (&self->last, segment->base + scan.last_record);
    return ok ? DLQ_SPOOL_OK : DLQ_SPOOL_ERROR;
}

/* Take the directory's segments: the older ones must follow each other
 * exactly; the newest is recovered. */
static dlq_spool_result_t
load (dlq_spool_t *self, uint64_t start, dlq_spool_recovery_t *recovery, char *err, size_t err_len)
{
    uint64_t *bases = NULL;
    size_t count = 0;
    if (!dlq_spool_segment_list (self->dir, &bases, &count, err, err_len))
        return DLQ_SPOOL_ERROR;
    dlq_spool_result_t rc = DLQ_SPOOL_OK;
    for (size_t i = 0; i + 1 < count && rc == DLQ_SPOOL_OK; i++) {
        char path [PATH_MAX];
        path_of (self, bases [i], path, sizeof path);
        struct stat st;
        if (stat (path, &st) != 0) {
            snprintf (err, err_len, "cannot stat the spool segment %s: %s", path, strerror (errno));
            rc = DLQ_SPOOL_ERROR;
        }
        else
        if (bases [i] + (uint64_t) st.st_size != bases [i + 1]) {
            snprintf (err, err_len, "spool segment %s ends at position %" PRIu64 " but the next segment starts "
                      "at %" PRIu64 ": the log is corrupt there", path, bases [i] + (uint64_t) st.st_size,
                      bases [i + 1]);
            rc = DLQ_SPOOL_CORRUPT;
        }
        else
            push_segment (self, bases [i], (uint64_t) st.st_size);
    }
    if (rc == DLQ_SPOOL_OK)
        rc = count ? recover_newest (self, bases [count - 1], recovery, err, err_len)
                   : (create_segment (self, start, 0, err, err_len) ? DLQ_SPOOL_OK : DLQ_SPOOL_ERROR);
    free (bases);
    if (rc == DLQ_SPOOL_OK) {
        segment_t *newest = &self->segments [self->count - 1];
        atomic_store (&self->tip, newest->base + newest->size);
        if (!atomic_load (&self->last) && self->count > 1)
            rc = find_last (self, &self->segments [self->count - 2], err, err_len);
    }
    return rc;
}

dlq_spool_t *
dlq_spool_open (const char *dir, const dlq_spool_options_t *options, uint64_t start,
                dlq_spool_recovery_t *recovery_out, dlq_spool_result_t *result_out, char *err, size_t err_len)
{
    static const dlq_spool_options_t defaults = DLQ_SPOOL_OPTIONS_DEFAULT;
    dlq_spool_recovery_t recovery = { 0, 0 };
    dlq_spool_result_t ignored;
    if (!result_out)
        result_out = &ignored;
    if (mkdir (dir, 0750) != 0 && errno != EEXIST) {
        snprintf (err, err_len, "cannot make the spool directory %s: %s", dir, strerror (errno));
        *result_out = DLQ_SPOOL_ERROR;
        return NULL;
    }
    dlq_spool_t *self = dlq_calloc (1, sizeof *self);
    self->dir = dlq_strdup (dir);
    self->options = options ? *options : defaults;
    /* a zero is "the default", for each of them */
    if (self->options.segment_bytes == 0)
        self->options.segment_bytes = defaults.segment_bytes;
    if (self->options.max_record_bytes == 0)
        self->options.max_record_bytes = defaults.max_record_bytes;
    if (self->options.max_write_bytes == 0)
        self->options.max_write_bytes = defaults.max_write_bytes;
    self->fd = -1;
    pthread_mutex_init (&self->lock, NULL);
    *result_out = load (self, start, &recovery, err, err_len);
    if (*result_out != DLQ_SPOOL_OK) {
        dlq_spool_destroy (&self);
        return NULL;
    }
    if (recovery_out)
        *recovery_out = recovery;
    if (self->options.preallocate)
        self->spare = dlq_spool_spare_new (dir, self->options.segment_bytes);
    return self;
}

void
dlq_spool_destroy (dlq_spool_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_spool_t *self = *self_p;
    dlq_spool_spare_destroy (&self->spare);
    if (self->fd >= 0)
        close (self->fd);
    pthread_mutex_destroy (&self->lock);
    dlq_buf_free (&self->staged);
    free (self->segments);
    free (self->dir);
    free (self);
    *self_p = NULL;
}

dlq_spool_result_t
dlq_spool_append (dlq_spool_t *self, uint8_t kind, const dlq_spool_part_t *parts, size_t count,
                  uint64_t *position_out)
{
    size_t length = 0;
    for (size_t i = 0; i < count; i++)
        length += parts [i].len;
    if (length > self->options.max_record_bytes || kind == 0)
        return DLQ_SPOOL_TOO_LARGE;
    *position_out = atomic_load_explicit (&self->tip, memory_order_relaxed) + self->staged.len;
    self->last_staged = *position_out;
    dlq_buf_reserve (&self->staged, DLQ_SPOOL_RECORD_HEADER + length);
    uint8_t *header = (uint8_t *) self->staged.data + self->staged.len;
    self->staged.len += DLQ_SPOOL_RECORD_HEADER;
    for (size_t i = 0; i < count; i++)
        dlq_buf_append (&self->staged, parts [i].data, parts [i].len);
    /* the header's checksum covers the payload just copied after it */
    uint8_t tmp [DLQ_SPOOL_RECORD_HEADER];
    dlq_spool_record_header (tmp, kind, header + DLQ_SPOOL_RECORD_HEADER, (uint32_t) length);
    memcpy (header, tmp, sizeof tmp);
    self->staged_records++;
    return DLQ_SPOOL_OK;
}

size_t dlq_spool_staged (const dlq_spool_t *self) { return self->staged.len; }

void
dlq_spool_discard (dlq_spool_t *self)
{
    dlq_buf_reset (&self->staged);
    self->staged_records = 0;
}

uint64_t
dlq_spool_begin (dlq_spool_t *self)
{
    pthread_mutex_lock (&self->lock);
    uint64_t begin = self->segments [0].base;
    pthread_mutex_unlock (&self->lock);
    return begin;
}

uint64_t dlq_spool_tip (const dlq_spool_t *self) { return atomic_load_explicit (&((dlq_spool_t *) self)->tip,
                                                                                memory_order_acquire); }

/* The staged bytes from 'from', up to max_write_bytes but always at least
 * one whole record: where the write ends. */
static size_t
write_end (const dlq_spool_t *self, size_t from)
{
    size_t at = from;
    while (at < self->staged.len) {
        size_t needed = dlq_spool_record_size ((const uint8_t *) self->staged.data + at);
        if (at > from && at + needed - from > self->options.max_write_bytes)
            break;
        at += needed;
    }
    return at;
}

static bool
write_all (int fd, const char *data, size_t len, uint64_t offset)
{
    while (len > 0) {
        ssize_t n = pwrite (fd, data, len, (off_t) offset);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO;
            return false;
        }
        data += n;
        len -= (size_t) n;
        offset += (uint64_t) n;
    }
    return true;
}

/* Truncate the newest segment to size (its durable bytes) and sync that. */
static bool
cut_back (dlq_spool_t *self, uint64_t size)
{
    if (ftruncate (self->fd, (off_t) size) != 0 || fdatasync (self->fd) != 0)
        return false;
    self->cut_pending = false;
    self->allocated = 0;
    return true;
}

dlq_spool_result_t
dlq_spool_sync (dlq_spool_t *self, char *err, size_t err_len)
{
    if (self->staged.len == 0)
        return DLQ_SPOOL_OK;
    uint64_t tip = atomic_load_explicit (&self->tip, memory_order_relaxed);
    pthread_mutex_lock (&self->lock);
    segment_t newest = self->segments [self->count - 1];
    pthread_mutex_unlock (&self->lock);
    if (self->cut_pending && !cut_back (self, newest.size)) {
        snprintf (err, err_len, "cannot cut the spool segment back to position %" PRIu64 " after a failed "
                  "write: %s", tip, strerror (errno));
        dlq_spool_discard (self);
        return DLQ_SPOOL_ERROR;
    }
    /* a segment that grows is left for a spare as soon as one is ready */
    if (newest.size >= self->options.segment_bytes
    ||  (newest.size > 0 && self->allocated == 0 && self->spare && dlq_spool_spare_ready (self->spare))) {
        if (!create_segment (self, tip, newest.size, err, err_len)) {
            dlq_spool_discard (self);
            return DLQ_SPOOL_ERROR;
        }
        newest = (segment_t) { tip, 0 };
    }
    size_t done = 0;
    while (done < self->staged.len) {
        size_t end = write_end (self, done);
        if (!write_all (self->fd, self->staged.data + done, end - done, newest.size + done)
            || fdatasync (self->fd) != 0) {
            /* the whole batch is answered as failed, so none of it may stay:
             * cut the segment back to the tip (now, or before the next sync) */
            snprintf (err, err_len, "cannot write the spool segment at position %" PRIu64 ": %s", tip,
                      strerror (errno));
            self->cut_pending = true;
            cut_back (self, newest.size);
            dlq_spool_discard (self);
            return DLQ_SPOOL_ERROR;
        }
        done = end;
    }
    pthread_mutex_lock (&self->lock);
    self->segments [self->count - 1].size += self->staged.len;
    self->counters.syncs++;
    self->counters.records += self->staged_records;
    pthread_mutex_unlock (&self->lock);
    atomic_store (&self->last, self->last_staged);
    atomic_store_explicit (&self->tip, tip + self->staged.len, memory_order_release);
    dlq_spool_discard (self);
    return DLQ_SPOOL_OK;
}

int
dlq_spool_release (dlq_spool_t *self, uint64_t position, char *err, size_t err_len)
{
    int deleted = 0;
    pthread_mutex_lock (&self->lock);
    while (self->count > 1 && self->segments [1].base <= position) {
        char path [PATH_MAX];
        path_of (self, self->segments [0].base, path, sizeof path);
        if (!(self->spare && dlq_spool_spare_recycle (self->spare, path)) && unlink (path) != 0 && errno != ENOENT) {
            snprintf (err, err_len, "cannot delete the spool segment %s: %s", path, strerror (errno));
            deleted = -1;
            break;
        }
        memmove (self->segments, self->segments + 1, (self->count - 1) * sizeof *self->segments);
        self->count--;
        deleted++;
    }
    pthread_mutex_unlock (&self->lock);
    return deleted;
}

uint64_t dlq_spool_last (const dlq_spool_t *self) { return atomic_load (&((dlq_spool_t *) self)->last); }

/* ---------------------------------------------------------------- consumers */

dlq_spool_consumer_t *
dlq_spool_consumer_new (dlq_spool_t *self, const char *name, uint64_t needed_from, uint64_t limit_bytes)
{
    dlq_spool_consumer_t *c = dlq_calloc (1, sizeof *c);
    c->limit_bytes = limit_bytes;
    c->spool = self;
    c->name = dlq_strdup (name);
    atomic_store (&c->needed_from, needed_from);
    pthread_mutex_lock (&self->lock);
    c->next = self->consumers;
    self->consumers = c;
    pthread_mutex_unlock (&self->lock);
    return c;
}

void dlq_spool_consumer_set (dlq_spool_consumer_t *c, uint64_t needed_from) { atomic_store (&c->needed_from, needed_from); }
uint64_t dlq_spool_consumer_get (const dlq_spool_consumer_t *c) { return atomic_load (&((dlq_spool_consumer_t *) c)->needed_from); }

void
dlq_spool_consumer_destroy (dlq_spool_consumer_t **consumer_p)
{
    if (!consumer_p || !*consumer_p)
        return;
    dlq_spool_consumer_t *c = *consumer_p;
    pthread_mutex_lock (&c->spool->lock);
    for (dlq_spool_consumer_t **p = &c->spool->consumers; *p; p = &(*p)->next)
        if (*p == c) {
            *p = c->next;
            break;
        }
    pthread_mutex_unlock (&c->spool->lock);
    free (c->name);
    free (c);
    *consumer_p = NULL;
}

int
dlq_spool_release_consumed (dlq_spool_t *self, char *err, size_t err_len)
{
    uint64_t lowest = UINT64_MAX;
    pthread_mutex_lock (&self->lock);
    bool any = self->consumers != NULL;
    for (dlq_spool_consumer_t *c = self->consumers; c; c = c->next) {
        uint64_t at = atomic_load (&c->needed_from);
        if (at < lowest)
            lowest = at;
    }
    pthread_mutex_unlock (&self->lock);
    return any ? dlq_spool_release (self, lowest, err, err_len) : 0;
}

bool
dlq_spool_over_limit (dlq_spool_t *self, char *name, size_t name_len, uint64_t *held_out, uint64_t *limit_out)
{
    uint64_t tip = dlq_spool_tip (self);
    bool over = false;
    pthread_mutex_lock (&self->lock);
    for (dlq_spool_consumer_t *c = self->consumers; c && !over; c = c->next) {
        uint64_t at = atomic_load (&c->needed_from);
        uint64_t held = tip > at ? tip - at : 0;
        if (c->limit_bytes && held > c->limit_bytes) {
            snprintf (name, name_len, "%s", c->name);
            *held_out = held;
            *limit_out = c->limit_bytes;
            over = true;
        }
    }
    pthread_mutex_unlock (&self->lock);
    return over;
}

void
dlq_spool_consumers_format (dlq_spool_t *self, void *out)
{
    dlq_buf_t *buf = out;
    pthread_mutex_lock (&self->lock);
    for (dlq_spool_consumer_t *c = self->consumers; c; c = c->next)
        dlq_buf_printf (buf, "%s\"%s\":%" PRIu64, c == self->consumers ? "" : ",", c->name,
                        (uint64_t) atomic_load (&c->needed_from));
    pthread_mutex_unlock (&self->lock);
}

void
dlq_spool_stats (dlq_spool_t *self, dlq_spool_stats_t *out)
{
    pthread_mutex_lock (&self->lock);
    *out = self->counters;
    out->begin = self->segments [0].base;
    out->segments = self->count;
    out->bytes = 0;
    for (size_t i = 0; i < self->count; i++)
        out->bytes += self->segments [i].size;
    pthread_mutex_unlock (&self->lock);
    out->tip = dlq_spool_tip (self);
    if (self->spare) {
        dlq_spool_spare_stats_t spares;
        dlq_spool_spare_stats (self->spare, &spares);
        out->spares_taken = spares.taken;
        out->spares_missed = spares.missed;
        out->spares_failed = spares.failed;
    }
}

/* ---------------------------------------------------------------- readers */

dlq_spool_reader_t *
dlq_spool_reader_new (dlq_spool_t *spool, uint64_t position)
{
    dlq_spool_reader_t *self = dlq_calloc (1, sizeof *self);
    self->spool = spool;
    self->position = position;
    self->fd = -1;
    self->buf_cap = READ_CHUNK;
    self->buf = dlq_malloc (self->buf_cap);
    return self;
}

static void
close_segment (dlq_spool_reader_t *self)
{
    if (self->fd >= 0)
        close (self->fd);
    self->fd = -1;
    self->buf_len = 0;
}

void
dlq_spool_reader_seek (dlq_spool_reader_t *self, uint64_t position)
{
    self->position = position;
}

uint64_t dlq_spool_reader_position (const dlq_spool_reader_t *self) { return self->position; }

/* Make the reader's segment the one holding its position (opening it when
 * it is not the one open) and set *limit to where its readable bytes end:
 * the segment's end, or the tip. */
static dlq_spool_result_t
locate (dlq_spool_reader_t *self, uint64_t tip, uint64_t *limit, char *err, size_t err_len)
{
    uint64_t position = self->position;
    if (!(self->fd >= 0 && position >= self->segment.base && position < self->segment.base + self->segment.size)) {
        dlq_spool_t *spool = self->spool;
        pthread_mutex_lock (&spool->lock);
        size_t i = spool->count;
        while (i > 0 && spool->segments [i - 1].base > position)
            i--;
        segment_t found = i ? spool->segments [i - 1] : (segment_t) { 0, 0 };
        pthread_mutex_unlock (&spool->lock);
        if (i == 0)
            return DLQ_SPOOL_GONE;
        if (self->fd < 0 || found.base != self->segment.base) {
            close_segment (self);
            char path [PATH_MAX];
            path_of (spool, found.base, path, sizeof path);
            self->fd = open (path, O_RDONLY | O_CLOEXEC);
            if (self->fd < 0 && errno == ENOENT)
                return DLQ_SPOOL_GONE;          /* released since */
            if (self->fd < 0) {
                snprintf (err, err_len, "cannot open the spool segment %s: %s", path, strerror (errno));
                return DLQ_SPOOL_ERROR;
            }
        }
        self->segment = found;
    }
    uint64_t end = self->segment.base + self->segment.size;
    *limit = end < tip ? end : tip;
    return DLQ_SPOOL_OK;
}

/* Read the segment's bytes from the reader's position into the buffer: as
 * many as fit, up to limit. */
static dlq_spool_result_t
fill (dlq_spool_reader_t *self, size_t want, uint64_t limit, char *err, size_t err_len)
{
    if (want > self->buf_cap) {
        self->buf_cap = want;
        self->buf = dlq_realloc (self->buf, self->buf_cap);
    }
    size_t len = self->buf_cap;
    if (limit - self->position < len)
        len = (size_t) (limit - self->position);
    size_t got = 0;
    while (got < len) {
        ssize_t n = pread (self->fd, self->buf + got, len - got,
                           (off_t) (self->position - self->segment.base + got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            snprintf (err, err_len, "cannot read the spool at position %" PRIu64 ": %s", self->position,
                      strerror (errno));
            return DLQ_SPOOL_ERROR;
        }
        if (n == 0)
            break;
        got += (size_t) n;
    }
    self->buf_position = self->position;
    self->buf_len = got;
    return DLQ_SPOOL_OK;
}

static dlq_spool_result_t
corrupt (dlq_spool_reader_t *self, const char *what, char *err, size_t err_len)
{
    char path [PATH_MAX];
    path_of (self->spool, self->segment.base, path, sizeof path);
    snprintf (err, err_len, "spool segment %s: the record at offset %" PRIu64 " (position %" PRIu64 ") %s",
              path, self->position - self->segment.base, self->position, what);
    return DLQ_SPOOL_CORRUPT;
}

dlq_spool_result_t
dlq_spool_reader_next (dlq_spool_reader_t *self, dlq_spool_entry_t *entry, char *err, size_t err_len)
{
    uint64_t tip = dlq_spool_tip (self->spool), limit = 0;
    if (self->position >= tip)
        return DLQ_SPOOL_END;
    dlq_spool_result_t rc = locate (self, tip, &limit, err, err_len);
    if (rc != DLQ_SPOOL_OK)
        return rc;
    if (self->position >= limit)
        return corrupt (self, "is past its segment's end", err, err_len);
    bool buffered = self->buf_len && self->position >= self->buf_position
                    && self->position - self->buf_position < self->buf_len;
    size_t off = buffered ? (size_t) (self->position - self->buf_position) : 0;
    if (!buffered && (rc = fill (self, DLQ_SPOOL_RECORD_HEADER, limit, err, err_len)) != DLQ_SPOOL_OK)
        return rc;
    for (int pass = 0; pass < 3; pass++) {
        size_t needed = 0;
        dlq_spool_record_t record;
        dlq_spool_record_result_t r = dlq_spool_record_parse (self->buf + off, self->buf_len - off,
                                                              self->spool->options.max_record_bytes, &record, &needed);
        if (r == DLQ_SPOOL_RECORD_BAD)
            return corrupt (self, "does not check", err, err_len);
        if (r == DLQ_SPOOL_RECORD_OK) {
            entry->position = self->position;
            entry->next = self->position + needed;
            entry->kind = record.kind;
            entry->payload = record.payload;
            entry->length = record.length;
            self->position += needed;
            return DLQ_SPOOL_OK;
        }
        if (self->position + (needed ? needed : DLQ_SPOOL_RECORD_HEADER) > limit)
            return corrupt (self, "runs past the end of its segment or of what is durable", err, err_len);
        if (pass < 2 && (rc = fill (self, needed ? needed : DLQ_SPOOL_RECORD_HEADER, limit, err, err_len))
                         != DLQ_SPOOL_OK)
            return rc;
        off = 0;
    }
    return corrupt (self, "cannot be read whole: the file is shorter than the log", err, err_len);
}

void
dlq_spool_reader_destroy (dlq_spool_reader_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_spool_reader_t *self = *self_p;
    close_segment (self);
    free (self->buf);
    free (self);
    *self_p = NULL;
}
