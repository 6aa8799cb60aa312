/*  mongo_server — the listener, the connections and the public API of
 *  the MongoDB test server; see mongo_server.h.
 *
 *  The listener thread polls the listening socket and a wake-up pipe; it
 *  accepts connections, starts a thread for each, joins the ones that
 *  ended, and takes the server down or up when asked. A connection
 *  thread reads a message, decodes it (mongo_wire), records the command
 *  (mongo_command_log), applies the faults (mongo_faults) or runs it
 *  (mongo_commands), and writes the reply. To end a connection from
 *  outside, its socket is shut down under the server's lock; its thread
 *  then sees end-of-file, closes the socket (under the lock) and ends.
 */
#include "mongo_server.h"

#include "mongo_commands.h"
#include "mongo_faults.h"
#include "mongo_match.h"
#include "mongo_store.h"
#include "mongo_wire.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define LISTEN_BACKLOG     128
#define REBIND_RETRY_MS    100
#define SET_DOWN_WAIT_MS   5000
#define WAIT_POLL_MS       10

typedef struct connection {
    struct mongo_server *server;
    int                  fd;            /* -1 once closed */
    int32_t              id;
    pthread_t            thread;
    bool                 finished;      /* its thread is done: join it */
    struct connection   *next;
} connection_t;

struct mongo_server {
    int                  port;
    char                 uri [64];
    int                  listen_fd;     /* the listener's; -1 while down */
    int                  wake [2];      /* a pipe: wakes the listener */
    pthread_t            listener;
    pthread_mutex_t      lock;
    pthread_cond_t       changed;       /* stopping, is_down */
    bool                 stopping;
    bool                 want_down, is_down;
    bool                 verbose;
    connection_t        *connections;
    int32_t              last_connection_id;
    int32_t              last_request_id;
    mongo_store_t       *store;
    mongo_faults_t      *faults;
    mongo_command_log_t *log;
    mongo_commands_t    *commands;
};

static void
say (const char *fmt, ...)
{
    va_list ap;
    char line [1200];
    va_start (ap, fmt);
    vsnprintf (line, sizeof line, fmt, ap);
    va_end (ap);
    fprintf (stderr, "mongo_test_server: %s\n", line);
}

static int64_t
monotonic_ms (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
sleep_ms (int ms)
{
    struct timespec ts = { ms / 1000, (long) (ms % 1000) * 1000000 };
    while (nanosleep (&ts, &ts) != 0 && errno == EINTR)
        ;
}

static void
wake_listener (mongo_server_t *self)
{
    char byte = 1;
    ssize_t n = write (self->wake [1], &byte, 1);
    (void) n;                   /* a full pipe wakes it just as well */
}

/* Wait on changed until deadline (monotonic ms); lock held. */
static void
wait_changed_until (mongo_server_t *self, int64_t deadline)
{
    struct timespec ts = { (time_t) (deadline / 1000), (long) (deadline % 1000) * 1000000 };
    pthread_cond_timedwait (&self->changed, &self->lock, &ts);
}

/* ------------------------------------------------------------------ */
/*  Sockets                                                             */
/* ------------------------------------------------------------------ */

/* A socket listening on 127.0.0.1:*port (0: any; *port gets the one). */
static int
open_listener (int *port)
{
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons ((uint16_t) *port) };
    socklen_t len = sizeof addr;
    int one = 1;
    addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    setsockopt (fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind (fd, (struct sockaddr *) &addr, sizeof addr) != 0 || listen (fd, LISTEN_BACKLOG) != 0
        || getsockname (fd, (struct sockaddr *) &addr, &len) != 0) {
        close (fd);
        return -1;
    }
    *port = ntohs (addr.sin_port);
    return fd;
}

/* Read exactly len bytes; false at end-of-file or on an error. */
static bool
read_full (int fd, uint8_t *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = recv (fd, buf, len, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        buf += n;
        len -= (size_t) n;
    }
    return true;
}

static bool
write_full (int fd, const uint8_t *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = send (fd, buf, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        buf += n;
        len -= (size_t) n;
    }
    return true;
}

