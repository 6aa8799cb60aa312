/*  dlqc_filter — the workbench's filters as a client builds them
 *  (internal, not installed).
 *
 *  Behind the public dlq_client_filter_* calls (dlq_client.h): the
 *  members a filter has been given, kept until a request body is built
 *  with them. Nothing is checked but what could not be sent as JSON: the
 *  gateway validates each member and names the one it refuses.
 */
#ifndef DLQC_FILTER_H
#define DLQC_FILTER_H

#include "dlq_client.h"
#include "dlqc_body.h"

/* Did a setter refuse a value since the filter was new or cleared? Then
 * every call refuses the filter (ERR_ARGS, nothing sent). False for NULL. */
bool dlqc_filter_refused (const dlq_client_filter_t *filter);

/* Append the filter's members to a request body, in the order
 * streamName, status, errorType, fingerprint, messageContains,
 * createdAfter, createdBefore, attemptsMin, attemptsMax, metadata.
 * Nothing for NULL (no filter). */
void dlqc_filter_write (const dlq_client_filter_t *filter, dlqc_body_t *body);

#endif
