/*  zap_handler — answers libzmq's ZAP requests from the clients directory
 *  (see the header).
 */
#include "zap_handler.h"

#include "actor.h"
#include "dlq_alloc.h"
#include "dlq_cert.h"
#include "dlq_log.h"
#include "key_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#define ZAP_FRAMES_MAX 8        /* a CURVE request: version, id, domain, address, identity, mechanism, key */

struct dlq_zap_handler {
    char              *dir;
    void              *ctx;
    dlq_actor_t       *actor;
    dlq_key_table_t   *table;           /* the thread's */
    dlq_counters_t    *counters;
};

/* Read the directory into a new table; the old one stays on failure. */
static void
load_table (dlq_zap_handler_t *self)
{
    dlq_buf_t problems = DLQ_BUF_INIT;
    char err [512];
    dlq_key_table_t *table = dlq_key_table_load (self->dir, &problems, err, sizeof err);
    if (!table)
        dlq_log (DLQ_LOG_ERROR, "security.curve.clients: %s: keeping the keys read before", err);
    else {
        dlq_key_table_destroy (&self->table);
        self->table = table;
    }
    dlq_buf_free (&problems);           /* the front end's table logs them */
}

typedef struct {
    zmq_msg_t frames [ZAP_FRAMES_MAX];
    int       count;
} zap_request_t;

static void
recv_request (void *rep, zap_request_t *req)
{
    req->count = 0;
    int more = 1;
    while (more) {
        zmq_msg_t m;
        zmq_msg_init (&m);
        if (zmq_msg_recv (&m, rep, 0) < 0) {
            zmq_msg_close (&m);
            return;
        }
        more = zmq_msg_more (&m);
        if (req->count < ZAP_FRAMES_MAX) {
            zmq_msg_init (&req->frames [req->count]);
            zmq_msg_move (&req->frames [req->count++], &m);
        }
        zmq_msg_close (&m);
    }
}

static bool
frame_is (const zmq_msg_t *m, const char *text)
{
    size_t n = strlen (text);
    return zmq_msg_size ((zmq_msg_t *) m) == n && memcmp (zmq_msg_data ((zmq_msg_t *) m), text, n) == 0;
}

static void
send_reply (void *rep, zmq_msg_t *request_id, const char *code, const char *text, const char *user_id)
{
    zmq_send (rep, "1.0", 3, ZMQ_SNDMORE);
    zmq_msg_send (request_id, rep, ZMQ_SNDMORE);
    zmq_send (rep, code, strlen (code), ZMQ_SNDMORE);
    zmq_send (rep, text, strlen (text), ZMQ_SNDMORE);
    zmq_send (rep, user_id, strlen (user_id), ZMQ_SNDMORE);
    zmq_send (rep, "", 0, 0);
}

/* The answer to one request: 200 and the key as User-Id, or 400. */
static void
answer (dlq_zap_handler_t *self, void *rep, zap_request_t *req)
{
    /* version, request id, domain, address, routing id, mechanism, key */
    if (req->count != 7 || !frame_is (&req->frames [0], "1.0") || !frame_is (&req->frames [5], "CURVE")
    ||  zmq_msg_size (&req->frames [6]) != 32) {
        if (req->count >= 2)
            send_reply (rep, &req->frames [1], "400", "CURVE only", "");
        return;
    }
    char key [DLQ_CERT_KEY_LEN + 1];
    zmq_z85_encode (key, zmq_msg_data (&req->frames [6]), 32);
    dlq_principal_t *p = self->table ? dlq_key_table_find (self->table, key) : NULL;
    bool replay = frame_is (&req->frames [2], DLQ_ZAP_DOMAIN_REPLAY);
    if (!p) {
        dlq_counters_handshake_refused (self->counters, DLQ_HANDSHAKE_UNKNOWN_KEY);
        send_reply (rep, &req->frames [1], "400", "unknown client key", "");
    }
    else
    if (replay && (!dlq_principal_all_streams (p) || dlq_principal_role (p) == DLQ_ROLE_VIEWER)) {
        dlq_counters_handshake_refused (self->counters, DLQ_HANDSHAKE_REPLAY_DENIED);
        dlq_log (DLQ_LOG_WARN, "replay endpoint: refused %s (role %s): receiving replays needs streams \"*\" "
                 "and the role worker, operator or admin", dlq_principal_name (p),
                 dlq_principal_role_name (dlq_principal_role (p)));
        send_reply (rep, &req->frames [1], "400", "this key may not receive replays", "");
    }
    else
        send_reply (rep, &req->frames [1], "200", "OK", key);
}

