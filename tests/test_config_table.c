/*  test_config_table — the settings table is whole and is what the docs
 *  and the shipped file say: names unique, bounds ordered, every default
 *  parses and lies within its bounds; docs/configuration.md's table is
 *  `dlqd --config-reference`; config/dlqd.conf restates the table's
 *  defaults (loaded, it is an empty file's config); an empty file gets
 *  each row's default where the row keeps it.
 */
#include "dlqd_config.h"
#include "plugin_config.h"
#include "test_support.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DOCS_BEGIN "<!-- settings table: made by dlqd --config-reference; test_config checks it -->\n"
#define DOCS_END "<!-- end of the settings table -->\n"

static void
check_rows (const dlq_setting_t *rows, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        const dlq_sink_setting_t *s = &rows [i].spec;
        cr_expect (dlq_setting_type_known (s->type), "%s: type %d", s->name, (int) s->type);
        cr_expect_leq (s->min, s->max, "%s: bounds %lld > %lld", s->name, (long long) s->min, (long long) s->max);
        cr_expect (s->description && s->description [0], "%s has a description", s->name);
        for (size_t k = 0; k < i; k++)
            cr_expect_str_neq (rows [k].spec.name, s->name, "%s is in the table twice", s->name);
        dlq_setting_value_t v;
        cr_expect (dlq_setting_value_default (s, &v), "%s: its default \"%s\" does not parse", s->name,
                   s->default_value);
        if (v.set && s->type == DLQ_SINK_SETTING_INT)
            cr_expect (v.i >= s->min && v.i <= s->max, "%s: default %lld outside [%lld, %lld]", s->name,
                       (long long) v.i, (long long) s->min, (long long) s->max);
        if (v.set && s->type == DLQ_SINK_SETTING_FLOAT)
            cr_expect (v.f >= (double) s->min && v.f <= (double) s->max, "%s: default %g out of bounds", s->name, v.f);
        if (v.set && s->type == DLQ_SINK_SETTING_STRING && s->max > 0)
            cr_expect (strlen (v.s) >= (size_t) s->min && strlen (v.s) <= (size_t) s->max, "%s: default length",
                       s->name);
        dlq_setting_value_free (&v);
        if (rows [i].home != DLQ_HOME_CODE)
            cr_expect_eq (rows [i].shape, DLQ_SHAPE_VALUE, "%s keeps a value, so it is one", s->name);
    }
}

Test (config_table, rows_are_whole)
{
    size_t count = 0, sink_count = 0;
    const dlq_setting_t *rows = dlqd_config_rows (&count), *sink_rows = dlq_plugin_config_rows (&sink_count);
    cr_assert_gt (count, 30);
    cr_assert_gt (sink_count, 10);
    check_rows (rows, count);
    check_rows (sink_rows, sink_count);
}

Test (config_table, the_docs_settings_table_is_the_reference)
{
    char *docs = test_read_file (DLQ_SOURCE_DIR "/docs/configuration.md", NULL);
    cr_assert_not_null (docs);
    dlq_buf_t want = DLQ_BUF_INIT;
    dlqd_config_reference (&want);
    const char *begin = strstr (docs, DOCS_BEGIN), *end = begin ? strstr (begin, DOCS_END) : NULL;
    cr_assert (begin && end, "docs/configuration.md has no settings table between\n%s...\n%s", DOCS_BEGIN, DOCS_END);
    begin += strlen (DOCS_BEGIN);
    cr_expect (want.len == (size_t) (end - begin) && memcmp (want.data, begin, want.len) == 0,
               "docs/configuration.md's settings table is not `dlqd --config-reference`; it should be:\n%s",
               want.data);
    dlq_buf_free (&want);
    free (docs);
}

static dlqd_config_t *
load (const char *path)
{
    dlqd_config_t *c = NULL;
    char *err = NULL;
    cr_assert_eq (dlqd_config_load (path, &c, &err), DLQD_CONFIG_OK, "%s", err);
    return c;
}

