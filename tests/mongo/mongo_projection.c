/*  mongo_projection — inclusion and exclusion of top-level fields; see
 *  mongo_projection.h.
 */
#include "mongo_projection.h"

#include <string.h>

#define LOCATION_INCLUSION_EXCLUSION 31254     /* MongoDB's code for a mixed projection */

/* A projection value: true includes, false excludes; other values are
 * not this server's business. */
static bool
flag_of (const bson_iter_t *it, bool *include)
{
    switch (bson_iter_type (it)) {
    case BSON_TYPE_BOOL:
    case BSON_TYPE_INT32:
    case BSON_TYPE_INT64:
    case BSON_TYPE_DOUBLE:
        *include = bson_iter_as_bool (it);
        return true;
    default:
        return false;
    }
}

/* Whether projection includes the fields it names (else it excludes
 * them): the other fields decide; {_id: 1} alone includes. */
static bool
is_inclusion (const bson_t *projection)
{
    bson_iter_t it;
    bool include, id_include = false, others = false;
    if (!projection || !bson_iter_init (&it, projection))
        return false;
    while (bson_iter_next (&it)) {
        if (!flag_of (&it, &include))
            continue;
        if (strcmp (bson_iter_key (&it), "_id") == 0)
            id_include = include;
        else if (include)
            return true;
        else
            others = true;
    }
    return !others && id_include;
}

bool
mongo_projection_check (const bson_t *projection, mongo_error_t *err)
{
    bson_iter_t it;
    if (!projection || !bson_iter_init (&it, projection))
        return true;
    bool inclusion = is_inclusion (projection);
    while (bson_iter_next (&it)) {
        const char *key = bson_iter_key (&it);
        bool include;
        if (!flag_of (&it, &include) || strchr (key, '.') || key [0] == '$') {
            mongo_error_set (err, MONGO_ERR_NOT_IMPLEMENTED,
                             "the MongoDB test server projects top-level fields with 1/0 only"
                             " (field '%s')", key);
            return false;
        }
        if (inclusion && !include && strcmp (key, "_id") != 0) {
            mongo_error_set (err, LOCATION_INCLUSION_EXCLUSION,
                             "Cannot do exclusion on field %s in inclusion projection", key);
            return false;
        }
    }
    return true;
}

/* Whether the field called key is in the projected document. */
static bool
keeps (const bson_t *projection, bool inclusion, const char *key)
{
    bson_iter_t it;
    bool include = true;
    if (bson_iter_init_find (&it, projection, key) && flag_of (&it, &include))
        return include;
    if (strcmp (key, "_id") == 0)
        return true;
    return !inclusion;
}

bson_t *
mongo_projection_apply (const bson_t *projection, const bson_t *doc)
{
    if (!projection || bson_empty (projection))
        return bson_copy (doc);
    bool inclusion = is_inclusion (projection);
    bson_t *out = bson_new ();
    bson_iter_t it;
    if (bson_iter_init (&it, doc))
        while (bson_iter_next (&it))
            if (keeps (projection, inclusion, bson_iter_key (&it)))
                bson_append_iter (out, NULL, 0, &it);
    return out;
}
