/*  test_endpoint — which endpoints and HTTP addresses only this host can
 *  reach: the rule that a listen without CURVE (and any HTTP listen) must
 *  be local rests on it, so every form that exposes the gateway must be
 *  seen as exposed; and how an HTTP address splits into host and port.
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

Test (endpoint, http_addresses_split_into_host_and_port)
{
    char host [64];
    unsigned port = 0;
    cr_assert (dlq_endpoint_split_http ("127.0.0.1:9560", host, sizeof host, &port));
    cr_expect_str_eq (host, "127.0.0.1");
    cr_expect_eq (port, 9560);
    cr_assert (dlq_endpoint_split_http ("[::1]:1", host, sizeof host, &port));
    cr_expect_str_eq (host, "::1", "without its brackets");
    cr_expect_eq (port, 1);
    cr_assert (dlq_endpoint_split_http ("*:65535", host, sizeof host, &port));
    cr_expect_str_eq (host, "", "every interface");
    cr_expect_eq (port, 65535);
    static const char *const bad [] = {
        "", ":", "127.0.0.1", "127.0.0.1:", ":9560", "127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1:99999999",
        "127.0.0.1:95x", "127.0.0.1:-1", "::1:9560", "[::1:9560", "::1]:9560", "[]:9560", "127.0.0.1: 80",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad [0]; i++)
        cr_expect_not (dlq_endpoint_split_http (bad [i], host, sizeof host, &port), "%s", bad [i]);
    char small [4];
    cr_expect_not (dlq_endpoint_split_http ("localhost:80", small, sizeof small, &port), "a host too long for the buffer");
}

Test (endpoint, only_loopback_http_addresses_are_local)
{
    static const char *const local [] = { "127.0.0.1:9560", "127.9.9.9:1", "[::1]:9560", "localhost:9560" };
    for (size_t i = 0; i < sizeof local / sizeof local [0]; i++)
        cr_expect (dlq_endpoint_http_is_local (local [i]), "%s", local [i]);
    static const char *const exposed [] = {
        "*:9560", "0.0.0.0:9560", "[::]:9560", "10.0.0.1:9560", "example.com:80", "127.0.0.1", "eth0:80",
        "[::ffff:127.0.0.1]:80", "",
    };
    for (size_t i = 0; i < sizeof exposed / sizeof exposed [0]; i++)
        cr_expect_not (dlq_endpoint_http_is_local (exposed [i]), "%s", exposed [i]);
}
