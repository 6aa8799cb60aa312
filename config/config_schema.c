/*  config_schema — settings tables over libconfig settings (see the header). */
#include "config_schema.h"

#include "dlq_alloc.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- where, and errors ------------------------------------------------------- */

/* Build the dotted path of a setting: "gateway.listen", "streams.[2].name". */
static void
setting_path (const config_setting_t *s, dlq_buf_t *out)
{
    const config_setting_t *parent = config_setting_parent (s);
    if (!parent)
        return;                         /* the root group has no name */
    setting_path (parent, out);
    if (out->len)
        dlq_buf_putc (out, '.');
    if (config_setting_name (s))
        dlq_buf_puts (out, config_setting_name (s));
    else
        dlq_buf_printf (out, "[%d]", config_setting_index (s));
}

void
dlq_setting_where (const config_setting_t *setting, char *out, size_t len)
{
    dlq_buf_t path = DLQ_BUF_INIT;
    setting_path (setting, &path);
    const char *file = config_setting_source_file (setting);
    const config_setting_t *root = setting;
    while (config_setting_parent (root))
        root = config_setting_parent (root);
    if (!file)                          /* read from text: the loader hung the file's name on the root */
        file = config_setting_get_hook (root);
    snprintf (out, len, "%s:%d: %s", file ? file : "(config)",
              config_setting_source_line (setting), path.data ? path.data : "(top level)");
    dlq_buf_free (&path);
}

bool
dlq_config_fail (dlq_config_error_t *err, const config_setting_t *setting, const char *fmt, ...)
{
    if (err->text)
        return false;                   /* keep the first error */
    dlq_buf_t msg = DLQ_BUF_INIT;
    if (setting) {
        char where [512];
        dlq_setting_where (setting, where, sizeof where);
        dlq_buf_printf (&msg, "%s: ", where);
    }
    va_list ap;
    va_start (ap, fmt);
    char text [1024];
    vsnprintf (text, sizeof text, fmt, ap);
    va_end (ap);
    dlq_buf_puts (&msg, text);
    err->text = dlq_buf_steal (&msg, NULL);
    return false;
}

void
dlq_config_error_clear (dlq_config_error_t *err)
{
    free (err->text);
    err->text = NULL;
}

/* ---- types and values -------------------------------------------------------- */

bool
dlq_setting_type_known (dlq_sink_setting_type_t type)
{
    return type == DLQ_SINK_SETTING_INT || type == DLQ_SINK_SETTING_BOOL || type == DLQ_SINK_SETTING_STRING
        || type == DLQ_SINK_SETTING_STRING_LIST || type == DLQ_SINK_SETTING_FLOAT;
}

static const char *
type_word (dlq_sink_setting_type_t type)
{
    switch (type) {
        case DLQ_SINK_SETTING_INT:         return "an integer";
        case DLQ_SINK_SETTING_BOOL:        return "true or false";
        case DLQ_SINK_SETTING_FLOAT:       return "a number";
        case DLQ_SINK_SETTING_STRING:      return "a string";
        case DLQ_SINK_SETTING_STRING_LIST: return "an array of strings [\"...\", ...]";
    }
    return "?";
}

bool
dlq_setting_type_matches (const config_setting_t *s, dlq_sink_setting_type_t type)
{
    int t = config_setting_type (s);
    switch (type) {
        case DLQ_SINK_SETTING_INT:    return t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64;
        case DLQ_SINK_SETTING_BOOL:   return t == CONFIG_TYPE_BOOL;
        case DLQ_SINK_SETTING_FLOAT:  return t == CONFIG_TYPE_FLOAT || t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64;
        case DLQ_SINK_SETTING_STRING: return t == CONFIG_TYPE_STRING;
        case DLQ_SINK_SETTING_STRING_LIST:
            if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST)
                return false;
            for (int i = 0; i < config_setting_length (s); i++)
                if (config_setting_type (config_setting_get_elem (s, (unsigned) i)) != CONFIG_TYPE_STRING)
                    return false;
            return true;
    }
    return false;
}

