/*  mongo_store — in-memory databases, collections, documents and index
 *  specs; see mongo_store.h.
 *
 *  A collection keeps its documents in a doubly linked list (insertion
 *  order) and, for _id, in a chained hash table of the same nodes.
 */
#include "mongo_store.h"

#include "mongo_match.h"
#include "mongo_update.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define FIRST_BUCKETS           64      /* a power of two */
#define LOCATION_INVALID_OPTIONS 72     /* InvalidOptions */

typedef struct doc_node {
    bson_t          *doc;
    uint64_t         id_hash;
    struct doc_node *prev, *next;       /* insertion order */
    struct doc_node *bucket_next;       /* the _id hash chain */
} doc_node_t;

typedef struct {
    char        *name;
    doc_node_t  *first, *last;
    size_t       count;
    doc_node_t **buckets;
    size_t       bucket_count;          /* a power of two */
    bson_t     **indexes;               /* specs; [0] is the _id index */
    size_t       index_count;
} collection_t;

typedef struct {
    char          *name;
    collection_t **collections;
    size_t         count;
} database_t;

struct mongo_store {
    pthread_mutex_t lock;
    database_t    **databases;
    size_t          count;
};

/* ------------------------------------------------------------------ */
/*  Lifetime                                                            */
/* ------------------------------------------------------------------ */

mongo_store_t *
mongo_store_new (void)
{
    mongo_store_t *self = bson_malloc0 (sizeof *self);
    pthread_mutex_init (&self->lock, NULL);
    return self;
}

void
mongo_store_docs_free (bson_t **docs, size_t count)
{
    for (size_t i = 0; docs && i < count; i++)
        bson_destroy (docs [i]);
    bson_free (docs);
}

void
mongo_store_names_free (char **names, size_t count)
{
    for (size_t i = 0; names && i < count; i++)
        bson_free (names [i]);
    bson_free (names);
}

static void
collection_destroy (collection_t *coll)
{
    doc_node_t *node = coll->first;
    while (node) {
        doc_node_t *next = node->next;
        bson_destroy (node->doc);
        bson_free (node);
        node = next;
    }
    mongo_store_docs_free (coll->indexes, coll->index_count);
    bson_free (coll->buckets);
    bson_free (coll->name);
    bson_free (coll);
}

static void
database_destroy (database_t *db)
{
    for (size_t i = 0; i < db->count; i++)
        collection_destroy (db->collections [i]);
    bson_free (db->collections);
    bson_free (db->name);
    bson_free (db);
}

void
mongo_store_destroy (mongo_store_t **self_p)
{
    mongo_store_t *self = self_p ? *self_p : NULL;
    if (!self)
        return;
    for (size_t i = 0; i < self->count; i++)
        database_destroy (self->databases [i]);
    bson_free (self->databases);
    pthread_mutex_destroy (&self->lock);
    bson_free (self);
    *self_p = NULL;
}

/* ------------------------------------------------------------------ */
/*  Finding and making collections (lock held)                          */
/* ------------------------------------------------------------------ */

static database_t *
find_database (mongo_store_t *self, const char *name)
{
    for (size_t i = 0; i < self->count; i++)
        if (strcmp (self->databases [i]->name, name) == 0)
            return self->databases [i];
    return NULL;
}

static collection_t *
find_collection (mongo_store_t *self, const char *db_name, const char *name)
{
    database_t *db = find_database (self, db_name);
    for (size_t i = 0; db && i < db->count; i++)
        if (strcmp (db->collections [i]->name, name) == 0)
            return db->collections [i];
    return NULL;
}

static bson_t *
id_index_spec (void)
{
    return BCON_NEW ("v", BCON_INT32 (2), "key", "{", "_id", BCON_INT32 (1), "}",
                     "name", BCON_UTF8 ("_id_"));
}

static collection_t *
collection_new (const char *name)
{
    collection_t *coll = bson_malloc0 (sizeof *coll);
    coll->name = bson_strdup (name);
    coll->bucket_count = FIRST_BUCKETS;
    coll->buckets = bson_malloc0 (coll->bucket_count * sizeof *coll->buckets);
    coll->indexes = bson_malloc0 (sizeof *coll->indexes);
    coll->indexes [0] = id_index_spec ();
    coll->index_count = 1;
    return coll;
}

