/*  bench_amqp — the amqp sink vs. a raw rabbitmq-c publisher vs. one
 *  confirm per publish; see bench_amqp.h.
 *
 *  One admin connection (channel 1, no confirms) declares each run's
 *  exchange and queue, counts the queue's messages afterwards and deletes
 *  both. (i) is bench_sink_drain with an amqp sink "rabbit" publishing to
 *  the run's exchange. (ii) and (iii) open a publisher connection of their
 *  own (not timed), confirm.select, and publish the events, as the
 *  dispatcher hands them to the sink, under a window of confirms.
 */
#include "bench_amqp.h"

#include "amqp_format.h"
#include "bench_sink.h"
#include "dlq_alloc.h"
#include "dlq_buf.h"
#include "dlq_time.h"

#include <amqp.h>
#include <amqp_tcp_socket.h>
#include <libconfig.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#define SINK_NAME           "rabbit"
#define CHANNEL             1
#define FRAME_MAX           AMQP_DEFAULT_FRAME_SIZE     /* as the sink asks */
#define RPC_TIMEOUT_MS      30000
#define CONFIRM_TIMEOUT_MS  30000       /* raw: no confirm this long fails the run */
#define WARM_UP_EVENTS      10000
#define ERR_LEN             4096
#define NAME_LEN            (DLQ_AMQP_SHORTSTR_MAX + 1)
#define RAW_DONE            "publishes, all confirmed"
#define RUN_PER_PUBLISH     BENCH_RUN_OTHER     /* (iii) */

/* How both publish: the sink's defaults (sinks/amqp/amqp_sink.c), or the
 * values the sink's settings give. */
typedef struct {
    uint32_t window;                            /* confirm_window */
    char     exchange_type [65];
    char     routing_prefix [NAME_LEN];         /* routing_key_prefix */
    bool     mandatory;
} publishing_t;

typedef struct {
    char                       *url;            /* a copy, parsed in place */
    struct amqp_connection_info broker;         /* points into url */
    amqp_connection_state_t     admin;
    char                        prefix [48];    /* dlq_bench.<tag>: every exchange and queue */
    publishing_t                pub;
    dlq_sink_event_t           *events;         /* as deliver gets them */
} bench_mq_t;

/* What a run needs (the ctx of bench_sink_rounds). */
typedef struct {
    const bench_amqp_options_t *options;
    bench_mq_t                 *mq;
    const char                 *dir;
    const bench_events_t       *events;
} runner_t;

/* Settings of the sink's section the benchmark writes itself, or that
 * would make the raw publisher publish otherwise. */
static const char *const owned_settings [] = {
    "host", "port", "vhost", "user", "password", "tls", "exchange", "declare_exchange", "confirm_mode", NULL
};


/* ------------------------------------------------------------------------ */
/* The settings */

/* What settings (the text of the sink's section) change for publishing. */
static bool
apply_settings (const config_t *cfg, publishing_t *pub, char *err, size_t err_len)
{
    int window = 0, mandatory = 0;
    const char *text = NULL;
    if (config_lookup_int (cfg, "s.confirm_window", &window)) {
        if (window < 1 || window > 65535) {
            snprintf (err, err_len, "--amqp-settings: confirm_window %d is not from 1 to 65535", window);
            return false;
        }
        pub->window = (uint32_t) window;
    }
    if (config_lookup_string (cfg, "s.exchange_type", &text))
        snprintf (pub->exchange_type, sizeof pub->exchange_type, "%s", text);
    if (config_lookup_string (cfg, "s.routing_key_prefix", &text))
        snprintf (pub->routing_prefix, sizeof pub->routing_prefix, "%s", text);
    if (config_lookup_bool (cfg, "s.mandatory", &mandatory))
        pub->mandatory = mandatory;
    return true;
}