bool
dlq_setting_type_fail (const config_setting_t *member, const dlq_sink_setting_t *spec, dlq_config_error_t *err)
{
    return dlq_config_fail (err, member, "expected %s (%s)", type_word (spec->type), spec->description);
}

void
dlq_setting_value_free (dlq_setting_value_t *v)
{
    free (v->s);
    for (size_t i = 0; i < v->count; i++)
        free (v->list [i]);
    free (v->list);
    memset (v, 0, sizeof *v);
}

bool
dlq_setting_value_default (const dlq_sink_setting_t *spec, dlq_setting_value_t *v)
{
    memset (v, 0, sizeof *v);
    if (!spec->default_value || spec->type == DLQ_SINK_SETTING_STRING_LIST)
        return true;                    /* lists have no text default */
    v->set = true;
    char *end = NULL;
    errno = 0;
    switch (spec->type) {
        case DLQ_SINK_SETTING_INT:
            v->i = strtoll (spec->default_value, &end, 10);
            return errno == 0 && end != spec->default_value && *end == '\0';
        case DLQ_SINK_SETTING_FLOAT:
            v->f = strtod (spec->default_value, &end);
            return errno == 0 && end != spec->default_value && *end == '\0' && isfinite (v->f);
        case DLQ_SINK_SETTING_BOOL:
            v->i = strcmp (spec->default_value, "true") == 0;
            return v->i || strcmp (spec->default_value, "false") == 0;
        case DLQ_SINK_SETTING_STRING:
            v->s = dlq_strdup (spec->default_value);
            return true;
        case DLQ_SINK_SETTING_STRING_LIST:
            break;
    }
    return false;
}

bool
dlq_setting_value_read (const config_setting_t *member, const dlq_sink_setting_t *spec, dlq_setting_value_t *v,
                        dlq_config_error_t *err)
{
    dlq_setting_value_free (v);
    v->set = true;
    switch (spec->type) {
        case DLQ_SINK_SETTING_INT:
            v->i = config_setting_get_int64 (member);
            if (v->i < spec->min || v->i > spec->max)
                return dlq_config_fail (err, member, "expected an integer from %lld to %lld (%s), got %lld",
                                        (long long) spec->min, (long long) spec->max, spec->description,
                                        (long long) v->i);
            return true;
        case DLQ_SINK_SETTING_FLOAT:
            v->f = config_setting_type (member) == CONFIG_TYPE_FLOAT ? config_setting_get_float (member)
                                                                     : (double) config_setting_get_int64 (member);
            if (!(v->f >= (double) spec->min && v->f <= (double) spec->max))
                return dlq_config_fail (err, member, "expected a number from %lld to %lld (%s), got %g",
                                        (long long) spec->min, (long long) spec->max, spec->description, v->f);
            return true;
        case DLQ_SINK_SETTING_BOOL:
            v->i = config_setting_get_bool (member) != 0;
            return true;
        case DLQ_SINK_SETTING_STRING: {
            const char *text = config_setting_get_string (member);
            int64_t len = (int64_t) strlen (text);
            if (len < spec->min || (spec->max > 0 && len > spec->max))
                return dlq_config_fail (err, member, "expected a string of %lld to %lld bytes (%s)",
                                        (long long) spec->min, (long long) spec->max, spec->description);
            v->s = dlq_strdup (text);
            return true;
        }
        case DLQ_SINK_SETTING_STRING_LIST:
            v->count = (size_t) config_setting_length (member);
            v->list = dlq_calloc (v->count ? v->count : 1, sizeof (char *));
            for (size_t i = 0; i < v->count; i++)
                v->list [i] = dlq_strdup (config_setting_get_string_elem (member, (int) i));
            return true;
    }
    return dlq_config_fail (err, member, "a setting of unknown type %d", (int) spec->type);
}

/* ---- rows -------------------------------------------------------------------- */

const dlq_setting_t *
dlq_config_row (const dlq_setting_t *rows, size_t count, const char *path)
{
    for (size_t i = 0; i < count; i++)
        if (strcmp (rows [i].spec.name, path) == 0)
            return &rows [i];
    return NULL;
}