static database_t *
database_get (mongo_store_t *self, const char *name)
{
    database_t *db = find_database (self, name);
    if (db)
        return db;
    db = bson_malloc0 (sizeof *db);
    db->name = bson_strdup (name);
    self->databases = bson_realloc (self->databases, (self->count + 1) * sizeof *self->databases);
    self->databases [self->count++] = db;
    return db;
}

/* db.name, created when missing (*created says so). */
static collection_t *
collection_get (mongo_store_t *self, const char *db_name, const char *name, bool *created)
{
    collection_t *coll = find_collection (self, db_name, name);
    if (created)
        *created = !coll;
    if (coll)
        return coll;
    database_t *db = database_get (self, db_name);
    coll = collection_new (name);
    db->collections = bson_realloc (db->collections, (db->count + 1) * sizeof *db->collections);
    db->collections [db->count++] = coll;
    return coll;
}

/* ------------------------------------------------------------------ */
/*  Documents (lock held)                                               */
/* ------------------------------------------------------------------ */

static bool
id_of (const bson_t *doc, bson_value_t *id)
{
    bson_iter_t it;
    if (!bson_iter_init_find (&it, doc, "_id"))
        return false;
    *id = *bson_iter_value (&it);
    return true;
}

static doc_node_t **
bucket_of (collection_t *coll, uint64_t hash)
{
    return &coll->buckets [hash & (coll->bucket_count - 1)];
}

static doc_node_t *
find_by_id (collection_t *coll, const bson_value_t *id, uint64_t hash)
{
    for (doc_node_t *n = *bucket_of (coll, hash); n; n = n->bucket_next) {
        bson_value_t other;
        if (n->id_hash == hash && id_of (n->doc, &other) && mongo_value_equal (id, &other))
            return n;
    }
    return NULL;
}

static void
grow_buckets (collection_t *coll)
{
    size_t old_count = coll->bucket_count;
    doc_node_t **old = coll->buckets;
    coll->bucket_count *= 2;
    coll->buckets = bson_malloc0 (coll->bucket_count * sizeof *coll->buckets);
    for (size_t i = 0; i < old_count; i++)
        for (doc_node_t *n = old [i], *next; n; n = next) {
            next = n->bucket_next;
            doc_node_t **bucket = bucket_of (coll, n->id_hash);
            n->bucket_next = *bucket;
            *bucket = n;
        }
    bson_free (old);
}

static void
link_node (collection_t *coll, doc_node_t *node)
{
    if (coll->count >= coll->bucket_count)
        grow_buckets (coll);
    doc_node_t **bucket = bucket_of (coll, node->id_hash);
    node->bucket_next = *bucket;
    *bucket = node;
    node->prev = coll->last;
    if (coll->last)
        coll->last->next = node;
    else
        coll->first = node;
    coll->last = node;
    coll->count++;
}

static void
unlink_node (collection_t *coll, doc_node_t *node)
{
    doc_node_t **link = bucket_of (coll, node->id_hash);
    while (*link != node)
        link = &(*link)->bucket_next;
    *link = node->bucket_next;
    if (node->prev)
        node->prev->next = node->next;
    else
        coll->first = node->next;
    if (node->next)
        node->next->prev = node->prev;
    else
        coll->last = node->prev;
    coll->count--;
}

bool
mongo_store_insert (mongo_store_t *self, const char *db, const char *coll_name, const bson_t *doc)
{
    bson_value_t id;
    if (!id_of (doc, &id))
        return false;
    uint64_t hash = mongo_value_hash (&id);
    pthread_mutex_lock (&self->lock);
    collection_t *coll = collection_get (self, db, coll_name, NULL);
    bool fresh = !find_by_id (coll, &id, hash);
    if (fresh) {
        doc_node_t *node = bson_malloc0 (sizeof *node);
        node->doc = bson_copy (doc);
        node->id_hash = hash;
        link_node (coll, node);
    }
    pthread_mutex_unlock (&self->lock);
    return fresh;
}

/* ------------------------------------------------------------------ */
/*  Queries (lock held)                                                 */
/* ------------------------------------------------------------------ */

/* The documents a filter may match: when it is {_id: <value>} only the
 * one with that _id (found through the hash), else every one. */
typedef struct {
    bool        by_id;
} candidates_t;

/* Whether filter is {_id: <value>}, <value> no operator document (nor an
 * array, a regex or null, which match otherwise than by equality). */
