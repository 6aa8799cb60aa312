/*  itest_security — a dlqd with security.curve, from the inside out: the
 *  streams of GET, RESOLVE and FAIL by id are checked where the event is
 *  read (a worker of one stream cannot resolve another's event, and its
 *  state stays as it was); a key removed from the directory is refused on
 *  its already-open connection while another key's connection goes on; a
 *  malformed certificate dropped in is left out and the gateway still
 *  drains and exits 0 on SIGTERM (CZMQ does not take the signals); the
 *  audit file holds one JSON object per action with the principal's name;
 *  a non-loopback listen without CURVE does not start; no secret key
 *  appears in the log, a reply or the audit file; a sink's secret comes
 *  from a private file or the environment and never shows; libdlq
 *  connects with CURVE and names a bad key file; the replay endpoint
 *  delivers to an admin's receiver and nothing to a viewer's.
 */
#include "dlq_cert.h"
#include "dlq_client.h"
#include "dlq_json.h"
#include "dlq_replay_receiver.h"
#include "test_support.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zmq.h>

static test_dlqd_t d;
static char clients [400], audit [400];
static char server_secret [41];

typedef struct {
    char name [32];
    test_curve_t keys;
} key_t_;

static key_t_ admin, worker_a, viewer_a;

/* A pair NAME in dir; its keys (with the server's public key) into k. */
static void
make_key (const char *dir, const char *name, const char *role, const char *streams, key_t_ *k)
{
    char path [512], err [512];
    snprintf (path, sizeof path, "%s/%s.key", dir, name);
    const char *meta [] = { "name", name, "role", role, "streams", streams };
    cr_assert_eq (dlq_cert_generate (path, meta, role ? (streams ? 3 : 2) : 1, err, sizeof err), DLQ_CERT_OK, "%s", err);
    dlq_cert_t *cert = NULL;
    cr_assert_eq (dlq_cert_load (path, true, &cert, err, sizeof err), DLQ_CERT_OK, "%s", err);
    if (k) {
        snprintf (k->name, sizeof k->name, "%s", name);
        snprintf (k->keys.public_key, sizeof k->keys.public_key, "%s", dlq_cert_public (cert));
        snprintf (k->keys.secret_key, sizeof k->keys.secret_key, "%s", dlq_cert_secret (cert));
    }
    dlq_cert_destroy (&cert);
}

static void
setup (void)
{
    memset (&d, 0, sizeof d);
    test_tmpdir (d.dir);
    snprintf (clients, sizeof clients, "%s/clients", d.dir);
    snprintf (audit, sizeof audit, "%s/audit.log", d.dir);
    mkdir (clients, 0755);
    key_t_ server;
    make_key (d.dir, "gateway", NULL, NULL, &server);
    snprintf (server_secret, sizeof server_secret, "%s", server.keys.secret_key);
    make_key (clients, "root", "admin", NULL, &admin);
    make_key (clients, "wa", "worker", "a", &worker_a);
    make_key (clients, "va", "viewer", "a", &viewer_a);
    key_t_ *all [] = { &admin, &worker_a, &viewer_a };
    for (size_t i = 0; i < 3; i++)
        snprintf (all [i]->keys.server, sizeof all [i]->keys.server, "%s", server.keys.public_key);
    d.curve = admin.keys;
    char extra [2048];
    snprintf (extra, sizeof extra, "security: { curve: { server_secret_key = \"%s/gateway.key_secret\"; "
              "clients = \"%s\"; }; audit_log = \"%s\"; };", d.dir, clients, audit);
    cr_assert (test_dlqd_start (&d, NULL, extra), "dlqd with CURVE did not start");
}

static void
teardown (void)
{
    test_dlqd_cleanup (&d);
}

TestSuite (security, .init = setup, .fini = teardown, .timeout = 60);

/* One request as k on a fresh connection: the reply's status and body. */
static char *
ask (const key_t_ *k, const char *verb, const char *body, char status [8])
{
    char *reply = NULL;
    cr_assert (test_request_curve (&k->keys, d.endpoint, verb, body, strlen (body), status, &reply),
               "%s as %s: no reply", verb, k->name);
    return reply;
}

static void
expect_ok (const key_t_ *k, const char *verb, const char *body, char **reply_out)
{
    char st [8];
    char *reply = ask (k, verb, body, st);
    cr_assert_str_eq (st, "OK", "%s as %s: %s", verb, k->name, reply);
    if (reply_out)
        *reply_out = reply;
    else
        free (reply);
}

