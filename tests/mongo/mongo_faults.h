/*  mongo_faults — the faults a test injects into the MongoDB test server:
 *  commands answered with an error, connections closed instead of an
 *  answer, one document of an insert refused with a writeError, and a
 *  delay before every reply.
 *
 *  A fault applies to the next `times` commands (or documents) it
 *  matches, whichever connection they come on (times < 0: every one,
 *  until cleared). When several match, the one set first applies.
 *
 *  Thread-safe.
 */
#ifndef DLQ_MONGO_FAULTS_H
#define DLQ_MONGO_FAULTS_H

#include "mongo_error.h"

#include <bson/bson.h>

#include <stdbool.h>

typedef struct mongo_faults mongo_faults_t;

typedef enum {
    MONGO_FAULT_NONE,           /* answer as usual */
    MONGO_FAULT_FAIL,           /* answer {ok: 0, ...error, errorLabels?} */
    MONGO_FAULT_DROP,           /* close the connection, answer nothing */
} mongo_fault_kind_t;

typedef struct {
    mongo_fault_kind_t kind;
    mongo_error_t      error;       /* MONGO_FAULT_FAIL */
    char               label [64];  /* "" : no errorLabels */
} mongo_fault_t;

mongo_faults_t *mongo_faults_new (void);
void mongo_faults_destroy (mongo_faults_t **self_p);

/* The next times commands called name fail with code (codename NULL: its
 * known name; errmsg NULL: a message saying the fault was injected), with
 * errorLabels [label] when label is not NULL. */
void mongo_faults_fail_command (mongo_faults_t *self, const char *name, int times, int code,
                                const char *codename, const char *errmsg, const char *label);

/* The next times commands called name close their connection. */
void mongo_faults_drop_on_command (mongo_faults_t *self, const char *name, int times);

/* The next times documents with an _id equal to id that an insert
 * carries get a writeError code, errmsg (NULL: a message saying so). */
void mongo_faults_fail_insert_of (mongo_faults_t *self, const bson_value_t *id, int times,
                                  int code, const char *errmsg);

/* What to do with the command called name that just came (uses one of
 * the matching fault's times). */
void mongo_faults_take_command (mongo_faults_t *self, const char *name, mongo_fault_t *out);

/* Whether the document with _id id fails; then err gets its writeError
 * (uses one of the fault's times). */
bool mongo_faults_take_insert (mongo_faults_t *self, const bson_value_t *id, mongo_error_t *err);

/* Delay every reply by ms (0: none). */
void mongo_faults_set_delay (mongo_faults_t *self, int ms);
int mongo_faults_delay (mongo_faults_t *self);

/* Forget every fault and the delay. */
void mongo_faults_clear (mongo_faults_t *self);

#endif
