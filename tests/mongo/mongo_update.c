/*  mongo_update — applying $set, $unset, $inc, $setOnInsert and
 *  replacements; see mongo_update.h.
 */
#include "mongo_update.h"

#include "mongo_match.h"

#include <string.h>

#define LOCATION_CONFLICTING_OPERATORS 40          /* ConflictingUpdateOperators */

static const char *const operators [] = { "$set", "$unset", "$inc", "$setOnInsert" };

static bool
is_known_operator (const char *name)
{
    for (size_t i = 0; i < sizeof operators / sizeof operators [0]; i++)
        if (strcmp (operators [i], name) == 0)
            return true;
    return false;
}

bool
mongo_update_is_replacement (const bson_t *update)
{
    bson_iter_t it;
    return !bson_iter_init (&it, update) || !bson_iter_next (&it) || bson_iter_key (&it) [0] != '$';
}

/* How many operators of update name field. */
static int
mentions (const bson_t *update, const char *field)
{
    bson_iter_t it, inner;
    int count = 0;
    bson_iter_init (&it, update);
    while (bson_iter_next (&it))
        if (BSON_ITER_HOLDS_DOCUMENT (&it) && bson_iter_recurse (&it, &inner)
            && bson_iter_find (&inner, field))
            count++;
    return count;
}

static bool
check_operator_fields (const bson_t *update, bson_iter_t *op, mongo_error_t *err)
{
    const char *name = bson_iter_key (op);
    bson_iter_t field;
    if (!BSON_ITER_HOLDS_DOCUMENT (op) || !bson_iter_recurse (op, &field)) {
        mongo_error_set (err, MONGO_ERR_FAILED_TO_PARSE,
                         "Modifiers operate on fields but we found another type instead (%s)", name);
        return false;
    }
    while (bson_iter_next (&field)) {
        const char *key = bson_iter_key (&field);
        if (strchr (key, '.') || key [0] == '$') {
            mongo_error_set (err, MONGO_ERR_NOT_IMPLEMENTED,
                             "the MongoDB test server updates top-level fields only ('%s')", key);
            return false;
        }
        if (strcmp (name, "$inc") == 0
            && mongo_value_type_class (bson_iter_type (&field)) != mongo_value_type_class (BSON_TYPE_INT32)) {
            mongo_error_set (err, MONGO_ERR_TYPE_MISMATCH, "Cannot increment with non-numeric argument");
            return false;
        }
        if (mentions (update, key) > 1) {
            mongo_error_set (err, LOCATION_CONFLICTING_OPERATORS,
                             "Updating the path '%s' would create a conflict at '%s'", key, key);
            return false;
        }
    }
    return true;
}

bool
mongo_update_check (const bson_t *update, mongo_error_t *err)
{
    bson_iter_t it;
    if (mongo_update_is_replacement (update)) {
        bson_iter_init (&it, update);
        while (bson_iter_next (&it))
            if (bson_iter_key (&it) [0] == '$') {
                mongo_error_set (err, MONGO_ERR_BAD_VALUE,
                                 "The dollar ($) prefixed field '%s' is not allowed in a replacement",
                                 bson_iter_key (&it));
                return false;
            }
        return true;
    }
    bson_iter_init (&it, update);
    while (bson_iter_next (&it)) {
        const char *name = bson_iter_key (&it);
        if (!is_known_operator (name)) {
            mongo_error_set (err, name [0] == '$' ? MONGO_ERR_NOT_IMPLEMENTED : MONGO_ERR_FAILED_TO_PARSE,
                             name [0] == '$' ? "the MongoDB test server does not apply %s"
                                             : "Unknown modifier: %s", name);
            return false;
        }
        if (!check_operator_fields (update, &it, err))
            return false;
    }
    return true;
}

/* ------------------------------------------------------------------ */
/*  Applying                                                            */
/* ------------------------------------------------------------------ */

/* The value operator op of update gives field, if it names it. */
static bool
operand_of (const bson_t *update, const char *op, const char *field, bson_iter_t *out)
{
    bson_iter_t it;
    return bson_iter_init_find (&it, update, op) && BSON_ITER_HOLDS_DOCUMENT (&it)
           && bson_iter_recurse (&it, out) && bson_iter_find (out, field);
}

static bool
append_sum (bson_t *out, const char *key, const bson_value_t *a, const bson_value_t *b,
            mongo_error_t *err)
{
    if (mongo_value_type_class (a->value_type) != mongo_value_type_class (BSON_TYPE_INT32)) {
        mongo_error_set (err, MONGO_ERR_TYPE_MISMATCH,
                         "Cannot apply $inc to a value of non-numeric type (field '%s')", key);
        return false;
    }
    if (a->value_type == BSON_TYPE_DECIMAL128 || b->value_type == BSON_TYPE_DECIMAL128) {
        mongo_error_set (err, MONGO_ERR_NOT_IMPLEMENTED, "the MongoDB test server adds no decimals");
        return false;
    }
    bool integers = a->value_type != BSON_TYPE_DOUBLE && b->value_type != BSON_TYPE_DOUBLE;
    int64_t x = a->value_type == BSON_TYPE_INT32 ? a->value.v_int32 : a->value.v_int64;
    int64_t y = b->value_type == BSON_TYPE_INT32 ? b->value.v_int32 : b->value.v_int64;
    int64_t sum;
    if (!integers || __builtin_add_overflow (x, y, &sum)) {
        double dx = a->value_type == BSON_TYPE_DOUBLE ? a->value.v_double : (double) x;
        double dy = b->value_type == BSON_TYPE_DOUBLE ? b->value.v_double : (double) y;
        return bson_append_double (out, key, -1, dx + dy);
    }
    bool narrow = a->value_type == BSON_TYPE_INT32 && b->value_type == BSON_TYPE_INT32
                  && sum >= INT32_MIN && sum <= INT32_MAX;
    return narrow ? bson_append_int32 (out, key, -1, (int32_t) sum)
                  : bson_append_int64 (out, key, -1, sum);
}

