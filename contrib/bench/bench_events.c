/*  bench_events — generate realistic FailedEvents and their store rows.
 *
 *  A body is what a change-stream worker sends after giving up on an event:
 *  the change (documentKey, a 430-690 byte fullDocument of one of three
 *  document shapes, resumeToken), the exception (type, message, a short
 *  Java stack trace), attempts, timestamps and metadata: about 1.35 KB in
 *  all, 1.4 KB once canonical (expiresAt added). Field values come
 *  from a seeded xorshift generator and small vocabularies, so sizes and
 *  contents vary from event to event without the generator costing much.
 *
 *  Each body is then run through the gateway's own decoder, the default
 *  stream policy (30 days retention, everything kept) and encoder; the
 *  resulting row is what the SQLite reference loops insert.
 */
#include "bench_events.h"

#include "dlq_alloc.h"
#include "dlq_buf.h"
#include "dlq_uuid.h"
#include "dlq_time.h"
#include "failed_event.h"
#include "stream_policy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COUNT_OF(a) (sizeof (a) / sizeof ((a) [0]))
#define DAY_MS      (24 * 3600 * 1000LL)

/* Events fail one after another: createdAt advances CREATED_GAP_MS per
 * event, give or take CREATED_JITTER_MS (concurrent workers), ending now.
 * (createdAt in arrival order is what a live gateway sees; random createdAt
 * values would turn the index appends of the store into random writes.) */
#define CREATED_GAP_MS    1
#define CREATED_JITTER_MS 20

typedef struct {
    uint64_t state;
} rng_t;

typedef struct {
    const char *type;
    const char *message;        /* printf format with one %s and one %d */
    int         lo, hi;         /* range of the %d */
    const char *frames;         /* stack frames, JSON-escaped */
} error_kind_t;

static const char *const streams [] = {
    "orders-stream", "payments-stream", "inventory-stream", "shipping-stream", "customers-stream"
};
/* Cumulative percentages: orders 40, payments 25, inventory 15, shipping 12, customers 8. */
static const int stream_weights [] = { 40, 65, 80, 92, 100 };

static const char *const operations [] = { "INSERT", "UPDATE", "REPLACE", "DELETE" };
static const char *const first_names [] = {
    "Ada", "Grace", "Linus", "Margaret", "Dennis", "Barbara", "Ken", "Frances", "Edsger", "Radia"
};
static const char *const last_names [] = {
    "Lovelace", "Hopper", "Torvalds", "Hamilton", "Ritchie", "Liskov", "Thompson", "Allen",
    "Dijkstra", "Perlman"
};
static const char *const cities [] = {
    "Paris", "Berlin", "Lisbon", "Amsterdam", "Dublin", "Milano", "Krakow", "Goteborg"
};
static const char *const products [] = {
    "USB-C cable 2m", "Mechanical keyboard (ISO, brown switches)", "27in monitor stand",
    "Noise cancelling headphones", "Laptop sleeve 14in", "Wireless mouse", "HDMI 2.1 adapter",
    "Standing desk mat", "Webcam 1080p", "Thunderbolt dock"
};
static const char *const tiers [] = { "STANDARD", "SILVER", "GOLD", "PLATINUM" };
static const char *const order_states [] = { "CREATED", "PAID", "PACKED", "SHIPPED", "REFUNDED" };
static const char *const tags [] = { "web", "mobile", "promo", "b2b", "gift", "priority", "eu", "retry" };
static const char *const services [] = { "payments:8443", "inventory:8080", "shipping:9000", "crm:8080" };

static const error_kind_t errors [] = {
    { "java.lang.IllegalStateException", "%s answered HTTP %d", 500, 504,
      "\\n\\tat com.acme.sync.Client.post(Client.java:88)"
      "\\n\\tat io.flowwarden.Dispatcher.run(Dispatcher.java:212)" },
    { "java.net.SocketTimeoutException", "read from %s timed out after %d ms", 1000, 30000,
      "\\n\\tat com.acme.pay.Gateway.capture(Gateway.java:133)"
      "\\n\\tat io.flowwarden.Invoker.invoke(Invoker.java:67)" },
    { "com.mongodb.MongoWriteConcernException", "%s: wtimeout %d ms", 1000, 10000,
      "\\n\\tat com.acme.stock.Projection.apply(Projection.java:57)"
      "\\n\\tat io.flowwarden.Dispatcher.run(Dispatcher.java:212)" },
    { "com.fasterxml.jackson.databind.JsonMappingException", "bad amount from %s at %d", 1, 900,
      "\\n\\tat com.acme.ship.LabelMapper.map(LabelMapper.java:29)"
      "\\n\\tat io.flowwarden.Dispatcher.run(Dispatcher.java:212)" },
};


