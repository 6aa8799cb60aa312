/*  console_files — the operator console's files (router/http/console/:
 *  HTML, CSS, JavaScript), compiled into dlqd by cmake/EmbedFiles.cmake so
 *  that nothing is read from disk or the network at run time. The table
 *  ends with an entry whose path is NULL.
 */
#ifndef DLQ_CONSOLE_FILES_H
#define DLQ_CONSOLE_FILES_H

#include <stddef.h>

typedef struct {
    const char          *path;          /* where it is served, "/index.html" */
    const char          *content_type;
    const unsigned char *data;
    size_t               len;
} dlq_console_file_t;

extern const dlq_console_file_t dlq_console_files [];

#endif
