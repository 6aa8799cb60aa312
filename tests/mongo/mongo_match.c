/*  mongo_match — comparing values, matching filters, sorting; see
 *  mongo_match.h.
 */
#include "mongo_match.h"

#include "dlq_hash.h"
#include "mongo_regex.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


/* ------------------------------------------------------------------ */
/*  Comparing values                                                    */
/* ------------------------------------------------------------------ */

int
mongo_value_type_class (bson_type_t type)
{
    switch (type) {
    case BSON_TYPE_MINKEY:     return 0;
    case BSON_TYPE_EOD:
    case BSON_TYPE_UNDEFINED:
    case BSON_TYPE_NULL:       return 1;
    case BSON_TYPE_INT32:
    case BSON_TYPE_INT64:
    case BSON_TYPE_DOUBLE:
    case BSON_TYPE_DECIMAL128: return 2;
    case BSON_TYPE_UTF8:
    case BSON_TYPE_SYMBOL:     return 3;
    case BSON_TYPE_DOCUMENT:   return 4;
    case BSON_TYPE_ARRAY:      return 5;
    case BSON_TYPE_BINARY:     return 6;
    case BSON_TYPE_OID:        return 7;
    case BSON_TYPE_BOOL:       return 8;
    case BSON_TYPE_DATE_TIME:  return 9;
    case BSON_TYPE_TIMESTAMP:  return 10;
    case BSON_TYPE_REGEX:      return 11;
    case BSON_TYPE_DBPOINTER:  return 12;
    case BSON_TYPE_CODE:       return 13;
    case BSON_TYPE_CODEWSCOPE: return 14;
    case BSON_TYPE_MAXKEY:     return 15;
    }
    return 1;
}

static int
sign (long double x)
{
    return (x > 0) - (x < 0);
}

static bool
is_integer_type (bson_type_t type)
{
    return type == BSON_TYPE_INT32 || type == BSON_TYPE_INT64;
}

static int64_t
integer_of (const bson_value_t *v)
{
    return v->value_type == BSON_TYPE_INT32 ? v->value.v_int32 : v->value.v_int64;
}

static long double
number_of (const bson_value_t *v)
{
    char text [BSON_DECIMAL128_STRING];
    switch (v->value_type) {
    case BSON_TYPE_INT32:  return v->value.v_int32;
    case BSON_TYPE_INT64:  return v->value.v_int64;
    case BSON_TYPE_DOUBLE: return v->value.v_double;
    default:
        bson_decimal128_to_string (&v->value.v_decimal128, text);
        return strtold (text, NULL);
    }
}

static int
compare_numbers (const bson_value_t *a, const bson_value_t *b)
{
    if (is_integer_type (a->value_type) && is_integer_type (b->value_type)) {
        int64_t x = integer_of (a), y = integer_of (b);
        return (x > y) - (x < y);
    }
    long double x = number_of (a), y = number_of (b);
    if (isnan (x) || isnan (y))
        return isnan (y) - isnan (x);       /* NaN below every number, equal to NaN */
    return sign (x - y);
}

static int
compare_bytes (const void *a, size_t a_len, const void *b, size_t b_len)
{
    int c = memcmp (a, b, a_len < b_len ? a_len : b_len);
    if (c)
        return c < 0 ? -1 : 1;
    return (a_len > b_len) - (a_len < b_len);
}

static void
string_of (const bson_value_t *v, const char **s, size_t *len)
{
    if (v->value_type == BSON_TYPE_SYMBOL) {
        *s = v->value.v_symbol.symbol;
        *len = v->value.v_symbol.len;
    } else {
        *s = v->value.v_utf8.str;
        *len = v->value.v_utf8.len;
    }
}

static int
compare_strings (const bson_value_t *a, const bson_value_t *b)
{
    const char *x, *y;
    size_t x_len, y_len;
    string_of (a, &x, &x_len);
    string_of (b, &y, &y_len);
    return compare_bytes (x, x_len, y, y_len);
}

