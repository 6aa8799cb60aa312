/*  http_server — libmicrohttpd daemons, one per listen address. */
#include "http_server.h"

#include "dlq_alloc.h"
#include "dlq_buf.h"
#include "dlq_endpoint.h"
#include "dlq_log.h"
#include "dlq_prom.h"
#include "console_files.h"
#include "dlqd_config.h"
#include "api_guard.h"
#include "event_stream.h"
#include "dlq_code.h"
#include "protocol.h"

#include <microhttpd.h>
#include <netdb.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define LISTEN_MAX DLQD_HTTP_LISTEN_MAX
#define CONNECTIONS_MAX 256         /* scrapers, probes and consoles at once, per address */
#define CONNECTION_TIMEOUT_S 10
#define CONNECTION_MEMORY (128u << 10)  /* a request's line and headers, per connection */

struct dlq_http_server {
    struct MHD_Daemon *daemons [LISTEN_MAX];
    size_t             count;
    dlq_metrics_t     *metrics;
    dlq_readiness_t   *readiness;
    dlq_api_handler_t *api;
    dlq_event_streams_t *events;
    size_t             max_body;
    bool               loopback_only;   /* every listen address is a loopback one (api_guard.h) */
    pthread_mutex_t    scrape;      /* one scrape at a time (the metrics' store reader) */
};

/* What one request keeps between libmicrohttpd's calls: its body. */
typedef struct {
    dlq_buf_t body;
    bool      too_large;
} request_t;

/* What a page of the console may load: its own script, style and API, nothing inline, no frame. */
#define CONSOLE_CSP "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; " \
                    "img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
#define NOTHING_CSP "default-src 'none'; frame-ancestors 'none'"

