/*  dlq_log — leveled logging to stderr, with repeats counted instead of
 *  written (see dlq_log.h for the rules).
 *
 *  One mutex guards the table of recent messages and the writes, so that a
 *  count line always comes before the line that caused it to be written and
 *  totals are exact whatever the threads. Formatting is done before taking
 *  it; normalising (for the key) under it, into one buffer kept for reuse.
 */
#include "dlq_log.h"

#include "dlq_buf.h"
#include "dlq_hash.h"
#include "dlq_time.h"
#include "fingerprint.h"
#include "log_json.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define LINE_MAX_BYTES 2048             /* a whole line, newline included */
#define SUPPRESS_FROM  DLQ_LOG_WARN     /* levels whose repeats are counted */

/* One message being watched: the window opened at opened_ms; repeats of
 * it since then, the latest of which is text. key 0 marks a free slot. */
typedef struct {
    uint64_t        key;
    dlq_log_level_t level;
    int64_t         opened_ms;
    uint64_t        seen;               /* the use it was last seen at */
    uint64_t        repeats;
    size_t          len;
    char            text [LINE_MAX_BYTES];
} slot_t;

static atomic_int threshold = DLQ_LOG_INFO;
static const char *const names [] = { "DEBUG", "INFO", "WARN", "ERROR" };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static slot_t    slots [DLQ_LOG_KEYS];  /* under lock, as everything below */
static dlq_buf_t normalised = DLQ_BUF_INIT;
static int       out_fd = STDERR_FILENO;
static int64_t   window_ms = DLQ_LOG_WINDOW_MS;
static int64_t (*clock_ms) (void) = dlq_time_mono_ms;
static bool      as_json;               /* log_format = "json" (log_json.h) */
static bool      with_priority;         /* each line starts with its syslog priority, "<3>" ... (the journal) */
static uint64_t  uses;                  /* messages logged, for "least recently seen" */

void
dlq_log_set_level (dlq_log_level_t level)
{
    atomic_store (&threshold, (int) level);
}

int
dlq_log_parse_level (const char *name, dlq_log_level_t *level)
{
    static const char *const lower [] = { "debug", "info", "warn", "error" };
    for (int i = 0; i < 4; i++)
        if (strcmp (name, lower [i]) == 0) {
            *level = (dlq_log_level_t) i;
            return 1;
        }
    return 0;
}

/* Write "<time> dlqd[pid] LEVEL text[suffix]\n" in one write(2). The text
 * is cut so that the suffix (a count) always fits. Under lock. */
static void
write_line (dlq_log_level_t level, const char *text, size_t len, const char *suffix)
{
    static const char priority [][4] = { "<7>", "<6>", "<4>", "<3>" };     /* debug, info, warning, err */
    char line [LINE_MAX_BYTES + 3], iso [DLQ_TIME_ISO_LEN + 1];
    dlq_time_format_iso (dlq_time_now_ms (), iso);
    size_t at = with_priority ? 3 : 0;
    memcpy (line, priority [level], at);
    if (as_json) {
        static const char *const lower [] = { "debug", "info", "warn", "error" };
        size_t used = dlq_log_json_line (line + at, LINE_MAX_BYTES, iso, lower [level], (int) getpid (), text, len,
                                         suffix);
        ssize_t ignored = write (out_fd, line, at + used);
        (void) ignored;
        return;
    }
    int n = snprintf (line + at, LINE_MAX_BYTES, "%s dlqd[%d] %s ", iso, (int) getpid (), names [level]);
    size_t used = at + (n < 0 ? 0 : (size_t) n);
    size_t tail = strlen (suffix);
    size_t room = at + LINE_MAX_BYTES - used - tail - 1;      /* the priority prefix is not counted */
    if (len > room)
        len = room;
    memcpy (line + used, text, len);
    used += len;
    memcpy (line + used, suffix, tail);
    used += tail;
    line [used++] = '\n';
    ssize_t ignored = write (out_fd, line, used);
    (void) ignored;
}

/* Write slot's count line, if it counted repeats; span_ms is how long its
 * window ran. Under lock. */
static void
write_count (slot_t *slot, int64_t span_ms)
{
    if (slot->repeats == 0)
        return;
    char suffix [96];
    if (span_ms % 1000 == 0)
        snprintf (suffix, sizeof suffix, " (repeated %llu time%s in the last %lld s)",
                  (unsigned long long) slot->repeats, slot->repeats == 1 ? "" : "s",
                  (long long) (span_ms / 1000));
    else
        snprintf (suffix, sizeof suffix, " (repeated %llu time%s in the last %lld ms)",
                  (unsigned long long) slot->repeats, slot->repeats == 1 ? "" : "s", (long long) span_ms);
    write_line (slot->level, slot->text, slot->len, suffix);
    slot->repeats = 0;
}

/* A window cut short (eviction, flush) ran this long, in whole seconds
 * rounded up (at least 1). */
static int64_t
elapsed_span (const slot_t *slot, int64_t now)
{
    int64_t ms = now - slot->opened_ms;
    int64_t s = ms <= 0 ? 1 : (ms + 999) / 1000;
    return s * 1000;
}