static bool
read_settings (const char *settings, publishing_t *pub, char *err, size_t err_len)
{
    *pub = (publishing_t) { .window = 256, .exchange_type = "topic", .routing_prefix = "dlq." };
    config_t cfg;
    if (!bench_sink_settings ("amqp", settings, owned_settings, &cfg, err, err_len))
        return false;
    bool ok = apply_settings (&cfg, pub, err, err_len);
    config_destroy (&cfg);
    return ok;
}


/* ------------------------------------------------------------------------ */
/* Connections */

static bool
describe_reply (amqp_rpc_reply_t reply, const char *what, char *err, size_t err_len)
{
    if (reply.reply_type == AMQP_RESPONSE_NORMAL)
        return true;
    if (reply.reply_type == AMQP_RESPONSE_LIBRARY_EXCEPTION)
        snprintf (err, err_len, "%s: %s", what, amqp_error_string2 (reply.library_error));
    else
    if (reply.reply_type == AMQP_RESPONSE_SERVER_EXCEPTION && reply.reply.id == AMQP_CHANNEL_CLOSE_METHOD) {
        const amqp_channel_close_t *c = reply.reply.decoded;
        snprintf (err, err_len, "%s: %u %.*s", what, (unsigned) c->reply_code, (int) c->reply_text.len,
                  (const char *) c->reply_text.bytes);
    }
    else
    if (reply.reply_type == AMQP_RESPONSE_SERVER_EXCEPTION && reply.reply.id == AMQP_CONNECTION_CLOSE_METHOD) {
        const amqp_connection_close_t *c = reply.reply.decoded;
        snprintf (err, err_len, "%s: %u %.*s", what, (unsigned) c->reply_code, (int) c->reply_text.len,
                  (const char *) c->reply_text.bytes);
    }
    else
        snprintf (err, err_len, "%s: no reply from the broker", what);
    return false;
}

/* The reply of the RPC just sent; a channel the broker closed over it is
 * opened again, so that the clean-up can still go on. */
static bool
rpc_ok (amqp_connection_state_t state, const char *what, char *err, size_t err_len)
{
    amqp_rpc_reply_t reply = amqp_get_rpc_reply (state);
    if (describe_reply (reply, what, err, err_len))
        return true;
    if (reply.reply_type == AMQP_RESPONSE_SERVER_EXCEPTION && reply.reply.id == AMQP_CHANNEL_CLOSE_METHOD) {
        amqp_channel_close_ok_t close_ok = { 0 };
        amqp_send_method (state, CHANNEL, AMQP_CHANNEL_CLOSE_OK_METHOD, &close_ok);
        amqp_channel_open (state, CHANNEL);
        amqp_get_rpc_reply (state);
    }
    return false;
}

static void
disconnect (amqp_connection_state_t state)
{
    if (!state)
        return;
    amqp_connection_close (state, AMQP_REPLY_SUCCESS);
    amqp_destroy_connection (state);
}

/* A connection with channel CHANNEL open, in confirm mode when confirm;
 * NULL with err. */
static amqp_connection_state_t
connect_broker (const bench_mq_t *mq, bool confirm, char *err, size_t err_len)
{
    const struct amqp_connection_info *b = &mq->broker;
    amqp_connection_state_t state = amqp_new_connection ();
    amqp_socket_t *socket = amqp_tcp_socket_new (state);
    struct timeval tv = { RPC_TIMEOUT_MS / 1000, 0 };
    int status = socket ? amqp_socket_open_noblock (socket, b->host, b->port, &tv) : AMQP_STATUS_SOCKET_ERROR;
    if (status != AMQP_STATUS_OK) {
        snprintf (err, err_len, "connect to %s:%d: %s", b->host, b->port, amqp_error_string2 (status));
        amqp_destroy_connection (state);
        return NULL;
    }
    amqp_set_rpc_timeout (state, &tv);
    bool ok = describe_reply (amqp_login (state, b->vhost, 0, FRAME_MAX, 0, AMQP_SASL_METHOD_PLAIN,
                                          b->user, b->password), "login", err, err_len);
    if (ok) {
        amqp_channel_open (state, CHANNEL);
        ok = rpc_ok (state, "channel.open", err, err_len);
    }
    if (ok && confirm) {
        amqp_confirm_select (state, CHANNEL);
        ok = rpc_ok (state, "confirm.select", err, err_len);
    }
    if (ok)
        return state;
    disconnect (state);
    return NULL;
}