/* The field at it, as the operators of update leave it. */
static bool
append_updated_field (bson_t *out, const bson_t *update, bool inserting, bson_iter_t *it,
                      mongo_error_t *err)
{
    const char *key = bson_iter_key (it);
    bson_iter_t operand;
    if (operand_of (update, "$unset", key, &operand))
        return true;
    if (operand_of (update, "$set", key, &operand)
        || (inserting && operand_of (update, "$setOnInsert", key, &operand)))
        return bson_append_value (out, key, -1, bson_iter_value (&operand));
    if (operand_of (update, "$inc", key, &operand))
        return append_sum (out, key, bson_iter_value (it), bson_iter_value (&operand), err);
    return bson_append_iter (out, NULL, 0, it);
}

/* The fields op of update sets that doc does not have yet. */
static void
append_new_fields (bson_t *out, const bson_t *update, const char *op, const bson_t *doc)
{
    bson_iter_t it, fields, existing;
    if (!bson_iter_init_find (&it, update, op) || !bson_iter_recurse (&it, &fields))
        return;
    while (bson_iter_next (&fields))
        if (!bson_iter_init_find (&existing, doc, bson_iter_key (&fields)))
            bson_append_iter (out, NULL, 0, &fields);
}

static bool
same_id (const bson_t *a, const bson_t *b)
{
    bson_iter_t x, y;
    bool has_x = bson_iter_init_find (&x, a, "_id"), has_y = bson_iter_init_find (&y, b, "_id");
    if (!has_x || !has_y)
        return has_x == has_y;
    return mongo_value_equal (bson_iter_value (&x), bson_iter_value (&y));
}

static bson_t *
apply_operators (const bson_t *update, const bson_t *doc, bool inserting, mongo_error_t *err)
{
    bson_t *out = bson_new ();
    bson_iter_t it;
    bool ok = true;
    bson_iter_init (&it, doc);
    while (ok && bson_iter_next (&it))
        ok = append_updated_field (out, update, inserting, &it, err);
    if (ok) {
        append_new_fields (out, update, "$set", doc);
        if (inserting)
            append_new_fields (out, update, "$setOnInsert", doc);
        append_new_fields (out, update, "$inc", doc);
    }
    if (ok && !inserting && !same_id (doc, out)) {
        mongo_error_set (err, MONGO_ERR_IMMUTABLE_FIELD,
                         "Performing an update on the path '_id' would modify the immutable field '_id'");
        ok = false;
    }
    if (!ok)
        bson_destroy (out);
    return ok ? out : NULL;
}

/* The replacement with the _id of doc first (doc without one: its own). */
static bson_t *
apply_replacement (const bson_t *replacement, const bson_t *doc, mongo_error_t *err)
{
    bson_iter_t old_id, new_id;
    bool has_old = bson_iter_init_find (&old_id, doc, "_id");
    if (has_old && bson_iter_init_find (&new_id, replacement, "_id")
        && !mongo_value_equal (bson_iter_value (&old_id), bson_iter_value (&new_id))) {
        mongo_error_set (err, MONGO_ERR_IMMUTABLE_FIELD,
                         "After applying the update, the (immutable) field '_id' was found to"
                         " have been altered");
        return NULL;
    }
    bson_t *out = bson_new ();
    if (has_old)
        bson_append_iter (out, NULL, 0, &old_id);
    bson_copy_to_excluding_noinit (replacement, out, has_old ? "_id" : "", NULL);
    return out;
}

bson_t *
mongo_update_apply (const bson_t *update, const bson_t *doc, bool inserting, mongo_error_t *err)
{
    if (mongo_update_is_replacement (update))
        return apply_replacement (update, doc, err);
    return apply_operators (update, doc, inserting, err);
}

bson_t *
mongo_update_upsert_base (const bson_t *query)
{
    bson_t *base = bson_new ();
    bson_iter_t it, eq;
    if (!query || !bson_iter_init (&it, query))
        return base;
    while (bson_iter_next (&it)) {
        const char *key = bson_iter_key (&it);
        if (key [0] == '$' || strchr (key, '.'))
            continue;
        if (!BSON_ITER_HOLDS_DOCUMENT (&it))
            bson_append_iter (base, NULL, 0, &it);
        else if (bson_iter_recurse (&it, &eq) && bson_iter_next (&eq)) {
            if (bson_iter_key (&eq) [0] != '$')
                bson_append_iter (base, NULL, 0, &it);
            else if (strcmp (bson_iter_key (&eq), "$eq") == 0)
                bson_append_value (base, key, -1, bson_iter_value (&eq));
        }
    }
    return base;
}
