/*  dlq_names — an enum's names as a table indexed by its values: the name
 *  of a value, and the value of a name, for the enums whose names go to
 *  the wire or into a store (a delivery's state, a replay job's). Pure.
 */
#ifndef DLQ_NAMES_H
#define DLQ_NAMES_H

#include <stdbool.h>
#include <stddef.h>

/* names [value] when value < count, else unknown. */
const char *dlq_names_name (const char *const *names, size_t count, size_t value, const char *unknown);

/* The value whose name is name (byte for byte) in *value_out; false when
 * none is (name NULL too). */
bool dlq_names_find (const char *const *names, size_t count, const char *name, size_t *value_out);

#endif
