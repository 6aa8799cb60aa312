/*  plugin — dlopen a sink and check its ABI before anything else. */
#include "plugin.h"

#include "dlq_alloc.h"
#include "dlq_buf.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct dlq_plugin {
    void                 *handle;       /* NULL for a linked plugin */
    const dlq_sink_ops_t *ops;
    char                 *path;
};

/* The plugins linked into the program (dlq_plugin_use_linked), or
 * NULL: plugins are files. */
static const dlq_sink_ops_t *const *linked;

void
dlq_plugin_use_linked (const dlq_sink_ops_t *const *table)
{
    linked = table;
}

/* Everything the gateway relies on, checked in the order a reader would. */
static const char *
check_ops (const dlq_sink_ops_t *ops, char *why, size_t why_len)
{
    if (ops->abi_version != DLQ_SINK_ABI_VERSION) {
        snprintf (why, why_len, "ABI version %u, but this dlqd speaks version %d: rebuild the "
                  "plugin against this dlqd's dlq_sink.h", ops->abi_version, DLQ_SINK_ABI_VERSION);
        return why;
    }
    /* a plugin built against an earlier header of version 1 has a smaller
     * table (members added since are read only when present) */
    if (ops->struct_size < DLQ_SINK_OPS_V1_SIZE || ops->struct_size > sizeof (dlq_sink_ops_t)) {
        snprintf (why, why_len, "its dlq_sink_ops_t is %u bytes, this dlqd's is %zu: rebuild the "
                  "plugin against this dlqd's dlq_sink.h", ops->struct_size, sizeof (dlq_sink_ops_t));
        return why;
    }
    if (!ops->type || !*ops->type)
        return "it has no type name";
    if (!ops->init || !ops->destroy)
        return "it has no init or destroy callback";
    if (!ops->deliver && !ops->store)
        return "it has neither a deliver callback nor store calls";
    if (ops->store && (!ops->store->get || !ops->store->list || !ops->store->stats))
        return "its store calls are incomplete (get, list and stats are required)";
    return NULL;
}

dlq_plugin_t *
dlq_plugin_load (const char *path, char *err, size_t err_len)
{
    if (linked) {
        snprintf (err, err_len, "cannot load sink plugin %s: this program takes only the plugins "
                  "linked into it", path);
        return NULL;
    }
    void *handle = dlopen (path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        snprintf (err, err_len, "cannot load sink plugin %s: %s", path, dlerror ());
        return NULL;
    }
    dlerror ();
    const dlq_sink_ops_t *ops = dlsym (handle, DLQ_SINK_ENTRY);
    const char *missing = dlerror ();
    if (missing || !ops) {
        snprintf (err, err_len, "sink plugin %s does not export the symbol %s: is it a dlqd sink?",
                  path, DLQ_SINK_ENTRY);
        dlclose (handle);
        return NULL;
    }
    char why [256];
    const char *bad = check_ops (ops, why, sizeof why);
    if (bad) {
        snprintf (err, err_len, "sink plugin %s refused: %s", path, bad);
        dlclose (handle);
        return NULL;
    }
    dlq_plugin_t *self = dlq_calloc (1, sizeof *self);
    self->handle = handle;
    self->ops = ops;
    self->path = dlq_strdup (path);
    return self;
}

/* The linked plugin of type, checked; NULL with a message. */
static dlq_plugin_t *
find_linked (const char *type, char *err, size_t err_len)
{
    for (size_t i = 0; linked [i]; i++) {
        if (strcmp (linked [i]->type, type) != 0)
            continue;
        char why [256];
        const char *bad = check_ops (linked [i], why, sizeof why);
        if (bad) {
            snprintf (err, err_len, "linked sink plugin %s refused: %s", type, bad);
            return NULL;
        }
        dlq_plugin_t *self = dlq_calloc (1, sizeof *self);
        self->ops = linked [i];
        dlq_buf_t path = DLQ_BUF_INIT;
        dlq_buf_printf (&path, "linked:%s", type);
        self->path = dlq_buf_steal (&path, NULL);
        return self;
    }
    snprintf (err, err_len, "no sink of type \"%s\" is linked into this program", type);
    return NULL;
}

dlq_plugin_t *
dlq_plugin_find (const char *type, const char *search, char *err, size_t err_len)
{
    if (linked)
        return find_linked (type, err, err_len);
    dlq_buf_t looked = DLQ_BUF_INIT;
    char *dirs = dlq_strdup (search ? search : "");
    char *save = NULL;
    for (char *dir = strtok_r (dirs, ":", &save); dir; dir = strtok_r (NULL, ":", &save)) {
        char path [4096];
        snprintf (path, sizeof path, "%s/%s%s%s", dir, DLQ_SINK_FILE_PREFIX, type, DLQ_SINK_FILE_SUFFIX);
        dlq_buf_printf (&looked, "%s%s", looked.len ? ", " : "", path);
        if (access (path, F_OK) == 0) {
            free (dirs);
            dlq_buf_free (&looked);
            return dlq_plugin_load (path, err, err_len);
        }
    }
    snprintf (err, err_len, "no sink of type \"%s\": looked for %s", type,
              looked.data ? looked.data : "(no plugin directory)");
    free (dirs);
    dlq_buf_free (&looked);
    return NULL;
}

const dlq_sink_ops_t *dlq_plugin_ops (const dlq_plugin_t *self) { return self->ops; }
const char *dlq_plugin_path (const dlq_plugin_t *self) { return self->path; }

void
dlq_plugin_destroy (dlq_plugin_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_plugin_t *self = *self_p;
    if (self->handle)
        dlclose (self->handle);
    free (self->path);
    free (self);
    *self_p = NULL;
}
