/*  replay_target — the replay endpoint and the sink instances of replay
 *  routes (see the header).
 */
#include "replay_target.h"

#include "dlq_alloc.h"
#include "dlq_cert.h"
#include "dlq_log.h"
#include "dlq_time.h"
#include "failed_event.h"
#include "plugin_host.h"
#include "zap_handler.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#define ENDPOINT_HWM 1000               /* messages queued per connected worker */
#define ENDPOINT_LINGER_MS 2000         /* at shutdown, time for queued replays to reach their worker */
#define DELIVER_TIMEOUT_MS 30000

struct dlq_replay_targets {
    const dlqd_config_t *config;
    void                *push;                      /* the endpoint, or NULL */
    void                *instances [DLQ_SINKS_MAX]; /* per sink index, opened at first use */
    bool                 broken [DLQ_SINKS_MAX];    /* init failed: retried after retry_at */
    int64_t              retry_at [DLQ_SINKS_MAX];
};

/* With security.curve the endpoint is a CURVE server whose handshakes the
 * gateway's ZAP handler answers (zap_handler.h: DLQ_ZAP_DOMAIN_REPLAY). */
static bool
secure (void *push, const dlqd_config_t *config, char *err, size_t err_len)
{
    dlq_cert_t *cert = NULL;
    char why [512];
    bool ok = dlq_cert_load (config->security.server_secret_key, true, &cert, why, sizeof why) == DLQ_CERT_OK;
    if (!ok)
        snprintf (err, err_len, "security.curve.server_secret_key: %s", why);
    else
    if (!(ok = dlq_zap_handler_secure (push, dlq_cert_secret (cert), DLQ_ZAP_DOMAIN_REPLAY)))
        snprintf (err, err_len, "replay.listen: this libzmq has no CURVE support");
    dlq_cert_destroy (&cert);
    return ok;
}

