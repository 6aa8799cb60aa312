/*  itest_ckpt_contract — FlowWarden's CheckpointStore contract, checked over
 *  the wire (CKPT.SAVE / SEEN / PROCESSED / GET / LIST / DELETE) against a
 *  real dlqd whose primary store DLQD_CKPT_PRIMARY chooses:
 *
 *    embedded  (the default) the spool's own checkpoints table;
 *    postgres  a postgres sink as primary: the server of
 *              DLQD_TEST_PG_CONNINFO (or one of the test's own), a table
 *              no other test uses;
 *    mongo     a mongo sink as primary, on the MongoDB wire-protocol test
 *              server of tests/mongo run in the test process.
 *
 *  With postgres and no DLQD_TEST_PG_CONNINFO, the run starts one server
 *  of its own for every test (before the first, in the runner process)
 *  and removes it after the last. A build without a backend
 *  (DLQD_WITH_POSTGRES, DLQD_WITH_MONGO 0) leaves out its primary: asked
 *  for it, every test fails at its setup.
 *
 *  The contract:
 *    - SAVE is a full upsert: it creates, replaces every member, and a
 *      member absent (or null) in a later SAVE becomes absent;
 *    - GET returns exactly what was stored: tokens and metadata as compact
 *      JSON byte for byte, timestamps in UTC to the millisecond, updatedAt
 *      set by the store; NOT_FOUND for a stream without a record (never a
 *      half-built one);
 *    - DELETE then GET is NOT_FOUND; DELETE of an absent stream is OK with
 *      deleted:false; a record made after a DELETE has nothing of the old;
 *    - SEEN on a missing stream creates a record with only the seen pair,
 *      and never changes the processed pair (nor instanceId, metadata);
 *      PROCESSED the same in mirror;
 *    - the dual-token invariant: two clients on their own sockets, one
 *      sending 10,000 SEENs and the other 10,000 PROCESSEDs for the same
 *      stream, pipelined, with increasing tokens; afterwards the record has
 *      the last token of each, and no GET taken meanwhile ever shows a
 *      token of one sequence in the other's member (nor a token going
 *      back);
 *    - LIST pages by stream name in byte order, with a prefix taken
 *      literally (no wildcards), following nextCursor to the end;
 *    - bad input is refused with the right code and field, and nothing is
 *      stored by a refused request.
 */
#include "dlq_buf.h"
#include "dlq_client.h"
#include "dlq_json.h"
#include "dlq_time.h"
#include "test_support.h"
#if DLQD_WITH_MONGO
#include "mongo_server.h"
#endif
#if DLQD_WITH_POSTGRES
#include "pg_support.h"
#endif

#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PRIMARY_ENV     "DLQD_CKPT_PRIMARY"
#define DUAL_WRITES     10000
#define DUAL_WINDOW     256
#define DUAL_STREAM     "dual"
#define SEEN_BASE       1000000         /* SEEN tokens: {"_data":"1000000"} ... */
#define PROCESSED_BASE  2000000         /* PROCESSED tokens: {"_data":"2000000"} ... */
#define DUAL_FIRST_MS   INT64_C (1781000000000)

static test_dlqd_t d;
#if DLQD_WITH_POSTGRES
static pg_server_t pg;
static pg_server_t run_pg;             /* the run's own server (runner process) */
#endif
#if DLQD_WITH_MONGO
static mongo_server_t *mongo;
#endif
static const char *primary;

/* The sinks section, primary and chain for the chosen primary into extra. */
static void
primary_config (char *extra, size_t len)
{
    extra [0] = '\0';
#if DLQD_WITH_POSTGRES
    if (strcmp (primary, "postgres") == 0) {
        char table [64];
        cr_assert (pg_server_shared (&pg), "no PostgreSQL server");
        pg_table_name (table, sizeof table);
        snprintf (extra, len,
                  "sinks: { sql: { type = \"postgres\"; conninfo = \"%s\"; table = \"%s\"; }; };\n"
                  "primary = \"sql\";\ndefaults: { chain = [\"sql\"]; };\n", pg.conninfo, table);
        return;
    }
#endif
#if DLQD_WITH_MONGO
    if (strcmp (primary, "mongo") == 0) {
        char database [64];
        mongo = mongo_server_new (0);
        cr_assert_not_null (mongo, "the MongoDB test server does not start");
        snprintf (database, sizeof database, "dlqd_ckpt_%llx", (unsigned long long) (test_random_u64 () >> 24));
        snprintf (extra, len,
                  "sinks: { docs: { type = \"mongo\"; uri = \"%s\"; database = \"%s\"; }; };\n"
                  "primary = \"docs\";\ndefaults: { chain = [\"docs\"]; };\n", mongo_server_uri (mongo), database);
        return;
    }
#endif
    cr_assert_str_eq (primary, "embedded", PRIMARY_ENV " is embedded, postgres or mongo"
                      " (each in a build with it: DLQD_WITH_POSTGRES, DLQD_WITH_MONGO)");
}

static void
setup (void)
{
    char extra [2048];
    memset (&d, 0, sizeof d);
#if DLQD_WITH_POSTGRES
    memset (&pg, 0, sizeof pg);
#endif
    test_tmpdir (d.dir);
    primary = getenv (PRIMARY_ENV);
    if (!primary || !*primary)
        primary = "embedded";
    primary_config (extra, sizeof extra);
    cr_assert (test_dlqd_start (&d, NULL, extra), "dlqd (primary %s) did not start", primary);
}

static void
teardown (void)
{
    test_dlqd_cleanup (&d);
#if DLQD_WITH_POSTGRES
    pg_server_stop (&pg);
#endif
#if DLQD_WITH_MONGO
    mongo_server_destroy (&mongo);
#endif
}