/* Two documents (or arrays) field by field: type class, name, value. */
static int
compare_documents (const uint8_t *a, uint32_t a_len, const uint8_t *b, uint32_t b_len)
{
    bson_iter_t x, y;
    if (!bson_iter_init_from_data (&x, a, a_len) || !bson_iter_init_from_data (&y, b, b_len))
        return compare_bytes (a, a_len, b, b_len);
    for (;;) {
        bool more_x = bson_iter_next (&x), more_y = bson_iter_next (&y);
        if (!more_x || !more_y)
            return (int) more_x - (int) more_y;
        int c = mongo_value_type_class (bson_iter_type (&x))
                - mongo_value_type_class (bson_iter_type (&y));
        if (c)
            return c < 0 ? -1 : 1;
        c = strcmp (bson_iter_key (&x), bson_iter_key (&y));
        if (c)
            return c < 0 ? -1 : 1;
        c = mongo_value_compare (bson_iter_value (&x), bson_iter_value (&y));
        if (c)
            return c;
    }
}

static int
compare_binaries (const bson_value_t *a, const bson_value_t *b)
{
    uint32_t x = a->value.v_binary.data_len, y = b->value.v_binary.data_len;
    if (x != y)
        return x < y ? -1 : 1;
    if (a->value.v_binary.subtype != b->value.v_binary.subtype)
        return a->value.v_binary.subtype < b->value.v_binary.subtype ? -1 : 1;
    return compare_bytes (a->value.v_binary.data, x, b->value.v_binary.data, y);
}

static int
compare_timestamps (const bson_value_t *a, const bson_value_t *b)
{
    uint64_t x = (uint64_t) a->value.v_timestamp.timestamp << 32 | a->value.v_timestamp.increment;
    uint64_t y = (uint64_t) b->value.v_timestamp.timestamp << 32 | b->value.v_timestamp.increment;
    return (x > y) - (x < y);
}

static int
compare_strcmp (const char *a, const char *b)
{
    int c = strcmp (a ? a : "", b ? b : "");
    return (c > 0) - (c < 0);
}

static int
compare_regexes (const bson_value_t *a, const bson_value_t *b)
{
    int c = compare_strcmp (a->value.v_regex.regex, b->value.v_regex.regex);
    return c ? c : compare_strcmp (a->value.v_regex.options, b->value.v_regex.options);
}

static int
compare_code_with_scope (const bson_value_t *a, const bson_value_t *b)
{
    int c = compare_bytes (a->value.v_codewscope.code, a->value.v_codewscope.code_len,
                           b->value.v_codewscope.code, b->value.v_codewscope.code_len);
    if (c)
        return c;
    return compare_documents (a->value.v_codewscope.scope_data, a->value.v_codewscope.scope_len,
                              b->value.v_codewscope.scope_data, b->value.v_codewscope.scope_len);
}

static int
compare_dbpointers (const bson_value_t *a, const bson_value_t *b)
{
    int c = compare_bytes (a->value.v_dbpointer.collection, a->value.v_dbpointer.collection_len,
                           b->value.v_dbpointer.collection, b->value.v_dbpointer.collection_len);
    return c ? c : bson_oid_compare (&a->value.v_dbpointer.oid, &b->value.v_dbpointer.oid);
}

