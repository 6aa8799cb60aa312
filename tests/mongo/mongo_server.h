/*  mongo_server — a MongoDB server for the tests, speaking the wire
 *  protocol over TCP on 127.0.0.1, good enough for mongo-c-driver (1.23)
 *  to take it for a MongoDB 6.0 standalone server: what the driver
 *  writes is stored in memory, what it reads comes from there.
 *
 *  It runs in threads of the calling process (a listener, and one thread
 *  per connection), so a dlqd started as another process reaches it at
 *  mongo_server_uri, while the test looks inside (documents, index specs,
 *  every command received) and injects faults through this API. Under
 *  Criterion, make it inside the test (a server made before the fork has
 *  no threads in the test's process) and destroy it before the test ends.
 *  The standalone binary mongo_test_server runs the same server.
 *
 *  What it answers, and how, is in mongo_commands.h (commands),
 *  mongo_match.h (filters, sort), mongo_update.h, mongo_aggregate.h;
 *  framing in mongo_wire.h. In short, not there: authentication, TLS,
 *  compression, transactions, replica sets (no topologyVersion: drivers
 *  poll rather than stream), secondary index constraints (unique indexes
 *  are recorded, not enforced), TTL expiry (expireAfterSeconds is
 *  recorded only), regular expressions beyond what POSIX and PCRE share
 *  (mongo_regex.h), most update and aggregation operators (refused as
 *  NotImplemented, never misread).
 *
 *  A malformed or oversized message (over 48 000 000 bytes) closes its
 *  connection with a line on stderr; so does an unknown command get a
 *  line (and a CommandNotFound answer). With DLQD_TEST_VERBOSE set
 *  (non-empty), or mongo_server_set_verbose, every command and its
 *  outcome is logged to stderr too.
 *
 *  Every function is thread-safe. Strings and documents returned are
 *  copies the caller frees as each function says.
 */
#ifndef DLQ_MONGO_SERVER_H
#define DLQ_MONGO_SERVER_H

#include "mongo_command_log.h"

#include <bson/bson.h>

#include <stdbool.h>
#include <stddef.h>

#define MONGO_SERVER_VERBOSE_ENV "DLQD_TEST_VERBOSE"

typedef struct mongo_server mongo_server_t;

/* ------------------------------------------------------------------ */
/*  Lifetime                                                            */
/* ------------------------------------------------------------------ */

/* A server listening on 127.0.0.1:port (0: any free port), its listener
 * running. NULL (with a message on stderr) when it cannot listen. */
mongo_server_t *mongo_server_new (int port);

/* "mongodb://127.0.0.1:<port>/": no options, the driver's defaults apply
 * (append "?serverSelectionTimeoutMS=..." etc. as a test needs). */
const char *mongo_server_uri (const mongo_server_t *self);
int mongo_server_port (const mongo_server_t *self);

/* Stop listening, close every connection, join every thread, free all;
 * *self_p becomes NULL (NULL or *self_p NULL: no-op). */
void mongo_server_destroy (mongo_server_t **self_p);

/* Log every command to stderr (on) or only trouble (off). */
void mongo_server_set_verbose (mongo_server_t *self, bool verbose);

/* Record the commands received (on, the default) or not. */
void mongo_server_set_recording (mongo_server_t *self, bool recording);

/* ------------------------------------------------------------------ */
/*  Looking inside                                                      */
/* ------------------------------------------------------------------ */

/* How many documents db.coll holds (0: none, or no such collection). */
size_t mongo_server_count (mongo_server_t *self, const char *db, const char *coll);

/* Wait until db.coll holds at least want documents; false when it still
 * holds fewer after timeout_ms. */
bool mongo_server_wait_count (mongo_server_t *self, const char *db, const char *coll,
                              size_t want, int timeout_ms);

/* The first document of db.coll (insertion order) matching filter (NULL:
 * any), a copy the caller bson_destroy's; NULL when none matches or the
 * filter is one the server does not evaluate (said on stderr). */
bson_t *mongo_server_find_one (mongo_server_t *self, const char *db, const char *coll,
                               const bson_t *filter);

/* Every document of db.coll matching filter (NULL: all), ordered by sort
 * (NULL: insertion order); *count_out gets their number. Free with
 * mongo_server_docs_free. */
bson_t **mongo_server_find (mongo_server_t *self, const char *db, const char *coll,
                            const bson_t *filter, const bson_t *sort, size_t *count_out);
void mongo_server_docs_free (bson_t **docs, size_t count);

/* Store a copy of doc in db.coll as an insert would (an ObjectId _id
 * added when it has none), e.g. to have a duplicate there beforehand.
 * False when a document with its _id is there already. */
