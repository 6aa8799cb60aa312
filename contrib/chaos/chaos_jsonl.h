/*  chaos_jsonl — the jsonl sink's file read back at the end of a chaos
 *  run: its rotated files (file.N ... file.1, oldest first) and the file
 *  itself, one event a line.
 */
#ifndef DLQ_CHAOS_JSONL_H
#define DLQ_CHAOS_JSONL_H

#include <stdbool.h>
#include <stddef.h>

/* Called for each line: the id its canonical body starts with
 * ({"id":"...",...}; NULL, 0 when it does not) and the line without its
 * line break. */
typedef void (chaos_jsonl_line_fn) (void *arg, const char *id, size_t id_len,
                                    const char *line, size_t line_len);

/* Read path and its rotated files up to path.keep; *lines gets how many
 * lines. False with err when path cannot be read. */
bool chaos_jsonl_read (const char *path, int keep, chaos_jsonl_line_fn *fn, void *arg,
                       size_t *lines, char *err, size_t err_len);

#endif