/* Queue response with the headers every answer carries. */
static enum MHD_Result
queue (struct MHD_Connection *connection, struct MHD_Response *response, unsigned status, const char *type,
       const char *allow, const char *csp)
{
    if (!response)
        return MHD_NO;
    MHD_add_response_header (response, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    MHD_add_response_header (response, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    MHD_add_response_header (response, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header (response, "Content-Security-Policy", csp);
    MHD_add_response_header (response, "X-Frame-Options", "DENY");
    MHD_add_response_header (response, "Referrer-Policy", "no-referrer");
    if (allow)
        MHD_add_response_header (response, MHD_HTTP_HEADER_ALLOW, allow);
    if (status == MHD_HTTP_UNAUTHORIZED)
        MHD_add_response_header (response, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer realm=\"dlqd\"");
    enum MHD_Result rc = MHD_queue_response (connection, status, response);
    MHD_destroy_response (response);
    return rc;
}

static enum MHD_Result
respond_with (struct MHD_Connection *connection, unsigned status, const char *type, const char *body, size_t len,
              const char *allow, const char *csp, enum MHD_ResponseMemoryMode mode)
{
    return queue (connection, MHD_create_response_from_buffer (len, (void *) body, mode), status, type, allow, csp);
}

static enum MHD_Result
respond (struct MHD_Connection *connection, unsigned status, const char *type, const char *body, size_t len,
         const char *allow)
{
    return respond_with (connection, status, type, body, len, allow, NOTHING_CSP, MHD_RESPMEM_MUST_COPY);
}

/* A file of the console (console_files.h) at url ("/" is /index.html), or NULL. */
static const dlq_console_file_t *
console_file (const char *url)
{
    const char *path = strcmp (url, "/") == 0 ? "/index.html" : url;
    for (const dlq_console_file_t *f = dlq_console_files; f->path; f++)
        if (strcmp (f->path, path) == 0)
            return f;
    return NULL;
}

#define JSON_TYPE "application/json"

typedef struct {
    dlq_api_param_t items [DLQ_API_QUERY_MAX];
    size_t          count;
    bool            too_many;
} params_t;

static enum MHD_Result
collect_param (void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void) kind;
    params_t *p = cls;
    if (p->count == DLQ_API_QUERY_MAX) {
        p->too_many = true;
        return MHD_NO;
    }
    p->items [p->count++] = (dlq_api_param_t) { key, value };
    return MHD_YES;
}

static ssize_t
read_stream (void *cls, uint64_t pos, char *buf, size_t max)
{
    (void) pos;
    ssize_t n = dlq_event_stream_read (cls, buf, max);
    return n < 0 ? (ssize_t) MHD_CONTENT_READER_END_OF_STREAM : n;
}

static void
free_stream (void *cls)
{
    dlq_event_stream_t *stream = cls;
    dlq_event_stream_close (&stream);
}

/* GET /api/v1/events/stream (event_stream.h): the stream, or why not. */
static enum MHD_Result
answer_stream (dlq_http_server_t *self, struct MHD_Connection *connection, const char *method, params_t *params)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    unsigned status = 405;
    dlq_event_stream_t *stream = NULL;
    if (strcmp (method, MHD_HTTP_METHOD_GET) != 0) {
        dlq_error_t err;
        dlq_error_set (&err, DLQ_ERR_INVALID_REQUEST, NULL, "this path does not take this method");
        dlq_protocol_error_body (&out, &err);
    }
    else {
        const union MHD_ConnectionInfo *info = MHD_get_connection_info (connection,
                                                                       MHD_CONNECTION_INFO_CONNECTION_FD);
        stream = dlq_event_stream_open (self->events, params->items, params->count, MHD_lookup_connection_value (
                     connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION), info ? info->connect_fd : -1,
                     &status, &out);
    }
    enum MHD_Result rc;
    if (stream) {
        struct MHD_Response *response = MHD_create_response_from_callback (MHD_SIZE_UNKNOWN, 4096, read_stream,
                                                                          stream, free_stream);
        if (!response)
            dlq_event_stream_close (&stream);
        else
            MHD_add_response_header (response, "X-Accel-Buffering", "no");     /* a proxy: pass it on at once */
        rc = queue (connection, response, MHD_HTTP_OK, "text/event-stream", NULL, NOTHING_CSP);
    }
    else
        rc = respond (connection, status, JSON_TYPE, out.data ? out.data : "", out.len, status == 405 ? "GET" : NULL);
    dlq_buf_free (&out);
    return rc;
}

/* A request under /api/v1/ (api_handler.h). */
static enum MHD_Result
answer_api (dlq_http_server_t *self, struct MHD_Connection *connection, const char *url, const char *method,
            request_t *r)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    char allow [64] = "";
    unsigned status;
    params_t params = { .count = 0 };
    MHD_get_connection_values (connection, MHD_GET_ARGUMENT_KIND, collect_param, &params);
    const char *refused = dlq_api_guard_check (
        method, MHD_lookup_connection_value (connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST),
        MHD_lookup_connection_value (connection, MHD_HEADER_KIND, "Origin"),
        MHD_lookup_connection_value (connection, MHD_HEADER_KIND, "Sec-Fetch-Site"),
        MHD_lookup_connection_value (connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE), self->loopback_only);
    if (refused) {
        dlq_error_t err;
        dlq_error_set (&err, DLQ_ERR_FORBIDDEN, NULL, "%s", refused);
        dlq_protocol_error_body (&out, &err);
        status = 403;
    }
    else
    if ((status = dlq_api_handler_authenticate (self->api, MHD_lookup_connection_value (
             connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION), method, url, &out)) != 200) {
        /* with security.curve, no principal's token: refused before anything else is read (out says why) */
    }
    else
    if (r->too_large || params.too_many) {
        dlq_error_t err;
        if (r->too_large)
            dlq_error_set (&err, DLQ_ERR_TOO_LARGE, NULL, "the body is over gateway.max_message_bytes (%zu)",
                           self->max_body);
        else
            dlq_error_set (&err, DLQ_ERR_INVALID_REQUEST, NULL, "more than %d query parameters", DLQ_API_QUERY_MAX);
        dlq_protocol_error_body (&out, &err);
        status = r->too_large ? 413 : 400;
    }
    else
    if (strcmp (url, DLQ_API_PREFIX "events/stream") == 0) {
        dlq_buf_free (&out);                /* the token's check (a PING) answered in it */
        return answer_stream (self, connection, method, &params);
    }
    else {
        dlq_api_request_t request = {
            params.items, params.count, r->body.data, r->body.len,
            MHD_lookup_connection_value (connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION)
        };
        status = dlq_api_handler_answer (self->api, method, url, &request, &out, allow, sizeof allow);
    }
    enum MHD_Result rc = respond (connection, status, JSON_TYPE, out.data ? out.data : "", out.len,
                                  status == 405 ? allow : NULL);
    dlq_buf_free (&out);
    return rc;
}

static void
request_done (void *cls, struct MHD_Connection *connection, void **request_state,
              enum MHD_RequestTerminationCode why)
{
    (void) cls, (void) connection, (void) why;
    request_t *r = *request_state;
    if (r) {
        dlq_buf_free (&r->body);
        free (r);
    }
    *request_state = NULL;
}

