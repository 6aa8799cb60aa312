/*  test_verb_table — the verb table is whole and is what the docs say:
 *  every verb has exactly one row, names are found exactly (upper case, no
 *  prefixes), the UNKNOWN_VERB message names every verb without being cut,
 *  and docs/protocol.md's verb table is the one the table formats.
 */
#include "verb_table.h"

#include "dlq_code.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DOCS_BEGIN "<!-- verb table: made by dlq_verb_table_format_docs (router/frontend/verb_table.c); test_verb_table checks it -->\n"
#define DOCS_END "<!-- end of the verb table -->\n"

Test (verb_table, every_verb_has_exactly_one_row)
{
    size_t count = 0;
    const dlq_verb_spec_t *rows = dlq_verb_table_rows (&count);
    cr_assert_eq (count, DLQ_VERB_CKPT_DELETE, "one row per verb");
    for (int v = DLQ_VERB_PUT; v <= DLQ_VERB_CKPT_DELETE; v++) {
        int seen = 0;
        for (size_t i = 0; i < count; i++)
            seen += rows [i].verb == (dlq_verb_t) v;
        cr_expect_eq (seen, 1, "verb %d has %d rows", v, seen);
        cr_expect_not_null (dlq_verb_table_get ((dlq_verb_t) v));
        cr_expect_lt (dlq_verb_table_get ((dlq_verb_t) v)->lane, DLQ_LANE_COUNT);
    }
}

Test (verb_table, names_are_found_exactly)
{
    size_t count = 0;
    const dlq_verb_spec_t *rows = dlq_verb_table_rows (&count);
    for (size_t i = 0; i < count; i++) {
        const char *name = rows [i].name;
        cr_expect_eq (dlq_verb_table_find (name, strlen (name)), &rows [i], "%s", name);
        cr_expect_null (dlq_verb_table_find (name, strlen (name) - 1), "a prefix of %s", name);
        char lower [32];
        size_t n = strlen (name);
        for (size_t k = 0; k <= n; k++)
            lower [k] = (char) (name [k] >= 'A' && name [k] <= 'Z' ? name [k] + 32 : name [k]);
        cr_expect_null (dlq_verb_table_find (lower, n), "%s in lower case", name);
    }
    cr_expect_null (dlq_verb_table_find ("PUT\0", 4), "a NUL after the name");
    cr_expect_null (dlq_verb_table_find ("", 0));
}

Test (verb_table, the_unknown_verb_message_names_every_verb_uncut)
{
    dlq_buf_t names = DLQ_BUF_INIT;
    dlq_verb_table_names (&names);
    dlq_error_t err;
    dlq_error_set (&err, DLQ_ERR_UNKNOWN_VERB, NULL, "unknown verb; expected %s (upper case)", names.data);
    cr_expect (strstr (err.message, "(upper case)") != NULL, "cut: %s", err.message);
    size_t count = 0;
    const dlq_verb_spec_t *rows = dlq_verb_table_rows (&count);
    for (size_t i = 0; i < count; i++)
        cr_expect (strstr (names.data, rows [i].name) != NULL, "%s missing from %s", rows [i].name, names.data);
    cr_expect (strstr (names.data, " or CKPT.DELETE") != NULL, "%s", names.data);
    dlq_buf_free (&names);
}

static char *
read_file (const char *path)
{
    FILE *f = fopen (path, "rb");
    cr_assert_not_null (f, "cannot open %s", path);
    fseek (f, 0, SEEK_END);
    long len = ftell (f);
    fseek (f, 0, SEEK_SET);
    char *text = malloc ((size_t) len + 1);
    cr_assert_eq (fread (text, 1, (size_t) len, f), (size_t) len);
    text [len] = '\0';
    fclose (f);
    return text;
}

Test (verb_table, the_docs_verb_table_is_the_table)
{
    char *docs = read_file (DLQ_SOURCE_DIR "/docs/protocol.md");
    dlq_buf_t want = DLQ_BUF_INIT;
    dlq_verb_table_format_docs (&want);
    const char *begin = strstr (docs, DOCS_BEGIN), *end = begin ? strstr (begin, DOCS_END) : NULL;
    cr_assert (begin && end, "docs/protocol.md has no verb table between\n%s...\n%sIt should be:\n%s",
               DOCS_BEGIN, DOCS_END, want.data);
    begin += strlen (DOCS_BEGIN);
    cr_expect (want.len == (size_t) (end - begin) && memcmp (want.data, begin, want.len) == 0,
               "docs/protocol.md's verb table differs from router/frontend/verb_table.c; it should be:\n%s", want.data);
    dlq_buf_free (&want);
    free (docs);
}
