/*  dlqd_chaos — a chaos run against a real dlqd: pipelined PUTs from
 *  several clients while dlqd is SIGKILLed at random moments (and started
 *  again on the same data_dir), PostgreSQL and RabbitMQ are stopped and
 *  started again, the mock Kafka cluster's brokers go down and up, and
 *  the data_dir's filesystem (a small tmpfs) is filled up and freed; then
 *  every sink is let drain and everything is checked: every acknowledged
 *  event GET-identical, in postgres exactly once, in RabbitMQ, Kafka and
 *  the jsonl file at least once. Prints a table; exits 1 when a check
 *  fails (chaos_report.h says which), 77 when it cannot run here (no
 *  root for the tmpfs), 64 on a usage error.
 *
 *  Self-contained: the servers are throwaway ones started with the
 *  project's scripts (pg-server.sh, rabbitmq-server.sh) in a directory of
 *  the run, Kafka is librdkafka's mock cluster run by this process (so it
 *  outlives every dlqd), everything on loopback.
 *
 *  Order of a run: servers and the mock cluster, the exchange and queue,
 *  the tmpfs, dlqd (PING), then the fault phase (the load on its client
 *  threads, each kind of outage on a thread of its own, the kills on this
 *  one), then the drain (STATS), the checks (chaos_verify), SIGTERM, the
 *  table, and the clean-up (also after a failure or an interrupt).
 */
#include "chaos_amqp.h"
#include "chaos_daemon.h"
#include "chaos_disk.h"
#include "chaos_events.h"
#include "chaos_gateway.h"
#include "chaos_kafka.h"
#include "chaos_killer.h"
#include "chaos_load.h"
#include "chaos_outage.h"
#include "chaos_plan.h"
#include "chaos_proc.h"
#include "chaos_report.h"
#include "chaos_server.h"
#include "chaos_tally.h"
#include "chaos_verify.h"
#include "dlq_time.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ftw.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zmq.h>

#define EXIT_FAILED         1
#define EXIT_USAGE          64
#define EXIT_SKIPPED        77
#define EXIT_INTERRUPTED    130

#define EVENTS_PER_SECOND   300         /* default --events: per second of --seconds */
#define KAFKA_BROKERS       3
#define KAFKA_PARTITIONS    3           /* per topic, at least */
#define KAFKA_RECORD_EXTRA  512         /* a record's key, headers and framing, beyond its value */
#define READY_MS            30000
#define RESOLVE_MS          60000
#define REPLY_TIMEOUT_MS    10000
#define STOP_MS             30000
#define DRAIN_POLL_MS       500
#define READ_TIMEOUT_MS     60000
#define JSONL_KEEP          5
/* Ports below Linux's ephemeral range (32768 up): no outgoing connection
 * (a client reconnecting to a dead dlqd, a sink to a stopped server) is
 * ever given one, so none is taken, nor connected to itself, while its
 * server is down. From the seed, so that runs side by side differ. */
#define PG_PORT_HINT        22000       /* 22000-23999 */
#define AMQP_PORT_HINT      24000       /* 24000-27999 in steps of 4 (a node takes 4 ports) */
#define DLQD_PORT_FIRST     28000       /* 28000-31999 */
#define PORT_SPREAD         2000
#define DLQD_PORT_SPREAD    4000
#define EXCHANGE            "flowwarden.dlq"
#define QUEUE               "dlqd-chaos"
#define PG_TABLE            "dlq_events"
#define PATH_LEN            4096
#define WORK_LEN            1024        /* the run's directory: PATH_LEN with room for its files */

/* ------------------------------------------------------------------ */
/*  Options                                                             */
/* ------------------------------------------------------------------ */

typedef struct {
    long long   kills, clients, window, seconds, events, seed, tmpfs_mb, drain_seconds;
    long long   outages [CHAOS_FAULT_KINDS];
    bool        seed_given, keep;
    const char *dlqd, *jsonl_plugin, *scripts, *work_dir;
} options_t;

typedef struct {
    const char *name;
    long long   min, max;
    size_t      offset;             /* of the long long in options_t */
    const char *help;
} int_option_t;

typedef struct {
    const char *name;
    size_t      offset;             /* of the const char * in options_t */
    const char *help;
} path_option_t;