/* a and b of the same class. */
static int
compare_within_class (const bson_value_t *a, const bson_value_t *b)
{
    switch (a->value_type) {
    case BSON_TYPE_INT32: case BSON_TYPE_INT64: case BSON_TYPE_DOUBLE: case BSON_TYPE_DECIMAL128:
        return compare_numbers (a, b);
    case BSON_TYPE_UTF8: case BSON_TYPE_SYMBOL:
        return compare_strings (a, b);
    case BSON_TYPE_DOCUMENT: case BSON_TYPE_ARRAY:
        return compare_documents (a->value.v_doc.data, a->value.v_doc.data_len,
                                  b->value.v_doc.data, b->value.v_doc.data_len);
    case BSON_TYPE_BINARY:
        return compare_binaries (a, b);
    case BSON_TYPE_OID: {
        int c = bson_oid_compare (&a->value.v_oid, &b->value.v_oid);
        return (c > 0) - (c < 0);
    }
    case BSON_TYPE_BOOL:
        return (int) a->value.v_bool - (int) b->value.v_bool;
    case BSON_TYPE_DATE_TIME:
        return (a->value.v_datetime > b->value.v_datetime)
               - (a->value.v_datetime < b->value.v_datetime);
    case BSON_TYPE_TIMESTAMP:
        return compare_timestamps (a, b);
    case BSON_TYPE_REGEX:
        return compare_regexes (a, b);
    case BSON_TYPE_DBPOINTER:
        return compare_dbpointers (a, b);
    case BSON_TYPE_CODE:
        return compare_bytes (a->value.v_code.code, a->value.v_code.code_len,
                              b->value.v_code.code, b->value.v_code.code_len);
    case BSON_TYPE_CODEWSCOPE:
        return compare_code_with_scope (a, b);
    default:                    /* MinKey, MaxKey, null, undefined, missing */
        return 0;
    }
}

int
mongo_value_compare (const bson_value_t *a, const bson_value_t *b)
{
    int c = mongo_value_type_class (a->value_type) - mongo_value_type_class (b->value_type);
    if (c)
        return c < 0 ? -1 : 1;
    return compare_within_class (a, b);
}

bool
mongo_value_equal (const bson_value_t *a, const bson_value_t *b)
{
    return mongo_value_compare (a, b) == 0;
}

static uint64_t
hash_number (const bson_value_t *v)
{
    if (is_integer_type (v->value_type)) {
        int64_t i = integer_of (v);
        return dlq_hash_fnv64 (&i, sizeof i);
    }
    long double x = number_of (v);
    if (isnan (x))
        return DLQ_HASH_FNV64_OFFSET;
    if (x == floorl (x) && x >= -9223372036854775808.0L && x < 9223372036854775808.0L) {
        int64_t i = (int64_t) x;        /* integral: hashes as the integer */
        return dlq_hash_fnv64 (&i, sizeof i);
    }
    double d = (double) x;
    return dlq_hash_fnv64 (&d, sizeof d);
}

uint64_t
mongo_value_hash (const bson_value_t *value)
{
    const char *s;
    size_t len;
    switch (value->value_type) {
    case BSON_TYPE_INT32: case BSON_TYPE_INT64: case BSON_TYPE_DOUBLE: case BSON_TYPE_DECIMAL128:
        return hash_number (value);
    case BSON_TYPE_UTF8: case BSON_TYPE_SYMBOL:
        string_of (value, &s, &len);
        return dlq_hash_fnv64 (s, len);
    case BSON_TYPE_OID:
        return dlq_hash_fnv64 (value->value.v_oid.bytes, sizeof value->value.v_oid.bytes);
    case BSON_TYPE_DATE_TIME:
        return dlq_hash_fnv64 (&value->value.v_datetime, sizeof value->value.v_datetime);
    case BSON_TYPE_BOOL:
        return DLQ_HASH_FNV64_OFFSET + value->value.v_bool;
    default:                    /* equal values of other types share a class */
        return DLQ_HASH_FNV64_OFFSET * (uint64_t) (mongo_value_type_class (value->value_type) + 1);
    }
}

/* ------------------------------------------------------------------ */
/*  Values at a path                                                    */
/* ------------------------------------------------------------------ */

/* An iterator over the elements of a document or array value. */
static bool
iter_elements (bson_iter_t *it, const bson_value_t *value)
{
    return bson_iter_init_from_data (it, value->value.v_doc.data, value->value.v_doc.data_len);
}

/* Called for each value found at a path; true stops the walk. */
typedef bool (*visit_fn) (const bson_value_t *value, void *ctx);

typedef struct {
    visit_fn fn;
    void    *ctx;
    bool     found;             /* some value exists at the path */
} visitor_t;

static bool visit_path (const uint8_t *data, uint32_t len, const char *path, visitor_t *v);