static enum MHD_Result
answer (void *cls, struct MHD_Connection *connection, const char *url, const char *method, const char *version,
        const char *upload_data, size_t *upload_data_size, void **request_state)
{
    (void) version, (void) upload_data;
    dlq_http_server_t *self = cls;
    if (!*request_state) {              /* the headers: wait for the whole request */
        request_t *r = dlq_calloc (1, sizeof *r);
        *request_state = r;
        return MHD_YES;
    }
    request_t *r = *request_state;
    if (*upload_data_size) {            /* the body, kept up to max_body */
        if (r->body.len + *upload_data_size > self->max_body)
            r->too_large = true;
        else
            dlq_buf_append (&r->body, upload_data, *upload_data_size);
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (strncmp (url, DLQ_API_PREFIX, strlen (DLQ_API_PREFIX)) == 0)
        return answer_api (self, connection, url, method, r);
    const char *host = MHD_lookup_connection_value (connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
    if (self->loopback_only && !dlq_api_guard_host (host)) {    /* /metrics read by a rebound name */
        static const char body [] = "{\"error\":\"the Host header does not name this machine (localhost, "
                                    "127.0.0.1 or [::1]): the HTTP listener is on loopback only\"}";
        return respond (connection, MHD_HTTP_FORBIDDEN, JSON_TYPE, body, sizeof body - 1, NULL);
    }
    const dlq_console_file_t *page = console_file (url);
    bool known = page || !strcmp (url, "/metrics") || !strcmp (url, "/healthz") || !strcmp (url, "/readyz");
    if (!known) {
        static const char body [] = "{\"error\":\"not found\",\"paths\":[\"/\",\"/metrics\",\"/healthz\",\"/readyz\","
                                    "\"/api/v1/\"]}";
        return respond (connection, MHD_HTTP_NOT_FOUND, JSON_TYPE, body, sizeof body - 1, NULL);
    }
    if (strcmp (method, MHD_HTTP_METHOD_GET) && strcmp (method, MHD_HTTP_METHOD_HEAD)) {
        static const char body [] = "{\"error\":\"method not allowed: use GET\"}";
        return respond (connection, MHD_HTTP_METHOD_NOT_ALLOWED, JSON_TYPE, body, sizeof body - 1, "GET, HEAD");
    }
    if (page)
        return respond_with (connection, MHD_HTTP_OK, page->content_type, (const char *) page->data, page->len, NULL,
                             CONSOLE_CSP, MHD_RESPMEM_PERSISTENT);
    dlq_buf_t out = DLQ_BUF_INIT;
    unsigned status = MHD_HTTP_OK;
    const char *type = JSON_TYPE;
    if (!strcmp (url, "/metrics")) {          /* with security.curve, for a principal's token */
        status = dlq_api_handler_authenticate (self->api, MHD_lookup_connection_value (
                     connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION), method, url, &out);
        if (status == MHD_HTTP_OK) {
            dlq_buf_reset (&out);
            pthread_mutex_lock (&self->scrape);
            dlq_metrics_format (self->metrics, &out);
            pthread_mutex_unlock (&self->scrape);
            type = DLQ_PROM_CONTENT_TYPE;
        }
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

/* Percent-decoding of the path and the query (libmicrohttpd's), except
 * that a decoded NUL (%00) becomes the byte 0xFF: a C string cut at a NUL
 * would drop what follows it (a path segment, the rest of a name), while
 * 0xFF is never UTF-8, so the API refuses it (INVALID_UTF8) and no other
 * path matches it. */
static size_t
unescape (void *cls, struct MHD_Connection *connection, char *text)
{
    (void) cls, (void) connection;
    size_t n = MHD_http_unescape (text);
    for (size_t i = 0; i < n; i++)
        if (text [i] == '\0')
            text [i] = (char) 0xff;
    return n;
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
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_AUTO
                   | MHD_USE_ERROR_LOG;        /* a thread per connection: an event stream waits in its own */
    if (found->ai_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    struct MHD_Daemon *d = MHD_start_daemon (flags, (uint16_t) port, NULL, NULL, answer, self,
                                             MHD_OPTION_EXTERNAL_LOGGER, log_mhd, NULL,  /* first: MHD says so */
                                             MHD_OPTION_SOCK_ADDR, found->ai_addr,
                                             MHD_OPTION_CONNECTION_LIMIT, (unsigned) CONNECTIONS_MAX,
                                             MHD_OPTION_CONNECTION_TIMEOUT, (unsigned) CONNECTION_TIMEOUT_S,
                                             MHD_OPTION_NOTIFY_COMPLETED, request_done, NULL,
                                             MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL,
                                             MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t) CONNECTION_MEMORY,
                                             MHD_OPTION_END);
    freeaddrinfo (found);
    if (!d)
        snprintf (err, err_len, "http.listen: cannot bind %s (in use, or not an address of this host)", listen);
    return d;
}

dlq_http_server_t *
dlq_http_server_new (char *const *listen, size_t listen_count, dlq_metrics_t *metrics,
                     dlq_readiness_t *readiness, dlq_api_handler_t *api, dlq_event_streams_t *events, size_t max_body,
                     char *err, size_t err_len)
{
    dlq_http_server_t *self = dlq_calloc (1, sizeof *self);
    self->events = events;
    self->metrics = metrics;
    self->readiness = readiness;
    self->api = api;
    self->max_body = max_body;
    self->loopback_only = true;
    for (size_t i = 0; i < listen_count; i++)
        self->loopback_only = self->loopback_only && dlq_endpoint_http_is_local (listen [i]);
    pthread_mutex_init (&self->scrape, NULL);
    for (size_t i = 0; i < listen_count && i < LISTEN_MAX; i++) {
        if (!(self->daemons [i] = start_one (self, listen [i], err, err_len))) {
            dlq_http_server_destroy (&self);
            return NULL;
        }
        self->count = i + 1;
        dlq_log (DLQ_LOG_INFO, "http: serving /metrics, /healthz, /readyz and /api/v1/ on %s", listen [i]);
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
