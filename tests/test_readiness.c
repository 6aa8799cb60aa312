/*  test_readiness — what /readyz answers: starting until the listeners are
 *  bound, ready, the log's trouble while the last commit failed (and ready
 *  again after one that synced), the disk below http.min_free_bytes, and
 *  stopping once the drain began; each body one JSON object naming the
 *  reason.
 */
#include "dlq_json.h"
#include "readiness.h"

#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

static dlq_readiness_reason_t
check (dlq_readiness_t *r, const char *want_reason, const char *needle)
{
    dlq_buf_t body = DLQ_BUF_INIT;
    dlq_readiness_reason_t got = dlq_readiness_check (r, &body);
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (body.data, body.len, &doc, NULL), DLQ_JSON_OK, "%.*s", (int) body.len, body.data);
    const dlq_json_value_t *ready = dlq_json_get (dlq_json_root (doc), "ready");
    cr_assert (ready && (ready->type == DLQ_JSON_TRUE) == (got == DLQ_READY), "%.*s", (int) body.len, body.data);
    const dlq_json_value_t *reason = dlq_json_get (dlq_json_root (doc), "reason");
    if (want_reason)
        cr_expect (reason && reason->len == strlen (want_reason) && !memcmp (reason->str, want_reason, reason->len),
                   "%.*s", (int) body.len, body.data);
    else
        cr_expect_null (reason);
    if (needle)
        cr_expect (memmem (body.data, body.len, needle, strlen (needle)), "%s in %.*s", needle, (int) body.len,
                   body.data);
    dlq_json_doc_destroy (&doc);
    dlq_buf_free (&body);
    return got;
}

Test (readiness, follows_the_listeners_the_log_and_the_drain)
{
    dlq_readiness_t *r = dlq_readiness_new ("/tmp", 0);
    cr_expect_eq (check (r, "starting", NULL), DLQ_UNREADY_STARTING);
    dlq_readiness_bound (r);
    cr_expect_eq (check (r, NULL, NULL), DLQ_READY);
    dlq_readiness_commit (r, "No space left on device");
    cr_expect_eq (check (r, "log", "No space left on device"), DLQ_UNREADY_LOG);
    dlq_readiness_commit (r, NULL);
    cr_expect_eq (check (r, NULL, NULL), DLQ_READY, "ready again after a commit that synced");
    dlq_readiness_stopping (r);
    cr_expect_eq (check (r, "stopping", NULL), DLQ_UNREADY_STOPPING);
    dlq_readiness_destroy (&r);
    cr_expect_null (r);
}

Test (readiness, too_little_free_space_is_the_disk)
{
    dlq_readiness_t *r = dlq_readiness_new ("/tmp", INT64_MAX / 2);
    dlq_readiness_bound (r);
    cr_expect_eq (check (r, "disk", "http.min_free_bytes"), DLQ_UNREADY_DISK);
    dlq_readiness_destroy (&r);
    r = dlq_readiness_new ("/nonexistent/dir", 0);
    dlq_readiness_bound (r);
    cr_expect_eq (check (r, "log", "not writable"), DLQ_UNREADY_LOG);
    dlq_readiness_destroy (&r);
}

Test (readiness, reasons_have_names)
{
    cr_expect_str_eq (dlq_readiness_reason_name (DLQ_READY), "ready");
    cr_expect_str_eq (dlq_readiness_reason_name (DLQ_UNREADY_DISK), "disk");
    cr_expect_str_eq (dlq_readiness_reason_name ((dlq_readiness_reason_t) 99), "unknown");
}