static const int_option_t int_options [] = {
    { "--kills",         0, 100000, offsetof (options_t, kills),         "SIGKILLs of dlqd (default 100)" },
    { "--clients",       1, 64,     offsetof (options_t, clients),       "DEALER clients pipelining PUTs (default 4)" },
    { "--window",        1, 10000,  offsetof (options_t, window),        "PUTs in flight per client, at most (default 64)" },
    { "--seconds",       5, 86400,  offsetof (options_t, seconds),       "length of the fault phase and the load (default 180)" },
    { "--events",        1, 100000000, offsetof (options_t, events),     "events to send, evenly over the seconds (default 300 per second)" },
    { "--seed",          0, INT64_MAX, offsetof (options_t, seed),       "seed of the schedule and the events (default: from the clock)" },
    { "--pg-outages",    0, 1000,   offsetof (options_t, outages) + CHAOS_FAULT_PG * sizeof (long long),
                                                                         "stops and restarts of PostgreSQL (default 3)" },
    { "--amqp-outages",  0, 1000,   offsetof (options_t, outages) + CHAOS_FAULT_AMQP * sizeof (long long),
                                                                         "stops and restarts of RabbitMQ (default 3)" },
    { "--kafka-outages", 0, 1000,   offsetof (options_t, outages) + CHAOS_FAULT_KAFKA * sizeof (long long),
                                                                         "every Kafka broker down and up again (default 2)" },
    { "--disk-full",     0, 1000,   offsetof (options_t, outages) + CHAOS_FAULT_DISK * sizeof (long long),
                                                                         "fillings of the data_dir's filesystem (default 3)" },
    { "--tmpfs-mb",      16, 65536, offsetof (options_t, tmpfs_mb),      "size of the data_dir's tmpfs (default 256)" },
    { "--drain-seconds", 1, 3600,   offsetof (options_t, drain_seconds), "how long the sinks may take to drain at the end (default 180)" },
};

static const path_option_t path_options [] = {
    { "--dlqd",          offsetof (options_t, dlqd),         "the dlqd binary (default: this build's)" },
    { "--jsonl-plugin",  offsetof (options_t, jsonl_plugin), "libdlq_sink_jsonl.so (default: this build's)" },
    { "--scripts",       offsetof (options_t, scripts),      "directory of pg-server.sh and rabbitmq-server.sh" },
    { "--work-dir",      offsetof (options_t, work_dir),     "where the run's directory is made (default $TMPDIR or /tmp)" },
};

#define COUNT_OF(a) (sizeof (a) / sizeof (a) [0])

static int
usage (FILE *out, int code)
{
    fprintf (out, "usage: dlqd_chaos [options]\n"
                  "A chaos run against dlqd (see the README, \"Chaos testing\"). Options:\n");
    for (size_t i = 0; i < COUNT_OF (int_options); i++)
        fprintf (out, "  %-16s N     %s\n", int_options [i].name, int_options [i].help);
    for (size_t i = 0; i < COUNT_OF (path_options); i++)
        fprintf (out, "  %-16s PATH  %s\n", path_options [i].name, path_options [i].help);
    fprintf (out, "  %-22s %s\n", "--keep", "keep the run's directory (kept anyway when a check fails)");
    return code;
}

static bool
parse_int_option (options_t *o, const int_option_t *opt, const char *text)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll (text, &end, 10);
    if (errno || end == text || *end || v < opt->min || v > opt->max) {
        fprintf (stderr, "dlqd_chaos: %s: expected an integer from %lld to %lld, got '%s'\n", opt->name,
                 opt->min, opt->max, text);
        return false;
    }
    *(long long *) ((char *) o + opt->offset) = v;
    if (strcmp (opt->name, "--seed") == 0)
        o->seed_given = true;
    return true;
}

