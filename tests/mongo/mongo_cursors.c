/*  mongo_cursors — open cursors and reply batches; see mongo_cursors.h. */
#include "mongo_cursors.h"

#include <pthread.h>
#include <string.h>

#define BATCH_BYTES     (16 * 1024 * 1024)
#define CODE_UNAUTHORIZED 13

typedef struct cursor {
    int64_t        id;
    char          *ns;
    bson_t       **docs;
    size_t         count;
    size_t         next;            /* the first document not handed out */
    struct cursor *link;
} cursor_t;

struct mongo_cursors {
    pthread_mutex_t lock;
    cursor_t       *first;
    size_t          count;
    int64_t         last_id;
};

mongo_cursors_t *
mongo_cursors_new (void)
{
    mongo_cursors_t *self = bson_malloc0 (sizeof *self);
    pthread_mutex_init (&self->lock, NULL);
    /* ids look like a server's: large, and not the same in every run */
    self->last_id = (int64_t) (((uint64_t) bson_get_monotonic_time () & 0xffffffu) << 24);
    return self;
}

static void
free_docs (bson_t **docs, size_t from, size_t count)
{
    for (size_t i = from; i < count; i++)
        bson_destroy (docs [i]);
    bson_free (docs);
}

static void
cursor_free (cursor_t *c)
{
    free_docs (c->docs, c->next, c->count);
    bson_free (c->ns);
    bson_free (c);
}

void
mongo_cursors_destroy (mongo_cursors_t **self_p)
{
    mongo_cursors_t *self = self_p ? *self_p : NULL;
    if (!self)
        return;
    for (cursor_t *c = self->first, *next; c; c = next) {
        next = c->link;
        cursor_free (c);
    }
    pthread_mutex_destroy (&self->lock);
    bson_free (self);
    *self_p = NULL;
}

/* Move docs [*next, count) into the array key of cursor_doc, as many as
 * batch_size (<= 0: any) and the byte budget allow; they are freed. */
static void
append_batch (bson_t *cursor_doc, const char *key, bson_t **docs, size_t count, size_t *next,
              int64_t batch_size)
{
    bson_t array;
    size_t bytes = 0;
    uint32_t n = 0;
    bson_append_array_begin (cursor_doc, key, -1, &array);
    while (*next < count && (batch_size <= 0 || n < (uint64_t) batch_size)) {
        bson_t *doc = docs [*next];
        if (n > 0 && bytes + doc->len > BATCH_BYTES)
            break;
        char index [16];
        const char *index_p;
        bson_uint32_to_string (n++, &index_p, index, sizeof index);
        bson_append_document (&array, index_p, -1, doc);
        bytes += doc->len;
        bson_destroy (doc);
        docs [(*next)++] = NULL;
    }
    bson_append_array_end (cursor_doc, &array);
}

static void
finish_cursor_doc (bson_t *reply, bson_t *cursor_doc, int64_t id, const char *ns)
{
    BSON_APPEND_INT64 (cursor_doc, "id", id);
    BSON_APPEND_UTF8 (cursor_doc, "ns", ns);
    bson_append_document_end (reply, cursor_doc);
}

/* A new cursor holding the rest of docs; returns its id. */
static int64_t
open_cursor (mongo_cursors_t *self, const char *ns, bson_t **docs, size_t count, size_t next)
{
    cursor_t *c = bson_malloc0 (sizeof *c);
    c->ns = bson_strdup (ns);
    c->docs = docs;
    c->count = count;
    c->next = next;
    pthread_mutex_lock (&self->lock);
    c->id = ++self->last_id;
    c->link = self->first;
    self->first = c;
    self->count++;
    pthread_mutex_unlock (&self->lock);
    return c->id;
}

void
mongo_cursors_first_batch (mongo_cursors_t *self, const char *ns, bson_t **docs, size_t count,
                           int64_t batch_size, bool single_batch, bson_t *reply)
{
    bson_t cursor_doc;
    size_t next = 0;
    int64_t id = 0;
    if (batch_size < 0)
        batch_size = MONGO_CURSORS_DEFAULT_FIRST_BATCH;
    else if (batch_size == 0 && single_batch)
        batch_size = -1;        /* a single batch of "any size": everything that fits */
    BSON_APPEND_DOCUMENT_BEGIN (reply, "cursor", &cursor_doc);
    append_batch (&cursor_doc, "firstBatch", docs, count, &next, batch_size);
    if (next < count && !single_batch)
        id = open_cursor (self, ns, docs, count, next);
    else
        free_docs (docs, next, count);
    finish_cursor_doc (reply, &cursor_doc, id, ns);
}

/* The cursor id, unlinked from the list when unlink; lock held. */
static cursor_t *
find_cursor (mongo_cursors_t *self, int64_t id, bool unlink)
{
    for (cursor_t **link = &self->first; *link; link = &(*link)->link)
        if ((*link)->id == id) {
            cursor_t *c = *link;
            if (unlink) {
                *link = c->link;
                self->count--;
            }
            return c;
        }
    return NULL;
}

bool
mongo_cursors_next_batch (mongo_cursors_t *self, int64_t id, const char *ns, int64_t batch_size,
                          bson_t *reply, mongo_error_t *err)
{
    pthread_mutex_lock (&self->lock);
    cursor_t *c = find_cursor (self, id, false);
    if (!c || strcmp (c->ns, ns) != 0) {
        pthread_mutex_unlock (&self->lock);
        if (c)
            mongo_error_set (err, CODE_UNAUTHORIZED,
                             "Requested getMore on namespace '%s', but cursor belongs to a"
                             " different namespace", ns);
        else
            mongo_error_set (err, MONGO_ERR_CURSOR_NOT_FOUND, "cursor id %" PRId64 " not found", id);
        return false;
    }
    bson_t cursor_doc;
    BSON_APPEND_DOCUMENT_BEGIN (reply, "cursor", &cursor_doc);
    append_batch (&cursor_doc, "nextBatch", c->docs, c->count, &c->next, batch_size);
    bool exhausted = c->next >= c->count;
    if (exhausted)
        find_cursor (self, id, true);
    pthread_mutex_unlock (&self->lock);
    finish_cursor_doc (reply, &cursor_doc, exhausted ? 0 : id, ns);
    if (exhausted)
        cursor_free (c);
    return true;
}

bool
mongo_cursors_kill (mongo_cursors_t *self, int64_t id, const char *ns)
{
    pthread_mutex_lock (&self->lock);
    cursor_t *c = find_cursor (self, id, false);
    if (c && strcmp (c->ns, ns) == 0)
        find_cursor (self, id, true);
    else
        c = NULL;
    pthread_mutex_unlock (&self->lock);
    if (c)
        cursor_free (c);
    return c != NULL;
}

size_t
mongo_cursors_count (mongo_cursors_t *self)
{
    pthread_mutex_lock (&self->lock);
    size_t count = self->count;
    pthread_mutex_unlock (&self->lock);
    return count;
}
