/*  test_ledger_channel — how dispatchers hand their ledger updates to the
 *  indexer, as ledger_channel.h has it: a submit gets a ticket and makes the
 *  descriptor readable; take gives every queued update in the order
 *  submitted with the last ticket, and the descriptor is quiet until the
 *  next submit; a commit that worked wakes the waiters with true and frees
 *  the updates; one that failed wakes them with false and puts the updates
 *  back at the front, in their order, ahead of those submitted meanwhile,
 *  without making the descriptor readable; none is skipped or taken twice;
 *  an unfit update gets ticket 0 (freed; its wait is false at once); close
 *  wakes every waiter with false. Also dispatchers on threads against an
 *  indexer thread. ASan's leak check covers who frees what.
 */
#include "ledger_channel.h"

#include "delivery_ledger.h"

#include <criterion/criterion.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A fit update of sink, its cursor the marker of who made it. */
static dlq_ledger_update_t *
update (const char *sink, int64_t cursor, size_t rows)
{
    dlq_ledger_update_t *u = calloc (1, sizeof *u);
    snprintf (u->sink, sizeof u->sink, "%s", sink);
    u->cursor = cursor;
    u->delivered = 1;
    if (rows) {
        u->rows = calloc (rows, sizeof *u->rows);
        for (size_t i = 0; i < rows; i++)
            u->rows [i] = (dlq_delivery_row_t) { .seq = (int64_t) i + 1, .state = 0, .attempts = 1 };
        u->row_count = rows;
    }
    cr_assert_null (dlq_ledger_update_problem (u), "the test's update is fit");
    return u;
}

static bool
readable (dlq_ledger_channel_t *c)
{
    struct pollfd p = { .fd = dlq_ledger_channel_fd (c), .events = POLLIN };
    int n = poll (&p, 1, 0);
    cr_assert_geq (n, 0);
    return n == 1 && (p.revents & POLLIN);
}

static void
sleep_ms (int ms)
{
    struct timespec ts = { ms / 1000, (long) (ms % 1000) * 1000000L };
    nanosleep (&ts, NULL);
}

Test (ledger_channel, a_new_channel_is_quiet_and_empty)
{
    dlq_ledger_channel_t *c = dlq_ledger_channel_new ();
    cr_assert_not_null (c);
    cr_expect_geq (dlq_ledger_channel_fd (c), 0);
    cr_expect_not (readable (c));
    size_t count = 99;
    uint64_t last = 99;
    dlq_ledger_update_t **taken = dlq_ledger_channel_take (c, &count, &last);
    cr_expect_eq (count, 0);
    dlq_ledger_channel_done (c, taken, count, last, true);
    dlq_ledger_channel_destroy (&c);
    cr_expect_null (c);
}

Test (ledger_channel, updates_are_taken_in_the_order_submitted)
{
    dlq_ledger_channel_t *c = dlq_ledger_channel_new ();
    uint64_t tickets [5];
    for (int i = 0; i < 5; i++) {
        tickets [i] = dlq_ledger_channel_submit (c, update ("rabbit", 100 + i, (size_t) i));
        cr_expect_gt (tickets [i], 0);
        if (i)
            cr_expect_gt (tickets [i], tickets [i - 1], "tickets grow");
    }
    cr_expect (readable (c), "readable while updates are queued");
    size_t count = 0;
    uint64_t last = 0;
    dlq_ledger_update_t **taken = dlq_ledger_channel_take (c, &count, &last);
    cr_assert_eq (count, 5);
    cr_expect_eq (last, tickets [4], "the last ticket taken");
    for (int i = 0; i < 5; i++) {
        cr_expect_eq (taken [i]->cursor, 100 + i, "in the order submitted");
        cr_expect_eq (taken [i]->row_count, (size_t) i, "the update as submitted");
    }
    cr_expect_not (readable (c), "nothing queued after the take");
    dlq_ledger_channel_done (c, taken, count, last, true);
    for (int i = 0; i < 5; i++)
        cr_expect (dlq_ledger_channel_wait (c, tickets [i]), "ticket %d committed", i);
    dlq_ledger_channel_destroy (&c);
}

