/*  thread_priority — setpriority (PRIO_PROCESS, gettid ()). */
#include "thread_priority.h"

#include <errno.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

bool
dlq_thread_priority_lower (int increment)
{
    if (increment <= 0)
        return true;
    id_t tid = (id_t) syscall (SYS_gettid);
    errno = 0;
    int nice = getpriority (PRIO_PROCESS, tid);
    if (nice == -1 && errno != 0)
        return false;
    int target = nice + increment > 19 ? 19 : nice + increment;
    return setpriority (PRIO_PROCESS, tid, target) == 0;
}