/* Does some row's name go on under path ("path.")? */
static bool
rows_under (const dlq_setting_t *rows, size_t count, const char *path)
{
    size_t len = strlen (path);
    for (size_t i = 0; i < count; i++)
        if (strncmp (rows [i].spec.name, path, len) == 0 && rows [i].spec.name [len] == '.')
            return true;
    return false;
}

static const char *
shape_word (dlq_setting_shape_t shape)
{
    return shape == DLQ_SHAPE_GROUP ? "a group { ... }" : "a list ( { ... }, ... )";
}

dlq_member_result_t
dlq_config_check_member (const config_setting_t *member, const dlq_setting_t *rows, size_t count,
                         const char *prefix, dlq_config_error_t *err)
{
    const char *name = config_setting_name (member);
    if (!name)
        return DLQ_MEMBER_UNKNOWN;
    dlq_buf_t path = DLQ_BUF_INIT;
    dlq_buf_printf (&path, "%s%s", prefix, name);
    const dlq_setting_t *row = dlq_config_row (rows, count, path.data);
    dlq_member_result_t result = DLQ_MEMBER_OK;
    if (row && row->shape == DLQ_SHAPE_VALUE) {
        if (!dlq_setting_type_matches (member, row->spec.type))
            result = (dlq_setting_type_fail (member, &row->spec, err), DLQ_MEMBER_BAD);
    }
    else
    if (row) {
        int want = row->shape == DLQ_SHAPE_GROUP ? CONFIG_TYPE_GROUP : CONFIG_TYPE_LIST;
        if (config_setting_type (member) != want)
            result = (dlq_config_fail (err, member, "expected %s (%s)", shape_word (row->shape),
                                       row->spec.description), DLQ_MEMBER_BAD);
    }
    else
    if (rows_under (rows, count, path.data)) {
        dlq_buf_putc (&path, '.');
        if (config_setting_type (member) != CONFIG_TYPE_GROUP) {
            dlq_buf_t names = DLQ_BUF_INIT;
            dlq_config_member_names (rows, count, path.data, &names);
            dlq_config_fail (err, member, "expected a group { ... } of %s", names.data ? names.data : "");
            dlq_buf_free (&names);
            result = DLQ_MEMBER_BAD;
        }
        else
        if (!dlq_config_check_group (member, rows, count, path.data, NULL, err))
            result = DLQ_MEMBER_BAD;
    }
    else
        result = DLQ_MEMBER_UNKNOWN;
    dlq_buf_free (&path);
    return result;
}

void
dlq_config_member_names (const dlq_setting_t *rows, size_t count, const char *prefix, dlq_buf_t *out)
{
    size_t len = strlen (prefix), start = out->len;
    for (size_t i = 0; i < count; i++) {
        const char *name = rows [i].spec.name;
        if (strncmp (name, prefix, len) != 0 || !name [len])
            continue;
        size_t n = strcspn (name + len, ".");
        bool seen = false;                  /* a group's name comes once, from its first row */
        for (size_t k = 0; k < i && !seen; k++)
            seen = strncmp (rows [k].spec.name, prefix, len) == 0
                && strncmp (rows [k].spec.name + len, name + len, n) == 0
                && (rows [k].spec.name [len + n] == '\0' || rows [k].spec.name [len + n] == '.');
        if (!seen)
            dlq_buf_printf (out, "%s%.*s", out->len > start ? ", " : "", (int) n, name + len);
    }
}

