/*  test_job_store — replay jobs in the daemon's state file (job_store.h)
 *  and the file itself (state_store.h): its schema, what it refuses, and
 *  the one take-over of the jobs the embedded store's file held before.
 *
 *  Every test works in its own mkdtemp directory, removed afterwards. Raw
 *  SQLite connections make the embedded store's old table and look behind
 *  the API.
 */
#include "job_store.h"
#include "state_store.h"
#include "dlq_alloc.h"

#include "store_support.h"
#include "test_support.h"

#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmp_dir [256];

static void make_dir (void) { test_tmpdir (tmp_dir); }
static void remove_dir (void) { test_rmtree (tmp_dir); }

TestSuite (job_store, .init = make_dir, .fini = remove_dir);

#define NOW 1781015533500LL       /* 2026-06-09T14:32:13.500Z */

static dlq_state_store_t *open_state (void) { return test_state_store (tmp_dir); }

static void exec_in (const char *name, const char *sql) { test_store_exec_in (tmp_dir, name, sql); }

static dlq_replay_job_t
job_of (int n, dlq_job_state_t state, int64_t created_at)
{
    dlq_replay_job_t job;
    memset (&job, 0, sizeof job);
    snprintf (job.id, sizeof job.id, "0190a1b2-0000-7000-9000-%012d", n);
    job.state = state;
    job.request = dlq_strdup ("{\"stream\":\"s\",\"target\":\"route\",\"rate\":50}");
    job.total = 10 * n;
    job.created_at = created_at;
    job.updated_at = created_at;
    return job;
}

static void
expect_same_job (const dlq_replay_job_t *got, const dlq_replay_job_t *want)
{
    cr_assert_str_eq (got->id, want->id);
    cr_assert_eq (got->state, want->state, "%s: state %s, want %s", want->id, dlq_job_state_name (got->state),
                  dlq_job_state_name (want->state));
    cr_assert_str_eq (got->request, want->request);
    if (want->cursor)
        cr_assert_str_eq (got->cursor, want->cursor);
    else
        cr_assert_null (got->cursor);
    if (want->last_error)
        cr_assert_str_eq (got->last_error, want->last_error);
    else
        cr_assert_null (got->last_error);
    cr_assert_eq (got->total, want->total);
    cr_assert_eq (got->done, want->done);
    cr_assert_eq (got->replayed, want->replayed);
    cr_assert_eq (got->skipped, want->skipped);
    cr_assert_eq (got->quarantined, want->quarantined);
    cr_assert_eq (got->failed, want->failed);
    cr_assert_eq (got->created_at, want->created_at);
    cr_assert_eq (got->updated_at, want->updated_at, "%s: updated_at %lld, want %lld", want->id,
                  (long long) got->updated_at, (long long) want->updated_at);
}

static void
expect_job (dlq_state_store_t *store, const dlq_replay_job_t *want)
{
    dlq_replay_job_t got = { .state = DLQ_JOB_RUNNING };
    cr_assert_eq (dlq_job_store_get (store, want->id, &got), DLQ_STORE_OK, "%s",
                  dlq_state_store_last_error (store));
    expect_same_job (&got, want);
    dlq_replay_job_clear (&got);
}

/* The ids' job numbers of a list, e.g. "3,1". */
static const char *
list_jobs (dlq_state_store_t *store, bool only_running, size_t limit)
{
    static char numbers [256];
    dlq_replay_job_t sentinel;
    dlq_replay_job_t *jobs = &sentinel;         /* must be overwritten */
    size_t count = 99;
    cr_assert_eq (dlq_job_store_list (store, only_running, limit, &jobs, &count), DLQ_STORE_OK, "%s",
                  dlq_state_store_last_error (store));
    numbers [0] = '\0';
    for (size_t i = 0; i < count; i++) {
        snprintf (numbers + strlen (numbers), sizeof numbers - strlen (numbers), "%s%d", i ? "," : "",
                  atoi (jobs [i].id + 24));
        dlq_replay_job_clear (&jobs [i]);
    }
    if (count == 0)
        cr_assert_null (jobs);
    free (jobs);
    return numbers;
}