/* 0 when the options are good, else the exit code. */
static int
parse_options (options_t *o, int argc, char **argv)
{
    *o = (options_t) {
        .kills = 100, .clients = 4, .window = 64, .seconds = 180, .tmpfs_mb = 256, .drain_seconds = 180,
        .outages = { [CHAOS_FAULT_PG] = 3, [CHAOS_FAULT_AMQP] = 3, [CHAOS_FAULT_KAFKA] = 2,
                     [CHAOS_FAULT_DISK] = 3 },
        .dlqd = DLQD_BINARY, .jsonl_plugin = DLQD_CHAOS_JSONL, .scripts = DLQD_CHAOS_SCRIPTS,
        .work_dir = getenv ("TMPDIR") && *getenv ("TMPDIR") ? getenv ("TMPDIR") : "/tmp",
    };
    for (int i = 1; i < argc; i++) {
        const char *arg = argv [i];
        if (strcmp (arg, "--help") == 0 || strcmp (arg, "-h") == 0) {
            usage (stdout, EXIT_SUCCESS);
            return -1;
        }
        if (strcmp (arg, "--keep") == 0) {
            o->keep = true;
            continue;
        }
        bool known = false;
        for (size_t k = 0; k < COUNT_OF (int_options) && !known; k++)
            if (strcmp (arg, int_options [k].name) == 0) {
                known = true;
                if (i + 1 >= argc || !parse_int_option (o, &int_options [k], argv [++i]))
                    return usage (stderr, EXIT_USAGE);
            }
        for (size_t k = 0; k < COUNT_OF (path_options) && !known; k++)
            if (strcmp (arg, path_options [k].name) == 0) {
                known = true;
                if (i + 1 >= argc)
                    return usage (stderr, EXIT_USAGE);
                *(const char **) ((char *) o + path_options [k].offset) = argv [++i];
            }
        if (!known) {
            fprintf (stderr, "dlqd_chaos: unknown option '%s'\n", arg);
            return usage (stderr, EXIT_USAGE);
        }
    }
    if (!o->events)
        o->events = EVENTS_PER_SECOND * o->seconds;
    if (!o->seed_given)
        o->seed = (long long) (((uint64_t) dlq_time_now_ms () * 1000003u ^ (uint64_t) getpid ()) & INT64_MAX);
    return 0;
}

/* ------------------------------------------------------------------ */
/*  The run                                                             */
/* ------------------------------------------------------------------ */

typedef struct {
    options_t       opt;
    char            work [WORK_LEN];
    char            data_dir [PATH_LEN];
    char            config_path [PATH_LEN];
    char            log_path [PATH_LEN];
    char            scripts_log [PATH_LEN];
    char            jsonl_path [PATH_LEN];
    char            ballast [PATH_LEN + 16];
    char            endpoint [64];
    void           *zmq;
    chaos_kafka_t  *kafka;
    chaos_server_t  pg;
    chaos_server_t  amqp;
    int             kafka_partitions;       /* of each topic */
    bool            tmpfs;                  /* the data_dir is a tmpfs of the run's (root) */
    bool            mounted;
    chaos_daemon_t *daemon;
    chaos_events_t  events;
    chaos_plan_t    plan;
    chaos_report_t  report;
    chaos_tally_t   get_tally;
    chaos_tally_t   sink_tallies [CHAOS_REPORT_SINKS];
    atomic_bool     disk_full;
} chaos_run_t;

static atomic_bool interrupted;

static void
on_signal (int sig)
{
    (void) sig;
    atomic_store (&interrupted, true);
}

static const char *const sink_names [CHAOS_REPORT_SINKS] = { "pg", "rabbit", "kafka", "jsonl" };

static void
say (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));

/* A progress line on stdout ("== ..."). */
static void
say (const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    printf ("== ");
    vprintf (fmt, ap);
    printf ("\n");
    fflush (stdout);
    va_end (ap);
}

/* A free port for dlqd, below the ephemeral range (see PG_PORT_HINT),
 * tried from one the seed picks; -1 when none is free. */
static int
free_port (uint64_t seed)
{
    for (int i = 0; i < DLQD_PORT_SPREAD; i++) {
        int port = DLQD_PORT_FIRST + (int) ((seed + (uint64_t) i) % DLQD_PORT_SPREAD);
        int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            return -1;
        struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons ((uint16_t) port) };
        addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
        bool free = bind (fd, (struct sockaddr *) &addr, sizeof addr) == 0;
        close (fd);
        if (free)
            return port;
    }
    return -1;
}

