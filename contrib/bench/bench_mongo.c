/*  bench_mongo — the mongo sink vs. raw mongoc bulk inserts; see
 *  bench_mongo.h.
 *
 *  Without a URI the test server (tests/mongo) runs in this process, its
 *  command log off (it would keep every insert). One admin client reads
 *  the server's version, counts each run's documents on a real server
 *  (the count command; on the test server mongo_server_count) and drops
 *  each run's database. (i) is bench_sink_drain with a mongo sink "mongo"
 *  writing to the run's database. (ii) makes a client of its own and the
 *  run's indexes (not timed), then writes the events as the sink's
 *  deliver does, batch by batch, collection by collection.
 */
#include "bench_mongo.h"

#include "dlq_alloc.h"
#include "dlq_buf.h"
#include "dlq_time.h"
#include "mongo_collections.h"
#include "mongo_doc.h"
#include "mongo_server.h"

#include <mongoc/mongoc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SINK_NAME           "mongo"
#define BATCH_EVENTS        1000        /* the sink's batch.max_events by default (config/plugin_config.c) */
#define PREFIX              "_fw_dlq_"  /* the sink's collection_prefix by default */
#define WARM_UP_EVENTS      10000
#define MAX_STREAMS         64
#define ERR_LEN             4096
#define DB_LEN              64          /* MongoDB's limit on a database name */
#define RAW_DONE            "events, every bulk acknowledged"

/* How both write: the sink's defaults (sinks/mongo/mongo_sink.c), or the
 * values the sink's settings give. */
typedef struct {
    size_t    batch;                            /* batch.max_events */
    char      prefix [DLQ_MONGO_COLLECTION_MAX + 1];    /* collection_prefix */
    dlq_buf_t options;                          /* the mongoc entries, "name=value&..." ("" for none) */
} writing_t;

/* A stream of the workload and its collection. */
typedef struct {
    const char *name;
    char        collection [DLQ_MONGO_COLLECTION_MAX + 1];
} stream_t;

/* The comparison (the ctx of its runs). */
typedef struct {
    const bench_mongo_options_t *o;
    const char                  *dir;           /* the drain runs' dlqds' directories go there */
    const bench_events_t        *ev;
    mongo_server_t              *server;        /* the test server, or NULL (--mongo URI) */
    char                        *uri;           /* the sink's: the test server's or the user's */
    char                        *client_uri;    /* with the mongoc entries: the raw writer's and admin's */
    mongoc_client_t             *admin;
    char                         version [64];  /* the server's (buildInfo) */
    char                         prefix [24];   /* dlq_bench_<tag>: every run's database */
    writing_t                    wr;
    dlq_sink_event_t            *events;        /* as deliver gets them */
    uint8_t                     *stream_of;     /* per event: its stream in streams */
    stream_t                     streams [MAX_STREAMS];
    size_t                       stream_count;
} bench_mc_t;

/* Settings of the sink's section the benchmark writes itself, or that
 * would make the sink write elsewhere than the raw writer. */
static const char *const owned_settings [] = { "uri", "database", "collection", NULL };


/* ------------------------------------------------------------------------ */
/* The settings */

/* The mongoc = [ "name=value", ... ] list as URI options. */
static bool
read_mongoc (const config_setting_t *list, dlq_buf_t *options, char *err, size_t err_len)
{
    int count = config_setting_is_aggregate (list) ? config_setting_length (list) : -1;
    for (int i = 0; i < count; i++) {
        const char *item = config_setting_get_string_elem (list, i);
        if (!item || !strchr (item, '=') || item [0] == '=') {
            snprintf (err, err_len, "--mongo-settings: mongoc entry %d is not a \"name=value\" string", i + 1);
            return false;
        }
        dlq_buf_printf (options, "%s%s", i ? "&" : "", item);
    }
    if (count < 0)
        snprintf (err, err_len, "--mongo-settings: mongoc must be a list of \"name=value\" strings");
    return count >= 0;
}

