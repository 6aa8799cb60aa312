/*  store_support — raw SQLite access to an embedded store's file, for the
 *  store suites that check or damage what is on disk behind the API.
 */
#ifndef STORE_SUPPORT_H
#define STORE_SUPPORT_H

#include "embedded_store.h"

#include <sqlite3.h>
#include <stdint.h>

/* Open the embedded store in dir through its API; asserts success. */
dlq_embedded_t *test_store_embedded (const char *dir, dlq_embedded_mode_t mode);

/* Open DIR/dlq.sqlite with flags (a 5 s busy timeout); asserts success. */
sqlite3 *test_store_open (const char *dir, int flags);

/* The one integer sql returns, on a read-only connection. */
int64_t test_store_count (const char *dir, const char *sql);

/* The one text sql returns, on a read-only connection ("" for NULL;
 * caller frees). */
char *test_store_text (const char *dir, const char *sql);

/* Run sql on a read-write connection; asserts success. */
void test_store_exec (const char *dir, const char *sql);

#endif