static bool
make_dirs (chaos_run_t *run, char *err, size_t err_len)
{
    snprintf (run->work, sizeof run->work, "%s/dlqd-chaos.XXXXXX", run->opt.work_dir);
    if (!mkdtemp (run->work)) {
        snprintf (err, err_len, "cannot make a directory in %.900s: %s", run->opt.work_dir, strerror (errno));
        run->work [0] = '\0';
        return false;
    }
    if (chmod (run->work, 0755) != 0) {
        snprintf (err, err_len, "cannot open %.900s to the servers' users: %s", run->work, strerror (errno));
        return false;
    }
    snprintf (run->data_dir, sizeof run->data_dir, "%s/data", run->work);
    snprintf (run->config_path, sizeof run->config_path, "%s/dlqd.conf", run->work);
    snprintf (run->log_path, sizeof run->log_path, "%s/dlqd.log", run->work);
    snprintf (run->scripts_log, sizeof run->scripts_log, "%s/scripts.log", run->work);
    snprintf (run->jsonl_path, sizeof run->jsonl_path, "%s/jsonl/events.jsonl", run->work);
    snprintf (run->ballast, sizeof run->ballast, "%s/ballast", run->data_dir);
    char jsonl_dir [PATH_LEN + 8];
    snprintf (jsonl_dir, sizeof jsonl_dir, "%s/jsonl", run->work);
    if (mkdir (run->data_dir, 0755) != 0 || mkdir (jsonl_dir, 0755) != 0) {
        snprintf (err, err_len, "cannot make directories in %.900s: %s", run->work, strerror (errno));
        return false;
    }
    return true;
}

/* The sinks' retry: forever, quickly, so an outage's backlog goes as soon
 * as the backend is back and the end's drain does not wait for long
 * backoffs. */
#define SINK_COMMON "timeout_ms = 10000; retry = { max_attempts = 0; backoff_ms = 50; backoff_max_ms = 1000; };"

static bool
write_config (chaos_run_t *run, char *err, size_t err_len)
{
    int port = free_port ((uint64_t) run->opt.seed);
    if (port < 0) {
        snprintf (err, err_len, "no free loopback port from %d to %d", DLQD_PORT_FIRST,
                  DLQD_PORT_FIRST + DLQD_PORT_SPREAD - 1);
        return false;
    }
    snprintf (run->endpoint, sizeof run->endpoint, "tcp://127.0.0.1:%d", port);
    FILE *f = fopen (run->config_path, "w");
    if (!f) {
        snprintf (err, err_len, "cannot write %.900s: %s", run->config_path, strerror (errno));
        return false;
    }
    fprintf (f, "# written by dlqd_chaos (seed %lld)\n"
                "gateway: { listen = [ \"%s\" ]; data_dir = \"%s\"; };\n"
                "primary = \"embedded\";\n"
                "defaults: { chain = [ \"pg\", \"rabbit\", \"kafka\", \"jsonl\" ]; };\n"
                "sinks: {\n"
                "  pg:     { type = \"postgres\"; conninfo = \"%s\"; table = \"" PG_TABLE "\";\n"
                "            connect_timeout_ms = 2000; " SINK_COMMON " };\n"
                "  rabbit: { type = \"amqp\"; url = \"%s\"; exchange = \"" EXCHANGE "\";\n"
                "            connect_timeout_ms = 2000; " SINK_COMMON " };\n"
                "  kafka:  { type = \"kafka\"; bootstrap_servers = \"%s\";\n"
                "            rdkafka = [ \"reconnect.backoff.max.ms=1000\" ]; " SINK_COMMON " };\n"
                "  jsonl:  { type = \"plugin\"; path = \"%s\"; file = \"%s\"; max_bytes = 1073741824;\n"
                "            keep = %d; " SINK_COMMON " };\n"
                "};\n",
             run->opt.seed, run->endpoint, run->data_dir, run->pg.address, run->amqp.address,
             chaos_kafka_bootstraps (run->kafka), run->opt.jsonl_plugin, run->jsonl_path, JSONL_KEEP);
    chmod (run->config_path, 0600);     /* it holds the sinks' passwords (docs/security.md) */
    return fclose (f) == 0;
}

/* pg-server.sh start, on a thread while RabbitMQ starts. */
typedef struct {
    chaos_run_t *run;
    bool         ok;
    char         err [1024];
} pg_start_t;

