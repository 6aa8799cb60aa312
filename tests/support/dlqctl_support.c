/*  dlqctl_support — the dlqctl binary run from a test; see the header. */
#include "dlqctl_support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

int
dlqctl_run (const char *dir, const char *args, char **out, char **err)
{
    char command [2048], path [512];
    snprintf (command, sizeof command, "%s %s >%s/out 2>%s/err", DLQCTL_BINARY, args, dir, dir);
    int status = system (command);
    snprintf (path, sizeof path, "%s/out", dir);
    *out = test_read_file (path, NULL);
    snprintf (path, sizeof path, "%s/err", dir);
    *err = test_read_file (path, NULL);
    cr_assert (*out && *err);
    cr_assert (WIFEXITED (status), "dlqctl did not exit normally: %s", command);
    return WEXITSTATUS (status);
}

int
dlqctl_on (const test_dlqd_t *d, const char *args, char **out, char **err)
{
    char command [1024];
    snprintf (command, sizeof command, "-e %s %s", d->endpoint, args);
    return dlqctl_run (d->dir, command, out, err);
}

char *
dlqctl_expect (const test_dlqd_t *d, const char *args, int status, const char *want_err)
{
    char *out, *err;
    int got = dlqctl_on (d, args, &out, &err);
    cr_assert_eq (got, status, "dlqctl %s: exit %d\nstdout: %s\nstderr: %s", args, got, out, err);
    if (want_err)
        cr_assert_str_eq (err, want_err, "dlqctl %s", args);
    free (err);
    return out;
}

char *
dlqctl_ok (const test_dlqd_t *d, const char *args)
{
    return dlqctl_expect (d, args, 0, "");
}

size_t
dlqctl_lines (const char *text)
{
    size_t n = 0;
    for (; *text; text++)
        n += *text == '\n';
    return n;
}

dlq_client_t *
dlqctl_client (const test_dlqd_t *d)
{
    dlq_client_t *c = dlq_client_new (d->endpoint);
    cr_assert_not_null (c);
    return c;
}
