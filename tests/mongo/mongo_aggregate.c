/*  mongo_aggregate — $match, $sort, $skip, $limit, $project, $count and
 *  $group (mongo_group.h) over documents in memory; see mongo_aggregate.h.
 */
#include "mongo_aggregate.h"

#include "mongo_group.h"
#include "mongo_match.h"
#include "mongo_projection.h"

#include <stdlib.h>
#include <string.h>

/* A stage: its name and its argument. */
typedef struct {
    const char         *name;
    const bson_value_t *arg;
    bson_t              arg_doc;        /* arg as a document, when it is one */
} stage_t;

static bool
stage_of (bson_iter_t *element, stage_t *stage)
{
    bson_iter_t inner;
    uint32_t len;
    const uint8_t *data;
    if (!BSON_ITER_HOLDS_DOCUMENT (element))
        return false;
    bson_iter_document (element, &len, &data);
    if (!bson_iter_init_from_data (&inner, data, len) || !bson_iter_next (&inner))
        return false;
    stage->name = bson_iter_key (&inner);
    stage->arg = bson_iter_value (&inner);
    if (stage->arg->value_type != BSON_TYPE_DOCUMENT
        || !bson_init_static (&stage->arg_doc, stage->arg->value.v_doc.data,
                              stage->arg->value.v_doc.data_len))
        bson_init (&stage->arg_doc);
    return !bson_iter_next (&inner);    /* exactly one field */
}

static bool
is_number (const bson_value_t *v)
{
    return mongo_value_type_class (v->value_type) == mongo_value_type_class (BSON_TYPE_INT32);
}

static int64_t
integer_of (const bson_value_t *v)
{
    switch (v->value_type) {
    case BSON_TYPE_INT32:  return v->value.v_int32;
    case BSON_TYPE_INT64:  return v->value.v_int64;
    case BSON_TYPE_DOUBLE: return (int64_t) v->value.v_double;
    default:               return 0;
    }
}

static bool
check_stage (const stage_t *s, mongo_error_t *err)
{
    bool is_doc = s->arg->value_type == BSON_TYPE_DOCUMENT;
    if (strcmp (s->name, "$match") == 0 && is_doc)
        return mongo_filter_check (&s->arg_doc, err);
    if (strcmp (s->name, "$sort") == 0 && is_doc)
        return mongo_sort_check (&s->arg_doc, err);
    if (strcmp (s->name, "$project") == 0 && is_doc)
        return mongo_projection_check (&s->arg_doc, err);
    if ((strcmp (s->name, "$skip") == 0 && is_number (s->arg) && integer_of (s->arg) >= 0)
        || (strcmp (s->name, "$limit") == 0 && is_number (s->arg) && integer_of (s->arg) > 0)
        || (strcmp (s->name, "$count") == 0 && s->arg->value_type == BSON_TYPE_UTF8))
        return true;
    if (strcmp (s->name, "$group") == 0 && is_doc)
        return mongo_group_check (&s->arg_doc, err);
    mongo_error_set (err, MONGO_ERR_NOT_IMPLEMENTED,
                     "the MongoDB test server does not run this %s stage", s->name);
    return false;
}

bool
mongo_aggregate_check (const bson_t *pipeline, mongo_error_t *err)
{
    bson_iter_t it;
    bson_iter_init (&it, pipeline);
    while (bson_iter_next (&it)) {
        stage_t stage;
        if (!stage_of (&it, &stage)) {
            mongo_error_set (err, MONGO_ERR_BAD_VALUE,
                             "A pipeline stage specification object must contain exactly one field.");
            return false;
        }
        if (!check_stage (&stage, err))
            return false;
    }
    return true;
}

bool
mongo_aggregate_leading_match (const bson_t *pipeline, bson_t *filter)
{
    bson_iter_t it;
    stage_t stage;
    if (!bson_iter_init (&it, pipeline) || !bson_iter_next (&it) || !stage_of (&it, &stage)
        || strcmp (stage.name, "$match") != 0)
        return false;
    /* a view of the same bytes: a static bson_t must not be copied by value */
    return bson_init_static (filter, bson_get_data (&stage.arg_doc), stage.arg_doc.len);
}

/* ------------------------------------------------------------------ */
/*  Running                                                             */
/* ------------------------------------------------------------------ */

typedef struct {
    bson_t **docs;
    size_t   count;
} docs_t;

static void
drop_range (docs_t *d, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        bson_destroy (d->docs [i]);
}

