/*  dlq_strmap — strings to pointers; see dlq_strmap.h. */
#include "dlq_strmap.h"

#include "dlq_alloc.h"
#include "dlq_hash.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FIRST_SLOTS 16          /* a power of two */

typedef struct {
    char *key;                  /* NULL: an empty slot */
    void *value;
} slot_t;

struct dlq_strmap {
    slot_t *slots;
    size_t  size;               /* slots, a power of two */
    size_t  used;
    void  (*free_value) (void *value);
};

dlq_strmap_t *
dlq_strmap_new (void (*free_value) (void *value))
{
    dlq_strmap_t *self = dlq_calloc (1, sizeof *self);
    self->size = FIRST_SLOTS;
    self->slots = dlq_calloc (self->size, sizeof *self->slots);
    self->free_value = free_value;
    return self;
}

void
dlq_strmap_destroy (dlq_strmap_t **self_p)
{
    dlq_strmap_t *self = *self_p;
    if (!self)
        return;
    for (size_t i = 0; i < self->size; i++) {
        free (self->slots [i].key);
        if (self->slots [i].key && self->free_value)
            self->free_value (self->slots [i].value);
    }
    free (self->slots);
    free (self);
    *self_p = NULL;
}

static bool
key_is (const char *stored, const char *key, size_t len)
{
    return strnlen (stored, len + 1) == len && memcmp (stored, key, len) == 0;
}

static slot_t *
find_slot (slot_t *slots, size_t size, const char *key, size_t len)
{
    size_t i = (size_t) dlq_hash_fnv64 (key, len) & (size - 1);
    while (slots [i].key && !key_is (slots [i].key, key, len))
        i = (i + 1) & (size - 1);
    return &slots [i];
}

static void
grow (dlq_strmap_t *self)
{
    size_t size = self->size * 2;
    slot_t *slots = dlq_calloc (size, sizeof *slots);
    for (size_t i = 0; i < self->size; i++)
        if (self->slots [i].key)
            *find_slot (slots, size, self->slots [i].key, strlen (self->slots [i].key)) = self->slots [i];
    free (self->slots);
    self->slots = slots;
    self->size = size;
}

void *
dlq_strmap_get (const dlq_strmap_t *self, const char *key)
{
    return dlq_strmap_get_n (self, key, strlen (key));
}

void *
dlq_strmap_get_n (const dlq_strmap_t *self, const char *key, size_t len)
{
    return find_slot (self->slots, self->size, key, len)->value;
}

void
dlq_strmap_put (dlq_strmap_t *self, const char *key, void *value)
{
    if ((self->used + 1) * 10 > self->size * 7)
        grow (self);
    slot_t *slot = find_slot (self->slots, self->size, key, strlen (key));
    if (!slot->key) {
        slot->key = dlq_strdup (key);
        self->used++;
    }
    else if (self->free_value)
        self->free_value (slot->value);
    slot->value = value;
}

size_t
dlq_strmap_size (const dlq_strmap_t *self)
{
    return self->used;
}
