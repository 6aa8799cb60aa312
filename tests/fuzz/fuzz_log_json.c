/*  fuzz_log_json — a log line written as one JSON object (core/log_json,
 *  log_format = "json"): its message holds bytes from outside (stream
 *  names, error texts, audit requests), any bytes at all.
 *
 *  Input: the message, then FUZZ_US and the suffix (a repeat count's text).
 *  Oracles: the line fits its buffer and ends with its only newline; it is
 *  one JSON object (the project's parser) whose time, level and message
 *  are strings and pid a number; every field read off the message (sink,
 *  stream, eventId, principal) is a string; the message keeps the suffix
 *  whole at its end when the suffix is plain ASCII text.
 */
#include "dlq_json.h"
#include "fuzz_support.h"
#include "log_json.h"

#include <stdlib.h>
#include <string.h>

#define LINE 2048

static void
expect_string (const dlq_json_value_t *root, const char *name, bool required)
{
    const dlq_json_value_t *v = dlq_json_get (root, name);
    FUZZ_CHECK (v ? v->type == DLQ_JSON_STRING : !required);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    fuzz_span_t f [2];
    size_t n = fuzz_split (data, size, FUZZ_US, f, 2);
    char suffix [128] = "";
    bool plain = true;
    if (n == 2) {
        size_t k = f [1].len < sizeof suffix - 1 ? f [1].len : sizeof suffix - 1;
        memcpy (suffix, f [1].data, k);
        suffix [k] = '\0';
        for (size_t i = 0; i < strlen (suffix); i++)
            plain = plain && suffix [i] >= 0x20 && suffix [i] < 0x7f && suffix [i] != '"' && suffix [i] != '\\';
    }
    char out [LINE];
    size_t len = dlq_log_json_line (out, sizeof out, "2026-12-03T10:00:00.000Z", "warn", 7,
                                    (const char *) f [0].data, f [0].len, suffix);
    FUZZ_CHECK (len > 0 && len < sizeof out);
    FUZZ_CHECK (out [len - 1] == '\n' && !memchr (out, '\n', len - 1));
    dlq_json_doc_t *doc = NULL;
    FUZZ_CHECK (dlq_json_parse (out, len - 1, &doc, NULL) == DLQ_JSON_OK);
    const dlq_json_value_t *root = dlq_json_root (doc);
    FUZZ_CHECK (root->type == DLQ_JSON_OBJECT);
    expect_string (root, "time", true);
    expect_string (root, "level", true);
    expect_string (root, "message", true);
    const dlq_json_value_t *pid = dlq_json_get (root, "pid");
    FUZZ_CHECK (pid && pid->type == DLQ_JSON_NUMBER);
    static const char *const fields [] = { "sink", "stream", "eventId", "principal" };
    for (size_t i = 0; i < 4; i++)
        expect_string (root, fields [i], false);
    const dlq_json_value_t *m = dlq_json_get (root, "message");
    size_t tail = strlen (suffix);
    if (plain && tail)
        FUZZ_CHECK (m->len >= tail && memcmp (m->str + m->len - tail, suffix, tail) == 0);
    dlq_json_doc_destroy (&doc);
    return 0;
}
