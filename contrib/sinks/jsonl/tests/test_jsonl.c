/*  test_jsonl — the jsonl sink, loaded as dlqd loads it (dlopen of the
 *  built module, then its entry symbol), driven through a small fake host
 *  whose config values come from a table and fall back to the plugin's own
 *  schema defaults, as the real host's do.
 */
#include <dlq_sink.h>

#include <criterion/criterion.h>

#include <dlfcn.h>
#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_KEYS   8
#define MAX_LINES  1024
#define EVENT_MAX  96

/* The fake host's view of one sink instance: settings, counters, last log. */
struct dlq_sink_config {
    const char *keys [MAX_KEYS];
    const char *values [MAX_KEYS];
    uint64_t    delivered;
    uint64_t    rotations;
    char        last_log [512];
};

/* One event of a test batch and the JSON it carries. */
typedef struct {
    char             json [EVENT_MAX];
    char             id [40];
    dlq_sink_event_t event;
} test_event_t;

static void *handle;
static const dlq_sink_ops_t *ops;
static char dir [64];

/* ---- the fake host ------------------------------------------------------- */

static pthread_mutex_t host_lock = PTHREAD_MUTEX_INITIALIZER;

/* The setting's schema entry (it must be there, as the real host checks). */
static const dlq_sink_setting_t *
schema (const char *name)
{
    for (const dlq_sink_setting_t *s = ops->settings; s->name; s++)
        if (strcmp (s->name, name) == 0)
            return s;
    cr_assert_fail ("the sink asked for %s, which is not in its schema", name);
    return NULL;
}

/* A value from the table, else the schema's default (NULL: none). */
static const char *
value (const dlq_sink_config_t *config, const char *name)
{
    for (int i = 0; i < MAX_KEYS && config->keys [i]; i++)
        if (strcmp (config->keys [i], name) == 0)
            return config->values [i];
    return schema (name)->default_value;
}

static void
host_log (const dlq_sink_config_t *config, dlq_sink_log_level_t level, const char *fmt, ...)
{
    va_list args;
    va_start (args, fmt);
    vsnprintf (((dlq_sink_config_t *) config)->last_log, sizeof config->last_log, fmt, args);
    va_end (args);
}

static void
host_count (const dlq_sink_config_t *config, const char *name, uint64_t n)
{
    dlq_sink_config_t *counters = (dlq_sink_config_t *) config;
    pthread_mutex_lock (&host_lock);
    if (strcmp (name, "delivered") == 0)
        counters->delivered += n;
    else if (strcmp (name, "rotations") == 0)
        counters->rotations += n;
    pthread_mutex_unlock (&host_lock);
}

static int64_t
host_now_ms (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_REALTIME, &ts);
    return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t
