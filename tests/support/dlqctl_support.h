/*  dlqctl_support — running the dlqctl binary from a test and reading
 *  what it printed (test_client against a fake gateway; the suites of
 *  dlqctl and libdlq against a real dlqd: itest_dlqctl_workbench,
 *  itest_dlqctl_replay, itest_ckpt_client), and a libdlq client of that
 *  dlqd.
 */
#ifndef DLQCTL_SUPPORT_H
#define DLQCTL_SUPPORT_H

#include "dlq_client.h"
#include "test_support.h"

#include <stddef.h>

/* Run "dlqctl ARGS" through the shell (ARGS are shell words), with its
 * standard output and error going to files in dir; *out and *err receive
 * what it printed on each (caller frees). Returns its exit status; the
 * test fails when it did not exit normally. */
int dlqctl_run (const char *dir, const char *args, char **out, char **err);

/* Run "dlqctl -e <d's endpoint> ARGS" in d's directory (dlqctl_run). */
int dlqctl_on (const test_dlqd_t *d, const char *args, char **out, char **err);

/* What "dlqctl -e <d's endpoint> ARGS" printed on stdout (caller frees);
 * it must exit with status and print want_err on stderr (NULL: anything). */
char *dlqctl_expect (const test_dlqd_t *d, const char *args, int status, const char *want_err);

/* dlqctl_expect with status 0 and nothing on stderr. */
char *dlqctl_ok (const test_dlqd_t *d, const char *args);

/* The number of lines of text. */
size_t dlqctl_lines (const char *text);

/* A libdlq client of d (the test fails when there is none). */
dlq_client_t *dlqctl_client (const test_dlqd_t *d);

#endif