static void *
start_pg (void *arg)
{
    pg_start_t *p = arg;
    char script [PATH_LEN + 32], dir [PATH_LEN + 8];
    snprintf (script, sizeof script, "%s/pg-server.sh", p->run->opt.scripts);
    snprintf (dir, sizeof dir, "%s/pg", p->run->work);
    int hint = PG_PORT_HINT + (int) ((uint64_t) p->run->opt.seed % PORT_SPREAD);
    p->ok = chaos_server_start (&p->run->pg, script, dir, hint, p->run->scripts_log, p->err, sizeof p->err);
    return NULL;
}

/* Partitions per topic enough for the mock to keep every record: each
 * topic's share of the events' bytes, twice over (redeliveries), in
 * CHAOS_KAFKA_PARTITION_BYTES each. */
static int
kafka_partitions (const chaos_events_t *events)
{
    double bytes = 0;
    for (size_t i = 0; i < events->count; i++)
        bytes += (double) (events->items [i].body_len + KAFKA_RECORD_EXTRA);
    double per_topic = 2 * bytes / CHAOS_EVENTS_STREAMS;
    int partitions = (int) (per_topic / CHAOS_KAFKA_PARTITION_BYTES) + 1;
    return partitions < KAFKA_PARTITIONS ? KAFKA_PARTITIONS : partitions;
}

static bool
start_servers (chaos_run_t *run, char *err, size_t err_len)
{
    say ("starting PostgreSQL and RabbitMQ (%s), the Kafka mock cluster", run->opt.scripts);
    run->kafka = chaos_kafka_new (KAFKA_BROKERS, err, err_len);
    if (!run->kafka)
        return false;
    run->kafka_partitions = kafka_partitions (&run->events);
    for (int s = 0; s < CHAOS_EVENTS_STREAMS; s++) {
        char topic [128];
        snprintf (topic, sizeof topic, "dlq.%s", chaos_events_stream_names [s]);
        if (!chaos_kafka_create_topic (run->kafka, topic, run->kafka_partitions, err, err_len))
            return false;
    }
    pg_start_t pg = { .run = run };
    pthread_t thread;
    bool threaded = pthread_create (&thread, NULL, start_pg, &pg) == 0;
    if (!threaded)
        start_pg (&pg);
    char script [PATH_LEN + 32], dir [PATH_LEN + 16];
    snprintf (script, sizeof script, "%s/rabbitmq-server.sh", run->opt.scripts);
    snprintf (dir, sizeof dir, "%s/rabbitmq", run->work);
    int hint = AMQP_PORT_HINT + 4 * (int) ((uint64_t) run->opt.seed / PORT_SPREAD % (PORT_SPREAD / 4));
    bool amqp = chaos_server_start (&run->amqp, script, dir, hint, run->scripts_log, err, err_len);
    if (threaded)
        pthread_join (thread, NULL);
    if (!pg.ok) {
        snprintf (err, err_len, "%s", pg.err);
        return false;
    }
    if (!amqp)
        return false;
    say ("postgres: %s; rabbitmq: %s; kafka: %s (%d partitions a topic)", run->pg.address, run->amqp.address,
         chaos_kafka_bootstraps (run->kafka), run->kafka_partitions);
    return chaos_amqp_prepare (run->amqp.address, EXCHANGE, QUEUE, err, err_len);
}

static bool
start_dlqd (chaos_run_t *run, char *err, size_t err_len)
{
    if (run->tmpfs) {
        if (!chaos_disk_mount (run->data_dir, (size_t) run->opt.tmpfs_mb, err, err_len))
            return false;
        run->mounted = true;
    }
    if (!write_config (run, err, err_len))
        return false;
    run->daemon = chaos_daemon_new (run->opt.dlqd, run->config_path, run->log_path);
    if (!chaos_daemon_start (run->daemon, err, err_len))
        return false;
    void *sock = chaos_gateway_connect (run->zmq, run->endpoint);
    bool ok = false;
    char *reply = NULL;
    size_t len = 0;
    bool answered = sock && chaos_gateway_request (sock, "PING", "", READY_MS, &ok, &reply, &len) && ok;
    free (reply);
    if (sock)
        zmq_close (sock);
    if (!answered)
        snprintf (err, err_len, "dlqd did not answer PING on %s within %d ms (see %.800s)", run->endpoint,
                  READY_MS, run->log_path);
    else
        say ("dlqd answers on %s (data_dir %s, log %s)", run->endpoint, run->data_dir, run->log_path);
    return answered;
}