TestSuite (ckpt_contract, .init = setup, .fini = teardown, .timeout = 300);

#if DLQD_WITH_POSTGRES
ReportHook (PRE_ALL) (struct criterion_test_set *tests)
{
    const char *chosen = getenv (PRIMARY_ENV), *conninfo = getenv (PG_CONNINFO_ENV);
    if (!chosen || strcmp (chosen, "postgres") != 0 || (conninfo && *conninfo))
        return;
    if (pg_server_start (&run_pg))
        setenv (PG_CONNINFO_ENV, run_pg.conninfo, 1);
}

ReportHook (POST_ALL) (struct criterion_global_stats *stats)
{
    pg_server_stop (&run_pg);
}
#endif

/* ---- requests ------------------------------------------------------------ */

/* verb with body; the reply must be OK: its body (caller frees). */
static char *
ckpt_ok (const char *verb, const char *body)
{
    char status [8];
    char *reply = NULL;
    cr_assert (test_request (d.endpoint, verb, body, strlen (body), status, &reply),
               "[%s] %s %s: no reply", primary, verb, body);
    cr_assert_str_eq (status, "OK", "[%s] %s %s -> %s %s", primary, verb, body, status, reply);
    return reply;
}

/* The string member key of a JSON object text, or "" (caller frees). */
static char *
member_string (const char *json, const char *key)
{
    dlq_json_doc_t *doc = NULL;
    char *out = strdup ("");
    if (dlq_json_parse (json, strlen (json), &doc, NULL) != DLQ_JSON_OK)
        return out;
    const dlq_json_value_t *v = dlq_json_get (dlq_json_root (doc), key);
    if (v && v->type == DLQ_JSON_STRING) {
        free (out);
        out = strndup (v->str, v->len);
    }
    dlq_json_doc_destroy (&doc);
    return out;
}

/* verb with body must be refused with code and field (NULL: no field). */
static void
ckpt_refused (const char *verb, const char *body, const char *code, const char *field)
{
    char status [8];
    char *reply = NULL;
    cr_assert (test_request (d.endpoint, verb, body, strlen (body), status, &reply),
               "[%s] %s %s: no reply", primary, verb, body);
    cr_assert_str_eq (status, "ERR", "[%s] %s %s -> %s %s", primary, verb, body, status, reply);
    char *got_code = member_string (reply, "code"), *got_field = member_string (reply, "field");
    cr_expect_str_eq (got_code, code, "[%s] %s %s -> %s", primary, verb, body, reply);
    cr_expect_str_eq (got_field, field ? field : "", "[%s] %s %s -> %s", primary, verb, body, reply);
    free (got_code);
    free (got_field);
    free (reply);
}

/* CKPT.GET of stream: the OK reply (caller frees). */
static char *
get_record (const char *stream)
{
    char body [1200];
    snprintf (body, sizeof body, "{\"streamName\":\"%s\"}", stream);
    return ckpt_ok ("CKPT.GET", body);
}

/* CKPT.GET of stream must be NOT_FOUND, field streamName. */
static void
expect_no_record (const char *stream)
{
    char body [1200];
    snprintf (body, sizeof body, "{\"streamName\":\"%s\"}", stream);
    ckpt_refused ("CKPT.GET", body, "NOT_FOUND", "streamName");
}

/* A CKPT.SEEN / CKPT.PROCESSED body. */
static void
token_body (char *out, size_t len, const char *stream, const char *data, const char *timestamp)
{
    snprintf (out, len, "{\"streamName\":\"%s\",\"token\":{\"_data\":\"%s\"},\"timestamp\":\"%s\"}",
              stream, data, timestamp);
}

/* ---- records ------------------------------------------------------------- */

#define UPDATED_AT ",\"updatedAt\":\""

/* A record as the gateway writes it, without its updatedAt (which must be
 * its last member: an ISO instant in UTC with ms, near now). Caller
 * frees. */
static char *
without_updated_at (const char *record)
{
    size_t len = strlen (record), tail = strlen (UPDATED_AT) + DLQ_TIME_ISO_LEN + 2;
    cr_assert (len > tail, "[%s] not a record: %s", primary, record);
    const char *at = record + len - tail;
    cr_assert (strncmp (at, UPDATED_AT, strlen (UPDATED_AT)) == 0 && strcmp (record + len - 2, "\"}") == 0,
               "[%s] updatedAt is not the record's last member: %s", primary, record);
    int64_t ms = 0;
    cr_assert (dlq_time_parse_iso (at + strlen (UPDATED_AT), DLQ_TIME_ISO_LEN, &ms)
               && at [strlen (UPDATED_AT) + DLQ_TIME_ISO_LEN - 1] == 'Z',
               "[%s] updatedAt is not ISO-8601 UTC with ms: %s", primary, record);
    int64_t skew = ms - dlq_time_now_ms ();
    cr_expect (skew > -60000 && skew < 60000, "[%s] updatedAt is not now: %s", primary, record);
    char *out = malloc ((size_t) (at - record) + 2);
    memcpy (out, record, (size_t) (at - record));
    strcpy (out + (at - record), "}");
    return out;
}

/* The record must be want (a record without updatedAt) plus updatedAt. */
static void
expect_record (const char *record, const char *want, const char *what)
{
    char *bare = without_updated_at (record);
    cr_expect_str_eq (bare, want, "[%s] %s:\n got  %s\n want %s", primary, what, bare, want);
    free (bare);
}

/* GET of stream must return record (byte for byte, updatedAt too). */
static void
expect_get_equals (const char *stream, const char *record, const char *what)
{
    char *got = get_record (stream);
    cr_expect_str_eq (got, record, "[%s] GET after %s:\n got  %s\n want %s", primary, what, got, record);
    free (got);
}

