/*  cmd_query — the dlqctl commands that ask the gateway something: get,
 *  list, stats and ping. Each takes the command's own argv (argv[0] is
 *  the command name) and returns an exit status (dlqctl.h).
 */
#ifndef DLQ_CMD_QUERY_H
#define DLQ_CMD_QUERY_H

#include "dlqctl.h"

/* get ID: the stored event, pretty-printed, a table of its deliveries
 * when the gateway has sinks and its replay state when the gateway keeps
 * one (the event alone, raw, with --json). */
int cmd_get (dlqctl_t *ctl, int argc, char **argv);

/* list [FILTERS] [--limit N] [--cursor C] [--all]: a table of the events
 * that match (of every stream without --stream) and the next cursor (raw
 * pages with --json). */
int cmd_list (dlqctl_t *ctl, int argc, char **argv);

/* stats: the gateway's counters, readable, and a table of its sinks when
 * it has some (raw with --json). */
int cmd_stats (dlqctl_t *ctl, int argc, char **argv);

/* ping: "pong from E (version V, protocol P, max message N bytes) in X ms"
 * (no max message part when the gateway does not tell it). */
int cmd_ping (dlqctl_t *ctl, int argc, char **argv);

#endif
