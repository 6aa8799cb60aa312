/*  checkpoint_record — encoding and decoding a checkpoint write's spool
 *  record (see the header).
 */
#include "checkpoint_record.h"

#include "checkpoint.h"
#include "dlq_bytes.h"

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
    const char *strings [DLQ_CHECKPOINT_STRINGS] = { r->stream_name, r->instance_id, r->last_seen_token,
                                                     r->last_processed_token, r->metadata };
    for (int i = 0; i < DLQ_CHECKPOINT_STRINGS; i++) {
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
    const char *spans [DLQ_CHECKPOINT_STRINGS];
    size_t lens [DLQ_CHECKPOINT_STRINGS];
    for (int i = 0; i < DLQ_CHECKPOINT_STRINGS; i++)
        if (!dlq_bytes_get_span (&c, &spans [i], &lens [i]) || (spans [i] && memchr (spans [i], 0, lens [i])))
            return false;
    if (c.p != c.end || !spans [0] || lens [0] == 0)
        return false;                   /* trailing bytes, or no stream name */
    if (what == WHAT_REMOVED && (spans [1] || spans [2] || spans [3] || spans [4]
                                 || (int64_t) times [0] != DLQ_SINK_TIME_NONE
                                 || (int64_t) times [1] != DLQ_SINK_TIME_NONE
                                 || (int64_t) times [2] != DLQ_SINK_TIME_NONE))
        return false;                   /* a removal holds the stream name alone */
    const dlq_sink_checkpoint_t times_of = {
        .last_seen_at = (int64_t) times [0], .last_processed_at = (int64_t) times [1],
        .updated_at = (int64_t) times [2],
    };
    *record_out = dlq_checkpoint_with_strings (&times_of, spans, lens, block_out);
    *removed_out = what == WHAT_REMOVED;
    return true;
}
