/*  test_replay_lineage — a replayed body: metadata.replayOf / replayCount
 *  set (added, or replacing an earlier replay's), every other member's
 *  bytes and order kept, a body without metadata, bad input refused. */
#include "dlq_json.h"
#include "event_support.h"
#include "replay_lineage.h"

#include <criterion/criterion.h>
#include <string.h>

#define ID "0190a0b2-4c1d-7e5f-8a9b-0c1d2e3f4a5b"

static char *
lineage (const char *json, int64_t count)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    cr_assert (dlq_replay_lineage (json, strlen (json), ID, count, &out), "%s refused", json);
    dlq_buf_putc (&out, '\0');
    return dlq_buf_steal (&out, NULL);
}

Test (replay_lineage, adds_lineage_to_existing_metadata)
{
    char *out = lineage ("{\"id\":\"x\",\"metadata\":{\"tenant\":\"acme\",\"n\":1.50}}", 1);
    cr_assert_str_eq (out, "{\"id\":\"x\",\"metadata\":{\"tenant\":\"acme\",\"n\":1.50,"
                           "\"replayOf\":\"" ID "\",\"replayCount\":1}}");
    free (out);
}

Test (replay_lineage, replaces_an_earlier_replays_lineage)
{
    char *first = lineage ("{\"a\":[1,{\"b\":null}],\"metadata\":{\"k\":true}}", 1);
    char *second = lineage (first, 2);
    cr_assert_str_eq (second, "{\"a\":[1,{\"b\":null}],\"metadata\":{\"k\":true,"
                              "\"replayOf\":\"" ID "\",\"replayCount\":2}}");
    free (first);
    free (second);
}

Test (replay_lineage, a_body_without_metadata_gets_it_last)
{
    char *out = lineage ("{\"id\":\"x\",\"attempts\":3}", 7);
    cr_assert_str_eq (out, "{\"id\":\"x\",\"attempts\":3,\"metadata\":{\"replayOf\":\"" ID "\",\"replayCount\":7}}");
    free (out);
    out = lineage ("{}", 1);
    cr_assert_str_eq (out, "{\"metadata\":{\"replayOf\":\"" ID "\",\"replayCount\":1}}");
    free (out);
}

Test (replay_lineage, the_canonical_wire_example_keeps_every_other_byte)
{
    dlq_event_t *e = event_wire_example ();
    char *out = lineage (e->json, 3);
    /* Taking the lineage out again gives the stored body back exactly. */
    const char *tail = ",\"replayOf\":\"" ID "\",\"replayCount\":3}";
    char *at = strstr (out, tail);
    cr_assert_not_null (at, "%s", out);
    dlq_buf_t back = DLQ_BUF_INIT;
    dlq_buf_append (&back, out, (size_t) (at - out));
    dlq_buf_puts (&back, at + strlen (tail) - 1);
    cr_assert_eq (back.len, e->json_len);
    cr_assert (memcmp (back.data, e->json, e->json_len) == 0, "%.*s\n%.*s", (int) back.len, back.data,
               (int) e->json_len, e->json);
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (out, strlen (out), &doc, NULL), DLQ_JSON_OK);
    const dlq_json_value_t *md = dlq_json_get (dlq_json_root (doc), "metadata");
    cr_assert_str_eq (dlq_json_get (md, "replayOf")->str, ID);
    dlq_json_doc_destroy (&doc);
    dlq_buf_free (&back);
    free (out);
    dlq_event_destroy (&e);
}

Test (replay_lineage, refuses_what_is_not_an_object)
{
    const char *bad [] = { "[1]", "\"s\"", "{", "", "{\"a\":1}x" };
    for (size_t i = 0; i < sizeof bad / sizeof bad [0]; i++) {
        dlq_buf_t out = DLQ_BUF_INIT;
        cr_assert_not (dlq_replay_lineage (bad [i], strlen (bad [i]), ID, 1, &out), "%s", bad [i]);
        cr_assert_eq (out.len, 0);
        dlq_buf_free (&out);
    }
}
