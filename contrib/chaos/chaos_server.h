/*  chaos_server — the throwaway PostgreSQL cluster and RabbitMQ node of a
 *  chaos run, through the project's scripts (contrib/scripts/pg-server.sh
 *  and rabbitmq-server.sh): start on a free loopback port in a directory
 *  of the run, pause (stop, keeping the data) and resume mid-run, stop
 *  (and remove) at the end.
 *
 *  The run's pid is passed as the scripts' OWNER, so their watchdog stops
 *  a server even if the run dies without doing so. The scripts' stderr
 *  goes to a log file of the run.
 */
#ifndef DLQ_CHAOS_SERVER_H
#define DLQ_CHAOS_SERVER_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    char script [4096];         /* path of pg-server.sh or rabbitmq-server.sh */
    char dir [4096];            /* the server's directory */
    char log_path [4096];       /* the scripts' stderr */
    int  port;
    char address [512];         /* the conninfo, or the amqp:// URL */
    bool started;
} chaos_server_t;

/* Start the server of script (a path) in dir, on the first free port the
 * script finds from port_hint on; fills self. False with err (and the
 * script's words in log_path). */
bool chaos_server_start (chaos_server_t *self, const char *script, const char *dir, int port_hint,
                         const char *log_path, char *err, size_t err_len);

/* Stop it, keeping its data (the script's pause). */
bool chaos_server_pause (chaos_server_t *self, char *err, size_t err_len);

/* Start it again after a pause; waits until it answers (the script's resume). */
bool chaos_server_resume (chaos_server_t *self, char *err, size_t err_len);

/* Stop it and remove its directory (no-op unless started). */
bool chaos_server_stop (chaos_server_t *self, char *err, size_t err_len);

#endif
