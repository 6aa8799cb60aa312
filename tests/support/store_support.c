/*  store_support — raw SQLite access for the store suites. */
#include "store_support.h"

#include "dlq_alloc.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <unistd.h>

dlq_embedded_t *
test_store_embedded (const char *dir, dlq_embedded_mode_t mode)
{
    char err [512] = "";
    dlq_embedded_t *store = dlq_embedded_open (dir, mode, err, sizeof err);
    cr_assert_not_null (store, "open failed: %s", err);
    return store;
}

dlqd_config_t *
test_store_config (const char *dir)
{
    char path [600], text [1400];
    snprintf (path, sizeof path, "%s.conf", dir);
    snprintf (text, sizeof text, "gateway: { listen = [ \"tcp://127.0.0.1:1\" ]; data_dir = \"%s\"; };\n"
              "primary = \"embedded\";\n", dir);
    FILE *f = fopen (path, "w");
    cr_assert_not_null (f, "cannot write %s", path);
    fputs (text, f);
    fclose (f);
    dlqd_config_t *config = NULL;
    char *err = NULL;
    cr_assert_eq (dlqd_config_load (path, &config, &err), DLQD_CONFIG_OK, "%s", err ? err : "?");
    unlink (path);
    return config;
}

dlq_state_store_t *
test_state_store (const char *dir)
{
    char err [512] = "";
    dlq_state_store_t *store = dlq_state_store_open (dir, err, sizeof err);
    cr_assert_not_null (store, "open failed: %s", err);
    return store;
}

sqlite3 *
test_store_open_in (const char *dir, const char *file, int flags)
{
    char path [512];
    snprintf (path, sizeof path, "%s/%s", dir, file);
    sqlite3 *db = NULL;
    cr_assert_eq (sqlite3_open_v2 (path, &db, flags, NULL), SQLITE_OK, "%s", path);
    sqlite3_busy_timeout (db, 5000);
    return db;
}

sqlite3 *
test_store_open (const char *dir, int flags)
{
    return test_store_open_in (dir, DLQ_EMBEDDED_FILE, flags);
}

int64_t
test_store_count (const char *dir, const char *sql)
{
    return test_store_count_in (dir, DLQ_EMBEDDED_FILE, sql);
}

int64_t
test_store_count_in (const char *dir, const char *file, const char *sql)
{
    sqlite3 *db = test_store_open_in (dir, file, SQLITE_OPEN_READONLY);
    sqlite3_stmt *stmt = NULL;
    cr_assert_eq (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL), SQLITE_OK, "%s", sqlite3_errmsg (db));
    cr_assert_eq (sqlite3_step (stmt), SQLITE_ROW);
    int64_t value = sqlite3_column_int64 (stmt, 0);
    sqlite3_finalize (stmt);
    sqlite3_close (db);
    return value;
}

char *
test_store_text (const char *dir, const char *sql)
{
    sqlite3 *db = test_store_open (dir, SQLITE_OPEN_READONLY);
    sqlite3_stmt *stmt = NULL;
    cr_assert_eq (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL), SQLITE_OK, "%s", sqlite3_errmsg (db));
    cr_assert_eq (sqlite3_step (stmt), SQLITE_ROW);
    const unsigned char *text = sqlite3_column_text (stmt, 0);
    char *copy = dlq_strdup (text ? (const char *) text : "");
    sqlite3_finalize (stmt);
    sqlite3_close (db);
    return copy;
}

void
test_store_exec (const char *dir, const char *sql)
{
    test_store_exec_in (dir, DLQ_EMBEDDED_FILE, sql);
}

void
test_store_exec_in (const char *dir, const char *file, const char *sql)
{
    sqlite3 *db = test_store_open_in (dir, file, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    char *message = NULL;
    cr_assert_eq (sqlite3_exec (db, sql, NULL, NULL, &message), SQLITE_OK, "%s: %s", sql, message);
    sqlite3_close (db);
}
