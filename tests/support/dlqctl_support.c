/*  dlqctl_support — the dlqctl binary run from a test; see the header. */
#include "dlqctl_support.h"

#include "test_support.h"

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
