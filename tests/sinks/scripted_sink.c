/*  scripted_sink — a test sink whose every answer is set by its config.
 *
 *  The dispatcher tests load it as type "scripted" from the plugin
 *  directory. Per event, the first rule that applies decides:
 *      down, or down_file exists   RETRY "scripted: backend down"
 *      stream is fail_stream       FAIL  "scripted permanent failure"
 *      delivery_attempt <= retry_times   RETRY
 *      otherwise                   OK, and a line "<id> <stream> <attempt>"
 *                                  appended to record_file
 *  hang_ms makes deliver sleep before it answers (deadline tests). The
 *  record is written with one write() per batch on an O_APPEND descriptor,
 *  so instances on several threads never interleave inside a batch's lines.
 *  libc only.
 *
 *  Built with SCRIPTED_STORE it is type "scripted_store": the same, and a
 *  store that keeps nothing (get NOT_FOUND, list and stats empty; its sweep
 *  deletes nothing, fails while the backend is down as above, and appends
 *  a line "sweep failed" or "sweep ok" to record_file), with no workbench
 *  or checkpoint calls.
 */
#include "dlq_sink.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const dlq_sink_host_t *store_host;   /* set by init: the host's append for the store calls */

/* One instance: its settings, read once at init, and the record file. */
typedef struct {
    int64_t     retry_times;
    const char *fail_stream;    /* NULL: no stream fails */
    bool        down;
    const char *down_file;      /* NULL: none */
    int64_t     hang_ms;
    int         record_fd;      /* -1: no record */
} scripted_sink_t;

static const dlq_sink_setting_t scripted_settings [] = {
    { "retry_times", DLQ_SINK_SETTING_INT, "0", 0, 1000000, false,
      "RETRY each event on its first N delivery attempts" },
    { "fail_stream", DLQ_SINK_SETTING_STRING, NULL, 1, 4096, false,
      "FAIL every event of this stream" },
    { "down", DLQ_SINK_SETTING_BOOL, "false", 0, 0, false,
      "RETRY every event (backend down)" },
    { "down_file", DLQ_SINK_SETTING_STRING, NULL, 1, 4096, false,
      "behave as down while this file exists" },
    { "hang_ms", DLQ_SINK_SETTING_INT, "0", 0, 600000, false,
      "sleep this long in deliver before answering" },
    { "record_file", DLQ_SINK_SETTING_STRING, NULL, 1, 4096, false,
      "append \"<id> <stream> <delivery_attempt>\" per OK event" },
    { .name = NULL }
};

/* Make an instance: read the settings, open the record file if any. */
static dlq_sink_status_t
scripted_init (const dlq_sink_host_t *host, const dlq_sink_config_t *config,
               dlq_sink_mode_t mode, void **instance, char *err, size_t err_len)
{
    store_host = host;
    const char *record = host->config_string (config, NULL, "record_file");
    int fd = -1;
    if (record) {
        fd = open (record, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0) {
            snprintf (err, err_len, "cannot open record_file %s: %s", record, strerror (errno));
            return DLQ_SINK_STATUS_ERROR;
        }
    }
    scripted_sink_t *self = calloc (1, sizeof *self);
    if (!self)
        abort ();
    self->retry_times = host->config_int (config, NULL, "retry_times");
    self->fail_stream = host->config_string (config, NULL, "fail_stream");
    self->down = host->config_bool (config, NULL, "down");
    self->down_file = host->config_string (config, NULL, "down_file");
    self->hang_ms = host->config_int (config, NULL, "hang_ms");
    self->record_fd = fd;
    *instance = self;
    return DLQ_SINK_STATUS_OK;
}

/* Sleep ms milliseconds, through signals. */
static void
sleep_ms (int64_t ms)
{
    struct timespec left = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000 };
    while (nanosleep (&left, &left) != 0 && errno == EINTR)
        ;
}

/* Set one outcome. */
static void
set_outcome (dlq_sink_outcome_t *outcome, dlq_sink_result_t result, const char *message)
{
    outcome->result = result;
    snprintf (outcome->message, sizeof outcome->message, "%s", message);
}

/* The verdict on one event, by the rules in the banner (down aside). */
static void
judge (const scripted_sink_t *self, const dlq_sink_event_t *event, dlq_sink_outcome_t *outcome)
{
    if (self->fail_stream && strcmp (event->stream_name, self->fail_stream) == 0) {
        set_outcome (outcome, DLQ_SINK_FAIL, "scripted permanent failure");
        return;
    }
    if (event->delivery_attempt <= self->retry_times) {
        outcome->result = DLQ_SINK_RETRY;
        snprintf (outcome->message, sizeof outcome->message, "scripted retry: attempt %u of %lld",
                  event->delivery_attempt, (long long) self->retry_times);
        return;
    }
    set_outcome (outcome, DLQ_SINK_OK, "");
}

