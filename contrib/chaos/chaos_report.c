/*  chaos_report — the table and the verdict; see chaos_report.h. */
#include "chaos_report.h"

#include <stdarg.h>
#include <string.h>

static void
chaos_report_faults (FILE *out, const chaos_report_t *r)
{
    const chaos_killer_result_t *k = &r->killer;
    fprintf (out, "faults                                planned     done\n");
    fprintf (out, "  SIGKILL of dlqd                     %7zu  %7zu   (%zu before it answered a request; "
                  "%zu restarts; %zu waited for a full disk)\n",
             r->planned_kills, k->kills, k->startup_kills, k->restarts, k->postponed);
    for (int kind = 0; kind < CHAOS_FAULT_KINDS; kind++) {
        const chaos_outage_result_t *o = &r->outages [kind];
        char label [64];
        snprintf (label, sizeof label, "%s outages", chaos_plan_fault_name ((chaos_fault_t) kind));
        fprintf (out, "  %-34s  %7zu  %7zu", label, r->planned_outages [kind], o->done);
        if (o->done)
            fprintf (out, "   (down %.1f s on average, %.1f s at most)", o->down_ms_total / 1e3 / (double) o->done,
                     o->down_ms_max / 1e3);
        fprintf (out, "\n");
        if (kind == CHAOS_FAULT_DISK && o->done)
            fprintf (out, "      while full: %zu PUTs refused UNAVAILABLE (%zu fillings without a refusal); "
                          "first ack after freeing: %.0f ms at most%s\n",
                     o->refusals, o->silent, o->recover_ms_max,
                     o->unrecovered ? " (no ack at all after some)" : "");
        if (o->failed)
            fprintf (out, "      failed: %s\n", o->error);
    }
    fprintf (out, "  dlqd exits by itself (crashes)               %7zu%s%s\n", k->exits,
             k->exits ? "   first: " : "", k->first_exit);
}

static void
chaos_report_load (FILE *out, const chaos_report_t *r)
{
    const chaos_load_result_t *l = &r->load;
    fprintf (out, "load: %d clients x %d PUTs in flight, %zu events over %.0f s\n", r->clients, r->window,
             r->events, r->seconds);
    fprintf (out, "  events sent                         %9zu   (%zu PUTs in all)\n", l->sent, l->puts);
    fprintf (out, "  acknowledged (OK)                   %9zu   (%zu of them also answered \"duplicate\":true)\n",
             l->acked, l->dup_acked);
    fprintf (out, "  refused (UNAVAILABLE)               %9zu\n", l->refused);
    fprintf (out, "  other ERR replies                   %9zu%s%s\n", l->rejected,
             l->rejected ? "   first: " : "", l->first_rejection);
    fprintf (out, "  unanswered when the clients gave up %9zu\n", l->unresolved);
    fprintf (out, "  connections lost                    %9zu   (%zu PUTs sent again; %zu after %s)\n",
             l->disconnects, l->resent_disconnect, l->resent_timeout, "a reply timeout");
}

static void
chaos_report_sinks (FILE *out, const chaos_report_t *r)
{
    fprintf (out, "sinks at the end (STATS)              delivered  redelivered  failed  circuit\n");
    for (int i = 0; i < CHAOS_REPORT_SINKS; i++) {
        const chaos_sink_stats_t *s = &r->sink_stats [i];
        fprintf (out, "  %-34s  %9lld  %11lld  %6lld  %s\n", r->sink_names [i], s->delivered,
                 s->redelivered, s->failed, s->circuit);
    }
    if (r->drained)
        fprintf (out, "  every sink drained (backlog 0, retrying 0) %.1f s after the load\n", r->drain_s);
    else
        fprintf (out, "  NOT DRAINED by the deadline: %s\n", r->drain_error);
}