Test (ledger_channel, a_failed_commit_puts_the_updates_back_at_the_front)
{
    dlq_ledger_channel_t *c = dlq_ledger_channel_new ();
    uint64_t t1 = dlq_ledger_channel_submit (c, update ("a", 1, 1));
    uint64_t t2 = dlq_ledger_channel_submit (c, update ("a", 2, 0));
    size_t count = 0;
    uint64_t last = 0;
    dlq_ledger_update_t **taken = dlq_ledger_channel_take (c, &count, &last);
    cr_assert_eq (count, 2);
    uint64_t t3 = dlq_ledger_channel_submit (c, update ("a", 3, 2));     /* meanwhile */
    cr_expect (readable (c));
    dlq_ledger_channel_done (c, taken, count, last, false);         /* a full disk */
    cr_expect_not (dlq_ledger_channel_wait (c, t1), "its commit failed");
    cr_expect_not (dlq_ledger_channel_wait (c, t2));
    taken = dlq_ledger_channel_take (c, &count, &last);
    cr_assert_eq (count, 3, "the two put back, and the one submitted meanwhile");
    cr_expect_eq (taken [0]->cursor, 1, "put back at the front, in their order");
    cr_expect_eq (taken [1]->cursor, 2);
    cr_expect_eq (taken [2]->cursor, 3);
    cr_expect_eq (taken [0]->row_count, 1, "whole");
    cr_expect_eq (last, t3);
    dlq_ledger_channel_done (c, taken, count, last, true);
    cr_expect (dlq_ledger_channel_wait (c, t3), "committed with the next commit");
    dlq_ledger_channel_destroy (&c);
}

Test (ledger_channel, updates_put_back_do_not_make_the_descriptor_readable)
{
    dlq_ledger_channel_t *c = dlq_ledger_channel_new ();
    dlq_ledger_channel_submit (c, update ("a", 1, 0));
    size_t count = 0;
    uint64_t last = 0;
    dlq_ledger_update_t **taken = dlq_ledger_channel_take (c, &count, &last);
    dlq_ledger_channel_done (c, taken, count, last, false);
    cr_expect_not (readable (c), "a failing store is not retried in a loop");
    uint64_t t2 = dlq_ledger_channel_submit (c, update ("a", 2, 0));
    cr_expect (readable (c), "the next submit wakes the indexer");
    taken = dlq_ledger_channel_take (c, &count, &last);
    cr_expect_eq (count, 2, "and the put-back update rides along");
    dlq_ledger_channel_done (c, taken, count, last, true);
    cr_expect (dlq_ledger_channel_wait (c, t2));
    dlq_ledger_channel_destroy (&c);
}

Test (ledger_channel, repeated_failures_never_lose_or_reorder_an_update)
{
    dlq_ledger_channel_t *c = dlq_ledger_channel_new ();
    int64_t next = 1, expect = 1;
    for (int round = 0; round < 20; round++) {
        for (int k = 0; k < 3; k++)
            dlq_ledger_channel_submit (c, update ("s", next++, (size_t) k));
        size_t count = 0;
        uint64_t last = 0;
        dlq_ledger_update_t **taken = dlq_ledger_channel_take (c, &count, &last);
        cr_assert_eq ((int64_t) count, next - expect, "round %d: every update not committed yet", round);
        for (size_t i = 0; i < count; i++)
            cr_assert_eq (taken [i]->cursor, expect + (int64_t) i, "round %d: in order", round);
        bool ok = round % 4 == 3;
        dlq_ledger_channel_done (c, taken, count, last, ok);
        if (ok)
            expect = next;
    }
    dlq_ledger_channel_destroy (&c);       /* frees the ones still queued */
}

