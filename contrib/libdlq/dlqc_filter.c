/*  dlqc_filter — dlq_client_filter_t: the members set so far, and the
 *  request body members made of them.
 */
#include "dlqc_filter.h"
#include "dlqc_json.h"
#include "dlq_alloc.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The filters whose value is a string, in the order they are sent. */
typedef enum {
    TEXT_STREAM, TEXT_STATUS, TEXT_ERROR_TYPE, TEXT_FINGERPRINT, TEXT_MESSAGE,
    TEXT_CREATED_AFTER, TEXT_CREATED_BEFORE, TEXT_COUNT
} text_member_t;

static const char *const text_names [TEXT_COUNT] = {
    "streamName", "status", "errorType", "fingerprint", "messageContains", "createdAfter", "createdBefore"
};

/* One metadata pair: its key, and its value as JSON text (an escaped
 * string, a number, true or false). */
typedef struct {
    char *key;
    char *value;
} pair_t;

struct dlq_client_filter {
    char   *text [TEXT_COUNT];          /* NULL: not filtered */
    int     attempts_min;               /* < 0: not filtered */
    int     attempts_max;
    pair_t *pairs;
    size_t  pair_count;
    bool    refused;                    /* a setter answered ERR_ARGS: no call takes the filter */
};

/* ---- life cycle ---------------------------------------------------- */

dlq_client_filter_t *
dlq_client_filter_new (void)
{
    dlq_client_filter_t *self = dlq_calloc (1, sizeof *self);
    self->attempts_min = -1;
    self->attempts_max = -1;
    return self;
}

void
dlq_client_filter_clear (dlq_client_filter_t *self)
{
    if (!self)
        return;
    for (int i = 0; i < TEXT_COUNT; i++)
        free (self->text [i]);
    for (size_t i = 0; i < self->pair_count; i++) {
        free (self->pairs [i].key);
        free (self->pairs [i].value);
    }
    free (self->pairs);
    memset (self, 0, sizeof *self);
    self->attempts_min = -1;
    self->attempts_max = -1;
}

void
dlq_client_filter_destroy (dlq_client_filter_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_client_filter_clear (*self_p);
    free (*self_p);
    *self_p = NULL;
}

/* ---- members with a string value ----------------------------------- */

static dlq_client_result_t
set_text (dlq_client_filter_t *self, text_member_t member, const char *value)
{
    if (!self)
        return DLQ_CLIENT_ERR_ARGS;
    free (self->text [member]);
    self->text [member] = value ? dlq_strdup (value) : NULL;
    return DLQ_CLIENT_OK;
}

dlq_client_result_t
dlq_client_filter_set_stream (dlq_client_filter_t *self, const char *stream_name)
{
    return set_text (self, TEXT_STREAM, stream_name);
}

dlq_client_result_t
dlq_client_filter_set_status (dlq_client_filter_t *self, const char *status)
{
    return set_text (self, TEXT_STATUS, status);
}

dlq_client_result_t
dlq_client_filter_set_error_type (dlq_client_filter_t *self, const char *error_type)
{
    return set_text (self, TEXT_ERROR_TYPE, error_type);
}

dlq_client_result_t
dlq_client_filter_set_fingerprint (dlq_client_filter_t *self, const char *fingerprint)
{
    return set_text (self, TEXT_FINGERPRINT, fingerprint);
}

dlq_client_result_t
dlq_client_filter_set_message_contains (dlq_client_filter_t *self, const char *text)
{
    return set_text (self, TEXT_MESSAGE, text);
}

dlq_client_result_t
dlq_client_filter_set_created_after (dlq_client_filter_t *self, const char *iso_time)
{
    return set_text (self, TEXT_CREATED_AFTER, iso_time);
}

dlq_client_result_t
dlq_client_filter_set_created_before (dlq_client_filter_t *self, const char *iso_time)
{
    return set_text (self, TEXT_CREATED_BEFORE, iso_time);
}

/* ---- attempts ------------------------------------------------------ */

dlq_client_result_t
dlq_client_filter_set_attempts_min (dlq_client_filter_t *self, int attempts)
{
    if (!self)
        return DLQ_CLIENT_ERR_ARGS;
    self->attempts_min = attempts < 0 ? -1 : attempts;
    return DLQ_CLIENT_OK;
}

dlq_client_result_t
dlq_client_filter_set_attempts_max (dlq_client_filter_t *self, int attempts)
{
    if (!self)
        return DLQ_CLIENT_ERR_ARGS;
    self->attempts_max = attempts < 0 ? -1 : attempts;
    return DLQ_CLIENT_OK;
}

