/*  chaos_load — the pipelined PUT load of a chaos run.
 *
 *  Each client is a thread with one DEALER socket and its share of the
 *  events (every clients-th one), sent at an even rate (events / load time
 *  over all clients) with at most window PUTs in flight, each request id
 *  naming the event and the attempt. A client behaves as the durability
 *  contract asks of a worker: an OK reply (duplicate or not) acknowledges
 *  the event; UNAVAILABLE is recorded as a refusal and the event is not
 *  sent again (so that "ERR means nothing was stored" can be checked);
 *  when its connection is lost (a ZMQ_EVENT_DISCONNECTED from the
 *  socket's monitor: dlqd was killed) every PUT still in flight is sent
 *  again with the same id, as is one without a reply after
 *  reply_timeout_ms. ZeroMQ reconnects by itself once dlqd is back.
 *
 *  Once its events are all sent (at the end of the load time, the last
 *  ones as soon as the window lets them) a client waits, resending as
 *  above, until every PUT it sent is answered or resolve_ms has passed.
 *
 *  Live figures (replies, acks, refusals, the time of the last ack) are
 *  atomics the fault threads read while the load runs; everything else is
 *  read after chaos_load_join.
 */
#ifndef DLQ_CHAOS_LOAD_H
#define DLQ_CHAOS_LOAD_H

#include "chaos_events.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    void           *zmq_ctx;
    const char     *endpoint;
    chaos_events_t *events;         /* their outcome fields are written by the clients */
    int             clients;
    int             window;
    int64_t         load_ms;        /* new PUTs for this long */
    int64_t         resolve_ms;     /* then at most this long for the last replies */
    int             reply_timeout_ms;
} chaos_load_options_t;

typedef struct {
    atomic_ullong replies;          /* every reply */
    atomic_ullong acks;             /* first OK replies of an event */
    atomic_ullong unavailable;      /* UNAVAILABLE replies */
    atomic_llong  last_ack_ns;      /* when the latest first OK came (monotonic) */
} chaos_load_live_t;

typedef struct {
    size_t sent;                    /* events sent at least once */
    size_t puts;                    /* PUT requests, resends included */
    size_t acked;                   /* events acknowledged */
    size_t dup_acked;               /* of those, with "duplicate":true at least once */
    size_t refused;                 /* events refused (UNAVAILABLE), never acknowledged */
    size_t rejected;                /* events answered another ERR */
    size_t unresolved;              /* events with no answer when the clients gave up */
    size_t disconnects;             /* connections lost, over all clients */
    size_t resent_disconnect;       /* PUTs sent again after a lost connection */
    size_t resent_timeout;          /* PUTs sent again after reply_timeout_ms without one */
    size_t late_replies;            /* replies to an event already answered */
    size_t bad_replies;             /* replies naming no PUT of the client, or malformed */
    char   first_rejection [256];   /* the body of the first other ERR */
} chaos_load_result_t;

typedef struct chaos_load chaos_load_t;

/* Start the clients (options and what it points to must outlive the
 * load). NULL with err when a socket cannot be made. */
chaos_load_t *chaos_load_start (const chaos_load_options_t *options, char *err, size_t err_len);

/* The live figures, valid until the load is joined. */
chaos_load_live_t *chaos_load_live (chaos_load_t *self);

/* Stop now (an interrupted run, or a dlqd that cannot be kept running):
 * no new PUT, and no waiting for the replies of those in flight (they
 * count as unanswered). */
void chaos_load_stop (chaos_load_t *self);

/* Wait for every client to finish, add up their figures in *result and
 * free the load; *self_p becomes NULL. */
void chaos_load_join (chaos_load_t **self_p, chaos_load_result_t *result);

#endif