static bool
open_mq (bench_mq_t *mq, const bench_amqp_options_t *o, const bench_events_t *ev, char *err, size_t err_len)
{
    unsigned tag = (unsigned) getpid () ^ (unsigned) (dlq_time_now_ms () & 0xffffff);
    snprintf (mq->prefix, sizeof mq->prefix, "dlq_bench.%x", tag);
    mq->url = dlq_strdup (o->url);
    amqp_default_connection_info (&mq->broker);
    int status = amqp_parse_url (mq->url, &mq->broker);
    if (status != AMQP_STATUS_OK) {
        snprintf (err, err_len, "--amqp %s: %s (amqp://user:password@host:port/vhost)", o->url,
                  amqp_error_string2 (status));
        return false;
    }
    if (!mq->broker.vhost [0])
        mq->broker.vhost = "/";             /* amqp://host:port/ means the default vhost, as the tests take it */
    if (mq->broker.ssl) {
        snprintf (err, err_len, "--amqp %s: amqps is not supported (the raw publisher speaks plain TCP)", o->url);
        return false;
    }
    if (!read_settings (o->settings, &mq->pub, err, err_len))
        return false;
    mq->admin = connect_broker (mq, false, err, err_len);
    if (!mq->admin)
        return false;
    mq->events = bench_sink_events (ev);
    return true;
}

static void
close_mq (bench_mq_t *mq)
{
    disconnect (mq->admin);
    free (mq->events);
    free (mq->url);
}


/* ------------------------------------------------------------------------ */
/* Each run's exchange and queue */

/* The exchange and the queue of a run (one name for both). */
static void
run_name (const bench_mq_t *mq, const bench_run_t *run, char *name)
{
    static const char *const kinds [] = {
        [BENCH_RUN_DRAIN] = "drain", [BENCH_RUN_RAW] = "raw", [RUN_PER_PUBLISH] = "per-publish"
    };
    snprintf (name, NAME_LEN, "%s.%s%zu", mq->prefix, kinds [run->kind], run->number);
}

/* The run's exchange (as the sink declares it: durable, not auto-deleted)
 * and a durable queue bound to it with '#'. */
static bool
declare_run (bench_mq_t *mq, const char *name, char *err, size_t err_len)
{
    amqp_bytes_t n = amqp_cstring_bytes (name);
    amqp_exchange_declare (mq->admin, CHANNEL, n, amqp_cstring_bytes (mq->pub.exchange_type),
                           /* passive */ 0, /* durable */ 1, /* auto_delete */ 0, /* internal */ 0, amqp_empty_table);
    if (!rpc_ok (mq->admin, "exchange.declare", err, err_len))
        return false;
    amqp_queue_declare (mq->admin, CHANNEL, n, /* passive */ 0, /* durable */ 1, /* exclusive */ 0,
                        /* auto_delete */ 0, amqp_empty_table);
    if (!rpc_ok (mq->admin, "queue.declare", err, err_len))
        return false;
    amqp_queue_bind (mq->admin, CHANNEL, n, n, amqp_cstring_bytes ("#"), amqp_empty_table);
    return rpc_ok (mq->admin, "queue.bind", err, err_len);
}

/* When the run went well, its queue must hold want messages; then the
 * queue and the exchange are deleted (unless keep). */
