/*  test_thread_priority — a thread stepping back, as thread_priority.h has
 *  it: lowering adds the increment to the calling thread's nice value (up
 *  to 19, the lowest priority), any process may do it, and the other
 *  threads of the process keep theirs; 0 changes nothing; it never raises
 *  a priority. Each test runs its changes on threads of its own (Criterion
 *  runs every test in its own process as well).
 */
#include "thread_priority.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

static int
my_nice (void)
{
    errno = 0;
    int nice = getpriority (PRIO_PROCESS, (id_t) syscall (SYS_gettid));
    cr_assert (nice != -1 || errno == 0, "getpriority failed");
    return nice;
}

typedef struct {
    int  increment;
    bool ok;
    int  before, after;
} step_t;

static void *
step_back (void *arg)
{
    step_t *s = arg;
    s->before = my_nice ();
    s->ok = dlq_thread_priority_lower (s->increment);
    s->after = my_nice ();
    return NULL;
}

static step_t
on_a_thread (int increment)
{
    step_t s = { .increment = increment };
    pthread_t t;
    cr_assert_eq (pthread_create (&t, NULL, step_back, &s), 0);
    pthread_join (t, NULL);
    return s;
}

static int
expected (int before, int increment)
{
    return before + increment > 19 ? 19 : before + increment;
}

Test (thread_priority, lowering_adds_the_increment_to_the_threads_nice_value)
{
    step_t s = on_a_thread (5);
    cr_expect (s.ok, "any process may lower its priority");
    cr_expect_eq (s.after, expected (s.before, 5), "nice %d -> %d", s.before, s.after);
}

Test (thread_priority, only_the_calling_thread_steps_back)
{
    int main_before = my_nice ();
    step_t s = on_a_thread (7);
    cr_expect (s.ok);
    cr_expect_eq (s.after, expected (s.before, 7));
    cr_expect_eq (my_nice (), main_before, "the other threads keep their priority");
}

Test (thread_priority, zero_changes_nothing)
{
    step_t s = on_a_thread (0);
    cr_expect (s.ok);
    cr_expect_eq (s.after, s.before);
}

Test (thread_priority, the_nice_value_stops_at_19)
{
    step_t s = on_a_thread (19);
    cr_expect (s.ok);
    cr_expect_eq (s.after, 19, "from %d by 19", s.before);
    /* again, on a thread already at the bottom */
    cr_assert (dlq_thread_priority_lower (19));
    cr_expect_eq (my_nice (), 19);
    cr_expect (dlq_thread_priority_lower (5), "at 19 already: nothing to refuse");
    cr_expect_eq (my_nice (), 19);
}

Test (thread_priority, an_increment_past_19_is_taken_as_the_lowest_priority)
{
    step_t s = on_a_thread (100);
    cr_expect_eq (s.after, 19);
    cr_expect_leq (s.after, 19, "never past the kernel's range");
}

Test (thread_priority, it_never_raises_a_priority)
{
    step_t s = on_a_thread (-5);
    cr_expect_geq (s.after, s.before, "a negative increment is no raise: %d -> %d", s.before, s.after);
}

Test (thread_priority, steps_add_up)
{
    int before = my_nice ();
    cr_assert (dlq_thread_priority_lower (3));
    cr_assert (dlq_thread_priority_lower (4));
    cr_expect_eq (my_nice (), expected (before, 7));
}
