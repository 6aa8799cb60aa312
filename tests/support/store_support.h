/*  store_support — raw SQLite access to an embedded store's file and the
 *  daemon's state file, for the suites that check or damage what is on
 *  disk behind the API.
 */
#ifndef STORE_SUPPORT_H
#define STORE_SUPPORT_H

#include "dlqd_config.h"
#include "embedded_store.h"
#include "state_store.h"

#include <sqlite3.h>
#include <stdint.h>

/* A config whose data_dir is dir (written beside it, as dir.conf), for
 * the modules that take the embedded store's plugin (config->store: the
 * committer, the indexer); asserts it loads. Destroy it with
 * dlqd_config_destroy. */
dlqd_config_t *test_store_config (const char *dir);

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

/* The same on DIR/file (e.g. DLQ_STATE_STORE_FILE), created when missing. */
sqlite3 *test_store_open_in (const char *dir, const char *file, int flags);
void test_store_exec_in (const char *dir, const char *file, const char *sql);
int64_t test_store_count_in (const char *dir, const char *file, const char *sql);

/* Open the daemon's state file in dir through its API; asserts success. */
dlq_state_store_t *test_state_store (const char *dir);

#endif