bool
dlq_config_check_group (const config_setting_t *group, const dlq_setting_t *rows, size_t count,
                        const char *prefix, const char *const *also, dlq_config_error_t *err)
{
    for (int i = 0; i < config_setting_length (group); i++) {
        const config_setting_t *m = config_setting_get_elem (group, (unsigned) i);
        const char *name = config_setting_name (m);
        bool passed = false;
        for (size_t k = 0; also && name && also [k] && !passed; k++)
            passed = strcmp (also [k], name) == 0;
        if (passed)
            continue;
        dlq_member_result_t rc = dlq_config_check_member (m, rows, count, prefix, err);
        if (rc == DLQ_MEMBER_BAD)
            return false;
        if (rc == DLQ_MEMBER_UNKNOWN) {
            dlq_buf_t known = DLQ_BUF_INIT;
            dlq_config_member_names (rows, count, prefix, &known);
            for (size_t k = 0; also && also [k]; k++)
                dlq_buf_printf (&known, "%s%s", known.len ? ", " : "", also [k]);
            dlq_config_fail (err, m, "unknown setting; expected one of: %s", known.data ? known.data : "(none)");
            dlq_buf_free (&known);
            return false;
        }
    }
    return true;
}

/* ---- values kept by rows ----------------------------------------------------- */

static void
free_at (const dlq_setting_t *row, void *base)
{
    char *at = (char *) base + row->offset;
    if (row->spec.type == DLQ_SINK_SETTING_STRING) {
        free (*(char **) at);
        *(char **) at = NULL;
    }
    else
    if (row->spec.type == DLQ_SINK_SETTING_STRING_LIST) {
        dlq_setting_list_t *list = (dlq_setting_list_t *) at;
        for (size_t i = 0; i < list->count; i++)
            free (list->items [i]);
        free (list->items);
        *list = (dlq_setting_list_t) { NULL, 0 };
    }
}

/* v into where row keeps it in base; v's strings move there. */
static void
store (const dlq_setting_t *row, void *base, dlq_setting_value_t *v)
{
    char *at = (char *) base + row->offset;
    free_at (row, base);
    switch (row->spec.type) {
        case DLQ_SINK_SETTING_INT:    *(int64_t *) at = v->i; break;
        case DLQ_SINK_SETTING_BOOL:   *(bool *) at = v->i != 0; break;
        case DLQ_SINK_SETTING_FLOAT:  *(double *) at = v->f; break;
        case DLQ_SINK_SETTING_STRING: *(char **) at = v->s; v->s = NULL; break;
        case DLQ_SINK_SETTING_STRING_LIST:
            *(dlq_setting_list_t *) at = (dlq_setting_list_t) { v->list, v->count };
            v->list = NULL;
            v->count = 0;
            break;
    }
    dlq_setting_value_free (v);
}

static bool
row_of (const dlq_setting_t *row, const char *prefix, int home)
{
    return row->home == home && row->shape == DLQ_SHAPE_VALUE
        && strncmp (row->spec.name, prefix, strlen (prefix)) == 0;
}

bool
dlq_config_set_defaults (const dlq_setting_t *rows, size_t count, const char *prefix, int home, void *base)
{
    for (size_t i = 0; i < count; i++) {
        if (!row_of (&rows [i], prefix, home) || !rows [i].spec.default_value)
            continue;
        dlq_setting_value_t v;
        if (!dlq_setting_value_default (&rows [i].spec, &v)) {
            dlq_setting_value_free (&v);
            return false;
        }
        store (&rows [i], base, &v);
    }
    return true;
}

bool
dlq_config_read (const config_setting_t *group, const dlq_setting_t *rows, size_t count, const char *prefix,
                 int home, void *base, dlq_config_error_t *err)
{
    size_t len = strlen (prefix);
    for (size_t i = 0; i < count; i++) {
        if (!row_of (&rows [i], prefix, home))
            continue;
        const config_setting_t *member = config_setting_lookup ((config_setting_t *) group,
                                                                rows [i].spec.name + len);
        if (!member)
            continue;
        dlq_setting_value_t v = { 0 };
        if (!dlq_setting_value_read (member, &rows [i].spec, &v, err)) {
            dlq_setting_value_free (&v);
            return false;
        }
        store (&rows [i], base, &v);
    }
    return true;
}

void
dlq_config_free_values (const dlq_setting_t *rows, size_t count, int home, void *base)
{
    for (size_t i = 0; i < count; i++)
        if (rows [i].home == home && rows [i].shape == DLQ_SHAPE_VALUE)
            free_at (&rows [i], base);
}

/* ---- the reference ----------------------------------------------------------- */