/* The value at the end of the path, and the elements of an array there. */
static bool
visit_leaf (const bson_value_t *value, visitor_t *v)
{
    v->found = true;
    if (v->fn (value, v->ctx))
        return true;
    if (value->value_type != BSON_TYPE_ARRAY)
        return false;
    bson_iter_t it;
    if (!iter_elements (&it, value))
        return false;
    while (bson_iter_next (&it))
        if (v->fn (bson_iter_value (&it), v->ctx))
            return true;
    return false;
}

/* rest of the path inside an array: as a document ("a.0.b"), and inside
 * each of its elements that is a document ("a.b" over [{b: 1}, ...]). */
static bool
visit_array (const bson_value_t *array, const char *rest, visitor_t *v)
{
    const uint8_t *data = array->value.v_doc.data;
    uint32_t len = array->value.v_doc.data_len;
    if (visit_path (data, len, rest, v))
        return true;
    bson_iter_t it;
    if (!bson_iter_init_from_data (&it, data, len))
        return false;
    while (bson_iter_next (&it)) {
        const bson_value_t *element = bson_iter_value (&it);
        if (element->value_type == BSON_TYPE_DOCUMENT
            && visit_path (element->value.v_doc.data, element->value.v_doc.data_len, rest, v))
            return true;
    }
    return false;
}

static bool
visit_path (const uint8_t *data, uint32_t len, const char *path, visitor_t *v)
{
    const char *dot = strchr (path, '.');
    int segment_len = dot ? (int) (dot - path) : (int) strlen (path);
    bson_iter_t it;
    if (!bson_iter_init_from_data (&it, data, len) || !bson_iter_find_w_len (&it, path, segment_len))
        return false;
    const bson_value_t *value = bson_iter_value (&it);
    if (!dot)
        return visit_leaf (value, v);
    if (value->value_type == BSON_TYPE_DOCUMENT)
        return visit_path (value->value.v_doc.data, value->value.v_doc.data_len, dot + 1, v);
    if (value->value_type == BSON_TYPE_ARRAY)
        return visit_array (value, dot + 1, v);
    return false;
}

/* Walk the values of doc at path; whether fn stopped it. */
static bool
visit (const bson_t *doc, const char *path, visit_fn fn, void *ctx, bool *found)
{
    visitor_t v = { fn, ctx, false };
    bool stopped = visit_path (bson_get_data (doc), doc->len, path, &v);
    if (found)
        *found = v.found;
    return stopped;
}

/* ------------------------------------------------------------------ */
/*  Filters                                                             */
/* ------------------------------------------------------------------ */

typedef enum { OP_EQ, OP_NE, OP_LT, OP_LTE, OP_GT, OP_GTE, OP_IN, OP_NIN, OP_EXISTS, OP_NOT,
               OP_REGEX, OP_OPTIONS, OP_UNKNOWN } field_op_t;

static const struct { const char *name; field_op_t op; } field_ops [] = {
    { "$eq", OP_EQ }, { "$ne", OP_NE }, { "$lt", OP_LT }, { "$lte", OP_LTE }, { "$gt", OP_GT },
    { "$gte", OP_GTE }, { "$in", OP_IN }, { "$nin", OP_NIN }, { "$exists", OP_EXISTS },
    { "$not", OP_NOT }, { "$regex", OP_REGEX }, { "$options", OP_OPTIONS },
};

/* Operators MongoDB has and this server does not evaluate. */
static const char *const missing_field_ops [] = {
    "$elemMatch", "$size", "$all", "$type", "$mod", "$bitsAllSet",
    "$bitsAnySet", "$bitsAllClear", "$bitsAnyClear", "$geoWithin", "$geoIntersects", "$near",
    "$nearSphere", "$jsonSchema", "$text", "$where", "$expr",
};

static field_op_t
field_op_of (const char *name)
{
    for (size_t i = 0; i < sizeof field_ops / sizeof field_ops [0]; i++)
        if (strcmp (field_ops [i].name, name) == 0)
            return field_ops [i].op;
    return OP_UNKNOWN;
}

static bool
is_missing_op (const char *name)
{
    for (size_t i = 0; i < sizeof missing_field_ops / sizeof missing_field_ops [0]; i++)
        if (strcmp (missing_field_ops [i], name) == 0)
            return true;
    return false;
}