static void
run (void *pipe, void *arg)
{
    dlq_zap_handler_t *self = arg;
    dlq_actor_name ("dlqd-zap");
    void *rep = zmq_socket (self->ctx, ZMQ_REP);
    int linger = 0;
    zmq_setsockopt (rep, ZMQ_LINGER, &linger, sizeof linger);
    if (zmq_bind (rep, DLQ_ZAP_ENDPOINT) != 0) {
        zmq_close (rep);
        dlq_actor_ready (pipe, false);
        return;
    }
    dlq_actor_ready (pipe, true);
    while (true) {
        zmq_pollitem_t items [2] = { { pipe, 0, ZMQ_POLLIN, 0 }, { rep, 0, ZMQ_POLLIN, 0 } };
        if (zmq_poll (items, 2, -1) < 0)
            continue;
        if (items [0].revents & ZMQ_POLLIN) {
            zmq_msg_t m;
            zmq_msg_init (&m);
            zmq_msg_recv (&m, pipe, 0);
            bool stop = dlq_actor_is_stop (zmq_msg_size (&m), zmq_msg_more (&m));
            zmq_msg_close (&m);
            if (stop)
                break;
            load_table (self);          /* "reload" */
            zmq_send (pipe, "", 0, 0);
        }
        if (items [1].revents & ZMQ_POLLIN) {
            zap_request_t req;
            recv_request (rep, &req);
            answer (self, rep, &req);
            for (int i = 0; i < req.count; i++)
                zmq_msg_close (&req.frames [i]);
        }
    }
    zmq_close (rep);
}

dlq_zap_handler_t *
dlq_zap_handler_new (void *zmq_ctx, const char *clients_dir, dlq_counters_t *counters, char *err, size_t err_len)
{
    dlq_zap_handler_t *self = dlq_calloc (1, sizeof *self);
    self->counters = counters;
    self->dir = dlq_strdup (clients_dir);
    self->ctx = zmq_ctx;
    dlq_buf_t problems = DLQ_BUF_INIT;
    self->table = dlq_key_table_load (clients_dir, &problems, err, err_len);
    dlq_buf_free (&problems);
    if (self->table) {
        self->actor = dlq_actor_new (zmq_ctx, run, self);
        if (!self->actor)
            snprintf (err, err_len, "cannot start the ZAP handler (%s is taken)", DLQ_ZAP_ENDPOINT);
    }
    if (!self->actor) {
        dlq_zap_handler_destroy (&self);
        return NULL;
    }
    return self;
}

void
dlq_zap_handler_reload (dlq_zap_handler_t *self)
{
    void *pipe = dlq_actor_pipe (self->actor);
    zmq_send (pipe, "R", 1, 0);
    char ack;
    zmq_recv (pipe, &ack, 1, 0);
}

bool
dlq_zap_handler_secure (void *socket, const char *secret_key, const char *domain)
{
    int on = 1;
    return zmq_setsockopt (socket, ZMQ_CURVE_SERVER, &on, sizeof on) == 0
        && zmq_setsockopt (socket, ZMQ_CURVE_SECRETKEY, secret_key, DLQ_CERT_KEY_LEN) == 0
        && zmq_setsockopt (socket, ZMQ_ZAP_DOMAIN, domain, strlen (domain)) == 0;
}

void
dlq_zap_handler_destroy (dlq_zap_handler_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_zap_handler_t *self = *self_p;
    dlq_actor_destroy (&self->actor);
    dlq_key_table_destroy (&self->table);
    free (self->dir);
    free (self);
    *self_p = NULL;
}