/* ---- metadata ------------------------------------------------------ */

/* A setter refused its value: the filter is refused by every call until
 * it is cleared, so a query never runs without the member it was meant
 * to have. */
static dlq_client_result_t
refuse (dlq_client_filter_t *self)
{
    self->refused = true;
    return DLQ_CLIENT_ERR_ARGS;
}

/* Remove the pair of key, if there is one. */
static void
unset_pair (dlq_client_filter_t *self, const char *key)
{
    for (size_t i = 0; i < self->pair_count; i++)
        if (strcmp (self->pairs [i].key, key) == 0) {
            free (self->pairs [i].key);
            free (self->pairs [i].value);
            self->pairs [i] = self->pairs [--self->pair_count];
            return;
        }
}

/* Set the pair of key to value (JSON text, taken over), replacing the
 * value it had. */
static dlq_client_result_t
set_pair (dlq_client_filter_t *self, const char *key, char *value)
{
    for (size_t i = 0; i < self->pair_count; i++)
        if (strcmp (self->pairs [i].key, key) == 0) {
            free (self->pairs [i].value);
            self->pairs [i].value = value;
            return DLQ_CLIENT_OK;
        }
    self->pairs = dlq_realloc (self->pairs, (self->pair_count + 1) * sizeof *self->pairs);
    self->pairs [self->pair_count].key = dlq_strdup (key);
    self->pairs [self->pair_count].value = value;
    self->pair_count++;
    return DLQ_CLIENT_OK;
}

dlq_client_result_t
dlq_client_filter_set_metadata_string (dlq_client_filter_t *self, const char *key, const char *value)
{
    if (!self)
        return DLQ_CLIENT_ERR_ARGS;
    if (!key)
        return refuse (self);
    if (!value) {
        unset_pair (self, key);
        return DLQ_CLIENT_OK;
    }
    size_t len = strlen (value);
    char *text = dlq_malloc (6 * len + 3);
    text [dlqc_json_escape (text, value, len)] = '\0';
    return set_pair (self, key, text);
}

/* value as JSON number text: the shorter of %.15g and %.17g that reads
 * back as value, with a '.' whatever the caller's locale says. */
static char *
number_text (double value)
{
    char text [32];
    locale_t c_numeric = newlocale (LC_NUMERIC_MASK, "C", (locale_t) 0);
    if (!c_numeric) {
        fprintf (stderr, "libdlq: out of memory making the C locale\n");
        abort ();
    }
    locale_t previous = uselocale (c_numeric);
    snprintf (text, sizeof text, "%.15g", value);
    if (strtod (text, NULL) != value)
        snprintf (text, sizeof text, "%.17g", value);
    uselocale (previous);
    freelocale (c_numeric);
    return dlq_strdup (text);
}

dlq_client_result_t
dlq_client_filter_set_metadata_number (dlq_client_filter_t *self, const char *key, double value)
{
    if (!self)
        return DLQ_CLIENT_ERR_ARGS;
    if (!key || !isfinite (value))
        return refuse (self);
    return set_pair (self, key, number_text (value));
}

dlq_client_result_t
dlq_client_filter_set_metadata_bool (dlq_client_filter_t *self, const char *key, bool value)
{
    if (!self)
        return DLQ_CLIENT_ERR_ARGS;
    if (!key)
        return refuse (self);
    return set_pair (self, key, dlq_strdup (value ? "true" : "false"));
}

bool
dlqc_filter_refused (const dlq_client_filter_t *filter)
{
    return filter && filter->refused;
}

/* ---- the request body ---------------------------------------------- */

void
dlqc_filter_write (const dlq_client_filter_t *filter, dlqc_body_t *body)
{
    if (!filter)
        return;
    for (int i = 0; i < TEXT_COUNT; i++)
        if (filter->text [i])
            dlqc_body_string (body, text_names [i], filter->text [i]);
    if (filter->attempts_min >= 0)
        dlqc_body_int (body, "attemptsMin", filter->attempts_min);
    if (filter->attempts_max >= 0)
        dlqc_body_int (body, "attemptsMax", filter->attempts_max);
    if (filter->pair_count == 0)
        return;
    dlqc_body_open (body, "metadata");
    for (size_t i = 0; i < filter->pair_count; i++)
        dlqc_body_literal (body, filter->pairs [i].key, filter->pairs [i].value);
    dlqc_body_close (body);
}