/* The compact form (dlq_json_write) of a JSON text. Caller frees. */
static char *
compact (const char *json)
{
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (json, strlen (json), &doc, NULL), DLQ_JSON_OK, "%s", json);
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_json_write (&out, dlq_json_root (doc));
    dlq_buf_putc (&out, '\0');
    dlq_json_doc_destroy (&doc);
    return dlq_buf_steal (&out, NULL);
}

/* ---- SAVE, GET, DELETE ----------------------------------------------------- */

#define FULL_RECORD                                                                       \
    "{\"streamName\":\"orders\",\"instanceId\":\"worker-7\","                              \
    "\"lastSeenToken\":{\"_data\":\"826A5B\"},\"lastSeenTimestamp\":\"2026-06-09T14:32:13.500Z\","  \
    "\"lastProcessedToken\":{\"_data\":\"826A5A\"},\"lastProcessedTimestamp\":\"2026-06-09T14:32:12.000Z\"," \
    "\"metadata\":{\"shard\":3,\"tags\":[\"a\",\"b\"]}}"

Test (ckpt_contract, save_creates_then_replaces_every_member)
{
    char *first = ckpt_ok ("CKPT.SAVE", FULL_RECORD);
    expect_record (first, FULL_RECORD, "SAVE of a new stream");
    expect_get_equals ("orders", first, "the first SAVE");

    const char *second = "{\"streamName\":\"orders\",\"instanceId\":\"worker-8\","
                         "\"lastProcessedToken\":{\"_data\":\"8300\"},"
                         "\"lastProcessedTimestamp\":\"2026-06-10T00:00:00.000Z\"}";
    char *replaced = ckpt_ok ("CKPT.SAVE", second);
    expect_record (replaced, second, "a SAVE without lastSeen* and metadata");
    expect_get_equals ("orders", replaced, "the second SAVE");

    char *emptied = ckpt_ok ("CKPT.SAVE", "{\"streamName\":\"orders\",\"instanceId\":null,"
                                          "\"lastProcessedToken\":null,\"metadata\":null}");
    expect_record (emptied, "{\"streamName\":\"orders\"}", "a SAVE with nulls");
    expect_get_equals ("orders", emptied, "the SAVE with nulls");
    cr_expect (strcmp (replaced + strlen (replaced) - 26, first + strlen (first) - 26) >= 0,
               "updatedAt went back: %s then %s", first, replaced);
    free (first);
    free (replaced);
    free (emptied);
}

Test (ckpt_contract, get_returns_tokens_compacted_byte_for_byte_and_timestamps_in_utc_ms)
{
    const char *seen = "{ \"_data\" : \"82665A1B2C000000012B022C0100296E5A1004\" ,"
                       " \"_typeBits\" : { \"$binary\" : { \"base64\" : \"gAE=\", \"subType\" : \"00\" } } }";
    const char *processed = "{\"_id\":{\"$oid\":\"0123456789abcdef01234567\"},"
                            "\"n\":{\"$numberLong\":\"9007199254740993\"},\"s\":\"caf\\u00e9 \\\"q\\\"\"}";
    const char *metadata = "{ \"a\" : [ 1 , 2 ], \"b\" : { \"c\" : \"d\" } }";
    char body [2048], want [2048];
    snprintf (body, sizeof body,
              "{\"streamName\":\"payments\",\"lastSeenToken\":%s,\"lastSeenTimestamp\":\"2026-06-09T16:32:13.5+02:00\","
              "\"lastProcessedToken\":%s,\"lastProcessedTimestamp\":\"2026-06-09T14:32:13.123456789Z\","
              "\"metadata\":%s,\"instanceId\":\"w\\u00e9\"}", seen, processed, metadata);
    char *seen_c = compact (seen), *processed_c = compact (processed), *metadata_c = compact (metadata);
    snprintf (want, sizeof want,
              "{\"streamName\":\"payments\",\"instanceId\":\"w\xc3\xa9\",\"lastSeenToken\":%s,"
              "\"lastSeenTimestamp\":\"2026-06-09T14:32:13.500Z\",\"lastProcessedToken\":%s,"
              "\"lastProcessedTimestamp\":\"2026-06-09T14:32:13.123Z\",\"metadata\":%s}",
              seen_c, processed_c, metadata_c);
    cr_assert_str_eq (seen_c, "{\"_data\":\"82665A1B2C000000012B022C0100296E5A1004\","
                              "\"_typeBits\":{\"$binary\":{\"base64\":\"gAE=\",\"subType\":\"00\"}}}");
    char *saved = ckpt_ok ("CKPT.SAVE", body);
    expect_record (saved, want, "SAVE with spaced tokens and offset timestamps");
    expect_get_equals ("payments", saved, "the SAVE");

    char seen_body [512];
    snprintf (seen_body, sizeof seen_body, "{\"streamName\":\"payments\",\"token\":%s,"
                                           "\"timestamp\":\"2026-06-09T23:59:59.9999-01:30\"}", seen);
    char *after = ckpt_ok ("CKPT.SEEN", seen_body);
    char *lst = strstr (after, "\"lastSeenTimestamp\":\"2026-06-10T01:29:59.999Z\"");
    cr_expect_not_null (lst, "[%s] SEEN's timestamp not normalised to UTC ms: %s", primary, after);
    cr_expect_not_null (strstr (after, seen_c), "[%s] SEEN's token not compacted byte for byte: %s", primary, after);
    free (seen_c);
    free (processed_c);
    free (metadata_c);
    free (saved);
    free (after);
}

