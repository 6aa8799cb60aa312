/*  http_server — libmicrohttpd daemons, one per listen address. */
#include "http_server.h"

#include "dlq_alloc.h"
#include "dlq_buf.h"
#include "dlq_endpoint.h"
#include "dlq_log.h"
#include "dlq_prom.h"

#include <microhttpd.h>
#include <netdb.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define LISTEN_MAX 16
#define CONNECTIONS_MAX 64          /* scrapers and probes at once, per address */
#define CONNECTION_TIMEOUT_S 10

struct dlq_http_server {
    struct MHD_Daemon *daemons [LISTEN_MAX];
    size_t             count;
    dlq_metrics_t     *metrics;
    dlq_readiness_t   *readiness;
    pthread_mutex_t    scrape;      /* one scrape at a time (the metrics' store reader) */
};

static enum MHD_Result
respond (struct MHD_Connection *connection, unsigned status, const char *type, const char *body, size_t len,
         const char *allow)
{
    struct MHD_Response *response = MHD_create_response_from_buffer (len, (void *) body, MHD_RESPMEM_MUST_COPY);
    if (!response)
        return MHD_NO;
    MHD_add_response_header (response, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    MHD_add_response_header (response, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    if (allow)
        MHD_add_response_header (response, MHD_HTTP_HEADER_ALLOW, allow);
    enum MHD_Result rc = MHD_queue_response (connection, status, response);
    MHD_destroy_response (response);
    return rc;
}

#define JSON_TYPE "application/json"

static enum MHD_Result
answer (void *cls, struct MHD_Connection *connection, const char *url, const char *method, const char *version,
        const char *upload_data, size_t *upload_data_size, void **request_state)
{
    (void) version, (void) upload_data;
    dlq_http_server_t *self = cls;
    if (!*request_state) {              /* the headers: wait for the whole request */
        *request_state = self;
        return MHD_YES;
    }
    if (*upload_data_size) {            /* a body is read and ignored */
        *upload_data_size = 0;
        return MHD_YES;
    }
    bool known = !strcmp (url, "/metrics") || !strcmp (url, "/healthz") || !strcmp (url, "/readyz");
    if (!known) {
        static const char body [] = "{\"error\":\"not found\",\"paths\":[\"/metrics\",\"/healthz\",\"/readyz\"]}";
        return respond (connection, MHD_HTTP_NOT_FOUND, JSON_TYPE, body, sizeof body - 1, NULL);
    }
    if (strcmp (method, MHD_HTTP_METHOD_GET) && strcmp (method, MHD_HTTP_METHOD_HEAD)) {
        static const char body [] = "{\"error\":\"method not allowed: use GET\"}";
        return respond (connection, MHD_HTTP_METHOD_NOT_ALLOWED, JSON_TYPE, body, sizeof body - 1, "GET, HEAD");
    }
    dlq_buf_t out = DLQ_BUF_INIT;
    unsigned status = MHD_HTTP_OK;
    const char *type = JSON_TYPE;
    if (!strcmp (url, "/metrics")) {
        pthread_mutex_lock (&self->scrape);
        dlq_metrics_format (self->metrics, &out);
        pthread_mutex_unlock (&self->scrape);
        type = DLQ_PROM_CONTENT_TYPE;
    }
    else
    if (!strcmp (url, "/healthz"))
        dlq_buf_puts (&out, "{\"status\":\"serving\"}");
    else
    if (dlq_readiness_check (self->readiness, &out) != DLQ_READY)
        status = MHD_HTTP_SERVICE_UNAVAILABLE;
    enum MHD_Result rc = respond (connection, status, type, out.data ? out.data : "", out.len, NULL);
    dlq_buf_free (&out);
    return rc;
}

static void
log_mhd (void *cls, const char *fmt, va_list ap)
{
    (void) cls;
    char line [512];
    vsnprintf (line, sizeof line, fmt, ap);
    line [strcspn (line, "\n")] = '\0';
    dlq_log (DLQ_LOG_WARN, "http: %s", line);
}

/* One daemon on listen, or NULL with err set. */
static struct MHD_Daemon *
start_one (dlq_http_server_t *self, const char *listen, char *err, size_t err_len)
{
    char host [256], port_text [8];
    unsigned port;
    if (!dlq_endpoint_split_http (listen, host, sizeof host, &port)) {
        snprintf (err, err_len, "http.listen: %s: expected HOST:PORT", listen);
        return NULL;
    }
    snprintf (port_text, sizeof port_text, "%u", port);
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                              .ai_flags = AI_PASSIVE | AI_NUMERICSERV }, *found = NULL;
    int gai = getaddrinfo (host [0] ? host : NULL, port_text, &hints, &found);
    if (gai != 0) {
        snprintf (err, err_len, "http.listen: %s: %s", listen, gai_strerror (gai));
        return NULL;
    }
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG;
    if (found->ai_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    struct MHD_Daemon *d = MHD_start_daemon (flags, (uint16_t) port, NULL, NULL, answer, self,
                                             MHD_OPTION_EXTERNAL_LOGGER, log_mhd, NULL,  /* first: MHD says so */
                                             MHD_OPTION_SOCK_ADDR, found->ai_addr,
                                             MHD_OPTION_CONNECTION_LIMIT, (unsigned) CONNECTIONS_MAX,
                                             MHD_OPTION_CONNECTION_TIMEOUT, (unsigned) CONNECTION_TIMEOUT_S,
                                             MHD_OPTION_END);
    freeaddrinfo (found);
    if (!d)
        snprintf (err, err_len, "http.listen: cannot bind %s (in use, or not an address of this host)", listen);
    return d;
}

dlq_http_server_t *
dlq_http_server_new (char *const *listen, size_t listen_count, dlq_metrics_t *metrics,
                     dlq_readiness_t *readiness, char *err, size_t err_len)
{
    dlq_http_server_t *self = dlq_calloc (1, sizeof *self);
    self->metrics = metrics;
    self->readiness = readiness;
    pthread_mutex_init (&self->scrape, NULL);
    for (size_t i = 0; i < listen_count && i < LISTEN_MAX; i++) {
        if (!(self->daemons [i] = start_one (self, listen [i], err, err_len))) {
            dlq_http_server_destroy (&self);
            return NULL;
        }
        self->count = i + 1;
        dlq_log (DLQ_LOG_INFO, "http: serving /metrics, /healthz and /readyz on %s", listen [i]);
    }
    return self;
}

void
dlq_http_server_destroy (dlq_http_server_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_http_server_t *self = *self_p;
    for (size_t i = 0; i < self->count; i++)
        MHD_stop_daemon (self->daemons [i]);
    pthread_mutex_destroy (&self->scrape);
    free (self);
    *self_p = NULL;
}