static bool
finish_run (bench_mq_t *mq, const char *name, size_t want, bool keep, bool ok, char *err, size_t err_len)
{
    amqp_bytes_t n = amqp_cstring_bytes (name);
    if (ok) {
        amqp_queue_declare_ok_t *q = amqp_queue_declare (mq->admin, CHANNEL, n, /* passive */ 1, 0, 0, 0,
                                                         amqp_empty_table);
        ok = rpc_ok (mq->admin, "queue.declare (passive)", err, err_len);
        if (ok && q->message_count != want) {
            snprintf (err, err_len, "queue %s holds %u messages, expected %zu", name,
                      (unsigned) q->message_count, want);
            ok = false;
        }
    }
    if (keep)
        return ok;
    char why [ERR_LEN];
    amqp_queue_delete (mq->admin, CHANNEL, n, 0, 0);
    if (!rpc_ok (mq->admin, "queue.delete", why, sizeof why))
        fprintf (stderr, "dlqd_bench: %s %s\n", name, why);
    amqp_exchange_delete (mq->admin, CHANNEL, n, 0);
    if (!rpc_ok (mq->admin, "exchange.delete", why, sizeof why))
        fprintf (stderr, "dlqd_bench: %s %s\n", name, why);
    return ok;
}


/* ------------------------------------------------------------------------ */
/* (ii) and (iii): publishing under a window of confirms */

typedef struct {
    amqp_connection_state_t state;
    uint64_t published;         /* delivery tags 1 .. published were used */
    uint64_t settled;           /* tags the broker confirmed (ack or nack) */
    uint64_t oldest;            /* the lowest tag not confirmed yet */
    uint64_t nacked;
    uint8_t *confirmed;         /* per tag */
    char     err [ERR_LEN];
} publisher_t;

typedef enum {
    GOT_FRAME,
    GOT_NOTHING,                /* none before the timeout */
    GOT_ERROR                   /* err says why */
} got_t;

/* basic.ack / basic.nack of tag (and, with multiple, of every tag below). */
static void
settle (publisher_t *p, uint64_t tag, bool multiple, bool ack)
{
    if (tag == 0 && !multiple)
        return;                                     /* no such tag */
    uint64_t last = tag == 0 ? p->published : tag;  /* 0 with multiple: all of them */
    for (uint64_t t = multiple ? p->oldest : tag; t <= last && t <= p->published; t++) {
        if (p->confirmed [t])
            continue;
        p->confirmed [t] = 1;
        p->settled++;
        p->nacked += !ack;
    }
    while (p->oldest <= p->published && p->confirmed [p->oldest])
        p->oldest++;
}

static got_t
on_method (publisher_t *p, const amqp_method_t *method)
{
    if (method->id == AMQP_BASIC_ACK_METHOD) {
        const amqp_basic_ack_t *ack = method->decoded;
        settle (p, ack->delivery_tag, ack->multiple, true);
    }
    else
    if (method->id == AMQP_BASIC_NACK_METHOD) {
        const amqp_basic_nack_t *nack = method->decoded;
        settle (p, nack->delivery_tag, nack->multiple, false);
    }
    else
    if (method->id == AMQP_CHANNEL_CLOSE_METHOD || method->id == AMQP_CONNECTION_CLOSE_METHOD) {
        amqp_rpc_reply_t reply = { .reply_type = AMQP_RESPONSE_SERVER_EXCEPTION, .reply = *method };
        describe_reply (reply, method->id == AMQP_CHANNEL_CLOSE_METHOD ? "the broker closed the channel"
                        : "the broker closed the connection", p->err, sizeof p->err);
        return GOT_ERROR;
    }
    return GOT_FRAME;
}

/* Wait up to wait_ms for one frame and handle it. */
static got_t
next_frame (publisher_t *p, int wait_ms)
{
    struct timeval tv = { wait_ms / 1000, (wait_ms % 1000) * 1000 };
    amqp_frame_t frame;
    int status = amqp_simple_wait_frame_noblock (p->state, &frame, &tv);
    if (status == AMQP_STATUS_TIMEOUT)
        return GOT_NOTHING;
    if (status != AMQP_STATUS_OK) {
        snprintf (p->err, sizeof p->err, "reading confirms: %s", amqp_error_string2 (status));
        return GOT_ERROR;
    }
    got_t got = frame.frame_type == AMQP_FRAME_METHOD ? on_method (p, &frame.payload.method) : GOT_FRAME;
    amqp_maybe_release_buffers (p->state);
    return got;
}

