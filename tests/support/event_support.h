/*  event_support — events as a sink's deliver sees them, for the unit tests
 *  of sink formatters (test_pg_format, test_amqp_format) and the suites
 *  that load a sink plugin: the flowwarden-amqp wire format's example,
 *  decoded and encoded canonically as the gateway does, and events as a
 *  store holds them.
 */
#ifndef EVENT_SUPPORT_H
#define EVENT_SUPPORT_H

#include "dlq_sink.h"
#include "failed_event.h"

#include <stddef.h>
#include <stdint.h>

#define EVENT_WIRE_EXAMPLE DLQ_SOURCE_DIR "/tests/data/flowwarden_amqp_event.json"
#define EVENT_WIRE_EXAMPLE_CREATED_AT "2026-06-09T14:32:13.500Z"
#define EVENT_RECEIVED_AT 1781015533500     /* the gateway's clock when it took the body */

/* The gateway's form of a body: decoded and encoded canonically; the test
 * fails when it does not decode. */
dlq_event_t *event_canonical (const char *body, size_t len);

/* body (a FailedEvent) as a store holds it: decoded as the gateway took
 * it at EVENT_RECEIVED_AT, fingerprinted, expiring at expires_at
 * (DLQ_TIME_NONE: never), encoded canonically. The test fails when it
 * does not decode. */
dlq_event_t *event_stored (const char *body, int64_t expires_at);

/* The flowwarden-amqp wire format's example event
 * (tests/data/flowwarden_amqp_event.json), canonical. */
dlq_event_t *event_wire_example (void);

/* The text of the wire format's example with createdAt set to now, so that
 * the stream policy's retention has not run out (a PUT body). Caller frees. */
char *event_wire_example_json_now (void);

/* The event deliver is given for e, with its canonical body (or body when
 * not NULL), for a stream policy of retention_days. */
dlq_sink_event_t event_for_sink (const dlq_event_t *e, const char *body, size_t len, int32_t retention_days);

#endif