static void
chaos_report_tally (FILE *out, const char *label, const chaos_tally_t *t)
{
    chaos_tally_summary_t s;
    chaos_tally_summarize (t, &s);
    if (!t->read) {
        fprintf (out, "  %-18s NOT READ: %s\n", label, t->error);
        return;
    }
    fprintf (out, "  %-18s %9zu %9zu %9zu %6zu %10zu %8zu %8zu\n", label, s.expected, s.present, s.missing,
             s.lost, s.duplicates, t->altered, t->foreign + s.unstored);
}

static void
chaos_report_checks (FILE *out, const chaos_report_t *r)
{
    fprintf (out, "checks               expected   present   missing   lost duplicates  altered  foreign\n");
    chaos_report_tally (out, "GET (embedded)", r->get_tally);
    static const char *const labels [CHAOS_REPORT_SINKS] = {
        "postgres", "amqp (queue)", "kafka (topics)", "jsonl (file)"
    };
    for (int i = 0; i < CHAOS_REPORT_SINKS; i++)
        chaos_report_tally (out, labels [i], r->sink_tallies [i]);
    fprintf (out, "  postgres rows sharing an id: %zu; refused PUTs found stored: %zu; GET errors: %zu%s%s\n",
             r->pg_duplicate_rows, r->get.refused_stored, r->get.get_errors,
             r->get.first_error [0] ? " (first: " : "", r->get.first_error);
    fprintf (out, "  (expected: events GET returns, acknowledged or not; lost: acknowledged and not there;\n"
                  "   duplicates: copies beyond the first; altered: copies whose bytes differ from the PUT;\n"
                  "   foreign: copies of no stored event of this run)\n");
}

/* One reason the run fails, on its own line. */
static void __attribute__ ((format (printf, 3, 4)))
chaos_report_fail (FILE *out, bool *pass, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    fprintf (out, "  FAIL: ");
    vfprintf (out, fmt, ap);
    fprintf (out, "\n");
    va_end (ap);
    *pass = false;
}

/* Acknowledged events that GET does not return or a sink does not hold. */
static size_t
chaos_report_lost (const chaos_report_t *r)
{
    const chaos_events_t *events = r->get_tally->events;
    size_t lost = 0;
    for (size_t i = 0; i < events->count; i++) {
        if (!events->items [i].acked)
            continue;
        bool missing = !r->get_tally->copies [i];
        for (int s = 0; s < CHAOS_REPORT_SINKS; s++)
            missing = missing || (r->sink_tallies [s]->read && !r->sink_tallies [s]->copies [i]);
        lost += missing;
    }
    return lost;
}

static void
chaos_report_check_tallies (FILE *out, const chaos_report_t *r, bool *pass)
{
    chaos_tally_summary_t s;
    if (!r->get_tally->read)
        chaos_report_fail (out, pass, "GET: %s", r->get_tally->error);
    if (r->get_tally->altered)
        chaos_report_fail (out, pass, "GET gave other bytes than were acknowledged for %zu events",
                           r->get_tally->altered);
    if (r->get.get_errors)
        chaos_report_fail (out, pass, "%zu GETs answered an ERR other than NOT_FOUND (first: %s)",
                           r->get.get_errors, r->get.first_error);
    if (r->get.refused_stored)
        chaos_report_fail (out, pass, "%zu events refused at their only PUT are stored", r->get.refused_stored);
    for (int i = 0; i < CHAOS_REPORT_SINKS; i++) {
        const chaos_tally_t *t = r->sink_tallies [i];
        chaos_tally_summarize (t, &s);
        if (!t->read)
            chaos_report_fail (out, pass, "%s could not be read: %s", t->name, t->error);
        if (s.missing)
            chaos_report_fail (out, pass, "%s misses %zu stored events (%zu of them acknowledged)", t->name,
                               s.missing, s.lost);
        if (t->altered)
            chaos_report_fail (out, pass, "%s holds %zu copies with other bytes", t->name, t->altered);
        if (i == 0 && s.duplicates)
            chaos_report_fail (out, pass, "postgres holds %zu events more than once", s.duplicates);
    }
    if (r->pg_duplicate_rows)
        chaos_report_fail (out, pass, "postgres has %zu rows that share an id", r->pg_duplicate_rows);
}

