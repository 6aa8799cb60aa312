/*  dlqc_ckpt — CKPT.* request bodies, and checkpoint records read from
 *  replies.
 */
#include "dlqc_ckpt.h"
#include "dlqc_json.h"
#include "dlq_alloc.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The members of a record: their key, whether the value is an object
 * (kept as text) or a string (decoded), and where it goes. */
typedef struct {
    const char *key;
    bool        object;
    size_t      offset;         /* of the const char * in dlq_client_checkpoint_t */
} member_t;

#define MEMBER(key, object, field) { key, object, offsetof (dlq_client_checkpoint_t, field) }

static const member_t members [] = {
    MEMBER ("streamName",             false, stream_name),
    MEMBER ("instanceId",             false, instance_id),
    MEMBER ("lastSeenToken",          true,  last_seen_token),
    MEMBER ("lastSeenTimestamp",      false, last_seen_timestamp),
    MEMBER ("lastProcessedToken",     true,  last_processed_token),
    MEMBER ("lastProcessedTimestamp", false, last_processed_timestamp),
    MEMBER ("metadata",               true,  metadata),
    MEMBER ("updatedAt",              false, updated_at),
};

#define MEMBER_COUNT (sizeof members / sizeof members [0])

static const char **
field_of (dlq_client_checkpoint_t *c, const member_t *m)
{
    return (const char **) (void *) ((char *) c + m->offset);
}

static const char *
value_of (const dlq_client_checkpoint_t *c, const member_t *m)
{
    return *(const char *const *) (const void *) ((const char *) c + m->offset);
}

static bool
object_or_null (const char *text)
{
    return !text || dlqc_json_is_object (text, strlen (text));
}

/* ---- requests -------------------------------------------------------- */

bool
dlqc_ckpt_record_ok (const dlq_client_checkpoint_t *c)
{
    if (!c || !c->stream_name)
        return false;
    for (size_t i = 0; i < MEMBER_COUNT; i++)
        if (members [i].object && !object_or_null (value_of (c, &members [i])))
            return false;
    return true;
}

bool
dlqc_ckpt_token_ok (const char *stream_name, const char *token)
{
    return stream_name && token && dlqc_json_is_object (token, strlen (token));
}

void
dlqc_ckpt_write_record (dlqc_body_t *body, const dlq_client_checkpoint_t *c)
{
    for (size_t i = 0; i < MEMBER_COUNT; i++) {
        const char *value = value_of (c, &members [i]);
        if (!value || strcmp (members [i].key, "updatedAt") == 0)
            continue;
        if (members [i].object)
            dlqc_body_literal (body, members [i].key, value);
        else
            dlqc_body_string (body, members [i].key, value);
    }
}

void
dlqc_ckpt_write_token (dlqc_body_t *body, const char *stream_name, const char *token, const char *timestamp)
{
    char now [DLQC_CKPT_ISO_SIZE];
    if (!timestamp)
        dlqc_ckpt_now (now);
    dlqc_body_string (body, "streamName", stream_name);
    dlqc_body_literal (body, "token", token);
    dlqc_body_string (body, "timestamp", timestamp ? timestamp : now);
}

void
dlqc_ckpt_now (char out [DLQC_CKPT_ISO_SIZE])
{
    struct timespec ts;
    struct tm tm;
    char seconds [20];
    clock_gettime (CLOCK_REALTIME, &ts);
    gmtime_r (&ts.tv_sec, &tm);
    if (strftime (seconds, sizeof seconds, "%Y-%m-%dT%H:%M:%S", &tm) != sizeof seconds - 1)
        snprintf (seconds, sizeof seconds, "1970-01-01T00:00:00");
    unsigned ms = (unsigned) (ts.tv_nsec / 1000000) % 1000;
    memcpy (out, seconds, sizeof seconds - 1);
    char *at = out + sizeof seconds - 1;
    *at++ = '.';
    *at++ = (char) ('0' + ms / 100);
    *at++ = (char) ('0' + ms / 10 % 10);
    *at++ = (char) ('0' + ms % 10);
    *at++ = 'Z';
    *at = '\0';
}

/* ---- replies ----------------------------------------------------------- */

void
dlqc_ckpt_clear (dlq_client_checkpoint_t *out)
{
    free (out->storage);
    memset (out, 0, sizeof *out);
}

/* The value of member m in the record: a new string (caller frees) in
 * *value, NULL when absent or null. False when it has the wrong type. */
static bool
read_member (const char *json, size_t len, const member_t *m, char **value, size_t *value_len)
{
    dlqc_json_span_t span;
    *value = NULL;
    *value_len = 0;
    if (!dlqc_json_member (json, len, m->key, &span) || span.type == DLQC_JSON_NULL)
        return true;
    if (m->object && span.type == DLQC_JSON_OBJECT) {
        *value = dlq_strndup (span.start, span.len);
        *value_len = span.len;
    }
    else
    if (!m->object && span.type == DLQC_JSON_STRING)
        *value = dlqc_json_string (&span, value_len);
    return *value != NULL;
}

/* Move the values into one allocation the checkpoint's members point
 * into; frees them. */
static void
pack (char *values [MEMBER_COUNT], const size_t lens [MEMBER_COUNT], dlq_client_checkpoint_t *out)
{
    size_t total = 0;
    for (size_t i = 0; i < MEMBER_COUNT; i++)
        total += values [i] ? lens [i] + 1 : 0;
    out->storage = dlq_malloc (total ? total : 1);
    char *at = out->storage;
    for (size_t i = 0; i < MEMBER_COUNT; i++) {
        if (!values [i])
            continue;
        memcpy (at, values [i], lens [i] + 1);
        *field_of (out, &members [i]) = at;
        at += lens [i] + 1;
        free (values [i]);
    }
}

bool
dlqc_ckpt_read (const char *json, size_t len, dlq_client_checkpoint_t *out)
{
    char *values [MEMBER_COUNT] = { NULL };
    size_t lens [MEMBER_COUNT] = { 0 };
    bool ok = json != NULL;
    memset (out, 0, sizeof *out);
    for (size_t i = 0; i < MEMBER_COUNT && ok; i++)
        ok = read_member (json, len, &members [i], &values [i], &lens [i]);
    ok = ok && values [0] && *values [0];
    if (!ok) {
        for (size_t i = 0; i < MEMBER_COUNT; i++)
            free (values [i]);
        return false;
    }
    pack (values, lens, out);
    return true;
}
