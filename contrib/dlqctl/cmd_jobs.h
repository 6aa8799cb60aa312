/*  cmd_jobs — the dlqctl commands about replay jobs that exist already
 *  (replay status, pause, resume, cancel) and a worker's reports on a
 *  replayed event (resolve, fail). Each takes its own argv (argv[0] is
 *  its word: "status", ..., "resolve") and returns an exit status
 *  (dlqctl.h); an unknown job or event is the gateway's NOT_FOUND, a move
 *  a job's state does not allow its INVALID_STATE (exit 1).
 */
#ifndef DLQ_CMD_JOBS_H
#define DLQ_CMD_JOBS_H

#include "dlqctl.h"

/* replay status [JOB]: a table of the jobs, newest first, or one job as
 * labelled lines (the gateway's reply, or the job, as JSON with --json). */
int cmd_replay_status (dlqctl_t *ctl, int argc, char **argv);

/* replay pause JOB, replay resume JOB, replay cancel JOB (argv[0] says
 * which): "job ID STATE: DONE/TOTAL done" after the change (the job as
 * JSON with --json). */
int cmd_replay_move (dlqctl_t *ctl, int argc, char **argv);

/* resolve ID, fail ID: "ID STATUS (retry count R, replay count N, retry
 * after T)" after the report (the gateway's reply with --json). */
int cmd_resolve (dlqctl_t *ctl, int argc, char **argv);
int cmd_fail (dlqctl_t *ctl, int argc, char **argv);

/* The usage lines of the job subcommands, for replay's usage. */
#define CMD_JOBS_USAGE                                                                  \
    "jobs:\n"                                                                           \
    "  replay status [JOB]    the jobs, newest first, as a table (JOB, STATE,\n"        \
    "                         TARGET, RATE, DONE, TOTAL, REPLAYED, SKIPPED,\n"          \
    "                         QUARANTINED, FAILED, CREATED AT, LAST ERROR), or one\n"   \
    "                         job in detail\n"                                          \
    "  replay pause JOB       stop a RUNNING job for now\n"                             \
    "  replay resume JOB      go on with a PAUSED job\n"                                \
    "  replay cancel JOB      stop a RUNNING or PAUSED job for good\n"

#endif