/* List every reason the run fails; true when there is none. */
static bool
chaos_report_verdict (FILE *out, const chaos_report_t *r, size_t *lost)
{
    bool pass = true;
    *lost = 0;
    if (r->run_error [0])
        chaos_report_fail (out, &pass, "the run: %s", r->run_error);
    if (r->killer.failed)
        chaos_report_fail (out, &pass, "kills: %s", r->killer.error);
    for (int kind = 0; kind < CHAOS_FAULT_KINDS; kind++)
        if (r->outages [kind].failed)
            chaos_report_fail (out, &pass, "%s outage: %s", chaos_plan_fault_name ((chaos_fault_t) kind),
                               r->outages [kind].error);
    if (r->killer.exits)
        chaos_report_fail (out, &pass, "dlqd exited by itself %zu times (first: %s)", r->killer.exits,
                           r->killer.first_exit);
    if (r->load.rejected)
        chaos_report_fail (out, &pass, "%zu PUTs answered another ERR than UNAVAILABLE (first: %s)",
                           r->load.rejected, r->load.first_rejection);
    if (!r->drained)
        chaos_report_fail (out, &pass, "the sinks did not drain: %s", r->drain_error);
    for (int i = 0; i < CHAOS_REPORT_SINKS; i++)
        if (r->sink_stats [i].failed > 0)
            chaos_report_fail (out, &pass, "sink %s failed %lld deliveries for good (last error: %s)",
                               r->sink_names [i], r->sink_stats [i].failed, r->sink_stats [i].last_error);
    if (r->verified) {
        *lost = chaos_report_lost (r);
        if (*lost)
            chaos_report_fail (out, &pass, "%zu acknowledged events lost", *lost);
        chaos_report_check_tallies (out, r, &pass);
    } else {
        chaos_report_fail (out, &pass, "the checks did not run");
    }
    if (!r->stopped_cleanly)
        chaos_report_fail (out, &pass, "dlqd did not stop cleanly: %s", r->stop_error);
    return pass;
}

bool
chaos_report_print (FILE *out, const chaos_report_t *r)
{
    fprintf (out, "\n== dlqd_chaos: seed %llu, ", (unsigned long long) r->seed);
    if (r->tmpfs_mb)
        fprintf (out, "data_dir on a %zu MiB tmpfs\n", r->tmpfs_mb);
    else
        fprintf (out, "data_dir on the work directory's filesystem (no tmpfs: not root)\n");
    chaos_report_faults (out, r);
    chaos_report_load (out, r);
    chaos_report_sinks (out, r);
    if (r->verified)
        chaos_report_checks (out, r);
    size_t lost = 0;
    fprintf (out, "verdict\n");
    bool pass = chaos_report_verdict (out, r, &lost);
    fprintf (out, "  acknowledged events lost: %zu\n", lost);
    fprintf (out, "result: %s\n", pass ? "PASS" : "FAIL");
    return pass;
}

static void
chaos_report_losses_of (FILE *f, const chaos_tally_t *t)
{
    const chaos_events_t *events = t->events;
    for (size_t i = 0; i < events->count; i++) {
        const chaos_event_t *e = &events->items [i];
        if ((e->stored || e->acked) && !t->copies [i])
            fprintf (f, "%s missing %zu %s %s\n", t->name, i, e->id, e->acked ? "acked" : "unacked");
    }
}

bool
chaos_report_write_losses (const char *path, const chaos_report_t *r)
{
    if (!r->verified)
        return true;
    FILE *f = fopen (path, "w");
    if (!f)
        return false;
    chaos_report_losses_of (f, r->get_tally);
    for (int s = 0; s < CHAOS_REPORT_SINKS; s++)
        chaos_report_losses_of (f, r->sink_tallies [s]);
    const chaos_events_t *events = r->get_tally->events;
    for (size_t i = 0; i < events->count; i++)
        if (events->items [i].get_altered)
            fprintf (f, "GET altered %zu %s %s\n", i, events->items [i].id,
                     events->items [i].acked ? "acked" : "unacked");
    return fclose (f) == 0;
}