/* Do rows of home hold the same values in a and b? */
static void
expect_same (const dlq_setting_t *rows, size_t count, int home, const void *a, const void *b, const char *what)
{
    for (size_t i = 0; i < count; i++) {
        const dlq_setting_t *r = &rows [i];
        if (r->home != home)
            continue;
        const char *pa = (const char *) a + r->offset, *pb = (const char *) b + r->offset;
        switch (r->spec.type) {
            case DLQ_SINK_SETTING_INT:
                cr_expect_eq (*(const int64_t *) pa, *(const int64_t *) pb, "%s: %s is %lld, its default %lld", what,
                              r->spec.name, (long long) *(const int64_t *) pa, (long long) *(const int64_t *) pb);
                break;
            case DLQ_SINK_SETTING_BOOL:
                cr_expect_eq (*(const bool *) pa, *(const bool *) pb, "%s: %s", what, r->spec.name);
                break;
            case DLQ_SINK_SETTING_FLOAT:
                cr_expect_eq (*(const double *) pa, *(const double *) pb, "%s: %s", what, r->spec.name);
                break;
            case DLQ_SINK_SETTING_STRING: {
                const char *sa = *(char *const *) pa, *sb = *(char *const *) pb;
                cr_expect ((!sa && !sb) || (sa && sb && strcmp (sa, sb) == 0), "%s: %s is \"%s\", its default \"%s\"",
                           what, r->spec.name, sa ? sa : "(none)", sb ? sb : "(none)");
                break;
            }
            case DLQ_SINK_SETTING_STRING_LIST:
                break;
        }
    }
}

Test (config_table, the_shipped_file_restates_the_defaults)
{
    char dir [256], path [320];
    test_tmpdir (dir);
    snprintf (path, sizeof path, "%s/empty.conf", dir);
    FILE *f = fopen (path, "w");
    fclose (f);
    dlqd_config_t *shipped = load (DLQ_SOURCE_DIR "/config/dlqd.conf"), *empty = load (path);
    size_t count = 0;
    const dlq_setting_t *rows = dlqd_config_rows (&count);
    free (shipped->replay.owner);                   /* made at start: host and pid */
    shipped->replay.owner = strdup (empty->replay.owner);
    expect_same (rows, count, DLQD_HOME_CONFIG, shipped, empty, "config/dlqd.conf");
    expect_same (rows, count, DLQD_HOME_POLICY, &shipped->defaults, &empty->defaults, "config/dlqd.conf defaults");
    cr_expect_eq (shipped->listen_count, empty->listen_count);
    cr_expect_str_eq (shipped->listen [0], empty->listen [0]);
    cr_expect_eq (shipped->defaults.chain, empty->defaults.chain);
    cr_expect_eq (shipped->warning_count, 0);
    dlqd_config_destroy (&shipped);
    dlqd_config_destroy (&empty);
    test_rmtree (dir);
}

Test (config_table, an_empty_file_gets_each_rows_default)
{
    char dir [256], path [320];
    test_tmpdir (dir);
    snprintf (path, sizeof path, "%s/empty.conf", dir);
    FILE *f = fopen (path, "w");
    fclose (f);
    dlqd_config_t *c = load (path);
    size_t count = 0;
    const dlq_setting_t *rows = dlqd_config_rows (&count);
    for (size_t i = 0; i < count; i++) {
        const dlq_setting_t *r = &rows [i];
        if ((r->home != DLQD_HOME_CONFIG && r->home != DLQD_HOME_POLICY) || !r->spec.default_value)
            continue;
        const char *at = (const char *) (r->home == DLQD_HOME_CONFIG ? (void *) c : (void *) &c->defaults) + r->offset;
        dlq_setting_value_t v;
        cr_assert (dlq_setting_value_default (&r->spec, &v));
        if (r->spec.type == DLQ_SINK_SETTING_INT)
            cr_expect_eq (*(const int64_t *) at, v.i, "%s", r->spec.name);
        else
        if (r->spec.type == DLQ_SINK_SETTING_BOOL)
            cr_expect_eq (*(const bool *) at, v.i != 0, "%s", r->spec.name);
        else
        if (r->spec.type == DLQ_SINK_SETTING_STRING)
            cr_expect_str_eq (*(char *const *) at, v.s, "%s", r->spec.name);
        dlq_setting_value_free (&v);
    }
    dlqd_config_destroy (&c);
    test_rmtree (dir);
}
