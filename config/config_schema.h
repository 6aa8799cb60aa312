/*  config_schema — typed, bounded reading of libconfig settings against a
 *  declared schema, with errors that name the file, line and setting.
 *
 *  A schema is a static array of dlq_setting_spec_t ending with an entry whose
 *  name is NULL. Every group is first checked for unknown keys, then each
 *  value is read with its bounds; the first problem is reported as
 *      FILE:LINE: SETTING.PATH: expected ..., got ...
 */
#ifndef DLQ_CONFIG_SCHEMA_H
#define DLQ_CONFIG_SCHEMA_H

#include <libconfig.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    DLQ_SETTING_INT,
    DLQ_SETTING_BOOL,
    DLQ_SETTING_FLOAT,          /* a number, integer or not; bounds in min / max */
    DLQ_SETTING_STRING,
    DLQ_SETTING_STRING_LIST,    /* array of strings */
    DLQ_SETTING_GROUP,          /* nested group, read by its own schema */
    DLQ_SETTING_LIST            /* list of groups, read element by element */
} dlq_setting_type_t;

typedef struct {
    const char        *name;
    dlq_setting_type_t type;
    int64_t            min;         /* INT: bounds, inclusive; STRING: length bounds */
    int64_t            max;
    const char        *description; /* one line, shown in errors and docs */
} dlq_setting_spec_t;

typedef struct {
    char   *text;                   /* the error message, NULL while none */
} dlq_config_error_t;

/* "FILE:LINE: PATH" of a setting into out (len bytes); FILE is the root
 * setting's hook when libconfig read text, not a file (the loader sets it). */
void dlq_setting_where (const config_setting_t *setting, char *out, size_t len);

/* Report an error about setting (or, when setting is NULL, about the file)
 * into err; the message is prefixed with where the setting is. Returns false
 * so callers can `return dlq_config_fail (...)`. */
bool dlq_config_fail (dlq_config_error_t *err, const config_setting_t *setting,
                      const char *fmt, ...) __attribute__ ((format (printf, 3, 4)));

/* Free the text of an error. */
void dlq_config_error_clear (dlq_config_error_t *err);

/* Check that every member of group is named in schema and has its type.
 * false with err set on the first unknown or mistyped member. */
bool dlq_config_check_group (const config_setting_t *group, const dlq_setting_spec_t *schema,
                             dlq_config_error_t *err);

/* Read member name of group (declared in schema) into *out, leaving *out as
 * is (the default) when absent. Bounds come from the schema. */
bool dlq_config_int (const config_setting_t *group, const dlq_setting_spec_t *schema,
                     const char *name, int64_t *out, dlq_config_error_t *err);
bool dlq_config_bool (const config_setting_t *group, const char *name, bool *out);
bool dlq_config_float (const config_setting_t *group, const dlq_setting_spec_t *schema,
                       const char *name, double *out, dlq_config_error_t *err);
/* *out is replaced by a copy (free the old one yourself if you own it). */
bool dlq_config_string (const config_setting_t *group, const dlq_setting_spec_t *schema,
                        const char *name, char **out, dlq_config_error_t *err);

#endif