/* The next whole message of c (header included, bson_free), or NULL at
 * its end (a malformed header is said so). */
static uint8_t *
read_message (connection_t *c, size_t *len_out)
{
    uint8_t header [MONGO_WIRE_HEADER_SIZE];
    mongo_wire_header_t h;
    char error [256];
    if (!read_full (c->fd, header, sizeof header))
        return NULL;
    if (!mongo_wire_header_decode (header, &h, error, sizeof error)) {
        say ("connection %d: %s; closing it", c->id, error);
        return NULL;
    }
    uint8_t *message = bson_malloc ((size_t) h.length);
    memcpy (message, header, sizeof header);
    if (!read_full (c->fd, message + sizeof header, (size_t) h.length - sizeof header)) {
        say ("connection %d: closed in the middle of a message", c->id);
        bson_free (message);
        return NULL;
    }
    *len_out = (size_t) h.length;
    return message;
}

/* ------------------------------------------------------------------ */
/*  A connection                                                        */
/* ------------------------------------------------------------------ */

/* Sleep ms, or less when the server is stopping. */
static void
delay_reply (mongo_server_t *self, int ms)
{
    if (ms <= 0)
        return;
    int64_t deadline = monotonic_ms () + ms;
    pthread_mutex_lock (&self->lock);
    while (!self->stopping && monotonic_ms () < deadline)
        wait_changed_until (self, deadline);
    pthread_mutex_unlock (&self->lock);
}

static int32_t
next_request_id (mongo_server_t *self)
{
    return __atomic_add_fetch (&self->last_request_id, 1, __ATOMIC_RELAXED);
}

static bool
is_verbose (mongo_server_t *self)
{
    return __atomic_load_n (&self->verbose, __ATOMIC_RELAXED);
}

/* One line for a command and its outcome. */
static void
log_command (connection_t *c, const mongo_wire_request_t *req, const char *name,
             const bson_t *reply)
{
    bson_iter_t it;
    char outcome [64];
    bool ok = bson_iter_init_find (&it, reply, "ok") && bson_iter_as_bool (&it);
    if (!ok && bson_iter_init_find (&it, reply, "code"))
        snprintf (outcome, sizeof outcome, "error %d", (int) bson_iter_as_int64 (&it));
    else if (bson_iter_init_find (&it, reply, "writeErrors"))
        snprintf (outcome, sizeof outcome, "ok, with writeErrors");
    else
        snprintf (outcome, sizeof outcome, ok ? "ok" : "error");
    say ("connection %d: %s %s (db %s)%s -> %s", c->id,
         req->opcode == MONGO_OP_QUERY ? "OP_QUERY" : "OP_MSG", name, req->db ? req->db : "-",
         req->more_to_come ? " moreToCome" : "", outcome);
}

/* The reply to req, or NULL when the connection is to be dropped. */
static bson_t *
answer (connection_t *c, const mongo_wire_request_t *req, const char *name)
{
    mongo_server_t *self = c->server;
    mongo_fault_t fault;
    mongo_faults_take_command (self->faults, name, &fault);
    if (fault.kind == MONGO_FAULT_DROP) {
        say ("connection %d: %s: dropping the connection (injected)", c->id, name);
        return NULL;
    }
    if (fault.kind == MONGO_FAULT_FAIL)
        return mongo_error_reply_new (&fault.error, fault.label [0] ? fault.label : NULL);
    mongo_call_t call = { req->db, req->command, c->id, req->opcode == MONGO_OP_QUERY };
    return mongo_commands_run (self->commands, &call);
}

/* Serve one request; false when the connection is to end. */
static bool
serve (connection_t *c, const mongo_wire_request_t *req)
{
    mongo_server_t *self = c->server;
    const char *name = mongo_wire_request_command_name (req);
    bool known = mongo_commands_knows (name);
    mongo_command_log_add (self->log, name, req->db, req->command, c->id, known);
    if (!known)
        say ("connection %d: unknown command '%s' (answered CommandNotFound)", c->id, name);
    bson_t *reply = answer (c, req, name);
    if (!reply)
        return false;
    if (is_verbose (self))
        log_command (c, req, name, reply);
    delay_reply (self, mongo_faults_delay (self->faults));
    bool ok = true;
    if (!req->more_to_come) {
        size_t len;
        uint8_t *bytes = mongo_wire_reply_encode (req, next_request_id (self), reply, &len);
        ok = write_full (c->fd, bytes, len);
        bson_free (bytes);
    }
    bson_destroy (reply);
    return ok;
}

