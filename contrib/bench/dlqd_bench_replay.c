/*  dlqd_bench_replay — replay throughput through dlqd against the ingest of
 *  the same events, on the embedded store, in the same run.
 *
 *  One process, one dlqd started from the build tree on a temporary
 *  directory, with stream "orders" whose replay_route is the replay
 *  endpoint (replay.listen on a free loopback port), or with --route noop
 *  a noop sink in no chain. Then, --repeat times, each round on a fresh
 *  set of events:
 *    1. generate N small FailedEvents (~140 bytes, stream "orders", their
 *       own UUIDv7 ids, createdAt left to the gateway) before any timing;
 *    2. ingest: PUT them pipelined (one DEALER, 256 in flight; every reply
 *       must be OK and not a duplicate): ingest ev/s, first send to last
 *       ack;
 *    3. replay: REPLAY {"all":true,"createdAfter":<the round's start>,
 *       "target":"endpoint","rate":100000} (createdAfter keeps the earlier
 *       rounds' events, still PENDING, out of the selection), to a worker
 *       (a libdlq replay receiver) connected before the first round; the
 *       time from the REPLAY reply until the worker holds all N events,
 *       each id exactly once and with the job's id: replay ev/s. Then
 *       REPLAY.STATUS is polled until the job is DONE, which must have
 *       total = replayed = N, and nothing more may reach the worker.
 *       With --route noop the job goes to the stream's route (the noop
 *       sink) and replay ev/s is N over the time from the REPLAY reply
 *       until the poll (every 5 ms) sees it DONE;
 *  and print each round's figures, their medians and the ratio replay /
 *  ingest (of the same round: the machine is shared and noisy, so the
 *  ratio is what to compare). No thresholds: the figures are reported.
 *  Exit status: 0 when every round completed and checked out, 1 on a
 *  failure (an ERR reply, a timeout, an event missing or received twice,
 *  dlqd not exiting 0), 64 on a usage error.
 */
#include "bench_daemon.h"
#include "bench_numbers.h"
#include "bench_gateway.h"
#include "dlq_client.h"
#include "dlq_time.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>

#ifndef DLQD_BINARY
#define DLQD_BINARY "dlqd"
#endif

#define PROGRAM             "dlqd_bench_replay"
#define STREAM              "orders"
#define PUT_WINDOW          256
#define MAX_REPEAT          15
#define READY_TIMEOUT_MS    10000
#define REPLY_TIMEOUT_MS    30000
#define STOP_TIMEOUT_MS     30000
#define EVENT_TIMEOUT_MS    30000       /* longest wait for the next replayed event */
#define DONE_TIMEOUT_MS     120000      /* longest wait for a job to be DONE */
#define POLL_INTERVAL_MS    5
#define EXTRA_WAIT_MS       100         /* listening for extra events after DONE */
#define WARM_UP_AGE_MS      3600000     /* the warm-up event's createdAt: an hour ago */

typedef enum { ROUTE_ENDPOINT, ROUTE_NOOP } route_t;

typedef struct {
    size_t      events;
    size_t      repeat;
    int         rate;
    route_t     route;
    const char *dlqd;
    bool        keep;
} options_t;

/* One round's events, generated before timing: the PUT bodies (as the
 * load generator takes them) and the ids, sorted, with a flag per id for
 * the worker's exactly-once check. */
typedef struct {
    bench_events_t  puts;               /* count, bodies, body_lens (no rows) */
    char          (*ids) [DLQ_CLIENT_ID_SIZE];
    bool           *received;
} event_set_t;

/* What the bench talks to: the gateway (requests) and, for the endpoint
 * route, the worker's receiver. */
typedef struct {
    void                  *zmq_ctx;
    const char            *endpoint;
    dlq_client_t          *client;
    dlq_replay_receiver_t *worker;      /* NULL with --route noop */
} rig_t;

/* What one round measured. */
typedef struct {
    double ingest_per_s;
    double replay_per_s;
    double done_ms;                     /* REPLAY reply -> job seen DONE */
} round_t;

/* ------------------------------------------------------------------------ */
/* Command line */

