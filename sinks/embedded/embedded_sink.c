/*  embedded_sink — the embedded SQLite store (embedded_store.h) as a sink
 *  plugin of type "embedded", built and loaded like any third-party sink.
 *
 *  Setting: data_dir (required), the directory of the store's file.
 *
 *  DELIVER mode (the store as a sink in a chain) opens the store as its
 *  writer (creating data_dir like mkdir -p) and appends each batch in one
 *  transaction. Every event is
 *  rebuilt from its canonical body (dlq_event_decode, with now = the event's
 *  created_at) and stored with that body byte for byte. The store keeps the
 *  first body of an id, so a redelivered event is OK again (idempotent). A
 *  body that does not decode, or whose id is not the event's, is FAIL; a
 *  store error makes every other event of the batch RETRY with the store's
 *  message.
 *
 *  QUERY mode opens the store as a reader and answers get / list / stats
 *  with the store's calls; a store that no writer has created yet is created
 *  first (empty), so queries answer "nothing" rather than an error. Sweep
 *  deletes rows, which only a writer may: a QUERY instance opens a writer
 *  connection of its own on its first sweep (SQLite's WAL lets it share the
 *  file with the delivering writers; busy waits are bounded by the store).
 *  Store errors are logged through the host, since the store calls of the
 *  ABI carry no message.
 *
 *  It also answers the failure workbench and keeps checkpoints
 *  (embedded_sink_workbench.c), and INDEX mode (the gateway's indexer,
 *  which opens the writer too) feeds it from the gateway's log
 *  (embedded_sink_log.c): this is how the gateway runs its default
 *  primary, "embedded", and what the gateway reads its duplicate check
 *  and the events its log let go from.
 *
 *  Counters (host->count): "stored" for events written, "duplicate" for
 *  events whose id was already there.
 */
#include "embedded_sink.h"

#include "dlq_alloc.h"
#include "failed_event.h"
#include "sink_outcome.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const dlq_sink_setting_t embedded_settings [] = {
    { "data_dir", DLQ_SINK_SETTING_STRING, NULL, 1, 4096, false,
      "directory of the store's file (" DLQ_EMBEDDED_FILE "), created if missing" },
    { .name = NULL }
};

/* ---- opening ------------------------------------------------------------ */

/* mkdir one directory; one that exists already is fine. */
static bool
make_one_dir (const char *path, char *err, size_t err_len)
{
    struct stat st;
    if (mkdir (path, 0755) == 0 || (errno == EEXIST && stat (path, &st) == 0 && S_ISDIR (st.st_mode)))
        return true;
    snprintf (err, err_len, "cannot create directory %s: %s", path,
              errno == EEXIST ? "a file is in the way" : strerror (errno));
    return false;
}

/* Create path and its missing parents, like mkdir -p. */
static bool
make_dirs (const char *path, char *err, size_t err_len)
{
    char *copy = dlq_strdup (path);
    bool ok = true;
    for (char *slash = strchr (copy + 1, '/'); ok && slash; slash = strchr (slash + 1, '/')) {
        *slash = '\0';
        ok = make_one_dir (copy, err, err_len);
        *slash = '/';
    }
    ok = ok && make_one_dir (copy, err, err_len);
    free (copy);
    return ok;
}

/* True when the store's file exists in data_dir. */
static bool
store_exists (const char *data_dir)
{
    char path [PATH_MAX];
    snprintf (path, sizeof path, "%s/%s", data_dir, DLQ_EMBEDDED_FILE);
    return access (path, F_OK) == 0;
}

/* Open the writer of data_dir, creating the directory first. */
static dlq_embedded_t *
open_writer (const char *data_dir, char *err, size_t err_len)
{
    if (!make_dirs (data_dir, err, err_len))
        return NULL;
    return dlq_embedded_open (data_dir, DLQ_EMBEDDED_WRITER, err, err_len);
}

/* Open a reader of data_dir; a store not created yet is created (empty). */
static dlq_embedded_t *
open_reader (const char *data_dir, char *err, size_t err_len)
{
    if (!store_exists (data_dir)) {
        dlq_embedded_t *writer = open_writer (data_dir, err, err_len);
        if (!writer)
            return NULL;
        dlq_embedded_destroy (&writer);
    }
    return dlq_embedded_open (data_dir, DLQ_EMBEDDED_READER, err, err_len);
}

/* Make an instance: a reader in QUERY mode, else the writer. */
static dlq_sink_status_t
embedded_init (const dlq_sink_host_t *host, const dlq_sink_config_t *config,
               dlq_sink_mode_t mode, void **instance, char *err, size_t err_len)
{
    const char *data_dir = host->config_string (config, NULL, "data_dir");
    if (!data_dir) {
        snprintf (err, err_len, "data_dir is required");
        return DLQ_SINK_STATUS_ERROR;
    }
    dlq_embedded_t *store = mode == DLQ_SINK_MODE_QUERY
                          ? open_reader (data_dir, err, err_len)
                          : open_writer (data_dir, err, err_len);
    if (!store)
        return DLQ_SINK_STATUS_ERROR;
    embedded_sink_t *self = dlq_calloc (1, sizeof *self);
    self->host = host;
    self->config = config;
    self->mode = mode;
    self->data_dir = data_dir;
    self->store = store;
    *instance = self;
    return DLQ_SINK_STATUS_OK;
}

