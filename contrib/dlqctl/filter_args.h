/*  filter_args — the options of dlqctl's failure workbench commands
 *  (list, count, groups, replay): the filters, made into a libdlq filter,
 *  the page options of list and groups, and a hook for a command's own
 *  options (replay's).
 *
 *  Each command gives getopt_long its own option table, made of
 *  FILTER_ARGS_LONG_OPTIONS, the page options it takes and
 *  DLQCTL_COMMON_LONG_OPTIONS, and has filter_args_parse read them.
 */
#ifndef DLQ_FILTER_ARGS_H
#define DLQ_FILTER_ARGS_H

#include "dlqctl.h"

#include <getopt.h>

/* getopt_long values of the long-only filter options. */
enum {
    FILTER_OPT_STATUS = 256, FILTER_OPT_ERROR_TYPE, FILTER_OPT_FINGERPRINT, FILTER_OPT_SINCE, FILTER_OPT_UNTIL,
    FILTER_OPT_ATTEMPTS_MIN, FILTER_OPT_ATTEMPTS_MAX, FILTER_OPT_META, FILTER_OPT_MESSAGE
};

/* The filter options, for a command's option table. */
#define FILTER_ARGS_LONG_OPTIONS                                                    \
    { "stream",       required_argument, NULL, 's' },                               \
    { "status",       required_argument, NULL, FILTER_OPT_STATUS },                 \
    { "error-type",   required_argument, NULL, FILTER_OPT_ERROR_TYPE },             \
    { "fingerprint",  required_argument, NULL, FILTER_OPT_FINGERPRINT },            \
    { "since",        required_argument, NULL, FILTER_OPT_SINCE },                  \
    { "until",        required_argument, NULL, FILTER_OPT_UNTIL },                  \
    { "attempts-min", required_argument, NULL, FILTER_OPT_ATTEMPTS_MIN },           \
    { "attempts-max", required_argument, NULL, FILTER_OPT_ATTEMPTS_MAX },           \
    { "meta",         required_argument, NULL, FILTER_OPT_META },                   \
    { "message",      required_argument, NULL, FILTER_OPT_MESSAGE }

/* The page options (list takes the three, groups --limit only). */
#define FILTER_ARGS_LIMIT_OPTION    { "limit",  required_argument, NULL, 'n' }
#define FILTER_ARGS_CURSOR_OPTIONS                                                  \
    { "cursor",       required_argument, NULL, 'c' },                               \
    { "all",          no_argument,       NULL, 'a' }

/* The filter options' lines of a command's usage text. */
#define FILTER_ARGS_USAGE                                                                   \
    "filters (any number; an event must match every one):\n"                                \
    "  -s, --stream S         of stream S (default: every stream)\n"                        \
    "      --status S         whose status is S, exactly (PENDING, DLQ, ...)\n"             \
    "      --error-type T     whose error.type is T, exactly\n"                             \
    "      --fingerprint F    of one error group: F is its FINGERPRINT in\n"                \
    "                         'dlqctl groups' (16 lowercase hex digits)\n"                  \
    "      --since ISO        created at or after this ISO-8601 instant\n"                  \
    "                         (2026-06-09T14:00:00Z, 2026-06-09T16:00:00+02:00)\n"          \
    "      --until ISO        created before this instant\n"                                \
    "      --attempts-min N   tried at least N times\n"                                     \
    "      --attempts-max N   tried at most N times\n"                                      \
    "      --meta KEY=VALUE   whose metadata.KEY equals VALUE; repeat for more\n"           \
    "                         keys. VALUE true, false or a number (JSON syntax:\n"          \
    "                         42, -1.5, 1e3) matches that JSON value; \"TEXT\" in\n"        \
    "                         double quotes the string TEXT (--meta 'code=\"404\"');\n"     \
    "                         anything else the string as written\n"                        \
    "      --message TEXT     whose error.message contains TEXT (ASCII letters\n"           \
    "                         compared without case)\n"

/* A command's arguments. */
typedef struct {
    dlq_client_filter_t *filter;    /* never NULL between parse and free */
    long                 limit;     /* 0: the gateway's default */
    const char          *cursor;    /* NULL: the first page */
    bool                 all;
    bool                 stream;    /* --stream was given */
} filter_args_t;

/* What filter_args_parse returns when the command goes on. */
#define FILTER_ARGS_OK (-1)

/* What a command's own option handler returns for an option that is not
 * its own (parsing then treats it as a common option, or an unknown one). */
#define FILTER_ARGS_NOT_MINE (-2)

/* A command's handler of its own options (those beyond the filters, the
 * page options and the common ones): called with each option getopt_long
 * returned and its argument (NULL when it takes none); returns
 * FILTER_ARGS_OK when it took the option, FILTER_ARGS_NOT_MINE, or the
 * exit status to leave with at once (after a usage error). */
typedef int (filter_args_own_fn) (void *state, const char *command, int opt, const char *arg);

/* Parse a workbench command's arguments (argv[0] is its name) with its
 * option table (whose entries with a letter for a value are the short
 * options: -s, -n, -c, -a, and -h, -e, -j, -t) into *args (free it with filter_args_free whatever this
 * returns). Returns FILTER_ARGS_OK, or the exit status to leave with at
 * once: after printing usage (--help), or a usage error (an option's
 * argument of the wrong form, an operand). */
int filter_args_parse (dlqctl_t *ctl, int argc, char **argv, const struct option *options, const char *usage,
                       filter_args_t *args);

/* filter_args_parse for a command with options of its own: each option
 * goes to own (with state) first; those it does not take are handled as
 * filter_args_parse does. */
int filter_args_parse_own (dlqctl_t *ctl, int argc, char **argv, const struct option *options, const char *usage,
                           filter_args_own_fn *own, void *state, filter_args_t *args);

void filter_args_free (filter_args_t *args);

/* What a workbench command does once its arguments are parsed and the
 * client is connected; returns the exit status. */
typedef int (filter_args_fn) (dlqctl_t *ctl, const filter_args_t *args);

/* Run a workbench command: parse its arguments (filter_args_parse),
 * connect, call run, free the arguments. Returns the exit status. */
int filter_args_run (dlqctl_t *ctl, int argc, char **argv, const struct option *options, const char *usage,
                     filter_args_fn *run);

#endif
