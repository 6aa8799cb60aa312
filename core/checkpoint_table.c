/*  checkpoint_table — checkpoint records in a sorted array (see the header).
 */
#include "checkpoint_table.h"

#include "checkpoint.h"
#include "dlq_alloc.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* One record; its strings live in block. */
typedef struct {
    dlq_sink_checkpoint_t record;
    char                 *block;
} entry_t;

struct dlq_checkpoint_table {
    pthread_rwlock_t lock;
    entry_t         *entries;       /* sorted by stream_name, byte order */
    size_t           count, capacity;
    size_t           bytes;         /* dlq_checkpoint_table_cost of every entry */
};

dlq_checkpoint_table_t *
dlq_checkpoint_table_new (void)
{
    dlq_checkpoint_table_t *self = dlq_calloc (1, sizeof *self);
    pthread_rwlock_init (&self->lock, NULL);
    return self;
}

void
dlq_checkpoint_table_destroy (dlq_checkpoint_table_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_checkpoint_table_t *self = *self_p;
    for (size_t i = 0; i < self->count; i++)
        free (self->entries [i].block);
    free (self->entries);
    pthread_rwlock_destroy (&self->lock);
    free (self);
    *self_p = NULL;
}

/* The index of the first entry whose name is >= name (count when none). */
static size_t
lower_bound (const dlq_checkpoint_table_t *self, const char *name)
{
    size_t lo = 0, hi = self->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp (self->entries [mid].record.stream_name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static bool
found (const dlq_checkpoint_table_t *self, size_t i, const char *name)
{
    return i < self->count && strcmp (self->entries [i].record.stream_name, name) == 0;
}

void
dlq_checkpoint_table_put (dlq_checkpoint_table_t *self, const dlq_sink_checkpoint_t *record)
{
    entry_t e;
    e.record = dlq_checkpoint_copy (record, &e.block);
    pthread_rwlock_wrlock (&self->lock);
    size_t i = lower_bound (self, record->stream_name);
    self->bytes += dlq_checkpoint_table_cost (record);
    if (found (self, i, record->stream_name)) {
        self->bytes -= dlq_checkpoint_table_cost (&self->entries [i].record);
        free (self->entries [i].block);
        self->entries [i] = e;
    }
    else {
        if (self->count == self->capacity) {
            self->capacity = self->capacity ? self->capacity * 2 : 16;
            self->entries = dlq_realloc (self->entries, self->capacity * sizeof *self->entries);
        }
        memmove (&self->entries [i + 1], &self->entries [i], (self->count - i) * sizeof *self->entries);
        self->entries [i] = e;
        self->count++;
    }
    pthread_rwlock_unlock (&self->lock);
}

bool
dlq_checkpoint_table_remove (dlq_checkpoint_table_t *self, const char *stream)
{
    pthread_rwlock_wrlock (&self->lock);
    size_t i = lower_bound (self, stream);
    bool was = found (self, i, stream);
    if (was) {
        self->bytes -= dlq_checkpoint_table_cost (&self->entries [i].record);
        free (self->entries [i].block);
        memmove (&self->entries [i], &self->entries [i + 1], (self->count - i - 1) * sizeof *self->entries);
        self->count--;
    }
    pthread_rwlock_unlock (&self->lock);
    return was;
}

bool
dlq_checkpoint_table_get (dlq_checkpoint_table_t *self, const char *stream, dlq_buf_t *out)
{
    pthread_rwlock_rdlock (&self->lock);
    size_t i = lower_bound (self, stream);
    bool was = found (self, i, stream);
    if (was)
        dlq_checkpoint_format (&self->entries [i].record, out);
    pthread_rwlock_unlock (&self->lock);
    return was;
}

const dlq_sink_checkpoint_t *
dlq_checkpoint_table_peek (const dlq_checkpoint_table_t *self, const char *stream)
{
    size_t i = lower_bound (self, stream);
    return found (self, i, stream) ? &self->entries [i].record : NULL;
}

void
dlq_checkpoint_table_list (dlq_checkpoint_table_t *self, const char *prefix, size_t limit, const char *cursor,
                           dlq_buf_t *records_out, dlq_buf_t *cursor_out)
{
    size_t plen = prefix ? strlen (prefix) : 0;
    pthread_rwlock_rdlock (&self->lock);
    size_t i = lower_bound (self, cursor && strcmp (cursor, prefix ? prefix : "") > 0 ? cursor : prefix ? prefix : "");
    if (cursor && found (self, i, cursor))
        i++;                            /* after the cursor */
    dlq_buf_putc (records_out, '[');
    size_t n = 0;
    for (; i < self->count && strncmp (self->entries [i].record.stream_name, prefix ? prefix : "", plen) == 0; i++) {
        if (n == limit) {
            if (n)                      /* more than a page: its last name is the next page's cursor */
                dlq_buf_puts (cursor_out, self->entries [i - 1].record.stream_name);
            break;
        }
        dlq_buf_puts (records_out, n++ ? "," : "");
        dlq_checkpoint_format (&self->entries [i].record, records_out);
    }
    dlq_buf_putc (records_out, ']');
    pthread_rwlock_unlock (&self->lock);
}

size_t
dlq_checkpoint_table_size (dlq_checkpoint_table_t *self)
{
    pthread_rwlock_rdlock (&self->lock);
    size_t n = self->count;
    pthread_rwlock_unlock (&self->lock);
    return n;
}

size_t
dlq_checkpoint_table_bytes (dlq_checkpoint_table_t *self)
{
    pthread_rwlock_rdlock (&self->lock);
    size_t n = self->bytes;
    pthread_rwlock_unlock (&self->lock);
    return n;
}

size_t
dlq_checkpoint_table_cost (const dlq_sink_checkpoint_t *r)
{
    const char *strings [5] = { r->stream_name, r->instance_id, r->last_seen_token, r->last_processed_token,
                                r->metadata };
    size_t n = sizeof (entry_t);
    for (int i = 0; i < 5; i++)
        n += strings [i] ? strlen (strings [i]) + 1 : 0;
    return n;
}

dlq_sink_checkpoint_t
dlq_checkpoint_table_merge (const dlq_sink_checkpoint_t *current, const dlq_sink_checkpoint_t *request,
                            dlq_sink_ckpt_write_t kind, int64_t now_ms)
{
    dlq_sink_checkpoint_t out = current && kind != DLQ_SINK_CKPT_SAVE ? *current : dlq_checkpoint_empty (NULL);
    if (kind == DLQ_SINK_CKPT_SAVE)
        out = *request;
    else
    if (kind == DLQ_SINK_CKPT_SEEN) {
        out.last_seen_token = request->last_seen_token;
        out.last_seen_at = request->last_seen_at;
    }
    else {
        out.last_processed_token = request->last_processed_token;
        out.last_processed_at = request->last_processed_at;
    }
    out.stream_name = request->stream_name;
    out.updated_at = now_ms;
    return out;
}
