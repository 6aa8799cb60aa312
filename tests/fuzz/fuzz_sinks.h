/*  fuzz_sinks — sink types linked into the harnesses, so that a config
 *  naming sinks is read (and a gateway runs its chains) without ever
 *  dlopen'ing a plugin (dlq_plugin_use_linked):
 *
 *    noop    accepts every event (a deliver-only sink with no settings)
 *    typed   accepts every event; one setting of each type, with
 *            defaults, bounds and per-stream overrides; its check refuses
 *            mode = "refuse"
 *    store   a store that can be named primary (its calls fail: for
 *            configs only)
 *    keeper  a store with the workbench calls, so it keeps replay state
 *            (schedules may name it; its calls fail too)
 *    embedded  the embedded store's own plugin (sinks/embedded), linked in
 */
#ifndef DLQ_FUZZ_SINKS_H
#define DLQ_FUZZ_SINKS_H

/* Make these the only sink types (call once, before any config is read). */
void fuzz_sinks_link (void);

#endif
