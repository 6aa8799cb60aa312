/*  bench_events — the benchmark's workload: realistic ~1 KB FailedEvents.
 *
 *  Every event is generated once, before any timing starts, in two forms:
 *    - the PUT body a worker would send (the flowwarden-amqp wire format's
 *      JSON body, its own id: a time-ordered UUIDv7 as libdlq makes, or a
 *      random UUIDv4), and
 *    - the row the embedded store keeps for it (id, stream, timestamps,
 *      status, error type and the gateway's canonical JSON), produced by the
 *      gateway's own decode -> default stream policy -> encode path, so the
 *      SQLite reference loops insert exactly what the gateway stores.
 */
#ifndef DLQ_BENCH_EVENTS_H
#define DLQ_BENCH_EVENTS_H

#include <stddef.h>
#include <stdint.h>

/* One row of the events table, as the embedded store writes it. */
typedef struct {
    const char *id;
    const char *stream_name;
    const char *status;
    const char *error_type;
    const char *operation_type; /* NULL when absent */
    const char *document_key;   /* extended JSON text, NULL when absent */
    int32_t     attempts;
    int64_t     first_attempt_at; /* ms, or DLQ_TIME_NONE */
    const char *json;           /* canonical body */
    size_t      json_len;
    int64_t     created_at;     /* ms since epoch */
    int64_t     expires_at;     /* ms since epoch, or DLQ_TIME_NONE */
} bench_row_t;

typedef struct {
    size_t        count;
    char        **bodies;       /* PUT bodies (compact JSON, not NUL-counted) */
    size_t       *body_lens;
    bench_row_t  *rows;
    size_t        body_bytes;   /* sum of body_lens */
    size_t        json_bytes;   /* sum of rows [i].json_len */
} bench_events_t;

typedef enum {
    BENCH_IDS_V7,               /* time-ordered, as dlq_client_uuid_v7 and dlqctl make them */
    BENCH_IDS_V4                /* random, as java.util.UUID.randomUUID() makes them */
} bench_ids_t;

/* Generate count events from seed (the seed decides every field, so ids
 * only differ between runs when the seed does). NULL with a message in err
 * when a generated body does not pass the gateway's own validation, which
 * would be a bug in the generator. */
bench_events_t *bench_events_generate (size_t count, uint64_t seed, bench_ids_t ids,
                                       char *err, size_t err_len);

/* Free; accepts NULL and NULLs the pointer. */
void bench_events_destroy (bench_events_t **self_p);

#endif
