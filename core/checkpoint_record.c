/*  checkpoint_record — encoding and decoding a checkpoint write's spool
 *  record (see the header).
 */
#include "checkpoint_record.h"

#include "dlq_alloc.h"
#include "dlq_bytes.h"

#include <stdlib.h>
#include <string.h>

#define WHAT_RECORD 1
#define WHAT_REMOVED 2

void
dlq_checkpoint_record_encode (const dlq_sink_checkpoint_t *r, bool removed, uint64_t events, dlq_buf_t *out)
{
    dlq_buf_putc (out, DLQ_CHECKPOINT_RECORD_VERSION);
    dlq_buf_putc (out, removed ? WHAT_REMOVED : WHAT_RECORD);
    dlq_bytes_put_u64 (out, events);
    dlq_bytes_put_u64 (out, (uint64_t) (removed ? DLQ_SINK_TIME_NONE : r->last_seen_at));
    dlq_bytes_put_u64 (out, (uint64_t) (removed ? DLQ_SINK_TIME_NONE : r->last_processed_at));
    dlq_bytes_put_u64 (out, (uint64_t) (removed ? DLQ_SINK_TIME_NONE : r->updated_at));
    const char *strings [5] = { r->stream_name, r->instance_id, r->last_seen_token, r->last_processed_token,
                                r->metadata };
    for (int i = 0; i < 5; i++) {
        const char *s = removed && i > 0 ? NULL : strings [i];
        dlq_bytes_put_string (out, s, s ? strlen (s) : 0);
    }
}

/* The version, what and events at the start; false when they are not a
 * checkpoint record's. */
static bool
get_head (dlq_bytes_reader_t *c, uint8_t *what, uint64_t *events)
{
    uint8_t version = 0;
    return dlq_bytes_get_u8 (c, &version) && version == DLQ_CHECKPOINT_RECORD_VERSION
        && dlq_bytes_get_u8 (c, what) && (*what == WHAT_RECORD || *what == WHAT_REMOVED)
        && dlq_bytes_get_u64 (c, events);
}

bool
dlq_checkpoint_record_events (const uint8_t *bytes, size_t len, uint64_t *events_out)
{
    dlq_bytes_reader_t c = { bytes, bytes + len };
    uint8_t what;
    return get_head (&c, &what, events_out);
}

bool
dlq_checkpoint_record_decode (const uint8_t *bytes, size_t len, dlq_sink_checkpoint_t *record_out,
                              bool *removed_out, char **block_out)
{
    dlq_bytes_reader_t c = { bytes, bytes + len };
    uint8_t what = 0;
    uint64_t events, times [3];
    if (!get_head (&c, &what, &events))
        return false;
    for (int i = 0; i < 3; i++)
        if (!dlq_bytes_get_u64 (&c, &times [i]))
            return false;
    const char *spans [5];
    size_t lens [5], total = 0;
    for (int i = 0; i < 5; i++) {
        if (!dlq_bytes_get_span (&c, &spans [i], &lens [i]) || (spans [i] && memchr (spans [i], 0, lens [i])))
            return false;
        total += spans [i] ? lens [i] + 1 : 0;
    }
    if (c.p != c.end || !spans [0] || lens [0] == 0)
        return false;                   /* trailing bytes, or no stream name */
    if (what == WHAT_REMOVED && (spans [1] || spans [2] || spans [3] || spans [4]
                                 || (int64_t) times [0] != DLQ_SINK_TIME_NONE
                                 || (int64_t) times [1] != DLQ_SINK_TIME_NONE
                                 || (int64_t) times [2] != DLQ_SINK_TIME_NONE))
        return false;                   /* a removal holds the stream name alone */
    char *block = dlq_malloc (total), *at = block;
    const char *copies [5];
    for (int i = 0; i < 5; i++) {
        copies [i] = NULL;
        if (!spans [i])
            continue;
        memcpy (at, spans [i], lens [i]);
        at [lens [i]] = 0;
        copies [i] = at;
        at += lens [i] + 1;
    }
    *record_out = (dlq_sink_checkpoint_t) {
        .stream_name = copies [0], .instance_id = copies [1], .last_seen_token = copies [2],
        .last_seen_at = (int64_t) times [0], .last_processed_token = copies [3],
        .last_processed_at = (int64_t) times [1], .metadata = copies [4], .updated_at = (int64_t) times [2],
    };
    *removed_out = what == WHAT_REMOVED;
    *block_out = block;
    return true;
}
