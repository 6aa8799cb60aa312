/*  plugin — loading a sink plugin (a shared object exporting
 *  DLQ_SINK_ENTRY) with every check done before it is used:
 *  dlopen (RTLD_NOW | RTLD_LOCAL), the entry symbol, the ABI version, the
 *  struct size, and the presence of the mandatory callbacks. A failure is a
 *  message naming the file and the cause, and leaves nothing loaded.
 */
#ifndef DLQ_PLUGIN_H
#define DLQ_PLUGIN_H

#include "dlq_sink.h"

#include <stddef.h>

typedef struct dlq_plugin dlq_plugin_t;

/* File name of the plugin of a built-in type: "libdlq_sink_<type>.so". */
#define DLQ_SINK_FILE_PREFIX "libdlq_sink_"
#define DLQ_SINK_FILE_SUFFIX ".so"

/* Load the plugin at path. NULL with a message in err on failure. */
dlq_plugin_t *dlq_plugin_load (const char *path, char *err, size_t err_len);

/* Find the plugin of a built-in sink type in the directories of search
 * (a ':'-separated list, like PATH) and load it. NULL with a message that
 * lists where it looked. */
dlq_plugin_t *dlq_plugin_find (const char *type, const char *search,
                                         char *err, size_t err_len);

/* From now on find the plugins of built-in types in table (NULL-ended
 * ops tables linked into the program, each checked as a loaded plugin is)
 * and refuse every path: nothing is dlopen'd any more. For programs that
 * read configs without running any plugin's code from disk, such as the
 * fuzz harnesses (tests/fuzz). table must outlive every plugin found
 * through it; NULL goes back to loading files. Call it before any config
 * is read (not thread-safe). */
void dlq_plugin_use_linked (const dlq_sink_ops_t *const *table);

/* The checked ops table; valid while the plugin is loaded. */
const dlq_sink_ops_t *dlq_plugin_ops (const dlq_plugin_t *self);

/* The file the plugin was loaded from. */
const char *dlq_plugin_path (const dlq_plugin_t *self);

/* Unload; accepts NULL and NULLs the pointer. */
void dlq_plugin_destroy (dlq_plugin_t **self_p);

#endif
