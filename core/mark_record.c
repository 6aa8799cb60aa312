/*  mark_record — encoding and decoding a replay-state change's spool
 *  record (see the header).
 */
#include "mark_record.h"

#include "dlq_bytes.h"
#include "sink_mark.h"

#include <string.h>

void
dlq_mark_record_encode (const dlq_mark_record_t *record, dlq_buf_t *out)
{
    dlq_buf_putc (out, DLQ_MARK_RECORD_VERSION);
    dlq_buf_putc (out, (char) record->mark);
    dlq_bytes_put_u64 (out, record->events);
    dlq_bytes_put_u64 (out, (uint64_t) record->now_ms);
    dlq_bytes_put_u64 (out, (uint64_t) record->retry_after_ms);
    dlq_bytes_put_string (out, record->id, record->id_len);
}

bool
dlq_mark_record_decode (const uint8_t *bytes, size_t len, dlq_mark_record_t *out)
{
    dlq_bytes_reader_t c = { bytes, bytes + len };
    uint8_t version = 0, mark = 0;
    uint64_t now = 0, retry_after = 0;
    memset (out, 0, sizeof *out);
    if (!dlq_bytes_get_u8 (&c, &version) || version != DLQ_MARK_RECORD_VERSION
    ||  !dlq_bytes_get_u8 (&c, &mark) || !dlq_sink_mark_effect ((dlq_sink_mark_t) mark)
    ||  !dlq_bytes_get_u64 (&c, &out->events) || !dlq_bytes_get_u64 (&c, &now)
    ||  !dlq_bytes_get_u64 (&c, &retry_after) || !dlq_bytes_get_span (&c, &out->id, &out->id_len))
        return false;
    if (c.p != c.end || !out->id || out->id_len == 0 || memchr (out->id, 0, out->id_len))
        return false;                   /* trailing bytes, or no id */
    out->mark = (dlq_sink_mark_t) mark;
    out->now_ms = (int64_t) now;
    out->retry_after_ms = (int64_t) retry_after;
    return true;
}
