/*  dlqc_body — a JSON object for a request body, appended to member by
 *  member.
 */
#include "dlqc_body.h"
#include "dlqc_json.h"
#include "dlq_alloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Make room for more bytes and the NUL. */
static void
reserve (dlqc_body_t *self, size_t more)
{
    if (self->len + more + 1 <= self->size)
        return;
    size_t size = self->size ? self->size : 64;
    while (size < self->len + more + 1)
        size *= 2;
    self->data = dlq_realloc (self->data, size);
    self->size = size;
}

static void
append (dlqc_body_t *self, const char *text, size_t len)
{
    reserve (self, len);
    memcpy (self->data + self->len, text, len);
    self->len += len;
    self->data [self->len] = '\0';
}

/* Append s as an escaped JSON string literal. */
static void
append_escaped (dlqc_body_t *self, const char *s)
{
    size_t len = strlen (s);
    reserve (self, 6 * len + 2);
    self->len += dlqc_json_escape (self->data + self->len, s, len);
    self->data [self->len] = '\0';
}

/* The separator before a member (none right after '{'), the key and ':'. */
static void
start_member (dlqc_body_t *self, const char *key)
{
    if (self->data [self->len - 1] != '{')
        append (self, ",", 1);
    append_escaped (self, key);
    append (self, ":", 1);
}

void
dlqc_body_init (dlqc_body_t *self)
{
    memset (self, 0, sizeof *self);
    append (self, "{", 1);
}

void
dlqc_body_string (dlqc_body_t *self, const char *key, const char *value)
{
    start_member (self, key);
    append_escaped (self, value);
}

void
dlqc_body_int (dlqc_body_t *self, const char *key, int64_t value)
{
    char text [24];
    snprintf (text, sizeof text, "%" PRId64, value);
    dlqc_body_literal (self, key, text);
}

void
dlqc_body_literal (dlqc_body_t *self, const char *key, const char *text)
{
    start_member (self, key);
    append (self, text, strlen (text));
}

void
dlqc_body_string_array (dlqc_body_t *self, const char *key, const char *const *values, size_t count)
{
    start_member (self, key);
    append (self, "[", 1);
    for (size_t i = 0; i < count; i++) {
        if (i)
            append (self, ",", 1);
        append_escaped (self, values [i]);
    }
    append (self, "]", 1);
}

void
dlqc_body_open (dlqc_body_t *self, const char *key)
{
    start_member (self, key);
    append (self, "{", 1);
}

void
dlqc_body_close (dlqc_body_t *self)
{
    append (self, "}", 1);
}

void
dlqc_body_free (dlqc_body_t *self)
{
    free (self->data);
    memset (self, 0, sizeof *self);
}