/* What settings (the text of the sink's section) change for writing. */
static bool
apply_settings (const config_t *cfg, void *out, char *err, size_t err_len)
{
    writing_t *wr = out;
    int batch = (int) wr->batch;
    const char *prefix = NULL;
    if (!bench_sink_int_setting (cfg, "mongo", "batch.max_events", 1, 100000, &batch, err, err_len))
        return false;
    wr->batch = (size_t) batch;
    if (config_lookup_string (cfg, "s.collection_prefix", &prefix))
        snprintf (wr->prefix, sizeof wr->prefix, "%s", prefix);
    const config_setting_t *list = config_lookup (cfg, "s.mongoc");
    return !list || read_mongoc (list, &wr->options, err, err_len);
}

static bool
read_settings (const char *settings, writing_t *wr, char *err, size_t err_len)
{
    *wr = (writing_t) { .batch = BATCH_EVENTS, .prefix = PREFIX, .options = DLQ_BUF_INIT };
    return bench_sink_apply_settings ("mongo", settings, owned_settings, apply_settings, wr, err, err_len);
}


/* ------------------------------------------------------------------------ */
/* The server and the workload's streams */

/* uri with options (URI options, "name=value&...") added to its query. */
static char *
with_options (const char *uri, const char *options)
{
    const char *hosts = strstr (uri, "://");
    hosts = hosts ? hosts + 3 : uri;
    const char *join = !*options ? "" : strchr (uri, '?') ? "&" : strchr (hosts, '/') ? "?" : "/?";
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_buf_printf (&out, "%s%s%s", uri, join, options);
    return dlq_buf_steal (&out, NULL);
}

/* A client of uri as the sink makes its own (error API 2), named name;
 * NULL with err. */
static mongoc_client_t *
new_client (const char *uri_text, const char *name, char *err, size_t err_len)
{
    bson_error_t error = { 0 };
    mongoc_uri_t *uri = mongoc_uri_new_with_error (uri_text, &error);
    mongoc_client_t *client = uri && mongoc_uri_set_appname (uri, name)
                            ? mongoc_client_new_from_uri_with_error (uri, &error) : NULL;
    if (client)
        mongoc_client_set_error_api (client, MONGOC_ERROR_API_VERSION_2);
    else
        snprintf (err, err_len, "client of %s: %s", uri_text, error.message);
    mongoc_uri_destroy (uri);
    return client;
}

/* Each event's stream, and each stream's collection. */
static bool
index_streams (bench_mc_t *mc, const bench_events_t *ev, char *err, size_t err_len)
{
    mc->stream_of = dlq_malloc (ev->count ? ev->count : 1);
    for (size_t i = 0; i < ev->count; i++) {
        size_t s = 0;
        while (s < mc->stream_count && strcmp (mc->streams [s].name, ev->rows [i].stream_name) != 0)
            s++;
        if (s == MAX_STREAMS) {
            snprintf (err, err_len, "the workload has more than %d streams", MAX_STREAMS);
            return false;
        }
        stream_t *stream = &mc->streams [s];
        if (s == mc->stream_count) {
            mc->stream_count++;
            stream->name = ev->rows [i].stream_name;
            if (!dlq_mongo_collection (mc->wr.prefix, stream->name, NULL, stream->collection)) {
                snprintf (err, err_len, "%s%s is not a legal collection name", mc->wr.prefix, stream->name);
                return false;
            }
        }
        mc->stream_of [i] = (uint8_t) s;
    }
    return true;
}

/* The server's version (buildInfo), which also says it can be reached;
 * false with err. */
static bool
server_version (bench_mc_t *mc, char *err, size_t err_len)
{
    bson_t *command = BCON_NEW ("buildInfo", BCON_INT32 (1));
    bson_t reply;
    bson_error_t error;
    bson_iter_t it;
    bool ok = mongoc_client_command_simple (mc->admin, "admin", command, NULL, &reply, &error);
    if (!ok)
        snprintf (err, err_len, "buildInfo: %s", error.message);
    else
        snprintf (mc->version, sizeof mc->version, "%s", bson_iter_init_find (&it, &reply, "version")
                  && BSON_ITER_HOLDS_UTF8 (&it) ? bson_iter_utf8 (&it, NULL) : "?");
    bson_destroy (&reply);
    bson_destroy (command);
    return ok;
}