Test (ledger_channel, an_unfit_update_gets_no_ticket)
{
    dlq_ledger_channel_t *c = dlq_ledger_channel_new ();
    dlq_ledger_update_t *empty_name = update ("x", 1, 0);
    empty_name->sink [0] = '\0';
    dlq_ledger_update_t *big = update ("x", 1, 0);
    big->failed = (uint64_t) INT64_MAX + 1;
    dlq_ledger_update_t *bad_row = update ("x", 1, 2);
    bad_row->rows [1].seq = 0;
    dlq_ledger_update_t *unterminated = update ("x", 1, 0);
    memset (unterminated->sink, 'n', sizeof unterminated->sink);
    dlq_ledger_update_t *unfit [] = { empty_name, big, bad_row, unterminated, NULL };
    for (size_t i = 0; i < sizeof unfit / sizeof unfit [0]; i++) {
        uint64_t t = dlq_ledger_channel_submit (c, unfit [i]);     /* freed by the channel */
        cr_expect_eq (t, 0, "unfit update %zu", i);
    }
    cr_expect_not (readable (c), "nothing queued");
    cr_expect_not (dlq_ledger_channel_wait (c, 0), "false at once");
    size_t count = 9;
    uint64_t last = 0;
    dlq_ledger_update_t **taken = dlq_ledger_channel_take (c, &count, &last);
    cr_expect_eq (count, 0);
    dlq_ledger_channel_done (c, taken, count, last, true);
    uint64_t fit = dlq_ledger_channel_submit (c, update ("x", 1, 0));
    cr_expect_gt (fit, 0, "the channel goes on");
    dlq_ledger_channel_destroy (&c);
}

typedef struct {
    dlq_ledger_channel_t *c;
    uint64_t              ticket;
    atomic_int            state;    /* 0 waiting, 1 true, 2 false */
} waiter_t;

static void *
waiter (void *arg)
{
    waiter_t *w = arg;
    bool ok = dlq_ledger_channel_wait (w->c, w->ticket);
    atomic_store (&w->state, ok ? 1 : 2);
    return NULL;
}

Test (ledger_channel, a_waiter_wakes_when_its_update_is_committed)
{
    dlq_ledger_channel_t *c = dlq_ledger_channel_new ();
    waiter_t w = { .c = c, .ticket = dlq_ledger_channel_submit (c, update ("a", 1, 0)) };
    pthread_t t;
    cr_assert_eq (pthread_create (&t, NULL, waiter, &w), 0);
    sleep_ms (100);
    cr_expect_eq (atomic_load (&w.state), 0, "still waiting before the commit");
    size_t count;
    uint64_t last;
    dlq_ledger_update_t **taken = dlq_ledger_channel_take (c, &count, &last);
    dlq_ledger_channel_done (c, taken, count, last, true);
    pthread_join (t, NULL);
    cr_expect_eq (atomic_load (&w.state), 1);
    dlq_ledger_channel_destroy (&c);
}

Test (ledger_channel, a_waiter_wakes_with_false_when_the_commit_fails)
{
    dlq_ledger_channel_t *c = dlq_ledger_channel_new ();
    waiter_t w = { .c = c, .ticket = dlq_ledger_channel_submit (c, update ("a", 1, 0)) };
    pthread_t t;
    cr_assert_eq (pthread_create (&t, NULL, waiter, &w), 0);
    sleep_ms (50);
    size_t count;
    uint64_t last;
    dlq_ledger_update_t **taken = dlq_ledger_channel_take (c, &count, &last);
    dlq_ledger_channel_done (c, taken, count, last, false);
    pthread_join (t, NULL);
    cr_expect_eq (atomic_load (&w.state), 2);
    dlq_ledger_channel_destroy (&c);
}

Test (ledger_channel, close_wakes_every_waiter_with_false)
{
    dlq_ledger_channel_t *c = dlq_ledger_channel_new ();
    waiter_t w [3];
    pthread_t t [3];
    for (int i = 0; i < 3; i++) {
        w [i] = (waiter_t) { .c = c, .ticket = dlq_ledger_channel_submit (c, update ("a", i + 1, 0)) };
        cr_assert_eq (pthread_create (&t [i], NULL, waiter, &w [i]), 0);
    }
    sleep_ms (50);
    dlq_ledger_channel_close (c);
    for (int i = 0; i < 3; i++) {
        pthread_join (t [i], NULL);
        cr_expect_eq (atomic_load (&w [i].state), 2, "waiter %d", i);
    }
    cr_expect_not (dlq_ledger_channel_wait (c, w [0].ticket), "and any wait after it");
    dlq_ledger_channel_destroy (&c);
}

