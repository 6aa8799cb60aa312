/*  proc_support — what a process holds, read from /proc for the resource
 *  tests: its resident memory now and at its peak, and its open
 *  descriptors.
 */
#ifndef PROC_SUPPORT_H
#define PROC_SUPPORT_H

#include <stdint.h>
#include <sys/types.h>

/* A field of /proc/PID/status in kB ("VmRSS", "VmHWM": the peak), or -1. */
int64_t proc_status_kb (pid_t pid, const char *field);

/* Resident memory of pid now, in MiB (VmRSS), or -1. */
double proc_rss_mib (pid_t pid);

/* Peak resident memory of pid since it started, in MiB (VmHWM), or -1. */
double proc_peak_mib (pid_t pid);

/* Open descriptors of another process pid (entries of /proc/PID/fd), or -1. */
int proc_open_fds (pid_t pid);

/* Raise this process's soft limit on open files to its hard limit;
 * returns the soft limit now in force. */
long proc_raise_nofile (void);

#endif
