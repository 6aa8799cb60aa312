/*  plugin_host — the dlq_sink_host_t table handed to every sink plugin:
 *  logging, the sink's own counters, clocks and its configuration, all
 *  through function pointers so that plugins never link dlqd's symbols.
 */
#ifndef DLQ_PLUGIN_HOST_H
#define DLQ_PLUGIN_HOST_H

#include "dlq_buf.h"
#include "dlq_sink.h"

/* The host table (static, shared by every sink). */
const dlq_sink_host_t *dlq_plugin_host (void);

/* A dlq_buf_t seen by a plugin as a dlq_sink_buf_t (host->append writes to it). */
dlq_sink_buf_t *dlq_plugin_host_buf (dlq_buf_t *buf);

#endif