Test (job_store, jobs_are_created_read_and_listed_newest_first)
{
    dlq_state_store_t *writer = open_state ();
    dlq_state_store_t *updater = open_state ();
    cr_assert_str_eq (list_jobs (updater, false, 100), "");
    dlq_replay_job_t jobs [] = {
        job_of (1, DLQ_JOB_RUNNING, NOW),
        job_of (2, DLQ_JOB_PAUSED, NOW + 1),
        job_of (3, DLQ_JOB_RUNNING, NOW + 1),       /* same ms as 2: id decides */
        job_of (4, DLQ_JOB_DONE, NOW + 2),
        job_of (5, DLQ_JOB_RUNNING, NOW - 5),
    };
    jobs [1].cursor = dlq_strdup ("1781015533500.17");
    jobs [1].last_error = dlq_strdup ("stream x has no replay_route");
    jobs [1].done = 7, jobs [1].replayed = 3, jobs [1].skipped = 2, jobs [1].quarantined = 1, jobs [1].failed = 1;
    for (int i = 0; i < 5; i++)
        cr_assert_eq (dlq_job_store_create (updater, &jobs [i]), DLQ_STORE_OK, "%s",
                      dlq_state_store_last_error (updater));
    cr_assert_eq (dlq_job_store_create (updater, &jobs [0]), DLQ_STORE_ERROR, "the id is taken");
    for (int i = 0; i < 5; i++)
        expect_job (updater, &jobs [i]);
    dlq_replay_job_t none = { .state = DLQ_JOB_RUNNING };
    cr_assert_eq (dlq_job_store_get (updater, "0190a1b2-0000-7000-9000-000000000099", &none),
                  DLQ_STORE_NOT_FOUND);
    cr_assert_str_eq (list_jobs (updater, false, 100), "4,3,2,1,5");
    cr_assert_str_eq (list_jobs (updater, false, 2), "4,3");
    cr_assert_str_eq (list_jobs (updater, true, 100), "3,1,5");
    cr_assert_str_eq (list_jobs (updater, true, 1), "3");

    /* another connection (another thread's) reads them too */
    dlq_state_store_t *other = open_state ();
    expect_job (other, &jobs [1]);
    cr_assert_str_eq (list_jobs (other, true, 100), "3,1,5");
    dlq_state_store_destroy (&other);
    for (int i = 0; i < 5; i++)
        dlq_replay_job_clear (&jobs [i]);
    dlq_state_store_destroy (&updater);
    dlq_state_store_destroy (&writer);
}

Test (job_store, progress_and_state_do_not_overwrite_each_other)
{
    dlq_state_store_t *writer = open_state ();
    dlq_state_store_t *controller = open_state ();
    dlq_replay_job_t job = job_of (1, DLQ_JOB_RUNNING, NOW);
    cr_assert_eq (dlq_job_store_create (writer, &job), DLQ_STORE_OK);

    /* the controller pauses it; the replayer, holding the job from before,
     * records progress: the job stays paused */
    dlq_replay_job_t after = { .state = DLQ_JOB_RUNNING };
    cr_assert_eq (dlq_job_store_set_state (controller, job.id, 1u << DLQ_JOB_RUNNING, DLQ_JOB_PAUSED,
                                              NOW + 10, &after), DLQ_STORE_OK);
    cr_assert_eq (after.state, DLQ_JOB_PAUSED);
    cr_assert_eq (after.updated_at, NOW + 10);
    job.cursor = dlq_strdup ("1781015533500.3");
    job.done = 3, job.replayed = 2, job.failed = 1;
    job.last_error = dlq_strdup ("boom");
    cr_assert_eq (dlq_job_store_progress (writer, &job, NOW + 20), DLQ_STORE_OK);
    job.state = DLQ_JOB_PAUSED;
    job.updated_at = NOW + 20;
    expect_job (controller, &job);

    /* NULL last_error keeps the one recorded; counters and cursor move */
    free (job.last_error);
    job.last_error = NULL;
    job.done = 5, job.skipped = 2;
    cr_assert_eq (dlq_job_store_progress (writer, &job, NOW + 30), DLQ_STORE_OK);
    job.last_error = dlq_strdup ("boom");
    job.updated_at = NOW + 30;
    expect_job (writer, &job);

    dlq_replay_job_t ghost = job_of (9, DLQ_JOB_RUNNING, NOW);
    cr_assert_eq (dlq_job_store_progress (writer, &ghost, NOW), DLQ_STORE_NOT_FOUND);
    dlq_replay_job_clear (&ghost);
    dlq_replay_job_clear (&after);
    dlq_replay_job_clear (&job);
    dlq_state_store_destroy (&controller);
    dlq_state_store_destroy (&writer);
}

