/*  proc_support — /proc/PID/status and /proc/PID/fd, read as text. */
#include "proc_support.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

int64_t
proc_status_kb (pid_t pid, const char *field)
{
    char path [64], line [256];
    snprintf (path, sizeof path, "/proc/%d/status", (int) pid);
    FILE *f = fopen (path, "r");
    if (!f)
        return -1;
    size_t n = strlen (field);
    long long kb = -1;
    while (fgets (line, sizeof line, f))
        if (strncmp (line, field, n) == 0 && line [n] == ':') {
            sscanf (line + n + 1, "%lld", &kb);
            break;
        }
    fclose (f);
    return kb;
}

double
proc_rss_mib (pid_t pid)
{
    int64_t kb = proc_status_kb (pid, "VmRSS");
    return kb < 0 ? -1 : (double) kb / 1024.0;
}

double
proc_peak_mib (pid_t pid)
{
    int64_t kb = proc_status_kb (pid, "VmHWM");
    return kb < 0 ? -1 : (double) kb / 1024.0;
}

int
proc_open_fds (pid_t pid)
{
    char path [64];
    snprintf (path, sizeof path, "/proc/%d/fd", (int) pid);
    DIR *dir = opendir (path);
    if (!dir)
        return -1;
    int count = 0;
    for (struct dirent *e = readdir (dir); e; e = readdir (dir))
        count += e->d_name [0] != '.';
    closedir (dir);
    return count;
}

long
proc_raise_nofile (void)
{
    struct rlimit limit;
    if (getrlimit (RLIMIT_NOFILE, &limit) != 0)
        return -1;
    if (limit.rlim_cur < limit.rlim_max) {
        limit.rlim_cur = limit.rlim_max;
        setrlimit (RLIMIT_NOFILE, &limit);
        getrlimit (RLIMIT_NOFILE, &limit);
    }
    return (long) limit.rlim_cur;
}
