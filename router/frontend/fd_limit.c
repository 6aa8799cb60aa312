/*  fd_limit — getrlimit / setrlimit on RLIMIT_NOFILE. */
#include "fd_limit.h"

#include <sys/resource.h>

static int64_t
as_int64 (rlim_t value)
{
    return value == RLIM_INFINITY || value > (rlim_t) INT64_MAX ? INT64_MAX : (int64_t) value;
}

int64_t
dlq_fd_limit_raise (int64_t *before)
{
    struct rlimit limit;
    if (getrlimit (RLIMIT_NOFILE, &limit) != 0)
        return -1;
    if (before)
        *before = as_int64 (limit.rlim_cur);
    if (limit.rlim_cur != limit.rlim_max) {
        struct rlimit raised = { limit.rlim_max, limit.rlim_max };
        if (setrlimit (RLIMIT_NOFILE, &raised) == 0)
            limit = raised;
    }
    return as_int64 (limit.rlim_cur);
}

int64_t
dlq_fd_limit_connections (int64_t limit)
{
    int64_t n = limit - DLQ_FD_RESERVED;
    return n < 16 ? 16 : n > 1000000 ? 1000000 : n;
}