/* set_state as REPLAY.PAUSE / RESUME / CANCEL and the replayer use it. */
Test (job_store, set_state_moves_only_from_the_allowed_states)
{
    static const struct {
        unsigned        from_mask;
        dlq_job_state_t to;
        dlq_store_result_t result;
        dlq_job_state_t state_after;
        bool            writes;
    } steps [] = {
        /* PAUSE */
        { 1u << DLQ_JOB_RUNNING | 1u << DLQ_JOB_PAUSED, DLQ_JOB_PAUSED, DLQ_STORE_OK, DLQ_JOB_PAUSED, true },
        { 1u << DLQ_JOB_RUNNING | 1u << DLQ_JOB_PAUSED, DLQ_JOB_PAUSED, DLQ_STORE_OK, DLQ_JOB_PAUSED, false },
        { 1u << DLQ_JOB_RUNNING, DLQ_JOB_PAUSED, DLQ_STORE_CONFLICT, DLQ_JOB_PAUSED, false },
        /* RESUME */
        { 1u << DLQ_JOB_PAUSED | 1u << DLQ_JOB_RUNNING, DLQ_JOB_RUNNING, DLQ_STORE_OK, DLQ_JOB_RUNNING, true },
        /* a move the mask does not allow from RUNNING */
        { 1u << DLQ_JOB_PAUSED, DLQ_JOB_DONE, DLQ_STORE_CONFLICT, DLQ_JOB_RUNNING, false },
        /* CANCEL */
        { 1u << DLQ_JOB_RUNNING | 1u << DLQ_JOB_PAUSED | 1u << DLQ_JOB_CANCELLED, DLQ_JOB_CANCELLED,
          DLQ_STORE_OK, DLQ_JOB_CANCELLED, true },
        { 1u << DLQ_JOB_RUNNING | 1u << DLQ_JOB_PAUSED | 1u << DLQ_JOB_CANCELLED, DLQ_JOB_CANCELLED,
          DLQ_STORE_OK, DLQ_JOB_CANCELLED, false },
        { 1u << DLQ_JOB_PAUSED | 1u << DLQ_JOB_RUNNING, DLQ_JOB_RUNNING, DLQ_STORE_CONFLICT, DLQ_JOB_CANCELLED, false },
        { 1u << DLQ_JOB_RUNNING, DLQ_JOB_DONE, DLQ_STORE_CONFLICT, DLQ_JOB_CANCELLED, false },
    };
    dlq_state_store_t *writer = open_state ();
    dlq_state_store_t *updater = open_state ();
    dlq_replay_job_t job = job_of (1, DLQ_JOB_RUNNING, NOW);
    cr_assert_eq (dlq_job_store_create (updater, &job), DLQ_STORE_OK);
    dlq_replay_job_t got = { .state = DLQ_JOB_RUNNING };
    for (size_t i = 0; i < sizeof steps / sizeof steps [0]; i++) {
        int64_t now = NOW + 100 * (int64_t) (i + 1);
        cr_assert_eq (dlq_job_store_set_state (updater, job.id, steps [i].from_mask, steps [i].to, now, &got),
                      steps [i].result, "step %zu: %s", i, dlq_state_store_last_error (updater));
        if (steps [i].writes)
            job.updated_at = now;
        job.state = steps [i].state_after;
        expect_same_job (&got, &job);
        expect_job (updater, &job);
    }
    cr_assert_eq (dlq_job_store_set_state (updater, job.id, 1u << DLQ_JOB_CANCELLED, DLQ_JOB_DONE, NOW, NULL),
                  DLQ_STORE_OK, "job_out may be NULL");
    cr_assert_eq (dlq_job_store_set_state (updater, "0190a1b2-0000-7000-9000-000000000099", ~0u, DLQ_JOB_DONE,
                                              NOW, &got), DLQ_STORE_NOT_FOUND);
    cr_assert_eq (dlq_job_store_set_state (updater, job.id, ~0u, (dlq_job_state_t) 7, NOW, &got),
                  DLQ_STORE_ERROR);
    dlq_replay_job_clear (&got);
    dlq_replay_job_clear (&job);
    dlq_state_store_destroy (&updater);
    dlq_state_store_destroy (&writer);
}

