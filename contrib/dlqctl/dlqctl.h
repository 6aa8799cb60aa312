/*  dlqctl — shared pieces of the dlqd command-line client: the options
 *  every command sees, exit statuses, and error reporting.
 *
 *  Exit statuses: 0 success; 1 the gateway rejected something (an ERR
 *  reply, rejected lines in `put`, a followed replay job that ended with
 *  failed events or cancelled); 2 no usable answer (timeout, transport or
 *  protocol error); 64 usage error; 66 input not readable; 130 following
 *  a replay job interrupted (replay_watch.h).
 */
#ifndef DLQCTL_H
#define DLQCTL_H

#include "dlq_client.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum {
    DLQCTL_EXIT_OK        = 0,
    DLQCTL_EXIT_REJECTED  = 1,
    DLQCTL_EXIT_NO_ANSWER = 2,
    DLQCTL_EXIT_USAGE     = 64,
    DLQCTL_EXIT_NO_INPUT  = 66
} dlqctl_exit_t;

/* What every command works with. */
typedef struct {
    const char   *endpoint;     /* gateway endpoint */
    bool          json;         /* --json: print raw JSON replies */
    int           timeout_ms;   /* --timeout */
    const char   *server_key;   /* --server-key or $DLQ_SERVER_KEY: CURVE (NULL: none) */
    const char   *cert;         /* --cert or $DLQ_CERT */
    dlq_client_t *client;       /* NULL until dlqctl_connect; destroyed by main */
} dlqctl_t;

/* Create the client for ctl->endpoint with ctl's options (commands call it
 * once their arguments are parsed): with CURVE when a server key or a
 * certificate is given (both are then needed). DLQCTL_EXIT_OK, or
 * DLQCTL_EXIT_USAGE after printing why the endpoint cannot be used, or
 * DLQCTL_EXIT_NO_INPUT after naming a key file that cannot be used. */
dlqctl_exit_t dlqctl_connect (dlqctl_t *ctl);

/* The exit status for a failed client call. */
dlqctl_exit_t dlqctl_exit_for (dlq_client_result_t result);

/* Print "dlqctl: CODE: message (field)" on stderr for the client's last
 * failed blocking call (CODE is the gateway's code, or TIMEOUT, TRANSPORT,
 * PROTOCOL for local failures) and return the matching exit status. */
dlqctl_exit_t dlqctl_fail (const dlqctl_t *ctl, dlq_client_result_t result);

/* How a command shows a reply body when not --json (arg: what else it
 * needs, may be NULL); returns the exit status. */
typedef int dlqctl_view_fn (const char *body, size_t len, const void *arg);

/* Show what a blocking call that hands a reply body over gave: its
 * failure (dlqctl_fail), or the body as it came with a newline (--json),
 * or through view. Frees body; returns the exit status. */
int dlqctl_show_reply (const dlqctl_t *ctl, dlq_client_result_t result, char *body, size_t len,
                       dlqctl_view_fn *view, const void *arg);

/* Print "dlqctl: <command>: <message>" and a hint to --help on stderr;
 * return DLQCTL_EXIT_USAGE. */
dlqctl_exit_t dlqctl_usage_error (const char *command, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

/* Short option letters of the global options, for a command's optstring,
 * so that they may also follow the command ("dlqctl list ... --json"). */
#define DLQCTL_GLOBAL_SHORT "e:jt:"

/* The long-only global options (values past every short option). */
enum { DLQCTL_OPT_SERVER_KEY = 1000, DLQCTL_OPT_CERT };

/* The last entries of every option table given to getopt_long: --help,
 * the global options and the terminating entry (needs <getopt.h>). The
 * matching optstring letters are "h" DLQCTL_GLOBAL_SHORT. */
#define DLQCTL_COMMON_LONG_OPTIONS                      \
    { "help",     no_argument,       NULL, 'h' },      \
    { "endpoint", required_argument, NULL, 'e' },      \
    { "json",     no_argument,       NULL, 'j' },      \
    { "timeout",  required_argument, NULL, 't' },      \
    { "server-key", required_argument, NULL, DLQCTL_OPT_SERVER_KEY }, \
    { "cert",     required_argument, NULL, DLQCTL_OPT_CERT }, \
    { NULL, 0, NULL, 0 }

/* Handle an option that getopt_long returned in a command's option loop
 * (the default case of its switch; reads optarg and optind): -h prints
 * usage on stdout, -e, -j and -t set the global option, anything else is
 * reported as an unknown or incomplete option of command (NULL: before
 * the command). Returns true when parsing goes on; false with *status
 * set to the exit status to leave with at once. */
bool dlqctl_common_option (dlqctl_t *ctl, const char *command, const char *usage,
                           int opt, char **argv, int *status);

/* Parse the options of a command that takes only --help, the global
 * options and operands (argv[0] is the command's word; command is its
 * name in messages, e.g. "replay status"). Returns the index in argv of
 * the first operand (operands are moved after the options), or -1 with
 * *status set to the exit status to leave with. */
int dlqctl_parse_operands (dlqctl_t *ctl, const char *command, int argc, char **argv, const char *usage,
                           int *status);

/* Parse a decimal integer in [min, max] from text; false when it is not
 * one. */
bool dlqctl_parse_int (const char *text, long min, long max, long *out);

#endif
