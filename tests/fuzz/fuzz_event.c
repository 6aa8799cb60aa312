/*  fuzz_event — a PUT body's way into the store, as the gateway takes it:
 *  FailedEvent decoding and validation, the stream policy, the
 *  fingerprint and the canonical encoding (core/failed_event,
 *  stream_policy, fingerprint). Oracle: the stored (canonical) form
 *  decodes to the same event with the same fingerprint, any store
 *  computing the fingerprint from the body gets it too, and encoding is a
 *  fixed point; a refusal carries one of PUT's documented codes. Every
 *  input is also fingerprinted as raw bytes (message and stack trace):
 *  16 hex digits, at most 512 bytes of message, valid UTF-8 kept valid.
 */
#include "dlq_json.h"
#include "failed_event.h"
#include "fingerprint.h"
#include "fuzz_support.h"
#include "stream_policy.h"

#include <string.h>

#define NOW_MS 1781000000000LL          /* 2026-06-09T10:13:20Z */

static dlq_policy_table_t *policies;

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
    static const dlq_policy_t defaults = { .retention_days = 30, .include_original_document = true,
                                           .include_stack_trace = true };
    static const dlq_policy_t forever = { .retention_days = 0, .include_original_document = false,
                                          .include_stack_trace = true };
    static const dlq_policy_t longest = { .retention_days = DLQ_RETENTION_DAYS_MAX,
                                          .include_original_document = true, .include_stack_trace = false };
    static const dlq_policy_t bare = { .retention_days = 1 };
    policies = dlq_policy_table_new (&defaults);
    dlq_policy_table_set (policies, "s0", &forever);
    dlq_policy_table_set (policies, "s1", &longest);
    dlq_policy_table_set (policies, "s2", &bare);
    return 0;
}

static bool
same_text (const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp (a, b) == 0);
}

static void
check_same_event (const dlq_event_t *a, const dlq_event_t *b)
{
    FUZZ_CHECK (same_text (a->id, b->id));
    FUZZ_CHECK (same_text (a->stream_name, b->stream_name));
    FUZZ_CHECK (same_text (a->operation_type, b->operation_type));
    FUZZ_CHECK (same_text (a->document_key, b->document_key));
    FUZZ_CHECK (same_text (a->full_document, b->full_document));
    FUZZ_CHECK (same_text (a->resume_token, b->resume_token));
    FUZZ_CHECK (same_text (a->error_type, b->error_type));
    FUZZ_CHECK (same_text (a->error_message, b->error_message));
    FUZZ_CHECK (same_text (a->error_stack_trace, b->error_stack_trace));
    FUZZ_CHECK (a->attempts == b->attempts);
    FUZZ_CHECK (same_text (a->status, b->status));
    FUZZ_CHECK (a->first_attempt_at == b->first_attempt_at);
    FUZZ_CHECK (a->last_attempt_at == b->last_attempt_at);
    FUZZ_CHECK (a->created_at == b->created_at);
    FUZZ_CHECK (a->expires_at == b->expires_at);
    FUZZ_CHECK (same_text (a->metadata, b->metadata));
}

static bool
is_hex16 (const char *s)
{
    return strlen (s) == 16 && strspn (s, "0123456789abcdef") == 16;
}

/* The fingerprint's pieces over raw bytes keep their documented bounds. */
static void
fingerprint_raw (const uint8_t *data, size_t size)
{
    dlq_fingerprint_t fp;
    dlq_fingerprint_of ("x", (const char *) data, size, (const char *) data, size, &fp);
    FUZZ_CHECK (is_hex16 (fp.hex));
    FUZZ_CHECK (fp.normalised_len <= DLQ_FINGERPRINT_MESSAGE_MAX && fp.normalised [fp.normalised_len] == '\0');
    dlq_buf_t message = DLQ_BUF_INIT, frames = DLQ_BUF_INIT;
    dlq_fingerprint_normalise_message ((const char *) data, size, &message);
    FUZZ_CHECK (message.len <= DLQ_FINGERPRINT_MESSAGE_MAX);
    if (dlq_utf8_valid ((const char *) data, size, NULL))
        FUZZ_CHECK (dlq_utf8_valid (message.data ? message.data : "", message.len, NULL));
    size_t n = dlq_fingerprint_top_frames ((const char *) data, size, DLQ_FINGERPRINT_FRAMES, &frames);
    FUZZ_CHECK (n <= DLQ_FINGERPRINT_FRAMES);
    size_t newlines = 0;                    /* n frames, one a line (a frame may be ""), joined by '\n' */
    for (size_t i = 0; i < frames.len; i++)
        newlines += frames.data [i] == '\n';
    FUZZ_CHECK (n == 0 ? frames.len == 0 : newlines == n - 1);
    dlq_buf_free (&message);
    dlq_buf_free (&frames);
}

static bool
is_put_refusal (dlq_code_t code)
{
    return code == DLQ_ERR_INVALID_UTF8 || code == DLQ_ERR_INVALID_JSON || code == DLQ_ERR_EMPTY_BODY
        || code == DLQ_ERR_INVALID_EVENT || code == DLQ_ERR_INVALID_TIMESTAMP;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    fingerprint_raw (data, size);
    dlq_error_t err = { DLQ_OK, "", "" };
    dlq_event_t *event = dlq_event_decode ((const char *) data, size, NOW_MS, &err);
    if (!event) {
        FUZZ_CHECK (is_put_refusal (err.code));
        FUZZ_CHECK (memchr (err.message, '\0', sizeof err.message) && err.message [0]);
        FUZZ_CHECK (memchr (err.field, '\0', sizeof err.field));
        return 0;
    }
    const dlq_policy_t *policy = dlq_policy_table_lookup (policies, event->stream_name);
    dlq_policy_apply (policy, event);
    dlq_event_fingerprint (event);
    dlq_event_encode (event);
    FUZZ_CHECK (is_hex16 (event->fingerprint));
    FUZZ_CHECK (event->json && strlen (event->json) == event->json_len);
    FUZZ_CHECK (dlq_utf8_valid (event->json, event->json_len, NULL));
    dlq_fingerprint_t from_body;
    FUZZ_CHECK (dlq_fingerprint_of_event (event->json, event->json_len, &from_body));
    FUZZ_CHECK (strcmp (from_body.hex, event->fingerprint) == 0);

    dlq_error_t again_err = { DLQ_OK, "", "" };
    dlq_event_t *stored = dlq_event_decode (event->json, event->json_len, NOW_MS + 86400000, &again_err);
    if (!stored)
        fuzz_fail ("the stored form is refused: %s %s: %s\n%s", dlq_code_name (again_err.code), again_err.field,
                   again_err.message, event->json);
    check_same_event (event, stored);
    dlq_event_fingerprint (stored);
    FUZZ_CHECK (strcmp (stored->fingerprint, event->fingerprint) == 0);
    dlq_policy_apply (policy, stored);
    dlq_event_encode (stored);
    FUZZ_CHECK (stored->json_len == event->json_len && memcmp (stored->json, event->json, event->json_len) == 0);
    dlq_event_destroy (&stored);
    dlq_event_destroy (&event);
    FUZZ_CHECK (event == NULL);
    return 0;
}
