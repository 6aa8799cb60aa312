/*  test_uuid — UUIDv7 layout, ordering, uniqueness across threads and
 *  processes, and UUID text parsing. */
#include "dlq_time.h"
#include "dlq_uuid.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define LIT(s) s, sizeof (s) - 1

static uint64_t
hex_field (const char *s, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s [i];
        v = v << 4 | (uint64_t) (c <= '9' ? c - '0' : c - 'a' + 10);
    }
    return v;
}

/* The 48-bit unix ms of a UUIDv7 text. */
static int64_t
embedded_ms (const char *id)
{
    return (int64_t) (hex_field (id, 8) << 16 | hex_field (id + 9, 4));
}

/* The 12-bit rand_a field, which holds the counter. */
static unsigned
embedded_counter (const char *id)
{
    return (unsigned) hex_field (id + 15, 3);
}

static void
check_layout (const char *id)
{
    cr_assert_eq (strlen (id), DLQ_UUID_LEN, "%s", id);
    for (size_t i = 0; i < DLQ_UUID_LEN; i++) {
        if (i == 8 || i == 13 || i == 18 || i == 23)
            cr_assert_eq (id [i], '-', "%s", id);
        else
            cr_assert (strchr ("0123456789abcdef", id [i]) && id [i], "%s: not lowercase hex", id);
    }
    cr_assert_eq (id [14], '7', "%s: version", id);
    cr_assert (strchr ("89ab", id [19]) != NULL, "%s: variant", id);
}

Test (uuid, v7_layout_and_embedded_ms)
{
    int64_t now = dlq_time_now_ms ();
    char id [DLQ_UUID_LEN + 1];
    dlq_uuid_v7 (now, id);
    check_layout (id);
    cr_expect_eq (embedded_ms (id), now, "%s embeds %lld, want %lld", id, (long long) embedded_ms (id),
                  (long long) now);
    char parsed [DLQ_UUID_LEN + 1];
    cr_expect (dlq_uuid_parse (id, DLQ_UUID_LEN, parsed));
    cr_expect_str_eq (parsed, id);

    dlq_uuid_v7 (0x0190F1D26C4E, id);
    cr_expect_eq (strncmp (id, "0190f1d2-6c4e-7", 15), 0, "%s", id);
}

Test (uuid, tight_loop_is_strictly_increasing_and_unique)
{
    enum { N = 10000 };
    static char ids [N][DLQ_UUID_LEN + 1];
    int64_t start = dlq_time_now_ms ();
    for (int i = 0; i < N; i++)
        dlq_uuid_v7 (dlq_time_now_ms (), ids [i]);
    int64_t end = dlq_time_now_ms ();
    for (int i = 0; i < N; i++) {
        check_layout (ids [i]);
        cr_assert_geq (embedded_ms (ids [i]), start, "%s", ids [i]);
        cr_assert_leq (embedded_ms (ids [i]), end + N / 4096 + 1, "%s", ids [i]);
        if (i)
            cr_assert_lt (strcmp (ids [i - 1], ids [i]), 0, "%d: %s then %s", i, ids [i - 1], ids [i]);
    }
}

/* 4096 ids fit in one ms; the next one borrows the following ms. */
Test (uuid, counter_orders_ids_and_overflow_borrows_next_ms)
{
    int64_t ms = dlq_time_now_ms () + 3600 * 1000;
    char prev [DLQ_UUID_LEN + 1] = "", id [DLQ_UUID_LEN + 1];
    for (unsigned i = 0; i < 3 * 4096 + 10; i++) {
        dlq_uuid_v7 (ms, id);
        cr_assert_eq (embedded_ms (id), ms + i / 4096, "id %u: %s", i, id);
        cr_assert_eq (embedded_counter (id), i % 4096, "id %u: %s", i, id);
        cr_assert_lt (strcmp (prev, id), 0, "id %u: %s then %s", i, prev, id);
        memcpy (prev, id, sizeof id);
    }
    dlq_uuid_v7 (ms + 10, id);
    cr_expect_eq (embedded_ms (id), ms + 10, "a new ms restarts the counter: %s", id);
    cr_expect_eq (embedded_counter (id), 0);
}

