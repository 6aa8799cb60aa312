/*  readiness — the state behind /readyz. */
#include "readiness.h"

#include "dlq_alloc.h"
#include "dlq_json.h"
#include "metrics.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct dlq_readiness {
    pthread_mutex_t lock;
    char           *data_dir;
    int64_t         min_free;
    bool            bound;
    bool            stopping;
    char            log_error [256];    /* "" while the log takes writes */
};

static const char *const reason_names [] = {
    [DLQ_READY] = "ready", [DLQ_UNREADY_STARTING] = "starting", [DLQ_UNREADY_STOPPING] = "stopping",
    [DLQ_UNREADY_LOG] = "log", [DLQ_UNREADY_DISK] = "disk",
};

const char *
dlq_readiness_reason_name (dlq_readiness_reason_t reason)
{
    return (unsigned) reason <= DLQ_UNREADY_DISK ? reason_names [reason] : "unknown";
}

dlq_readiness_t *
dlq_readiness_new (const char *data_dir, int64_t min_free_bytes)
{
    dlq_readiness_t *self = dlq_calloc (1, sizeof *self);
    pthread_mutex_init (&self->lock, NULL);
    self->data_dir = dlq_strdup (data_dir);
    self->min_free = min_free_bytes;
    return self;
}

void
dlq_readiness_destroy (dlq_readiness_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    pthread_mutex_destroy (&(*self_p)->lock);
    free ((*self_p)->data_dir);
    free (*self_p);
    *self_p = NULL;
}

void
dlq_readiness_bound (dlq_readiness_t *self)
{
    pthread_mutex_lock (&self->lock);
    self->bound = true;
    pthread_mutex_unlock (&self->lock);
}

void
dlq_readiness_stopping (dlq_readiness_t *self)
{
    pthread_mutex_lock (&self->lock);
    self->stopping = true;
    pthread_mutex_unlock (&self->lock);
}

void
dlq_readiness_commit (dlq_readiness_t *self, const char *error)
{
    pthread_mutex_lock (&self->lock);
    snprintf (self->log_error, sizeof self->log_error, "%s", error ? error : "");
    pthread_mutex_unlock (&self->lock);
}

void
dlq_readiness_format (dlq_readiness_reason_t reason, const char *message, dlq_buf_t *body)
{
    if (reason == DLQ_READY) {
        dlq_buf_puts (body, "{\"ready\":true}");
        return;
    }
    dlq_buf_printf (body, "{\"ready\":false,\"reason\":\"%s\"", reason_names [reason]);
    if (message) {
        dlq_buf_puts (body, ",\"message\":");
        dlq_json_write_string (body, message, strlen (message));
    }
    dlq_buf_putc (body, '}');
}

dlq_readiness_reason_t
dlq_readiness_check (dlq_readiness_t *self, dlq_buf_t *body)
{
    char message [512] = "";
    dlq_readiness_reason_t reason = DLQ_READY;
    pthread_mutex_lock (&self->lock);
    if (!self->bound)
        reason = DLQ_UNREADY_STARTING;
    else
    if (self->stopping)
        reason = DLQ_UNREADY_STOPPING;
    else
    if (self->log_error [0]) {
        reason = DLQ_UNREADY_LOG;
        snprintf (message, sizeof message, "the last group commit failed: %s", self->log_error);
    }
    pthread_mutex_unlock (&self->lock);
    if (reason == DLQ_READY) {
        int64_t free_bytes = dlq_metrics_free_bytes (self->data_dir, NULL);
        if (access (self->data_dir, W_OK) != 0) {
            reason = DLQ_UNREADY_LOG;
            snprintf (message, sizeof message, "%s is not writable", self->data_dir);
        }
        else
        if (free_bytes >= 0 && free_bytes <= self->min_free) {
            reason = DLQ_UNREADY_DISK;
            snprintf (message, sizeof message, "%lld bytes free on the filesystem of %s, at most "
                      "http.min_free_bytes (%lld)", (long long) free_bytes, self->data_dir,
                      (long long) self->min_free);
        }
    }
    dlq_readiness_format (reason, message [0] ? message : NULL, body);
    return reason;
}