Test (job_store, jobs_survive_a_reopen)
{
    dlq_state_store_t *store = open_state ();
    dlq_replay_job_t job = job_of (1, DLQ_JOB_RUNNING, NOW);
    job.cursor = dlq_strdup ("c");
    cr_assert_eq (dlq_job_store_create (store, &job), DLQ_STORE_OK);
    cr_assert_eq (dlq_job_store_set_state (store, job.id, 1u << DLQ_JOB_RUNNING, DLQ_JOB_PAUSED, NOW + 1, NULL),
                  DLQ_STORE_OK);
    dlq_state_store_destroy (&store);
    char path [512];
    snprintf (path, sizeof path, "%s/%s", tmp_dir, DLQ_STATE_STORE_FILE);
    cr_assert_eq (access (path, F_OK), 0, "the file is data_dir/%s", DLQ_STATE_STORE_FILE);

    store = open_state ();
    job.state = DLQ_JOB_PAUSED;
    job.updated_at = NOW + 1;
    expect_job (store, &job);
    dlq_state_store_destroy (&store);
    dlq_replay_job_clear (&job);
}


/* ------------------------------------------------------------------------ */
/* The take-over of the embedded store's jobs */

/* The embedded store's file as the release before kept its jobs: its table
 * replay_jobs (schema version 5), jobs 1 (RUNNING, with progress) and 2. */
static void
make_embedded_jobs (void)
{
    exec_in ("dlq.sqlite",
             "PRAGMA journal_mode = WAL;"
             "CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE);"
             "CREATE TABLE replay_jobs (id TEXT PRIMARY KEY, state TEXT NOT NULL, request TEXT NOT NULL,"
             " cursor TEXT, total INTEGER NOT NULL, done INTEGER NOT NULL, replayed INTEGER NOT NULL,"
             " skipped INTEGER NOT NULL, quarantined INTEGER NOT NULL, failed INTEGER NOT NULL,"
             " last_error TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);"
             "CREATE INDEX replay_jobs_by_created ON replay_jobs (created_at, id);"
             "INSERT INTO replay_jobs VALUES ('0190a1b2-0000-7000-9000-000000000001', 'RUNNING',"
             " '{\"stream\":\"s\",\"target\":\"route\",\"rate\":50}', '1781015533500.17', 10, 7, 3, 2, 1, 1,"
             " 'stream x has no replay_route', 1781015533500, 1781015533600);"
             "INSERT INTO replay_jobs VALUES ('0190a1b2-0000-7000-9000-000000000002', 'DONE',"
             " '{\"stream\":\"s\",\"target\":\"route\",\"rate\":50}', NULL, 20, 20, 20, 0, 0, 0,"
             " NULL, 1781015533501, 1781015533900);");
}

