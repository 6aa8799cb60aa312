/*  amqp_sink — the amqp sink plugin, type "amqp" (libdlq_sink_amqp.so):
 *  flowwarden-amqp's message (amqp_format.h) published to RabbitMQ (or any
 *  AMQP 0-9-1 broker) with rabbitmq-c, under a window of publisher confirms
 *  (amqp_deliver.c).
 *
 *  init reads and checks the settings and connects. A broker that cannot
 *  be reached is not an init error (the gateway must start and keep the
 *  backlog: the first delivery connects); what a retry cannot fix is: bad
 *  credentials or vhost, an unreadable TLS file, a broker that refuses
 *  confirm mode while confirm_mode = true, on_return = "retry" without
 *  confirms. With declare_exchange the sink's own exchange is declared at
 *  init (others on first use).
 */
#include "amqp_sink.h"

#include "dlq_alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const dlq_sink_setting_t amqp_settings [] = {
    { "url", DLQ_SINK_SETTING_STRING, NULL, 8, 4096, false,
      "amqp://user:password@host:port/vhost (amqps:// for TLS); replaces host, port, vhost, user, password" },
    { "host", DLQ_SINK_SETTING_STRING, "127.0.0.1", 1, 255, false, "broker host name or address" },
    { "port", DLQ_SINK_SETTING_INT, "5672", 1, 65535, false, "broker port (AMQPS is usually 5671)" },
    { "vhost", DLQ_SINK_SETTING_STRING, "/", 1, 255, false, "virtual host" },
    { "user", DLQ_SINK_SETTING_STRING, "guest", 1, 255, false, "user name (SASL PLAIN)" },
    { "password", DLQ_SINK_SETTING_STRING, "guest", 0, 255, false, "password" },
    { "heartbeat", DLQ_SINK_SETTING_INT, "60", 0, 3600, false, "heartbeat interval asked of the broker, s (0: none)" },
    { "connect_timeout_ms", DLQ_SINK_SETTING_INT, "5000", 1, 600000, false,
      "longest wait to connect, log in and for each broker RPC, ms" },
    { "tls", DLQ_SINK_SETTING_BOOL, "false", 0, 0, false, "connect with TLS (amqps)" },
    { "tls_ca_file", DLQ_SINK_SETTING_STRING, NULL, 1, 4096, false, "PEM file of the CAs that sign the broker's certificate" },
    { "tls_cert_file", DLQ_SINK_SETTING_STRING, NULL, 1, 4096, false, "PEM client certificate (with tls_key_file)" },
    { "tls_key_file", DLQ_SINK_SETTING_STRING, NULL, 1, 4096, false, "PEM private key of the client certificate" },
    { "tls_verify_peer", DLQ_SINK_SETTING_BOOL, "true", 0, 0, false, "check the broker's certificate" },
    { "tls_verify_hostname", DLQ_SINK_SETTING_BOOL, "true", 0, 0, false, "check the certificate names host" },
    { "exchange", DLQ_SINK_SETTING_STRING, "flowwarden.dlq", 0, DLQ_AMQP_SHORTSTR_MAX, true,
      "exchange events are published to (\"\": the default exchange)" },
    { "routing_key_prefix", DLQ_SINK_SETTING_STRING, "dlq.", 0, DLQ_AMQP_SHORTSTR_MAX, false,
      "routing key = prefix + streamName" },
    { "routing_key", DLQ_SINK_SETTING_STRING, NULL, 1, DLQ_AMQP_SHORTSTR_MAX, true,
      "the whole routing key, instead of prefix + streamName (per stream)" },
    { "mandatory", DLQ_SINK_SETTING_BOOL, "false", 0, 0, true,
      "ask the broker to return messages no queue is bound for" },
    { "on_return", DLQ_SINK_SETTING_STRING, "log", 3, 5, false,
      "a returned message: \"log\" (counts as delivered) or \"retry\"" },
    { "confirm_mode", DLQ_SINK_SETTING_BOOL, "true", 0, 0, false,
      "delivered only on the broker's confirm (false: fire-and-forget)" },
    { "confirm_window", DLQ_SINK_SETTING_INT, "256", 1, 65535, false, "publishes waiting for a confirm, at most" },
    { "confirm_timeout_ms", DLQ_SINK_SETTING_INT, "10000", 1, 3600000, false,
      "unconfirmed publishes are retried after this long without a confirm, ms" },
    { "declare_exchange", DLQ_SINK_SETTING_BOOL, "false", 0, 0, false,
      "declare the exchanges (durable) instead of requiring them" },
    { "exchange_type", DLQ_SINK_SETTING_STRING, "topic", 1, 64, false, "type of declared exchanges" },
    { .name = NULL }
};

