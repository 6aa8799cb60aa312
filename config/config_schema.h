/*  config_schema — settings tables and the typed, bounded reading of
 *  libconfig settings against them, with errors that name the file, line
 *  and setting.
 *
 *  A setting is one row: its spec (the row type sinks declare theirs with,
 *  dlq_sink_setting_t of dlq_sink.h: name, type, default, bounds, one-line
 *  description) and, for the daemon's own settings (dlq_setting_t), its
 *  shape, where its value is kept, and its docs. Rows name their setting by
 *  its dotted path ("gateway.commit.max_batch"); a group is the prefix its
 *  rows share. From the rows come the unknown-setting and type checks, the
 *  defaults, the values and the configuration reference
 *  (dlq_config_format_reference). The first problem is reported as
 *      FILE:LINE: SETTING.PATH: expected ..., got ...
 */
#ifndef DLQ_CONFIG_SCHEMA_H
#define DLQ_CONFIG_SCHEMA_H

#include "dlq_buf.h"
#include "dlq_sink.h"

#include <libconfig.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a row's member is in the file. */
typedef enum {
    DLQ_SHAPE_VALUE = 0,        /* a value of spec.type */
    DLQ_SHAPE_GROUP,            /* a group { ... } of names its own code reads (sinks, a sink's section) */
    DLQ_SHAPE_LIST              /* a list ( { ... }, ... ) of groups its own code reads (streams) */
} dlq_setting_shape_t;

/* Where no value is kept by the rows: the setting is read by its own code. */
#define DLQ_HOME_CODE (-1)

typedef struct {
    dlq_sink_setting_t  spec;           /* spec.name is the dotted path */
    dlq_setting_shape_t shape;
    int                 home;           /* the struct that keeps the value (the owner's numbering), or
                                           DLQ_HOME_CODE */
    size_t              offset;         /* where in it: int64_t (INT), bool (BOOL), double (FLOAT),
                                           char * (STRING, owned), dlq_setting_list_t (STRING_LIST) */
    const char         *type_docs;      /* the reference's type column, when the bounds do not say it */
    const char         *default_docs;   /* the reference's default column, when spec.default_value does
                                           not say it (a default made at start, "none", "required") */
    const char         *docs;           /* the reference's meaning (Markdown); NULL: spec.description */
} dlq_setting_t;

/* A STRING_LIST's value where a row keeps it. */
typedef struct {
    char  **items;                      /* owned, each owned */
    size_t  count;
} dlq_setting_list_t;

/* One value as read from the file or made from a default. */
typedef struct {
    bool     set;
    int64_t  i;                         /* INT, BOOL */
    double   f;                         /* FLOAT */
    char    *s;                         /* STRING */
    char   **list;                      /* STRING_LIST */
    size_t   count;
    bool     indirect;                  /* STRING: from a <name>_file or <name>_env, not the file itself */
} dlq_setting_value_t;

typedef struct {
    char   *text;                       /* the error message, NULL while none */
} dlq_config_error_t;

/* "FILE:LINE: PATH" of a setting into out (len bytes); FILE is the root
 * setting's hook when libconfig read text, not a file (the loader sets it). */
void dlq_setting_where (const config_setting_t *setting, char *out, size_t len);

/* Report an error about setting (or, when setting is NULL, about the file)
 * into err; the message is prefixed with where the setting is. Returns false
 * so callers can `return dlq_config_fail (...)`. Only the first error is kept. */
bool dlq_config_fail (dlq_config_error_t *err, const config_setting_t *setting,
                      const char *fmt, ...) __attribute__ ((format (printf, 3, 4)));

/* Free the text of an error. */
void dlq_config_error_clear (dlq_config_error_t *err);

/* Is type one this reader knows? */
bool dlq_setting_type_known (dlq_sink_setting_type_t type);

/* Does member have the libconfig type of a value of type? */
bool dlq_setting_type_matches (const config_setting_t *member, dlq_sink_setting_type_t type);

/* The check a member of type failed, as the errors say it: "expected an
 * integer (DESCRIPTION)". */
bool dlq_setting_type_fail (const config_setting_t *member, const dlq_sink_setting_t *spec,
                            dlq_config_error_t *err);

/* spec's default into v (v->set false when it has none: lists have no text
 * default); false when it does not parse as spec's type. */
bool dlq_setting_value_default (const dlq_sink_setting_t *spec, dlq_setting_value_t *v);

/* member, whose type matches spec's, into v (freed first), within spec's
 * bounds; false with err set when out of them. */
bool dlq_setting_value_read (const config_setting_t *member, const dlq_sink_setting_t *spec,
                             dlq_setting_value_t *v, dlq_config_error_t *err);

void dlq_setting_value_free (dlq_setting_value_t *v);

/* The outcome of checking one member against rows. */
typedef enum {
    DLQ_MEMBER_OK,                      /* a known setting of the right type (a group: checked through) */
    DLQ_MEMBER_UNKNOWN,                 /* no row names it */
    DLQ_MEMBER_BAD                      /* wrong type, or bad inside: err says */
} dlq_member_result_t;

/* Check member of a group whose rows start with prefix ("gateway.", "" at
 * the top): its row's shape and type, and, when it is a group the rows go
 * into, each of its members the same way. */
dlq_member_result_t dlq_config_check_member (const config_setting_t *member, const dlq_setting_t *rows,
                                             size_t count, const char *prefix, dlq_config_error_t *err);

/* The names rows have right under prefix, ", "-separated, into out (for
 * the unknown-setting message). */
void dlq_config_member_names (const dlq_setting_t *rows, size_t count, const char *prefix, dlq_buf_t *out);

/* Check every member of group as dlq_config_check_member does; a member
 * named in also (NULL-terminated, may be NULL) is passed by (its caller
 * reads it). An unknown one is "unknown setting; expected one of: ...". */
bool dlq_config_check_group (const config_setting_t *group, const dlq_setting_t *rows, size_t count,
                             const char *prefix, const char *const *also, dlq_config_error_t *err);

/* Each row of home under prefix with a default: the default into base
 * (what was there is freed). false (a bug in the table) when one does not
 * parse. */
bool dlq_config_set_defaults (const dlq_setting_t *rows, size_t count, const char *prefix, int home, void *base);

/* Each row of home under prefix that group has (found by its path after
 * prefix): its value into base. false with err set when one is out of
 * bounds. Types are checked by dlq_config_check_group, first. */
bool dlq_config_read (const config_setting_t *group, const dlq_setting_t *rows, size_t count,
                      const char *prefix, int home, void *base, dlq_config_error_t *err);

/* Free what rows of home keep in base (strings, lists). */
void dlq_config_free_values (const dlq_setting_t *rows, size_t count, int home, void *base);

/* The row named path, or NULL. */
const dlq_setting_t *dlq_config_row (const dlq_setting_t *rows, size_t count, const char *path);

/* The configuration reference of n tables of rows (tables [k] has counts
 * [k] rows): one Markdown table (setting, type, default, meaning), a line
 * per row, in the rows' order. Pure. */
void dlq_config_format_reference (const dlq_setting_t *const *tables, const size_t *counts, size_t n,
                                  dlq_buf_t *out);

#endif