static int
usage (FILE *out, int code)
{
    fprintf (out,
        "usage: " PROGRAM " [options]\n"
        "Measures how fast dlqd replays stored events (REPLAY of every event of a\n"
        "round to the replay endpoint, taken by one libdlq worker) against how fast\n"
        "it ingests them (pipelined PUTs), side by side in the same run, on the\n"
        "embedded store of a dlqd it starts.\n"
        "\n"
        "  --events N        events per round (default 100000)\n"
        "  --repeat R        rounds, each on fresh events in the same dlqd; medians\n"
        "                    reported (default 3, at most %d)\n"
        "  --rate E          the replay job's rate, events/s (1 to 100000; default 100000)\n"
        "  --route R         endpoint (default): replay to the replay endpoint, one\n"
        "                    worker receiving; noop: to the stream's replay_route, a\n"
        "                    noop sink in no chain (no worker; timed until DONE)\n"
        "  --dlqd PATH       dlqd binary to start (default %s)\n"
        "  --keep            keep the temporary directory (config, store, log)\n"
        "  --help            this text\n"
        "\n"
        "Exit status: 0 run completed, 1 failure, 64 usage error.\n", MAX_REPEAT, DLQD_BINARY);
    return code;
}

static bool
parse_route (const char *text, route_t *route)
{
    if (strcmp (text, "endpoint") == 0 || strcmp (text, "noop") == 0) {
        *route = text [0] == 'e' ? ROUTE_ENDPOINT : ROUTE_NOOP;
        return true;
    }
    fprintf (stderr, PROGRAM ": --route wants endpoint or noop, got '%s'\n", text);
    return false;
}