static bool
id_only_filter (const bson_t *filter, bson_value_t *id)
{
    bson_iter_t it, inner;
    if (!filter || !bson_iter_init (&it, filter) || !bson_iter_next (&it)
        || strcmp (bson_iter_key (&it), "_id") != 0)
        return false;
    bson_type_t type = bson_iter_type (&it);
    if (type == BSON_TYPE_ARRAY || type == BSON_TYPE_REGEX || type == BSON_TYPE_NULL
        || type == BSON_TYPE_UNDEFINED)
        return false;
    if (type == BSON_TYPE_DOCUMENT && bson_iter_recurse (&it, &inner) && bson_iter_next (&inner)
        && bson_iter_key (&inner) [0] == '$')
        return false;
    *id = *bson_iter_value (&it);
    return !bson_iter_next (&it);
}

static doc_node_t *
first_candidate (collection_t *coll, const bson_t *filter, candidates_t *c)
{
    bson_value_t id;
    c->by_id = coll && id_only_filter (filter, &id);
    if (c->by_id)
        return find_by_id (coll, &id, mongo_value_hash (&id));
    return coll ? coll->first : NULL;
}

static doc_node_t *
next_candidate (const doc_node_t *node, const candidates_t *c)
{
    return c->by_id ? NULL : node->next;
}

typedef struct {
    const bson_t *doc;
    size_t        position;     /* insertion order: ties keep it */
} ranked_t;

static int
compare_ranked (const void *a, const void *b, void *sort)
{
    const ranked_t *x = a, *y = b;
    int c = mongo_sort_compare (sort, x->doc, y->doc);
    if (c)
        return c;
    return (x->position > y->position) - (x->position < y->position);
}

/* The matching documents of coll, sorted when the query says so;
 * pointers into the store. */
static ranked_t *
select_documents (collection_t *coll, const mongo_query_t *query, size_t *count_out)
{
    ranked_t *picked = bson_malloc0 ((coll->count + 1) * sizeof *picked);
    size_t count = 0;
    candidates_t c;
    for (doc_node_t *n = first_candidate (coll, query->filter, &c); n; n = next_candidate (n, &c))
        if (mongo_filter_matches (query->filter, n->doc)) {
            picked [count].doc = n->doc;
            picked [count].position = count;
            count++;
        }
    if (query->sort && !bson_empty (query->sort))
        qsort_r (picked, count, sizeof *picked, compare_ranked, (void *) query->sort);
    *count_out = count;
    return picked;
}

/* The window [first, first + *count) of count selected documents that
 * skip and limit leave. */
static size_t
window (const mongo_query_t *query, size_t count, size_t *first)
{
    size_t skip = query->skip > 0 ? (size_t) query->skip : 0;
    *first = skip < count ? skip : count;
    size_t left = count - *first;
    if (query->limit > 0 && (size_t) query->limit < left)
        left = (size_t) query->limit;
    return left;
}

bson_t **
mongo_store_find (mongo_store_t *self, const char *db, const char *coll_name,
                  const mongo_query_t *query, size_t *count_out)
{
    bson_t **docs = NULL;
    size_t selected = 0, first = 0, count = 0;
    pthread_mutex_lock (&self->lock);
    collection_t *coll = find_collection (self, db, coll_name);
    if (coll) {
        ranked_t *picked = select_documents (coll, query, &selected);
        count = window (query, selected, &first);
        docs = bson_malloc0 ((count + 1) * sizeof *docs);
        for (size_t i = 0; i < count; i++)
            docs [i] = bson_copy (picked [first + i].doc);
        bson_free (picked);
    }
    pthread_mutex_unlock (&self->lock);
    *count_out = count;
    return docs;
}

size_t
mongo_store_count (mongo_store_t *self, const char *db, const char *coll_name,
                   const mongo_query_t *query)
{
    size_t matched = 0, first;
    candidates_t c;
    const bson_t *filter = query ? query->filter : NULL;
    pthread_mutex_lock (&self->lock);
    collection_t *coll = find_collection (self, db, coll_name);
    if (coll && !filter)
        matched = coll->count;
    else
        for (doc_node_t *n = first_candidate (coll, filter, &c); n; n = next_candidate (n, &c))
            matched += mongo_filter_matches (filter, n->doc);
    pthread_mutex_unlock (&self->lock);
    return query ? window (query, matched, &first) : matched;
}