/* Wait for a frame (a confirm), then handle every frame already there. */
static bool
await_confirms (publisher_t *p)
{
    got_t got = next_frame (p, CONFIRM_TIMEOUT_MS);
    if (got == GOT_NOTHING)
        snprintf (p->err, sizeof p->err, "no confirm within %d ms", CONFIRM_TIMEOUT_MS);
    if (got != GOT_FRAME)
        return false;
    while ((got = next_frame (p, 0)) == GOT_FRAME)
        ;
    return got == GOT_NOTHING;
}

/* Publish event e to exchange, as the sink does. */
static bool
publish_one (publisher_t *p, const publishing_t *pub, const char *exchange, const dlq_sink_event_t *e)
{
    char key [NAME_LEN];
    if (!dlq_amqp_routing_key (pub->routing_prefix, e->stream_name, NULL, key)) {
        snprintf (p->err, sizeof p->err, "the routing key of stream %s is too long", e->stream_name);
        return false;
    }
    dlq_amqp_message_t message;
    dlq_amqp_message_format (&message, e);
    int status = amqp_basic_publish (p->state, CHANNEL, amqp_cstring_bytes (exchange), amqp_cstring_bytes (key),
                                     pub->mandatory, 0, &message.props, message.body);
    if (status != AMQP_STATUS_OK) {
        snprintf (p->err, sizeof p->err, "publish: %s", amqp_error_string2 (status));
        return false;
    }
    p->published++;
    return true;
}

/* Publish the first count events to exchange on a connection of its own,
 * at most window unconfirmed; *seconds from the first publish until every
 * one is confirmed. */
static bool
publish_confirmed (const bench_mq_t *mq, const char *exchange, size_t count, uint32_t window,
                   double *seconds, char *err, size_t err_len)
{
    publisher_t p = { .state = connect_broker (mq, true, err, err_len), .oldest = 1 };
    if (!p.state)
        return false;
    p.confirmed = dlq_calloc (count + 1, 1);
    bool ok = true;
    int64_t start = dlq_time_mono_ns ();
    for (size_t i = 0; ok && i < count; i++) {
        while (ok && p.published - p.settled >= window)
            ok = await_confirms (&p);
        ok = ok && publish_one (&p, &mq->pub, exchange, &mq->events [i]);
    }
    while (ok && p.settled < p.published)
        ok = await_confirms (&p);
    *seconds = (double) (dlq_time_mono_ns () - start) / 1e9;
    if (ok && p.nacked) {
        snprintf (p.err, sizeof p.err, "the broker NACKed %llu publishes", (unsigned long long) p.nacked);
        ok = false;
    }
    if (!ok)
        snprintf (err, err_len, "%s", p.err);
    free (p.confirmed);
    disconnect (p.state);
    return ok;
}


/* ------------------------------------------------------------------------ */
/* Runs */

static void
fail_run (const bench_run_t *run, const char *err)
{
    static const char *const kinds [] = {
        [BENCH_RUN_DRAIN] = "amqp sink drain", [BENCH_RUN_RAW] = "raw publish", [RUN_PER_PUBLISH] = "per-publish confirm"
    };
    fprintf (stderr, "dlqd_bench: %s run %zu: %s\n", kinds [run->kind], run->number, err);
}

/* (ii) or (iii) */
static void
run_raw (const bench_amqp_options_t *o, bench_mq_t *mq, bench_run_t *run)
{
    char name [NAME_LEN], err [ERR_LEN] = "";
    run_name (mq, run, name);
    uint32_t window = run->kind == RUN_PER_PUBLISH ? 1 : mq->pub.window;
    bool ok = declare_run (mq, name, err, sizeof err)
           && publish_confirmed (mq, name, run->events, window, &run->seconds, err, sizeof err);
    ok = finish_run (mq, name, run->events, o->keep, ok, err, sizeof err);
    if (!ok)
        fail_run (run, err);
    run->eps = ok && run->seconds > 0 ? (double) run->events / run->seconds : 0;
    run->failed = !ok;
}

