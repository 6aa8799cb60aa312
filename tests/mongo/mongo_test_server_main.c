/*  mongo_test_server — the MongoDB test server (mongo_server.h) as a
 *  program of its own, for the benchmark and for trying things by hand:
 *
 *      mongo_test_server [--port P] [--verbose] [--record]
 *
 *  Listens on 127.0.0.1:P (default: any free port), prints its URI
 *  ("mongodb://127.0.0.1:P/") on one line of stdout once listening, and
 *  serves until SIGTERM or SIGINT, then closes every connection and
 *  exits 0. --verbose logs every command to stderr; --record keeps the
 *  log of commands (off by default here: nobody reads it, and it grows
 *  with every insert). Exits 1 when it cannot listen, 2 on bad usage.
 */
#include "mongo_server.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int  port;
    bool verbose;
    bool record;
} options_t;

static void
usage (void)
{
    fprintf (stderr, "usage: mongo_test_server [--port P] [--verbose] [--record]\n");
}

static bool
parse_port (const char *text, int *port)
{
    char *end;
    long value = strtol (text, &end, 10);
    if (*text == '\0' || *end != '\0' || value < 0 || value > 65535)
        return false;
    *port = (int) value;
    return true;
}

static bool
parse_options (int argc, char **argv, options_t *options)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp (argv [i], "--port") == 0 && i + 1 < argc) {
            if (!parse_port (argv [++i], &options->port))
                return false;
        } else if (strcmp (argv [i], "--verbose") == 0)
            options->verbose = true;
        else if (strcmp (argv [i], "--record") == 0)
            options->record = true;
        else
            return false;
    }
    return true;
}

/* Block SIGTERM and SIGINT in every thread (the server's threads inherit
 * the mask), to take them with sigwait. */
static void
block_stop_signals (sigset_t *set)
{
    sigemptyset (set);
    sigaddset (set, SIGTERM);
    sigaddset (set, SIGINT);
    pthread_sigmask (SIG_BLOCK, set, NULL);
}

int
main (int argc, char **argv)
{
    options_t options = { 0, false, false };
    sigset_t stop_signals;
    int signal_number;
    if (!parse_options (argc, argv, &options)) {
        usage ();
        return 2;
    }
    block_stop_signals (&stop_signals);
    mongo_server_t *server = mongo_server_new (options.port);
    if (!server)
        return 1;
    mongo_server_set_verbose (server, options.verbose);
    mongo_server_set_recording (server, options.record);
    printf ("%s\n", mongo_server_uri (server));
    fflush (stdout);
    sigwait (&stop_signals, &signal_number);
    if (options.verbose)
        fprintf (stderr, "mongo_test_server: signal %d, stopping\n", signal_number);
    mongo_server_destroy (&server);
    return 0;
}
