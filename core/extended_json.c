/*  extended_json — shape checks for MongoDB extended JSON v2 type wrappers.
 *
 *  Only the wrappers are checked; any other object is an ordinary document
 *  whose members are checked recursively. The rules follow the extended JSON
 *  v2 spec (canonical and relaxed forms both accepted).
 */
#include "extended_json.h"

#include "dlq_time.h"
#include "dlq_uuid.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static bool
key_is (const dlq_json_value_t *m, const char *key)
{
    return m && m->key && strlen (key) == m->key_len && memcmp (m->key, key, m->key_len) == 0;
}

static bool
is_string (const dlq_json_value_t *v)
{
    return v && v->type == DLQ_JSON_STRING;
}

static bool
hex_string (const dlq_json_value_t *v, size_t want)
{
    if (!is_string (v) || v->len != want)
        return false;
    for (size_t i = 0; i < v->len; i++) {
        char c = v->str [i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
            return false;
    }
    return true;
}

/* Decimal integer text within [min, max], such as "-12" or "0": every
 * byte of the string counts (a NUL is no digit), no sign but '-', no
 * leading zeros, no spaces. */
static bool
int_string (const dlq_json_value_t *v, long long min, long long max)
{
    if (!is_string (v) || v->len == 0 || v->len > 20)
        return false;
    bool negative = v->str [0] == '-';
    size_t first = negative ? 1 : 0;
    if (first == v->len || (v->str [first] == '0' && v->len > first + 1) || (negative && min >= 0))
        return false;
    unsigned long long limit = negative ? (unsigned long long) -(min + 1) + 1 : (unsigned long long) max;
    unsigned long long n = 0;
    for (size_t i = first; i < v->len; i++) {
        unsigned d = (unsigned) (v->str [i] - '0');
        if (d > 9 || n > (limit - d) / 10)
            return false;
        n = n * 10 + d;
    }
    return !(negative && n == 0);       /* "-0" is not how an integer is written */
}

/* A double's text: a JSON number, or NaN, Infinity, -Infinity (the extended
 * JSON v2 spec's forms); no hex, spaces, inf or nan, every byte counted. */
static bool
number_string (const dlq_json_value_t *v)
{
    if (!is_string (v) || v->len == 0 || v->len > 64)
        return false;
    if ((v->len == 3 && memcmp (v->str, "NaN", 3) == 0)
    ||  (v->len == 8 && memcmp (v->str, "Infinity", 8) == 0)
    ||  (v->len == 9 && memcmp (v->str, "-Infinity", 9) == 0))
        return true;
    return dlq_json_number_valid (v->str, v->len);
}

/* A Decimal128's text: [+-]digits[.digits][e[+-]digits], or [+-]Infinity,
 * [+-]Inf, NaN (what libbson's bson_decimal128_from_string reads); at
 * most 34 significant digits are not checked here, libbson rounds. */
static bool
decimal_string (const dlq_json_value_t *v)
{
    if (!is_string (v) || v->len == 0 || v->len > 64)
        return false;
    const char *p = v->str, *end = v->str + v->len;
    if (*p == '+' || *p == '-')
        p++;
    size_t rest = (size_t) (end - p);
    if ((rest == 3 && memcmp (p, "Inf", 3) == 0) || (rest == 8 && memcmp (p, "Infinity", 8) == 0))
        return true;
    if (v->len == 3 && memcmp (v->str, "NaN", 3) == 0)
        return true;
    size_t digits = 0;
    for (; p < end && *p >= '0' && *p <= '9'; p++)
        digits++;
    if (p < end && *p == '.')
        for (p++; p < end && *p >= '0' && *p <= '9'; p++)
            digits++;
    if (digits == 0)
        return false;
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        if (p == end || *p < '0' || *p > '9')
            return false;
        while (p < end && *p >= '0' && *p <= '9')
            p++;
    }
    return p == end;
}

/* Only members named in keys (NULL-terminated), each at most once. */
static bool
has_only (const dlq_json_value_t *obj, const char *const *keys, size_t want)
{
    if (obj->type != DLQ_JSON_OBJECT || obj->count != want)
        return false;
    for (const dlq_json_value_t *m = obj->child; m; m = m->next) {
        bool known = false;
        for (size_t i = 0; keys [i]; i++)
            known = known || key_is (m, keys [i]);
        if (!known)
            return false;
    }
    return true;
}

