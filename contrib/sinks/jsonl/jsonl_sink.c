/*  jsonl_sink — a dlqd sink plugin that appends events to a JSON-lines file.
 *
 *  Each OK event is one line: the event's canonical JSON, as the gateway
 *  hands it over, and "\n". A batch is one write() (two when it rotates the
 *  file midway), then fdatasync when `fsync` is on, so OK means on disk.
 *  When the next line would take the file past max_bytes, the file is
 *  rotated: file.(keep-1) -> file.keep, ..., file -> file.1; what was in
 *  file.keep is dropped. A line longer than max_bytes gets a file of its own.
 *
 *  Every instance of this process that writes the same path shares one
 *  descriptor and one lock, so dispatcher threads neither interleave lines
 *  nor rotate under each other. Two processes must not write the same file.
 *  Before each batch the path is checked to still name the open file (moved
 *  or deleted by hand: it is reopened).
 *
 *  I/O errors are RETRY with strerror in the message; a failed write or
 *  sync is truncated off again, so a retry does not leave a torn line, and
 *  a torn last line a crash left (a SIGKILL stops a write() between pages)
 *  is cut off when the file is opened, before anything is written. An
 *  append-only file cannot deduplicate on the event id: an event delivered
 *  just before a crash, or whose OK was lost, is written again when it is
 *  redelivered (at-least-once; readers dedupe on "id" if they must).
 *
 *  This file is an example of an out-of-tree sink: it includes dlq_sink.h
 *  from the installed dlqd-sink package and links nothing of dlqd.
 */
#include <dlq_sink.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define JSONL_PATH_MAX   4000       /* longest `file` setting */
#define JSONL_MAX_BATCH  256        /* bounds the memory of one batch's write */

/* An open file, shared by the instances that write the same path. */
typedef struct jsonl_file {
    struct jsonl_file *next;
    char              *path;
    int                refs;
    pthread_mutex_t    lock;        /* held for a whole batch */
    int                fd;          /* -1 when not open */
} jsonl_file_t;

/* One instance: its settings and its (shared) file. */
typedef struct {
    const dlq_sink_host_t   *host;
    const dlq_sink_config_t *config;
    jsonl_file_t            *file;
    int64_t                  max_bytes;
    int64_t                  keep;
    bool                     fsync;
} jsonl_sink_t;

/* The files open in this process, by path. */
static pthread_mutex_t files_lock = PTHREAD_MUTEX_INITIALIZER;
static jsonl_file_t *files;

static const dlq_sink_setting_t jsonl_settings [] = {
    { "file", DLQ_SINK_SETTING_STRING, NULL, 1, JSONL_PATH_MAX, false,
      "path of the JSON-lines file (required)" },
    { "max_bytes", DLQ_SINK_SETTING_INT, "104857600", 1, INT64_MAX, false,
      "rotate before the file would grow past this many bytes" },
    { "keep", DLQ_SINK_SETTING_INT, "5", 1, 1000, false,
      "rotated files kept (file.1 ... file.<keep>)" },
    { "fsync", DLQ_SINK_SETTING_BOOL, "true", 0, 0, false,
      "fdatasync after each batch: an OK event is on disk" },
    { .name = NULL }
};

/* malloc that aborts on failure (out of memory is not an I/O error). */
static void *
xmalloc (size_t size)
{
    void *p = malloc (size ? size : 1);
    if (!p)
        abort ();
    return p;
}

/* ---- the shared files ----------------------------------------------------- */

/* The shared file for path, created (not opened) on first use. */
static jsonl_file_t *
file_acquire (const char *path)
{
    pthread_mutex_lock (&files_lock);
    jsonl_file_t *file = files;
    while (file && strcmp (file->path, path) != 0)
        file = file->next;
    if (!file) {
        file = xmalloc (sizeof *file);
        file->path = xmalloc (strlen (path) + 1);
        strcpy (file->path, path);
        file->refs = 0;
        pthread_mutex_init (&file->lock, NULL);
        file->fd = -1;
        file->next = files;
        files = file;
    }
    file->refs++;
    pthread_mutex_unlock (&files_lock);
    return file;
}

