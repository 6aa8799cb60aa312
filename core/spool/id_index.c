/*  id_index — linear probing over a table of any size (a slot is picked by
 *  multiplying the hash into the table's range, so it can grow by half
 *  rather than double), deletion by shifting the entries after a hole back
 *  (no tombstones, so probes stay short however many are removed).
 */
#include "id_index.h"

#include "dlq_alloc.h"

#include <pthread.h>
#include <stdlib.h>
#include <xxhash.h>

#define INITIAL_SLOTS 1024
#define MAX_LOAD_PERCENT 80

typedef struct {
    uint64_t hash;              /* 0: an empty slot */
    uint64_t position;
} entry_t;

struct dlq_id_index {
    pthread_rwlock_t lock;
    entry_t         *slots;
    size_t           capacity, count;
};

uint64_t
dlq_id_index_hash (const char *id, size_t len)
{
    uint64_t h = XXH3_64bits (id, len);
    return h ? h : 1;
}

static size_t
home (const dlq_id_index_t *self, uint64_t hash)
{
    return (size_t) (((unsigned __int128) hash * self->capacity) >> 64);
}

static size_t next_slot (const dlq_id_index_t *self, size_t i) { return i + 1 == self->capacity ? 0 : i + 1; }

dlq_id_index_t *
dlq_id_index_new (void)
{
    dlq_id_index_t *self = dlq_calloc (1, sizeof *self);
    pthread_rwlock_init (&self->lock, NULL);
    self->capacity = INITIAL_SLOTS;
    self->slots = dlq_calloc (self->capacity, sizeof *self->slots);
    return self;
}

void
dlq_id_index_destroy (dlq_id_index_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_id_index_t *self = *self_p;
    pthread_rwlock_destroy (&self->lock);
    free (self->slots);
    free (self);
    *self_p = NULL;
}

static void
insert (dlq_id_index_t *self, entry_t e)
{
    size_t i = home (self, e.hash);
    while (self->slots [i].hash)
        i = next_slot (self, i);
    self->slots [i] = e;
    self->count++;
}

static void
resize (dlq_id_index_t *self, size_t capacity)
{
    entry_t *old = self->slots;
    size_t old_capacity = self->capacity;
    self->capacity = capacity;
    self->slots = dlq_calloc (self->capacity, sizeof *self->slots);
    self->count = 0;
    for (size_t i = 0; i < old_capacity; i++)
        if (old [i].hash)
            insert (self, old [i]);
    free (old);
}

static void grow (dlq_id_index_t *self) { resize (self, self->capacity + self->capacity / 2); }

void
dlq_id_index_reserve (dlq_id_index_t *self, size_t count)
{
    size_t want = count / MAX_LOAD_PERCENT * 100 + 1;
    pthread_rwlock_wrlock (&self->lock);
    if (want > self->capacity)
        resize (self, want);
    pthread_rwlock_unlock (&self->lock);
}

void
dlq_id_index_put (dlq_id_index_t *self, uint64_t hash, uint64_t position)
{
    pthread_rwlock_wrlock (&self->lock);
    if ((self->count + 1) * 100 > self->capacity * MAX_LOAD_PERCENT)
        grow (self);
    insert (self, (entry_t) { hash ? hash : 1, position });
    pthread_rwlock_unlock (&self->lock);
}

bool
dlq_id_index_get (dlq_id_index_t *self, uint64_t hash, uint64_t *position_out)
{
    bool found = false;
    pthread_rwlock_rdlock (&self->lock);
    for (size_t i = home (self, hash); self->slots [i].hash; i = next_slot (self, i)) {
        const entry_t *e = &self->slots [i];
        if (e->hash == hash && (!found || e->position > *position_out)) {
            *position_out = e->position;
            found = true;
        }
    }
    pthread_rwlock_unlock (&self->lock);
    return found;
}

/* Empty slot i and shift back the entries after it that may live there. */
static void
delete_at (dlq_id_index_t *self, size_t i)
{
    size_t hole = i;
    for (size_t j = next_slot (self, i); self->slots [j].hash; j = next_slot (self, j)) {
        size_t h = home (self, self->slots [j].hash);
        /* j's entry may move to the hole unless its home lies in (hole, j] */
        bool stays = hole <= j ? (h > hole && h <= j) : (h > hole || h <= j);
        if (!stays) {
            self->slots [hole] = self->slots [j];
            hole = j;
        }
    }
    self->slots [hole].hash = 0;
    self->count--;
}

bool
dlq_id_index_remove (dlq_id_index_t *self, uint64_t hash, uint64_t position)
{
    bool removed = false;
    pthread_rwlock_wrlock (&self->lock);
    for (size_t i = home (self, hash); self->slots [i].hash; i = next_slot (self, i)) {
        if (self->slots [i].hash == hash && self->slots [i].position == position) {
            delete_at (self, i);
            removed = true;
            break;
        }
    }
    pthread_rwlock_unlock (&self->lock);
    return removed;
}

size_t
dlq_id_index_count (dlq_id_index_t *self)
{
    pthread_rwlock_rdlock (&self->lock);
    size_t n = self->count;
    pthread_rwlock_unlock (&self->lock);
    return n;
}

size_t
dlq_id_index_bytes (dlq_id_index_t *self)
{
    pthread_rwlock_rdlock (&self->lock);
    size_t n = self->capacity * sizeof (entry_t);
    pthread_rwlock_unlock (&self->lock);
    return n;
}
