/*  amqp_sink — the amqp sink plugin's instance, shared by its init
 *  (amqp_sink.c) and its delivery (amqp_deliver.c).
 */
#ifndef DLQ_AMQP_SINK_H
#define DLQ_AMQP_SINK_H

#include "amqp_conn.h"
#include "amqp_routes.h"
#include "dlq_sink.h"

#include <stdbool.h>
#include <stdint.h>

/* What became of one event of the batch being delivered. */
typedef enum {
    DLQ_AMQP_UNSENT = 0,
    DLQ_AMQP_SENT,              /* published, waiting for its confirm */
    DLQ_AMQP_ACKED,             /* the broker confirmed it */
    DLQ_AMQP_DONE               /* its outcome is set (FAIL, RETRY, NACK) */
} dlq_amqp_state_t;

typedef struct {
    dlq_amqp_state_t        state;
    bool                    returned;       /* came back unroutable (basic.return) */
    const dlq_amqp_route_t *route;
} dlq_amqp_pending_t;

typedef struct {
    const dlq_sink_host_t   *host;
    const dlq_sink_config_t *config;
    dlq_amqp_conn_settings_t conn_settings;
    char                     connection_name [128];
    char                    *url;               /* the url setting, parsed in place */
    dlq_amqp_conn_t         *conn;
    dlq_amqp_routes_t       *routes;
    bool                     declare_exchange;
    const char              *exchange_type;
    bool                     confirm;
    uint32_t                 window;            /* confirms outstanding, at most */
    int64_t                  confirm_timeout_ms;
    bool                     return_retry;      /* on_return = "retry" */
    bool                     was_connected;     /* for the log: say a loss once */
    bool                     blocked;           /* connection.blocked by the broker */
    char                     blocked_reason [128];

    /* one deliver call */
    dlq_amqp_pending_t      *pending;           /* per event */
    uint32_t                *by_tag;            /* event index of the k-th publish of the call */
    size_t                   capacity;
    uint64_t                 first_tag;         /* tag of the call's first publish */
    uint32_t                 published;         /* publishes in the call */
    uint32_t                 oldest;            /* k of the oldest unconfirmed publish */
    uint32_t                 outstanding;       /* publishes waiting for a confirm */
    uint32_t                 returns;           /* returned in the call */
} dlq_amqp_sink_t;

/* deliver of the plugin (amqp_deliver.c). */
void dlq_amqp_sink_deliver (void *instance, const dlq_sink_event_t *events, size_t count,
                            dlq_sink_outcome_t *outcomes, int64_t deadline_mono_ms);

/* Open the connection when it is not (logging a change of state); the
 * result of dlq_amqp_conn_open. */
dlq_amqp_conn_result_t dlq_amqp_sink_connect (dlq_amqp_sink_t *self, int64_t deadline_mono_ms,
                                              char *err, size_t err_len);

#endif
