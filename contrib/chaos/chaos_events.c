/*  chaos_events — the run's events in canonical form; see chaos_events.h.
 *
 *  The bodies are written field by field in the order of docs/failed-event.md's
 *  record table (id, streamName, operationType, documentKey, fullDocument,
 *  error, attempts, status, firstAttemptAt, lastAttemptAt, createdAt,
 *  expiresAt, metadata), with JSON escapes exactly where the gateway's
 *  writer puts them: \" and \\ and the control characters, nothing else.
 */
#include "chaos_events.h"

#include "chaos_rng.h"
#include "dlq_alloc.h"
#include "dlq_buf.h"
#include "dlq_time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RETENTION_MS    (30LL * 86400000LL)     /* the default retention_days */
#define ID_MIDDLE       "-c4a0-4000-8000-"
#define TAG_LEN         8

const char *const chaos_events_stream_names [CHAOS_EVENTS_STREAMS] = {
    "chaos-orders", "chaos-payments", "chaos.audit"
};

static const char *const operations [] = { "INSERT", "UPDATE", "DELETE", "REPLACE" };
static const char *const statuses [] = { "PENDING", "DLQ", "FAILED_3" };
static const char *const error_types [] = {
    "java.net.SocketTimeoutException", "java.lang.IllegalStateException",
    "org.postgresql.util.PSQLException"
};

static void
chaos_events_time (dlq_buf_t *out, const char *name, int64_t ms)
{
    char text [DLQ_TIME_ISO_LEN + 1];
    dlq_time_format_iso (ms, text);
    dlq_buf_printf (out, ",\"%s\":\"%s\"", name, text);
}

/* The canonical body of event i. */
static void
chaos_events_body (dlq_buf_t *out, const chaos_event_t *e, size_t i, chaos_rng_t *rng,
                   int64_t created)
{
    uint64_t r = chaos_rng_next (rng);
    char oid [25];
    snprintf (oid, sizeof oid, "%08x%016llx", (unsigned) (r >> 32), (unsigned long long) i);
    dlq_buf_printf (out, "{\"id\":\"%s\",\"streamName\":\"%s\"", e->id,
                    chaos_events_stream_names [e->stream]);
    dlq_buf_printf (out, ",\"operationType\":\"%s\"", operations [r % 4]);
    dlq_buf_printf (out, ",\"documentKey\":{\"_id\":{\"$oid\":\"%s\"}}", oid);
    if (r & 0x10)
        dlq_buf_printf (out, ",\"fullDocument\":{\"_id\":{\"$oid\":\"%s\"},\"n\":%zu,"
                             "\"price\":{\"$numberDecimal\":\"%u.50\"},"
                             "\"note\":\"caf\xc3\xa9 \\\"%zu\\\" \\\\ \xe2\x82\xac\"}",
                        oid, i, (unsigned) (r >> 8) % 1000, i);
    dlq_buf_printf (out, ",\"error\":{\"type\":\"%s\",\"message\":\"Read timed out after %u ms "
                         "calling 10.0.%u.%u:5432 for '%s'\"",
                    error_types [(r >> 4) % 3], (unsigned) (r >> 12) % 30000,
                    (unsigned) (r >> 24) % 256, (unsigned) (r >> 32) % 256, e->id);
    if (r & 0x20)
        dlq_buf_printf (out, ",\"stackTrace\":\"%s: boom\\n\\tat com.acme.Client.call(Client.java:%u)"
                             "\\n\\tat com.acme.Worker.run(Worker.java:17)\"",
                        error_types [(r >> 4) % 3], (unsigned) (r >> 40) % 500);
    dlq_buf_printf (out, "},\"attempts\":%u,\"status\":\"%s\"", (unsigned) (r >> 48) % 10,
                    statuses [(r >> 52) % 3]);
    chaos_events_time (out, "firstAttemptAt", created - 5000 - (int64_t) ((r >> 20) % 1000));
    chaos_events_time (out, "lastAttemptAt", created - 1 - (int64_t) ((r >> 30) % 100));
    chaos_events_time (out, "createdAt", created);
    chaos_events_time (out, "expiresAt", created + RETENTION_MS);
    dlq_buf_printf (out, ",\"metadata\":{\"seq\":%zu,\"tenant\":\"t%u\",\"retry\":%s}}", i,
                    (unsigned) (r >> 56) % 7, (r & 0x40) ? "true" : "false");
}

/* TAG + ID_MIDDLE + the index in 12 hex digits. */
static void
chaos_events_id (char *out, const char *tag, size_t index)
{
    static const char hex [] = "0123456789abcdef";
    size_t prefix = TAG_LEN + strlen (ID_MIDDLE);
    memcpy (out, tag, TAG_LEN);
    memcpy (out + TAG_LEN, ID_MIDDLE, strlen (ID_MIDDLE));
    for (size_t d = 0; d < CHAOS_EVENTS_ID_LEN - prefix; d++)
        out [CHAOS_EVENTS_ID_LEN - 1 - d] = hex [(index >> (4 * d)) & 0xf];
    out [CHAOS_EVENTS_ID_LEN] = '\0';
}

void
chaos_events_make (chaos_events_t *events, size_t count, uint64_t seed)
{
    chaos_rng_t rng;
    chaos_rng_seed (&rng, seed, 100);
    events->count = count;
    events->items = dlq_calloc (count ? count : 1, sizeof *events->items);
    snprintf (events->tag, sizeof events->tag, "%08x", (unsigned) (chaos_rng_next (&rng) >> 32));
    int64_t base = dlq_time_now_ms () - (int64_t) count;
    dlq_buf_t body = DLQ_BUF_INIT;
    for (size_t i = 0; i < count; i++) {
        chaos_event_t *e = &events->items [i];
        chaos_events_id (e->id, events->tag, i);
        e->stream = (uint8_t) (i % CHAOS_EVENTS_STREAMS);
        dlq_buf_reset (&body);
        chaos_events_body (&body, e, i, &rng, base + (int64_t) i);
        e->body_len = body.len;
        e->body = dlq_strndup (body.data, body.len);
    }
    dlq_buf_free (&body);
}

void
chaos_events_free (chaos_events_t *events)
{
    for (size_t i = 0; i < events->count; i++)
        free (events->items [i].body);
    free (events->items);
    events->items = NULL;
    events->count = 0;
}

long
chaos_events_find (const chaos_events_t *events, const char *id, size_t len)
{
    size_t prefix = TAG_LEN + strlen (ID_MIDDLE);
    if (len != CHAOS_EVENTS_ID_LEN || memcmp (id, events->tag, TAG_LEN) != 0
        || memcmp (id + TAG_LEN, ID_MIDDLE, strlen (ID_MIDDLE)) != 0)
        return -1;
    size_t index = 0;
    for (size_t i = prefix; i < len; i++) {
        char c = id [i];
        int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (digit < 0)
            return -1;
        index = index * 16 + (size_t) digit;
    }
    return index < events->count ? (long) index : -1;
}