static void *
connection_main (void *arg)
{
    connection_t *c = arg;
    mongo_server_t *self = c->server;
    size_t len;
    uint8_t *message;
    bool going = true;
    while (going && (message = read_message (c, &len))) {
        char error [256];
        mongo_wire_request_t *req = mongo_wire_request_new (message, len, error, sizeof error);
        bson_free (message);
        if (!req)
            say ("connection %d: %s; closing it", c->id, error);
        going = req && serve (c, req);
        mongo_wire_request_destroy (&req);
    }
    pthread_mutex_lock (&self->lock);
    close (c->fd);
    c->fd = -1;
    c->finished = true;
    pthread_mutex_unlock (&self->lock);
    if (is_verbose (self))
        say ("connection %d: closed", c->id);
    wake_listener (self);
    return NULL;
}

/* ------------------------------------------------------------------ */
/*  The listener                                                        */
/* ------------------------------------------------------------------ */

static void
accept_connection (mongo_server_t *self)
{
    int fd = accept4 (self->listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0)
        return;
    int one = 1;
    setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    connection_t *c = bson_malloc0 (sizeof *c);
    c->server = self;
    c->fd = fd;
    pthread_mutex_lock (&self->lock);
    c->id = ++self->last_connection_id;
    c->next = self->connections;
    self->connections = c;
    if (pthread_create (&c->thread, NULL, connection_main, c) != 0) {
        say ("connection %d: no thread for it; closing it", c->id);
        self->connections = c->next;
        close (fd);
        bson_free (c);
    } else if (is_verbose (self))
        say ("connection %d: accepted", c->id);
    pthread_mutex_unlock (&self->lock);
}

/* Unlink the connections for which finished is true (all: every one) into
 * a list; lock held. */
static connection_t *
take_connections (mongo_server_t *self, bool all)
{
    connection_t *taken = NULL;
    for (connection_t **link = &self->connections; *link;) {
        connection_t *c = *link;
        if (all || c->finished) {
            *link = c->next;
            c->next = taken;
            taken = c;
        } else
            link = &c->next;
    }
    return taken;
}

static void
join_connections (connection_t *list)
{
    while (list) {
        connection_t *next = list->next;
        pthread_join (list->thread, NULL);
        bson_free (list);
        list = next;
    }
}

static void
reap_connections (mongo_server_t *self)
{
    pthread_mutex_lock (&self->lock);
    connection_t *finished = take_connections (self, false);
    pthread_mutex_unlock (&self->lock);
    join_connections (finished);
}

/* Shut every open connection down (their threads then end); lock held. */
static void
shut_connections (mongo_server_t *self)
{
    for (connection_t *c = self->connections; c; c = c->next)
        if (c->fd >= 0)
            shutdown (c->fd, SHUT_RDWR);
}

/* Go down or up as asked; lock held. */
static void
apply_down_state (mongo_server_t *self)
{
    if (self->want_down && !self->is_down) {
        close (self->listen_fd);
        self->listen_fd = -1;
        shut_connections (self);
        self->is_down = true;
        pthread_cond_broadcast (&self->changed);
    } else if (!self->want_down && self->is_down) {
        int port = self->port;
        self->listen_fd = open_listener (&port);
        self->is_down = self->listen_fd < 0;
        if (!self->is_down)
            pthread_cond_broadcast (&self->changed);
    }
}

static void
drain_wake_pipe (mongo_server_t *self)
{
    char bytes [64];
    while (read (self->wake [0], bytes, sizeof bytes) > 0)
        ;
}