/* n with a unit where one reads better: "268435456 (256 MiB)", "21600000 (6 h)". */
static void
number_text (const char *name, int64_t n, dlq_buf_t *out)
{
    dlq_buf_printf (out, "%" PRId64, n);
    size_t len = strlen (name);
    bool ms = len > 3 && strcmp (name + len - 3, "_ms") == 0;
    bool bytes = len > 6 && strcmp (name + len - 6, "_bytes") == 0;
    static const struct { int64_t unit; const char *word; bool ms; } units [] = {
        { 86400000LL, "days", true }, { 3600000LL, "h", true }, { 60000LL, "min", true },
        { 1LL << 40, "TiB", false }, { 1LL << 30, "GiB", false }, { 1LL << 20, "MiB", false },
    };
    for (size_t i = 0; i < sizeof units / sizeof units [0]; i++)
        if ((units [i].ms ? ms : bytes) && n >= units [i].unit && n % units [i].unit == 0 && n > 0) {
            int64_t k = n / units [i].unit;
            const char *word = units [i].ms && k == 1 && i == 0 ? "day" : units [i].word;
            dlq_buf_printf (out, " (%" PRId64 " %s)", k, word);
            return;
        }
}

static void
type_text (const dlq_setting_t *row, dlq_buf_t *out)
{
    if (row->type_docs) {
        dlq_buf_puts (out, row->type_docs);
        return;
    }
    if (row->shape != DLQ_SHAPE_VALUE) {
        dlq_buf_puts (out, row->shape == DLQ_SHAPE_GROUP ? "group" : "list of groups");
        return;
    }
    const dlq_sink_setting_t *s = &row->spec;
    switch (s->type) {
        case DLQ_SINK_SETTING_BOOL:        dlq_buf_puts (out, "boolean"); return;
        case DLQ_SINK_SETTING_STRING_LIST: dlq_buf_puts (out, "array of strings"); return;
        case DLQ_SINK_SETTING_STRING:
            dlq_buf_puts (out, "string");
            if (s->max > 0)
                dlq_buf_printf (out, ", %" PRId64 "–%" PRId64 " bytes", s->min, s->max);
            return;
        case DLQ_SINK_SETTING_INT:
        case DLQ_SINK_SETTING_FLOAT:
            dlq_buf_puts (out, s->type == DLQ_SINK_SETTING_INT ? "integer " : "number ");
            if (s->max == INT64_MAX)
                dlq_buf_printf (out, "≥ %" PRId64, s->min);
            else {
                dlq_buf_printf (out, "%" PRId64 "–", s->min);
                number_text (s->name, s->max, out);
            }
            return;
    }
}

static void
default_text (const dlq_setting_t *row, dlq_buf_t *out)
{
    const dlq_sink_setting_t *s = &row->spec;
    if (row->default_docs)
        dlq_buf_puts (out, row->default_docs);
    else
    if (!s->default_value)
        dlq_buf_puts (out, "none");
    else
    if (s->type == DLQ_SINK_SETTING_STRING)
        dlq_buf_printf (out, "`\"%s\"`", s->default_value);
    else
    if (s->type == DLQ_SINK_SETTING_INT)
        number_text (s->name, strtoll (s->default_value, NULL, 10), out);
    else
        dlq_buf_puts (out, s->default_value);
}

void
dlq_config_format_reference (const dlq_setting_t *const *tables, const size_t *counts, size_t n, dlq_buf_t *out)
{
    dlq_buf_puts (out, "| setting | type | default | meaning |\n| --- | --- | --- | --- |\n");
    for (size_t k = 0; k < n; k++)
    for (size_t i = 0; i < counts [k]; i++) {
        const dlq_setting_t *rows = tables [k];
        dlq_buf_printf (out, "| `%s` | ", rows [i].spec.name);
        type_text (&rows [i], out);
        dlq_buf_puts (out, " | ");
        default_text (&rows [i], out);
        dlq_buf_printf (out, " | %s |\n", rows [i].docs ? rows [i].docs : rows [i].spec.description);
    }
}
