/*  dlq_result — what every libdlq call shares: the result codes, the size
 *  of an id buffer and the export marker. Included by each of libdlq's
 *  headers (dlq_client.h, dlq_filter.h, dlq_replay_receiver.h); include
 *  dlq.h to get them all.
 */
#ifndef DLQ_RESULT_H
#define DLQ_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#   define DLQ_CLIENT_EXPORT __attribute__ ((visibility ("default")))
#else
#   define DLQ_CLIENT_EXPORT
#endif

/* Size of a buffer for an event id: 36 characters of UUID text plus NUL. */
#define DLQ_CLIENT_ID_SIZE 37

typedef enum {
    DLQ_CLIENT_OK = 0,
    DLQ_CLIENT_ERR_SERVER,          /* the gateway answered ERR: see code, message, field */
    DLQ_CLIENT_ERR_TIMEOUT,         /* no reply within the timeout, after every retry */
    DLQ_CLIENT_ERR_TRANSPORT,       /* no connection within the timeout, or ZeroMQ failed */
    DLQ_CLIENT_ERR_PROTOCOL,        /* a reply that does not follow protocol version 1 */
    DLQ_CLIENT_ERR_WINDOW_FULL,     /* non-blocking submit: the window is full, try later */
    DLQ_CLIENT_ERR_ARGS             /* a NULL or out-of-range argument */
} dlq_client_result_t;

/* Stable upper-case name of a result, e.g. "TIMEOUT" for
 * DLQ_CLIENT_ERR_TIMEOUT; static storage. */
DLQ_CLIENT_EXPORT const char *dlq_client_result_name (dlq_client_result_t result);

#ifdef __cplusplus
}
#endif

#endif
