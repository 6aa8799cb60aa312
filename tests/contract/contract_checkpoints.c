/*  contract_checkpoints — what a store that keeps checkpoints
 *  (ops->checkpoints not NULL) must answer through a QUERY instance:
 *  FlowWarden's CheckpointStore contract as the CKPT.* verbs use it
 *  (docs/writing-a-sink.md):
 *
 *    - each kind of write: SEEN / PROCESSED on a missing record create it
 *      with only their pair, on a record change only their pair (and
 *      updatedAt), also when given the other fields; SAVE replaces every
 *      field; each write answers the record after it, as GET does, as
 *      core's dlq_checkpoint_format writes it;
 *    - tokens and metadata come back byte for byte (key order, escapes,
 *      unicode, numbers as written, extended JSON wrappers, duplicate
 *      keys, nesting); timestamps to the millisecond, from year 1 to 9999;
 *    - GET of a missing record is NOT_FOUND (names compared byte for
 *      byte); remove says whether there was a record;
 *    - LIST pages in byte order of the name (names with %, _, \, regular
 *      expression characters and non-ASCII bytes), with a literal prefix,
 *      a keyset cursor, BAD_CURSOR for a name that cannot be one; an
 *      empty store lists an empty page;
 *    - two instances writing SEEN and PROCESSED of one stream at once
 *      never undo each other; first writes of new streams racing from two
 *      instances all succeed.
 *
 *  The checks are plugin_checkpoints.h's, over the sink under test
 *  (contract_plugin); what a backend keeps behind the calls (rows,
 *  documents, their types, migrations) its own itest_<backend>_ckpt
 *  checks, and so the texts only some backends hold (postgres keeps a
 *  token JSONB refuses as text; mongo refuses one libbson cannot read).
 *  Every test is skipped for a sink that keeps no checkpoints.
 */
#include "contract.h"

#include "checkpoint.h"
#include "dlq_time.h"
#include "plugin_checkpoints.h"
#include "plugin_host.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOW     PLUGIN_CKPT_NOW
#define RACED   1000            /* new streams two instances write first at once */

static plugin_ckpt_t ck;        /* the sink under test, its reader (closed by the fixture) */

/* Load the sink; only a store that keeps checkpoints is tested. */
static void
checkpoints_setup (void)
{
    memset (&ck, 0, sizeof ck);
    contract_setup ();
    contract_require_checkpoints ();
    ck.plugin = contract_plugin ();
    ck.reader = contract_open (DLQ_SINK_MODE_QUERY);
}

TestSuite (checkpoints, .init = checkpoints_setup, .fini = contract_teardown);

/* ---- writes --------------------------------------------------------------------------- */

Test (checkpoints, seen_or_processed_on_a_missing_record_creates_it_with_only_that_pair)
{
    plugin_ckpt_expect_first_writes (&ck, NULL);
}

Test (checkpoints, seen_and_processed_never_touch_the_other_fields)
{
    plugin_ckpt_expect_pairs_only (&ck, NULL);
}

Test (checkpoints, save_replaces_every_field)
{
    dlq_sink_checkpoint_t instance_only = dlq_checkpoint_empty ("orders");
    instance_only.instance_id = "worker-8";
    plugin_ckpt_expect_saves (&ck, &instance_only, NULL, NULL);
    dlq_sink_checkpoint_t with_processed = instance_only;
    with_processed.last_processed_token = "{\"_data\":\"8300\"}";
    with_processed.last_processed_at = NOW + 1000;
    plugin_ckpt_expect_saves (&ck, &with_processed, NULL, NULL);
}

/* Texts as the gateway's dlq_json_write makes them: key order, escapes,
 * unicode, numbers as written, wrappers a BSON library writes otherwise,
 * a duplicate key, nesting, the empty object. */
static const char *const texts [] = {
    "{\"x\":{\"$numberLong\":\"5\"}}",
    "{\"_data\":\"826A\",\"z\":1,\"a\":{\"$numberLong\":\"9007199254740993\"}}",
    "{\"k\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\",\"esc\":\"\\\"\\\\\\n\\t\\u0001\"}",
    "{\"k\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\",\"esc\":\"\\\"\\\\\\n\\t\\u0001\","
    "\"\xe6\x97\xa5\":\"\xe6\x9c\xac\"}",
    "{\"n\":1.50,\"m\":-0,\"e\":1E+2,\"f\":[0.1e-3,100000000000000000000000000001]}",
    "{\"nested\":{\"deep\":[{\"x\":[]},{}]},\"empty\":\"\"}",
    "{\"nested\":{\"deep\":[{\"x\":[]},{}],\"o\":{\"p\":{\"q\":{\"r\":null}}}},\"empty\":\"\"}",
    "{\"_typeBits\":{\"$binary\":{\"base64\":\"gAE=\",\"subType\":\"00\"}},\"_data\":\"01\"}",
    "{\"dec\":{\"$numberDecimal\":\"1.10\"},\"i\":{\"$numberInt\":\"7\"},"
    "\"t\":{\"$date\":{\"$numberLong\":\"1781000000000\"}},\"id\":{\"$oid\":\"0123456789abcdef01234567\"}}",
    "{\"a\":1,\"a\":2}",
    "{}",
};