Test (ckpt_contract, token_numbers_keep_their_text)
{
    const char *token = "{\"_data\":\"01\",\"d\":1.0,\"e\":1E3,\"i\":{\"$numberInt\":\"7\"},"
                        "\"dec\":{\"$numberDecimal\":\"1.10\"},\"t\":{\"$date\":{\"$numberLong\":\"1781000000000\"}}}";
    char body [512], want [512];
    snprintf (body, sizeof body, "{\"streamName\":\"numbers\",\"token\":%s,\"timestamp\":\"2026-06-09T00:00:00Z\"}", token);
    snprintf (want, sizeof want, "{\"streamName\":\"numbers\",\"lastSeenToken\":%s,"
                                 "\"lastSeenTimestamp\":\"2026-06-09T00:00:00.000Z\"}", token);
    char *stored = ckpt_ok ("CKPT.SEEN", body);
    expect_record (stored, want, "SEEN of a token with numbers and typed values");
    expect_get_equals ("numbers", stored, "the SEEN");
    free (stored);
}

Test (ckpt_contract, get_of_a_stream_without_a_record_is_not_found)
{
    expect_no_record ("nobody");
    free (ckpt_ok ("CKPT.SAVE", FULL_RECORD));
    expect_no_record ("order");
    expect_no_record ("orders2");
    expect_no_record ("ORDERS");
    char *got = get_record ("orders");
    free (got);
}

Test (ckpt_contract, delete_then_get_is_not_found_and_a_new_record_has_nothing_of_the_old)
{
    free (ckpt_ok ("CKPT.SAVE", FULL_RECORD));
    char *deleted = ckpt_ok ("CKPT.DELETE", "{\"streamName\":\"orders\"}");
    cr_expect_str_eq (deleted, "{\"streamName\":\"orders\",\"deleted\":true}", "[%s]", primary);
    expect_no_record ("orders");
    char *again = ckpt_ok ("CKPT.DELETE", "{\"streamName\":\"orders\"}");
    cr_expect_str_eq (again, "{\"streamName\":\"orders\",\"deleted\":false}", "[%s]", primary);
    char *never = ckpt_ok ("CKPT.DELETE", "{\"streamName\":\"never-there\"}");
    cr_expect_str_eq (never, "{\"streamName\":\"never-there\",\"deleted\":false}", "[%s]", primary);
    expect_no_record ("never-there");

    char body [256];
    token_body (body, sizeof body, "orders", "9000", "2026-06-11T00:00:00Z");
    char *fresh = ckpt_ok ("CKPT.SEEN", body);
    expect_record (fresh, "{\"streamName\":\"orders\",\"lastSeenToken\":{\"_data\":\"9000\"},"
                          "\"lastSeenTimestamp\":\"2026-06-11T00:00:00.000Z\"}", "SEEN after a DELETE");
    free (deleted);
    free (again);
    free (never);
    free (fresh);
}

/* ---- SEEN, PROCESSED -------------------------------------------------------- */

Test (ckpt_contract, seen_or_processed_on_a_missing_stream_creates_only_its_pair)
{
    char body [256];
    token_body (body, sizeof body, "fresh-seen", "01", "2026-06-09T14:00:00Z");
    char *seen = ckpt_ok ("CKPT.SEEN", body);
    expect_record (seen, "{\"streamName\":\"fresh-seen\",\"lastSeenToken\":{\"_data\":\"01\"},"
                         "\"lastSeenTimestamp\":\"2026-06-09T14:00:00.000Z\"}", "SEEN of a new stream");
    expect_get_equals ("fresh-seen", seen, "SEEN of a new stream");

    token_body (body, sizeof body, "fresh-processed", "02", "2026-06-09T14:00:01.250Z");
    char *processed = ckpt_ok ("CKPT.PROCESSED", body);
    expect_record (processed, "{\"streamName\":\"fresh-processed\",\"lastProcessedToken\":{\"_data\":\"02\"},"
                              "\"lastProcessedTimestamp\":\"2026-06-09T14:00:01.250Z\"}",
                   "PROCESSED of a new stream");
    expect_get_equals ("fresh-processed", processed, "PROCESSED of a new stream");
    free (seen);
    free (processed);
}

Test (ckpt_contract, seen_never_changes_the_processed_pair_and_vice_versa)
{
    free (ckpt_ok ("CKPT.SAVE", FULL_RECORD));
    char body [256];
    token_body (body, sizeof body, "orders", "826A5C", "2026-06-09T14:40:00Z");
    char *seen = ckpt_ok ("CKPT.SEEN", body);
    const char *after_seen =
        "{\"streamName\":\"orders\",\"instanceId\":\"worker-7\","
        "\"lastSeenToken\":{\"_data\":\"826A5C\"},\"lastSeenTimestamp\":\"2026-06-09T14:40:00.000Z\","
        "\"lastProcessedToken\":{\"_data\":\"826A5A\"},\"lastProcessedTimestamp\":\"2026-06-09T14:32:12.000Z\","
        "\"metadata\":{\"shard\":3,\"tags\":[\"a\",\"b\"]}}";
    expect_record (seen, after_seen, "SEEN on a full record");
    expect_get_equals ("orders", seen, "SEEN");

    token_body (body, sizeof body, "orders", "826A5B", "2026-06-09T14:41:00Z");
    char *processed = ckpt_ok ("CKPT.PROCESSED", body);
    const char *after_processed =
        "{\"streamName\":\"orders\",\"instanceId\":\"worker-7\","
        "\"lastSeenToken\":{\"_data\":\"826A5C\"},\"lastSeenTimestamp\":\"2026-06-09T14:40:00.000Z\","
        "\"lastProcessedToken\":{\"_data\":\"826A5B\"},\"lastProcessedTimestamp\":\"2026-06-09T14:41:00.000Z\","
        "\"metadata\":{\"shard\":3,\"tags\":[\"a\",\"b\"]}}";
    expect_record (processed, after_processed, "PROCESSED after SEEN");
    expect_get_equals ("orders", processed, "PROCESSED");
    free (seen);
    free (processed);
}

