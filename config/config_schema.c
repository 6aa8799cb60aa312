/*  config_schema — schema checks over libconfig settings. */
#include "config_schema.h"

#include "dlq_alloc.h"
#include "dlq_buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static const dlq_setting_spec_t *
find_spec (const dlq_setting_spec_t *schema, const char *name)
{
    for (; schema->name; schema++)
        if (strcmp (schema->name, name) == 0)
            return schema;
    return NULL;
}

static const char *
type_word (dlq_setting_type_t type)
{
    switch (type) {
        case DLQ_SETTING_INT:         return "an integer";
        case DLQ_SETTING_BOOL:        return "true or false";
        case DLQ_SETTING_FLOAT:       return "a number";
        case DLQ_SETTING_STRING:      return "a string";
        case DLQ_SETTING_STRING_LIST: return "an array of strings [\"...\", ...]";
        case DLQ_SETTING_GROUP:       return "a group { ... }";
        default:                      return "a list ( {...}, ... )";
    }
}

static bool
type_matches (const config_setting_t *s, dlq_setting_type_t type)
{
    int t = config_setting_type (s);
    switch (type) {
        case DLQ_SETTING_INT:    return t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64;
        case DLQ_SETTING_BOOL:   return t == CONFIG_TYPE_BOOL;
        case DLQ_SETTING_FLOAT:  return t == CONFIG_TYPE_FLOAT || t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64;
        case DLQ_SETTING_STRING: return t == CONFIG_TYPE_STRING;
        case DLQ_SETTING_GROUP:  return t == CONFIG_TYPE_GROUP;
        case DLQ_SETTING_LIST:   return t == CONFIG_TYPE_LIST;
        case DLQ_SETTING_STRING_LIST:
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
dlq_config_check_group (const config_setting_t *group, const dlq_setting_spec_t *schema,
                        dlq_config_error_t *err)
{
    for (int i = 0; i < config_setting_length (group); i++) {
        const config_setting_t *s = config_setting_get_elem (group, (unsigned) i);
        const char *name = config_setting_name (s);
        const dlq_setting_spec_t *spec = name ? find_spec (schema, name) : NULL;
        if (!spec) {
            dlq_buf_t known = DLQ_BUF_INIT;
            for (const dlq_setting_spec_t *k = schema; k->name; k++)
                dlq_buf_printf (&known, "%s%s", known.len ? ", " : "", k->name);
            dlq_config_fail (err, s, "unknown setting; expected one of: %s",
                             known.data ? known.data : "(none)");
            dlq_buf_free (&known);
            return false;
        }
        if (!type_matches (s, spec->type))
            return dlq_config_fail (err, s, "expected %s (%s)", type_word (spec->type),
                                    spec->description);
    }
    return true;
}

bool
dlq_config_int (const config_setting_t *group, const dlq_setting_spec_t *schema,
                const char *name, int64_t *out, dlq_config_error_t *err)
{
    const config_setting_t *s = config_setting_get_member (group, name);
    if (!s)
        return true;
    const dlq_setting_spec_t *spec = find_spec (schema, name);
    long long value = config_setting_get_int64 (s);
    if (value < spec->min || value > spec->max)
        return dlq_config_fail (err, s, "expected an integer from %lld to %lld (%s), got %lld",
                                (long long) spec->min, (long long) spec->max,
                                spec->description, value);
    *out = value;
    return true;
}

bool
dlq_config_bool (const config_setting_t *group, const char *name, bool *out)
{
    const config_setting_t *s = config_setting_get_member (group, name);
    if (s)
        *out = config_setting_get_bool (s) != 0;
    return true;
}

bool
dlq_config_float (const config_setting_t *group, const dlq_setting_spec_t *schema,
                  const char *name, double *out, dlq_config_error_t *err)
{
    const config_setting_t *s = config_setting_get_member (group, name);
    if (!s)
        return true;
    const dlq_setting_spec_t *spec = find_spec (schema, name);
    double value = config_setting_type (s) == CONFIG_TYPE_FLOAT ? config_setting_get_float (s)
                                                                 : (double) config_setting_get_int64 (s);
    if (value < (double) spec->min || value > (double) spec->max)
        return dlq_config_fail (err, s, "expected a number from %lld to %lld (%s), got %g",
                                (long long) spec->min, (long long) spec->max, spec->description, value);
    *out = value;
    return true;
}

bool
dlq_config_string (const config_setting_t *group, const dlq_setting_spec_t *schema,
                   const char *name, char **out, dlq_config_error_t *err)
{
    const config_setting_t *s = config_setting_get_member (group, name);
    if (!s)
        return true;
    const dlq_setting_spec_t *spec = find_spec (schema, name);
    const char *value = config_setting_get_string (s);
    size_t len = strlen (value);
    if ((int64_t) len < spec->min || (int64_t) len > spec->max)
        return dlq_config_fail (err, s, "expected a string of %lld to %lld characters (%s)",
                                (long long) spec->min, (long long) spec->max, spec->description);
    *out = dlq_strdup (value);
    return true;
}