static void
expect_forbidden (const key_t_ *k, const char *verb, const char *body, const char *stream)
{
    char st [8];
    char *reply = ask (k, verb, body, st);
    cr_expect_str_eq (st, "ERR", "%s as %s: %s", verb, k->name, reply);
    cr_expect (strstr (reply, "\"FORBIDDEN\"") != NULL, "%s as %s: %s", verb, k->name, reply);
    cr_expect (strstr (reply, verb) != NULL, "the message names the verb: %s", reply);
    if (stream)
        cr_expect (strstr (reply, stream) != NULL, "the message names the stream: %s", reply);
    free (reply);
}

/* PUT an event of stream as the admin; its id into id. */
static void
put (const char *stream, char id [40])
{
    char body [256], *reply = NULL;
    snprintf (body, sizeof body, "{\"streamName\":\"%s\",\"error\":{\"type\":\"X\",\"message\":\"boom\"}}", stream);
    expect_ok (&admin, "PUT", body, &reply);
    const char *at = strstr (reply, "\"id\":\"");
    cr_assert_not_null (at, "%s", reply);
    snprintf (id, 37, "%s", at + 6);
    free (reply);
}

Test (security, by_id_verbs_are_checked_on_the_events_stream)
{
    char in_a [40], in_b [40], body [128];
    put ("a", in_a);
    put ("b", in_b);
    snprintf (body, sizeof body, "{\"id\":\"%s\"}", in_b);
    expect_forbidden (&viewer_a, "GET", body, "stream \\\"b\\\"");
    expect_forbidden (&worker_a, "RESOLVE", body, "stream \\\"b\\\"");
    expect_forbidden (&worker_a, "FAIL", body, "stream \\\"b\\\"");
    char *reply = NULL;
    expect_ok (&admin, "GET", body, &reply);
    cr_expect (strstr (reply, "\"status\":\"PENDING\"") != NULL, "a refused RESOLVE changed nothing: %s", reply);
    free (reply);
    snprintf (body, sizeof body, "{\"id\":\"%s\"}", in_a);
    expect_ok (&viewer_a, "GET", body, NULL);
    expect_ok (&worker_a, "RESOLVE", body, NULL);
    expect_ok (&admin, "GET", body, &reply);
    cr_expect (strstr (reply, "\"status\":\"SUCCEEDED\"") != NULL, "%s", reply);
    free (reply);
    snprintf (body, sizeof body, "{\"id\":\"01a238c1-edd8-7000-91b5-30b0b1d0341a\"}");
    char st [8];
    reply = ask (&worker_a, "RESOLVE", body, st);
    cr_expect (strstr (reply, "\"NOT_FOUND\"") != NULL, "an id of no event is NOT_FOUND as ever: %s", reply);
    free (reply);
}