static bool
open_mc (bench_mc_t *mc, char *err, size_t err_len)
{
    const bench_mongo_options_t *o = mc->o;
    const bench_events_t *ev = mc->ev;
    unsigned tag = (unsigned) getpid () ^ (unsigned) (dlq_time_now_ms () & 0xffffff);
    snprintf (mc->prefix, sizeof mc->prefix, "dlq_bench_%x", tag);
    mongoc_init ();
    mc->events = bench_sink_events (ev);
    if (!read_settings (o->settings, &mc->wr, err, err_len) || !index_streams (mc, ev, err, err_len))
        return false;
    if (!o->uri) {
        mc->server = mongo_server_new (0);
        if (!mc->server) {
            snprintf (err, err_len, "cannot start the test server");
            return false;
        }
        mongo_server_set_recording (mc->server, false);
    }
    mc->uri = dlq_strdup (o->uri ? o->uri : mongo_server_uri (mc->server));
    mc->client_uri = with_options (mc->uri, mc->wr.options.len ? mc->wr.options.data : "");
    mc->admin = new_client (mc->client_uri, "dlqd_bench-admin", err, err_len);
    return mc->admin && server_version (mc, err, err_len);
}

static void
close_mc (bench_mc_t *mc)
{
    mongoc_client_destroy (mc->admin);
    mongo_server_destroy (&mc->server);
    mongoc_cleanup ();
    dlq_buf_free (&mc->wr.options);
    free (mc->client_uri);
    free (mc->uri);
    free (mc->stream_of);
    free (mc->events);
}


/* ------------------------------------------------------------------------ */
/* Each run's database */

/* The database of a run: <prefix>_<kind><number>. */
static void
run_database (const bench_mc_t *mc, const bench_run_t *run, char *out)
{
    snprintf (out, DB_LEN, "%s_%s%zu", mc->prefix, run->kind == BENCH_RUN_DRAIN ? "drain" : "raw", run->number);
}

/* How many documents db.collection holds; false with err. */
static bool
count_documents (const bench_mc_t *mc, const char *db, const char *collection, long long *n,
                 char *err, size_t err_len)
{
    if (mc->server) {
        *n = (long long) mongo_server_count (mc->server, db, collection);
        return true;
    }
    bson_t *command = BCON_NEW ("count", BCON_UTF8 (collection));
    bson_t reply;
    bson_error_t error;
    bson_iter_t it;
    bool ok = mongoc_client_read_command_with_opts (mc->admin, db, command, NULL, NULL, &reply, &error);
    if (!ok)
        snprintf (err, err_len, "count %s.%s: %s", db, collection, error.message);
    else
    if (!bson_iter_init_find (&it, &reply, "n") || !BSON_ITER_HOLDS_NUMBER (&it)) {
        snprintf (err, err_len, "count %s.%s: a reply without n", db, collection);
        ok = false;
    }
    else
        *n = bson_iter_as_int64 (&it);
    bson_destroy (&reply);
    bson_destroy (command);
    return ok;
}

/* Does db.collection hold want documents? False with err otherwise. */
static bool
holds (const bench_mc_t *mc, const char *db, const char *collection, size_t want, char *err, size_t err_len)
{
    long long n = 0;
    if (!count_documents (mc, db, collection, &n, err, err_len))
        return false;
    if (n == (long long) want)
        return true;
    snprintf (err, err_len, "%s.%s holds %lld documents, expected %zu", db, collection, n, want);
    return false;
}

/* The run's database must hold each of its count events in its stream's
 * collection and an index entry for each. */
static bool
check_run (const bench_mc_t *mc, const char *db, size_t count, char *err, size_t err_len)
{
    size_t want [MAX_STREAMS] = { 0 };
    for (size_t i = 0; i < count; i++)
        want [mc->stream_of [i]]++;
    bool ok = holds (mc, db, DLQ_MONGO_INDEX_COLLECTION, count, err, err_len);
    for (size_t s = 0; ok && s < mc->stream_count; s++)
        ok = holds (mc, db, mc->streams [s].collection, want [s], err, err_len);
    return ok;
}

