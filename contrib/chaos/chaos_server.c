/*  chaos_server — the scripts' commands, run to their end; see
 *  chaos_server.h.
 */
#include "chaos_server.h"

#include "chaos_proc.h"

#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Run the script with command and up to three more arguments (NULL ends
 * them); its stdout in out. False with err unless it exits 0. */
static bool
chaos_server_script (chaos_server_t *self, const char *command, const char *a1, const char *a2,
                     const char *a3, char *out, size_t out_len, char *err, size_t err_len)
{
    char *argv [] = { self->script, (char *) command, (char *) a1, (char *) a2, (char *) a3, NULL };
    int status = chaos_proc_run (argv, out, out_len, self->log_path);
    if (status >= 0 && WIFEXITED (status) && WEXITSTATUS (status) == 0)
        return true;
    char how [96] = "could not be started";
    if (status >= 0)
        chaos_proc_describe (status, how, sizeof how);
    snprintf (err, err_len, "%s %s %s: %s (see %s)", self->script, command, a1 ? a1 : "", how,
              self->log_path);
    return false;
}

bool
chaos_server_start (chaos_server_t *self, const char *script, const char *dir, int port_hint,
                    const char *log_path, char *err, size_t err_len)
{
    memset (self, 0, sizeof *self);
    snprintf (self->script, sizeof self->script, "%s", script);
    snprintf (self->dir, sizeof self->dir, "%s", dir);
    snprintf (self->log_path, sizeof self->log_path, "%s", log_path);
    char hint [16], port [32], owner [32];
    snprintf (hint, sizeof hint, "%d", port_hint);
    if (!chaos_server_script (self, "free-port", hint, NULL, NULL, port, sizeof port, err, err_len))
        return false;
    if (sscanf (port, "%d", &self->port) != 1) {
        snprintf (err, err_len, "%s free-port printed '%s', not a port", script, port);
        return false;
    }
    snprintf (owner, sizeof owner, "%ld", (long) getpid ());
    self->started = true;
    return chaos_server_script (self, "start", dir, port, owner, self->address, sizeof self->address,
                                err, err_len);
}

bool
chaos_server_pause (chaos_server_t *self, char *err, size_t err_len)
{
    return chaos_server_script (self, "pause", self->dir, NULL, NULL, NULL, 0, err, err_len);
}

bool
chaos_server_resume (chaos_server_t *self, char *err, size_t err_len)
{
    char address [512];
    return chaos_server_script (self, "resume", self->dir, NULL, NULL, address, sizeof address,
                                err, err_len);
}

bool
chaos_server_stop (chaos_server_t *self, char *err, size_t err_len)
{
    if (!self->started)
        return true;
    self->started = false;
    return chaos_server_script (self, "stop", self->dir, NULL, NULL, NULL, 0, err, err_len);
}