static void
amqp_destroy (void *instance)
{
    dlq_amqp_sink_t *self = instance;
    dlq_amqp_conn_destroy (&self->conn);
    dlq_amqp_routes_destroy (&self->routes);
    free (self->pending);
    free (self->by_tag);
    free (self->url);
    free (self);
}

/* The url setting, when set: it replaces host, port, vhost, user and
 * password; amqps:// turns TLS on. An empty path ("amqp://h:5672/") is
 * the default vhost "/". */
static bool
read_url (dlq_amqp_sink_t *self, char *err, size_t err_len)
{
    const char *url = self->host->config_string (self->config, NULL, "url");
    if (!url)
        return true;
    self->url = dlq_strdup (url);           /* parsed in place; the settings point into it */
    struct amqp_connection_info info;
    amqp_default_connection_info (&info);
    if (amqp_parse_url (self->url, &info) != AMQP_STATUS_OK) {
        snprintf (err, err_len, "url: not an amqp://user:password@host:port/vhost URL (nor amqps://)");
        return false;
    }
    dlq_amqp_conn_settings_t *s = &self->conn_settings;
    s->host = info.host;
    s->port = info.port;
    s->vhost = info.vhost [0] ? info.vhost : "/";
    s->user = info.user;
    s->password = info.password;
    s->tls = s->tls || info.ssl;
    return true;
}

/* Read and check the settings; false with why in err. */
static bool
read_settings (dlq_amqp_sink_t *self, char *err, size_t err_len)
{
    const dlq_sink_host_t *host = self->host;
    const dlq_sink_config_t *config = self->config;
    dlq_amqp_conn_settings_t *s = &self->conn_settings;
    s->host = host->config_string (config, NULL, "host");
    s->port = (int) host->config_int (config, NULL, "port");
    s->vhost = host->config_string (config, NULL, "vhost");
    s->user = host->config_string (config, NULL, "user");
    s->password = host->config_string (config, NULL, "password");
    s->heartbeat_s = (int) host->config_int (config, NULL, "heartbeat");
    s->connect_timeout_ms = host->config_int (config, NULL, "connect_timeout_ms");
    s->tls = host->config_bool (config, NULL, "tls");
    s->tls_ca_file = host->config_string (config, NULL, "tls_ca_file");
    s->tls_cert_file = host->config_string (config, NULL, "tls_cert_file");
    s->tls_key_file = host->config_string (config, NULL, "tls_key_file");
    s->tls_verify_peer = host->config_bool (config, NULL, "tls_verify_peer");
    s->tls_verify_hostname = host->config_bool (config, NULL, "tls_verify_hostname");
    s->confirm = self->confirm = host->config_bool (config, NULL, "confirm_mode");
    snprintf (self->connection_name, sizeof self->connection_name, "dlqd %s", host->name (config));
    s->connection_name = self->connection_name;
    self->window = (uint32_t) host->config_int (config, NULL, "confirm_window");
    self->confirm_timeout_ms = host->config_int (config, NULL, "confirm_timeout_ms");
    self->declare_exchange = host->config_bool (config, NULL, "declare_exchange");
    self->exchange_type = host->config_string (config, NULL, "exchange_type");

    if (!read_url (self, err, err_len))
        return false;
    const char *on_return = host->config_string (config, NULL, "on_return");
    if (strcmp (on_return, "log") != 0 && strcmp (on_return, "retry") != 0) {
        snprintf (err, err_len, "on_return must be \"log\" or \"retry\", not \"%s\"", on_return);
        return false;
    }
    self->return_retry = strcmp (on_return, "retry") == 0;
    if (self->return_retry && !self->confirm) {
        snprintf (err, err_len, "on_return = \"retry\" needs confirm_mode = true (without confirms a return "
                  "arrives after the event was counted delivered)");
        return false;
    }
    if (!s->tls && (s->tls_ca_file || s->tls_cert_file || s->tls_key_file)) {
        snprintf (err, err_len, "tls_ca_file, tls_cert_file and tls_key_file need tls = true");
        return false;
    }
    if (!s->tls_cert_file != !s->tls_key_file) {
        snprintf (err, err_len, "tls_cert_file and tls_key_file go together");
        return false;
    }
    return true;
}

