/*  event_record — encoding and decoding an event's spool record.
 */
#include "event_record.h"

#include "dlq_alloc.h"
#include "dlq_bytes.h"
#include "dlq_time.h"

#include <stdlib.h>
#include <string.h>

#define FIXED (1 + 8 + 8 * 3 + 4 + 16)  /* version, ordinal, times, attempts, fingerprint */

void
dlq_event_record_encode (const dlq_event_t *e, uint64_t ordinal, dlq_buf_t *out)
{
    dlq_buf_reserve (out, FIXED + 7 * 4 + e->json_len + 256);
    dlq_buf_putc (out, DLQ_EVENT_RECORD_VERSION);
    dlq_bytes_put_u64 (out, ordinal);
    dlq_bytes_put_u64 (out, (uint64_t) e->created_at);
    dlq_bytes_put_u64 (out, (uint64_t) e->expires_at);
    dlq_bytes_put_u64 (out, (uint64_t) e->first_attempt_at);
    dlq_bytes_put_u32 (out, (uint32_t) e->attempts);
    char fingerprint [16] = { 0 };
    memcpy (fingerprint, e->fingerprint, strnlen (e->fingerprint, sizeof fingerprint));
    dlq_buf_append (out, fingerprint, sizeof fingerprint);
    const char *strings [6] = { e->id, e->stream_name, e->status, e->error_type, e->operation_type,
                                e->document_key };
    for (int i = 0; i < 6; i++)
        dlq_bytes_put_string (out, strings [i], strings [i] ? strlen (strings [i]) : 0);
    dlq_bytes_put_string (out, e->json, e->json_len);
}

typedef struct {
    uint64_t    ordinal;
    int64_t     times [3];
    uint32_t    attempts;
    const char *fingerprint;
    const char *strings [7];
    size_t      lens [7];
} fields_t;

static bool
parse (const uint8_t *bytes, size_t len, fields_t *f, int upto)
{
    dlq_bytes_reader_t c = { bytes, bytes + len };
    if (len < FIXED || bytes [0] != DLQ_EVENT_RECORD_VERSION)
        return false;
    c.p++;
    dlq_bytes_get_u64 (&c, &f->ordinal);
    for (int i = 0; i < 3; i++) {
        uint64_t v = 0;
        dlq_bytes_get_u64 (&c, &v);
        f->times [i] = (int64_t) v;
    }
    f->attempts = 0;
    dlq_bytes_get_u32 (&c, &f->attempts);
    f->fingerprint = (const char *) c.p;
    c.p += 16;
    for (int i = 0; i < upto; i++)
        if (!dlq_bytes_get_span (&c, &f->strings [i], &f->lens [i]))
            return false;
    return upto < 7 || c.p == c.end;
}

static char *
copy (const char *s, size_t len)
{
    if (!s)
        return NULL;
    char *out = dlq_malloc (len + 1);
    memcpy (out, s, len);
    out [len] = 0;
    return out;
}

dlq_event_t *
dlq_event_record_decode (const uint8_t *bytes, size_t len)
{
    fields_t f;
    if (!parse (bytes, len, &f, 7))
        return NULL;
    /* id, stream, status, error type and the body are never absent, and
     * no string holds a NUL (the body's JSON escapes them) */
    const int required [5] = { 0, 1, 2, 3, 6 };
    for (int i = 0; i < 5; i++)
        if (!f.strings [required [i]])
            return NULL;
    for (int i = 0; i < 7; i++)
        if (f.strings [i] && memchr (f.strings [i], 0, f.lens [i]))
            return NULL;
    dlq_event_t *e = dlq_calloc (1, sizeof *e);
    e->created_at = f.times [0];
    e->expires_at = f.times [1];
    e->first_attempt_at = f.times [2];
    e->last_attempt_at = DLQ_TIME_NONE;
    e->attempts = (int32_t) f.attempts;
    memcpy (e->fingerprint, f.fingerprint, 16);
    e->fingerprint [16] = 0;
    if (strlen (e->fingerprint) != 16)
        e->fingerprint [0] = 0;
    e->id = copy (f.strings [0], f.lens [0]);
    e->stream_name = copy (f.strings [1], f.lens [1]);
    e->status = copy (f.strings [2], f.lens [2]);
    e->error_type = copy (f.strings [3], f.lens [3]);
    e->operation_type = copy (f.strings [4], f.lens [4]);
    e->document_key = copy (f.strings [5], f.lens [5]);
    e->json = copy (f.strings [6], f.lens [6]);
    e->json_len = f.lens [6];
    return e;
}

bool
dlq_event_record_id (const uint8_t *bytes, size_t len, const char **id_out, size_t *id_len_out)
{
    fields_t f;
    if (!parse (bytes, len, &f, 1) || !f.strings [0])
        return false;
    *id_out = f.strings [0];
    *id_len_out = f.lens [0];
    return true;
}

bool
dlq_event_record_ordinal (const uint8_t *bytes, size_t len, uint64_t *ordinal_out)
{
    fields_t f;
    if (!parse (bytes, len, &f, 0))
        return false;
    *ordinal_out = f.ordinal;
    return true;
}

bool
dlq_event_record_expires_at (const uint8_t *bytes, size_t len, int64_t *expires_at_out)
{
    fields_t f;
    if (!parse (bytes, len, &f, 0))
        return false;
    *expires_at_out = f.times [1];
    return true;
}