/* {a: {$gt: 1, ...}}: a document whose first field starts with '$'. */
static bool
is_operator_document (const bson_value_t *value)
{
    bson_iter_t it;
    if (value->value_type != BSON_TYPE_DOCUMENT
        || !iter_elements (&it, value)
        || !bson_iter_next (&it))
        return false;
    return bson_iter_key (&it) [0] == '$';
}

static bool
is_truthy (const bson_value_t *v)
{
    switch (v->value_type) {
    case BSON_TYPE_BOOL:   return v->value.v_bool;
    case BSON_TYPE_INT32: case BSON_TYPE_INT64: case BSON_TYPE_DOUBLE: case BSON_TYPE_DECIMAL128:
        return number_of (v) != 0;
    case BSON_TYPE_NULL: case BSON_TYPE_UNDEFINED: case BSON_TYPE_EOD:
        return false;
    default:
        return true;
    }
}

static bool check_document (const uint8_t *data, uint32_t len, mongo_error_t *err);

static bool
check_operators (const bson_value_t *ops, mongo_error_t *err);

/* The pattern and options of a regular expression value (/re/opts) or of
 * the $regex and $options of an operator document; false when ops has
 * no $regex. *clash when both give options (MongoDB refuses it). */
static bool
regex_of (const bson_value_t *ops, const char **pattern, const char **options, bool *clash)
{
    bson_iter_t it;
    const char *from_operator = NULL;
    bool found = false;
    *pattern = NULL;
    *options = NULL;
    *clash = false;
    if (ops->value_type == BSON_TYPE_REGEX) {
        *pattern = ops->value.v_regex.regex;
        *options = ops->value.v_regex.options;
        return true;
    }
    if (!iter_elements (&it, ops))
        return false;
    while (bson_iter_next (&it)) {
        const bson_value_t *v = bson_iter_value (&it);
        if (strcmp (bson_iter_key (&it), "$options") == 0 && v->value_type == BSON_TYPE_UTF8)
            from_operator = v->value.v_utf8.str;
        else if (strcmp (bson_iter_key (&it), "$regex") == 0 && v->value_type == BSON_TYPE_REGEX) {
            *pattern = v->value.v_regex.regex;
            *options = v->value.v_regex.options;
            found = true;
        } else if (strcmp (bson_iter_key (&it), "$regex") == 0 && v->value_type == BSON_TYPE_UTF8) {
            *pattern = v->value.v_utf8.str;
            found = true;
        }
    }
    *clash = from_operator && *options && **options;
    if (from_operator && !*clash)
        *options = from_operator;
    return found;
}

static bool
check_regex (const bson_value_t *ops, mongo_error_t *err)
{
    const char *pattern, *options;
    bool clash;
    if (!regex_of (ops, &pattern, &options, &clash)) {
        mongo_error_set (err, MONGO_ERR_BAD_VALUE, "$regex has to be a string or a regular expression");
        return false;
    }
    if (clash) {
        mongo_error_set (err, 51074, "options set in both $regex and $options");
        return false;
    }
    return mongo_regex_check (pattern, options, err);
}

/* $in / $nin: an array, without regular expressions (not evaluated). */
static bool
check_in_array (const char *name, const bson_value_t *operand, mongo_error_t *err)
{
    bson_iter_t it;
    if (operand->value_type != BSON_TYPE_ARRAY || !iter_elements (&it, operand)) {
        mongo_error_set (err, MONGO_ERR_BAD_VALUE, "%s needs an array", name);
        return false;
    }
    while (bson_iter_next (&it))
        if (BSON_ITER_HOLDS_REGEX (&it)) {
            mongo_error_set (err, MONGO_ERR_NOT_IMPLEMENTED,
                             "the MongoDB test server does not evaluate regular expressions in %s", name);
            return false;
        }
    return true;
}

