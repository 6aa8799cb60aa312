/*  mongo_command_log — the commands received; see mongo_command_log.h. */
#include "mongo_command_log.h"

#include <pthread.h>
#include <string.h>

typedef mongo_command_record_t entry_t;

struct mongo_command_log {
    pthread_mutex_t lock;
    bool            enabled;
    entry_t        *entries;
    size_t          count, capacity;
};

mongo_command_log_t *
mongo_command_log_new (void)
{
    mongo_command_log_t *self = bson_malloc0 (sizeof *self);
    pthread_mutex_init (&self->lock, NULL);
    self->enabled = true;
    return self;
}

static void
free_entries (mongo_command_log_t *self)
{
    for (size_t i = 0; i < self->count; i++) {
        bson_free (self->entries [i].name);
        bson_free (self->entries [i].db);
        bson_free (self->entries [i].json);
    }
    self->count = 0;
}

void
mongo_command_log_destroy (mongo_command_log_t **self_p)
{
    mongo_command_log_t *self = self_p ? *self_p : NULL;
    if (!self)
        return;
    free_entries (self);
    bson_free (self->entries);
    pthread_mutex_destroy (&self->lock);
    bson_free (self);
    *self_p = NULL;
}

void
mongo_command_log_set_enabled (mongo_command_log_t *self, bool enabled)
{
    pthread_mutex_lock (&self->lock);
    self->enabled = enabled;
    pthread_mutex_unlock (&self->lock);
}

/* The JSON of command; a placeholder when libbson cannot write it (a
 * string that is not UTF-8). */
static char *
json_of (const bson_t *command)
{
    char *json = bson_as_canonical_extended_json (command, NULL);
    return json ? json : bson_strdup ("{\"$unprintable\": true}");
}

void
mongo_command_log_add (mongo_command_log_t *self, const char *name, const char *db,
                       const bson_t *command, int32_t connection_id, bool known)
{
    pthread_mutex_lock (&self->lock);
    bool enabled = self->enabled;
    pthread_mutex_unlock (&self->lock);
    if (!enabled)
        return;
    entry_t entry = { bson_strdup (name), bson_strdup (db ? db : ""), json_of (command),
                      connection_id, known };
    pthread_mutex_lock (&self->lock);
    if (self->count == self->capacity) {
        self->capacity = self->capacity ? self->capacity * 2 : 64;
        self->entries = bson_realloc (self->entries, self->capacity * sizeof *self->entries);
    }
    self->entries [self->count++] = entry;
    pthread_mutex_unlock (&self->lock);
}

static bool
selected (const entry_t *e, const char *name, bool unknown_only)
{
    if (unknown_only)
        return !e->known;
    return !name || strcmp (e->name, name) == 0;
}

static size_t
collect (mongo_command_log_t *self, const char *name, bool unknown_only, char ***json_out)
{
    size_t count = 0;
    pthread_mutex_lock (&self->lock);
    for (size_t i = 0; i < self->count; i++)
        count += selected (&self->entries [i], name, unknown_only);
    if (json_out) {
        char **json = bson_malloc0 ((count + 1) * sizeof *json);
        size_t n = 0;
        for (size_t i = 0; i < self->count; i++)
            if (selected (&self->entries [i], name, unknown_only))
                json [n++] = bson_strdup (self->entries [i].json);
        *json_out = json;
    }
    pthread_mutex_unlock (&self->lock);
    return count;
}

size_t
mongo_command_log_named (mongo_command_log_t *self, const char *name, char ***json_out)
{
    return collect (self, name, false, json_out);
}

size_t
mongo_command_log_unknown (mongo_command_log_t *self, char ***json_out)
{
    return collect (self, NULL, true, json_out);
}

static void
copy_record (mongo_command_record_t *to, const entry_t *from)
{
    *to = *from;
    to->name = bson_strdup (from->name);
    to->db = bson_strdup (from->db);
    to->json = bson_strdup (from->json);
}

size_t
mongo_command_log_records (mongo_command_log_t *self, const char *name,
                           mongo_command_record_t **records_out)
{
    size_t count = 0;
    pthread_mutex_lock (&self->lock);
    for (size_t i = 0; i < self->count; i++)
        count += selected (&self->entries [i], name, false);
    mongo_command_record_t *records = bson_malloc0 ((count + 1) * sizeof *records);
    size_t n = 0;
    for (size_t i = 0; i < self->count; i++)
        if (selected (&self->entries [i], name, false))
            copy_record (&records [n++], &self->entries [i]);
    pthread_mutex_unlock (&self->lock);
    *records_out = records;
    return count;
}

void
mongo_command_log_records_free (mongo_command_record_t *records, size_t count)
{
    for (size_t i = 0; records && i < count; i++) {
        bson_free (records [i].name);
        bson_free (records [i].db);
        bson_free (records [i].json);
    }
    bson_free (records);
}

void
mongo_command_log_strings_free (char **strings)
{
    for (size_t i = 0; strings && strings [i]; i++)
        bson_free (strings [i]);
    bson_free (strings);
}

void
mongo_command_log_clear (mongo_command_log_t *self)
{
    pthread_mutex_lock (&self->lock);
    free_entries (self);
    pthread_mutex_unlock (&self->lock);
}