/* Drop one reference; the last one closes and frees the file. */
static void
file_release (jsonl_file_t *file)
{
    pthread_mutex_lock (&files_lock);
    if (--file->refs > 0) {
        pthread_mutex_unlock (&files_lock);
        return;
    }
    jsonl_file_t **link = &files;
    while (*link != file)
        link = &(*link)->next;
    *link = file->next;
    pthread_mutex_unlock (&files_lock);
    if (file->fd >= 0)
        close (file->fd);
    pthread_mutex_destroy (&file->lock);
    free (file->path);
    free (file);
}

/* fsync the directory that holds path, so a new or renamed entry is
 * durable. Returns 0 or an errno. */
static int
sync_dir (const char *path)
{
    char dir [JSONL_PATH_MAX + 16];
    const char *slash = strrchr (path, '/');
    if (!slash)
        snprintf (dir, sizeof dir, ".");
    else
        snprintf (dir, sizeof dir, "%.*s", (int) (slash == path ? 1 : slash - path), path);
    int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    int error = fsync (fd) == 0 ? 0 : errno;
    close (fd);
    return error;
}

/* Cut a torn last line off the file fd (just opened): the bytes after its
 * last "\n", left by a write a crash cut short (a SIGKILL stops a write()
 * between pages). Its events were never reported delivered, so they come
 * again; without the cut the next line would continue the torn one, and
 * both would be lost to a reader. *cut gets how many bytes went. Returns
 * 0 or an errno. */
static int
file_cut_torn_tail (int fd, bool durable, off_t *cut)
{
    struct stat st;
    if (fstat (fd, &st) != 0)
        return errno;
    char buf [4096];
    off_t keep = st.st_size;
    while (keep > 0) {
        size_t n = keep < (off_t) sizeof buf ? (size_t) keep : sizeof buf;
        off_t at = keep - (off_t) n;
        ssize_t got = pread (fd, buf, n, at);
        if (got != (ssize_t) n)
            return got < 0 ? errno : EIO;
        while (n > 0 && buf [n - 1] != '\n')
            n--;
        keep = at + (off_t) n;
        if (n > 0)
            break;
    }
    *cut = st.st_size - keep;
    if (*cut == 0)
        return 0;
    if (ftruncate (fd, keep) != 0)
        return errno;
    return durable && fdatasync (fd) != 0 ? errno : 0;
}

/* Make file->fd the file its path names now, opening (creating) it when
 * needed, a torn last line cut off (*cut: its bytes; 0 when none); when
 * durable, a new file's directory entry is synced before the file is used.
 * Returns 0 or an errno. Called with file->lock held. */