static bool
check_field_op (const char *name, const bson_value_t *operand, const bson_value_t *ops,
                mongo_error_t *err)
{
    field_op_t op = field_op_of (name);
    if (op == OP_UNKNOWN) {
        if (is_missing_op (name))
            mongo_error_set (err, MONGO_ERR_NOT_IMPLEMENTED,
                             "the MongoDB test server does not evaluate %s", name);
        else
            mongo_error_set (err, MONGO_ERR_BAD_VALUE, "unknown operator: %s", name);
        return false;
    }
    if (op == OP_IN || op == OP_NIN)
        return check_in_array (name, operand, err);
    if (op == OP_REGEX || op == OP_OPTIONS)
        return check_regex (ops, err);
    if (op == OP_NOT) {
        if (operand->value_type == BSON_TYPE_REGEX) {
            mongo_error_set (err, MONGO_ERR_NOT_IMPLEMENTED,
                             "the MongoDB test server does not evaluate $not with a regular expression");
            return false;
        }
        if (!is_operator_document (operand)) {
            mongo_error_set (err, MONGO_ERR_BAD_VALUE, "$not needs a document of operators");
            return false;
        }
        return check_operators (operand, err);
    }
    return true;
}

static bool
check_operators (const bson_value_t *ops, mongo_error_t *err)
{
    bson_iter_t it;
    if (!iter_elements (&it, ops))
        return false;
    while (bson_iter_next (&it))
        if (!check_field_op (bson_iter_key (&it), bson_iter_value (&it), ops, err))
            return false;
    return true;
}

/* $and / $or / $nor: a non-empty array of filter documents. */
static bool
check_logical (const char *name, const bson_value_t *operand, mongo_error_t *err)
{
    bson_iter_t it;
    uint32_t count = 0;
    if (operand->value_type != BSON_TYPE_ARRAY
        || !iter_elements (&it, operand)) {
        mongo_error_set (err, MONGO_ERR_BAD_VALUE, "%s must be an array", name);
        return false;
    }
    while (bson_iter_next (&it)) {
        const bson_value_t *clause = bson_iter_value (&it);
        if (clause->value_type != BSON_TYPE_DOCUMENT) {
            mongo_error_set (err, MONGO_ERR_BAD_VALUE, "%s argument's entries must be objects",
                             name);
            return false;
        }
        if (!check_document (clause->value.v_doc.data, clause->value.v_doc.data_len, err))
            return false;
        count++;
    }
    if (count == 0) {
        mongo_error_set (err, MONGO_ERR_BAD_VALUE, "%s argument must be a non-empty array", name);
        return false;
    }
    return true;
}

static bool
check_top_operator (const char *name, const bson_value_t *operand, mongo_error_t *err)
{
    if (strcmp (name, "$and") == 0 || strcmp (name, "$or") == 0 || strcmp (name, "$nor") == 0)
        return check_logical (name, operand, err);
    if (strcmp (name, "$comment") == 0)
        return true;
    if (is_missing_op (name))
        mongo_error_set (err, MONGO_ERR_NOT_IMPLEMENTED,
                         "the MongoDB test server does not evaluate %s", name);
    else
        mongo_error_set (err, MONGO_ERR_BAD_VALUE, "unknown top level operator: %s", name);
    return false;
}

static bool
check_document (const uint8_t *data, uint32_t len, mongo_error_t *err)
{
    bson_iter_t it;
    if (!bson_iter_init_from_data (&it, data, len))
        return false;
    while (bson_iter_next (&it)) {
        const char *key = bson_iter_key (&it);
        const bson_value_t *value = bson_iter_value (&it);
        if (key [0] == '$') {
            if (!check_top_operator (key, value, err))
                return false;
        } else if (value->value_type == BSON_TYPE_REGEX) {
            if (!check_regex (value, err))
                return false;
        } else if (is_operator_document (value) && !check_operators (value, err))
            return false;
    }
    return true;
}

bool
mongo_filter_check (const bson_t *filter, mongo_error_t *err)
{
    return !filter || check_document (bson_get_data (filter), filter->len, err);
}

/* -- evaluation -- */

typedef struct {
    const bson_value_t *operand;
    field_op_t          op;
} compare_ctx_t;