host_mono_ms (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const char *
host_name (const dlq_sink_config_t *config)
{
    return "audit";
}

static int64_t
host_config_int (const dlq_sink_config_t *config, const char *stream, const char *name)
{
    cr_assert_eq (schema (name)->type, DLQ_SINK_SETTING_INT);
    const char *text = value (config, name);
    return text ? strtoll (text, NULL, 10) : 0;
}

static bool
host_config_bool (const dlq_sink_config_t *config, const char *stream, const char *name)
{
    cr_assert_eq (schema (name)->type, DLQ_SINK_SETTING_BOOL);
    const char *text = value (config, name);
    return text && strcmp (text, "true") == 0;
}

static const char *
host_config_string (const dlq_sink_config_t *config, const char *stream, const char *name)
{
    cr_assert_eq (schema (name)->type, DLQ_SINK_SETTING_STRING);
    return value (config, name);
}

static size_t
host_config_list (const dlq_sink_config_t *config, const char *stream, const char *name,
                  const char *const **items)
{
    cr_assert_eq (schema (name)->type, DLQ_SINK_SETTING_STRING_LIST);
    *items = NULL;
    return 0;
}

static void
host_append (dlq_sink_buf_t *buf, const char *data, size_t len)
{
    cr_assert_fail ("a deliver-only sink wrote to a host buffer");
}

static const dlq_sink_host_t host = {
    .abi_version   = DLQ_SINK_ABI_VERSION,
    .struct_size   = sizeof (dlq_sink_host_t),
    .log           = host_log,
    .count         = host_count,
    .now_ms        = host_now_ms,
    .mono_ms       = host_mono_ms,
    .name          = host_name,
    .config_int    = host_config_int,
    .config_bool   = host_config_bool,
    .config_string = host_config_string,
    .config_list   = host_config_list,
    .append        = host_append
};

/* ---- helpers -------------------------------------------------------------- */

/* Load the plugin and make a scratch directory. */
static void
setup (void)
{
    handle = dlopen (JSONL_PLUGIN, RTLD_NOW | RTLD_LOCAL);
    cr_assert_not_null (handle, "dlopen %s: %s", JSONL_PLUGIN, dlerror ());
    ops = dlsym (handle, DLQ_SINK_ENTRY);
    cr_assert_not_null (ops, "no %s in %s", DLQ_SINK_ENTRY, JSONL_PLUGIN);
    snprintf (dir, sizeof dir, "/tmp/test_jsonl.XXXXXX");
    cr_assert_not_null (mkdtemp (dir));
}

static int
remove_entry (const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove (path);
}

/* Remove the scratch directory and unload the plugin. */
static void
teardown (void)
{
    nftw (dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    dlclose (handle);
}

TestSuite (jsonl, .init = setup, .fini = teardown);

/* A path in the scratch directory (static buffers, one per call slot). */
static const char *
scratch (const char *name)
{
    static char paths [4][256];
    static int slot;
    char *path = paths [slot++ % 4];
    snprintf (path, 256, "%s/%s", dir, name);
    return path;
}

/* Event n of stream: every event's JSON has the same length. */
static void
make_event (test_event_t *te, int n, const char *stream)
{
    snprintf (te->id, sizeof te->id, "00000000-0000-4000-8000-%012d", n);
    snprintf (te->json, sizeof te->json, "{\"id\":\"%s\",\"streamName\":\"%s\",\"n\":%04d}",
              te->id, stream, n);
    te->event = (dlq_sink_event_t) {
        .id = te->id, .stream_name = stream, .status = "PENDING", .attempts = 1,
        .first_attempt_at = DLQ_SINK_TIME_NONE, .created_at = 0, .expires_at = DLQ_SINK_TIME_NONE,
        .json = te->json, .json_len = strlen (te->json), .delivery_attempt = 1
    };
}

/* The length of each test event's line, newline included. */
static size_t
line_length (void)
{
    test_event_t te;
    make_event (&te, 0, "s");
    return te.event.json_len + 1;
}

/* Init an instance with config, which must succeed. */
static void *
start (dlq_sink_config_t *config)
{
    void *instance = NULL;
    char err [256] = "";
    cr_assert_eq (ops->init (&host, config, DLQ_SINK_MODE_DELIVER, &instance, err, sizeof err),
                  DLQ_SINK_STATUS_OK, "init: %s", err);
    return instance;
}

/* Deliver events [first, first + count) of stream, outcomes zeroed as the
 * gateway does; returns how many were OK. */
static size_t
deliver (void *instance, int first, size_t count, const char *stream, dlq_sink_outcome_t *outcomes)
{
    test_event_t *tes = calloc (count, sizeof *tes);
    dlq_sink_event_t *events = calloc (count, sizeof *events);
    for (size_t i = 0; i < count; i++) {
        make_event (&tes [i], first + (int) i, stream);
        events [i] = tes [i].event;
    }
    memset (outcomes, 0, count * sizeof *outcomes);
    ops->deliver (instance, events, count, outcomes, host_mono_ms () + 5000);
    size_t ok = 0;
    for (size_t i = 0; i < count; i++)
        ok += outcomes [i].result == DLQ_SINK_OK;
    free (events);
    free (tes);
    return ok;
}

/* The lines of a file (newlines stripped) into lines; returns how many, or
 * -1 when the file does not exist. Each line is malloc'd. */
static int
read_lines (const char *path, char **lines, int max)
{
    FILE *file = fopen (path, "r");
    if (!file)
        return -1;
    int count = 0;
    char *line = NULL;
    size_t size = 0;
    ssize_t len;
    while ((len = getline (&line, &size, file)) > 0) {
        cr_assert_eq (line [len - 1], '\n', "%s: a line without its newline", path);
        cr_assert_lt (count, max);
        line [len - 1] = 0;
        lines [count++] = strdup (line);
    }
    free (line);
    fclose (file);
    return count;
}

/* Every line of the rotated files, oldest first (file.<keep> ... file),
 * checking that no file is bigger than max_bytes; returns how many. */
static int
read_all (const char *base, int keep, char **lines, size_t max_bytes)
{
    int total = 0;
    for (int n = keep; n >= 0; n--) {
        char path [300];
        if (n > 0)
            snprintf (path, sizeof path, "%s.%d", base, n);
        else
            snprintf (path, sizeof path, "%s", base);
        struct stat st;
        if (stat (path, &st) == 0)
            cr_assert_leq ((size_t) st.st_size, max_bytes, "%s is %lld bytes", path, (long long) st.st_size);
        int count = read_lines (path, lines + total, MAX_LINES - total);
        total += count > 0 ? count : 0;
    }
    return total;
}

/* Assert that lines hold events first, first + 1, ... of stream. */
static void
assert_events (char **lines, int count, int first, const char *stream)
{
    for (int i = 0; i < count; i++) {
        test_event_t te;
        make_event (&te, first + i, stream);
        cr_assert_str_eq (lines [i], te.json, "line %d", i);
        free (lines [i]);
    }
}

/* ---- the entry and its ABI ----------------------------------------------------- */

Test (jsonl, entry_and_abi)
{
    cr_assert_eq (ops->abi_version, DLQ_SINK_ABI_VERSION);
    cr_assert_eq (ops->struct_size, sizeof (dlq_sink_ops_t));
    cr_assert_str_eq (ops->type, "jsonl");
    cr_assert_not_null (ops->description);
    cr_assert (ops->init && ops->deliver && ops->destroy);
    cr_assert_null (ops->store);
    cr_assert_null (dlsym (handle, "jsonl_init"), "internal symbols must stay hidden");
}

Test (jsonl, settings_schema)
{
    const dlq_sink_setting_t *file = schema ("file");
    cr_assert_eq (file->type, DLQ_SINK_SETTING_STRING);
    cr_assert_null (file->default_value);
    cr_assert_eq (file->min, 1);
    cr_assert_str_eq (schema ("max_bytes")->default_value, "104857600");
    const dlq_sink_setting_t *keep = schema ("keep");
    cr_assert_str_eq (keep->default_value, "5");
    cr_assert (keep->min == 1 && keep->max == 1000);
    cr_assert_eq (schema ("fsync")->type, DLQ_SINK_SETTING_BOOL);
    cr_assert_str_eq (schema ("fsync")->default_value, "true");
    int count = 0;
    for (const dlq_sink_setting_t *s = ops->settings; s->name; s++)
        count++;
    cr_assert_eq (count, 4);
}

Test (jsonl, file_is_required)
{
    dlq_sink_config_t config = { .keys = { NULL } };
    void *instance = NULL;
    char err [256] = "";
    cr_assert_eq (ops->init (&host, &config, DLQ_SINK_MODE_DELIVER, &instance, err, sizeof err),
                  DLQ_SINK_STATUS_ERROR);
    cr_assert_str_eq (err, "file is required");
    cr_assert_null (instance);
}

/* ---- delivery ---------------------------------------------------------------- */

Test (jsonl, one_line_per_event_in_order)
{
    const char *path = scratch ("dlq.jsonl");
    dlq_sink_config_t config = { .keys = { "file" }, .values = { path } };
    void *instance = start (&config);
    dlq_sink_outcome_t outcomes [3];
    cr_assert_eq (deliver (instance, 0, 3, "orders", outcomes), 3);
    cr_assert_eq (deliver (instance, 3, 2, "orders", outcomes), 2);
    cr_assert_eq (deliver (instance, 5, 1, "orders", outcomes), 1);
    ops->destroy (instance);

    char *lines [MAX_LINES];
    cr_assert_eq (read_lines (path, lines, MAX_LINES), 6);
    assert_events (lines, 6, 0, "orders");
    cr_assert_eq (config.delivered, 6);
    cr_assert_eq (config.rotations, 0);
}

Test (jsonl, appends_to_an_existing_file)
{
    const char *path = scratch ("dlq.jsonl");
    FILE *file = fopen (path, "w");
    fputs ("{\"before\":true}\n", file);
    fclose (file);
    dlq_sink_config_t config = { .keys = { "file", "fsync" }, .values = { path, "false" } };
    void *instance = start (&config);
    dlq_sink_outcome_t outcomes [2];
    cr_assert_eq (deliver (instance, 0, 2, "s", outcomes), 2);
    ops->destroy (instance);

    char *lines [MAX_LINES];
    cr_assert_eq (read_lines (path, lines, MAX_LINES), 3);
    cr_assert_str_eq (lines [0], "{\"before\":true}");
    free (lines [0]);
    assert_events (lines + 1, 2, 0, "s");
}

/* A batch a crash cut short (found by contrib/chaos: a SIGKILL stops a
 * write() between pages) leaves a torn last line; the next line must not
 * continue it, or a reader loses both. */
Test (jsonl, a_torn_last_line_is_cut_off_before_the_next_batch)
{
    const char *path = scratch ("dlq.jsonl");
    FILE *file = fopen (path, "w");
    fputs ("{\"before\":true}\n{\"id\":\"00000000-0000-4000-8000-0000000", file);
    fclose (file);
    dlq_sink_config_t config = { .keys = { "file", "fsync" }, .values = { path, "true" } };
    void *instance = start (&config);
    cr_expect_not_null (strstr (config.last_log, "cut a torn last line of 38 bytes"), "log: %s",
                        config.last_log);
    dlq_sink_outcome_t outcomes [2];
    cr_assert_eq (deliver (instance, 0, 2, "s", outcomes), 2);
    ops->destroy (instance);

    char *lines [MAX_LINES];
    cr_assert_eq (read_lines (path, lines, MAX_LINES), 3);
    cr_assert_str_eq (lines [0], "{\"before\":true}");
    free (lines [0]);
    assert_events (lines + 1, 2, 0, "s");
}

Test (jsonl, a_file_of_one_torn_line_is_emptied)
{
    const char *path = scratch ("dlq.jsonl");
    FILE *file = fopen (path, "w");
    fputs ("{\"id\":\"00000000", file);
    fclose (file);
    dlq_sink_config_t config = { .keys = { "file", "fsync" }, .values = { path, "false" } };
    void *instance = start (&config);
    dlq_sink_outcome_t outcomes [1];
    cr_assert_eq (deliver (instance, 7, 1, "s", outcomes), 1);
    ops->destroy (instance);

    char *lines [MAX_LINES];
    cr_assert_eq (read_lines (path, lines, MAX_LINES), 1);
    assert_events (lines, 1, 7, "s");
}

Test (jsonl, an_event_that_cannot_be_a_line_fails)
{
    const char *path = scratch ("dlq.jsonl");
    dlq_sink_config_t config = { .keys = { "file" }, .values = { path } };
    void *instance = start (&config);
    test_event_t tes [3];
    dlq_sink_event_t events [3];
    for (int i = 0; i < 3; i++) {
        make_event (&tes [i], i, "s");
        events [i] = tes [i].event;
    }
    events [1].json = "{\"a\":\n1}";
    events [1].json_len = strlen (events [1].json);
    dlq_sink_outcome_t outcomes [3] = { { 0 } };
    ops->deliver (instance, events, 3, outcomes, host_mono_ms () + 5000);
    ops->destroy (instance);

    cr_assert_eq (outcomes [0].result, DLQ_SINK_OK);
    cr_assert_eq (outcomes [1].result, DLQ_SINK_FAIL);
    cr_assert (strstr (outcomes [1].message, "line break"), "%s", outcomes [1].message);
    cr_assert_eq (outcomes [2].result, DLQ_SINK_OK);
    char *lines [MAX_LINES];
    cr_assert_eq (read_lines (path, lines, MAX_LINES), 2);
    cr_assert_str_eq (lines [0], tes [0].json);
    cr_assert_str_eq (lines [1], tes [2].json);
    free (lines [0]);
    free (lines [1]);
}

/* ---- rotation ---------------------------------------------------------------- */

Test (jsonl, rotation_loses_nothing)
{
    const char *path = scratch ("dlq.jsonl");
    size_t max_bytes = 3 * line_length ();
    char max [32];
    snprintf (max, sizeof max, "%zu", max_bytes);
    dlq_sink_config_t config = { .keys = { "file", "max_bytes", "keep" }, .values = { path, max, "10" } };
    void *instance = start (&config);
    dlq_sink_outcome_t outcomes [4];
    for (int first = 0; first < 20; first += 4)
        cr_assert_eq (deliver (instance, first, 4, "s", outcomes), 4);
    ops->destroy (instance);

    char *lines [MAX_LINES];
    cr_assert_eq (read_all (path, 10, lines, max_bytes), 20);
    assert_events (lines, 20, 0, "s");
    cr_assert_eq (access (scratch ("dlq.jsonl.1"), F_OK), 0);
    cr_assert_eq (access (scratch ("dlq.jsonl.2"), F_OK), 0);
    cr_assert_eq (access (scratch ("dlq.jsonl.7"), F_OK), -1, "20 lines make 7 files of 3");
    cr_assert_eq (config.rotations, 6);
    cr_assert_eq (config.delivered, 20);
}

Test (jsonl, rotation_keeps_keep_files)
{
    const char *path = scratch ("dlq.jsonl");
    size_t max_bytes = 2 * line_length ();
    char max [32];
    snprintf (max, sizeof max, "%zu", max_bytes);
    dlq_sink_config_t config = { .keys = { "file", "max_bytes", "keep" }, .values = { path, max, "2" } };
    void *instance = start (&config);
    dlq_sink_outcome_t outcomes [10];
    cr_assert_eq (deliver (instance, 0, 10, "s", outcomes), 10);
    ops->destroy (instance);

    cr_assert_eq (access (scratch ("dlq.jsonl.3"), F_OK), -1);
    char *lines [MAX_LINES];
    cr_assert_eq (read_all (path, 3, lines, max_bytes), 6, "file.2, file.1 and file: 2 lines each");
    assert_events (lines, 6, 4, "s");
}

Test (jsonl, a_line_longer_than_max_bytes_gets_a_file_of_its_own)
{
    const char *path = scratch ("dlq.jsonl");
    dlq_sink_config_t config = { .keys = { "file", "max_bytes" }, .values = { path, "10" } };
    void *instance = start (&config);
    dlq_sink_outcome_t outcomes [3];
    cr_assert_eq (deliver (instance, 0, 3, "s", outcomes), 3);
    ops->destroy (instance);

    char *lines [MAX_LINES];
    for (int n = 2; n >= 0; n--) {
        char name [32];
        snprintf (name, sizeof name, n ? "dlq.jsonl.%d" : "dlq.jsonl", n);
        cr_assert_eq (read_lines (scratch (name), lines, MAX_LINES), 1, "%s", name);
        assert_events (lines, 1, 2 - n, "s");
    }
}

/* Deliveries of one instance on its own thread: 50 batches of 5 events of
 * its stream. */
static void *
deliver_many (void *instance)
{
    const char *stream = ((void **) instance) [1];
    for (int batch = 0; batch < 50; batch++) {
        dlq_sink_outcome_t outcomes [5];
        cr_assert_eq (deliver (((void **) instance) [0], batch * 5, 5, stream, outcomes), 5);
    }
    return NULL;
}

Test (jsonl, instances_on_one_file_share_it)
{
    const char *path = scratch ("dlq.jsonl");
    char max [32];
    snprintf (max, sizeof max, "%zu", 7 * line_length ());
    dlq_sink_config_t config = { .keys = { "file", "max_bytes", "keep", "fsync" },
                                 .values = { path, max, "1000", "false" } };
    void *a [2] = { start (&config), "a" };
    void *b [2] = { start (&config), "b" };
    pthread_t ta, tb;
    pthread_create (&ta, NULL, deliver_many, a);
    pthread_create (&tb, NULL, deliver_many, b);
    pthread_join (ta, NULL);
    pthread_join (tb, NULL);
    ops->destroy (a [0]);
    ops->destroy (b [0]);

    static char *lines [MAX_LINES];
    int count = read_all (path, 1000, lines, 7 * line_length ());
    cr_assert_eq (count, 500);
    int next [2] = { 0, 0 };
    for (int i = 0; i < count; i++) {
        int s = strstr (lines [i], "\"streamName\":\"a\"") ? 0 : 1;
        test_event_t te;
        make_event (&te, next [s]++, s ? "b" : "a");
        cr_assert_str_eq (lines [i], te.json, "each stream's lines are whole and in order");
        free (lines [i]);
    }
    cr_assert (next [0] == 250 && next [1] == 250);
}

/* ---- I/O errors -------------------------------------------------------------- */

Test (jsonl, an_unwritable_path_is_retry_until_it_is_fixed)
{
    const char *blocker = scratch ("blocker");
    FILE *file = fopen (blocker, "w");
    fclose (file);
    char path [256];
    snprintf (path, sizeof path, "%s/dlq.jsonl", blocker);
    dlq_sink_config_t config = { .keys = { "file" }, .values = { path } };
    void *instance = start (&config);
    cr_assert (strstr (config.last_log, "Not a directory"), "init warns: %s", config.last_log);

    dlq_sink_outcome_t outcomes [3];
    cr_assert_eq (deliver (instance, 0, 3, "s", outcomes), 0);
    for (int i = 0; i < 3; i++) {
        cr_assert_eq (outcomes [i].result, DLQ_SINK_RETRY);
        cr_assert (strstr (outcomes [i].message, strerror (ENOTDIR)), "%s", outcomes [i].message);
        cr_assert (strstr (outcomes [i].message, path), "%s", outcomes [i].message);
    }
    cr_assert_eq (unlink (blocker), 0);
    cr_assert_eq (mkdir (blocker, 0755), 0);
    cr_assert_eq (deliver (instance, 0, 3, "s", outcomes), 3);
    ops->destroy (instance);

    char *lines [MAX_LINES];
    cr_assert_eq (read_lines (path, lines, MAX_LINES), 3);
    assert_events (lines, 3, 0, "s");
}

Test (jsonl, a_file_removed_by_hand_is_created_again)
{
    const char *path = scratch ("dlq.jsonl");
    dlq_sink_config_t config = { .keys = { "file" }, .values = { path } };
    void *instance = start (&config);
    dlq_sink_outcome_t outcomes [2];
    cr_assert_eq (deliver (instance, 0, 2, "s", outcomes), 2);
    cr_assert_eq (unlink (path), 0);
    cr_assert_eq (deliver (instance, 2, 2, "s", outcomes), 2);
    ops->destroy (instance);

    char *lines [MAX_LINES];
    cr_assert_eq (read_lines (path, lines, MAX_LINES), 2);
    assert_events (lines, 2, 2, "s");
}