/* Bytes the record lines of the OK events take (without a terminating NUL). */
static size_t
record_length (const dlq_sink_event_t *events, size_t count, const dlq_sink_outcome_t *outcomes)
{
    size_t length = 0;
    for (size_t i = 0; i < count; i++)
        if (outcomes [i].result == DLQ_SINK_OK)
            length += (size_t) snprintf (NULL, 0, "%s %s %u\n", events [i].id,
                                         events [i].stream_name, events [i].delivery_attempt);
    return length;
}

/* Append the OK events' lines to the record with one write(); if that
 * fails, those events are RETRY instead, since they were not recorded. */
static void
record (scripted_sink_t *self, const dlq_sink_event_t *events, size_t count,
        dlq_sink_outcome_t *outcomes)
{
    size_t length = record_length (events, count, outcomes);
    if (length == 0)
        return;
    char *lines = malloc (length + 1);
    if (!lines)
        abort ();
    size_t used = 0;
    for (size_t i = 0; i < count; i++)
        if (outcomes [i].result == DLQ_SINK_OK)
            used += (size_t) snprintf (lines + used, length + 1 - used, "%s %s %u\n", events [i].id,
                                       events [i].stream_name, events [i].delivery_attempt);
    ssize_t written = write (self->record_fd, lines, used);
    int error = written < 0 ? errno : ENOSPC;
    free (lines);
    if (written == (ssize_t) used)
        return;
    char message [200];
    snprintf (message, sizeof message, "scripted: cannot write record_file: %s", strerror (error));
    for (size_t i = 0; i < count; i++)
        if (outcomes [i].result == DLQ_SINK_OK)
            set_outcome (&outcomes [i], DLQ_SINK_RETRY, message);
}

static bool
is_down (const scripted_sink_t *self)
{
    return self->down || (self->down_file && access (self->down_file, F_OK) == 0);
}

/* Answer a batch as scripted. */
static void
scripted_deliver (void *instance, const dlq_sink_event_t *events, size_t count,
                  dlq_sink_outcome_t *outcomes, int64_t deadline_mono_ms)
{
    scripted_sink_t *self = instance;
    if (self->hang_ms > 0)
        sleep_ms (self->hang_ms);
    bool down = is_down (self);
    for (size_t i = 0; i < count; i++) {
        if (down)
            set_outcome (&outcomes [i], DLQ_SINK_RETRY, "scripted: backend down");
        else
            judge (self, &events [i], &outcomes [i]);
    }
    if (self->record_fd >= 0)
        record (self, events, count, outcomes);
}

/* Free an instance and close its record. */
static void
scripted_destroy (void *instance)
{
    scripted_sink_t *self = instance;
    if (self->record_fd >= 0)
        close (self->record_fd);
    free (self);
}

#ifdef SCRIPTED_STORE
static dlq_sink_status_t
nothing_get (void *instance, const char *id, int64_t now_ms, dlq_sink_buf_t *event_out)
{
    (void) instance, (void) id, (void) now_ms, (void) event_out;
    return DLQ_SINK_STATUS_NOT_FOUND;
}

static dlq_sink_status_t
nothing_list (void *instance, const char *stream, size_t limit, const char *cursor, int64_t now_ms,
              dlq_sink_buf_t *events_out, dlq_sink_buf_t *cursor_out)
{
    (void) instance, (void) stream, (void) limit, (void) cursor, (void) now_ms, (void) cursor_out;
    store_host->append (events_out, "[]", 2);
    return DLQ_SINK_STATUS_OK;
}

static dlq_sink_status_t
nothing_stats (void *instance, dlq_sink_buf_t *streams_out, int64_t *events_out, int64_t *bytes_out)
{
    (void) instance;
    store_host->append (streams_out, "{}", 2);
    *events_out = *bytes_out = 0;
    return DLQ_SINK_STATUS_OK;
}

static int64_t
nothing_sweep (void *instance, int64_t now_ms, int64_t max_rows)
{
    (void) now_ms, (void) max_rows;
    scripted_sink_t *self = instance;
    bool down = is_down (self);
    const char *line = down ? "sweep failed\n" : "sweep ok\n";
    if (self->record_fd >= 0 && write (self->record_fd, line, strlen (line)) < 0)
        return -1;
    return down ? -1 : 0;
}

static const dlq_sink_store_ops_t nothing_store = { .get = nothing_get, .list = nothing_list,
                                                    .stats = nothing_stats, .sweep = nothing_sweep };
#endif

DLQ_SINK_EXPORT const dlq_sink_ops_t dlq_sink_entry = {
    .abi_version = DLQ_SINK_ABI_VERSION,
    .struct_size = sizeof (dlq_sink_ops_t),
#ifdef SCRIPTED_STORE
    .type        = "scripted_store",
    .description = "test sink: as scripted, and a store that keeps nothing",
    .store       = &nothing_store,
#else
    .type        = "scripted",
    .description = "test sink: OK, RETRY, FAIL or hang as its config says",
    .store       = NULL,
#endif
    .settings    = scripted_settings,
    .max_batch   = 0,
    .init        = scripted_init,
    .deliver     = scripted_deliver,
    .destroy     = scripted_destroy,
};