/* The outages' actions. */
static bool
pg_down (void *arg, char *err, size_t len)
{
    return chaos_server_pause (&((chaos_run_t *) arg)->pg, err, len);
}

static bool
pg_up (void *arg, char *err, size_t len)
{
    return chaos_server_resume (&((chaos_run_t *) arg)->pg, err, len);
}

static bool
amqp_down (void *arg, char *err, size_t len)
{
    return chaos_server_pause (&((chaos_run_t *) arg)->amqp, err, len);
}

static bool
amqp_up (void *arg, char *err, size_t len)
{
    return chaos_server_resume (&((chaos_run_t *) arg)->amqp, err, len);
}

static bool
kafka_down (void *arg, char *err, size_t len)
{
    return chaos_kafka_down (((chaos_run_t *) arg)->kafka, err, len);
}

static bool
kafka_up (void *arg, char *err, size_t len)
{
    return chaos_kafka_up (((chaos_run_t *) arg)->kafka, err, len);
}

static bool
disk_down (void *arg, char *err, size_t len)
{
    size_t bytes = 0;
    return chaos_disk_fill (((chaos_run_t *) arg)->ballast, &bytes, err, len);
}

static bool
disk_up (void *arg, char *err, size_t len)
{
    return chaos_disk_free (((chaos_run_t *) arg)->ballast, err, len);
}

static chaos_outage_fn *const downs [CHAOS_FAULT_KINDS] = { pg_down, amqp_down, kafka_down, disk_down };
static chaos_outage_fn *const ups [CHAOS_FAULT_KINDS] = { pg_up, amqp_up, kafka_up, disk_up };

/* The fault phase: load, outages and kills; then the load's last replies. */
static void
fault_phase (chaos_run_t *run)
{
    chaos_report_t *r = &run->report;
    int64_t phase_ms = run->opt.seconds * 1000;
    chaos_load_options_t load_options = {
        .zmq_ctx = run->zmq, .endpoint = run->endpoint, .events = &run->events,
        .clients = (int) run->opt.clients, .window = (int) run->opt.window, .load_ms = phase_ms,
        .resolve_ms = RESOLVE_MS, .reply_timeout_ms = REPLY_TIMEOUT_MS,
    };
    chaos_load_t *load = chaos_load_start (&load_options, r->run_error, sizeof r->run_error);
    if (!load)
        return;
    int64_t phase_start = dlq_time_mono_ms ();
    say ("fault phase: %lld s, %zu kills, %lld events from %lld clients", run->opt.seconds, run->plan.kills,
         run->opt.events, run->opt.clients);
    chaos_outage_t *outages [CHAOS_FAULT_KINDS] = { NULL };
    for (int kind = 0; kind < CHAOS_FAULT_KINDS; kind++) {
        if (!run->plan.outage_count [kind])
            continue;
        chaos_outage_options_t o = {
            .kind = (chaos_fault_t) kind, .plan = run->plan.outages [kind],
            .count = run->plan.outage_count [kind], .phase_start_ms = phase_start,
            .down = downs [kind], .up = ups [kind], .arg = run,
            .live = kind == CHAOS_FAULT_DISK ? chaos_load_live (load) : NULL,
            .active = kind == CHAOS_FAULT_DISK ? &run->disk_full : NULL, .stop = &interrupted,
        };
        outages [kind] = chaos_outage_start (&o);
        if (!outages [kind])
            snprintf (r->run_error, sizeof r->run_error, "cannot start the %s outages' thread",
                      chaos_plan_fault_name ((chaos_fault_t) kind));
    }
    chaos_killer_run (run->daemon, &run->plan, phase_start, phase_ms, chaos_load_live (load), &run->disk_full,
                      &interrupted, &r->killer);
    if (r->killer.failed || atomic_load (&interrupted))
        chaos_load_stop (load);
    for (int kind = 0; kind < CHAOS_FAULT_KINDS; kind++)
        if (outages [kind])
            chaos_outage_join (&outages [kind], &r->outages [kind]);
    say ("fault phase over: %zu kills; waiting for the last replies", r->killer.kills);
    chaos_load_join (&load, &r->load);
}

