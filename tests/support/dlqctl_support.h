/*  dlqctl_support — running the dlqctl binary from a test and reading
 *  what it printed (test_client against a fake gateway,
 *  itest_dlqctl_workbench against a real dlqd).
 */
#ifndef DLQCTL_SUPPORT_H
#define DLQCTL_SUPPORT_H

/* Run "dlqctl ARGS" through the shell (ARGS are shell words), with its
 * standard output and error going to files in dir; *out and *err receive
 * what it printed on each (caller frees). Returns its exit status; the
 * test fails when it did not exit normally. */
int dlqctl_run (const char *dir, const char *args, char **out, char **err);

#endif
