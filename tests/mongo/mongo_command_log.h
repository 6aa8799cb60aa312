/*  mongo_command_log — every command the MongoDB test server received, in
 *  arrival order, for the tests to assert on: its name (the command
 *  document's first field, as sent: "isMaster" and "hello" are two
 *  names), database, connection id, the whole command as canonical
 *  extended JSON (document sequences merged in), and whether the server
 *  knows the command.
 *
 *  Thread-safe. Recording can be turned off (the standalone server, whose
 *  log nobody reads, does).
 */
#ifndef DLQ_MONGO_COMMAND_LOG_H
#define DLQ_MONGO_COMMAND_LOG_H

#include <bson/bson.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct mongo_command_log mongo_command_log_t;

/* One command received. */
typedef struct {
    char   *name;
    char   *db;                 /* "" when the command named none */
    char   *json;               /* canonical extended JSON */
    int32_t connection_id;      /* 1 for the first connection, and so on */
    bool    known;              /* false: answered CommandNotFound */
} mongo_command_record_t;

mongo_command_log_t *mongo_command_log_new (void);
void mongo_command_log_destroy (mongo_command_log_t **self_p);

/* Record (the default) or not. */
void mongo_command_log_set_enabled (mongo_command_log_t *self, bool enabled);

void mongo_command_log_add (mongo_command_log_t *self, const char *name, const char *db,
                            const bson_t *command, int32_t connection_id, bool known);

/* The commands called name (NULL: all), oldest first: their number, and
 * in *json_out (when not NULL) a NULL-terminated array of their JSON
 * (free with mongo_command_log_strings_free). */
size_t mongo_command_log_named (mongo_command_log_t *self, const char *name, char ***json_out);

/* The same for the commands the server did not know. */
size_t mongo_command_log_unknown (mongo_command_log_t *self, char ***json_out);

/* Copies of the records of the commands called name (NULL: all), oldest
 * first, in *records_out (free with mongo_command_log_records_free);
 * returns their number. */
size_t mongo_command_log_records (mongo_command_log_t *self, const char *name,
                                  mongo_command_record_t **records_out);
void mongo_command_log_records_free (mongo_command_record_t *records, size_t count);

/* Free a NULL-terminated array of strings. */
void mongo_command_log_strings_free (char **strings);

void mongo_command_log_clear (mongo_command_log_t *self);

#endif
