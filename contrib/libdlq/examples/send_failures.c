/*  send_failures — the libdlq example from README.md: send a few failed
 *  events pipelined, then read one back.
 *
 *  cc send_failures.c $(pkg-config --cflags --libs libdlq) -o send_failures
 *  ./send_failures [ENDPOINT]
 */
#include <dlq_client.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
on_done (const dlq_client_completion_t *c, void *arg)
{
    int *failures = arg;
    if (c->result == DLQ_CLIENT_OK)
        printf ("event %llu stored as %s%s\n", (unsigned long long) c->tag, c->id,
                c->duplicate ? " (duplicate)" : "");
    else {
        printf ("event %llu failed: %s %s\n", (unsigned long long) c->tag, c->code, c->message);
        (*failures)++;
    }
}

int
main (int argc, char **argv)
{
    dlq_client_t *client = dlq_client_new (argc > 1 ? argv [1] : DLQ_CLIENT_DEFAULT_ENDPOINT);
    if (!client)
        return 2;
    char id [DLQ_CLIENT_ID_SIZE], body [512];
    for (uint64_t i = 0; i < 3; i++) {
        dlq_client_uuid_v7 (id);                /* an id makes resends idempotent */
        snprintf (body, sizeof body,
                  "{\"id\":\"%s\",\"streamName\":\"orders\",\"operationType\":\"INSERT\","
                  "\"error\":{\"type\":\"java.net.SocketTimeoutException\",\"message\":\"read timed out\"},"
                  "\"attempts\":3}", id);
        dlq_client_put_async (client, body, strlen (body), i);
    }
    int failures = 0;
    dlq_client_result_t rc = dlq_client_flush (client, 10000, on_done, &failures);

    char *event = NULL;
    size_t len = 0;
    if (rc == DLQ_CLIENT_OK && dlq_client_get (client, id, &event, &len) == DLQ_CLIENT_OK)
        printf ("last event: %.*s\n", (int) len, event);
    else
        fprintf (stderr, "error: %s %s\n", dlq_client_error_code (client), dlq_client_error_message (client));
    free (event);
    dlq_client_destroy (&client);
    return rc == DLQ_CLIENT_OK && failures == 0 ? 0 : 1;
}
