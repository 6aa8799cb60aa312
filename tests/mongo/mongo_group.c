/*  mongo_group — $group by a field with accumulators; see mongo_group.h. */
#include "mongo_group.h"

#include "mongo_match.h"

#include <string.h>

typedef enum { ACC_SUM, ACC_MIN, ACC_MAX, ACC_FIRST, ACC_LAST, ACC_PUSH, ACC_ADD_TO_SET, ACC_UNKNOWN } acc_op_t;

static const struct { const char *name; acc_op_t op; } acc_names [] = {
    { "$sum", ACC_SUM }, { "$min", ACC_MIN }, { "$max", ACC_MAX }, { "$first", ACC_FIRST },
    { "$last", ACC_LAST }, { "$push", ACC_PUSH }, { "$addToSet", ACC_ADD_TO_SET },
};

/* One accumulator of the stage: its output field, operator, expression. */
typedef struct {
    const char  *name;
    acc_op_t     op;
    bson_value_t arg;           /* a view into the stage's document */
} acc_spec_t;

/* An accumulator's value so far, in one group. */
typedef struct {
    bool         have;          /* value holds something */
    bson_value_t value;         /* $min $max $first $last */
    int64_t      integer_sum;
    double       double_sum;
    bool         any_double, any_long, overflow;
    bson_t       array;         /* $push $addToSet */
    uint32_t     pushed;
} acc_state_t;

typedef struct {
    bson_value_t key;
    acc_state_t *states;
} group_t;

typedef struct {
    bson_value_t        id;     /* the _id expression (a view) */
    acc_spec_t         *specs;
    size_t              spec_count;
    group_t            *groups;
    size_t              count, capacity;
} grouping_t;

static acc_op_t
acc_op_of (const char *name)
{
    for (size_t i = 0; i < sizeof acc_names / sizeof acc_names [0]; i++)
        if (strcmp (acc_names [i].name, name) == 0)
            return acc_names [i].op;
    return ACC_UNKNOWN;
}

static bool
is_field_path (const bson_value_t *v)
{
    return v->value_type == BSON_TYPE_UTF8 && v->value.v_utf8.str [0] == '$';
}

/* A document whose first key starts with '$': an expression operator. */
static bool
is_expression_document (const bson_value_t *v)
{
    bson_iter_t it;
    return v->value_type == BSON_TYPE_DOCUMENT
           && bson_iter_init_from_data (&it, v->value.v_doc.data, v->value.v_doc.data_len)
           && bson_iter_next (&it) && bson_iter_key (&it) [0] == '$';
}

/* {$op: expression}: the operator and its argument (a view). */
static bool
accumulator_of (const bson_value_t *v, acc_op_t *op, bson_value_t *arg)
{
    bson_iter_t it;
    if (v->value_type != BSON_TYPE_DOCUMENT
        || !bson_iter_init_from_data (&it, v->value.v_doc.data, v->value.v_doc.data_len)
        || !bson_iter_next (&it))
        return false;
    *op = acc_op_of (bson_iter_key (&it));
    *arg = *bson_iter_value (&it);
    return !bson_iter_next (&it);
}

static bool
check_accumulator (const char *name, const bson_value_t *v, mongo_error_t *err)
{
    acc_op_t op;
    bson_value_t arg;
    if (!accumulator_of (v, &op, &arg)) {
        mongo_error_set (err, 40234, "The field '%s' must be an accumulator object", name);
        return false;
    }
    if (op == ACC_UNKNOWN || is_expression_document (&arg) || arg.value_type == BSON_TYPE_ARRAY) {
        mongo_error_set (err, MONGO_ERR_NOT_IMPLEMENTED,
                         "the MongoDB test server groups with $sum $min $max $first $last $push"
                         " $addToSet of a field path or a constant (field '%s')", name);
        return false;
    }
    return true;
}

bool
mongo_group_check (const bson_t *group, mongo_error_t *err)
{
    bson_iter_t it;
    bool has_id = false;
    bson_iter_init (&it, group);
    while (bson_iter_next (&it)) {
        const bson_value_t *v = bson_iter_value (&it);
        if (strcmp (bson_iter_key (&it), "_id") == 0) {
            if (v->value_type == BSON_TYPE_DOCUMENT || v->value_type == BSON_TYPE_ARRAY) {
                mongo_error_set (err, MONGO_ERR_NOT_IMPLEMENTED,
                                 "the MongoDB test server groups by one field path or a constant");
                return false;
            }
            has_id = true;
        } else if (!check_accumulator (bson_iter_key (&it), v, err))
            return false;
    }
    if (!has_id)
        mongo_error_set (err, 15955, "a group specification must include an _id");
    return has_id;
}