/* ---- the dual-token invariant ------------------------------------------------- */

typedef struct {
    bool          seen;             /* SEEN, else PROCESSED */
    atomic_int    ok;
    atomic_int    failed;
    char          first_error [512];
} writer_t;

typedef struct {
    atomic_bool   stop;
    int           samples;          /* GETs that found a record */
    int           not_found;
    int           crossed;          /* a token of the other sequence in a member */
    int           backwards;        /* a member's token older than one seen before */
    int           errors;
    char          first_problem [1024];
} sampler_t;

static void
on_written (const dlq_client_completion_t *completion, void *arg)
{
    writer_t *w = arg;
    if (completion->result == DLQ_CLIENT_OK) {
        atomic_fetch_add (&w->ok, 1);
        return;
    }
    if (atomic_fetch_add (&w->failed, 1) == 0)
        snprintf (w->first_error, sizeof w->first_error, "%s #%llu: %s %s %s (%s)", completion->verb,
                  (unsigned long long) completion->tag, dlq_client_result_name (completion->result),
                  completion->code, completion->message, completion->field);
}

static void
iso_of (int64_t ms, char out [DLQ_TIME_ISO_LEN + 1])
{
    dlq_time_format_iso (ms, out);
}

static void *
writer_run (void *arg)
{
    writer_t *w = arg;
    dlq_client_t *c = dlq_client_new (d.endpoint);
    dlq_client_set_window (c, DUAL_WINDOW);
    dlq_client_set_timeout (c, 60000);
    char token [64], at [DLQ_TIME_ISO_LEN + 1];
    for (int i = 0; i < DUAL_WRITES; i++) {
        snprintf (token, sizeof token, "{\"_data\":\"%d\"}", (w->seen ? SEEN_BASE : PROCESSED_BASE) + i);
        iso_of (DUAL_FIRST_MS + i, at);
        if (w->seen)
            dlq_client_ckpt_seen_async (c, DUAL_STREAM, token, at, (uint64_t) i);
        else
            dlq_client_ckpt_processed_async (c, DUAL_STREAM, token, at, (uint64_t) i);
        dlq_client_poll (c, 0, on_written, w);
    }
    if (dlq_client_flush (c, 240000, on_written, w) != DLQ_CLIENT_OK)
        snprintf (w->first_error, sizeof w->first_error, "flush timed out with %zu outstanding",
                  dlq_client_outstanding (c));
    dlq_client_destroy (&c);
    return NULL;
}

/* The counter of a token {"_data":"N"}, or -1. */
static long
token_counter (const char *token)
{
    long n = -1;
    if (!token || sscanf (token, "{\"_data\":\"%ld\"}", &n) != 1)
        return -1;
    return n;
}

static void
sample_problem (sampler_t *s, int *counter, const char *fmt, const char *a, const char *b)
{
    if ((*counter)++ == 0 && !*s->first_problem)
        snprintf (s->first_problem, sizeof s->first_problem, fmt, a ? a : "(none)", b ? b : "(none)");
}

/* One member's token in a sample: of its own sequence, not going back. */
static void
check_member (sampler_t *s, const char *token, long base, long *last, const char *which)
{
    if (!token)
        return;
    long n = token_counter (token);
    if (n < base || n >= base + DUAL_WRITES)
        sample_problem (s, &s->crossed, "%s holds %s, not a token of its own sequence", which, token);
    else
    if (n < *last)
        sample_problem (s, &s->backwards, "%s went back to %s", which, token);
    else
        *last = n;
}

static void *
sampler_run (void *arg)
{
    sampler_t *s = arg;
    dlq_client_t *c = dlq_client_new (d.endpoint);
    long last_seen = -1, last_processed = -1;
    while (!atomic_load (&s->stop)) {
        dlq_client_checkpoint_t r;
        dlq_client_result_t result = dlq_client_ckpt_get (c, DUAL_STREAM, &r);
        if (result == DLQ_CLIENT_ERR_SERVER && strcmp (dlq_client_error_code (c), "NOT_FOUND") == 0)
            s->not_found++;
        else
        if (result != DLQ_CLIENT_OK)
            sample_problem (s, &s->errors, "GET failed: %s %s", dlq_client_result_name (result),
                            dlq_client_error_message (c));
        else {
            s->samples++;
            check_member (s, r.last_seen_token, SEEN_BASE, &last_seen, "lastSeenToken");
            check_member (s, r.last_processed_token, PROCESSED_BASE, &last_processed, "lastProcessedToken");
        }
        dlq_client_checkpoint_clear (&r);
        nanosleep (&(struct timespec) { 0, 500000 }, NULL);
    }
    dlq_client_destroy (&c);
    return NULL;
}