Test (checkpoints, tokens_and_metadata_come_back_byte_for_byte)
{
    plugin_ckpt_expect_texts (&ck, texts, sizeof texts / sizeof texts [0], NULL);
}

Test (checkpoints, timestamps_to_the_millisecond)
{
    static const char *const times [] = {
        "1970-01-01T00:00:00.000Z", "1969-12-31T23:59:59.999Z", "0001-01-01T00:00:00.000Z",
        "9999-12-31T23:59:59.999Z", "2026-06-09T14:32:13.007Z", "2000-02-29T12:00:00.999Z",
    };
    for (size_t i = 0; i < sizeof times / sizeof times [0]; i++) {
        int64_t at = 0;
        cr_assert (dlq_time_parse_iso (times [i], strlen (times [i]), &at));
        dlq_sink_checkpoint_t seen = plugin_ckpt_token (DLQ_SINK_CKPT_SEEN, "t", "{\"_data\":\"1\"}", at);
        dlq_sink_checkpoint_t done = plugin_ckpt_token (DLQ_SINK_CKPT_PROCESSED, "t", "{\"_data\":\"2\"}", at);
        free (plugin_ckpt_write (&ck, ck.reader, DLQ_SINK_CKPT_SEEN, &seen, at));
        char *answer = plugin_ckpt_write (&ck, ck.reader, DLQ_SINK_CKPT_PROCESSED, &done, at);
        char *again = plugin_ckpt_get (&ck, "t");
        char want [256];
        snprintf (want, sizeof want, "{\"streamName\":\"t\",\"lastSeenToken\":{\"_data\":\"1\"},\"lastSeenTimestamp\":"
                  "\"%s\",\"lastProcessedToken\":{\"_data\":\"2\"},\"lastProcessedTimestamp\":\"%s\","
                  "\"updatedAt\":\"%s\"}", times [i], times [i], times [i]);
        cr_expect_str_eq (answer, want, "the answer");
        cr_expect_str_eq (again ? again : "(NOT_FOUND)", want, "GET");
        free (again);
        free (answer);
    }
}

/* ---- get and remove ---------------------------------------------------------------------- */

Test (checkpoints, get_of_a_missing_record_is_not_found)
{
    plugin_ckpt_expect_not_found (&ck);
}

Test (checkpoints, remove_says_whether_there_was_a_record)
{
    plugin_ckpt_expect_remove (&ck, NULL);
}

/* ---- list ------------------------------------------------------------------------------- */

Test (checkpoints, list_pages_in_byte_order_with_a_literal_prefix)
{
    plugin_ckpt_store_names (&ck);
    plugin_ckpt_expect_list_pages (&ck);
}

Test (checkpoints, a_cursor_is_a_position_in_byte_order)
{
    plugin_ckpt_store_names (&ck);
    plugin_ckpt_expect_cursors (&ck);
}

Test (checkpoints, list_of_a_store_without_records_is_an_empty_page)
{
    dlq_buf_t page = DLQ_BUF_INIT, next = DLQ_BUF_INIT;
    cr_assert_eq (sut.ops->checkpoints->list (ck.reader, "", 100, NULL, dlq_plugin_host_buf (&page),
                                              dlq_plugin_host_buf (&next)),
                  DLQ_SINK_STATUS_OK, "%s", plugin_ckpt_error (&ck, ck.reader));
    dlq_buf_putc (&page, '\0');
    cr_expect_str_eq (page.data, "[]");
    cr_expect_eq (next.len, 0, "no cursor");
    dlq_buf_free (&page);
    dlq_buf_free (&next);
}

/* ---- writers at once -------------------------------------------------------------------------- */

Test (checkpoints, two_instances_writing_seen_and_processed_never_undo_each_other)
{
    plugin_ckpt_expect_two_writers (&ck);
}

Test (checkpoints, first_writes_of_new_streams_racing_all_succeed)
{
    plugin_ckpt_expect_racing_first_writes (&ck, RACED);
}