/* ------------------------------------------------------------------ */
/*  Evaluating                                                          */
/* ------------------------------------------------------------------ */

/* The value at a dotted path of the document data, through documents
 * only; false when missing (or behind an array). */
static bool
value_at (const uint8_t *data, uint32_t len, const char *path, bson_value_t *out)
{
    const char *dot = strchr (path, '.');
    int segment = dot ? (int) (dot - path) : (int) strlen (path);
    bson_iter_t it;
    if (!bson_iter_init_from_data (&it, data, len) || !bson_iter_find_w_len (&it, path, segment))
        return false;
    const bson_value_t *v = bson_iter_value (&it);
    if (!dot) {
        *out = *v;
        return true;
    }
    return v->value_type == BSON_TYPE_DOCUMENT && value_at (v->value.v_doc.data, v->value.v_doc.data_len, dot + 1, out);
}

/* The value of expr in doc: a field path (false when missing) or the
 * constant itself. */
static bool
value_of (const bson_value_t *expr, const bson_t *doc, bson_value_t *out)
{
    if (!is_field_path (expr)) {
        *out = *expr;
        return true;
    }
    return value_at (bson_get_data (doc), doc->len, expr->value.v_utf8.str + 1, out);
}

static void
add_number (acc_state_t *s, const bson_value_t *v)
{
    int64_t n = 0;
    switch (v->value_type) {
    case BSON_TYPE_INT32:  n = v->value.v_int32; break;
    case BSON_TYPE_INT64:  n = v->value.v_int64; s->any_long = true; break;
    case BSON_TYPE_DOUBLE:
        s->double_sum += v->value.v_double;
        s->any_double = true;
        return;
    default:
        return;
    }
    int64_t sum;
    if (__builtin_add_overflow (s->integer_sum, n, &sum)) {
        s->overflow = true;
        s->double_sum += (double) n;
        return;
    }
    s->integer_sum = sum;
}

/* bson_value_copy, which refuses the types that hold no data. */
static void
copy_value (const bson_value_t *v, bson_value_t *out)
{
    switch (v->value_type) {
    case BSON_TYPE_EOD: case BSON_TYPE_NULL: case BSON_TYPE_UNDEFINED: case BSON_TYPE_MINKEY: case BSON_TYPE_MAXKEY:
        *out = *v;
        break;
    default:
        bson_value_copy (v, out);
    }
}

static void
keep (acc_state_t *s, const bson_value_t *v)
{
    if (s->have)
        bson_value_destroy (&s->value);
    copy_value (v, &s->value);
    s->have = true;
}

static bool
in_array (const bson_t *array, const bson_value_t *v)
{
    bson_iter_t it;
    bson_iter_init (&it, array);
    while (bson_iter_next (&it))
        if (mongo_value_equal (bson_iter_value (&it), v))
            return true;
    return false;
}

static void
push (acc_state_t *s, const bson_value_t *v)
{
    char key [16];
    const char *key_p;
    bson_uint32_to_string (s->pushed++, &key_p, key, sizeof key);
    bson_append_value (&s->array, key_p, -1, v);
}

static bool
is_nullish (const bson_value_t *v)
{
    return v->value_type == BSON_TYPE_NULL || v->value_type == BSON_TYPE_UNDEFINED;
}

/* The document doc into one accumulator of its group. */
static void
accumulate (const acc_spec_t *spec, acc_state_t *s, const bson_t *doc, bool first)
{
    bson_value_t v = { .value_type = BSON_TYPE_NULL };
    bool found = value_of (&spec->arg, doc, &v);
    switch (spec->op) {
    case ACC_SUM:
        if (found)
            add_number (s, &v);
        break;
    case ACC_MIN:
    case ACC_MAX:
        if (found && !is_nullish (&v)) {
            int order = s->have ? mongo_value_compare (&v, &s->value) : 0;
            if (!s->have || (spec->op == ACC_MIN ? order < 0 : order > 0))
                keep (s, &v);
        }
        break;
    case ACC_FIRST:
        if (first)
            keep (s, &v);
        break;
    case ACC_LAST:
        keep (s, &v);
        break;
    case ACC_PUSH:
    case ACC_ADD_TO_SET:
        if (found && (spec->op == ACC_PUSH || !in_array (&s->array, &v)))
            push (s, &v);
        break;
    default:
        break;
    }
}