static bool
check_date (const dlq_json_value_t *d)
{
    int64_t ms;
    if (is_string (d))
        return dlq_time_parse_iso (d->str, d->len, &ms);
    if (d->type == DLQ_JSON_NUMBER)
        return dlq_json_as_int64 (d, &ms);
    static const char *const keys [] = { "$numberLong", NULL };
    return has_only (d, keys, 1) && int_string (d->child, INT64_MIN, INT64_MAX);
}

/* The wrapper whose first key is obj->child, or true when it is no wrapper. */
static bool
check_wrapper (const dlq_json_value_t *obj, const char **name)
{
    const dlq_json_value_t *m = obj->child;
    *name = NULL;
    if (!m || m->key_len < 2 || m->key [0] != '$')
        return true;
    bool single = obj->count == 1;
    if (key_is (m, "$oid"))           { *name = "$oid";          return single && hex_string (m, 24); }
    if (key_is (m, "$date"))          { *name = "$date";         return single && check_date (m); }
    if (key_is (m, "$numberLong"))    { *name = "$numberLong";   return single && int_string (m, INT64_MIN, INT64_MAX); }
    if (key_is (m, "$numberInt"))     { *name = "$numberInt";    return single && int_string (m, INT32_MIN, INT32_MAX); }
    if (key_is (m, "$numberDouble"))  { *name = "$numberDouble"; return single && number_string (m); }
    if (key_is (m, "$numberDecimal")) { *name = "$numberDecimal";return single && decimal_string (m); }
    if (key_is (m, "$uuid"))          { *name = "$uuid";         return single && is_string (m) && dlq_uuid_parse (m->str, m->len, NULL); }
    if (key_is (m, "$minKey") || key_is (m, "$maxKey")) {
        int64_t one;
        *name = "$minKey/$maxKey";
        return single && dlq_json_as_int64 (m, &one) && one == 1;
    }
    if (key_is (m, "$binary")) {
        static const char *const keys [] = { "base64", "subType", NULL };
        const dlq_json_value_t *sub = dlq_json_get (m, "subType");
        *name = "$binary";
        return single && has_only (m, keys, 2) && is_string (dlq_json_get (m, "base64"))
            && sub && (sub->len == 1 || sub->len == 2) && hex_string (sub, sub->len);
    }
    if (key_is (m, "$timestamp")) {
        static const char *const keys [] = { "t", "i", NULL };
        int64_t t, i;
        *name = "$timestamp";
        return single && has_only (m, keys, 2)
            && dlq_json_as_int64 (dlq_json_get (m, "t"), &t) && t >= 0 && t <= UINT32_MAX
            && dlq_json_as_int64 (dlq_json_get (m, "i"), &i) && i >= 0 && i <= UINT32_MAX;
    }
    if (key_is (m, "$regularExpression")) {
        static const char *const keys [] = { "pattern", "options", NULL };
        *name = "$regularExpression";
        return single && has_only (m, keys, 2)
            && is_string (dlq_json_get (m, "pattern")) && is_string (dlq_json_get (m, "options"));
    }
    return true;                        /* some other $-key: an ordinary document */
}

/* The first malformed wrapper in v (v itself, or one below it, path
 * holding the way down), or NULL. A well-formed wrapper is a leaf. */
static const dlq_json_value_t *
find_malformed (const dlq_json_value_t *v, dlq_json_path_t *path, const char **wrapper)
{
    if (v->type == DLQ_JSON_OBJECT) {
        if (!check_wrapper (v, wrapper))
            return v;
        if (*wrapper)
            return NULL;
    }
    size_t index = 0, depth = path->depth;
    for (const dlq_json_value_t *m = v->child; m; m = m->next, index++) {
        if (m->type != DLQ_JSON_OBJECT && m->type != DLQ_JSON_ARRAY)
            continue;
        path->depth = depth;
        const dlq_json_value_t *bad = dlq_json_path_push (path, m, index) ? find_malformed (m, path, wrapper) : NULL;
        if (bad)
            return bad;
    }
    path->depth = depth;
    return NULL;
}

dlq_code_t
dlq_extjson_check (const dlq_json_value_t *v, const char *field, dlq_error_t *err)
{
    if (v->type != DLQ_JSON_OBJECT && v->type != DLQ_JSON_ARRAY)
        return DLQ_OK;
    dlq_json_path_t path;
    path.depth = 0;
    const char *wrapper = NULL;
    if (!find_malformed (v, &path, &wrapper))
        return DLQ_OK;
    char where [128];
    dlq_json_path_format (&path, field, where, sizeof where);
    return dlq_error_set (err, DLQ_ERR_INVALID_EVENT, where, "%s: malformed extended JSON %s value", where, wrapper);
}