size_t
mongo_store_delete (mongo_store_t *self, const char *db, const char *coll_name,
                    const bson_t *filter, bool just_one)
{
    size_t removed = 0;
    candidates_t c;
    pthread_mutex_lock (&self->lock);
    collection_t *coll = find_collection (self, db, coll_name);
    for (doc_node_t *n = first_candidate (coll, filter, &c), *next; n; n = next) {
        next = next_candidate (n, &c);
        if (!mongo_filter_matches (filter, n->doc))
            continue;
        unlink_node (coll, n);
        bson_destroy (n->doc);
        bson_free (n);
        removed++;
        if (just_one)
            break;
    }
    pthread_mutex_unlock (&self->lock);
    return removed;
}

static bool
same_bytes (const bson_t *a, const bson_t *b)
{
    return a->len == b->len && memcmp (bson_get_data (a), bson_get_data (b), a->len) == 0;
}

bool
mongo_store_update (mongo_store_t *self, const char *db, const char *coll_name,
                    const bson_t *filter, const bson_t *update, bool multi, size_t *matched,
                    size_t *modified, mongo_error_t *err)
{
    bool ok = true;
    candidates_t c;
    *matched = *modified = 0;
    pthread_mutex_lock (&self->lock);
    collection_t *coll = find_collection (self, db, coll_name);
    for (doc_node_t *n = first_candidate (coll, filter, &c); ok && n; n = next_candidate (n, &c)) {
        if (!mongo_filter_matches (filter, n->doc))
            continue;
        (*matched)++;
        bson_t *updated = mongo_update_apply (update, n->doc, false, err);
        ok = updated != NULL;
        if (ok && !same_bytes (updated, n->doc)) {
            bson_destroy (n->doc);      /* _id is unchanged: so is its hash */
            n->doc = updated;
            (*modified)++;
        } else if (updated)
            bson_destroy (updated);
        if (!multi)
            break;
    }
    pthread_mutex_unlock (&self->lock);
    return ok;
}

/* The first node of coll matching filter under sort (NULL: insertion
 * order), found in one pass: no sort of every match. */
static doc_node_t *
first_match (collection_t *coll, const bson_t *filter, const bson_t *sort)
{
    doc_node_t *best = NULL;
    candidates_t c;
    bool sorted = sort && !bson_empty (sort);
    for (doc_node_t *n = first_candidate (coll, filter, &c); n; n = next_candidate (n, &c)) {
        if (!mongo_filter_matches (filter, n->doc))
            continue;
        if (!sorted)
            return n;
        if (!best || mongo_sort_compare (sort, n->doc, best->doc) < 0)
            best = n;
    }
    return best;
}

bool
mongo_store_find_and_modify (mongo_store_t *self, const char *db, const char *coll_name,
                             const mongo_modify_t *modify, bson_t **before, bson_t **after,
                             mongo_error_t *err)
{
    bool ok = true;
    *before = *after = NULL;
    pthread_mutex_lock (&self->lock);
    collection_t *coll = find_collection (self, db, coll_name);
    doc_node_t *n = coll ? first_match (coll, modify->filter, modify->sort) : NULL;
    if (n && modify->remove) {
        *before = n->doc;
        unlink_node (coll, n);
        bson_free (n);
    } else if (n) {
        bson_t *updated = mongo_update_apply (modify->update, n->doc, false, err);
        ok = updated != NULL;
        if (ok) {
            *before = n->doc;       /* _id is unchanged: so is its hash */
            n->doc = updated;
            *after = bson_copy (updated);
        }
    }
    pthread_mutex_unlock (&self->lock);
    return ok;
}

/* ------------------------------------------------------------------ */
/*  Collections and databases                                           */
/* ------------------------------------------------------------------ */

bool
mongo_store_has_collection (mongo_store_t *self, const char *db, const char *coll)
{
    pthread_mutex_lock (&self->lock);
    bool has = find_collection (self, db, coll) != NULL;
    pthread_mutex_unlock (&self->lock);
    return has;
}

bool
mongo_store_create_collection (mongo_store_t *self, const char *db, const char *coll)
{
    bool created;
    pthread_mutex_lock (&self->lock);
    collection_get (self, db, coll, &created);
    pthread_mutex_unlock (&self->lock);
    return created;
}

/* Remove collection number i of db. */
static void
remove_collection (database_t *db, size_t i)
{
    collection_destroy (db->collections [i]);
    memmove (db->collections + i, db->collections + i + 1,
             (db->count - i - 1) * sizeof *db->collections);
    db->count--;
}