Test (ckpt_contract, dual_token_invariant_under_concurrent_pipelined_writers, .timeout = 600)
{
    writer_t seen = { .seen = true }, processed = { .seen = false };
    sampler_t sampler;
    memset (&sampler, 0, sizeof sampler);
    pthread_t threads [3];
    int64_t started = dlq_time_mono_ms ();
    pthread_create (&threads [2], NULL, sampler_run, &sampler);
    pthread_create (&threads [0], NULL, writer_run, &seen);
    pthread_create (&threads [1], NULL, writer_run, &processed);
    pthread_join (threads [0], NULL);
    pthread_join (threads [1], NULL);
    atomic_store (&sampler.stop, true);
    pthread_join (threads [2], NULL);
    cr_log_info ("[%s] %d SEEN + %d PROCESSED in %lld ms; %d sampled GETs (%d before the first write)",
                 primary, DUAL_WRITES, DUAL_WRITES, (long long) (dlq_time_mono_ms () - started),
                 sampler.samples, sampler.not_found);

    cr_expect_eq (atomic_load (&seen.ok), DUAL_WRITES, "[%s] SEEN: %d OK, %d failed; %s", primary,
                  atomic_load (&seen.ok), atomic_load (&seen.failed), seen.first_error);
    cr_expect_eq (atomic_load (&processed.ok), DUAL_WRITES, "[%s] PROCESSED: %d OK, %d failed; %s", primary,
                  atomic_load (&processed.ok), atomic_load (&processed.failed), processed.first_error);
    cr_expect_eq (sampler.crossed, 0, "[%s] %d samples crossed the sequences; first: %s", primary,
                  sampler.crossed, sampler.first_problem);
    cr_expect_eq (sampler.backwards, 0, "[%s] %d samples went back; first: %s", primary,
                  sampler.backwards, sampler.first_problem);
    cr_expect_eq (sampler.errors, 0, "[%s] %d sampled GETs failed; first: %s", primary,
                  sampler.errors, sampler.first_problem);
    cr_expect_gt (sampler.samples, 0, "[%s] no GET saw the record during the run", primary);

    char want [512], seen_at [DLQ_TIME_ISO_LEN + 1], processed_at [DLQ_TIME_ISO_LEN + 1];
    iso_of (DUAL_FIRST_MS + DUAL_WRITES - 1, seen_at);
    iso_of (DUAL_FIRST_MS + DUAL_WRITES - 1, processed_at);
    snprintf (want, sizeof want,
              "{\"streamName\":\"" DUAL_STREAM "\",\"lastSeenToken\":{\"_data\":\"%d\"},\"lastSeenTimestamp\":\"%s\","
              "\"lastProcessedToken\":{\"_data\":\"%d\"},\"lastProcessedTimestamp\":\"%s\"}",
              SEEN_BASE + DUAL_WRITES - 1, seen_at, PROCESSED_BASE + DUAL_WRITES - 1, processed_at);
    char *got = get_record (DUAL_STREAM);
    expect_record (got, want, "GET after the concurrent writers");
    free (got);
}

/* ---- LIST -------------------------------------------------------------------- */

/* The stream names of this test's records, in byte order. */
static const char *const listed [] = {
    "list%b", "list.x", "list/a/000", "list/a/001", "list/a/002", "list/a/003", "list/a/004",
    "list/a/005", "list/a/006", "list/a/007", "list/a/008", "list/a/009", "list/a/010", "list/a/011",
    "list/a/012", "list/a/013", "list/a/014", "list/a/015", "list/a/016", "list/a/017", "list/a/018",
    "list/a/019", "list/a/020", "list/a/B", "list/a/Z", "list/a/a", "list/a/~", "list/a/\xc3\xa9",
    "list/b/000", "list/b/001", "listXa", "listYx", "list_a", "other",
};

#define LISTED (sizeof listed / sizeof listed [0])

static void
store_listed (void)
{
    char body [256];
    for (size_t i = 0; i < LISTED; i++) {
        token_body (body, sizeof body, listed [i], "01", "2026-06-09T00:00:00Z");
        free (ckpt_ok (i % 2 ? "CKPT.SEEN" : "CKPT.PROCESSED", body));
    }
}

/* The names of a LIST page (appended to names at *count), and its
 * nextCursor (caller frees) or NULL. */
static char *
read_page (const char *reply, char **names, size_t *count, size_t max, size_t *page_len)
{
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (reply, strlen (reply), &doc, NULL), DLQ_JSON_OK, "%s", reply);
    const dlq_json_value_t *records = dlq_json_get (dlq_json_root (doc), "checkpoints");
    cr_assert (records && records->type == DLQ_JSON_ARRAY, "[%s] no checkpoints array: %s", primary, reply);
    *page_len = 0;
    for (const dlq_json_value_t *r = records->child; r; r = r->next, (*page_len)++) {
        const dlq_json_value_t *name = dlq_json_get (r, "streamName");
        cr_assert (name && name->type == DLQ_JSON_STRING, "[%s] a record without a name: %s", primary, reply);
        cr_assert_lt (*count, max, "[%s] more records than stored", primary);
        names [(*count)++] = strndup (name->str, name->len);
    }
    const dlq_json_value_t *next = dlq_json_get (dlq_json_root (doc), "nextCursor");
    char *cursor = next && next->type == DLQ_JSON_STRING ? strndup (next->str, next->len) : NULL;
    dlq_json_doc_destroy (&doc);
    return cursor;
}

/* LIST with prefix (NULL: none) by pages of limit, to the end; the names
 * must be want[first .. first + count). */
static void
expect_listing (const char *prefix, int limit, size_t first, size_t count)
{
    char *names [LISTED + 1];
    size_t got = 0, pages = 0, page_len = 0;
    char *cursor = NULL;
    do {
        char body [512];
        int n = snprintf (body, sizeof body, "{\"limit\":%d", limit);
        if (prefix)
            n += snprintf (body + n, sizeof body - (size_t) n, ",\"prefix\":\"%s\"", prefix);
        if (cursor)
            n += snprintf (body + n, sizeof body - (size_t) n, ",\"cursor\":\"%s\"", cursor);
        snprintf (body + n, sizeof body - (size_t) n, "}");
        free (cursor);
        char *reply = ckpt_ok ("CKPT.LIST", body);
        cursor = read_page (reply, names, &got, LISTED + 1, &page_len);
        cr_expect (page_len == (size_t) limit || !cursor, "[%s] a short page (%zu of %d) with a next cursor: %s",
                   primary, page_len, limit, reply);
        free (reply);
        cr_assert_lt (++pages, LISTED + 2, "[%s] LIST does not end", primary);
    } while (cursor);
    cr_expect_leq (pages, (count + (size_t) limit - 1) / (size_t) limit + 1,
                   "[%s] prefix %s: %zu pages for %zu records by %d", primary, prefix, pages, count, limit);
    cr_expect_eq (got, count, "[%s] prefix %s: %zu records listed, want %zu", primary, prefix ? prefix : "-", got, count);
    for (size_t i = 0; i < got && i < count; i++)
        cr_expect_str_eq (names [i], listed [first + i], "[%s] prefix %s: record %zu", primary,
                          prefix ? prefix : "-", i);
    for (size_t i = 0; i < got; i++)
        free (names [i]);
}