Test (job_store, the_embedded_stores_jobs_are_taken_over_once)
{
    make_embedded_jobs ();
    dlq_state_store_t *store = open_state ();
    cr_assert_str_eq (list_jobs (store, false, 100), "2,1");
    dlq_replay_job_t want = job_of (1, DLQ_JOB_RUNNING, NOW);
    want.cursor = dlq_strdup ("1781015533500.17");
    want.last_error = dlq_strdup ("stream x has no replay_route");
    want.done = 7, want.replayed = 3, want.skipped = 2, want.quarantined = 1, want.failed = 1;
    want.updated_at = NOW + 100;
    expect_job (store, &want);

    /* the job goes on here; a second opener and a restart take nothing again */
    cr_assert_eq (dlq_job_store_set_state (store, want.id, 1u << DLQ_JOB_RUNNING, DLQ_JOB_CANCELLED, NOW + 500,
                                           NULL), DLQ_STORE_OK);
    dlq_state_store_t *second = open_state ();
    dlq_state_store_destroy (&second);
    dlq_state_store_destroy (&store);
    exec_in ("dlq.sqlite", "INSERT INTO replay_jobs VALUES ('0190a1b2-0000-7000-9000-000000000003', 'RUNNING',"
                           " '{}', NULL, 0, 0, 0, 0, 0, 0, NULL, 1781015533502, 1781015533502)");
    store = open_state ();
    want.state = DLQ_JOB_CANCELLED;
    want.updated_at = NOW + 500;
    expect_job (store, &want);
    cr_assert_str_eq (list_jobs (store, false, 100), "2,1", "a job the old file gained later is not taken");
    dlq_state_store_destroy (&store);
    dlq_replay_job_clear (&want);
}

Test (job_store, a_data_dir_without_the_embedded_file_or_its_table_takes_nothing)
{
    dlq_state_store_t *store = open_state ();
    cr_assert_str_eq (list_jobs (store, false, 100), "");
    dlq_state_store_destroy (&store);
    test_rmtree (tmp_dir);
    test_tmpdir (tmp_dir);
    exec_in ("dlq.sqlite", "CREATE TABLE events (seq INTEGER PRIMARY KEY)");     /* before schema version 5 */
    store = open_state ();
    cr_assert_str_eq (list_jobs (store, false, 100), "");
    dlq_state_store_destroy (&store);
}


/* ------------------------------------------------------------------------ */
/* What opening refuses */

static void
expect_open_fails (const char *want)
{
    char err [512] = "";
    cr_assert_null (dlq_state_store_open (tmp_dir, err, sizeof err));
    cr_assert_not_null (strstr (err, want), "err: %s", err);
}

Test (job_store, a_newer_schema_is_refused)
{
    dlq_state_store_t *store = open_state ();
    dlq_state_store_destroy (&store);
    exec_in (DLQ_STATE_STORE_FILE, "UPDATE meta SET value = '3' WHERE key = 'schema_version'");
    expect_open_fails ("has schema version 3; this dlqd knows up to 2");
}

Test (job_store, a_file_that_is_no_database_is_refused)
{
    char path [512];
    snprintf (path, sizeof path, "%s/%s", tmp_dir, DLQ_STATE_STORE_FILE);
    FILE *f = fopen (path, "w");
    cr_assert_not_null (f);
    fputs ("this is not a SQLite database, but it is long enough to have a header of one............\n", f);
    fclose (f);
    expect_open_fails (DLQ_STATE_STORE_FILE);
}

Test (job_store, a_damaged_embedded_file_stops_the_take_over)
{
    char path [512];
    snprintf (path, sizeof path, "%s/dlq.sqlite", tmp_dir);
    FILE *f = fopen (path, "w");
    cr_assert_not_null (f);
    fputs ("garbage where the embedded store's file should be..........................................\n", f);
    fclose (f);
    expect_open_fails ("replay jobs");
    /* nothing was recorded as taken: once the file is right, the jobs come */
    unlink (path);
    make_embedded_jobs ();
    dlq_state_store_t *store = open_state ();
    cr_assert_str_eq (list_jobs (store, false, 100), "2,1");
    dlq_state_store_destroy (&store);
}

Test (job_store, a_missing_data_dir_is_refused)
{
    char err [512] = "";
    char missing [512];
    snprintf (missing, sizeof missing, "%s/nope", tmp_dir);
    cr_assert_null (dlq_state_store_open (missing, err, sizeof err));
    cr_assert_not_null (strstr (err, "state.sqlite"), "err: %s", err);
}