bool mongo_server_insert (mongo_server_t *self, const char *db, const char *coll,
                          const bson_t *doc);

bool mongo_server_has_collection (mongo_server_t *self, const char *db, const char *coll);

/* The index specs of db.coll as canonical extended JSON, the _id index
 * first ({"v": {"$numberInt": "2"}, "key": {...}, "name": "...", ...});
 * a NULL-terminated array (free with mongo_server_strings_free), *n_out
 * their number; NULL (and 0) when the collection does not exist. */
char **mongo_server_index_specs (mongo_server_t *self, const char *db, const char *coll,
                                 size_t *n_out);

/* The commands received called name (NULL: all; the name is the command
 * document's first field as sent, so "hello" and "isMaster" differ),
 * oldest first: returns their number, and when json_out is not NULL a
 * NULL-terminated array of each command as canonical extended JSON
 * (OP_MSG document sequences merged in as arrays, $db and lsid
 * included); free with mongo_server_strings_free. */
size_t mongo_server_commands_named (mongo_server_t *self, const char *name, char ***json_out);

/* The same, as records (name, db, json, connection id, known); free with
 * mongo_server_records_free. */
size_t mongo_server_commands (mongo_server_t *self, const char *name,
                              mongo_command_record_t **records_out);
void mongo_server_records_free (mongo_command_record_t *records, size_t count);

/* The same, as documents (parsed back from the JSON; free with
 * mongo_server_docs_free), for tests that look inside with bson_iter. */
bson_t **mongo_server_command_documents (mongo_server_t *self, const char *name,
                                         size_t *count_out);

/* The commands the server did not know (answered CommandNotFound). */
size_t mongo_server_unknown_commands (mongo_server_t *self, char ***json_out);

/* Wait until at least want commands called name were received; false
 * when fewer came within timeout_ms. */
bool mongo_server_wait_commands (mongo_server_t *self, const char *name, size_t want,
                                 int timeout_ms);

/* Free a NULL-terminated array of strings (NULL: no-op). */
void mongo_server_strings_free (char **strings);

/* Forget the commands received so far. */
void mongo_server_clear_log (mongo_server_t *self);

/* Connections open now; cursors open now. */
size_t mongo_server_connection_count (mongo_server_t *self);
size_t mongo_server_open_cursors (mongo_server_t *self);

/* ------------------------------------------------------------------ */
/*  Faults                                                              */
/* ------------------------------------------------------------------ */

/* The next times (< 0: every one until mongo_server_clear_faults)
 * commands called name, on any connection, answer {ok: 0, errmsg, code,
 * codeName, errorLabels: [error_label]} without being applied. codename
 * NULL: MongoDB's name for code (e.g. 10107 "NotWritablePrimary", 91
 * "ShutdownInProgress", 11600 "InterruptedAtShutdown"); errmsg NULL: a
 * message saying the failure was injected; error_label NULL: no
 * errorLabels (e.g. "RetryableWriteError"). */
void mongo_server_fail_command (mongo_server_t *self, const char *name, int times, int code,
                                const char *codename, const char *errmsg,
                                const char *error_label);

/* The next times commands called name close their connection instead of
 * answering; the command is not applied. */
void mongo_server_drop_on_command (mongo_server_t *self, const char *name, int times);

/* The next times documents with an _id equal to id (1, 1.0 and
 * NumberLong(1) are equal) that an insert carries are not stored but get
 * a writeError {index, code, errmsg} (errmsg NULL: a message saying it
 * was injected; e.g. code 121 DocumentValidationFailure); the other
 * documents of the insert fare as usual (an ordered insert stops there,
 * an unordered one carries on). */
void mongo_server_fail_insert_of (mongo_server_t *self, const bson_value_t *id, int times,
                                  int code, const char *errmsg);

/* The same for a string _id. */
void mongo_server_fail_insert_of_string (mongo_server_t *self, const char *id, int times,
                                         int code, const char *errmsg);

/* Delay every reply by ms (0: no more delay); hello included. */
void mongo_server_set_delay (mongo_server_t *self, int ms);

/* Forget every fault not used yet, and the delay. */
void mongo_server_clear_faults (mongo_server_t *self);

/* Close every open connection now (clients see a network error on their
 * next read or write and reconnect). */
void mongo_server_close_connections (mongo_server_t *self);

/* down: close every connection and stop listening (connecting is
 * refused); up again: listen on the same port. Returns once done; false
 * when the port could not be bound again within 5 s. */
bool mongo_server_set_down (mongo_server_t *self, bool down);

#endif