/* ------------------------------------------------------------------------ */
/* Randomness */

/* splitmix64, used to spread the seed over the xorshift state. */
static uint64_t
splitmix (uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

static uint64_t
next_u64 (rng_t *r)
{
    r->state ^= r->state >> 12;
    r->state ^= r->state << 25;
    r->state ^= r->state >> 27;
    return r->state * 0x2545F4914F6CDD1DULL;
}

/* Uniform-enough integer in [lo, hi]. */
static int64_t
pick (rng_t *r, int64_t lo, int64_t hi)
{
    return lo + (int64_t) (next_u64 (r) % (uint64_t) (hi - lo + 1));
}

static const char *
one_of (rng_t *r, const char *const *list, size_t n)
{
    return list [next_u64 (r) % n];
}

#define ONE_OF(r, list) one_of ((r), (list), COUNT_OF (list))

static void
put_hex (dlq_buf_t *out, rng_t *r, size_t digits)
{
    static const char hex [] = "0123456789abcdef";
    uint64_t bits = 0;
    for (size_t i = 0; i < digits; i++) {
        if (i % 16 == 0)
            bits = next_u64 (r);
        dlq_buf_putc (out, hex [bits & 15]);
        bits >>= 4;
    }
}

/* A random (version 4) UUID in lowercase text. */
static void
put_uuid4 (dlq_buf_t *out, rng_t *r)
{
    static const char hex [] = "0123456789abcdef";
    uint64_t hi = next_u64 (r), lo = next_u64 (r);
    hi = (hi & ~0xF000ULL) | 0x4000ULL;
    lo = (lo & ~(3ULL << 62)) | (2ULL << 62);
    for (int i = 0; i < 32; i++) {
        if (i == 8 || i == 12 || i == 16 || i == 20)
            dlq_buf_putc (out, '-');
        uint64_t word = i < 16 ? hi : lo;
        dlq_buf_putc (out, hex [(word >> (60 - 4 * (i % 16))) & 15]);
    }
}

static void
put_time (dlq_buf_t *out, int64_t ms)
{
    char iso [DLQ_TIME_ISO_LEN + 1];
    dlq_time_format_iso (ms, iso);
    dlq_buf_puts (out, iso);
}


/* ------------------------------------------------------------------------ */
/* fullDocument shapes */

static void
put_order_items (dlq_buf_t *out, rng_t *r, int64_t *total_cents)
{
    int items = (int) pick (r, 1, 2);
    dlq_buf_puts (out, "\"items\":[");
    for (int i = 0; i < items; i++) {
        int64_t cents = pick (r, 199, 49999), qty = pick (r, 1, 4);
        *total_cents += cents * qty;
        dlq_buf_printf (out, "%s{\"sku\":\"SKU-%05d\",\"name\":\"%s\",\"qty\":%d,"
                        "\"price\":{\"$numberDecimal\":\"%d.%02d\"}}",
                        i ? "," : "", (int) pick (r, 1, 99999), ONE_OF (r, products),
                        (int) qty, (int) (cents / 100), (int) (cents % 100));
    }
    dlq_buf_puts (out, "],");
}

/* orders, payments, shipping: an order document. */
static void
put_order (dlq_buf_t *out, rng_t *r, int64_t at)
{
    const char *first = ONE_OF (r, first_names), *last = ONE_OF (r, last_names);
    int64_t total = 0;
    dlq_buf_printf (out, "\"orderNumber\":\"ORD-2026-%07d\",\"status\":\"%s\","
                    "\"customer\":{\"id\":\"CUST-%06d\",\"name\":\"%s %s\","
                    "\"email\":\"%s.%s@example.com\",\"tier\":\"%s\"},",
                    (int) pick (r, 1, 9999999), ONE_OF (r, order_states), (int) pick (r, 1, 999999),
                    first, last, first, last, ONE_OF (r, tiers));
    put_order_items (out, r, &total);
    dlq_buf_printf (out, "\"total\":{\"$numberDecimal\":\"%d.%02d\"},\"currency\":\"EUR\","
                    "\"shipping\":{\"street\":\"%d Rue de la Paix\",\"city\":\"%s\","
                    "\"zip\":\"%05d\",\"express\":%s},\"updatedAt\":{\"$date\":\"",
                    (int) (total / 100), (int) (total % 100), (int) pick (r, 1, 200),
                    ONE_OF (r, cities), (int) pick (r, 1000, 99999),
                    pick (r, 0, 1) ? "true" : "false");
    put_time (out, at - pick (r, 0, 60000));
    dlq_buf_printf (out, "\"},\"version\":{\"$numberLong\":\"%d\"}", (int) pick (r, 1, 40));
}

/* inventory: a stock record with per-warehouse levels. */
static void
put_stock (dlq_buf_t *out, rng_t *r, int64_t at)
{
    dlq_buf_printf (out, "\"sku\":\"SKU-%05d\",\"name\":\"%s\",\"category\":\"accessories\","
                    "\"unitPrice\":{\"$numberDecimal\":\"%d.99\"},\"warehouses\":[",
                    (int) pick (r, 1, 99999), ONE_OF (r, products), (int) pick (r, 1, 900));
    int n = (int) pick (r, 2, 4);
    for (int i = 0; i < n; i++)
        dlq_buf_printf (out, "%s{\"code\":\"WH-%s-%d\",\"onHand\":%d,\"reserved\":%d,"
                        "\"reorderPoint\":%d}", i ? "," : "", ONE_OF (r, cities),
                        (int) pick (r, 1, 9), (int) pick (r, 0, 5000), (int) pick (r, 0, 300),
                        (int) pick (r, 10, 500));
    dlq_buf_printf (out, "],\"supplier\":{\"id\":\"SUP-%04d\",\"leadTimeDays\":%d},"
                    "\"lastMovement\":{\"$date\":\"", (int) pick (r, 1, 9999),
                    (int) pick (r, 1, 30));
    put_time (out, at - pick (r, 0, 3600000));
    dlq_buf_printf (out, "\"},\"version\":{\"$numberLong\":\"%d\"}", (int) pick (r, 1, 900));
}

/* customers: a customer profile. */
static void
put_customer (dlq_buf_t *out, rng_t *r, int64_t at)
{
    const char *first = ONE_OF (r, first_names), *last = ONE_OF (r, last_names);
    dlq_buf_printf (out, "\"customerId\":\"CUST-%06d\",\"firstName\":\"%s\",\"lastName\":\"%s\","
                    "\"email\":\"%s.%s@example.com\",\"phone\":\"+33 6 %02d %02d %02d %02d\","
                    "\"tier\":\"%s\",\"marketingOptIn\":%s,\"addresses\":[{\"kind\":\"billing\","
                    "\"street\":\"%d Main Street\",\"city\":\"%s\",\"zip\":\"%05d\"},"
                    "{\"kind\":\"shipping\",\"street\":\"%d Station Road\",\"city\":\"%s\","
                    "\"zip\":\"%05d\"}],\"lifetimeValue\":{\"$numberDecimal\":\"%d.%02d\"},"
                    "\"tags\":[\"%s\",\"%s\"],\"signedUpAt\":{\"$date\":\"",
                    (int) pick (r, 1, 999999), first, last, first, last,
                    (int) pick (r, 0, 99), (int) pick (r, 0, 99), (int) pick (r, 0, 99),
                    (int) pick (r, 0, 99), ONE_OF (r, tiers), pick (r, 0, 1) ? "true" : "false",
                    (int) pick (r, 1, 300), ONE_OF (r, cities), (int) pick (r, 1000, 99999),
                    (int) pick (r, 1, 300), ONE_OF (r, cities), (int) pick (r, 1000, 99999),
                    (int) pick (r, 0, 99999), (int) pick (r, 0, 99), ONE_OF (r, tags),
                    ONE_OF (r, tags));
    put_time (out, at - pick (r, DAY_MS, 900 * DAY_MS));
    dlq_buf_printf (out, "\"},\"version\":{\"$numberLong\":\"%d\"}", (int) pick (r, 1, 90));
}

static void
put_full_document (dlq_buf_t *out, rng_t *r, const char *stream, const char *oid, int64_t at)
{
    dlq_buf_printf (out, ",\"fullDocument\":{\"_id\":{\"$oid\":\"%s\"},", oid);
    if (strcmp (stream, "inventory-stream") == 0)
        put_stock (out, r, at);
    else
    if (strcmp (stream, "customers-stream") == 0)
        put_customer (out, r, at);
    else
        put_order (out, r, at);
    dlq_buf_putc (out, '}');
}


/* ------------------------------------------------------------------------ */
/* The event */

static const char *
pick_stream (rng_t *r)
{
    int p = (int) pick (r, 0, 99);
    size_t i = 0;
    while (p >= stream_weights [i])
        i++;
    return streams [i];
}

static void
put_error (dlq_buf_t *out, rng_t *r)
{
    const error_kind_t *kind = &errors [next_u64 (r) % COUNT_OF (errors)];
    const char *service = ONE_OF (r, services);
    int number = (int) pick (r, kind->lo, kind->hi);
    dlq_buf_printf (out, ",\"error\":{\"type\":\"%s\",\"message\":\"", kind->type);
    dlq_buf_printf (out, kind->message, service, number);
    dlq_buf_printf (out, "\",\"stackTrace\":\"%s: ", kind->type);
    dlq_buf_printf (out, kind->message, service, number);
    dlq_buf_printf (out, "%s\"}", kind->frames);
}

/* The attempt timestamps of an event created at ms "at": the last attempt
 * a little before, the first one a few back-offs earlier. */
static void
put_timestamps (dlq_buf_t *out, rng_t *r, int attempts, int64_t at)
{
    int64_t last = at - pick (r, 1, 50);
    int64_t first = last - (attempts - 1) * pick (r, 200, 2000);
    dlq_buf_puts (out, ",\"firstAttemptAt\":\"");
    put_time (out, first);
    dlq_buf_puts (out, "\",\"lastAttemptAt\":\"");
    put_time (out, last);
    dlq_buf_puts (out, "\",\"createdAt\":\"");
    put_time (out, at);
    dlq_buf_putc (out, '"');
}

/* One PUT body into out (replacing its contents) for an event created at
 * ms "at". */
static void
generate_body (dlq_buf_t *out, rng_t *r, int64_t at, bench_ids_t ids)
{
    const char *stream = pick_stream (r);
    dlq_buf_t oid = DLQ_BUF_INIT;
    put_hex (&oid, r, 24);
    dlq_buf_reset (out);
    dlq_buf_puts (out, "{\"id\":\"");
    if (ids == BENCH_IDS_V7) {
        char id [DLQ_UUID_LEN + 1];
        dlq_uuid_v7 (at, id);
        dlq_buf_puts (out, id);
    }
    else
        put_uuid4 (out, r);
    dlq_buf_printf (out, "\",\"streamName\":\"%s\",\"operationType\":\"%s\","
                    "\"documentKey\":{\"_id\":{\"$oid\":\"%s\"}}",
                    stream, ONE_OF (r, operations), oid.data);
    put_full_document (out, r, stream, oid.data, at);
    dlq_buf_puts (out, ",\"resumeToken\":{\"_data\":\"8266");
    put_hex (out, r, 60);
    dlq_buf_puts (out, "\"}");
    put_error (out, r);
    int attempts = (int) pick (r, 1, 5);
    dlq_buf_printf (out, ",\"attempts\":%d,\"status\":\"DLQ\"", attempts);
    put_timestamps (out, r, attempts, at);
    dlq_buf_printf (out, ",\"metadata\":{\"tenantId\":\"tenant-%03d\",\"worker\":\"%.*s-%d\"}}",
                    (int) pick (r, 1, 120), (int) (strchr (stream, '-') - stream), stream,
                    (int) pick (r, 1, 8));
    dlq_buf_free (&oid);
}


/* ------------------------------------------------------------------------ */
/* Rows */

/* Copy len bytes to *p and move *p past them; returns where they went. */
static const char *
take (char **p, const char *s, size_t len)
{
    char *at = memcpy (*p, s, len);
    *p += len;
    return at;
}

/* Copy the stored columns of an encoded event into one allocation, which
 * row->id points at (so free (row->id) releases the whole row). */
static void
keep_row (bench_row_t *row, const dlq_event_t *e)
{
    size_t id_len = strlen (e->id) + 1, stream_len = strlen (e->stream_name) + 1;
    size_t status_len = strlen (e->status) + 1, type_len = strlen (e->error_type) + 1;
    size_t op_len = e->operation_type ? strlen (e->operation_type) + 1 : 0;
    size_t key_len = e->document_key ? strlen (e->document_key) + 1 : 0;
    char *p = dlq_malloc (id_len + stream_len + status_len + type_len + op_len + key_len + e->json_len + 1);
    row->id = take (&p, e->id, id_len);
    row->stream_name = take (&p, e->stream_name, stream_len);
    row->status = take (&p, e->status, status_len);
    row->error_type = take (&p, e->error_type, type_len);
    row->operation_type = op_len ? take (&p, e->operation_type, op_len) : NULL;
    row->document_key = key_len ? take (&p, e->document_key, key_len) : NULL;
    row->attempts = e->attempts;
    row->first_attempt_at = e->first_attempt_at;
    row->json = take (&p, e->json, e->json_len);
    *p = '\0';
    row->json_len = e->json_len;
    row->created_at = e->created_at;
    row->expires_at = e->expires_at;
}

/* Decode, apply the default policy and encode body, as the gateway does. */
static bool
make_row (bench_row_t *row, const char *body, size_t len, int64_t now,
          char *err, size_t err_len)
{
    static const dlq_policy_t policy = { .retention_days = 30, .include_original_document = true, .include_stack_trace = true };
    dlq_error_t derr;
    dlq_event_t *event = dlq_event_decode (body, len, now, &derr);
    if (!event) {
        snprintf (err, err_len, "generated event is invalid (%s, field '%s'): %s",
                  dlq_code_name (derr.code), derr.field, derr.message);
        return false;
    }
    dlq_policy_apply (&policy, event);
    dlq_event_encode (event);
    keep_row (row, event);
    dlq_event_destroy (&event);
    return true;
}

bench_events_t *
bench_events_generate (size_t count, uint64_t seed, bench_ids_t ids, char *err, size_t err_len)
{
    bench_events_t *self = dlq_calloc (1, sizeof *self);
    self->bodies = dlq_calloc (count, sizeof *self->bodies);
    self->body_lens = dlq_calloc (count, sizeof *self->body_lens);
    self->rows = dlq_calloc (count, sizeof *self->rows);
    rng_t rng = { splitmix (seed) | 1 };
    int64_t now = dlq_time_now_ms ();
    int64_t start = now - (int64_t) count * CREATED_GAP_MS;
    dlq_buf_t body = DLQ_BUF_INIT;
    for (size_t i = 0; i < count; i++) {
        int64_t at = start + (int64_t) i * CREATED_GAP_MS + pick (&rng, 0, CREATED_JITTER_MS);
        generate_body (&body, &rng, at, ids);
        self->bodies [i] = dlq_strndup (body.data, body.len);
        self->body_lens [i] = body.len;
        self->count = i + 1;
        if (!make_row (&self->rows [i], body.data, body.len, now, err, err_len)) {
            dlq_buf_free (&body);
            bench_events_destroy (&self);
            return NULL;
        }
        self->body_bytes += body.len;
        self->json_bytes += self->rows [i].json_len;
    }
    dlq_buf_free (&body);
    return self;
}

void
bench_events_destroy (bench_events_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    bench_events_t *self = *self_p;
    for (size_t i = 0; i < self->count; i++) {
        free (self->bodies [i]);
        free ((char *) self->rows [i].id);
    }
    free (self->bodies);
    free (self->body_lens);
    free (self->rows);
    free (self);
    *self_p = NULL;
}
