/*  chaos_verify — the checks at the end of a chaos run, once every sink
 *  has drained: GET every event that was sent, then read back every sink.
 *
 *  GET decides what the gateway stored: an event it returns is stored
 *  (chaos_event_t.stored) and its "event" must be byte for byte the body
 *  that was sent (written out again by dlq_json_write, which gives the
 *  canonical bytes of canonical JSON); an acknowledged event it does not
 *  return is lost. Each sink must then hold every stored event (at least
 *  once; postgres exactly once) with the same bytes.
 */
#ifndef DLQ_CHAOS_VERIFY_H
#define DLQ_CHAOS_VERIFY_H

#include "chaos_events.h"
#include "chaos_kafka.h"
#include "chaos_tally.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    size_t gets;                /* GETs answered */
    size_t get_errors;          /* answered with an ERR other than NOT_FOUND */
    size_t refused_stored;      /* refused at the only PUT that reached dlqd, yet stored */
    char   first_error [256];
} chaos_verify_get_t;

/* GET every event sent at least once, WINDOW in flight, into tally (a
 * record per event found, with the event bytes GET gave); marks the
 * events stored. False with err when dlqd stops answering. */
bool chaos_verify_get (void *zmq_ctx, const char *endpoint, chaos_events_t *events,
                       chaos_tally_t *tally, chaos_verify_get_t *out, char *err, size_t err_len);

/* Where the sinks of the run keep what they were delivered. */
typedef struct {
    const char    *pg_conninfo;
    const char    *pg_table;
    const char    *amqp_url;
    const char    *amqp_queue;
    chaos_kafka_t *kafka;
    const char    *kafka_topics [CHAOS_EVENTS_STREAMS];
    int            kafka_partitions;
    const char    *jsonl_path;
    int            jsonl_keep;
    int            timeout_ms;  /* for each read */
} chaos_verify_sinks_t;

/* Read the postgres table, the amqp queue, the kafka topics and the
 * jsonl file into the tallies pg, amqp, kafka and jsonl (initialised by
 * the caller); a tally that could not be read whole has read false and
 * its error. *pg_duplicate_rows gets count(*) - count(DISTINCT id). */
void chaos_verify_sinks (const chaos_verify_sinks_t *where, chaos_tally_t *pg, size_t *pg_duplicate_rows,
                         chaos_tally_t *amqp, chaos_tally_t *kafka, chaos_tally_t *jsonl);

#endif