/* What every run ends with: the check of its database, or the failure;
 * then the database is dropped (unless keep). */
static void
finish_run (const bench_mc_t *mc, const char *db, bool keep, bench_run_t *run, bool ok, char *err, size_t err_len)
{
    run->failed = false;
    if (!ok || !check_run (mc, db, run->events, err, err_len))
        bench_sink_run_failed (run, "mongo sink drain", "raw bulk", err);
    if (keep)
        return;
    mongoc_database_t *handle = mongoc_client_get_database (mc->admin, db);
    bson_error_t error;
    if (!mongoc_database_drop_with_opts (handle, NULL, &error))
        fprintf (stderr, "dlqd_bench: drop database %s: %s\n", db, error.message);
    mongoc_database_destroy (handle);
}


/* ------------------------------------------------------------------------ */
/* The raw writer */

typedef struct {
    const bench_mc_t    *mc;
    mongoc_client_t     *client;
    mongoc_database_t   *db;
    mongoc_collection_t *collections [MAX_STREAMS];     /* per stream of mc */
    mongoc_collection_t *index;                         /* _fw_dlq_index */
    bson_t              *unordered;                     /* the bulks' options */
    size_t              *group;                         /* the events of one collection in a batch */
} writer_t;

/* The indexes the sink makes (mongo_collections.c): the TTL one on
 * expiresAt, and on an event collection (list) the LIST one. */
static bool
create_indexes (mongoc_database_t *db, const char *collection, bool list, char *err, size_t err_len)
{
    bson_t *ttl = BCON_NEW ("key", "{", "expiresAt", BCON_INT32 (1), "}", "name", BCON_UTF8 (DLQ_MONGO_TTL_INDEX),
                            "expireAfterSeconds", BCON_INT32 (0));
    bson_t *by_time = BCON_NEW ("key", "{", "createdAt", BCON_INT32 (-1), "_id", BCON_INT32 (-1), "}",
                                "name", BCON_UTF8 (DLQ_MONGO_LIST_INDEX));
    bson_t *command = list
        ? BCON_NEW ("createIndexes", BCON_UTF8 (collection), "indexes", "[", BCON_DOCUMENT (ttl),
                    BCON_DOCUMENT (by_time), "]")
        : BCON_NEW ("createIndexes", BCON_UTF8 (collection), "indexes", "[", BCON_DOCUMENT (ttl), "]");
    bson_error_t error;
    bool ok = mongoc_database_write_command_with_opts (db, command, NULL, NULL, &error);
    if (!ok)
        snprintf (err, err_len, "createIndexes %s: %s", collection, error.message);
    bson_destroy (command);
    bson_destroy (by_time);
    bson_destroy (ttl);
    return ok;
}

/* The writer's client, handles and indexes in database db. */
static bool
open_writer (writer_t *w, const char *db, char *err, size_t err_len)
{
    const bench_mc_t *mc = w->mc;
    w->client = new_client (mc->client_uri, "dlqd_bench-raw", err, err_len);
    if (!w->client)
        return false;
    w->db = mongoc_client_get_database (w->client, db);
    w->index = mongoc_database_get_collection (w->db, DLQ_MONGO_INDEX_COLLECTION);
    w->unordered = BCON_NEW ("ordered", BCON_BOOL (false));
    w->group = dlq_calloc (mc->wr.batch, sizeof *w->group);
    bool ok = create_indexes (w->db, DLQ_MONGO_INDEX_COLLECTION, false, err, err_len);
    for (size_t s = 0; s < mc->stream_count; s++) {
        w->collections [s] = mongoc_database_get_collection (w->db, mc->streams [s].collection);
        ok = ok && create_indexes (w->db, mc->streams [s].collection, true, err, err_len);
    }
    return ok;
}

/* (mongoc's destroy functions take NULL) */
static void
close_writer (writer_t *w)
{
    for (size_t s = 0; s < w->mc->stream_count; s++)
        mongoc_collection_destroy (w->collections [s]);
    mongoc_collection_destroy (w->index);
    mongoc_database_destroy (w->db);
    mongoc_client_destroy (w->client);
    bson_destroy (w->unordered);
    free (w->group);
}

