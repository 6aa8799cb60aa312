/*  fuzz_json — the JSON parser (core/dlq_json) against any bytes, with a
 *  round-trip oracle: what parses is written, the writing parses again to
 *  the same values, and writing that gives the same bytes again. Errors
 *  keep their documented shape: invalid UTF-8 is reported first, at its
 *  first bad byte; only whitespace is EMPTY; the offset lies in the input.
 *  The helpers agree with the parser: dlq_json_number_valid with what it
 *  takes for a number, dlq_json_find_duplicate before and after the round
 *  trip, dlq_json_as_int64 with the number's text.
 */
#include "dlq_json.h"
#include "fuzz_support.h"

#include <stdlib.h>
#include <string.h>

/* Are a and b the same value: types, texts, keys and children in order? */
static bool
same_value (const dlq_json_value_t *a, const dlq_json_value_t *b)
{
    if (a->type != b->type || a->len != b->len || a->count != b->count || a->key_len != b->key_len
    ||  (a->len && memcmp (a->str, b->str, a->len) != 0)
    ||  (a->key_len && memcmp (a->key, b->key, a->key_len) != 0))
        return false;
    const dlq_json_value_t *x = a->child, *y = b->child;
    size_t n = 0;
    for (; x && y; x = x->next, y = y->next, n++)
        if (!same_value (x, y))
            return false;
    return !x && !y && n == a->count;
}

/* An integer read by dlq_json_as_int64 is written as its text says; every
 * number is one by dlq_json_number_valid. */
static void
check_numbers (const dlq_json_value_t *v)
{
    int64_t n;
    FUZZ_CHECK (v->type != DLQ_JSON_NUMBER || dlq_json_number_valid (v->str, v->len));
    if (v->type == DLQ_JSON_NUMBER && dlq_json_as_int64 (v, &n)) {
        char text [32];
        FUZZ_CHECK (v->len < sizeof text);
        memcpy (text, v->str, v->len);
        text [v->len] = '\0';
        FUZZ_CHECK (strtoll (text, NULL, 10) == n);
        FUZZ_CHECK (strspn (text, "-0123456789") == v->len);
    }
    for (const dlq_json_value_t *c = v->child; c; c = c->next)
        check_numbers (c);
}

static bool
only_whitespace (const uint8_t *data, size_t size)
{
    for (size_t i = 0; i < size; i++)
        if (!strchr (" \t\r\n", data [i]) || data [i] == '\0')
            return false;
    return true;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    dlq_json_doc_t *doc = NULL;
    dlq_json_error_t err;
    size_t bad = 0;
    bool utf8 = dlq_utf8_valid ((const char *) data, size, &bad);
    dlq_json_result_t rc = dlq_json_parse ((const char *) data, size, &doc, &err);
    bool number = rc == DLQ_JSON_OK && dlq_json_root (doc)->type == DLQ_JSON_NUMBER
               && dlq_json_root (doc)->len == size;
    FUZZ_CHECK (number == dlq_json_number_valid ((const char *) data, size));
    FUZZ_CHECK ((rc == DLQ_JSON_ERR_UTF8) == !utf8);
    FUZZ_CHECK ((rc == DLQ_JSON_ERR_EMPTY) == only_whitespace (data, size));
    if (rc != DLQ_JSON_OK) {
        FUZZ_CHECK (doc == NULL);
        FUZZ_CHECK (err.offset <= size);
        FUZZ_CHECK (memchr (err.message, '\0', sizeof err.message) && err.message [0]);
        FUZZ_CHECK (utf8 || err.offset == bad);
        return 0;
    }
    const dlq_json_value_t *root = dlq_json_root (doc);
    check_numbers (root);
    dlq_buf_t once = DLQ_BUF_INIT, twice = DLQ_BUF_INIT;
    dlq_json_write (&once, root);
    FUZZ_CHECK (dlq_utf8_valid (once.data, once.len, NULL));
    dlq_json_doc_t *again = NULL;
    FUZZ_CHECK (dlq_json_parse (once.data, once.len, &again, NULL) == DLQ_JSON_OK);
    FUZZ_CHECK (same_value (root, dlq_json_root (again)));
    char path [128], path_again [128];
    const dlq_json_value_t *dup = dlq_json_find_duplicate (root, path, sizeof path);
    const dlq_json_value_t *dup_again = dlq_json_find_duplicate (dlq_json_root (again), path_again, sizeof path_again);
    FUZZ_CHECK ((dup == NULL) == (dup_again == NULL) && strcmp (path, path_again) == 0);
    FUZZ_CHECK (!dup || (dup->key && (path [0] || dup->key_len == 0)));    /* a repeated "" has path "" */
    dlq_json_write (&twice, dlq_json_root (again));
    FUZZ_CHECK (once.len == twice.len && memcmp (once.data, twice.data, once.len) == 0);
    FUZZ_CHECK (once.len <= 6 * size + 2);
    dlq_buf_free (&once);
    dlq_buf_free (&twice);
    dlq_json_doc_destroy (&again);
    dlq_json_doc_destroy (&doc);
    FUZZ_CHECK (doc == NULL);
    return 0;
}