bool
mongo_store_drop_collection (mongo_store_t *self, const char *db_name, const char *coll)
{
    bool dropped = false;
    pthread_mutex_lock (&self->lock);
    database_t *db = find_database (self, db_name);
    for (size_t i = 0; db && i < db->count && !dropped; i++)
        if (strcmp (db->collections [i]->name, coll) == 0) {
            remove_collection (db, i);
            dropped = true;
        }
    pthread_mutex_unlock (&self->lock);
    return dropped;
}

void
mongo_store_drop_database (mongo_store_t *self, const char *db_name)
{
    pthread_mutex_lock (&self->lock);
    database_t *db = find_database (self, db_name);
    while (db && db->count > 0)
        remove_collection (db, db->count - 1);
    pthread_mutex_unlock (&self->lock);
}

char **
mongo_store_collection_names (mongo_store_t *self, const char *db_name, size_t *count_out)
{
    pthread_mutex_lock (&self->lock);
    database_t *db = find_database (self, db_name);
    size_t count = db ? db->count : 0;
    char **names = bson_malloc0 ((count + 1) * sizeof *names);
    for (size_t i = 0; i < count; i++)
        names [i] = bson_strdup (db->collections [i]->name);
    pthread_mutex_unlock (&self->lock);
    *count_out = count;
    return names;
}

char **
mongo_store_database_names (mongo_store_t *self, size_t *count_out)
{
    size_t count = 0;
    pthread_mutex_lock (&self->lock);
    char **names = bson_malloc0 ((self->count + 1) * sizeof *names);
    for (size_t i = 0; i < self->count; i++)
        if (self->databases [i]->count > 0)
            names [count++] = bson_strdup (self->databases [i]->name);
    pthread_mutex_unlock (&self->lock);
    *count_out = count;
    return names;
}

/* ------------------------------------------------------------------ */
/*  Indexes                                                             */
/* ------------------------------------------------------------------ */

static const char *
string_field (const bson_t *doc, const char *name)
{
    bson_iter_t it;
    if (bson_iter_init_find (&it, doc, name) && BSON_ITER_HOLDS_UTF8 (&it))
        return bson_iter_utf8 (&it, NULL);
    return "";
}

static bool
same_field (const bson_t *a, const bson_t *b, const char *name)
{
    bson_iter_t x, y;
    bool has_x = bson_iter_init_find (&x, a, name), has_y = bson_iter_init_find (&y, b, name);
    if (!has_x || !has_y)
        return has_x == has_y;
    return mongo_value_equal (bson_iter_value (&x), bson_iter_value (&y));
}

static bool
is_identity_field (const char *name)
{
    return strcmp (name, "v") == 0 || strcmp (name, "name") == 0 || strcmp (name, "key") == 0
           || strcmp (name, "background") == 0;
}

/* Every option (a field but v, name, key, background) of a is in b, equal. */
static bool
options_within (const bson_t *a, const bson_t *b)
{
    bson_iter_t it;
    bson_iter_init (&it, a);
    while (bson_iter_next (&it))
        if (!is_identity_field (bson_iter_key (&it)) && !same_field (a, b, bson_iter_key (&it)))
            return false;
    return true;
}

static bool
same_options (const bson_t *a, const bson_t *b)
{
    return options_within (a, b) && options_within (b, a);
}

static char *
json_of (const bson_t *doc)
{
    char *json = bson_as_relaxed_extended_json (doc, NULL);
    return json ? json : bson_strdup ("?");
}

/* Whether spec is there already among existing; false with err when it
 * conflicts with one of them. */
static bool
index_conflicts (bson_t *const *existing, size_t count, const bson_t *spec, bool *present,
                 mongo_error_t *err)
{
    *present = false;
    for (size_t i = 0; i < count; i++) {
        const bson_t *old = existing [i];
        bool same_name = strcmp (string_field (old, "name"), string_field (spec, "name")) == 0;
        bool same_key = same_field (old, spec, "key");
        if (same_name && same_key && same_options (old, spec)) {
            *present = true;
            return false;
        }
        if (!same_name && !same_key)
            continue;
        char *old_json = json_of (old), *spec_json = json_of (spec);
        if (same_name && !same_key)
            mongo_error_set (err, MONGO_ERR_INDEX_KEY_SPECS_CONFLICT,
                             "An existing index has the same name as the requested index."
                             " Requested index: %s, existing index: %s", spec_json, old_json);
        else if (same_name)
            mongo_error_set (err, MONGO_ERR_INDEX_OPTIONS_CONFLICT,
                             "An equivalent index already exists with the same name but different"
                             " options. Requested index: %s, existing index: %s", spec_json, old_json);
        else
            mongo_error_set (err, MONGO_ERR_INDEX_OPTIONS_CONFLICT,
                             "Index already exists with a different name: %s",
                             string_field (old, "name"));
        bson_free (old_json);
        bson_free (spec_json);
        return true;
    }
    return false;
}