/* Let every sink drain, then run the checks. */
static void
check_phase (chaos_run_t *run)
{
    chaos_report_t *r = &run->report;
    char err [512];
    int status = 0;
    if (chaos_daemon_exited (run->daemon, &status) || !chaos_daemon_running (run->daemon)) {
        r->killer.exits++;
        if (!r->killer.first_exit [0])
            chaos_proc_describe (status, r->killer.first_exit, sizeof r->killer.first_exit);
        if (!chaos_daemon_start (run->daemon, err, sizeof err)) {
            snprintf (r->run_error, sizeof r->run_error, "%s", err);
            return;
        }
    }
    void *sock = chaos_gateway_connect (run->zmq, run->endpoint);
    if (!sock) {
        snprintf (r->run_error, sizeof r->run_error, "cannot connect to %s", run->endpoint);
        return;
    }
    say ("draining: STATS until every sink's backlog and retrying are 0 (%lld s at most)", run->opt.drain_seconds);
    int64_t start = dlq_time_mono_ms ();
    r->drained = chaos_gateway_drain (sock, sink_names, CHAOS_REPORT_SINKS, start + run->opt.drain_seconds * 1000,
                                      DRAIN_POLL_MS, r->sink_stats, r->drain_error, sizeof r->drain_error);
    r->drain_s = (double) (dlq_time_mono_ms () - start) / 1e3;
    zmq_close (sock);
    say ("checking: GET of every event sent, then postgres, rabbitmq, kafka and the jsonl file");
    chaos_tally_init (&run->get_tally, "GET", &run->events);
    static const char *const tally_names [CHAOS_REPORT_SINKS] = { "postgres", "amqp", "kafka", "jsonl" };
    for (int i = 0; i < CHAOS_REPORT_SINKS; i++) {
        chaos_tally_init (&run->sink_tallies [i], tally_names [i], &run->events);
        r->sink_tallies [i] = &run->sink_tallies [i];
    }
    r->get_tally = &run->get_tally;
    chaos_verify_get (run->zmq, run->endpoint, &run->events, &run->get_tally, &r->get, err, sizeof err);
    char topics [CHAOS_EVENTS_STREAMS][128];
    chaos_verify_sinks_t where = {
        .pg_conninfo = run->pg.address, .pg_table = PG_TABLE, .amqp_url = run->amqp.address,
        .amqp_queue = QUEUE, .kafka = run->kafka, .kafka_partitions = run->kafka_partitions,
        .jsonl_path = run->jsonl_path, .jsonl_keep = JSONL_KEEP, .timeout_ms = READ_TIMEOUT_MS,
    };
    for (int s = 0; s < CHAOS_EVENTS_STREAMS; s++) {
        snprintf (topics [s], sizeof topics [s], "dlq.%s", chaos_events_stream_names [s]);
        where.kafka_topics [s] = topics [s];
    }
    chaos_verify_sinks (&where, &run->sink_tallies [0], &r->pg_duplicate_rows, &run->sink_tallies [1],
                        &run->sink_tallies [2], &run->sink_tallies [3]);
    r->verified = true;
}

static void
stop_dlqd (chaos_run_t *run)
{
    chaos_report_t *r = &run->report;
    int status = 0;
    if (!run->daemon || !chaos_daemon_running (run->daemon)) {
        snprintf (r->stop_error, sizeof r->stop_error, "dlqd was not running at the end");
        return;
    }
    bool exited = chaos_daemon_stop (run->daemon, STOP_MS, &status);
    r->stopped_cleanly = exited && WIFEXITED (status) && WEXITSTATUS (status) == 0;
    if (!r->stopped_cleanly) {
        char how [128];
        chaos_proc_describe (status, how, sizeof how);
        snprintf (r->stop_error, sizeof r->stop_error, "SIGTERM: %s%s", exited ? "" : "no exit in time; ", how);
    }
}

static int
remove_entry (const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void) st;
    (void) flag;
    (void) ftw;
    remove (path);
    return 0;
}

/* Stop everything the run started; keep the directory (and a copy of the
 * data_dir) when asked or when the run failed. */
