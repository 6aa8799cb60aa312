/*  cmd_ckpt — dlqctl's ckpt command: the workers' checkpoints (their
 *  positions in their streams, CKPT.* verbs) for operators:
 *
 *      ckpt get STREAM
 *      ckpt ls [--prefix P] [--limit N] [--cursor C] [--all]
 *      ckpt delete STREAM
 *
 *  Takes the command's own argv (argv[0] is "ckpt") and returns an exit
 *  status (dlqctl.h): a stream without a checkpoint is the gateway's
 *  NOT_FOUND for get (exit 1); deleting one is not an error (exit 0,
 *  "nothing to delete").
 */
#ifndef DLQ_CMD_CKPT_H
#define DLQ_CMD_CKPT_H

#include "dlqctl.h"

int cmd_ckpt (dlqctl_t *ctl, int argc, char **argv);

#endif
