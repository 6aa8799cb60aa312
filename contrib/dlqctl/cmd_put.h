/*  cmd_put — `dlqctl put [--no-ids] [FILE|-]`: store FailedEvents read one
 *  JSON object per line, sent pipelined through libdlq's async PUT.
 */
#ifndef DLQ_CMD_PUT_H
#define DLQ_CMD_PUT_H

#include "dlqctl.h"

/* Run put with the command's own argv (argv[0] is "put"); returns the exit
 * status: 0 all stored, 1 some lines rejected, 2 a transport failure
 * (reading stops at the first), 64 usage, 66 input not readable. */
int cmd_put (dlqctl_t *ctl, int argc, char **argv);

#endif
