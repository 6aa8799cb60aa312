/*  cmd_replay — dlqctl's replay command: start a replay job (or only see
 *  what it would replay: --dry-run) and follow it to its end, and the
 *  job subcommands (status, pause, resume, cancel: cmd_jobs.h). Takes the
 *  command's own argv (argv[0] is "replay") and returns an exit status
 *  (dlqctl.h).
 */
#ifndef DLQ_CMD_REPLAY_H
#define DLQ_CMD_REPLAY_H

#include "dlqctl.h"

/* replay [FILTERS | --ids ID,... | --id ID | --all] [--target T] [--rate N]
 *        [--dry-run [--sample N]] [--detach]
 * replay status [JOB] | pause JOB | resume JOB | cancel JOB */
int cmd_replay (dlqctl_t *ctl, int argc, char **argv);

#endif
