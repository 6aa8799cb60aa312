/*  chaos_report — the table a chaos run prints at its end (what it did,
 *  what it found), and its verdict.
 *
 *  The run fails when an acknowledged event is lost (GET does not return
 *  it, or a sink that could be read does not hold it), when postgres holds
 *  an event twice,
 *  and also when the gateway's answers break the durability contract in
 *  another way the run can see: GET or a sink gives other bytes than were
 *  acknowledged, a stored event is missing from a sink, an event refused
 *  at its only PUT is stored, dlqd exits by itself, a PUT gets another
 *  ERR than UNAVAILABLE, a sink fails a delivery for good (every retry is
 *  unlimited), the sinks do not drain by the deadline, dlqd
 *  does not stop cleanly on SIGTERM, or the run itself could not be
 *  carried out (a server that would not come back, a sink that could not
 *  be read).
 */
#ifndef DLQ_CHAOS_REPORT_H
#define DLQ_CHAOS_REPORT_H

#include "chaos_gateway.h"
#include "chaos_killer.h"
#include "chaos_load.h"
#include "chaos_outage.h"
#include "chaos_plan.h"
#include "chaos_tally.h"
#include "chaos_verify.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CHAOS_REPORT_SINKS 4    /* postgres, amqp, kafka, jsonl */

typedef struct {
    /* the run's settings */
    uint64_t              seed;
    size_t                events;
    int                   clients;
    int                   window;
    double                seconds;
    size_t                tmpfs_mb;     /* 0: the data_dir is no tmpfs of its own */
    size_t                planned_kills;
    size_t                planned_outages [CHAOS_FAULT_KINDS];

    /* what it did */
    chaos_killer_result_t killer;
    chaos_outage_result_t outages [CHAOS_FAULT_KINDS];
    chaos_load_result_t   load;
    bool                  drained;
    double                drain_s;
    char                  drain_error [512];
    const char           *sink_names [CHAOS_REPORT_SINKS];
    chaos_sink_stats_t    sink_stats [CHAOS_REPORT_SINKS];
    bool                  stopped_cleanly;
    char                  stop_error [256];

    /* what it found */
    chaos_verify_get_t    get;
    chaos_tally_t        *get_tally;
    chaos_tally_t        *sink_tallies [CHAOS_REPORT_SINKS];
    size_t                pg_duplicate_rows;
    bool                  verified;     /* the checks ran */
    char                  run_error [1024]; /* why the run could not be carried out */
} chaos_report_t;

/* Print the table to out and return the verdict: true when nothing above
 * went wrong. */
bool chaos_report_print (FILE *out, const chaos_report_t *report);

/* Write to path, one line each, every stored event a place lacks or holds
 * with other bytes: "PLACE missing|altered INDEX ID acked|unacked" (after
 * the checks; for a kept run). False when path cannot be written. */
bool chaos_report_write_losses (const char *path, const chaos_report_t *report);

#endif