Test (ckpt_contract, list_pages_by_stream_name_in_byte_order_with_a_literal_prefix)
{
    store_listed ();
    expect_listing (NULL, 1000, 0, LISTED);
    expect_listing (NULL, 7, 0, LISTED);
    expect_listing ("list/a/", 7, 2, 26);
    expect_listing ("list/a/", 13, 2, 26);
    expect_listing ("list/a/0", 3, 2, 21);
    expect_listing ("list/b/", 100, 28, 2);
    expect_listing ("list.", 10, 1, 1);
    expect_listing ("list_", 10, 32, 1);
    expect_listing ("list%", 10, 0, 1);
    expect_listing ("nothing", 10, 0, 0);

    char *page = ckpt_ok ("CKPT.LIST", "{\"prefix\":\"other\"}");
    char *record = get_record ("other");
    char want [512];
    snprintf (want, sizeof want, "{\"checkpoints\":[%s]}", record);
    cr_expect_str_eq (page, want, "[%s] a LIST element is the record GET returns", primary);
    free (page);
    free (record);
}

Test (ckpt_contract, list_refuses_bad_parameters)
{
    ckpt_refused ("CKPT.LIST", "{\"limit\":0}", "INVALID_REQUEST", "limit");
    ckpt_refused ("CKPT.LIST", "{\"limit\":1001}", "INVALID_REQUEST", "limit");
    ckpt_refused ("CKPT.LIST", "{\"limit\":\"5\"}", "INVALID_REQUEST", "limit");
    ckpt_refused ("CKPT.LIST", "{\"prefix\":5}", "INVALID_REQUEST", "prefix");
    ckpt_refused ("CKPT.LIST", "{\"cursor\":5}", "INVALID_REQUEST", "cursor");
    ckpt_refused ("CKPT.LIST", "{\"streamName\":\"orders\"}", "INVALID_REQUEST", "streamName");
    ckpt_refused ("CKPT.LIST", "[]", "INVALID_REQUEST", NULL);
}

/* ---- bad input --------------------------------------------------------------- */

#define AT "\"timestamp\":\"2026-06-09T00:00:00Z\""

Test (ckpt_contract, refused_token_not_an_object)
{
    ckpt_refused ("CKPT.SEEN", "{\"streamName\":\"bad1\",\"token\":\"8263\"," AT "}", "INVALID_REQUEST", "token");
    ckpt_refused ("CKPT.PROCESSED", "{\"streamName\":\"bad1\",\"token\":[1,2]," AT "}", "INVALID_REQUEST", "token");
    ckpt_refused ("CKPT.SEEN", "{\"streamName\":\"bad1\",\"token\":null," AT "}", "INVALID_REQUEST", "token");
    ckpt_refused ("CKPT.SAVE", "{\"streamName\":\"bad1\",\"lastSeenToken\":42}", "INVALID_REQUEST", "lastSeenToken");
    ckpt_refused ("CKPT.SAVE", "{\"streamName\":\"bad1\",\"lastProcessedToken\":\"x\"}", "INVALID_REQUEST",
                  "lastProcessedToken");
    ckpt_refused ("CKPT.SAVE", "{\"streamName\":\"bad1\",\"metadata\":[]}", "INVALID_REQUEST", "metadata");
    expect_no_record ("bad1");
}

Test (ckpt_contract, refused_bad_extended_json_wrapper)
{
    ckpt_refused ("CKPT.SEEN", "{\"streamName\":\"bad2\",\"token\":{\"n\":{\"$numberLong\":\"12x\"}}," AT "}",
                  "INVALID_REQUEST", "token.n");
    ckpt_refused ("CKPT.PROCESSED", "{\"streamName\":\"bad2\",\"token\":{\"n\":{\"$numberLong\":12}}," AT "}",
                  "INVALID_REQUEST", "token.n");
    ckpt_refused ("CKPT.SEEN", "{\"streamName\":\"bad2\",\"token\":{\"_id\":{\"$oid\":\"xyz\"}}," AT "}",
                  "INVALID_REQUEST", "token._id");
    ckpt_refused ("CKPT.SAVE", "{\"streamName\":\"bad2\",\"lastSeenToken\":{\"n\":{\"$numberLong\":\"1\",\"x\":1}}}",
                  "INVALID_REQUEST", "lastSeenToken.n");
    expect_no_record ("bad2");
}