/* ---- dispatchers on threads, an indexer thread ----------------------- */

#define DISPATCHERS 4
#define UPDATES 500

typedef struct {
    dlq_ledger_channel_t *c;
    int                   id;
    atomic_int           *failed_waits;
} dispatcher_t;

static void *
dispatcher (void *arg)
{
    dispatcher_t *d = arg;
    char sink [16];
    snprintf (sink, sizeof sink, "sink%d", d->id);
    for (int i = 1; i <= UPDATES; i++) {
        uint64_t t = dlq_ledger_channel_submit (d->c, update (sink, i, (size_t) (i % 3)));
        if (i % 10 == 0 && !dlq_ledger_channel_wait (d->c, t))    /* waits for some of them */
            atomic_fetch_add (d->failed_waits, 1);
    }
    return NULL;
}

typedef struct {
    dlq_ledger_channel_t *c;
    atomic_bool           stop;
    int64_t               seen [DISPATCHERS];   /* the last cursor committed per sink */
    int                   out_of_order;
    int                   total;
} indexer_t;

static void *
indexer (void *arg)
{
    indexer_t *x = arg;
    for (;;) {
        bool stopping = atomic_load (&x->stop);
        struct pollfd p = { .fd = dlq_ledger_channel_fd (x->c), .events = POLLIN };
        poll (&p, 1, 10);
        size_t count;
        uint64_t last;
        dlq_ledger_update_t **taken = dlq_ledger_channel_take (x->c, &count, &last);
        for (size_t i = 0; i < count; i++) {
            int id = taken [i]->sink [4] - '0';
            if (taken [i]->cursor != x->seen [id] + 1)
                x->out_of_order++;
            x->seen [id] = taken [i]->cursor;
            x->total++;
        }
        dlq_ledger_channel_done (x->c, taken, count, last, true);
        if (stopping && count == 0)
            return NULL;
    }
}

Test (ledger_channel, dispatchers_on_threads_see_every_update_committed_in_order)
{
    dlq_ledger_channel_t *c = dlq_ledger_channel_new ();
    atomic_int failed_waits = 0;
    indexer_t x = { .c = c };
    pthread_t it, dt [DISPATCHERS];
    dispatcher_t d [DISPATCHERS];
    cr_assert_eq (pthread_create (&it, NULL, indexer, &x), 0);
    for (int i = 0; i < DISPATCHERS; i++) {
        d [i] = (dispatcher_t) { .c = c, .id = i, .failed_waits = &failed_waits };
        cr_assert_eq (pthread_create (&dt [i], NULL, dispatcher, &d [i]), 0);
    }
    for (int i = 0; i < DISPATCHERS; i++)
        pthread_join (dt [i], NULL);
    atomic_store (&x.stop, true);
    pthread_join (it, NULL);
    cr_expect_eq (atomic_load (&failed_waits), 0);
    cr_expect_eq (x.total, DISPATCHERS * UPDATES, "none skipped, none twice");
    cr_expect_eq (x.out_of_order, 0, "each dispatcher's updates in the order submitted");
    for (int i = 0; i < DISPATCHERS; i++)
        cr_expect_eq (x.seen [i], UPDATES);
    dlq_ledger_channel_destroy (&c);
}

Test (ledger_channel, destroy_frees_what_is_still_queued)
{
    dlq_ledger_channel_t *c = dlq_ledger_channel_new ();
    for (int i = 0; i < 100; i++)
        dlq_ledger_channel_submit (c, update ("a", i + 1, 3));
    dlq_ledger_channel_destroy (&c);
    cr_expect_null (c);
    dlq_ledger_update_t *u = update ("a", 1, 2);
    dlq_ledger_update_destroy (&u);
    cr_expect_null (u);
    dlq_ledger_update_destroy (&u);
    dlq_ledger_update_destroy (NULL);
}
