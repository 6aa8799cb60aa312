/*  cmd_keygen — dlqctl keygen: a CURVE certificate pair for a client (or
 *  the gateway) of a dlqd with security.curve (docs/security.md).
 */
#ifndef DLQ_CMD_KEYGEN_H
#define DLQ_CMD_KEYGEN_H

#include "dlqctl.h"

/* keygen NAME --role R [--streams S,...] [--token] [--dir D], or keygen NAME
 * --server [--dir D]: writes D/NAME.key (public) and D/NAME.key_secret
 * (mode 0600), refusing to overwrite either, and prints how to allow or
 * use the key; argv[0] is the command name. Needs no gateway. Returns the
 * exit status (dlqctl.h). */
int cmd_keygen (dlqctl_t *ctl, int argc, char **argv);

#endif