static bool
stop_if_equal (const bson_value_t *value, void *ctx)
{
    return mongo_value_equal (value, ctx);
}

static bool
stop_if_compares (const bson_value_t *value, void *ctx)
{
    const compare_ctx_t *c = ctx;
    if (mongo_value_type_class (value->value_type)
        != mongo_value_type_class (c->operand->value_type))
        return false;
    int order = mongo_value_compare (value, c->operand);
    switch (c->op) {
    case OP_LT:  return order < 0;
    case OP_LTE: return order <= 0;
    case OP_GT:  return order > 0;
    default:     return order >= 0;
    }
}

static bool
is_nullish (const bson_value_t *v)
{
    return mongo_value_type_class (v->value_type) == mongo_value_type_class (BSON_TYPE_NULL);
}

/* {path: operand}, or {path: {$eq: operand}}. */
static bool
match_equal (const bson_t *doc, const char *path, const bson_value_t *operand)
{
    bool found;
    bool equal = visit (doc, path, stop_if_equal, (void *) operand, &found);
    return equal || (!found && is_nullish (operand));
}

static bool
match_in (const bson_t *doc, const char *path, const bson_value_t *array)
{
    bson_iter_t it;
    if (!iter_elements (&it, array))
        return false;
    while (bson_iter_next (&it))
        if (match_equal (doc, path, bson_iter_value (&it)))
            return true;
    return false;
}

static bool
match_ordering (const bson_t *doc, const char *path, field_op_t op, const bson_value_t *operand)
{
    if (is_nullish (operand))   /* $lte / $gte null are equality with null; $lt / $gt nothing */
        return (op == OP_LTE || op == OP_GTE) && match_equal (doc, path, operand);
    compare_ctx_t ctx = { operand, op };
    return visit (doc, path, stop_if_compares, &ctx, NULL);
}

typedef struct {
    const char *pattern;
    const char *options;
} regex_ctx_t;

static bool
stop_if_regex_finds (const bson_value_t *value, void *ctx)
{
    const regex_ctx_t *r = ctx;
    const char *s;
    size_t len;
    if (value->value_type != BSON_TYPE_UTF8 && value->value_type != BSON_TYPE_SYMBOL)
        return false;
    string_of (value, &s, &len);
    return mongo_regex_matches (r->pattern, r->options, s);
}

/* {path: /re/}, or {path: {$regex: ..., $options: ...}} (ops). */
static bool
match_regex (const bson_t *doc, const char *path, const bson_value_t *ops)
{
    regex_ctx_t r;
    bool clash;
    return regex_of (ops, &r.pattern, &r.options, &clash)
           && visit (doc, path, stop_if_regex_finds, &r, NULL);
}

static bool match_operators (const bson_t *doc, const char *path, const bson_value_t *ops);

/* One operator of ops (the document it is in: $regex reads $options). */
static bool
match_field_op (const bson_t *doc, const char *path, field_op_t op, const bson_value_t *operand,
                const bson_value_t *ops)
{
    bool found;
    switch (op) {
    case OP_REGEX:   return match_regex (doc, path, ops);
    case OP_OPTIONS: return true;       /* read by $regex */
    case OP_EQ:     return match_equal (doc, path, operand);
    case OP_NE:     return !match_equal (doc, path, operand);
    case OP_IN:     return match_in (doc, path, operand);
    case OP_NIN:    return !match_in (doc, path, operand);
    case OP_NOT:    return !match_operators (doc, path, operand);
    case OP_EXISTS:
        visit (doc, path, stop_if_equal, (void *) operand, &found);
        return found == is_truthy (operand);
    default:        return match_ordering (doc, path, op, operand);
    }
}

static bool
match_operators (const bson_t *doc, const char *path, const bson_value_t *ops)
{
    bson_iter_t it;
    if (!iter_elements (&it, ops))
        return false;
    while (bson_iter_next (&it))
        if (!match_field_op (doc, path, field_op_of (bson_iter_key (&it)), bson_iter_value (&it), ops))
            return false;
    return true;
}

