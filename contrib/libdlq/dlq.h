/*  dlq — libdlq's umbrella header: the client (dlq_client.h), the
 *  workbench's filters (dlq_filter.h), the replay receiver
 *  (dlq_replay_receiver.h), what they share (dlq_result.h) and the
 *  version (dlq_version.h). The model is explained in docs/libdlq.md;
 *  each header is the reference for its calls.
 *
 *      #include <dlq.h>
 *      cc app.c $(pkg-config --cflags --libs libdlq)
 */
#ifndef DLQ_H
#define DLQ_H

#include "dlq_version.h"
#include "dlq_result.h"
#include "dlq_filter.h"
#include "dlq_replay_receiver.h"
#include "dlq_client.h"

#endif
