/*  contract_delivery — what every sink plugin must do in DELIVER mode,
 *  whatever its backend: start and stop cleanly, give exactly one
 *  well-formed outcome per event, take any batch from 1 to max_batch events
 *  of any valid shape, and be idempotent on the event id (a healthy backend
 *  says OK to a redelivered batch; a store keeps each id once).
 */
#include "contract.h"

#include <criterion/criterion.h>
#include <string.h>

/* Load the sink; a sink that only serves queries has nothing to show here. */
static void
delivery_setup (void)
{
    contract_setup ();
    contract_require_deliver ();
}

TestSuite (delivery, .init = delivery_setup, .fini = contract_teardown);

/* An event of stream made a minute ago, kept forever, of shape. */
static contract_spec_t
recent (const char *stream, contract_shape_t shape)
{
    return (contract_spec_t) { .stream = stream, .created_at = contract_now () - 60000,
                               .expires_at = DLQ_TIME_NONE, .shape = shape };
}

/* Deliver count events of one stream through a fresh instance; all OK. */
static void
expect_batch_accepted (size_t count)
{
    void *sink = contract_open (DLQ_SINK_MODE_DELIVER);
    contract_batch_t batch = CONTRACT_BATCH_INIT;
    contract_spec_t spec = recent ("orders", CONTRACT_FULL);
    contract_batch_fill (&batch, &spec, count);
    contract_deliver_ok (sink, &batch, 1);
    contract_close (sink);
    contract_batch_free (&batch);
}

Test (delivery, init_and_destroy_in_deliver_mode)
{
    cr_expect (sut.ops->type && *sut.ops->type, "the sink declares no type");
    cr_expect_not_null (sut.ops->description, "the sink declares no description");
    void *sink = contract_open (DLQ_SINK_MODE_DELIVER);
    contract_close (sink);
    sink = contract_open (DLQ_SINK_MODE_DELIVER);
    contract_close (sink);
}

Test (delivery, every_event_gets_one_well_formed_outcome)
{
    void *sink = contract_open (DLQ_SINK_MODE_DELIVER);
    contract_batch_t batch = CONTRACT_BATCH_INIT;
    contract_spec_t specs [] = {
        recent ("orders", CONTRACT_FULL), recent ("payments", CONTRACT_PLAIN),
        recent ("orders", CONTRACT_MINIMAL),
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs [0]; i++)
        contract_batch_add (&batch, &specs [i]);
    contract_deliver (sink, &batch, 1);
    contract_close (sink);
    contract_batch_free (&batch);
}

Test (delivery, a_batch_of_one_is_accepted)
{
    expect_batch_accepted (1);
}

Test (delivery, a_batch_of_two_is_accepted)
{
    expect_batch_accepted (2);
}

Test (delivery, a_batch_of_max_batch_is_accepted)
{
    expect_batch_accepted (contract_max_batch ());
}

Test (delivery, events_of_every_shape_are_accepted)
{
    void *sink = contract_open (DLQ_SINK_MODE_DELIVER);
    contract_batch_t batch = CONTRACT_BATCH_INIT;
    contract_spec_t minimal = recent ("orders", CONTRACT_MINIMAL);
    contract_spec_t plain = recent ("orders", CONTRACT_PLAIN);
    contract_spec_t large = recent ("orders", CONTRACT_FULL);
    large.padding = 512 * 1024;
    contract_batch_add (&batch, &minimal);
    cr_assert_null (batch.events [0]->operation_type, "the minimal event has no operationType");
    cr_assert_null (batch.events [0]->document_key, "the minimal event has no documentKey");
    contract_batch_add (&batch, &plain);
    contract_batch_add (&batch, &large);
    contract_deliver_ok (sink, &batch, 1);
    contract_close (sink);
    contract_batch_free (&batch);
}

/* A store holds each event of batch exactly once. */
static void
expect_stored_once (const contract_batch_t *batch, const char *stream)
{
    void *query = contract_open (DLQ_SINK_MODE_QUERY);
    contract_listed_t listed [8];
    size_t n = contract_list_all (query, stream, 100, contract_now (), listed, 8);
    cr_expect_eq (n, batch->count, "%zu events delivered 3 times are listed %zu times", batch->count, n);
    for (size_t i = 0; i < batch->count; i++) {
        size_t seen = 0;
        for (size_t k = 0; k < n; k++)
            seen += strcmp (listed [k].id, batch->events [i]->id) == 0;
        cr_expect_eq (seen, 1, "event %s is listed %zu times", batch->events [i]->id, seen);
    }
    size_t streams;
    int64_t events;
    cr_expect_eq (contract_stats (query, stream, &streams, &events), (int64_t) batch->count,
                  "STATS counts the redelivered events more than once");
    contract_listed_free (listed, n);
    contract_close (query);
}

Test (delivery, redelivering_a_batch_is_idempotent_on_the_event_id)
{
    void *sink = contract_open (DLQ_SINK_MODE_DELIVER);
    contract_batch_t batch = CONTRACT_BATCH_INIT;
    contract_spec_t spec = recent ("orders", CONTRACT_FULL);
    contract_batch_fill (&batch, &spec, 3);
    contract_deliver_ok (sink, &batch, 1);
    contract_deliver_ok (sink, &batch, 2);
    contract_close (sink);
    sink = contract_open (DLQ_SINK_MODE_DELIVER);
    contract_deliver_ok (sink, &batch, 1);
    contract_close (sink);
    if (sut.ops->store)
        expect_stored_once (&batch, "orders");
    contract_batch_free (&batch);
}

Test (delivery, deliver_instances_work_side_by_side)
{
    void *first = contract_open (DLQ_SINK_MODE_DELIVER);
    void *second = contract_open (DLQ_SINK_MODE_DELIVER);
    contract_batch_t a = CONTRACT_BATCH_INIT, b = CONTRACT_BATCH_INIT;
    contract_spec_t spec = recent ("orders", CONTRACT_PLAIN);
    contract_batch_fill (&a, &spec, 4);
    contract_batch_fill (&b, &spec, 4);
    contract_deliver_ok (first, &a, 1);
    contract_deliver_ok (second, &b, 1);
    contract_deliver_ok (first, &b, 2);
    contract_close (first);
    contract_deliver_ok (second, &a, 2);
    contract_close (second);
    contract_batch_free (&a);
    contract_batch_free (&b);
}