Test (uuid, small_clock_steps_back_keep_order_large_ones_are_honoured)
{
    int64_t ms = dlq_time_now_ms () + 7200 * 1000;
    char a [DLQ_UUID_LEN + 1], b [DLQ_UUID_LEN + 1];
    dlq_uuid_v7 (ms, a);
    dlq_uuid_v7 (ms - 5, b);
    cr_expect_lt (strcmp (a, b), 0, "a 5 ms step back still sorts after: %s then %s", a, b);
    cr_expect_eq (embedded_ms (b), ms);
    cr_expect_eq (embedded_counter (b), 1);

    dlq_uuid_v7 (ms - 3600 * 1000, b);
    cr_expect_eq (embedded_ms (b), ms - 3600 * 1000, "an hour back is embedded as given: %s", b);
    cr_expect_eq (embedded_counter (b), 0);
}

Test (uuid, out_of_range_ms_is_clamped)
{
    char id [DLQ_UUID_LEN + 1];
    dlq_uuid_v7 (-5, id);
    check_layout (id);
    cr_expect_eq (strncmp (id, "00000000-0000-7", 15), 0, "%s", id);
    dlq_uuid_v7 (INT64_MAX, id);
    check_layout (id);
    cr_expect_eq (strncmp (id, "ffffffff-ffff-7", 15), 0, "%s", id);
}

static int
compare_ids (const void *a, const void *b)
{
    return strcmp (a, b);
}

/* The 62 random bits differ from id to id and cover every variant nibble. */
Test (uuid, random_bits_vary)
{
    enum { N = 2000 };
    static char tails [N][17];
    bool variant_seen [4] = { false };
    for (int i = 0; i < N; i++) {
        char id [DLQ_UUID_LEN + 1];
        dlq_uuid_v7 (1000000, id);
        memcpy (tails [i], id + 19, 4);
        memcpy (tails [i] + 4, id + 24, 12);
        tails [i][16] = '\0';
        variant_seen [strchr ("89ab", id [19]) - "89ab"] = true;
    }
    qsort (tails, N, sizeof *tails, compare_ids);
    for (int i = 1; i < N; i++)
        cr_assert_str_neq (tails [i - 1], tails [i]);
    for (int v = 0; v < 4; v++)
        cr_expect (variant_seen [v], "variant nibble %c never seen", "89ab" [v]);
}

enum { THREADS = 4, PER_THREAD = 25000 };

typedef struct {
    char (*ids) [DLQ_UUID_LEN + 1];
    bool ordered;
} worker_t;

static void *
generate (void *arg)
{
    worker_t *w = arg;
    w->ordered = true;
    for (int i = 0; i < PER_THREAD; i++) {
        dlq_uuid_v7 (dlq_time_now_ms (), w->ids [i]);
        if (i && strcmp (w->ids [i - 1], w->ids [i]) >= 0)
            w->ordered = false;
    }
    return NULL;
}

Test (uuid, concurrent_threads_make_no_duplicates)
{
    char (*all) [DLQ_UUID_LEN + 1] = calloc (THREADS * PER_THREAD, DLQ_UUID_LEN + 1);
    pthread_t threads [THREADS];
    worker_t workers [THREADS];
    for (int t = 0; t < THREADS; t++) {
        workers [t].ids = all + t * PER_THREAD;
        cr_assert_eq (pthread_create (&threads [t], NULL, generate, &workers [t]), 0);
    }
    for (int t = 0; t < THREADS; t++) {
        pthread_join (threads [t], NULL);
        cr_expect (workers [t].ordered, "thread %d saw its ids go backwards", t);
    }
    qsort (all, THREADS * PER_THREAD, DLQ_UUID_LEN + 1, compare_ids);
    for (int i = 0; i < THREADS * PER_THREAD; i++) {
        check_layout (all [i]);
        if (i)
            cr_assert_str_neq (all [i - 1], all [i], "duplicate id at %d", i);
    }
    free (all);
}

/* A forked child must not reuse the random bytes its parent had buffered:
 * with the same (ms, counter) the two ids must still differ. */