/* Free an instance and close its connections. */
static void
embedded_destroy (void *instance)
{
    embedded_sink_t *self = instance;
    dlq_embedded_destroy (&self->store);
    dlq_embedded_destroy (&self->sweeper);
    dlq_embedded_destroy (&self->updater);
    free (self->batch);
    free (self->slot);
    free (self->duplicate);
    embedded_sink_log_free (self);
    dlq_buf_free (&self->out);
    dlq_buf_free (&self->cursor);
    free (self);
}

/* ---- delivering --------------------------------------------------------- */

/* Room for a batch of count events. */
static void
reserve (embedded_sink_t *self, size_t count)
{
    if (count <= self->capacity)
        return;
    self->batch = dlq_realloc (self->batch, count * sizeof *self->batch);
    self->slot = dlq_realloc (self->slot, count * sizeof *self->slot);
    self->duplicate = dlq_realloc (self->duplicate, count * sizeof *self->duplicate);
    self->capacity = count;
}

/* The store's form of one event: decoded from its canonical body, which is
 * kept byte for byte. NULL with outcome set to FAIL when it does not decode
 * or names another id. */
static dlq_event_t *
decode_event (const dlq_sink_event_t *event, dlq_sink_outcome_t *outcome)
{
    dlq_error_t error = { 0 };
    dlq_event_t *decoded = dlq_event_decode (event->json, event->json_len, event->created_at, &error);
    if (!decoded) {
        dlq_sink_outcome_set (outcome, DLQ_SINK_FAIL, "embedded: not a FailedEvent body: %.200s", error.message);
        return NULL;
    }
    if (strcmp (decoded->id, event->id) != 0) {
        dlq_sink_outcome_set (outcome, DLQ_SINK_FAIL, "embedded: the body's id %.40s is not the event's id %.40s",
                              decoded->id, event->id);
        dlq_event_destroy (&decoded);
        return NULL;
    }
    free (decoded->json);
    decoded->json = dlq_strndup (event->json, event->json_len);
    decoded->json_len = event->json_len;
    return decoded;
}

/* Decode the events of a batch into self->batch; returns how many decoded
 * (the others are FAIL already). */
static size_t
decode_batch (embedded_sink_t *self, const dlq_sink_event_t *events, size_t count,
              dlq_sink_outcome_t *outcomes)
{
    size_t decoded = 0;
    for (size_t i = 0; i < count; i++) {
        dlq_event_t *event = decode_event (&events [i], &outcomes [i]);
        if (event) {
            self->slot [decoded] = i;
            self->batch [decoded++] = event;
        }
    }
    return decoded;
}

/* Set the outcomes of the n decoded events after the append, and count. */
static void
settle_batch (embedded_sink_t *self, size_t n, bool stored, const char *why,
              dlq_sink_outcome_t *outcomes)
{
    size_t duplicates = 0;
    for (size_t k = 0; k < n; k++) {
        dlq_sink_outcome_t *outcome = &outcomes [self->slot [k]];
        if (!stored)
            dlq_sink_outcome_set (outcome, DLQ_SINK_RETRY, "%s", why);
        else {
            dlq_sink_outcome_set (outcome, DLQ_SINK_OK, "%s", "");
            duplicates += self->duplicate [k];
        }
        dlq_event_destroy (&self->batch [k]);
    }
    if (!stored)
        return;
    if (n > duplicates)
        self->host->count (self->config, "stored", n - duplicates);
    if (duplicates)
        self->host->count (self->config, "duplicate", duplicates);
}

/* Append a batch in one transaction; see the banner for the outcomes. */
static void
embedded_deliver (void *instance, const dlq_sink_event_t *events, size_t count,
                  dlq_sink_outcome_t *outcomes, int64_t deadline_mono_ms)
{
    embedded_sink_t *self = instance;
    reserve (self, count);
    size_t n = decode_batch (self, events, count, outcomes);
    if (n == 0)
        return;
    char why [sizeof outcomes->message] = "";
    bool stored = dlq_embedded_append (self->store, self->batch, n, self->duplicate,
                                       why, sizeof why) == DLQ_STORE_OK;
    settle_batch (self, n, stored, why, outcomes);
}

/* ---- store calls ---------------------------------------------------------- */