static void *
listener_main (void *arg)
{
    mongo_server_t *self = arg;
    for (;;) {
        pthread_mutex_lock (&self->lock);
        bool stopping = self->stopping;
        if (!stopping)
            apply_down_state (self);
        bool retry = self->is_down && !self->want_down;
        pthread_mutex_unlock (&self->lock);
        if (stopping)
            break;
        struct pollfd fds [2] = { { self->listen_fd, POLLIN, 0 }, { self->wake [0], POLLIN, 0 } };
        if (poll (fds, 2, retry ? REBIND_RETRY_MS : -1) < 0 && errno != EINTR)
            break;
        if (fds [1].revents)
            drain_wake_pipe (self);
        if (fds [0].revents & POLLIN)
            accept_connection (self);
        reap_connections (self);
    }
    if (self->listen_fd >= 0)
        close (self->listen_fd);
    self->listen_fd = -1;
    return NULL;
}

/* ------------------------------------------------------------------ */
/*  Lifetime                                                            */
/* ------------------------------------------------------------------ */

static bool
verbose_by_default (void)
{
    const char *env = getenv (MONGO_SERVER_VERBOSE_ENV);
    return env && env [0];
}

static void
init_sync (mongo_server_t *self)
{
    pthread_condattr_t attr;
    pthread_condattr_init (&attr);
    pthread_condattr_setclock (&attr, CLOCK_MONOTONIC);
    pthread_cond_init (&self->changed, &attr);
    pthread_condattr_destroy (&attr);
    pthread_mutex_init (&self->lock, NULL);
}

static void
free_parts (mongo_server_t *self)
{
    mongo_commands_destroy (&self->commands);
    mongo_store_destroy (&self->store);
    mongo_faults_destroy (&self->faults);
    mongo_command_log_destroy (&self->log);
    if (self->wake [0] >= 0)
        close (self->wake [0]);
    if (self->wake [1] >= 0)
        close (self->wake [1]);
    if (self->listen_fd >= 0)
        close (self->listen_fd);
    pthread_cond_destroy (&self->changed);
    pthread_mutex_destroy (&self->lock);
    bson_free (self);
}

mongo_server_t *
mongo_server_new (int port)
{
    mongo_server_t *self = bson_malloc0 (sizeof *self);
    init_sync (self);
    self->wake [0] = self->wake [1] = -1;
    self->port = port;
    self->verbose = verbose_by_default ();
    self->store = mongo_store_new ();
    self->faults = mongo_faults_new ();
    self->log = mongo_command_log_new ();
    self->commands = mongo_commands_new (self->store, self->faults);
    self->listen_fd = open_listener (&self->port);
    if (self->listen_fd < 0)
        say ("cannot listen on 127.0.0.1:%d: %s", port, strerror (errno));
    else if (pipe2 (self->wake, O_CLOEXEC | O_NONBLOCK) != 0)
        say ("no pipe: %s", strerror (errno));
    else if (pthread_create (&self->listener, NULL, listener_main, self) != 0)
        say ("no listener thread");
    else {
        snprintf (self->uri, sizeof self->uri, "mongodb://127.0.0.1:%d/", self->port);
        return self;
    }
    free_parts (self);
    return NULL;
}

const char *
mongo_server_uri (const mongo_server_t *self)
{
    return self->uri;
}

int
mongo_server_port (const mongo_server_t *self)
{
    return self->port;
}

void
mongo_server_destroy (mongo_server_t **self_p)
{
    mongo_server_t *self = self_p ? *self_p : NULL;
    if (!self)
        return;
    pthread_mutex_lock (&self->lock);
    self->stopping = true;
    pthread_cond_broadcast (&self->changed);
    pthread_mutex_unlock (&self->lock);
    wake_listener (self);
    pthread_join (self->listener, NULL);
    pthread_mutex_lock (&self->lock);
    shut_connections (self);
    connection_t *all = take_connections (self, true);
    pthread_mutex_unlock (&self->lock);
    join_connections (all);
    free_parts (self);
    *self_p = NULL;
}

