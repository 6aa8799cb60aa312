/*  test_sink_host — the host table every sink plugin is handed, as
 *  sink_host.h and dlq_sink.h have it: one static table, declaring the ABI
 *  version plugins are built against and its own size; every member its
 *  size covers is set (a plugin checks DLQ_SINK_HOST_HAS, then calls);
 *  append writes to the dlq_buf_t behind dlq_sink_buf, bytes as given (NULs
 *  included) after what it holds; the clocks are the wall clock in ms and a
 *  monotonic one. (The calls that read a sink's config are checked with a
 *  loaded config by test_sink_plugin.)
 */
#include "plugin_host.h"

#include "dlq_buf.h"
#include "dlq_sink.h"

#include <criterion/criterion.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

Test (sink_host, the_table_declares_its_abi_version_and_size)
{
    const dlq_sink_host_t *host = dlq_plugin_host ();
    cr_assert_not_null (host);
    cr_expect_eq (host->abi_version, DLQ_SINK_ABI_VERSION);
    cr_expect_eq (host->struct_size, sizeof (dlq_sink_host_t), "the whole table of this build");
    cr_expect (DLQ_SINK_HOST_HAS (host, streams), "the member added after version 1's first release");
}

Test (sink_host, one_table_is_shared_by_every_sink)
{
    cr_expect_eq (dlq_plugin_host (), dlq_plugin_host ());
}

Test (sink_host, every_member_its_size_covers_is_set)
{
    /* after abi_version and struct_size, every member is a function */
    const dlq_sink_host_t *host = dlq_plugin_host ();
    const size_t first = offsetof (dlq_sink_host_t, log);
    cr_assert_geq (host->struct_size, first);
    size_t n = (host->struct_size - first) / sizeof (void (*) (void));
    cr_expect_geq (n, 11, "log .. append, and streams");
    for (size_t i = 0; i < n; i++) {
        void (*fn) (void);
        memcpy (&fn, (const char *) host + first + i * sizeof fn, sizeof fn);
        cr_expect_not_null ((void *) (uintptr_t) fn, "member %zu after struct_size is NULL", i);
    }
    cr_expect_not_null ((void *) (uintptr_t) host->log);
    cr_expect_not_null ((void *) (uintptr_t) host->count);
    cr_expect_not_null ((void *) (uintptr_t) host->name);
    cr_expect_not_null ((void *) (uintptr_t) host->config_int);
    cr_expect_not_null ((void *) (uintptr_t) host->config_bool);
    cr_expect_not_null ((void *) (uintptr_t) host->config_string);
    cr_expect_not_null ((void *) (uintptr_t) host->config_list);
    cr_expect_not_null ((void *) (uintptr_t) host->streams);
}

Test (sink_host, append_writes_to_the_buffer_behind_the_sink_buf)
{
    const dlq_sink_host_t *host = dlq_plugin_host ();
    dlq_buf_t buf = DLQ_BUF_INIT;
    dlq_buf_puts (&buf, "[");
    host->append (dlq_plugin_host_buf (&buf), "{\"a\":1}", 7);
    host->append (dlq_plugin_host_buf (&buf), ",", 1);
    host->append (dlq_plugin_host_buf (&buf), "{\"b\":2}]tail", 8);
    cr_expect_str_eq (buf.data, "[{\"a\":1},{\"b\":2}]", "after what it held, only len bytes");
    cr_expect_eq (buf.len, 17);
    host->append (dlq_plugin_host_buf (&buf), "ignored", 0);
    cr_expect_eq (buf.len, 17, "len 0 adds nothing");
    host->append (dlq_plugin_host_buf (&buf), "x\0y", 3);
    cr_expect_eq (buf.len, 20, "a NUL is a byte like any other");
    cr_expect_eq (memcmp (buf.data + 17, "x\0y", 3), 0);
    cr_expect_eq (buf.data [buf.len], '\0', "still NUL-terminated");
    dlq_buf_free (&buf);
}

Test (sink_host, append_grows_the_buffer_for_large_output)
{
    const dlq_sink_host_t *host = dlq_plugin_host ();
    static char chunk [65536];
    memset (chunk, 'z', sizeof chunk);
    dlq_buf_t buf = DLQ_BUF_INIT;
    for (int i = 0; i < 64; i++)
        host->append (dlq_plugin_host_buf (&buf), chunk, sizeof chunk);
    cr_expect_eq (buf.len, 64 * sizeof chunk);
    size_t bad = 0;
    for (size_t i = 0; i < buf.len; i++)
        bad += buf.data [i] != 'z';
    cr_expect_eq (bad, 0);
    dlq_buf_free (&buf);
}

Test (sink_host, the_clocks_are_the_wall_clock_and_a_monotonic_one)
{
    const dlq_sink_host_t *host = dlq_plugin_host ();
    int64_t wall = (int64_t) time (NULL) * 1000;
    int64_t now = host->now_ms ();
    cr_expect (now >= wall - 5000 && now <= wall + 5000, "now_ms %lld is not the wall clock (%lld)",
               (long long) now, (long long) wall);
    int64_t last = host->mono_ms ();
    for (int i = 0; i < 10000; i++) {
        int64_t t = host->mono_ms ();
        cr_assert_geq (t, last, "the monotonic clock went back");
        last = t;
    }
    struct timespec pause = { 0, 50 * 1000000L };
    int64_t before = host->mono_ms ();
    nanosleep (&pause, NULL);
    int64_t waited = host->mono_ms () - before;
    cr_expect (waited >= 45 && waited < 5000, "50 ms on the monotonic clock: %lld", (long long) waited);
}
