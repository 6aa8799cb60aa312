/*  ckpt_view — checkpoint records as dlqctl shows them: as the gateway's
 *  JSON object (--json: rebuilt from libdlq's struct, members in the
 *  protocol's order, tokens and metadata as the gateway's text), as
 *  labelled lines, and the records of CKPT.LIST pages as table rows.
 */
#ifndef DLQ_CKPT_VIEW_H
#define DLQ_CKPT_VIEW_H

#include "dlq_buf.h"
#include "dlq_client.h"
#include "table.h"

#include <stdbool.h>
#include <stdio.h>

/* Append the record as the gateway's JSON object: streamName, then each
 * member that is set, in the protocol's order (no newline). */
void ckpt_view_json (dlq_buf_t *out, const dlq_client_checkpoint_t *checkpoint);

/* Print the record as labelled lines: stream, instance, last seen token,
 * last seen at, last processed token, last processed at, metadata,
 * updated at ("-" for what is absent). */
void ckpt_view_print (FILE *out, const dlq_client_checkpoint_t *checkpoint);

enum { CKPT_VIEW_COLUMNS = 5 };

/* The table of `ckpt ls`, printed page after page. */
typedef struct {
    table_column_t columns [CKPT_VIEW_COLUMNS];
    size_t         rows;            /* printed so far */
} ckpt_view_table_t;

/* The columns STREAM, INSTANCE, LAST SEEN AT, LAST PROCESSED AT, UPDATED
 * AT, the last as wide as the others leave. */
void ckpt_view_table_init (ckpt_view_table_t *table);

/* Print the records of a CKPT.LIST page ({"checkpoints":[...]}) as rows,
 * the header before the first; *next_out receives the page's nextCursor
 * (caller frees) or NULL. Returns an exit status: NO_ANSWER after saying
 * so when the page is not JSON. */
int ckpt_view_print_page (ckpt_view_table_t *table, const char *body, size_t len, char **next_out);

/* The nextCursor of a raw CKPT.LIST page (for --json, which prints pages
 * as they are); an exit status as above. */
int ckpt_view_page_cursor (const char *body, size_t len, char **next_out);

#endif