/* The group of key (made when new). */
static group_t *
group_of (grouping_t *g, const bson_value_t *key)
{
    for (size_t i = 0; i < g->count; i++)
        if (mongo_value_equal (&g->groups [i].key, key))
            return &g->groups [i];
    if (g->count == g->capacity) {
        g->capacity = g->capacity ? 2 * g->capacity : 16;
        g->groups = bson_realloc (g->groups, g->capacity * sizeof *g->groups);
    }
    group_t *fresh = &g->groups [g->count++];
    copy_value (key, &fresh->key);
    fresh->states = bson_malloc0 ((g->spec_count + 1) * sizeof *fresh->states);
    for (size_t k = 0; k < g->spec_count; k++)
        bson_init (&fresh->states [k].array);
    return fresh;
}

static void
append_sum (bson_t *out, const char *name, const acc_state_t *s)
{
    if (s->any_double || s->overflow)
        bson_append_double (out, name, -1, s->double_sum + (double) s->integer_sum);
    else if (s->any_long || s->integer_sum < INT32_MIN || s->integer_sum > INT32_MAX)
        bson_append_int64 (out, name, -1, s->integer_sum);
    else
        bson_append_int32 (out, name, -1, (int32_t) s->integer_sum);
}

/* The output document of one group; its states are freed. */
static bson_t *
finish (const grouping_t *g, group_t *group)
{
    bson_t *out = bson_new ();
    bson_append_value (out, "_id", 3, &group->key);
    for (size_t k = 0; k < g->spec_count; k++) {
        acc_state_t *s = &group->states [k];
        const acc_spec_t *spec = &g->specs [k];
        if (spec->op == ACC_SUM)
            append_sum (out, spec->name, s);
        else if (spec->op == ACC_PUSH || spec->op == ACC_ADD_TO_SET)
            bson_append_array (out, spec->name, -1, &s->array);
        else if (s->have)
            bson_append_value (out, spec->name, -1, &s->value);
        else
            bson_append_null (out, spec->name, -1);
        if (s->have)
            bson_value_destroy (&s->value);
        bson_destroy (&s->array);
    }
    bson_value_destroy (&group->key);
    bson_free (group->states);
    return out;
}

/* The stage's _id expression and accumulators into g. */
static void
read_spec (const bson_t *group, grouping_t *g)
{
    bson_iter_t it;
    g->specs = bson_malloc0 ((bson_count_keys (group) + 1) * sizeof *g->specs);
    bson_iter_init (&it, group);
    while (bson_iter_next (&it)) {
        if (strcmp (bson_iter_key (&it), "_id") == 0) {
            g->id = *bson_iter_value (&it);
            continue;
        }
        acc_spec_t *spec = &g->specs [g->spec_count++];
        spec->name = bson_iter_key (&it);
        accumulator_of (bson_iter_value (&it), &spec->op, &spec->arg);
    }
}

bson_t **
mongo_group_run (const bson_t *group, bson_t *const *docs, size_t count, size_t *count_out)
{
    grouping_t g = { 0 };
    read_spec (group, &g);
    for (size_t i = 0; i < count; i++) {
        bson_value_t key = { .value_type = BSON_TYPE_NULL };
        if (!value_of (&g.id, docs [i], &key))
            key.value_type = BSON_TYPE_NULL;
        size_t before = g.count;
        group_t *at = group_of (&g, &key);
        for (size_t k = 0; k < g.spec_count; k++)
            accumulate (&g.specs [k], &at->states [k], docs [i], g.count > before);
    }
    bson_t **out = bson_malloc0 ((g.count + 1) * sizeof *out);
    for (size_t i = 0; i < g.count; i++)
        out [i] = finish (&g, &g.groups [i]);
    *count_out = g.count;
    bson_free (g.groups);
    bson_free (g.specs);
    return out;
}
