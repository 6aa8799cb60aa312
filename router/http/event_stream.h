/*  event_stream — GET /api/v1/events/stream: new failures as Server-Sent
 *  Events (text/event-stream; docs/api.md, "Live events"). A stream takes
 *  the filters of GET events and sends each event stored after it opened
 *  that they match, oldest first:
 *
 *      event: failure
 *      id: <the event's id>
 *      data: <the event as LIST has it, one line of JSON>
 *
 *  It wakes when the store has indexed more (the indexer's tip, a SUB
 *  socket) and at least every DLQ_EVENT_STREAM_CHECK_MS, and then asks
 *  the gateway for the newest DLQ_EVENT_STREAM_PAGE events that match (a
 *  LIST with the stream's token, so what it may see is what LIST lets it
 *  see; created before now + DLQ_EVENT_STREAM_SKEW_MS unless the filters
 *  say createdBefore, so that a future createdAt hides nothing): those
 *  the last look's page did not have are sent (but not one older than
 *  that page's oldest, back in sight when a newer one went). More than a
 *  page at once sends the page and "event: overflow" (some were left
 *  out). A comment line every DLQ_EVENT_STREAM_KEEPALIVE_MS keeps the
 *  connection open; a LIST the gateway refuses (a token revoked since)
 *  ends the stream with "event: error" and the error object.
 *
 *  One connection's thread opens, reads and closes its stream (the HTTP
 *  listener runs a thread per connection); at most DLQ_EVENT_STREAM_MAX
 *  are open at once.
 */
#ifndef DLQ_EVENT_STREAM_H
#define DLQ_EVENT_STREAM_H

#include "api_handler.h"
#include "dlq_buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define DLQ_EVENT_STREAM_MAX          32
#define DLQ_EVENT_STREAM_PAGE         20
#define DLQ_EVENT_STREAM_CHECK_MS     2000
#define DLQ_EVENT_STREAM_MIN_GAP_MS   250      /* at most 4 LISTs a second per stream */
#define DLQ_EVENT_STREAM_KEEPALIVE_MS 5000
#define DLQ_EVENT_STREAM_RETRY_MS     3000     /* the "retry:" a client reconnects after */
#define DLQ_EVENT_STREAM_SKEW_MS      5000     /* a look sees events created up to this far ahead of now */

typedef struct dlq_event_streams dlq_event_streams_t;
typedef struct dlq_event_stream dlq_event_stream_t;

/* Streams of the gateway behind api, woken by the store's tip (a PUB of
 * zmq_ctx at tip_endpoint). */
dlq_event_streams_t *dlq_event_streams_new (void *zmq_ctx, const char *tip_endpoint, dlq_api_handler_t *api);

/* Free, after every stream is closed; accepts NULL and NULLs the pointer. */
void dlq_event_streams_destroy (dlq_event_streams_t **self_p);

/* Open a stream with the query's params (GET events' filters; no limit,
 * no cursor) and the Authorization header (NULL: none), for the client
 * on the socket client_fd (-1: unknown), whose closing ends the stream
 * at once (its slot free for another): the stream, or
 * NULL with the HTTP status and the JSON error body in out (the filters
 * refused, 401 / 403 as the API answers, 503 past DLQ_EVENT_STREAM_MAX). */
dlq_event_stream_t *dlq_event_stream_open (dlq_event_streams_t *self, const dlq_api_param_t *params,
                                           size_t param_count, const char *authorization, int client_fd,
                                           unsigned *status, dlq_buf_t *out);

/* Up to max bytes of the stream into buf, waiting until there are some:
 * how many, or -1 when the stream is over (the gateway stopping, or a LIST
 * refused, after its "event: error"). */
ssize_t dlq_event_stream_read (dlq_event_stream_t *stream, char *buf, size_t max);

/* Close; accepts NULL and NULLs the pointer. */
void dlq_event_stream_close (dlq_event_stream_t **stream_p);

#endif