/* Execute bulk of count inserts into collection (then destroy it): false
 * with err unless the server acknowledged every one. */
static bool
execute (mongoc_bulk_operation_t *bulk, const char *collection, size_t count, char *err, size_t err_len)
{
    bson_t reply;
    bson_error_t error;
    bson_iter_t it;
    bool ok = mongoc_bulk_operation_execute (bulk, &reply, &error) != 0;
    int64_t inserted = ok && bson_iter_init_find (&it, &reply, "nInserted") ? bson_iter_as_int64 (&it) : -1;
    if (!ok)
        snprintf (err, err_len, "bulk insert into %s: %s", collection, error.message);
    else
    if (inserted != (int64_t) count) {
        snprintf (err, err_len, "bulk insert into %s: %lld of %zu inserted", collection, (long long) inserted,
                  count);
        ok = false;
    }
    bson_destroy (&reply);
    mongoc_bulk_operation_destroy (bulk);
    return ok;
}

/* The count events of group (all of stream s) as the sink's deliver
 * writes them: one unordered bulk of their documents into the stream's
 * collection, then one of their index entries. */
static bool
write_group (writer_t *w, size_t s, size_t count, char *err, size_t err_len)
{
    const bench_mc_t *mc = w->mc;
    const char *collection = mc->streams [s].collection;
    mongoc_bulk_operation_t *bulk = mongoc_collection_create_bulk_operation_with_opts (w->collections [s],
                                                                                        w->unordered);
    bson_error_t error;
    bool ok = true;
    for (size_t k = 0; ok && k < count; k++) {
        bson_t doc;
        ok = dlq_mongo_event_doc (&mc->events [w->group [k]], &doc, err, err_len);
        if (ok && !mongoc_bulk_operation_insert_with_opts (bulk, &doc, NULL, &error)) {
            snprintf (err, err_len, "event %zu: %s", w->group [k], error.message);
            ok = false;
        }
        bson_destroy (&doc);
    }
    if (!ok) {
        mongoc_bulk_operation_destroy (bulk);
        return false;
    }
    if (!execute (bulk, collection, count, err, err_len))
        return false;
    bulk = mongoc_collection_create_bulk_operation_with_opts (w->index, w->unordered);
    for (size_t k = 0; k < count; k++) {
        bson_t entry;
        dlq_mongo_index_doc (&mc->events [w->group [k]], collection, &entry);
        mongoc_bulk_operation_insert_with_opts (bulk, &entry, NULL, NULL);
        bson_destroy (&entry);
    }
    return execute (bulk, DLQ_MONGO_INDEX_COLLECTION, count, err, err_len);
}

/* Events from to end, collection by collection in the order of their
 * first event (as the sink groups a batch). */
static bool
write_batch (writer_t *w, size_t from, size_t end, char *err, size_t err_len)
{
    bool done [MAX_STREAMS] = { false };
    bool ok = true;
    for (size_t i = from; ok && i < end; i++) {
        size_t s = w->mc->stream_of [i], count = 0;
        if (done [s])
            continue;
        done [s] = true;
        for (size_t j = i; j < end; j++)
            if (w->mc->stream_of [j] == s)
                w->group [count++] = j;
        ok = write_group (w, s, count, err, err_len);
    }
    return ok;
}

/* Write the first count events into database db; *seconds from the first
 * document made until the last bulk is acknowledged. */
static bool
write_all (const bench_mc_t *mc, const char *db, size_t count, double *seconds, char *err, size_t err_len)
{
    writer_t w = { .mc = mc };
    bool ok = open_writer (&w, db, err, err_len);
    int64_t start = dlq_time_mono_ns ();
    for (size_t from = 0; ok && from < count; from += mc->wr.batch)
        ok = write_batch (&w, from, from + mc->wr.batch < count ? from + mc->wr.batch : count, err, err_len);
    *seconds = (double) (dlq_time_mono_ns () - start) / 1e9;
    close_writer (&w);
    return ok;
}