/* A DEALER that stays connected as k. */
static void *
connect_as (void *ctx, const key_t_ *k)
{
    void *s = zmq_socket (ctx, ZMQ_DEALER);
    int linger = 0, timeout = 5000;
    zmq_setsockopt (s, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt (s, ZMQ_RCVTIMEO, &timeout, sizeof timeout);
    zmq_setsockopt (s, ZMQ_CURVE_SERVERKEY, k->keys.server, 40);
    zmq_setsockopt (s, ZMQ_CURVE_PUBLICKEY, k->keys.public_key, 40);
    zmq_setsockopt (s, ZMQ_CURVE_SECRETKEY, k->keys.secret_key, 40);
    cr_assert_eq (zmq_connect (s, d.endpoint), 0);
    return s;
}

static int
rcv_more (void *s)
{
    int more = 0;
    size_t len = sizeof more;
    zmq_getsockopt (s, ZMQ_RCVMORE, &more, &len);
    return more;
}

/* PING on s: the reply's status ("" on timeout). */
static void
ping_on (void *s, char status [8])
{
    zmq_send (s, "PING", 4, ZMQ_SNDMORE);
    zmq_send (s, "p", 1, ZMQ_SNDMORE);
    zmq_send (s, "", 0, 0);
    status [0] = '\0';
    char buf [4096];
    int n = zmq_recv (s, buf, sizeof buf, 0);
    if (n >= 0)
        snprintf (status, 8, "%.*s", n < 7 ? n : 7, buf);
    while (n >= 0 && rcv_more (s))
        n = zmq_recv (s, buf, sizeof buf, 0);
}

Test (security, a_revoked_key_is_refused_on_its_open_connection)
{
    void *ctx = zmq_ctx_new ();
    void *revoked = connect_as (ctx, &worker_a), *kept = connect_as (ctx, &viewer_a);
    char st [8];
    ping_on (revoked, st);
    cr_assert_str_eq (st, "OK");
    ping_on (kept, st);
    cr_assert_str_eq (st, "OK");
    char path [512];
    snprintf (path, sizeof path, "%s/wa.key", clients);
    cr_assert_eq (unlink (path), 0);
    kill (d.pid, SIGHUP);
    bool refused = false;
    for (int i = 0; i < 50 && !refused; i++) {
        ping_on (revoked, st);
        refused = strcmp (st, "ERR") == 0;
        if (!refused)
            usleep (100 * 1000);
    }
    cr_expect (refused, "the revoked key's open connection is still served");
    ping_on (kept, st);
    cr_expect_str_eq (st, "OK", "the other key's connection goes on");
    zmq_close (revoked);
    zmq_close (kept);
    zmq_ctx_term (ctx);
    char *reply = NULL;
    expect_ok (&admin, "STATS", "", &reply);
    cr_expect (strstr (reply, "\"forbidden\":{\"key ") != NULL, "counted under its key: %s", reply);
    free (reply);
}

Test (security, a_malformed_certificate_is_left_out_and_sigterm_still_drains)
{
    char path [512];
    snprintf (path, sizeof path, "%s/junk.key", clients);
    FILE *f = fopen (path, "w");
    fputs ("curve\n    public-key = {{{ not zpl\n", f);
    fclose (f);
    kill (d.pid, SIGHUP);
    usleep (300 * 1000);
    expect_ok (&worker_a, "PUT", "{\"streamName\":\"a\",\"error\":{\"type\":\"X\",\"message\":\"m\"}}", NULL);
    int status = test_dlqd_signal_wait (&d, SIGTERM);
    cr_expect (WIFEXITED (status) && WEXITSTATUS (status) == 0, "SIGTERM: status %d", status);
    char *log = test_read_file (d.log, NULL);
    cr_expect (strstr (log, "junk.key") != NULL, "the file is named in the log:\n%s", log);
    cr_expect (strstr (log, "stopped cleanly") != NULL, "%s", log);
    free (log);
}

Test (security, the_audit_file_has_a_json_line_per_action)
{
    char id [40], body [128];
    put ("a", id);
    snprintf (body, sizeof body, "{\"id\":\"%s\"}", id);
    expect_ok (&worker_a, "RESOLVE", body, NULL);
    expect_forbidden (&viewer_a, "REPLAY", "{\"streamName\":\"a\",\"all\":true}", NULL);
    kill (d.pid, SIGHUP);
    usleep (300 * 1000);
    char *text = test_read_file (audit, NULL);
    cr_assert_not_null (text);
    int resolve = 0, refused = 0, reload = 0, lines = 0;
    for (char *line = strtok (text, "\n"); line; line = strtok (NULL, "\n")) {
        lines++;
        dlq_json_doc_t *doc = NULL;
        cr_assert_eq (dlq_json_parse (line, strlen (line), &doc, NULL), DLQ_JSON_OK, "not JSON: %s", line);
        const dlq_json_value_t *root = dlq_json_root (doc);
        const dlq_json_value_t *who = dlq_json_get (root, "principal"), *verb = dlq_json_get (root, "verb");
        const dlq_json_value_t *result = dlq_json_get (root, "result");
        cr_assert (who && verb && result && dlq_json_get (root, "time"), "%s", line);
        if (strcmp (verb->str, "RESOLVE") == 0 && strcmp (who->str, "wa") == 0 && strcmp (result->str, "OK") == 0)
            resolve++;
        if (strcmp (verb->str, "REPLAY") == 0 && strcmp (who->str, "va") == 0
            && strncmp (result->str, "ERR FORBIDDEN", 13) == 0)
            refused++;
        if (strcmp (verb->str, "RELOAD") == 0 && strncmp (result->str, "OK", 2) == 0)
            reload++;
        dlq_json_doc_destroy (&doc);
    }
    cr_expect_eq (resolve, 1, "RESOLVE by wa");
    cr_expect_eq (refused, 1, "the refused REPLAY");
    cr_expect_eq (reload, 1, "the reload");
    struct stat st;
    cr_assert_eq (stat (audit, &st), 0);
    cr_expect_eq (st.st_mode & 0777, 0640, "mode %o", st.st_mode & 0777);
    free (text);
}

Test (security, no_secret_key_is_ever_written)
{
    char id [40], *reply = NULL, st [8];
    put ("a", id);
    expect_forbidden (&worker_a, "PUT", "{\"streamName\":\"b\",\"error\":{\"type\":\"X\",\"message\":\"m\"}}", "stream \\\"b\\\"");
    expect_ok (&admin, "STATS", "", &reply);
    const char *secrets [] = { server_secret, admin.keys.secret_key, worker_a.keys.secret_key,
                               viewer_a.keys.secret_key };
    for (size_t i = 0; i < 4; i++)
        cr_expect (strstr (reply, secrets [i]) == NULL, "STATS holds secret %zu", i);
    free (reply);
    reply = ask (&viewer_a, "STATS", "", st);
    for (size_t i = 0; i < 4; i++)
        cr_expect (strstr (reply, secrets [i]) == NULL, "an ERR holds secret %zu", i);
    free (reply);
    test_dlqd_signal_wait (&d, SIGTERM);
    const char *files [] = { d.log, audit };
    for (size_t f = 0; f < 2; f++) {
        char *text = test_read_file (files [f], NULL);
        cr_assert_not_null (text, "%s", files [f]);
        for (size_t i = 0; i < 4; i++)
            cr_expect (strstr (text, secrets [i]) == NULL, "%s holds secret %zu", files [f], i);
        free (text);
    }
}

Test (security, a_network_listen_without_curve_does_not_start)
{
    test_dlqd_t open = { 0 };
    test_tmpdir (open.dir);
    open.port = test_free_port ();
    char config [400], command [1200], out [2048] = "";
    snprintf (config, sizeof config, "%s/dlqd.conf", open.dir);
    FILE *f = fopen (config, "w");
    fprintf (f, "gateway: { listen = [\"tcp://0.0.0.0:%d\"]; data_dir = \"%s/data\"; };\n", open.port, open.dir);
    fclose (f);
    snprintf (command, sizeof command, "%s -c %s 2>&1; echo \"exit $?\"", DLQD_BINARY, config);
    FILE *p = popen (command, "r");
    size_t n = fread (out, 1, sizeof out - 1, p);
    out [n] = '\0';
    pclose (p);
    cr_expect (strstr (out, "reachable from the network") != NULL, "%s", out);
    cr_expect (strstr (out, "exit 1") != NULL, "%s", out);
    test_rmtree (open.dir);
}

#if DLQD_WITH_AMQP
/* dlqd --check-config on a file of text (mode), with env set: its output
 * and exit status into out. */
static void
check_config (const char *text, mode_t mode, const char *env, char *out, size_t len)
{
    char config [400], command [1400];
    snprintf (config, sizeof config, "%s/secret.conf", d.dir);
    FILE *f = fopen (config, "w");
    fputs (text, f);
    fclose (f);
    chmod (config, mode);
    snprintf (command, sizeof command, "%s %s --check-config %s 2>&1; echo \"exit $?\"", env ? env : "",
              DLQD_BINARY, config);
    FILE *p = popen (command, "r");
    size_t n = fread (out, 1, len - 1, p);
    out [n] = '\0';
    pclose (p);
}

Test (security, a_sink_secret_comes_from_a_private_file_or_the_environment)
{
    const char *password = "Pa55-known-to-the-test";
    char text [1024], out [2048], secret_file [400];
    /* inline in a file others can read: refused, naming the setting, not the value */
    snprintf (text, sizeof text, "sinks: { r: { type = \"amqp\"; url = \"amqp://dlq:%s@127.0.0.1:1/\"; "
              "exchange = \"x\"; }; };\ndefaults: { chain = [ \"r\" ]; };\n", password);
    check_config (text, 0644, NULL, out, sizeof out);
    cr_expect (strstr (out, "sinks.r.url") && strstr (out, "chmod 600") && strstr (out, "exit 1"), "%s", out);
    cr_expect (strstr (out, password) == NULL, "the secret is shown: %s", out);
    check_config (text, 0600, NULL, out, sizeof out);
    cr_expect (strstr (out, "exit 0"), "private, it is accepted: %s", out);
    /* url_file: the file must be private too */
    snprintf (secret_file, sizeof secret_file, "%s/amqp-url", d.dir);
    FILE *f = fopen (secret_file, "w");
    fprintf (f, "amqp://dlq:%s@127.0.0.1:1/\n", password);
    fclose (f);
    chmod (secret_file, 0644);
    snprintf (text, sizeof text, "sinks: { r: { type = \"amqp\"; url_file = \"%s\"; exchange = \"x\"; }; };\n"
              "defaults: { chain = [ \"r\" ]; };\n", secret_file);
    check_config (text, 0644, NULL, out, sizeof out);
    cr_expect (strstr (out, "url_file") && strstr (out, "chmod 600") && strstr (out, "exit 1"), "%s", out);
    chmod (secret_file, 0600);
    check_config (text, 0644, NULL, out, sizeof out);
    cr_expect (strstr (out, "exit 0"), "a private secret file, a readable config: %s", out);
    cr_expect (strstr (out, password) == NULL, "%s", out);
    /* url_env */
    snprintf (text, sizeof text, "sinks: { r: { type = \"amqp\"; url_env = \"DLQ_TEST_URL\"; exchange = \"x\"; }; };\n"
              "defaults: { chain = [ \"r\" ]; };\n");
    check_config (text, 0644, "env -u DLQ_TEST_URL", out, sizeof out);
    cr_expect (strstr (out, "DLQ_TEST_URL is not set") && strstr (out, "exit 1"), "%s", out);
    char env [256];
    snprintf (env, sizeof env, "DLQ_TEST_URL=amqp://dlq:%s@127.0.0.1:1/", password);
    check_config (text, 0644, env, out, sizeof out);
    cr_expect (strstr (out, "exit 0"), "%s", out);
    /* two forms at once */
    snprintf (text, sizeof text, "sinks: { r: { type = \"amqp\"; url = \"amqp://127.0.0.1:1/\"; url_env = \"X\"; "
              "exchange = \"x\"; }; };\ndefaults: { chain = [ \"r\" ]; };\n");
    check_config (text, 0644, NULL, out, sizeof out);
    cr_expect (strstr (out, "not two of them") && strstr (out, "exit 1"), "%s", out);
}

Test (security, a_sink_secret_never_reaches_the_log_or_stats)
{
    /* a gateway whose amqp sink has a password and cannot connect: its
     * errors are logged and shown in STATS, never with the password */
    const char *password = "Pa55-in-the-url-file";
    char secret_file [400], extra [2048];
    snprintf (secret_file, sizeof secret_file, "%s/amqp-url", d.dir);
    FILE *f = fopen (secret_file, "w");
    fprintf (f, "amqp://dlq:%s@127.0.0.1:%d/\n", password, test_free_port ());
    fclose (f);
    chmod (secret_file, 0600);
    test_dlqd_signal_wait (&d, SIGTERM);
    snprintf (extra, sizeof extra, "sinks: { r: { type = \"amqp\"; url_file = \"%s\"; exchange = \"x\"; }; };\n"
              "defaults: { chain = [ \"r\" ]; };\nsecurity: { curve: { server_secret_key = \"%s/gateway.key_secret\"; "
              "clients = \"%s\"; }; audit_log = \"%s\"; };", secret_file, d.dir, clients, audit);
    cr_assert (test_dlqd_start (&d, NULL, extra));      /* in the same directory, with the same keys */
    char id [40], *reply = NULL;
    put ("a", id);
    usleep (1500 * 1000);               /* the sink tries, and fails */
    expect_ok (&admin, "STATS", "", &reply);
    cr_expect (strstr (reply, password) == NULL, "STATS: %s", reply);
    cr_expect (strstr (reply, "\"r\"") != NULL, "%s", reply);
    free (reply);
    test_dlqd_signal_wait (&d, SIGTERM);
    char *log = test_read_file (d.log, NULL);
    cr_expect (strstr (log, password) == NULL, "the log holds the password:\n%s", log);
    free (log);
}
#endif

/* ---- libdlq and the replay endpoint --------------------------------------------- */

Test (security, libdlq_connects_with_curve_and_names_a_bad_key_file)
{
    char server_pub [512], cert [512], err [700] = "";
    snprintf (server_pub, sizeof server_pub, "%s/gateway.key", d.dir);
    snprintf (cert, sizeof cert, "%s/wa.key_secret", clients);
    dlq_client_t *client = dlq_client_new_curve (d.endpoint, server_pub, cert, err, sizeof err);
    cr_assert_not_null (client, "%s", err);
    const char *ok = "{\"streamName\":\"a\",\"error\":{\"type\":\"X\",\"message\":\"m\"}}";
    const char *other = "{\"streamName\":\"b\",\"error\":{\"type\":\"X\",\"message\":\"m\"}}";
    char id [DLQ_CLIENT_ID_SIZE];
    cr_expect_eq (dlq_client_put (client, ok, strlen (ok), id, NULL), DLQ_CLIENT_OK, "%s",
                  dlq_client_error_message (client));
    cr_expect_eq (dlq_client_put (client, other, strlen (other), id, NULL), DLQ_CLIENT_ERR_SERVER);
    cr_expect_str_eq (dlq_client_error_code (client), "FORBIDDEN");
    dlq_client_destroy (&client);
    /* the server key as Z85 text works as well as its file */
    dlq_client_t *by_text = dlq_client_new_curve (d.endpoint, admin.keys.server, cert, err, sizeof err);
    cr_assert_not_null (by_text, "%s", err);
    cr_expect_eq (dlq_client_put (by_text, ok, strlen (ok), id, NULL), DLQ_CLIENT_OK);
    dlq_client_destroy (&by_text);
    char missing [512];
    snprintf (missing, sizeof missing, "%s/nobody.key_secret", d.dir);
    cr_expect_null (dlq_client_new_curve (d.endpoint, server_pub, missing, err, sizeof err));
    cr_expect (strstr (err, missing) != NULL, "%s", err);
    chmod (cert, 0644);
    cr_expect_null (dlq_client_new_curve (d.endpoint, server_pub, cert, err, sizeof err));
    cr_expect (strstr (err, "chmod 600") != NULL, "%s", err);
    chmod (cert, 0600);
    cr_expect_null (dlq_client_new_curve (d.endpoint, "not-a-key", cert, err, sizeof err));
    cr_expect (strstr (err, "server key") != NULL, "%s", err);
}

Test (security, the_replay_endpoint_admits_only_keys_of_every_stream)
{
    test_dlqd_signal_wait (&d, SIGTERM);
    int replay_port = test_free_port ();
    char extra [2048], replay [64];
    snprintf (replay, sizeof replay, "tcp://127.0.0.1:%d", replay_port);
    snprintf (extra, sizeof extra, "replay: { listen = \"%s\"; };\nsecurity: { curve: { server_secret_key = "
              "\"%s/gateway.key_secret\"; clients = \"%s\"; }; };", replay, d.dir, clients);
    cr_assert (test_dlqd_start (&d, NULL, extra));
    char server_pub [512], admin_cert [512], viewer_cert [512], err [700];
    snprintf (server_pub, sizeof server_pub, "%s/gateway.key", d.dir);
    snprintf (admin_cert, sizeof admin_cert, "%s/root.key_secret", clients);
    snprintf (viewer_cert, sizeof viewer_cert, "%s/va.key_secret", clients);
    dlq_replay_receiver_t *viewer = dlq_replay_receiver_new_curve (replay, server_pub, viewer_cert, err, sizeof err);
    cr_assert_not_null (viewer, "%s", err);
    usleep (300 * 1000);                /* its handshake is refused */
    dlq_replay_receiver_t *receiver = dlq_replay_receiver_new_curve (replay, server_pub, admin_cert, err, sizeof err);
    cr_assert_not_null (receiver, "%s", err);
    char id [40], body [256];
    put ("a", id);
    usleep (300 * 1000);
    snprintf (body, sizeof body, "{\"ids\":[\"%s\"],\"target\":\"endpoint\"}", id);
    expect_ok (&admin, "REPLAY", body, NULL);
    char job [DLQ_CLIENT_ID_SIZE], got [DLQ_CLIENT_ID_SIZE], *event = NULL;
    cr_expect_eq (dlq_replay_receiver_recv (receiver, 5000, job, got, &event, NULL), DLQ_CLIENT_OK,
                  "the admin's receiver gets the replay");
    cr_expect_str_eq (got, id);
    free (event);
    event = NULL;
    cr_expect_eq (dlq_replay_receiver_recv (viewer, 200, job, got, &event, NULL), DLQ_CLIENT_ERR_TIMEOUT,
                  "nothing reaches the viewer");
    free (event);
    char *reply = NULL;
    expect_ok (&admin, "STATS", "", &reply);
    cr_expect (strstr (reply, "\"replayDenied\":0") == NULL, "the viewer's handshake is counted: %s", reply);
    free (reply);
    dlq_replay_receiver_destroy (&viewer);
    dlq_replay_receiver_destroy (&receiver);
}
