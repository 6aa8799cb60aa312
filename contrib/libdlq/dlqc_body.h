/*  dlqc_body — request bodies built member by member (internal, not
 *  installed).
 *
 *  A request body is one JSON object. Members are appended in the order
 *  given, keys and string values escaped (dlqc_json_escape), numbers and
 *  literals written as given; an object member is opened and closed
 *  around its own members. The text grows as needed (allocation failure
 *  aborts, as everywhere in libdlq) and is NUL-terminated at all times.
 */
#ifndef DLQC_BODY_H
#define DLQC_BODY_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    char   *data;       /* NUL-terminated text */
    size_t  len;        /* bytes before the NUL */
    size_t  size;       /* bytes allocated */
} dlqc_body_t;

/* Start a body: the text is "{". */
void dlqc_body_init (dlqc_body_t *self);

/* Append "key":"value" (both escaped). */
void dlqc_body_string (dlqc_body_t *self, const char *key, const char *value);

/* Append "key":value with value as a decimal integer. */
void dlqc_body_int (dlqc_body_t *self, const char *key, int64_t value);

/* Append "key":text with text copied as is: JSON the caller made (a
 * number, true, false, an escaped string). */
void dlqc_body_literal (dlqc_body_t *self, const char *key, const char *text);

/* Append "key":["v1","v2",...] with the count strings of values (each
 * escaped). */
void dlqc_body_string_array (dlqc_body_t *self, const char *key, const char *const *values, size_t count);

/* Append "key":{ ; the members that follow go into this object until
 * dlqc_body_close. */
void dlqc_body_open (dlqc_body_t *self, const char *key);

/* Close the innermost open object (the body itself last): "}". */
void dlqc_body_close (dlqc_body_t *self);

/* Free the text; the body is empty afterwards. */
void dlqc_body_free (dlqc_body_t *self);

#endif
