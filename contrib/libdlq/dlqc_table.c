/*  dlqc_table — slots of outstanding requests on intrusive index lists. */
#include "dlqc_table.h"
#include "dlq_alloc.h"

#include <stdlib.h>
#include <string.h>

void
dlqc_outcome_clear (dlqc_outcome_t *outcome)
{
    free (outcome->body);
    free (outcome->message);
    memset (outcome, 0, sizeof *outcome);
}

static void
unlink_slot (dlqc_table_t *table, uint32_t slot)
{
    dlqc_request_t *r = &table->slots [slot];
    dlqc_state_t list = r->state;
    if (list == DLQC_DONE)
        return;
    if (r->prev != DLQC_NO_SLOT)
        table->slots [r->prev].next = r->next;
    else
        table->head [list] = r->next;
    if (r->next != DLQC_NO_SLOT)
        table->slots [r->next].prev = r->prev;
    else
        table->tail [list] = r->prev;
    table->count [list]--;
    r->prev = r->next = DLQC_NO_SLOT;
}

static void
append_slot (dlqc_table_t *table, uint32_t slot, dlqc_state_t list)
{
    dlqc_request_t *r = &table->slots [slot];
    r->state = list;
    r->prev = r->next = DLQC_NO_SLOT;
    if (list == DLQC_DONE)
        return;
    r->prev = table->tail [list];
    if (r->prev != DLQC_NO_SLOT)
        table->slots [r->prev].next = slot;
    else
        table->head [list] = slot;
    table->tail [list] = slot;
    table->count [list]++;
}

void
dlqc_table_init (dlqc_table_t *table, uint32_t capacity)
{
    memset (table, 0, sizeof *table);
    table->slots = dlq_calloc (capacity, sizeof *table->slots);
    table->capacity = capacity;
    for (int list = 0; list < DLQC_LIST_COUNT; list++)
        table->head [list] = table->tail [list] = DLQC_NO_SLOT;
    for (uint32_t slot = 0; slot < capacity; slot++)
        append_slot (table, slot, DLQC_FREE);
}

void
dlqc_table_fini (dlqc_table_t *table)
{
    for (uint32_t slot = 0; slot < table->capacity; slot++) {
        free (table->slots [slot].body);
        dlqc_outcome_clear (&table->slots [slot].outcome);
    }
    free (table->slots);
    memset (table, 0, sizeof *table);
}

uint32_t
dlqc_table_count (const dlqc_table_t *table, dlqc_state_t state)
{
    return state == DLQC_DONE ? 0 : table->count [state];
}

uint32_t
dlqc_table_acquire (dlqc_table_t *table, char *body, size_t body_len)
{
    uint32_t slot = table->head [DLQC_FREE];
    if (slot == DLQC_NO_SLOT)
        return DLQC_NO_SLOT;
    unlink_slot (table, slot);
    dlqc_request_t *r = &table->slots [slot];
    memset (r, 0, sizeof *r);
    r->body = body;
    r->body_len = body_len;
    append_slot (table, slot, DLQC_UNSENT);
    return slot;
}

uint32_t
dlqc_table_head (const dlqc_table_t *table, dlqc_state_t state)
{
    return state == DLQC_DONE ? DLQC_NO_SLOT : table->head [state];
}

void
dlqc_table_move (dlqc_table_t *table, uint32_t slot, dlqc_state_t state)
{
    unlink_slot (table, slot);
    append_slot (table, slot, state);
}

void
dlqc_table_requeue_sent (dlqc_table_t *table)
{
    uint32_t first = table->head [DLQC_SENT];
    uint32_t last = table->tail [DLQC_SENT];
    if (first == DLQC_NO_SLOT)
        return;
    for (uint32_t slot = first; slot != DLQC_NO_SLOT; slot = table->slots [slot].next)
        table->slots [slot].state = DLQC_UNSENT;
    table->slots [last].next = table->head [DLQC_UNSENT];
    if (table->head [DLQC_UNSENT] != DLQC_NO_SLOT)
        table->slots [table->head [DLQC_UNSENT]].prev = last;
    else
        table->tail [DLQC_UNSENT] = last;
    table->head [DLQC_UNSENT] = first;
    table->count [DLQC_UNSENT] += table->count [DLQC_SENT];
    table->head [DLQC_SENT] = table->tail [DLQC_SENT] = DLQC_NO_SLOT;
    table->count [DLQC_SENT] = 0;
}

void
dlqc_table_release (dlqc_table_t *table, uint32_t slot)
{
    dlqc_request_t *r = &table->slots [slot];
    free (r->body);
    r->body = NULL;
    dlqc_outcome_clear (&r->outcome);
    dlqc_table_move (table, slot, DLQC_FREE);
}

static void
put_be (uint8_t *out, uint64_t value, int bytes)
{
    for (int i = 0; i < bytes; i++)
        out [i] = (uint8_t) (value >> (8 * (bytes - 1 - i)));
}

static uint64_t
get_be (const uint8_t *in, int bytes)
{
    uint64_t value = 0;
    for (int i = 0; i < bytes; i++)
        value = value << 8 | in [i];
    return value;
}

void
dlqc_table_encode_id (const dlqc_table_t *table, uint32_t slot, uint8_t *out)
{
    put_be (out, table->slots [slot].seq, 8);
    put_be (out + 8, slot, 4);
}

uint32_t
dlqc_table_match (const dlqc_table_t *table, const void *id, size_t id_len)
{
    if (id_len != DLQC_REQUEST_ID_LEN)
        return DLQC_NO_SLOT;
    uint64_t seq = get_be (id, 8);
    uint64_t slot = get_be ((const uint8_t *) id + 8, 4);
    if (slot >= table->capacity)
        return DLQC_NO_SLOT;
    const dlqc_request_t *r = &table->slots [slot];
    if (r->state != DLQC_SENT || r->seq != seq)
        return DLQC_NO_SLOT;
    return (uint32_t) slot;
}
