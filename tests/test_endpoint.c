/*  test_endpoint — which endpoints only this host can reach: the rule that
 *  a listen without CURVE must be local rests on it, so every form that
 *  exposes the gateway must be seen as exposed.
 */
#include "dlq_endpoint.h"

#include <criterion/criterion.h>

Test (endpoint, loopback_ipc_and_inproc_are_local)
{
    static const char *const local [] = {
        "tcp://127.0.0.1:5560", "tcp://127.0.0.1:*", "tcp://127.1.2.3:5560", "tcp://[::1]:5560",
        "tcp://localhost:5560", "tcp://lo:5560", "ipc:///run/dlqd.sock", "inproc://x",
    };
    for (size_t i = 0; i < sizeof local / sizeof local [0]; i++)
        cr_expect (dlq_endpoint_is_local (local [i]), "%s", local [i]);
}

Test (endpoint, everything_else_is_reachable_from_the_network)
{
    static const char *const exposed [] = {
        "tcp://*:5560", "tcp://0.0.0.0:5560", "tcp://10.0.0.7:5560", "tcp://[::]:5560", "tcp://[::ffff:127.0.0.1]:1",
        "tcp://eth0:5560", "tcp://dlq.example.com:5560", "tcp://128.0.0.1:5560", "tcp://127.0.0.1.evil:1",
        "tcp://127.0.0.1;10.0.0.1:5560", "tcp://127.0.0.1", "tcp://:5560", "ws://127.0.0.1:5560",
        "pgm://eth0;239.192.1.1:5555", "udp://127.0.0.1:5560", "TCP://127.0.0.1:5560", "", "tcp://",
    };
    for (size_t i = 0; i < sizeof exposed / sizeof exposed [0]; i++)
        cr_expect_not (dlq_endpoint_is_local (exposed [i]), "%s", exposed [i]);
}
