/*  zmtp_pipeline — a writer and a reader thread on one zmtp_peer
 *  connection; the window is an atomic count of replies taken in. */
#include "zmtp_pipeline.h"

#include "zmtp_peer.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define REPLY_TIMEOUT_MS 60000

struct zmtp_pipeline {
    int                    fd;
    const char            *verb;
    int64_t                first;
    int64_t                count;
    int                    window;
    zmtp_pipeline_body_fn *make;
    void                  *arg;
    pthread_t              writer;
    pthread_t              reader;
    atomic_llong           answered;
    atomic_llong           ok;
    atomic_bool            gave_up;
};

static void *
read_replies (void *arg)
{
    zmtp_pipeline_t *self = arg;
    while (atomic_load (&self->answered) < self->count) {
        char *frames [4];
        size_t lens [4];
        int n = zmtp_peer_recv (self->fd, frames, lens, 4, REPLY_TIMEOUT_MS);
        if (n < 0) {
            fprintf (stderr, "zmtp_pipeline: no reply for %d ms after %lld of %lld\n", REPLY_TIMEOUT_MS,
                     (long long) atomic_load (&self->answered), (long long) self->count);
            break;
        }
        if (n == 3 && strcmp (frames [0], "OK") == 0)
            atomic_fetch_add (&self->ok, 1);
        else
            fprintf (stderr, "zmtp_pipeline: %s reply: %s %s\n", self->verb, frames [0], n == 3 ? frames [2] : "");
        for (int i = 0; i < n; i++)
            free (frames [i]);
        atomic_fetch_add (&self->answered, 1);
    }
    atomic_store (&self->gave_up, atomic_load (&self->answered) < self->count);
    return NULL;
}

static void *
write_requests (void *arg)
{
    zmtp_pipeline_t *self = arg;
    for (int64_t i = 0; i < self->count && !atomic_load (&self->gave_up); i++) {
        while (i - atomic_load (&self->answered) >= self->window && !atomic_load (&self->gave_up))
            usleep (100);
        size_t len = 0;
        char *body = self->make (self->arg, self->first + i, &len);
        const void *frames [3] = { self->verb, &i, body };
        size_t lens [3] = { strlen (self->verb), sizeof i, len };
        bool sent = zmtp_peer_send (self->fd, frames, lens, 3, REPLY_TIMEOUT_MS);
        free (body);
        if (!sent) {
            fprintf (stderr, "zmtp_pipeline: request %lld not sent\n", (long long) i);
            atomic_store (&self->gave_up, true);
            shutdown (self->fd, SHUT_RDWR);     /* the reader stops too */
        }
    }
    return NULL;
}

zmtp_pipeline_t *
zmtp_pipeline_start (int port, const char *verb, int64_t first, int64_t count, int window,
                     zmtp_pipeline_body_fn *make, void *arg)
{
    int fd = zmtp_peer_connect (port, 0);
    if (fd < 0)
        return NULL;
    zmtp_pipeline_t *self = calloc (1, sizeof *self);
    if (!self)
        abort ();
    *self = (zmtp_pipeline_t) { .fd = fd, .verb = verb, .first = first, .count = count, .window = window,
                                .make = make, .arg = arg };
    pthread_create (&self->reader, NULL, read_replies, self);
    pthread_create (&self->writer, NULL, write_requests, self);
    return self;
}

bool
zmtp_pipeline_finish (zmtp_pipeline_t **self_p, int64_t *ok, int64_t *err)
{
    zmtp_pipeline_t *self = *self_p;
    pthread_join (self->writer, NULL);
    pthread_join (self->reader, NULL);
    close (self->fd);
    int64_t answered = atomic_load (&self->answered);
    *ok = atomic_load (&self->ok);
    *err = answered - *ok;
    bool all = answered == self->count;
    free (self);
    *self_p = NULL;
    return all;
}