static void
put_setting (dlq_buf_t *config, const char *name, const char *value)
{
    dlq_buf_printf (config, " %s = \"", name);
    bench_sink_config_string (config, value);
    dlq_buf_puts (config, "\";");
}

/* The benchmark's settings of the sink's section, publishing to exchange. */
static void
sink_section (const bench_mq_t *mq, const char *exchange, dlq_buf_t *config)
{
    const struct amqp_connection_info *b = &mq->broker;
    put_setting (config, "host", b->host);
    dlq_buf_printf (config, " port = %d;", b->port);
    put_setting (config, "vhost", b->vhost);
    put_setting (config, "user", b->user);
    put_setting (config, "password", b->password);
    put_setting (config, "exchange", exchange);
    dlq_buf_puts (config, " declare_exchange = true;");
}

/* (i) */
static void
run_drain (const bench_amqp_options_t *o, bench_mq_t *mq, const char *dir, const bench_events_t *ev,
           bench_run_t *run)
{
    char name [NAME_LEN], err [ERR_LEN] = "";
    run_name (mq, run, name);
    dlq_buf_t section = DLQ_BUF_INIT;
    sink_section (mq, name, &section);
    const bench_sink_dlqd_t dlqd = { o->dlqd, o->clients, o->window, o->ready_ms, o->reply_timeout_ms,
                                     o->stop_ms };
    bool ok = declare_run (mq, name, err, sizeof err)
           && bench_sink_drain_run (&dlqd, dir, SINK_NAME, "amqp", section.data, o->settings, ev, run,
                                    err, sizeof err);
    dlq_buf_free (&section);
    ok = finish_run (mq, name, run->events, o->keep, ok, err, sizeof err);
    if (!ok) {
        fail_run (run, err);
        run->eps = 0;
    }
    run->failed = !ok;
}

static void
run_one (void *ctx, bench_run_t *run)
{
    runner_t *r = ctx;
    if (run->kind == BENCH_RUN_DRAIN)
        run_drain (r->options, r->mq, r->dir, r->events, run);
    else
        run_raw (r->options, r->mq, run);
}


/* ------------------------------------------------------------------------ */
/* Report */

/* A string entry of the broker's server properties, or "?". */
static void
server_property (const bench_mq_t *mq, const char *name, char *out, size_t out_len)
{
    const amqp_table_entry_t *e = dlq_amqp_header (amqp_get_server_properties (mq->admin), name);
    if (e && (e->value.kind == AMQP_FIELD_KIND_UTF8 || e->value.kind == AMQP_FIELD_KIND_BYTES))
        snprintf (out, out_len, "%.*s", (int) e->value.value.bytes.len, (const char *) e->value.value.bytes.bytes);
    else
        snprintf (out, out_len, "?");
}

static void
print_setup (const bench_amqp_options_t *o, const bench_mq_t *mq, size_t warm_up, size_t repeat)
{
    char product [64], version [64];
    server_property (mq, "product", product, sizeof product);
    server_property (mq, "version", version, sizeof version);
    printf ("amqp            : %s %s at %s:%d vhost %s; exchanges and queues %s.*\n", product, version,
            mq->broker.host, mq->broker.port, mq->broker.vhost, mq->prefix);
    printf ("amqp publishing : confirm window %u, %s exchanges, routing keys %s<streamName>, mandatory %s;"
            " persistent messages, a durable queue bound with '#' per run\n", mq->pub.window,
            mq->pub.exchange_type, mq->pub.routing_prefix, mq->pub.mandatory ? "on" : "off");
    bench_sink_print_rounds ("amqp runs", warm_up, repeat, "every queue checked to hold its messages, then deleted");
    if (o->settings)
        printf ("amqp sink       : with %s\n", o->settings);
}