void
mongo_server_set_verbose (mongo_server_t *self, bool verbose)
{
    __atomic_store_n (&self->verbose, verbose, __ATOMIC_RELAXED);
}

void
mongo_server_set_recording (mongo_server_t *self, bool recording)
{
    mongo_command_log_set_enabled (self->log, recording);
}

/* ------------------------------------------------------------------ */
/*  Looking inside                                                      */
/* ------------------------------------------------------------------ */

size_t
mongo_server_count (mongo_server_t *self, const char *db, const char *coll)
{
    return mongo_store_count (self->store, db, coll, NULL);
}

bool
mongo_server_wait_count (mongo_server_t *self, const char *db, const char *coll, size_t want,
                         int timeout_ms)
{
    int64_t deadline = monotonic_ms () + timeout_ms;
    while (mongo_server_count (self, db, coll) < want) {
        if (monotonic_ms () >= deadline)
            return false;
        sleep_ms (WAIT_POLL_MS);
    }
    return true;
}

bson_t **
mongo_server_find (mongo_server_t *self, const char *db, const char *coll, const bson_t *filter,
                   const bson_t *sort, size_t *count_out)
{
    mongo_error_t err = { 0 };
    *count_out = 0;
    if (!mongo_filter_check (filter, &err) || !mongo_sort_check (sort, &err)) {
        say ("mongo_server_find: %s", err.message);
        return NULL;
    }
    mongo_query_t query = { filter, sort, 0, 0 };
    return mongo_store_find (self->store, db, coll, &query, count_out);
}

bson_t *
mongo_server_find_one (mongo_server_t *self, const char *db, const char *coll,
                       const bson_t *filter)
{
    mongo_error_t err = { 0 };
    size_t count = 0;
    if (!mongo_filter_check (filter, &err)) {
        say ("mongo_server_find_one: %s", err.message);
        return NULL;
    }
    mongo_query_t query = { filter, NULL, 0, 1 };
    bson_t **docs = mongo_store_find (self->store, db, coll, &query, &count);
    bson_t *first = count > 0 ? docs [0] : NULL;
    bson_free (docs);
    return first;
}

void
mongo_server_docs_free (bson_t **docs, size_t count)
{
    mongo_store_docs_free (docs, count);
}

bool
mongo_server_insert (mongo_server_t *self, const char *db, const char *coll, const bson_t *doc)
{
    bson_iter_t it;
    if (bson_iter_init_find (&it, doc, "_id"))
        return mongo_store_insert (self->store, db, coll, doc);
    bson_oid_t oid;
    bson_t *with_id = bson_new ();
    bson_oid_init (&oid, NULL);
    BSON_APPEND_OID (with_id, "_id", &oid);
    bson_concat (with_id, doc);
    bool ok = mongo_store_insert (self->store, db, coll, with_id);
    bson_destroy (with_id);
    return ok;
}

bool
mongo_server_has_collection (mongo_server_t *self, const char *db, const char *coll)
{
    return mongo_store_has_collection (self->store, db, coll);
}

char **
mongo_server_index_specs (mongo_server_t *self, const char *db, const char *coll, size_t *n_out)
{
    size_t count;
    bson_t **specs = mongo_store_indexes (self->store, db, coll, &count);
    *n_out = specs ? count : 0;
    if (!specs)
        return NULL;
    char **json = bson_malloc0 ((count + 1) * sizeof *json);
    for (size_t i = 0; i < count; i++)
        json [i] = bson_as_canonical_extended_json (specs [i], NULL);
    mongo_store_docs_free (specs, count);
    return json;
}

size_t
mongo_server_commands_named (mongo_server_t *self, const char *name, char ***json_out)
{
    return mongo_command_log_named (self->log, name, json_out);
}

size_t
mongo_server_commands (mongo_server_t *self, const char *name,
                       mongo_command_record_t **records_out)
{
    return mongo_command_log_records (self->log, name, records_out);
}

void
mongo_server_records_free (mongo_command_record_t *records, size_t count)
{
    mongo_command_log_records_free (records, count);
}