dlq_replay_targets_t *
dlq_replay_targets_new (void *zmq_ctx, const dlqd_config_t *config, char *err, size_t err_len)
{
    dlq_replay_targets_t *self = dlq_calloc (1, sizeof *self);
    self->config = config;
    if (!config->replay.listen)
        return self;
    self->push = zmq_socket (zmq_ctx, ZMQ_PUSH);
    int hwm = ENDPOINT_HWM, linger = ENDPOINT_LINGER_MS, immediate = 1;
    zmq_setsockopt (self->push, ZMQ_SNDHWM, &hwm, sizeof hwm);
    zmq_setsockopt (self->push, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt (self->push, ZMQ_IMMEDIATE, &immediate, sizeof immediate);
    if (config->security.server_secret_key && !secure (self->push, config, err, err_len)) {
        dlq_replay_targets_destroy (&self);
        return NULL;
    }
    if (zmq_bind (self->push, config->replay.listen) != 0) {
        snprintf (err, err_len, "replay.listen %s: %s", config->replay.listen, zmq_strerror (zmq_errno ()));
        dlq_replay_targets_destroy (&self);
        return NULL;
    }
    return self;
}

void
dlq_replay_targets_destroy (dlq_replay_targets_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_replay_targets_t *self = *self_p;
    for (size_t i = 0; i < self->config->sink_count; i++)
        if (self->instances [i])
            dlq_plugin_config_ops (self->config->sinks [i])->destroy (self->instances [i]);
    if (self->push)
        zmq_close (self->push);
    free (self);
    *self_p = NULL;
}

static dlq_replay_send_t
send_endpoint (dlq_replay_targets_t *self, const char *job, const char *id, const char *body, size_t len,
               char *why, size_t why_len)
{
    if (!self->push) {
        snprintf (why, why_len, "no replay endpoint (replay.listen is not set)");
        return DLQ_REPLAY_FAILED;
    }
    /* Frames 1 and 2 are queued only when the last one is: with
     * ZMQ_DONTWAIT the first send fails alone when no worker can take it. */
    if (zmq_send (self->push, job, strlen (job), ZMQ_SNDMORE | ZMQ_DONTWAIT) < 0) {
        snprintf (why, why_len, "no worker connected to the replay endpoint %s has room",
                  self->config->replay.listen);
        return DLQ_REPLAY_WAIT;
    }
    zmq_send (self->push, id, strlen (id), ZMQ_SNDMORE);
    zmq_send (self->push, body, len, 0);
    return DLQ_REPLAY_SENT;
}

/* The replayer's instance of sink i, opened when first needed (again at
 * most every 5 s after a failed init). */
static void *
instance_of (dlq_replay_targets_t *self, uint32_t i, char *why, size_t why_len)
{
    if (self->instances [i])
        return self->instances [i];
    dlq_sink_config_t *sink = self->config->sinks [i];
    if (self->broken [i] && dlq_time_mono_ms () < self->retry_at [i]) {
        snprintf (why, why_len, "sink %s could not start", dlq_plugin_config_name (sink));
        return NULL;
    }
    char err [256] = "";
    if (dlq_plugin_config_ops (sink)->init (dlq_plugin_host (), sink, DLQ_SINK_MODE_DELIVER, &self->instances [i],
                                          err, sizeof err) != DLQ_SINK_STATUS_OK) {
        self->instances [i] = NULL;
        self->broken [i] = true;
        self->retry_at [i] = dlq_time_mono_ms () + 5000;
        snprintf (why, why_len, "sink %s could not start: %s", dlq_plugin_config_name (sink), err);
        dlq_log (DLQ_LOG_WARN, "replay: %s", why);
        return NULL;
    }
    self->broken [i] = false;
    return self->instances [i];
}

static dlq_replay_send_t
send_sink (dlq_replay_targets_t *self, uint32_t index, const char *body, size_t len, char *why, size_t why_len)
{
    void *instance = instance_of (self, index, why, why_len);
    if (!instance)
        return DLQ_REPLAY_WAIT;
    dlq_error_t err;
    dlq_event_t *e = dlq_event_decode (body, len, dlq_time_now_ms (), &err);
    if (!e) {
        snprintf (why, why_len, "the stored body does not decode: %s", err.message);
        return DLQ_REPLAY_FAILED;
    }
    const dlq_policy_t *policy = dlq_policy_table_lookup (self->config->policies, e->stream_name);
    dlq_sink_event_t event = {
        .id = e->id, .stream_name = e->stream_name, .operation_type = e->operation_type,
        .status = e->status, .document_key = e->document_key, .attempts = e->attempts,
        .first_attempt_at = e->first_attempt_at, .created_at = e->created_at,
        .expires_at = e->expires_at, .json = body, .json_len = len,
        .retention_days = policy->retention_days, .delivery_attempt = 1,
    };
    dlq_sink_outcome_t outcome;
    memset (&outcome, 0, sizeof outcome);
    dlq_plugin_config_ops (self->config->sinks [index])->deliver (instance, &event, 1, &outcome,
                                                                 dlq_time_mono_ms () + DELIVER_TIMEOUT_MS);
    dlq_event_destroy (&e);
    if (outcome.result == DLQ_SINK_OK)
        return DLQ_REPLAY_SENT;
    snprintf (why, why_len, "sink %s: %s", dlq_plugin_config_name (self->config->sinks [index]),
              outcome.message [0] ? outcome.message : "no reason given");
    return outcome.result == DLQ_SINK_FAIL ? DLQ_REPLAY_FAILED : DLQ_REPLAY_WAIT;
}

dlq_replay_send_t
dlq_replay_targets_send (dlq_replay_targets_t *self, bool to_endpoint, const char *job, const char *stream,
                         const char *id, const char *body, size_t len, char *why, size_t why_len)
{
    if (to_endpoint)
        return send_endpoint (self, job, id, body, len, why, why_len);
    const dlq_policy_t *policy = dlq_policy_table_lookup (self->config->policies, stream);
    if (policy->replay_route == DLQ_REPLAY_ROUTE_ENDPOINT)
        return send_endpoint (self, job, id, body, len, why, why_len);
    if (policy->replay_route == DLQ_REPLAY_ROUTE_SINK)
        return send_sink (self, policy->replay_sink, body, len, why, why_len);
    snprintf (why, why_len, "stream %s has no replay_route", stream);
    return DLQ_REPLAY_FAILED;
}