/* End every window that has run its length by now: write its count and go
 * on watching (a new window from now), or forget the message when the
 * window saw no repeat. Under lock. */
static void
end_windows (int64_t now)
{
    for (size_t i = 0; i < DLQ_LOG_KEYS; i++) {
        slot_t *slot = &slots [i];
        if (slot->key == 0 || now - slot->opened_ms < window_ms)
            continue;
        if (slot->repeats == 0) {
            slot->key = 0;
            continue;
        }
        write_count (slot, window_ms);
        slot->opened_ms = now;
    }
}

/* FNV-1a 64 of the level and the normalised text; never 0 (a free slot). */
static uint64_t
key_of (dlq_log_level_t level, const char *text, size_t len)
{
    dlq_buf_reset (&normalised);
    dlq_fingerprint_normalise_message (text, len, &normalised);
    unsigned char byte = (unsigned char) level;
    uint64_t h = dlq_hash_fnv64_more (dlq_hash_fnv64 (&byte, 1), normalised.data, normalised.len);
    return h ? h : 1;
}

/* The slot watching key, or NULL. Under lock. */
static slot_t *
find_slot (uint64_t key)
{
    for (size_t i = 0; i < DLQ_LOG_KEYS; i++)
        if (slots [i].key == key)
            return &slots [i];
    return NULL;
}

/* A slot for a new message: a free one, else the one seen least recently
 * (the least likely to be flooding), whose count is written first. Under
 * lock. */
static slot_t *
take_slot (int64_t now)
{
    slot_t *stale = &slots [0];
    for (size_t i = 0; i < DLQ_LOG_KEYS; i++) {
        if (slots [i].key == 0)
            return &slots [i];
        if (slots [i].seen < stale->seen)
            stale = &slots [i];
    }
    write_count (stale, elapsed_span (stale, now));
    return stale;
}

/* Write text at level, or count it as a repeat. Under lock. */
static void
log_locked (dlq_log_level_t level, const char *text, size_t len)
{
    if (window_ms <= 0) {
        write_line (level, text, len, "");
        return;
    }
    int64_t now = clock_ms ();
    end_windows (now);
    if (level < SUPPRESS_FROM) {
        write_line (level, text, len, "");
        return;
    }
    uint64_t key = key_of (level, text, len);
    slot_t *slot = find_slot (key);
    if (slot) {
        slot->seen = ++uses;
        slot->repeats++;
        slot->len = len;
        memcpy (slot->text, text, len);
        return;
    }
    slot = take_slot (now);
    *slot = (slot_t) { .key = key, .level = level, .opened_ms = now, .seen = ++uses };
    write_line (level, text, len, "");
}

void
dlq_log (dlq_log_level_t level, const char *fmt, ...)
{
    if ((int) level < atomic_load (&threshold))
        return;
    char text [LINE_MAX_BYTES];
    va_list ap;
    va_start (ap, fmt);
    int m = vsnprintf (text, sizeof text, fmt, ap);
    va_end (ap);
    size_t len = m < 0 ? 0 : (size_t) m < sizeof text ? (size_t) m : sizeof text - 1;
    pthread_mutex_lock (&lock);
    log_locked (level, text, len);
    pthread_mutex_unlock (&lock);
}

void
dlq_log_tick (void)
{
    pthread_mutex_lock (&lock);
    if (window_ms > 0)
        end_windows (clock_ms ());
    pthread_mutex_unlock (&lock);
}

/* Write every pending count and forget every message. Under lock. */
static void
flush_locked (void)
{
    int64_t now = clock_ms ();
    for (size_t i = 0; i < DLQ_LOG_KEYS; i++) {
        slot_t *slot = &slots [i];
        if (slot->key == 0)
            continue;
        bool ended = now - slot->opened_ms >= window_ms;
        write_count (slot, ended ? window_ms : elapsed_span (slot, now));
        slot->key = 0;
    }
}

void
dlq_log_flush (void)
{
    pthread_mutex_lock (&lock);
    flush_locked ();
    pthread_mutex_unlock (&lock);
}

void
dlq_log_set_fd (int fd)
{
    pthread_mutex_lock (&lock);
    out_fd = fd;
    pthread_mutex_unlock (&lock);
}

void
dlq_log_set_window_ms (int64_t ms)
{
    pthread_mutex_lock (&lock);
    flush_locked ();
    window_ms = ms < 0 ? 0 : ms;
    pthread_mutex_unlock (&lock);
}

void
dlq_log_set_clock (int64_t (*mono_ms) (void))
{
    pthread_mutex_lock (&lock);
    flush_locked ();
    clock_ms = mono_ms ? mono_ms : dlq_time_mono_ms;
    pthread_mutex_unlock (&lock);
}

void
dlq_log_set_priority_prefix (bool on)
{
    pthread_mutex_lock (&lock);
    with_priority = on;
    pthread_mutex_unlock (&lock);
}

void
dlq_log_set_json (bool json)
{
    pthread_mutex_lock (&lock);
    as_json = json;
    pthread_mutex_unlock (&lock);
}
