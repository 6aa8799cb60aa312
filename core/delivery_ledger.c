/*  delivery_ledger — the ledger's state names and the check of an update. */
#include "delivery_ledger.h"

#include "dlq_names.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const state_names [] = {
    [DLQ_DELIVERY_PENDING]   = "pending",
    [DLQ_DELIVERY_DELIVERED] = "delivered",
    [DLQ_DELIVERY_RETRYING]  = "retrying",
    [DLQ_DELIVERY_FAILED]    = "failed",
};

#define STATE_COUNT (sizeof state_names / sizeof state_names [0])

const char *
dlq_delivery_state_name (dlq_delivery_state_t state)
{
    return dlq_names_name (state_names, STATE_COUNT, (size_t) state, "unknown");
}

bool
dlq_delivery_state_parse (const char *name, dlq_delivery_state_t *state)
{
    size_t value;
    if (!dlq_names_find (state_names, STATE_COUNT, name, &value))
        return false;
    *state = (dlq_delivery_state_t) value;
    return true;
}

const char *
dlq_ledger_update_problem (const dlq_ledger_update_t *u)
{
    if (!u)
        return "is NULL";
    size_t name_len = strnlen (u->sink, sizeof u->sink);
    if (name_len == 0 || name_len == sizeof u->sink)
        return "has an empty or unterminated sink name";
    if (u->delivered > INT64_MAX || u->failed > INT64_MAX || u->redelivered > INT64_MAX)
        return "has a counter beyond INT64_MAX";
    if (u->row_count && !u->rows)
        return "has rows but no row array";
    for (size_t r = 0; r < u->row_count; r++) {
        if (u->rows [r].seq < 1)
            return "has a row with a seq below 1";
        if ((size_t) u->rows [r].state >= STATE_COUNT)
            return "has a row with an unknown state";
        if (strnlen (u->rows [r].id, sizeof u->rows [r].id) == sizeof u->rows [r].id)
            return "has a row with an unterminated id";
    }
    return NULL;
}

void
dlq_ledger_update_destroy (dlq_ledger_update_t **update_p)
{
    if (!update_p || !*update_p)
        return;
    for (size_t r = 0; (*update_p)->rows && r < (*update_p)->row_count; r++)
    {
        free ((*update_p)->rows [r].stream);
        free ((*update_p)->rows [r].record);
    }
    free ((*update_p)->rows);
    free (*update_p);
    *update_p = NULL;
}
