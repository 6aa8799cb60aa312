/*  mongo_commands — what the MongoDB test server answers to each command,
 *  as a MongoDB 6.0 standalone server would (maxWireVersion 17).
 *
 *  Served: hello / isMaster / ismaster (helloOk when asked; no
 *  topologyVersion, so drivers poll instead of streaming), ping,
 *  buildInfo, endSessions, insert, update ($set, $unset, $inc,
 *  $setOnInsert, replacements, upsert), findAndModify (query, sort,
 *  update or remove, new, upsert, fields; atomic, as MongoDB's: an upsert
 *  that meets a document inserted meanwhile answers DuplicateKey 11000),
 *  delete, find, getMore,
 *  killCursors, count, aggregate (see mongo_aggregate.h), createIndexes,
 *  listIndexes, dropIndexes, create, drop, dropDatabase, listCollections,
 *  listDatabases. Anything else answers CommandNotFound (59). Over
 *  OP_QUERY only the hello family is served, as 6.0 does
 *  (UnsupportedOpQueryCommand, 352).
 *
 *  Write commands answer {n, writeErrors?, ok: 1}: a duplicate _id is a
 *  writeError 11000 at the document's index; ordered batches stop at the
 *  first writeError, unordered ones carry on. A document without _id gets
 *  an ObjectId; _id is moved first. Injected insert faults (mongo_faults)
 *  become writeErrors here. Write concerns are accepted and ignored.
 *
 *  Thread-safe (the store, cursors and faults are).
 */
#ifndef DLQ_MONGO_COMMANDS_H
#define DLQ_MONGO_COMMANDS_H

#include "mongo_faults.h"
#include "mongo_store.h"

#include <bson/bson.h>

#include <stdbool.h>
#include <stdint.h>

typedef struct mongo_commands mongo_commands_t;

/* One command to run. */
typedef struct {
    const char   *db;               /* NULL: an OP_MSG without $db */
    const bson_t *command;          /* document sequences merged in */
    int32_t       connection_id;    /* hello's connectionId */
    bool          legacy;           /* came as OP_QUERY */
} mongo_call_t;

/* Commands over store (documents) and faults (insert faults); both stay
 * the caller's and must outlive the commands. */
mongo_commands_t *mongo_commands_new (mongo_store_t *store, mongo_faults_t *faults);

/* Kill every open cursor; *self_p becomes NULL. */
void mongo_commands_destroy (mongo_commands_t **self_p);

/* Run call; returns the reply ({ok: 1, ...} or {ok: 0, errmsg, code,
 * codeName}), which the caller destroys. */
bson_t *mongo_commands_run (mongo_commands_t *self, const mongo_call_t *call);

/* Whether name is a command this server serves. */
bool mongo_commands_knows (const char *name);

/* How many cursors are open (exhausted and killed ones are gone). */
size_t mongo_commands_open_cursors (mongo_commands_t *self);

#endif