/* Returns -1 to go on, or an exit status. */
static int
parse_options (int argc, char **argv, options_t *o)
{
    static const struct option longs [] = {
        { "events", required_argument, NULL, 'n' },
        { "repeat", required_argument, NULL, 'r' },
        { "rate", required_argument, NULL, 'R' },
        { "route", required_argument, NULL, 'o' },
        { "dlqd", required_argument, NULL, 'd' },
        { "keep", no_argument, NULL, 'k' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    *o = (options_t) { .events = 100000, .repeat = 3, .rate = 100000, .route = ROUTE_ENDPOINT,
                       .dlqd = DLQD_BINARY };
    size_t v;
    int opt;
    while ((opt = getopt_long (argc, argv, "h", longs, NULL)) != -1) {
        bool ok = true;
        switch (opt) {
            case 'n': ok = bench_parse_count (PROGRAM, "events", optarg, 1, 10000000, &o->events); break;
            case 'r': ok = bench_parse_count (PROGRAM, "repeat", optarg, 1, MAX_REPEAT, &o->repeat); break;
            case 'R': ok = bench_parse_count (PROGRAM, "rate", optarg, 1, 100000, &v); o->rate = (int) v; break;
            case 'o': ok = parse_route (optarg, &o->route); break;
            case 'd': o->dlqd = optarg; break;
            case 'k': o->keep = true; break;
            case 'h': return usage (stdout, 0);
            default:  return usage (stderr, 64);
        }
        if (!ok)
            return usage (stderr, 64);
    }
    if (optind < argc) {
        fprintf (stderr, PROGRAM ": unexpected argument '%s'\n", argv [optind]);
        return usage (stderr, 64);
    }
    return -1;
}

/* ------------------------------------------------------------------------ */
/* Events */

/* A small FailedEvent of STREAM with its own id; createdAt is the
 * gateway's unless created_at is given. */
static size_t
make_body (char **body, const char *id, const char *created_at, size_t n)
{
    char created [64] = "";
    if (created_at)
        snprintf (created, sizeof created, ",\"createdAt\":\"%s\"", created_at);
    int len = asprintf (body, "{\"id\":\"%s\",\"streamName\":\"" STREAM "\",\"error\":{\"type\":"
                        "\"java.lang.IllegalStateException\",\"message\":\"boom %zu\"}%s}", id, n, created);
    if (len < 0)
        abort ();
    return (size_t) len;
}

static int
compare_ids (const void *a, const void *b)
{
    return strcmp (a, b);
}

static event_set_t *
event_set_new (size_t count)
{
    event_set_t *set = calloc (1, sizeof *set);
    set->puts.count = count;
    set->puts.bodies = calloc (count, sizeof *set->puts.bodies);
    set->puts.body_lens = calloc (count, sizeof *set->puts.body_lens);
    set->ids = calloc (count, sizeof *set->ids);
    set->received = calloc (count, sizeof *set->received);
    if (!set->puts.bodies || !set->puts.body_lens || !set->ids || !set->received)
        abort ();
    for (size_t i = 0; i < count; i++) {
        dlq_client_uuid_v7 (set->ids [i]);
        set->puts.body_lens [i] = make_body (&set->puts.bodies [i], set->ids [i], NULL, i);
        set->puts.body_bytes += set->puts.body_lens [i];
    }
    qsort (set->ids, count, sizeof *set->ids, compare_ids);
    return set;
}

static void
event_set_destroy (event_set_t **set_p)
{
    event_set_t *set = *set_p;
    if (!set)
        return;
    for (size_t i = 0; i < set->puts.count; i++)
        free (set->puts.bodies [i]);
    free (set->puts.bodies);
    free (set->puts.body_lens);
    free (set->ids);
    free (set->received);
    free (set);
    *set_p = NULL;
}

/* Mark id received; false (and why) when it is not of the set or came
 * before. */
static bool
event_set_take (event_set_t *set, const char *id, char *why, size_t why_len)
{
    char (*found) [DLQ_CLIENT_ID_SIZE] = bsearch (id, set->ids, set->puts.count, sizeof *set->ids, compare_ids);
    if (!found) {
        snprintf (why, why_len, "received event %s, which is not one of this round's", id);
        return false;
    }
    bool *received = &set->received [found - set->ids];
    if (*received) {
        snprintf (why, why_len, "received event %s twice", id);
        return false;
    }
    *received = true;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Requests */

static void
report_client_error (const rig_t *rig, const char *what, dlq_client_result_t result)
{
    const char *code = dlq_client_error_code (rig->client);
    fprintf (stderr, PROGRAM ": %s: %s %s\n", what, *code ? code : dlq_client_result_name (result),
             dlq_client_error_message (rig->client));
}

/* PUT the set pipelined; its ev/s into *per_s. False (said why) unless
 * every PUT was stored as new. */
static bool
ingest (const rig_t *rig, const event_set_t *set, double *per_s)
{
    bench_gateway_result_t result;
    bool ran = bench_gateway_run (rig->zmq_ctx, rig->endpoint, &set->puts, 1, PUT_WINDOW, REPLY_TIMEOUT_MS,
                                  &result);
    bool ok = ran && result.ok == set->puts.count && result.duplicates == 0 && result.errors == 0;
    if (!ok)
        fprintf (stderr, PROGRAM ": ingest: %zu of %zu OK (%zu duplicates), %zu ERR%s%s%s%s\n", result.ok,
                 set->puts.count, result.duplicates, result.errors, *result.first_err ? ", first: " : "",
                 result.first_err, result.failed ? "; " : "", result.failure);
    *per_s = (double) set->puts.count / result.seconds;
    bench_gateway_result_free (&result);
    return ok;
}

/* Start a job of every event created at or after created_after (ms). */
static bool
start_job (const rig_t *rig, int64_t created_after, int rate, dlq_client_job_t *job)
{
    char since [DLQ_TIME_ISO_LEN + 1];
    dlq_time_format_iso (created_after, since);
    dlq_client_filter_t *filter = dlq_client_filter_new ();
    dlq_client_filter_set_created_after (filter, since);
    dlq_client_selection_t selection = { .filter = filter, .all = true };
    dlq_client_target_t target = rig->worker ? DLQ_CLIENT_TARGET_ENDPOINT : DLQ_CLIENT_TARGET_ROUTE;
    dlq_client_result_t result = dlq_client_replay (rig->client, &selection, target, rate, job);
    dlq_client_filter_destroy (&filter);
    if (result != DLQ_CLIENT_OK)
        report_client_error (rig, "REPLAY", result);
    return result == DLQ_CLIENT_OK;
}

/* Poll REPLAY.STATUS until the job is DONE; *job is the last answer. */
static bool
wait_done (const rig_t *rig, dlq_client_job_t *job)
{
    char id [DLQ_CLIENT_ID_SIZE];
    snprintf (id, sizeof id, "%s", job->id);
    int64_t deadline = dlq_time_mono_ms () + DONE_TIMEOUT_MS;
    while (true) {
        dlq_client_result_t result = dlq_client_replay_status (rig->client, id, job);
        if (result != DLQ_CLIENT_OK) {
            report_client_error (rig, "REPLAY.STATUS", result);
            return false;
        }
        if (job->state == DLQ_CLIENT_JOB_DONE)
            return true;
        if (job->state != DLQ_CLIENT_JOB_RUNNING || dlq_time_mono_ms () > deadline) {
            fprintf (stderr, PROGRAM ": job %s is %s after %lld of %lld events (last error: %s)\n", id,
                     dlq_client_job_state_name (job->state), (long long) job->done, (long long) job->total,
                     *job->last_error ? job->last_error : "none");
            return false;
        }
        usleep (POLL_INTERVAL_MS * 1000);
    }
}

/* A DONE job must have replayed exactly the round's events. */
static bool
check_job (const dlq_client_job_t *job, size_t events)
{
    if (job->total == (int64_t) events && job->replayed == (int64_t) events)
        return true;
    fprintf (stderr, PROGRAM ": job %s DONE with total %lld, replayed %lld, skipped %lld, quarantined %lld,"
             " failed %lld; expected %zu replayed (last error: %s)\n", job->id, (long long) job->total,
             (long long) job->replayed, (long long) job->skipped, (long long) job->quarantined,
             (long long) job->failed, events, *job->last_error ? job->last_error : "none");
    return false;
}

/* ------------------------------------------------------------------------ */
/* The worker */

/* Receive the next replayed event within timeout_ms; its job and event
 * ids into job and id. False when none came (said why, except for a
 * timeout when quiet). */
static bool
receive_one (const rig_t *rig, int timeout_ms, bool quiet, char job [DLQ_CLIENT_ID_SIZE],
             char id [DLQ_CLIENT_ID_SIZE])
{
    char *event = NULL;
    dlq_client_result_t result = dlq_replay_receiver_recv (rig->worker, timeout_ms, job, id, &event, NULL);
    free (event);
    if (result == DLQ_CLIENT_OK || (quiet && result == DLQ_CLIENT_ERR_TIMEOUT))
        return result == DLQ_CLIENT_OK;
    const char *detail = result == DLQ_CLIENT_ERR_TIMEOUT ? "no replayed event within the timeout"
                       : result == DLQ_CLIENT_ERR_TRANSPORT ? strerror (errno) : "not a replayed event";
    fprintf (stderr, PROGRAM ": worker: %s: %s\n", dlq_client_result_name (result), detail);
    return false;
}

/* Take every event of set, each once, all from job_id. */
static bool
receive_all (const rig_t *rig, event_set_t *set, const char *job_id)
{
    char job [DLQ_CLIENT_ID_SIZE], id [DLQ_CLIENT_ID_SIZE], why [256];
    for (size_t n = 0; n < set->puts.count; n++) {
        if (!receive_one (rig, EVENT_TIMEOUT_MS, false, job, id)) {
            fprintf (stderr, PROGRAM ": worker: %zu of %zu events received\n", n, set->puts.count);
            return false;
        }
        if (strcmp (job, job_id) != 0) {
            fprintf (stderr, PROGRAM ": worker: event %s came from job %s, not %s\n", id, job, job_id);
            return false;
        }
        if (!event_set_take (set, id, why, sizeof why)) {
            fprintf (stderr, PROGRAM ": worker: %s\n", why);
            return false;
        }
    }
    return true;
}

/* Once the job is DONE, nothing more may come. */
static bool
receive_nothing_more (const rig_t *rig)
{
    char job [DLQ_CLIENT_ID_SIZE], id [DLQ_CLIENT_ID_SIZE];
    if (!receive_one (rig, EXTRA_WAIT_MS, true, job, id))
        return true;
    fprintf (stderr, PROGRAM ": worker: event %s of job %s received after the round's last one\n", id, job);
    return false;
}

/* Make sure the worker is connected before anything is timed: replay one
 * event (created an hour ago, so no round's selection takes it) by id and
 * receive it. */
static bool
warm_up_worker (const rig_t *rig)
{
    char id [DLQ_CLIENT_ID_SIZE], created [DLQ_TIME_ISO_LEN + 1], *body = NULL;
    dlq_client_uuid_v7 (id);
    dlq_time_format_iso (dlq_time_now_ms () - WARM_UP_AGE_MS, created);
    size_t len = make_body (&body, id, created, 0);
    dlq_client_result_t result = dlq_client_put (rig->client, body, len, NULL, NULL);
    free (body);
    if (result != DLQ_CLIENT_OK) {
        report_client_error (rig, "warm-up PUT", result);
        return false;
    }
    const char *ids [] = { id };
    dlq_client_selection_t selection = { .ids = ids, .id_count = 1 };
    dlq_client_job_t job;
    result = dlq_client_replay (rig->client, &selection, DLQ_CLIENT_TARGET_ENDPOINT, 0, &job);
    if (result != DLQ_CLIENT_OK) {
        report_client_error (rig, "warm-up REPLAY", result);
        return false;
    }
    char got_job [DLQ_CLIENT_ID_SIZE], got_id [DLQ_CLIENT_ID_SIZE];
    return receive_one (rig, EVENT_TIMEOUT_MS, false, got_job, got_id) && wait_done (rig, &job)
        && receive_nothing_more (rig);
}

/* ------------------------------------------------------------------------ */
/* Rounds */

/* The replay of set (ingested since round_start, wall clock ms), timed
 * from the REPLAY reply: to the worker's last event (endpoint) or to the
 * job seen DONE (noop). */
static bool
replay (const rig_t *rig, const options_t *o, event_set_t *set, int64_t round_start, round_t *figures)
{
    dlq_client_job_t job;
    if (!start_job (rig, round_start, o->rate, &job))
        return false;
    int64_t began = dlq_time_mono_ns ();
    if (rig->worker && !receive_all (rig, set, job.id))
        return false;
    int64_t received = dlq_time_mono_ns ();
    if (!wait_done (rig, &job) || !check_job (&job, set->puts.count))
        return false;
    int64_t done = dlq_time_mono_ns ();
    if (rig->worker && !receive_nothing_more (rig))
        return false;
    double seconds = (double) ((rig->worker ? received : done) - began) / 1e9;
    figures->replay_per_s = (double) set->puts.count / seconds;
    figures->done_ms = (double) (done - began) / 1e6;
    return true;
}

static bool
run_round (const rig_t *rig, const options_t *o, round_t *figures)
{
    event_set_t *set = event_set_new (o->events);
    int64_t round_start = dlq_time_now_ms ();
    bool ok = ingest (rig, set, &figures->ingest_per_s) && replay (rig, o, set, round_start, figures);
    event_set_destroy (&set);
    return ok;
}

/* ------------------------------------------------------------------------ */
/* Reporting */

static void
print_header (const options_t *o, const char *dlqd, const char *dir)
{
    printf (PROGRAM ": dlqd started from %s, embedded store in %s\n", dlqd, dir);
    printf ("  %zu events per round (~140-byte FailedEvents of stream \"" STREAM "\", UUIDv7 ids), %zu rounds\n",
            o->events, o->repeat);
    printf ("  ingest: pipelined PUTs, 1 client, %d in flight, first send to last ack\n", PUT_WINDOW);
    if (o->route == ROUTE_ENDPOINT)
        printf ("  replay: REPLAY {\"all\":true,\"createdAfter\":<round start>,\"target\":\"endpoint\",\"rate\":%d},"
                " 1 worker (libdlq replay receiver);\n"
                "          REPLAY reply to the worker's last event\n", o->rate);
    else
        printf ("  replay: REPLAY {\"all\":true,\"createdAfter\":<round start>,\"target\":\"route\",\"rate\":%d},"
                " replay_route a noop sink in no chain;\n"
                "          REPLAY reply to the job seen DONE (polled every %d ms)\n", o->rate, POLL_INTERVAL_MS);
    printf ("\n%-8s %14s %14s %14s %15s\n", "round", "ingest ev/s", "replay ev/s", "replay/ingest", "DONE after ms");
}

static void
print_row (const char *label, double ingest_per_s, double replay_per_s, double ratio, double done_ms)
{
    printf ("%-8s %14.0f %14.0f %13.2fx %15.1f\n", label, ingest_per_s, replay_per_s, ratio, done_ms);
    fflush (stdout);
}

static void
print_medians (const round_t *rounds, size_t n)
{
    double ingest [MAX_REPEAT], replayed [MAX_REPEAT], ratio [MAX_REPEAT], done [MAX_REPEAT];
    for (size_t i = 0; i < n; i++) {
        ingest [i] = rounds [i].ingest_per_s;
        replayed [i] = rounds [i].replay_per_s;
        ratio [i] = rounds [i].replay_per_s / rounds [i].ingest_per_s;
        done [i] = rounds [i].done_ms;
    }
    print_row ("median", bench_median (ingest, n), bench_median (replayed, n), bench_median (ratio, n),
               bench_median (done, n));
    printf ("(replay/ingest: the median of the rounds' own ratios)\n");
}

/* ------------------------------------------------------------------------ */
/* The run */

static bool
run_rounds (const rig_t *rig, const options_t *o)
{
    round_t rounds [MAX_REPEAT];
    for (size_t r = 0; r < o->repeat; r++) {
        if (!run_round (rig, o, &rounds [r]))
            return false;
        char label [24];
        snprintf (label, sizeof label, "%zu", r + 1);
        print_row (label, rounds [r].ingest_per_s, rounds [r].replay_per_s,
                   rounds [r].replay_per_s / rounds [r].ingest_per_s, rounds [r].done_ms);
    }
    print_medians (rounds, o->repeat);
    return true;
}

/* The config past bench_daemon's gateway section: the stream and where
 * its replays go. */
static void
format_config (const options_t *o, int replay_port, char *out, size_t len)
{
    if (o->route == ROUTE_ENDPOINT)
        snprintf (out, len, "replay: { listen = \"tcp://127.0.0.1:%d\"; };\n"
                  "streams = ( { name = \"" STREAM "\"; replay_route = \"endpoint\"; } );", replay_port);
    else
        snprintf (out, len, "sinks: { discard: { type = \"noop\"; }; };\n"
                  "streams = ( { name = \"" STREAM "\"; replay_route = \"discard\"; } );");
}

/* The worker's receiver on the replay endpoint, connected and warmed up. */
static dlq_replay_receiver_t *
connect_worker (rig_t *rig, int replay_port)
{
    char replay_endpoint [64];
    snprintf (replay_endpoint, sizeof replay_endpoint, "tcp://127.0.0.1:%d", replay_port);
    rig->worker = dlq_replay_receiver_new (replay_endpoint);
    if (!rig->worker)
        fprintf (stderr, PROGRAM ": cannot connect a worker to %s: %s\n", replay_endpoint, strerror (errno));
    else
    if (!warm_up_worker (rig))
        dlq_replay_receiver_destroy (&rig->worker);
    return rig->worker;
}

/* With the gateway up: connect the client (and the worker), measure. */
static bool
measure (const options_t *o, void *ctx, const bench_daemon_t *daemon, int replay_port)
{
    rig_t rig = { .zmq_ctx = ctx, .endpoint = daemon->endpoint,
                  .client = dlq_client_new_shared (daemon->endpoint, ctx) };
    if (!rig.client) {
        fprintf (stderr, PROGRAM ": cannot connect to %s: %s\n", daemon->endpoint, strerror (errno));
        return false;
    }
    dlq_client_set_timeout (rig.client, REPLY_TIMEOUT_MS);
    bool ok = (o->route == ROUTE_NOOP || connect_worker (&rig, replay_port)) && run_rounds (&rig, o);
    dlq_replay_receiver_destroy (&rig.worker);
    dlq_client_destroy (&rig.client);
    return ok;
}

/* Start our own dlqd in a temporary directory, measure, stop it. */
static bool
measure_own (const options_t *o, void *ctx)
{
    char dir [4096], err [4096], config [512];
    if (!bench_daemon_temp_dir (dir, sizeof dir, "dlqd-bench-replay", PROGRAM))
        return false;
    int replay_port = bench_free_port ();
    format_config (o, replay_port, config, sizeof config);
    bench_daemon_t daemon = { 0 };
    memset (&daemon, 0, sizeof daemon);
    bool ok = replay_port > 0 && bench_daemon_start (&daemon, ctx, o->dlqd, dir, config, READY_TIMEOUT_MS,
                                                     err, sizeof err);
    if (!ok)
        fprintf (stderr, PROGRAM ": %s\n", replay_port > 0 ? err : "cannot find a free loopback port");
    else {
        print_header (o, o->dlqd, dir);
        ok = measure (o, ctx, &daemon, replay_port);
    }
    return bench_daemon_finish (&daemon, dir, o->keep, STOP_TIMEOUT_MS, PROGRAM) && ok;
}

int
main (int argc, char **argv)
{
    options_t o;
    int status = parse_options (argc, argv, &o);
    if (status >= 0)
        return status;
    void *ctx = zmq_ctx_new ();
    bool ok = measure_own (&o, ctx);
    zmq_ctx_term (ctx);
    return ok ? 0 : 1;
}
