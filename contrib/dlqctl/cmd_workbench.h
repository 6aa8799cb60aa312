/*  cmd_workbench — the dlqctl commands of the failure workbench that are
 *  not list: count and groups. Each takes the command's own argv (argv[0]
 *  is the command name) and returns an exit status (dlqctl.h); their
 *  filter options are list's (filter_args.h).
 */
#ifndef DLQ_CMD_WORKBENCH_H
#define DLQ_CMD_WORKBENCH_H

#include "dlqctl.h"

/* count [FILTERS]: the number of events that match, alone on a line (the
 * gateway's {"count":N} with --json). */
int cmd_count (dlqctl_t *ctl, int argc, char **argv);

/* groups [FILTERS] [--limit N]: a table of the error groups among the
 * events that match, most events first (the raw reply with --json). */
int cmd_groups (dlqctl_t *ctl, int argc, char **argv);

#endif
