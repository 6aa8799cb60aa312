/*  workbench_support — the failure workbench's test data; see the header. */
#include "workbench_support.h"

#include "sink_support.h"

#include <stdio.h>

void
workbench_put_failures (const char *endpoint)
{
    char body [1024], id [40];
    for (int i = 0; i < 6; i++) {
        snprintf (body, sizeof body, "{\"streamName\":\"orders\",\"status\":\"%s\",\"attempts\":%d,"
                  "\"error\":{\"type\":\"java.net.SocketTimeoutException\",\"message\":\"Read timed out after %d ms"
                  " calling 10.0.0.%d:8080\",\"stackTrace\":\"java.net.SocketTimeoutException: x\\n\\tat"
                  " com.acme.Http.call(Http.java:%d)\"}}", i % 2 ? "DLQ" : "PENDING", i, 1000 * (i + 1), i, 40 + i);
        sink_put_one (endpoint, body, id);
    }
    for (int i = 0; i < 3; i++) {
        snprintf (body, sizeof body, "{\"streamName\":\"payments\",\"attempts\":1,"
                  "\"error\":{\"type\":\"com.acme.NotFound\",\"message\":\"Order 65f0a1b2c3d4e5f60123456%d not found\"}}", i);
        sink_put_one (endpoint, body, id);
    }
    for (int i = 0; i < 2; i++) {
        snprintf (body, sizeof body, "{\"streamName\":\"orders\",\"attempts\":3,\"metadata\":{\"tenantId\":\"acme\"},"
                  "\"error\":{\"type\":\"com.acme.ValidationError\",\"message\":\"field 'sku-%d' is required\"}}", i);
        sink_put_one (endpoint, body, id);
    }
}