Test (uuid, fork_does_not_repeat_random_bits)
{
    char id [DLQ_UUID_LEN + 1], child_id [DLQ_UUID_LEN + 1] = "";
    dlq_uuid_v7 (dlq_time_now_ms (), id);
    int fds [2];
    cr_assert_eq (pipe (fds), 0);
    int64_t ms = dlq_time_now_ms () + 86400 * 1000;
    pid_t pid = fork ();
    cr_assert_neq (pid, -1);
    if (pid == 0) {
        dlq_uuid_v7 (ms, id);
        ssize_t w = write (fds [1], id, DLQ_UUID_LEN);
        _exit (w == DLQ_UUID_LEN ? 0 : 1);
    }
    dlq_uuid_v7 (ms, id);
    cr_assert_eq (read (fds [0], child_id, DLQ_UUID_LEN), DLQ_UUID_LEN);
    int status;
    waitpid (pid, &status, 0);
    close (fds [0]);
    close (fds [1]);
    cr_expect_eq (strncmp (id, child_id, 19), 0, "same stamp expected: %s / %s", id, child_id);
    cr_expect_str_neq (id, child_id);
}

/* ---------------------------------------------------------------- parse */

Test (uuid, parse_accepts_either_case_and_lowercases)
{
    static const struct {
        const char *in;
        const char *out;
    } cases [] = {
        { "0190f1d2-6c4e-7a01-8b2c-3d4e5f607182", "0190f1d2-6c4e-7a01-8b2c-3d4e5f607182" },
        { "0190F1D2-6C4E-7A01-8B2C-3D4E5F607182", "0190f1d2-6c4e-7a01-8b2c-3d4e5f607182" },
        { "0190f1D2-6C4e-7a01-8B2c-3d4E5f607182", "0190f1d2-6c4e-7a01-8b2c-3d4e5f607182" },
        { "00000000-0000-0000-0000-000000000000", "00000000-0000-0000-0000-000000000000" },
        { "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF", "ffffffff-ffff-ffff-ffff-ffffffffffff" },
        { "123e4567-e89b-12d3-a456-426614174000", "123e4567-e89b-12d3-a456-426614174000" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char out [DLQ_UUID_LEN + 1];
        memset (out, 'x', sizeof out);
        cr_expect (dlq_uuid_parse (cases [i].in, strlen (cases [i].in), out), "%s", cases [i].in);
        cr_expect_str_eq (out, cases [i].out);
        cr_expect (dlq_uuid_parse (cases [i].in, strlen (cases [i].in), NULL));
    }
}

Test (uuid, parse_rejects)
{
    static const struct {
        const char *in;
        size_t      len;
    } cases [] = {
        { LIT ("") },
        { LIT ("0190f1d2-6c4e-7a01-8b2c-3d4e5f60718") },
        { LIT ("0190f1d2-6c4e-7a01-8b2c-3d4e5f6071822") },
        { LIT ("0190f1d26c4e7a018b2c3d4e5f607182") },
        { LIT ("0190f1d2-6c4e-7a018b2c-3d4e5f607182") },
        { LIT ("0190f1d2-6c4e-7a01-8b2c3d4e5f607182-") },
        { LIT ("0190f1d-26c4e-7a01-8b2c-3d4e5f607182") },
        { LIT ("0190f1d2_6c4e_7a01_8b2c_3d4e5f607182") },
        { LIT ("0190f1d2-6c4e-7a01-8b2c-3d4e5f60718g") },
        { LIT ("g190f1d2-6c4e-7a01-8b2c-3d4e5f607182") },
        { LIT ("0190f1d2-6c4e-7a01-8b2c-3d4e5f60718 ") },
        { LIT (" 0190f1d2-6c4e-7a01-8b2c-3d4e5f60718") },
        { LIT ("0190f1d2-6c4e-7a01-8b2c-3d4e5f6071\0" "2") },
        { LIT ("{0190f1d2-6c4e-7a01-8b2c-3d4e5f6071}") },
        { LIT ("0190f1d2-6c4e-7a01-8b2c-3d4e5f6071\xc3\xa9") },
        { LIT ("urn:uuid:0190f1d2-6c4e-7a01-8b2c-3d4e5f607182") },
        { LIT ("0190f1d2+6c4e-7a01-8b2c-3d4e5f607182") },
        { LIT ("------------------------------------") },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char out [DLQ_UUID_LEN + 1] = "untouched";
        cr_expect_not (dlq_uuid_parse (cases [i].in, cases [i].len, out), "case %zu: %s", i, cases [i].in);
        cr_expect_str_eq (out, "untouched", "case %zu", i);
    }
    cr_expect_not (dlq_uuid_parse ("0190f1d2-6c4e-7a01-8b2c-3d4e5f607182", 35, NULL), "length governs");
}