static void
run_match (docs_t *d, const bson_t *filter)
{
    size_t kept = 0;
    for (size_t i = 0; i < d->count; i++) {
        if (mongo_filter_matches (filter, d->docs [i]))
            d->docs [kept++] = d->docs [i];
        else
            bson_destroy (d->docs [i]);
    }
    d->count = kept;
}

typedef struct {
    bson_t *doc;
    size_t  position;
} ranked_t;

static int
compare_ranked (const void *a, const void *b, void *sort)
{
    const ranked_t *x = a, *y = b;
    int c = mongo_sort_compare (sort, x->doc, y->doc);
    return c ? c : (x->position > y->position) - (x->position < y->position);
}

static void
run_sort (docs_t *d, const bson_t *sort)
{
    ranked_t *ranked = bson_malloc0 ((d->count + 1) * sizeof *ranked);
    for (size_t i = 0; i < d->count; i++)
        ranked [i] = (ranked_t) { d->docs [i], i };
    qsort_r (ranked, d->count, sizeof *ranked, compare_ranked, (void *) sort);
    for (size_t i = 0; i < d->count; i++)
        d->docs [i] = ranked [i].doc;
    bson_free (ranked);
}

static void
run_skip (docs_t *d, size_t skip)
{
    if (skip > d->count)
        skip = d->count;
    if (skip == 0)
        return;
    drop_range (d, 0, skip);
    memmove (d->docs, d->docs + skip, (d->count - skip) * sizeof *d->docs);
    d->count -= skip;
}

static void
run_limit (docs_t *d, size_t limit)
{
    if (limit < d->count) {
        drop_range (d, limit, d->count);
        d->count = limit;
    }
}

static void
run_project (docs_t *d, const bson_t *projection)
{
    for (size_t i = 0; i < d->count; i++) {
        bson_t *projected = mongo_projection_apply (projection, d->docs [i]);
        bson_destroy (d->docs [i]);
        d->docs [i] = projected;
    }
}

/* Replace every document by one (none when there were none). */
static void
replace_all (docs_t *d, bson_t *only)
{
    bool empty = d->count == 0;
    drop_range (d, 0, d->count);
    d->count = 0;
    if (empty) {
        bson_destroy (only);
        return;
    }
    d->docs = bson_realloc (d->docs, sizeof *d->docs);
    d->docs [0] = only;
    d->count = 1;
}

static void
append_count (bson_t *doc, const char *key, int64_t n)
{
    if (n >= INT32_MIN && n <= INT32_MAX)
        bson_append_int32 (doc, key, -1, (int32_t) n);
    else
        bson_append_int64 (doc, key, -1, n);
}

static void
run_count (docs_t *d, const char *field)
{
    bson_t *out = bson_new ();
    append_count (out, field, (int64_t) d->count);
    replace_all (d, out);
}

static void
run_group (docs_t *d, const bson_t *group)
{
    size_t count = 0;
    bson_t **groups = mongo_group_run (group, d->docs, d->count, &count);
    drop_range (d, 0, d->count);
    bson_free (d->docs);
    d->docs = groups;
    d->count = count;
}

static void
run_stage (docs_t *d, const stage_t *s)
{
    if (strcmp (s->name, "$match") == 0)
        run_match (d, &s->arg_doc);
    else if (strcmp (s->name, "$sort") == 0)
        run_sort (d, &s->arg_doc);
    else if (strcmp (s->name, "$skip") == 0)
        run_skip (d, (size_t) integer_of (s->arg));
    else if (strcmp (s->name, "$limit") == 0)
        run_limit (d, (size_t) integer_of (s->arg));
    else if (strcmp (s->name, "$project") == 0)
        run_project (d, &s->arg_doc);
    else if (strcmp (s->name, "$count") == 0)
        run_count (d, s->arg->value.v_utf8.str);
    else
        run_group (d, &s->arg_doc);
}

bson_t **
mongo_aggregate_run (const bson_t *pipeline, size_t first, bson_t **docs, size_t count,
                     size_t *count_out)
{
    docs_t d = { docs, count };
    bson_iter_t it;
    size_t number = 0;
    bson_iter_init (&it, pipeline);
    while (bson_iter_next (&it)) {
        stage_t stage;
        if (number++ >= first && stage_of (&it, &stage))
            run_stage (&d, &stage);
    }
    *count_out = d.count;
    return d.docs;
}