/* ------------------------------------------------------------------------ */
/* Runs */

/* (ii) */
static void
run_raw (void *ctx, bench_run_t *run)
{
    const bench_mc_t *mc = ctx;
    char db [DB_LEN], err [ERR_LEN] = "";
    run_database (mc, run, db);
    bool ok = write_all (mc, db, run->events, &run->seconds, err, sizeof err);
    run->eps = run->seconds > 0 ? (double) run->events / run->seconds : 0;
    finish_run (mc, db, mc->o->keep, run, ok, err, sizeof err);
}

/* (i): the sink on the server, writing to the run's database. */
static void
run_drain (void *ctx, bench_run_t *run)
{
    const bench_mc_t *mc = ctx;
    char db [DB_LEN], err [ERR_LEN] = "";
    run_database (mc, run, db);
    dlq_buf_t section = DLQ_BUF_INIT;
    dlq_buf_puts (&section, "uri = \"");
    bench_sink_config_string (&section, mc->uri);
    dlq_buf_printf (&section, "\"; database = \"%s\";", db);
    bool ok = bench_sink_drain_run (&mc->o->dlqd, mc->dir, SINK_NAME, "mongo", section.data, mc->o->settings,
                                    mc->ev, run, err, sizeof err);
    dlq_buf_free (&section);
    finish_run (mc, db, mc->o->keep, run, ok, err, sizeof err);
}


/* ------------------------------------------------------------------------ */
/* Report */

/* The hosts of the URI (not its credentials). */
static void
print_hosts (const char *uri_text)
{
    mongoc_uri_t *uri = mongoc_uri_new_with_error (uri_text, NULL);
    for (const mongoc_host_list_t *h = uri ? mongoc_uri_get_hosts (uri) : NULL; h; h = h->next)
        printf ("%s%s", h->host_and_port, h->next ? "," : "");
    mongoc_uri_destroy (uri);
}

static void
print_setup (const bench_mongo_options_t *o, const bench_mc_t *mc)
{
    printf ("mongo           : %sMongoDB %s at ", mc->server ? "the test server (tests/mongo) in this process,"
            " speaking " : "", mc->version);
    print_hosts (mc->uri);
    printf ("; databases %s_*\n", mc->prefix);
    printf ("mongo writing   : mongo-c-driver %s; batches of %zu events; per batch and collection one unordered"
            " bulk of events, then one of %s entries; collections %s<streamName> (%zu streams)%s%s\n",
            mongoc_get_version (), mc->wr.batch, DLQ_MONGO_INDEX_COLLECTION, mc->wr.prefix, mc->stream_count,
            mc->wr.options.len ? "; URI options " : "", mc->wr.options.len ? mc->wr.options.data : "");
    if (o->settings)
        printf ("mongo sink      : with %s\n", o->settings);
}


/* ------------------------------------------------------------------------ */

static const bench_sink_comparison_t comparison = {
    .run_drain = run_drain, .run_raw = run_raw, .name = "mongo", .target = BENCH_MONGO_TARGET_RAW,
    .raw = "raw mongoc bulk", .raw_how = "one client, the same documents and bulks", .raw_done = RAW_DONE,
    .checked = "every run's collections checked to hold its documents and index entries, then its database dropped",
};

bool
bench_mongo_run (const bench_mongo_options_t *o, const char *dir, const bench_events_t *ev,
                 bench_mongo_result_t *out)
{
    bench_mc_t mc = { .o = o, .dir = dir, .ev = ev };
    char err [ERR_LEN] = "";
    *out = (bench_mongo_result_t) { .failed = true };
    if (open_mc (&mc, err, sizeof err)) {
        print_setup (o, &mc);
        bench_sink_compare (&comparison, &mc, o->repeat, ev->count, WARM_UP_EVENTS, out);
    }
    else
        fprintf (stderr, "dlqd_bench: mongo: %s\n", err);
    if (o->keep && o->uri)
        printf ("kept databases  : %s_*\n", mc.prefix);
    close_mc (&mc);
    return !out->failed;
}
