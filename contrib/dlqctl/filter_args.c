/*  filter_args — the workbench commands' options into a libdlq filter. */
#include "filter_args.h"
#include "dlq_json.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The setters of the filters given by a text option. */
typedef struct {
    int          opt;
    dlq_client_result_t (*set) (dlq_client_filter_t *filter, const char *value);
} text_option_t;

static const text_option_t text_options [] = {
    { 's',                    dlq_client_filter_set_stream },
    { FILTER_OPT_STATUS,      dlq_client_filter_set_status },
    { FILTER_OPT_ERROR_TYPE,  dlq_client_filter_set_error_type },
    { FILTER_OPT_FINGERPRINT, dlq_client_filter_set_fingerprint },
    { FILTER_OPT_SINCE,       dlq_client_filter_set_created_after },
    { FILTER_OPT_UNTIL,       dlq_client_filter_set_created_before },
    { FILTER_OPT_MESSAGE,     dlq_client_filter_set_message_contains },
};

/* The optstring of an option table: "h" for --help's 'h', "s:" for
 * --stream's 's', ... (entries whose value is a letter). */
static void
short_options (const struct option *options, char *out, size_t size)
{
    size_t n = 0;
    for (const struct option *o = options; o->name && n + 3 < size; o++) {
        if (o->val >= 256 || !isalpha (o->val))
            continue;
        out [n++] = (char) o->val;
        if (o->has_arg == required_argument)
            out [n++] = ':';
    }
    out [n] = '\0';
}

/* Set metadata key to value, read as --meta's help says: JSON true,
 * false, a number or a string (not surrounded by spaces) as that JSON
 * value, anything else as a string as written. */
static void
set_metadata (dlq_client_filter_t *filter, const char *key, const char *value)
{
    size_t len = strlen (value);
    dlq_json_doc_t *doc = NULL;
    const dlq_json_value_t *v = NULL;
    if (len && !isspace ((unsigned char) value [0]) && !isspace ((unsigned char) value [len - 1])
        && dlq_json_parse (value, len, &doc, NULL) == DLQ_JSON_OK)
        v = dlq_json_root (doc);
    if (v && (v->type == DLQ_JSON_TRUE || v->type == DLQ_JSON_FALSE))
        dlq_client_filter_set_metadata_bool (filter, key, v->type == DLQ_JSON_TRUE);
    else
    if (v && v->type == DLQ_JSON_NUMBER)
        dlq_client_filter_set_metadata_number (filter, key, strtod (v->str, NULL));
    else
    if (v && v->type == DLQ_JSON_STRING)
        dlq_client_filter_set_metadata_string (filter, key, v->str);
    else
        dlq_client_filter_set_metadata_string (filter, key, value);
    dlq_json_doc_destroy (&doc);
}

/* --meta KEY=VALUE. */
static int
meta_option (dlq_client_filter_t *filter, const char *command, const char *arg)
{
    const char *equals = strchr (arg, '=');
    if (!equals || equals == arg)
        return dlqctl_usage_error (command, "--meta wants KEY=VALUE, not '%s'", arg);
    char *key = strndup (arg, (size_t) (equals - arg));
    set_metadata (filter, key, equals + 1);
    free (key);
    return FILTER_ARGS_OK;
}

/* --attempts-min N, --attempts-max N. */
static int
attempts_option (dlq_client_filter_t *filter, const char *command, int opt, const char *arg)
{
    long n;
    bool min = opt == FILTER_OPT_ATTEMPTS_MIN;
    if (!dlqctl_parse_int (arg, 0, INT32_MAX, &n))
        return dlqctl_usage_error (command, "--attempts-%s wants a number from 0 to %d, not '%s'",
                                   min ? "min" : "max", INT32_MAX, arg);
    if (min)
        dlq_client_filter_set_attempts_min (filter, (int) n);
    else
        dlq_client_filter_set_attempts_max (filter, (int) n);
    return FILTER_ARGS_OK;
}

/* A command's own option handler and its state. */
typedef struct {
    filter_args_own_fn *fn;
    void               *state;
} own_options_t;

/* Apply one option that getopt_long returned; FILTER_ARGS_OK, or the exit
 * status to leave with. */
static int
apply_option (dlqctl_t *ctl, filter_args_t *args, const char *usage, const own_options_t *own, int opt,
              char **argv)
{
    const char *command = argv [0];
    int status = own->fn ? own->fn (own->state, command, opt, optarg) : FILTER_ARGS_NOT_MINE;
    if (status != FILTER_ARGS_NOT_MINE)
        return status;
    status = FILTER_ARGS_OK;
    for (size_t i = 0; i < sizeof text_options / sizeof text_options [0]; i++)
        if (text_options [i].opt == opt) {
            text_options [i].set (args->filter, optarg);
            args->stream = args->stream || opt == 's';
            return FILTER_ARGS_OK;
        }
    switch (opt) {
        case FILTER_OPT_ATTEMPTS_MIN:
        case FILTER_OPT_ATTEMPTS_MAX:
            return attempts_option (args->filter, command, opt, optarg);
        case FILTER_OPT_META:
            return meta_option (args->filter, command, optarg);
        case 'n':
            if (!dlqctl_parse_int (optarg, 1, 1000, &args->limit))
                return dlqctl_usage_error (command, "--limit wants a number from 1 to 1000, not '%s'", optarg);
            return FILTER_ARGS_OK;
        case 'c':
            args->cursor = optarg;
            return FILTER_ARGS_OK;
        case 'a':
            args->all = true;
            return FILTER_ARGS_OK;
        default:
            return dlqctl_common_option (ctl, command, usage, opt, argv, &status) ? FILTER_ARGS_OK : status;
    }
}

int
filter_args_parse (dlqctl_t *ctl, int argc, char **argv, const struct option *options, const char *usage,
                   filter_args_t *args)
{
    return filter_args_parse_own (ctl, argc, argv, options, usage, NULL, NULL, args);
}

int
filter_args_parse_own (dlqctl_t *ctl, int argc, char **argv, const struct option *options, const char *usage,
                       filter_args_own_fn *own_fn, void *state, filter_args_t *args)
{
    own_options_t own = { own_fn, state };
    char optstring [64];
    short_options (options, optstring, sizeof optstring);
    memset (args, 0, sizeof *args);
    args->filter = dlq_client_filter_new ();
    int opt;
    optind = 0;
    while ((opt = getopt_long (argc, argv, optstring, options, NULL)) != -1) {
        int status = apply_option (ctl, args, usage, &own, opt, argv);
        if (status != FILTER_ARGS_OK)
            return status;
    }
    if (optind < argc)
        return dlqctl_usage_error (argv [0], "unexpected argument '%s'", argv [optind]);
    return FILTER_ARGS_OK;
}

void
filter_args_free (filter_args_t *args)
{
    dlq_client_filter_destroy (&args->filter);
}

int
filter_args_run (dlqctl_t *ctl, int argc, char **argv, const struct option *options, const char *usage,
                 filter_args_fn *run)
{
    filter_args_t args;
    int status = filter_args_parse (ctl, argc, argv, options, usage, &args);
    if (status == FILTER_ARGS_OK && (status = dlqctl_connect (ctl)) == DLQCTL_EXIT_OK)
        status = run (ctl, &args);
    filter_args_free (&args);
    return status;
}