Test (ckpt_contract, refused_bad_timestamp)
{
    ckpt_refused ("CKPT.SEEN", "{\"streamName\":\"bad3\",\"token\":{},\"timestamp\":\"2026-02-30T00:00:00Z\"}",
                  "INVALID_TIMESTAMP", "timestamp");
    ckpt_refused ("CKPT.PROCESSED", "{\"streamName\":\"bad3\",\"token\":{},\"timestamp\":\"yesterday\"}",
                  "INVALID_TIMESTAMP", "timestamp");
    ckpt_refused ("CKPT.SEEN", "{\"streamName\":\"bad3\",\"token\":{},\"timestamp\":1781000000000}",
                  "INVALID_TIMESTAMP", "timestamp");
    ckpt_refused ("CKPT.SAVE", "{\"streamName\":\"bad3\",\"lastSeenTimestamp\":\"2026-06-09 14:00:00\"}",
                  "INVALID_TIMESTAMP", "lastSeenTimestamp");
    ckpt_refused ("CKPT.SAVE", "{\"streamName\":\"bad3\",\"lastProcessedTimestamp\":\"2026-06-09T24:00:00Z\"}",
                  "INVALID_TIMESTAMP", "lastProcessedTimestamp");
    ckpt_refused ("CKPT.SEEN", "{\"streamName\":\"bad3\",\"token\":{}}", "INVALID_REQUEST", "timestamp");
    expect_no_record ("bad3");
}

Test (ckpt_contract, refused_missing_or_bad_stream_name)
{
    ckpt_refused ("CKPT.SEEN", "{\"token\":{}," AT "}", "INVALID_REQUEST", "streamName");
    ckpt_refused ("CKPT.PROCESSED", "{\"token\":{}," AT "}", "INVALID_REQUEST", "streamName");
    ckpt_refused ("CKPT.SAVE", "{\"instanceId\":\"w\"}", "INVALID_REQUEST", "streamName");
    ckpt_refused ("CKPT.GET", "{}", "INVALID_REQUEST", "streamName");
    ckpt_refused ("CKPT.DELETE", "{}", "INVALID_REQUEST", "streamName");
    ckpt_refused ("CKPT.SAVE", "{\"streamName\":\"\"}", "INVALID_REQUEST", "streamName");
    ckpt_refused ("CKPT.SAVE", "{\"streamName\":7}", "INVALID_REQUEST", "streamName");
    char body [1200];
    snprintf (body, sizeof body, "{\"streamName\":\"%01025d\"}", 0);
    ckpt_refused ("CKPT.SAVE", body, "INVALID_REQUEST", "streamName");
    snprintf (body, sizeof body, "{\"streamName\":\"%01024d\"}", 0);
    free (ckpt_ok ("CKPT.SAVE", body));
    char *all = ckpt_ok ("CKPT.LIST", "{}");
    cr_expect_eq (strstr (all, "\"streamName\":\"\"") , NULL, "[%s] %s", primary, all);
    free (all);
}

Test (ckpt_contract, refused_unknown_member)
{
    ckpt_refused ("CKPT.SAVE", "{\"streamName\":\"bad4\",\"lastSeen\":{}}", "INVALID_REQUEST", "lastSeen");
    ckpt_refused ("CKPT.SAVE", "{\"streamName\":\"bad4\",\"updatedAt\":\"2026-06-09T00:00:00Z\"}",
                  "INVALID_REQUEST", "updatedAt");
    ckpt_refused ("CKPT.SEEN", "{\"streamName\":\"bad4\",\"token\":{}," AT ",\"instanceId\":\"w\"}",
                  "INVALID_REQUEST", "instanceId");
    ckpt_refused ("CKPT.PROCESSED", "{\"streamName\":\"bad4\",\"token\":{}," AT ",\"extra\":1}",
                  "INVALID_REQUEST", "extra");
    ckpt_refused ("CKPT.GET", "{\"streamName\":\"bad4\",\"x\":1}", "INVALID_REQUEST", "x");
    ckpt_refused ("CKPT.DELETE", "{\"streamName\":\"bad4\",\"x\":1}", "INVALID_REQUEST", "x");
    expect_no_record ("bad4");
}

Test (ckpt_contract, refused_empty_or_malformed_body)
{
    static const char *const verbs [] = {
        "CKPT.SAVE", "CKPT.SEEN", "CKPT.PROCESSED", "CKPT.GET", "CKPT.DELETE"
    };
    for (size_t i = 0; i < sizeof verbs / sizeof verbs [0]; i++) {
        ckpt_refused (verbs [i], "", "EMPTY_BODY", NULL);
        ckpt_refused (verbs [i], "  \n", "EMPTY_BODY", NULL);
        ckpt_refused (verbs [i], "{\"streamName\":\"bad5\"", "INVALID_JSON", NULL);
        ckpt_refused (verbs [i], "[\"bad5\"]", "INVALID_REQUEST", NULL);
    }
    expect_no_record ("bad5");
    char *all = ckpt_ok ("CKPT.LIST", "{}");
    cr_expect_str_eq (all, "{\"checkpoints\":[]}", "[%s] refused requests stored something", primary);
    free (all);
}

Test (ckpt_contract, a_refused_write_leaves_the_record_as_it_was)
{
    char *before = ckpt_ok ("CKPT.SAVE", FULL_RECORD);
    ckpt_refused ("CKPT.SEEN", "{\"streamName\":\"orders\",\"token\":{\"_data\":\"99\"},\"timestamp\":\"never\"}",
                  "INVALID_TIMESTAMP", "timestamp");
    ckpt_refused ("CKPT.PROCESSED", "{\"streamName\":\"orders\",\"token\":\"99\"," AT "}", "INVALID_REQUEST", "token");
    ckpt_refused ("CKPT.SAVE", "{\"streamName\":\"orders\",\"instanceId\":\"w\",\"metadata\":7}",
                  "INVALID_REQUEST", "metadata");
    ckpt_refused ("CKPT.SAVE", "{\"streamName\":\"orders\",\"lastSeenTimestamp\":\"2026-13-01T00:00:00Z\"}",
                  "INVALID_TIMESTAMP", "lastSeenTimestamp");
    expect_get_equals ("orders", before, "refused writes");
    free (before);
}