static bool match_clauses (const bson_t *doc, const uint8_t *data, uint32_t len);

/* $and: every clause; $or: one; $nor: none. */
static bool
match_logical (const bson_t *doc, const char *name, const bson_value_t *clauses)
{
    bool is_and = strcmp (name, "$and") == 0, is_or = strcmp (name, "$or") == 0;
    bson_iter_t it;
    if (!iter_elements (&it, clauses))
        return false;
    while (bson_iter_next (&it)) {
        const bson_value_t *clause = bson_iter_value (&it);
        bool matched = match_clauses (doc, clause->value.v_doc.data, clause->value.v_doc.data_len);
        if (is_and && !matched)
            return false;
        if (!is_and && matched)
            return is_or;
    }
    return !is_or;
}

static bool
match_clauses (const bson_t *doc, const uint8_t *data, uint32_t len)
{
    bson_iter_t it;
    if (!bson_iter_init_from_data (&it, data, len))
        return false;
    while (bson_iter_next (&it)) {
        const char *key = bson_iter_key (&it);
        const bson_value_t *value = bson_iter_value (&it);
        bool matched;
        if (strcmp (key, "$comment") == 0)
            matched = true;
        else if (key [0] == '$')
            matched = match_logical (doc, key, value);
        else if (value->value_type == BSON_TYPE_REGEX)
            matched = match_regex (doc, key, value);
        else if (is_operator_document (value))
            matched = match_operators (doc, key, value);
        else
            matched = match_equal (doc, key, value);
        if (!matched)
            return false;
    }
    return true;
}

bool
mongo_filter_matches (const bson_t *filter, const bson_t *doc)
{
    return !filter || match_clauses (doc, bson_get_data (filter), filter->len);
}

/* ------------------------------------------------------------------ */
/*  Sort                                                                */
/* ------------------------------------------------------------------ */

bool
mongo_sort_check (const bson_t *sort, mongo_error_t *err)
{
    bson_iter_t it;
    if (!sort || !bson_iter_init (&it, sort))
        return true;
    while (bson_iter_next (&it)) {
        const bson_value_t *v = bson_iter_value (&it);
        bool number = mongo_value_type_class (v->value_type) == 2;
        long double direction = number ? number_of (v) : 0;
        if (direction != 1 && direction != -1) {
            mongo_error_set (err, MONGO_ERR_BAD_VALUE,
                             "$sort key ordering must be 1 (for ascending) or -1 (for descending)"
                             " (field '%s'; the test server sorts on no $meta)",
                             bson_iter_key (&it));
            return false;
        }
    }
    return true;
}

typedef struct {
    bool         ascending;
    bool         have;
    bson_value_t key;
} sort_key_t;

/* The smallest (ascending) or largest value at the path, arrays by their
 * elements. */
static bool
consider_sort_key (const bson_value_t *value, void *ctx)
{
    sort_key_t *k = ctx;
    if (value->value_type == BSON_TYPE_ARRAY)
        return false;
    int order = k->have ? mongo_value_compare (value, &k->key) : 0;
    if (!k->have || (k->ascending ? order < 0 : order > 0)) {
        k->key = *value;
        k->have = true;
    }
    return false;
}

static void
sort_key_of (const bson_t *doc, const char *path, bool ascending, bson_value_t *key)
{
    sort_key_t k = { ascending, false, { .value_type = BSON_TYPE_NULL } };
    visit (doc, path, consider_sort_key, &k, NULL);
    *key = k.key;
}

int
mongo_sort_compare (const bson_t *sort, const bson_t *a, const bson_t *b)
{
    bson_iter_t it;
    if (!sort || !bson_iter_init (&it, sort))
        return 0;
    while (bson_iter_next (&it)) {
        bool ascending = number_of (bson_iter_value (&it)) > 0;
        bson_value_t x, y;
        sort_key_of (a, bson_iter_key (&it), ascending, &x);
        sort_key_of (b, bson_iter_key (&it), ascending, &y);
        int c = mongo_value_compare (&x, &y);
        if (c)
            return ascending ? c : -c;
    }
    return 0;
}
