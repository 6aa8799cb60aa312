/*  dlq_strmap — a small hash table from strings to pointers (open
 *  addressing, linear probing, FNV-1a), for per-stream caches such as a
 *  sink's routes. Keys are copied; values are owned by the map when it
 *  was made with a free function. Gets from any number of threads are safe
 *  while no thread puts; a map that changes belongs to one thread.
 */
#ifndef DLQ_STRMAP_H
#define DLQ_STRMAP_H

#include <stddef.h>

typedef struct dlq_strmap dlq_strmap_t;

/* An empty map; free_value (NULL: none) frees values at destroy. */
dlq_strmap_t *dlq_strmap_new (void (*free_value) (void *value));
void dlq_strmap_destroy (dlq_strmap_t **self_p);

/* The value of key, or NULL. */
void *dlq_strmap_get (const dlq_strmap_t *self, const char *key);

/* The value of the key of len bytes at key (no NUL needed; one inside it
 * matches no key), or NULL. */
void *dlq_strmap_get_n (const dlq_strmap_t *self, const char *key, size_t len);

/* Set key to value (key absent: the caller checks with get first). */
void dlq_strmap_put (dlq_strmap_t *self, const char *key, void *value);

/* Entries. */
size_t dlq_strmap_size (const dlq_strmap_t *self);

#endif