dlq_sink_status_t
embedded_sink_status (const embedded_sink_t *self, const dlq_embedded_t *store, dlq_store_result_t result,
           const char *what)
{
    switch (result) {
        case DLQ_STORE_OK:          return DLQ_SINK_STATUS_OK;
        case DLQ_STORE_NOT_FOUND:   return DLQ_SINK_STATUS_NOT_FOUND;
        case DLQ_STORE_BAD_CURSOR:  return DLQ_SINK_STATUS_BAD_CURSOR;
        default:
            self->host->log (self->config, DLQ_SINK_LOG_ERROR, "%s: %s", what,
                             dlq_embedded_last_error (store));
            return DLQ_SINK_STATUS_ERROR;
    }
}

void
embedded_sink_put (const embedded_sink_t *self, dlq_sink_buf_t *to, const dlq_buf_t *from)
{
    if (from->len)
        self->host->append (to, from->data, from->len);
}

/* The canonical body of event id, unless missing or expired. */
static dlq_sink_status_t
embedded_get (void *instance, const char *id, int64_t now_ms, dlq_sink_buf_t *event_out)
{
    embedded_sink_t *self = instance;
    dlq_store_result_t result = dlq_embedded_get (self->store, id, now_ms, &self->out);
    if (result == DLQ_STORE_OK)
        embedded_sink_put (self, event_out, &self->out);
    return embedded_sink_status (self, self->store, result, "get");
}

/* One page of a stream's unexpired events, newest first. */
static dlq_sink_status_t
embedded_list (void *instance, const char *stream, size_t limit, const char *cursor,
               int64_t now_ms, dlq_sink_buf_t *events_out, dlq_sink_buf_t *cursor_out)
{
    embedded_sink_t *self = instance;
    dlq_store_result_t result = dlq_embedded_list (self->store, stream, limit, cursor, now_ms,
                                                   &self->out, &self->cursor);
    if (result == DLQ_STORE_OK) {
        embedded_sink_put (self, events_out, &self->out);
        embedded_sink_put (self, cursor_out, &self->cursor);
    }
    return embedded_sink_status (self, self->store, result, "list");
}

/* Stored events per stream, in total, and the store's size in bytes. */
static dlq_sink_status_t
embedded_stats (void *instance, dlq_sink_buf_t *streams_out, int64_t *events_out, int64_t *bytes_out)
{
    embedded_sink_t *self = instance;
    dlq_store_result_t result = dlq_embedded_stats (self->store, &self->out, events_out, bytes_out);
    if (result == DLQ_STORE_OK)
        embedded_sink_put (self, streams_out, &self->out);
    return embedded_sink_status (self, self->store, result, "stats");
}

dlq_embedded_t *
embedded_sink_writer (embedded_sink_t *self)
{
    if (self->mode != DLQ_SINK_MODE_QUERY)
        return self->store;
    if (!self->sweeper) {
        char err [256] = "";
        self->sweeper = dlq_embedded_open (self->data_dir, DLQ_EMBEDDED_WRITER, err, sizeof err);
        if (!self->sweeper)
            self->host->log (self->config, DLQ_SINK_LOG_ERROR, "sweep: %s", err);
    }
    return self->sweeper;
}

/* Delete up to max_rows expired events; how many, or -1. */
static int64_t
embedded_sweep (void *instance, int64_t now_ms, int64_t max_rows)
{
    embedded_sink_t *self = instance;
    if (max_rows <= 0)
        return 0;
    dlq_embedded_t *store = embedded_sink_writer (self);
    if (!store)
        return -1;
    int64_t deleted = dlq_embedded_sweep (store, now_ms, max_rows > INT_MAX ? INT_MAX : (int) max_rows);
    if (deleted < 0)
        embedded_sink_status (self, store, DLQ_STORE_ERROR, "sweep");
    return deleted;
}

/* The store's own message for the last failed call. */
static const char *
embedded_last_error (void *instance)
{
    embedded_sink_t *self = instance;
    const char *sweep = self->sweeper ? dlq_embedded_last_error (self->sweeper) : "";
    const char *update = self->updater ? dlq_embedded_last_error (self->updater) : "";
    return sweep [0] ? sweep : update [0] ? update : self->store ? dlq_embedded_last_error (self->store) : "";
}

static const dlq_sink_store_ops_t embedded_store_ops = {
    .get        = embedded_get,
    .list       = embedded_list,
    .stats      = embedded_stats,
    .sweep      = embedded_sweep,
    .last_error = embedded_last_error,
};

DLQ_SINK_EXPORT const dlq_sink_ops_t dlq_sink_entry = {
    .abi_version = DLQ_SINK_ABI_VERSION,
    .struct_size = sizeof (dlq_sink_ops_t),
    .type        = "embedded",
    .description = "the embedded SQLite store: durable, deduplicated by id, answers queries",
    .settings    = embedded_settings,
    .max_batch   = 0,
    .init        = embedded_init,
    .deliver     = embedded_deliver,
    .destroy     = embedded_destroy,
    .store       = &embedded_store_ops,
    .workbench   = &embedded_sink_workbench_ops,
    .checkpoints = &embedded_sink_checkpoint_ops,
    .log         = &embedded_sink_log_ops,
};