dlq_amqp_conn_result_t
dlq_amqp_sink_connect (dlq_amqp_sink_t *self, int64_t deadline_mono_ms, char *err, size_t err_len)
{
    if (dlq_amqp_conn_is_open (self->conn))
        return DLQ_AMQP_CONN_OK;
    const dlq_amqp_conn_settings_t *s = &self->conn_settings;
    self->blocked = false;
    dlq_amqp_conn_result_t result = dlq_amqp_conn_open (self->conn, deadline_mono_ms, err, err_len);
    if (result == DLQ_AMQP_CONN_OK) {
        self->host->log (self->config, DLQ_SINK_LOG_INFO, "connected to %s://%s:%d vhost %s as %s, %s",
                         s->tls ? "amqps" : "amqp", s->host, s->port, s->vhost, s->user,
                         self->confirm ? "publisher confirms on" : "fire-and-forget (no confirms)");
        self->host->count (self->config, "connects", 1);
        self->was_connected = true;
    }
    else if (self->was_connected) {
        self->host->log (self->config, DLQ_SINK_LOG_WARN, "cannot connect: %s", err);
        self->was_connected = false;
    }
    return result;
}

/* Declare (or check, passively) the sink's own exchange at startup. */
static dlq_amqp_conn_result_t
check_own_exchange (dlq_amqp_sink_t *self, int64_t deadline, char *err, size_t err_len)
{
    const char *exchange = self->host->config_string (self->config, NULL, "exchange");
    return dlq_amqp_conn_exchange (self->conn, exchange, self->declare_exchange, self->exchange_type,
                                   deadline, err, err_len);
}

static dlq_sink_status_t
amqp_init (const dlq_sink_host_t *host, const dlq_sink_config_t *config, dlq_sink_mode_t mode,
           void **instance, char *err, size_t err_len)
{
    (void) mode;
    dlq_amqp_sink_t *self = dlq_calloc (1, sizeof *self);
    self->host = host;
    self->config = config;
    if (!read_settings (self, err, err_len)) {
        amqp_destroy (self);
        return DLQ_SINK_STATUS_ERROR;
    }
    self->conn = dlq_amqp_conn_new (&self->conn_settings, host->mono_ms);
    self->routes = dlq_amqp_routes_new (host, config);

    char why [DLQ_AMQP_ERR_LEN] = "";
    int64_t deadline = host->mono_ms () + self->conn_settings.connect_timeout_ms;
    dlq_amqp_conn_result_t result = dlq_amqp_sink_connect (self, deadline, why, sizeof why);
    if (result == DLQ_AMQP_CONN_OK) {
        result = check_own_exchange (self, deadline, why, sizeof why);
        if (result == DLQ_AMQP_CONN_REFUSED && !self->declare_exchange) {
            /* missing: an operator may still make it; its events wait */
            host->log (config, DLQ_SINK_LOG_WARN, "%s: its events are retried until it exists "
                       "(or set declare_exchange = true)", why);
            result = DLQ_AMQP_CONN_OK;
        }
    }
    if (result == DLQ_AMQP_CONN_REFUSED) {
        snprintf (err, err_len, "%s", why);
        amqp_destroy (self);
        return DLQ_SINK_STATUS_ERROR;
    }
    if (result == DLQ_AMQP_CONN_DOWN)
        host->log (config, DLQ_SINK_LOG_WARN, "cannot connect yet (%s): connecting again at each delivery", why);
    *instance = self;
    return DLQ_SINK_STATUS_OK;
}

/* The settings as init reads them (url, on_return, TLS files given
 * together), without connecting. */
static dlq_sink_status_t
amqp_check (const dlq_sink_host_t *host, const dlq_sink_config_t *config, char *err, size_t err_len)
{
    dlq_amqp_sink_t probe = { .host = host, .config = config };
    bool ok = read_settings (&probe, err, err_len);
    free (probe.url);
    return ok ? DLQ_SINK_STATUS_OK : DLQ_SINK_STATUS_ERROR;
}

DLQ_SINK_EXPORT const dlq_sink_ops_t dlq_sink_entry = {
    .abi_version = DLQ_SINK_ABI_VERSION,
    .struct_size = sizeof (dlq_sink_ops_t),
    .type        = "amqp",
    .description = "AMQP 0-9-1 (RabbitMQ): flowwarden-amqp's message, published under a window of publisher confirms",
    .settings    = amqp_settings,
    .max_batch   = 0,
    .init        = amqp_init,
    .deliver     = dlq_amqp_sink_deliver,
    .destroy     = amqp_destroy,
    .store       = NULL,
    .check       = amqp_check,
};
