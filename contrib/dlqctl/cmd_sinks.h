/*  cmd_sinks — what dlqctl shows and does about the gateway's sinks: the
 *  redeliver command, the sinks table of `stats` and the deliveries table
 *  of `get`.
 */
#ifndef DLQ_CMD_SINKS_H
#define DLQ_CMD_SINKS_H

#include "dlqctl.h"
#include "dlq_json.h"

/* redeliver --sink S [--stream X | --id ID]: "requeued N failed deliveries
 * to S" (with --json: {"sink":S,"requeued":N}); argv[0] is the command
 * name. Returns the exit status (dlqctl.h). */
int cmd_redeliver (dlqctl_t *ctl, int argc, char **argv);

/* Print a blank line, then the "sinks" member of a STATS reply as a table
 * (SINK, TYPE, BACKLOG, DELIVERED, RETRYING, FAILED, REDELIVERED, CIRCUIT,
 * LAST ERROR), or "sinks: none" when it has none. */
void sinks_print_stats (const dlq_json_value_t *sinks);

/* Print a blank line, then the "deliveries" member of a GET reply as a
 * table (SINK, STATE, ATTEMPTS, NEXT ATTEMPT, LAST ERROR), or
 * "deliveries: none" when it has none. */
void sinks_print_deliveries (const dlq_json_value_t *deliveries);

#endif
