/*  fuzz_checkpoint — the bodies of the checkpoint writes as the gateway
 *  reads them (router/checkpoints/checkpoint_verbs: CKPT.SAVE, CKPT.SEEN,
 *  CKPT.PROCESSED, CKPT.DELETE) and the records and tokens they carry
 *  (core/checkpoint).
 *
 *  Input: one byte choosing the verb, then the body. Oracles: a refusal
 *  has one of the documented codes and a message; what is accepted is
 *  formatted as the record a store answers with, that record read back
 *  as a CKPT.SAVE body is the same record, and formatting it again gives
 *  the same bytes (tokens and metadata as compact JSON, timestamps in
 *  UTC with milliseconds).
 */
#include "checkpoint.h"
#include "checkpoint_verbs.h"
#include "dlq_json.h"
#include "fuzz_support.h"

#include <string.h>

static const dlq_verb_t write_verbs [] = {
    DLQ_VERB_CKPT_SAVE, DLQ_VERB_CKPT_SEEN, DLQ_VERB_CKPT_PROCESSED, DLQ_VERB_CKPT_DELETE
};

static bool
same_text (const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp (a, b) == 0);
}

static void
check_same_record (const dlq_sink_checkpoint_t *a, const dlq_sink_checkpoint_t *b)
{
    FUZZ_CHECK (same_text (a->stream_name, b->stream_name));
    FUZZ_CHECK (same_text (a->instance_id, b->instance_id));
    FUZZ_CHECK (same_text (a->last_seen_token, b->last_seen_token));
    FUZZ_CHECK (a->last_seen_at == b->last_seen_at);
    FUZZ_CHECK (same_text (a->last_processed_token, b->last_processed_token));
    FUZZ_CHECK (a->last_processed_at == b->last_processed_at);
    FUZZ_CHECK (same_text (a->metadata, b->metadata));
}

static bool
is_ckpt_refusal (dlq_code_t code)
{
    return code == DLQ_ERR_EMPTY_BODY || code == DLQ_ERR_INVALID_UTF8 || code == DLQ_ERR_INVALID_JSON
        || code == DLQ_ERR_INVALID_REQUEST || code == DLQ_ERR_INVALID_TIMESTAMP;
}

/* A record as a store formats it, read back by CKPT.SAVE: the same record. */
static void
round_trip (const dlq_sink_checkpoint_t *record)
{
    dlq_buf_t once = DLQ_BUF_INIT, twice = DLQ_BUF_INIT;
    dlq_checkpoint_format (record, &once);
    FUZZ_CHECK (dlq_utf8_valid (once.data, once.len, NULL));
    dlq_checkpoint_t again;
    bool remove = true;
    dlq_error_t err;
    if (dlq_ckpt_read_write (DLQ_VERB_CKPT_SAVE, once.data, once.len, &again, &remove, &err) != DLQ_OK)
        fuzz_fail ("the record is refused by CKPT.SAVE: %s: %s\n%s", err.field, err.message, once.data);
    FUZZ_CHECK (!remove);
    check_same_record (record, &again.record);
    dlq_checkpoint_format (&again.record, &twice);
    FUZZ_CHECK (once.len == twice.len && memcmp (once.data, twice.data, once.len) == 0);
    dlq_checkpoint_clear (&again);
    dlq_buf_free (&once);
    dlq_buf_free (&twice);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    dlq_verb_t verb = write_verbs [data [0] % (sizeof write_verbs / sizeof write_verbs [0])];
    dlq_checkpoint_t value;
    bool remove = false;
    dlq_error_t err = { DLQ_OK, "", "" };
    dlq_code_t code = dlq_ckpt_read_write (verb, data + 1, size - 1, &value, &remove, &err);
    if (code != DLQ_OK) {
        FUZZ_CHECK (is_ckpt_refusal (code) && err.code == code);
        FUZZ_CHECK (memchr (err.message, '\0', sizeof err.message) && err.message [0]);
        dlq_checkpoint_clear (&value);
        return 0;
    }
    const dlq_sink_checkpoint_t *r = &value.record;
    FUZZ_CHECK (remove == (verb == DLQ_VERB_CKPT_DELETE));
    FUZZ_CHECK (r->stream_name && strlen (r->stream_name) >= 1 && strlen (r->stream_name) <= DLQ_CKPT_STREAM_MAX);
    FUZZ_CHECK (!r->instance_id || strlen (r->instance_id) <= DLQ_CKPT_INSTANCE_MAX);
    FUZZ_CHECK (!r->last_seen_token || strlen (r->last_seen_token) <= DLQ_CKPT_TOKEN_MAX);
    FUZZ_CHECK (!r->last_processed_token || strlen (r->last_processed_token) <= DLQ_CKPT_TOKEN_MAX);
    FUZZ_CHECK (!r->metadata || strlen (r->metadata) <= DLQ_CKPT_METADATA_MAX);
    FUZZ_CHECK (verb != DLQ_VERB_CKPT_SEEN || (r->last_seen_token && r->last_seen_at != DLQ_SINK_TIME_NONE));
    FUZZ_CHECK (verb != DLQ_VERB_CKPT_PROCESSED
                || (r->last_processed_token && r->last_processed_at != DLQ_SINK_TIME_NONE));
    round_trip (r);
    dlq_checkpoint_clear (&value);
    return 0;
}