static int
file_open (jsonl_file_t *file, bool durable, off_t *cut)
{
    *cut = 0;
    struct stat by_path, by_fd;
    if (file->fd >= 0) {
        if (stat (file->path, &by_path) == 0 && fstat (file->fd, &by_fd) == 0
            && by_path.st_dev == by_fd.st_dev && by_path.st_ino == by_fd.st_ino)
            return 0;
        close (file->fd);
        file->fd = -1;
    }
    file->fd = open (file->path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (file->fd < 0)
        return errno;
    int error = file_cut_torn_tail (file->fd, durable, cut);
    if (!error && durable)
        error = sync_dir (file->path);
    if (error) {
        close (file->fd);
        file->fd = -1;
    }
    return error;
}

/* Rotate: path.(keep-1) -> path.keep, ..., path -> path.1, and close the
 * descriptor (the next batch creates a new file). Returns 0 or an errno.
 * Called with file->lock held. */
static int
file_rotate (jsonl_file_t *file, int64_t keep, bool durable)
{
    char from [JSONL_PATH_MAX + 16], to [JSONL_PATH_MAX + 16];
    for (int64_t n = keep - 1; n >= 1; n--) {
        snprintf (from, sizeof from, "%s.%lld", file->path, (long long) n);
        snprintf (to, sizeof to, "%s.%lld", file->path, (long long) n + 1);
        if (rename (from, to) != 0 && errno != ENOENT)
            return errno;
    }
    snprintf (to, sizeof to, "%s.1", file->path);
    if (rename (file->path, to) != 0)
        return errno;
    close (file->fd);
    file->fd = -1;
    return durable ? sync_dir (file->path) : 0;
}

/* ---- a batch -------------------------------------------------------------- */

/* Whether an event can be a line; if not, its outcome says why (FAIL). */
static bool
is_line (const dlq_sink_event_t *event, dlq_sink_outcome_t *outcome)
{
    const char *why = NULL;
    if (!event->json || event->json_len == 0)
        why = "jsonl: the event has no JSON body";
    else if (memchr (event->json, '\n', event->json_len))
        why = "jsonl: the event JSON holds a line break: it cannot be one line";
    if (!why)
        return true;
    outcome->result = DLQ_SINK_FAIL;
    snprintf (outcome->message, sizeof outcome->message, "%s", why);
    return false;
}

/* The end of the run of events from first that fits in the file (of size
 * bytes) without passing max_bytes; at least one line when the file is
 * empty. FAIL events are skipped over. */
static size_t
run_end (const dlq_sink_event_t *events, const dlq_sink_outcome_t *outcomes, size_t first,
         size_t count, int64_t size, int64_t max_bytes)
{
    int64_t total = size;
    size_t end = first;
    for (; end < count; end++) {
        if (outcomes [end].result == DLQ_SINK_FAIL)
            continue;
        int64_t line = (int64_t) events [end].json_len + 1;
        if (total > 0 && line > max_bytes - total)
            break;
        total += line;
    }
    return end;
}

/* The lines of events [first, end) but the FAIL ones, in one buffer. */
static char *
run_lines (const dlq_sink_event_t *events, const dlq_sink_outcome_t *outcomes,
           size_t first, size_t end, size_t *length)
{
    *length = 0;
    for (size_t i = first; i < end; i++)
        if (outcomes [i].result != DLQ_SINK_FAIL)
            *length += events [i].json_len + 1;
    char *lines = xmalloc (*length);
    size_t used = 0;
    for (size_t i = first; i < end; i++)
        if (outcomes [i].result != DLQ_SINK_FAIL) {
            memcpy (lines + used, events [i].json, events [i].json_len);
            used += events [i].json_len;
            lines [used++] = '\n';
        }
    return lines;
}

/* Append length bytes with one write(), then sync when durable. On failure
 * the file is cut back to size (or closed if even that fails, to be
 * reopened by the next batch). Returns 0 or an errno. */
static int
append (jsonl_file_t *file, const char *lines, size_t length, off_t size, bool durable)
{
    if (length == 0)
        return 0;
    ssize_t done = write (file->fd, lines, length);
    int error = done < 0 ? errno : (size_t) done < length ? ENOSPC : 0;
    if (!error && durable && fdatasync (file->fd) != 0)
        error = errno;
    if (error && ftruncate (file->fd, size) != 0) {
        close (file->fd);
        file->fd = -1;
    }
    return error;
}

/* Mark events [first, count) that are not FAIL as RETRY because of error. */
static void
retry_rest (jsonl_sink_t *self, dlq_sink_outcome_t *outcomes, size_t first, size_t count,
            const char *doing, int error)
{
    for (size_t i = first; i < count; i++)
        if (outcomes [i].result != DLQ_SINK_FAIL) {
            outcomes [i].result = DLQ_SINK_RETRY;
            snprintf (outcomes [i].message, sizeof outcomes [i].message, "jsonl: cannot %s %s: %s",
                      doing, self->file->path, strerror (error));
        }
}

/* Mark events [first, end) that are not FAIL as OK; returns how many. */
static uint64_t
mark_ok (dlq_sink_outcome_t *outcomes, size_t first, size_t end)
{
    uint64_t ok = 0;
    for (size_t i = first; i < end; i++)
        if (outcomes [i].result != DLQ_SINK_FAIL) {
            outcomes [i].result = DLQ_SINK_OK;
            ok++;
        }
    return ok;
}

/* The size of the open file, or -1 with errno. */
static off_t
file_size (const jsonl_file_t *file)
{
    struct stat st;
    return fstat (file->fd, &st) == 0 ? st.st_size : -1;
}

static void
jsonl_log_cut (const jsonl_sink_t *self, off_t cut)
{
    self->host->log (self->config, DLQ_SINK_LOG_WARN, "cut a torn last line of %lld bytes off %s (a write "
                     "a crash cut short; its events are delivered again)", (long long) cut, self->file->path);
}

/* Write what can be written of events [first, count): a run into the
 * current file, or a rotation when not even one line fits. Returns where
 * the next step starts, or count once everything is answered. Called with
 * the file's lock held. */
static size_t
write_step (jsonl_sink_t *self, const dlq_sink_event_t *events, size_t first, size_t count,
            dlq_sink_outcome_t *outcomes)
{
    jsonl_file_t *file = self->file;
    off_t cut = 0;
    int error = file_open (file, self->fsync, &cut);
    if (cut)
        jsonl_log_cut (self, cut);
    off_t size = error ? -1 : file_size (file);
    if (error || size < 0) {
        retry_rest (self, outcomes, first, count, "open", error ? error : errno);
        return count;
    }
    size_t end = run_end (events, outcomes, first, count, size, self->max_bytes);
    if (end == first) {
        if ((error = file_rotate (file, self->keep, self->fsync)) != 0) {
            retry_rest (self, outcomes, first, count, "rotate", error);
            return count;
        }
        self->host->count (self->config, "rotations", 1);
        return first;
    }
    size_t length;
    char *lines = run_lines (events, outcomes, first, end, &length);
    error = append (file, lines, length, size, self->fsync);
    free (lines);
    if (error) {
        retry_rest (self, outcomes, first, count, "write", error);
        return count;
    }
    self->host->count (self->config, "delivered", mark_ok (outcomes, first, end));
    self->host->count (self->config, "bytes", length);
    return end;
}

/* ---- the ops ---------------------------------------------------------------- */

/* Make an instance. Only a missing `file` is an error: a file that cannot
 * be opened yet is a warning, and its batches are retried until it can. */
static dlq_sink_status_t
jsonl_init (const dlq_sink_host_t *host, const dlq_sink_config_t *config,
            dlq_sink_mode_t mode, void **instance, char *err, size_t err_len)
{
    const char *path = host->config_string (config, NULL, "file");
    if (!path || !*path) {
        snprintf (err, err_len, "file is required");
        return DLQ_SINK_STATUS_ERROR;
    }
    jsonl_sink_t *self = xmalloc (sizeof *self);
    self->host = host;
    self->config = config;
    self->max_bytes = host->config_int (config, NULL, "max_bytes");
    self->keep = host->config_int (config, NULL, "keep");
    self->fsync = host->config_bool (config, NULL, "fsync");
    self->file = file_acquire (path);
    pthread_mutex_lock (&self->file->lock);
    off_t cut = 0;
    int error = file_open (self->file, self->fsync, &cut);
    pthread_mutex_unlock (&self->file->lock);
    if (cut)
        jsonl_log_cut (self, cut);
    if (error)
        host->log (config, DLQ_SINK_LOG_WARN, "cannot open %s: %s (deliveries are retried)",
                   path, strerror (error));
    *instance = self;
    return DLQ_SINK_STATUS_OK;
}

/* Append a batch: one line per event, rotating as needed. */
static void
jsonl_deliver (void *instance, const dlq_sink_event_t *events, size_t count,
               dlq_sink_outcome_t *outcomes, int64_t deadline_mono_ms)
{
    jsonl_sink_t *self = instance;
    size_t lines = 0;
    for (size_t i = 0; i < count; i++)
        lines += is_line (&events [i], &outcomes [i]);
    if (lines == 0)
        return;
    pthread_mutex_lock (&self->file->lock);
    size_t next = 0;
    while (next < count)
        next = write_step (self, events, next, count, outcomes);
    pthread_mutex_unlock (&self->file->lock);
}

/* Free an instance; the last one of a file closes it. */
static void
jsonl_destroy (void *instance)
{
    jsonl_sink_t *self = instance;
    file_release (self->file);
    free (self);
}

DLQ_SINK_EXPORT const dlq_sink_ops_t dlq_sink_entry = {
    .abi_version = DLQ_SINK_ABI_VERSION,
    .struct_size = sizeof (dlq_sink_ops_t),
    .type        = "jsonl",
    .description = "appends events to a JSON-lines file, with rotation",
    .settings    = jsonl_settings,
    .max_batch   = JSONL_MAX_BATCH,
    .init        = jsonl_init,
    .deliver     = jsonl_deliver,
    .destroy     = jsonl_destroy,
    .store       = NULL
};