static void
clean_up (chaos_run_t *run, bool keep)
{
    char err [1024];
    chaos_daemon_destroy (&run->daemon);
    if (!chaos_server_stop (&run->pg, err, sizeof err))
        fprintf (stderr, "dlqd_chaos: %s\n", err);
    if (!chaos_server_stop (&run->amqp, err, sizeof err))
        fprintf (stderr, "dlqd_chaos: %s\n", err);
    chaos_kafka_destroy (&run->kafka);
    if (run->mounted) {
        if (keep) {
            char copy [PATH_LEN + 16];
            snprintf (copy, sizeof copy, "%s/data-copy", run->work);
            char *argv [] = { "/bin/cp", "-a", run->data_dir, copy, NULL };
            chaos_proc_run (argv, NULL, 0, NULL);
        }
        if (!chaos_disk_unmount (run->data_dir, err, sizeof err))
            fprintf (stderr, "dlqd_chaos: %s\n", err);
    }
    if (run->work [0] && keep)
        printf ("== kept %s (dlqd.log, dlqd.conf, scripts.log, jsonl/, data-copy/; losses.txt when a check failed)\n", run->work);
    else if (run->work [0])
        nftw (run->work, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int
main (int argc, char **argv)
{
    chaos_run_t *run = calloc (1, sizeof *run);
    int code = parse_options (&run->opt, argc, argv);
    if (code != 0) {
        free (run);
        return code < 0 ? EXIT_SUCCESS : code;
    }
    char err [1024] = "not root";
    run->tmpfs = geteuid () == 0 && chaos_disk_private_mounts (err, sizeof err);
    if (!run->tmpfs && run->opt.outages [CHAOS_FAULT_DISK] > 0) {
        fprintf (stderr, "dlqd_chaos: --disk-full needs a tmpfs of the run's own as the data_dir, which "
                         "needs root (%s): run as root, or with --disk-full 0; skipped\n", err);
        free (run);
        return EXIT_SKIPPED;
    }
    struct sigaction sa = { .sa_handler = on_signal };
    sigaction (SIGINT, &sa, NULL);
    sigaction (SIGTERM, &sa, NULL);
    signal (SIGPIPE, SIG_IGN);

    chaos_report_t *r = &run->report;
    r->seed = (uint64_t) run->opt.seed;
    r->events = (size_t) run->opt.events;
    r->clients = (int) run->opt.clients;
    r->window = (int) run->opt.window;
    r->seconds = (double) run->opt.seconds;
    r->tmpfs_mb = run->tmpfs ? (size_t) run->opt.tmpfs_mb : 0;
    r->planned_kills = (size_t) run->opt.kills;
    size_t outages [CHAOS_FAULT_KINDS];
    for (int kind = 0; kind < CHAOS_FAULT_KINDS; kind++)
        outages [kind] = r->planned_outages [kind] = (size_t) run->opt.outages [kind];
    memcpy (r->sink_names, sink_names, sizeof r->sink_names);
    say ("dlqd_chaos: seed %lld (--seed %lld repeats this schedule and these events)", run->opt.seed, run->opt.seed);

    chaos_events_make (&run->events, (size_t) run->opt.events, (uint64_t) run->opt.seed);
    chaos_plan_make (&run->plan, (uint64_t) run->opt.seed, run->opt.seconds * 1000, (size_t) run->opt.kills, outages);
    run->zmq = zmq_ctx_new ();
    bool ready = make_dirs (run, err, sizeof err) && start_servers (run, err, sizeof err)
                 && start_dlqd (run, err, sizeof err);
    if (!ready)
        snprintf (r->run_error, sizeof r->run_error, "%s", err);
    else
        fault_phase (run);
    if (ready && !atomic_load (&interrupted) && !r->run_error [0])
        check_phase (run);
    stop_dlqd (run);
    bool pass = chaos_report_print (stdout, r);
    fflush (stdout);
    if (!pass && run->work [0]) {
        char losses [WORK_LEN + 16];
        snprintf (losses, sizeof losses, "%s/losses.txt", run->work);
        chaos_report_write_losses (losses, r);
    }
    clean_up (run, run->opt.keep || !pass);

    chaos_tally_free (&run->get_tally);
    for (int i = 0; i < CHAOS_REPORT_SINKS; i++)
        chaos_tally_free (&run->sink_tallies [i]);
    chaos_plan_free (&run->plan);
    chaos_events_free (&run->events);
    zmq_ctx_term (run->zmq);
    bool was_interrupted = atomic_load (&interrupted);
    free (run);
    if (was_interrupted)
        return EXIT_INTERRUPTED;
    return pass ? EXIT_SUCCESS : EXIT_FAILED;
}