bson_t **
mongo_server_command_documents (mongo_server_t *self, const char *name, size_t *count_out)
{
    char **json;
    size_t count = mongo_command_log_named (self->log, name, &json);
    bson_t **docs = bson_malloc0 ((count + 1) * sizeof *docs);
    for (size_t i = 0; i < count; i++) {
        docs [i] = bson_new_from_json ((const uint8_t *) json [i], -1, NULL);
        if (!docs [i])
            docs [i] = bson_new ();     /* a command libbson could not write as JSON */
    }
    mongo_command_log_strings_free (json);
    *count_out = count;
    return docs;
}

size_t
mongo_server_unknown_commands (mongo_server_t *self, char ***json_out)
{
    return mongo_command_log_unknown (self->log, json_out);
}

bool
mongo_server_wait_commands (mongo_server_t *self, const char *name, size_t want, int timeout_ms)
{
    int64_t deadline = monotonic_ms () + timeout_ms;
    while (mongo_command_log_named (self->log, name, NULL) < want) {
        if (monotonic_ms () >= deadline)
            return false;
        sleep_ms (WAIT_POLL_MS);
    }
    return true;
}

void
mongo_server_strings_free (char **strings)
{
    mongo_command_log_strings_free (strings);
}

void
mongo_server_clear_log (mongo_server_t *self)
{
    mongo_command_log_clear (self->log);
}

size_t
mongo_server_connection_count (mongo_server_t *self)
{
    size_t count = 0;
    pthread_mutex_lock (&self->lock);
    for (connection_t *c = self->connections; c; c = c->next)
        count += c->fd >= 0;
    pthread_mutex_unlock (&self->lock);
    return count;
}

size_t
mongo_server_open_cursors (mongo_server_t *self)
{
    return mongo_commands_open_cursors (self->commands);
}

/* ------------------------------------------------------------------ */
/*  Faults                                                              */
/* ------------------------------------------------------------------ */

void
mongo_server_fail_command (mongo_server_t *self, const char *name, int times, int code,
                           const char *codename, const char *errmsg, const char *error_label)
{
    mongo_faults_fail_command (self->faults, name, times, code, codename, errmsg, error_label);
}

void
mongo_server_drop_on_command (mongo_server_t *self, const char *name, int times)
{
    mongo_faults_drop_on_command (self->faults, name, times);
}

void
mongo_server_fail_insert_of (mongo_server_t *self, const bson_value_t *id, int times, int code,
                             const char *errmsg)
{
    mongo_faults_fail_insert_of (self->faults, id, times, code, errmsg);
}

void
mongo_server_fail_insert_of_string (mongo_server_t *self, const char *id, int times, int code,
                                    const char *errmsg)
{
    bson_value_t value = { .value_type = BSON_TYPE_UTF8 };
    value.value.v_utf8.str = (char *) id;
    value.value.v_utf8.len = (uint32_t) strlen (id);
    mongo_faults_fail_insert_of (self->faults, &value, times, code, errmsg);
}

void
mongo_server_set_delay (mongo_server_t *self, int ms)
{
    mongo_faults_set_delay (self->faults, ms);
}

void
mongo_server_clear_faults (mongo_server_t *self)
{
    mongo_faults_clear (self->faults);
}

void
mongo_server_close_connections (mongo_server_t *self)
{
    pthread_mutex_lock (&self->lock);
    shut_connections (self);
    pthread_mutex_unlock (&self->lock);
}

bool
mongo_server_set_down (mongo_server_t *self, bool down)
{
    int64_t deadline = monotonic_ms () + SET_DOWN_WAIT_MS;
    pthread_mutex_lock (&self->lock);
    self->want_down = down;
    pthread_mutex_unlock (&self->lock);
    wake_listener (self);
    pthread_mutex_lock (&self->lock);
    while (self->is_down != down && !self->stopping && monotonic_ms () < deadline)
        wait_changed_until (self, deadline);
    bool done = self->is_down == down;
    pthread_mutex_unlock (&self->lock);
    if (!done)
        say ("could not %s 127.0.0.1:%d", down ? "stop listening on" : "listen again on", self->port);
    return done;
}
