/*  replay_support — the replay endpoint read from a test; see the header. */
#include "replay_support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <zmq.h>

void *
replay_pull_open (void *zctx, const char *endpoint, int timeout_ms)
{
    void *pull = zmq_socket (zctx, ZMQ_PULL);
    int linger = 0;
    zmq_setsockopt (pull, ZMQ_RCVTIMEO, &timeout_ms, sizeof timeout_ms);
    zmq_setsockopt (pull, ZMQ_LINGER, &linger, sizeof linger);
    cr_assert_eq (zmq_connect (pull, endpoint), 0);
    return pull;
}

/* Frame f's bytes as a string into out (size bytes). */
static void
frame_text (zmq_msg_t *f, char *out, size_t size)
{
    snprintf (out, size, "%.*s", (int) zmq_msg_size (f), (char *) zmq_msg_data (f));
}

bool
replay_pull (void *pull, char *job, char *id, char **body)
{
    zmq_msg_t frames [3];
    for (int i = 0; i < 3; i++) {
        zmq_msg_init (&frames [i]);
        if (zmq_msg_recv (&frames [i], pull, 0) < 0) {
            cr_assert_eq (i, 0, "a replay message cut short");
            zmq_msg_close (&frames [i]);
            return false;
        }
    }
    cr_assert_not (zmq_msg_more (&frames [2]), "a replay message is 3 frames");
    if (job)
        frame_text (&frames [0], job, REPLAY_JOB_SIZE);
    if (id)
        frame_text (&frames [1], id, DLQ_UUID_LEN + 1);
    if (body)
        *body = strndup (zmq_msg_data (&frames [2]), zmq_msg_size (&frames [2]));
    for (int i = 0; i < 3; i++)
        zmq_msg_close (&frames [i]);
    return true;
}

int
replay_index_of (char (*ids) [DLQ_UUID_LEN + 1], int n, const char *id)
{
    for (int i = 0; i < n; i++)
        if (strcmp (ids [i], id) == 0)
            return i;
    return -1;
}
