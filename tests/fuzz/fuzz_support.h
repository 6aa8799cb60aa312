/*  fuzz_support — what the libFuzzer harnesses of tests/fuzz share: the
 *  input cut into records and frames at separator bytes, the oracle's
 *  failure (a message, then abort, which libFuzzer reports as a crash
 *  with the input saved), and a scratch directory removed at exit.
 *
 *  Inputs that carry several messages (fuzz_wire, fuzz_libdlq) separate
 *  them with FUZZ_RS (0x1e, ASCII record separator) and the frames of one
 *  message with FUZZ_US (0x1f, unit separator); both are in the
 *  dictionaries, so mutations move them like any other token.
 */
#ifndef DLQ_FUZZ_SUPPORT_H
#define DLQ_FUZZ_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FUZZ_RS 0x1e
#define FUZZ_US 0x1f

typedef struct {
    const uint8_t *data;
    size_t         len;
} fuzz_span_t;

/* Cut len bytes of data at every byte sep into at most max spans (the
 * last one keeps the rest, separators included); returns how many. An
 * empty input is one empty span. */
size_t fuzz_split (const uint8_t *data, size_t len, uint8_t sep, fuzz_span_t *out, size_t max);

/* The oracle failed: print what and why on stderr, then abort. */
void fuzz_fail (const char *fmt, ...) __attribute__ ((format (printf, 1, 2), noreturn));

/* Fail unless cond, naming the condition and where it is. */
#define FUZZ_CHECK(cond) \
    do { if (!(cond)) fuzz_fail ("%s:%d: check failed: %s", __FILE__, __LINE__, #cond); } while (0)

/* A new directory under $TMPDIR (default /tmp), removed with everything
 * in it when the process exits normally; the path lives as long as the
 * process. */
const char *fuzz_scratch_dir (const char *name);

/* Remove path and everything under it. */
void fuzz_remove_tree (const char *path);

/* Write len bytes to path (truncated first); false on an I/O error. */
bool fuzz_write_file (const char *path, const void *data, size_t len);

#endif