/* The specs not there yet (pointers to specs), or false with err. */
static bool
new_index_specs (collection_t *coll, const bson_t *const *specs, size_t count, bson_t **fresh,
                 size_t *fresh_count, mongo_error_t *err)
{
    *fresh_count = 0;
    for (size_t i = 0; i < count; i++) {
        bool present, present_in_call;
        if (index_conflicts (coll->indexes, coll->index_count, specs [i], &present, err)
            || index_conflicts (fresh, *fresh_count, specs [i], &present_in_call, err))
            return false;
        if (!present && !present_in_call)
            fresh [(*fresh_count)++] = (bson_t *) specs [i];
    }
    return true;
}

bool
mongo_store_create_indexes (mongo_store_t *self, const char *db, const char *coll_name,
                            const bson_t *const *specs, size_t count,
                            mongo_index_result_t *result, mongo_error_t *err)
{
    bson_t **fresh = bson_malloc0 ((count + 1) * sizeof *fresh);
    size_t fresh_count = 0;
    pthread_mutex_lock (&self->lock);
    collection_t *coll = collection_get (self, db, coll_name, &result->created_collection);
    result->before = coll->index_count;
    bool ok = new_index_specs (coll, specs, count, fresh, &fresh_count, err);
    if (ok && fresh_count > 0) {
        coll->indexes = bson_realloc (coll->indexes,
                                      (coll->index_count + fresh_count) * sizeof *coll->indexes);
        for (size_t i = 0; i < fresh_count; i++)
            coll->indexes [coll->index_count++] = bson_copy (fresh [i]);
    }
    result->after = coll->index_count;
    pthread_mutex_unlock (&self->lock);
    bson_free (fresh);
    return ok;
}

bson_t **
mongo_store_indexes (mongo_store_t *self, const char *db, const char *coll_name,
                     size_t *count_out)
{
    bson_t **specs = NULL;
    size_t count = 0;
    pthread_mutex_lock (&self->lock);
    collection_t *coll = find_collection (self, db, coll_name);
    if (coll) {
        count = coll->index_count;
        specs = bson_malloc0 ((count + 1) * sizeof *specs);
        for (size_t i = 0; i < count; i++)
            specs [i] = bson_copy (coll->indexes [i]);
    }
    pthread_mutex_unlock (&self->lock);
    *count_out = count;
    return specs;
}

/* Remove index number i (> 0) of coll. */
static void
remove_index (collection_t *coll, size_t i)
{
    bson_destroy (coll->indexes [i]);
    memmove (coll->indexes + i, coll->indexes + i + 1,
             (coll->index_count - i - 1) * sizeof *coll->indexes);
    coll->index_count--;
}

static bool
drop_index_of (collection_t *coll, const char *name, mongo_error_t *err)
{
    if (strcmp (name, "*") == 0) {
        while (coll->index_count > 1)
            remove_index (coll, coll->index_count - 1);
        return true;
    }
    if (strcmp (name, "_id_") == 0) {
        mongo_error_set (err, LOCATION_INVALID_OPTIONS, "cannot drop _id index");
        return false;
    }
    for (size_t i = 1; i < coll->index_count; i++)
        if (strcmp (string_field (coll->indexes [i], "name"), name) == 0) {
            remove_index (coll, i);
            return true;
        }
    mongo_error_set (err, MONGO_ERR_INDEX_NOT_FOUND, "index not found with name [%s]", name);
    return false;
}

bool
mongo_store_drop_index (mongo_store_t *self, const char *db, const char *coll_name,
                        const char *name, size_t *before, mongo_error_t *err)
{
    bool ok = false;
    pthread_mutex_lock (&self->lock);
    collection_t *coll = find_collection (self, db, coll_name);
    if (coll) {
        *before = coll->index_count;
        ok = drop_index_of (coll, name, err);
    } else
        mongo_error_set (err, MONGO_ERR_NAMESPACE_NOT_FOUND, "ns not found %s.%s", db, coll_name);
    pthread_mutex_unlock (&self->lock);
    return ok;
}
