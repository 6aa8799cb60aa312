/*  log_json — one log line as a JSON object (log_format = "json"):
 *      {"time":"2026-06-09T14:32:11.123Z","level":"warn","pid":1234,
 *       "message":"sink pg: event ... failed after 10 attempts: ...",
 *       "sink":"pg","eventId":"0192..."}
 *  The fields after the message are read off the message where it names
 *  one, as dlqd's messages do: "sink NAME: ..." or "sink NAME (TYPE) ..."
 *  gives sink, "schedule NAME: ..." gives stream, the first UUID in the
 *  message gives eventId (not in an audit line, whose ids may be a job's),
 *  and an audit line ("audit: {...}") gives its principal. Bytes that are not UTF-8 become U+FFFD; the line always fits
 *  the buffer (the message is cut at a character to make room) and is
 *  always one valid JSON object. Pure.
 */
#ifndef DLQ_LOG_JSON_H
#define DLQ_LOG_JSON_H

#include <stddef.h>

/* Write the object and a newline into out (cap bytes, at least 256): the
 * message is text (len bytes) followed by suffix (NUL-terminated; a
 * repeat count). Returns the bytes written. */
size_t dlq_log_json_line (char *out, size_t cap, const char *iso_time, const char *level, int pid,
                          const char *text, size_t len, const char *suffix);

#endif