static void
print_per_publish (const bench_run_t *r)
{
    if (r->failed)
        printf ("per-publish     : FAILED (see above)\n");
    else
        printf ("per-publish     : %7.0f events/s  (%zu publishes in %.2f s, each waiting for its confirm:"
                " flowwarden-amqp's confirm mode)\n", r->eps, r->events, r->seconds);
}

static void
summarise (const bench_run_t *runs, size_t repeat, const bench_mq_t *mq, bench_amqp_result_t *out)
{
    bench_sink_medians (runs, 2 * repeat, &out->sink_eps, &out->steady_eps, &out->raw_eps);
    printf ("amqp sink (drain): %7.0f events/s  (median of %zu; restart (PING) with a stored backlog of N"
            " -> delivered = N, backlog 0; from the first STATS on: %.0f events/s)\n", out->sink_eps, repeat,
            out->steady_eps);
    printf ("raw rabbitmq-c  : %7.0f events/s  (median of %zu; one connection, at most %u unconfirmed)\n",
            out->raw_eps, repeat, mq->pub.window);
}

static void
print_ratios (const bench_amqp_result_t *out)
{
    double vs_raw = out->raw_eps > 0 ? out->sink_eps / out->raw_eps : 0;
    char sink_pp [32] = "n/a", raw_pp [32] = "n/a";
    if (out->per_publish_eps > 0) {
        snprintf (sink_pp, sizeof sink_pp, "%.1fx", out->sink_eps / out->per_publish_eps);
        snprintf (raw_pp, sizeof raw_pp, "%.1fx", out->raw_eps / out->per_publish_eps);
    }
    printf ("amqp ratios     : sink / raw %.2f (target >= %.2f: %s), sink / per-publish %s,"
            " raw / per-publish %s\n", vs_raw, BENCH_AMQP_TARGET_RAW,
            vs_raw >= BENCH_AMQP_TARGET_RAW ? "met" : "MISSED", sink_pp, raw_pp);
    printf ("amqp ratios     : sink from the first STATS on / raw %.2f (without the head start the sink"
            " gets before dlqd answers PING)\n", out->raw_eps > 0 ? out->steady_eps / out->raw_eps : 0);
}


/* ------------------------------------------------------------------------ */

bool
bench_amqp_run (const bench_amqp_options_t *o, const char *dir, const bench_events_t *ev,
                bench_amqp_result_t *out)
{
    memset (out, 0, sizeof *out);
    size_t repeat = bench_sink_repeat (o->repeat), warm_up = ev->count < WARM_UP_EVENTS ? ev->count : WARM_UP_EVENTS;
    bench_mq_t mq = { 0 };
    runner_t runner = { o, &mq, dir, ev };
    bench_run_t runs [2 * BENCH_SINK_MAX_REPEAT];
    char err [ERR_LEN] = "";
    bool ok = open_mq (&mq, o, ev, err, sizeof err);
    if (ok) {
        print_setup (o, &mq, warm_up, repeat);
        ok = bench_sink_rounds (repeat, ev->count, warm_up, run_one, &runner, RAW_DONE, runs);
    }
    else
        fprintf (stderr, "dlqd_bench: amqp: %s\n", err);
    if (ok)
        summarise (runs, repeat, &mq, out);
    if (ok && o->per_publish_events) {
        bench_run_t once = { .kind = RUN_PER_PUBLISH, .number = 1,
                             .events = o->per_publish_events < ev->count ? o->per_publish_events : ev->count };
        run_raw (o, &mq, &once);
        print_per_publish (&once);
        out->per_publish_eps = once.eps;
        ok = !once.failed;
    }
    if (ok)
        print_ratios (out);
    if (o->keep && mq.admin)
        printf ("kept queues     : %s.* (and their exchanges)\n", mq.prefix);
    close_mq (&mq);
    out->failed = !ok;
    return ok;
}
