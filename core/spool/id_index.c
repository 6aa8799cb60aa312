/*  id_index — 16 shards by the hash's top bits, each a table with linear
 *  probing, of any size (a slot is picked by multiplying the hash into the
 *  table's range, so it can grow by half rather than double), deletion by
 *  shifting the entries after a hole back (no tombstones, so probes stay
 *  short however many are removed).
 */
#include "id_index.h"

#include "dlq_alloc.h"

#include <pthread.h>
#include <stdlib.h>
#include <xxhash.h>

#define SHARD_BITS 4
#define SHARDS (1u << SHARD_BITS)
#define INITIAL_SLOTS 256               /* a shard's first table: one 4 KiB page */
#define MAX_LOAD_PERCENT 80

typedef struct {
    uint64_t hash;              /* 0: an empty slot */
    uint64_t position;
} entry_t;

/* A table of its own under a lock of its own, for the hashes whose top
 * SHARD_BITS bits are its number: growing one replaces 1/SHARDS of the
 * index, not all of it (old and new tables are both alive while it
 * rehashes), and the pages of the table it replaced go back to the system. */
typedef struct {
    pthread_rwlock_t lock;
    entry_t         *slots;
    size_t           capacity, count;
} shard_t;

struct dlq_id_index {
    shard_t shards [SHARDS];
};

uint64_t
dlq_id_index_hash (const char *id, size_t len)
{
    uint64_t h = XXH3_64bits (id, len);
    return h ? h : 1;
}

static shard_t *shard_of (dlq_id_index_t *self, uint64_t hash) { return &self->shards [hash >> (64 - SHARD_BITS)]; }

/* The hash's bits below the shard's number pick the slot. */
static size_t
home (const shard_t *shard, uint64_t hash)
{
    return (size_t) (((unsigned __int128) (hash << SHARD_BITS) * shard->capacity) >> 64);
}

static size_t next_slot (const shard_t *shard, size_t i) { return i + 1 == shard->capacity ? 0 : i + 1; }

static entry_t *table_new (size_t capacity) { return dlq_pages_alloc (capacity * sizeof (entry_t)); }
static void table_free (entry_t *slots, size_t capacity) { dlq_pages_free (slots, capacity * sizeof (entry_t)); }

dlq_id_index_t *
dlq_id_index_new (void)
{
    dlq_id_index_t *self = dlq_calloc (1, sizeof *self);
    for (unsigned k = 0; k < SHARDS; k++) {
        pthread_rwlock_init (&self->shards [k].lock, NULL);
        self->shards [k].capacity = INITIAL_SLOTS;
        self->shards [k].slots = table_new (INITIAL_SLOTS);
    }
    return self;
}

void
dlq_id_index_destroy (dlq_id_index_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_id_index_t *self = *self_p;
    for (unsigned k = 0; k < SHARDS; k++) {
        pthread_rwlock_destroy (&self->shards [k].lock);
        table_free (self->shards [k].slots, self->shards [k].capacity);
    }
    free (self);
    *self_p = NULL;
}

static void
insert (shard_t *shard, entry_t e)
{
    size_t i = home (shard, e.hash);
    while (shard->slots [i].hash)
        i = next_slot (shard, i);
    shard->slots [i] = e;
    shard->count++;
}

static void
resize (shard_t *shard, size_t capacity)
{
    entry_t *old = shard->slots;
    size_t old_capacity = shard->capacity;
    shard->capacity = capacity;
    shard->slots = table_new (capacity);
    shard->count = 0;
    for (size_t i = 0; i < old_capacity; i++)
        if (old [i].hash)
            insert (shard, old [i]);
    table_free (old, old_capacity);
}

static void grow (shard_t *shard) { resize (shard, shard->capacity + shard->capacity / 2); }

void
dlq_id_index_reserve (dlq_id_index_t *self, size_t count)
{
    /* a shard's share, and 1/16 more for the unevenness of the hashes */
    size_t share = count / SHARDS + count / SHARDS / 16;
    size_t want = share / MAX_LOAD_PERCENT * 100 + 1;
    for (unsigned k = 0; k < SHARDS; k++) {
        shard_t *shard = &self->shards [k];
        pthread_rwlock_wrlock (&shard->lock);
        if (want > shard->capacity)
            resize (shard, want);
        pthread_rwlock_unlock (&shard->lock);
    }
}

void
dlq_id_index_put (dlq_id_index_t *self, uint64_t hash, uint64_t position)
{
    hash = hash ? hash : 1;
    shard_t *shard = shard_of (self, hash);
    pthread_rwlock_wrlock (&shard->lock);
    if ((shard->count + 1) * 100 > shard->capacity * MAX_LOAD_PERCENT)
        grow (shard);
    insert (shard, (entry_t) { hash, position });
    pthread_rwlock_unlock (&shard->lock);
}

bool
dlq_id_index_get (dlq_id_index_t *self, uint64_t hash, uint64_t *position_out)
{
    bool found = false;
    shard_t *shard = shard_of (self, hash);
    pthread_rwlock_rdlock (&shard->lock);
    for (size_t i = home (shard, hash); shard->slots [i].hash; i = next_slot (shard, i)) {
        const entry_t *e = &shard->slots [i];
        if (e->hash == hash && (!found || e->position > *position_out)) {
            *position_out = e->position;
            found = true;
        }
    }
    pthread_rwlock_unlock (&shard->lock);
    return found;
}

/* Empty slot i and shift back the entries after it that may live there. */
static void
delete_at (shard_t *shard, size_t i)
{
    size_t hole = i;
    for (size_t j = next_slot (shard, i); shard->slots [j].hash; j = next_slot (shard, j)) {
        size_t h = home (shard, shard->slots [j].hash);
        /* j's entry may move to the hole unless its home lies in (hole, j] */
        bool stays = hole <= j ? (h > hole && h <= j) : (h > hole || h <= j);
        if (!stays) {
            shard->slots [hole] = shard->slots [j];
            hole = j;
        }
    }
    shard->slots [hole].hash = 0;
    shard->count--;
}

bool
dlq_id_index_remove (dlq_id_index_t *self, uint64_t hash, uint64_t position)
{
    bool removed = false;
    shard_t *shard = shard_of (self, hash);
    pthread_rwlock_wrlock (&shard->lock);
    for (size_t i = home (shard, hash); shard->slots [i].hash; i = next_slot (shard, i)) {
        if (shard->slots [i].hash == hash && shard->slots [i].position == position) {
            delete_at (shard, i);
            removed = true;
            break;
        }
    }
    pthread_rwlock_unlock (&shard->lock);
    return removed;
}

/* The sum over the shards of what each gives (each read under its lock). */
static size_t
sum_shards (dlq_id_index_t *self, bool bytes)
{
    size_t n = 0;
    for (unsigned k = 0; k < SHARDS; k++) {
        shard_t *shard = &self->shards [k];
        pthread_rwlock_rdlock (&shard->lock);
        n += bytes ? shard->capacity * sizeof (entry_t) : shard->count;
        pthread_rwlock_unlock (&shard->lock);
    }
    return n;
}

size_t dlq_id_index_count (dlq_id_index_t *self) { return sum_shards (self, false); }
size_t dlq_id_index_bytes (dlq_id_index_t *self) { return sum_shards (self, true); }
