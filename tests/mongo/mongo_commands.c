/*  mongo_commands — the commands of the MongoDB test server; see
 *  mongo_commands.h.
 */
#include "mongo_commands.h"

#include "mongo_aggregate.h"
#include "mongo_cursors.h"
#include "mongo_match.h"
#include "mongo_projection.h"
#include "mongo_update.h"
#include "mongo_wire.h"

#include <string.h>
#include <time.h>

#define MAX_BSON_OBJECT_SIZE   16777216
#define MAX_WRITE_BATCH_SIZE   100000
#define MIN_WIRE_VERSION       0
#define MAX_WIRE_VERSION       17
#define SESSION_TIMEOUT_MIN    30
#define SERVER_VERSION         "6.0.0-dlqd-test"
#define LOCATION_MISSING_FIELD 40414    /* "BSON field ... is missing but a required field" */

struct mongo_commands {
    mongo_store_t   *store;
    mongo_faults_t  *faults;
    mongo_cursors_t *cursors;
};

typedef bool (*handler_fn) (mongo_commands_t *self, const mongo_call_t *call, bson_t *reply,
                            mongo_error_t *err);

mongo_commands_t *
mongo_commands_new (mongo_store_t *store, mongo_faults_t *faults)
{
    mongo_commands_t *self = bson_malloc0 (sizeof *self);
    self->store = store;
    self->faults = faults;
    self->cursors = mongo_cursors_new ();
    return self;
}

void
mongo_commands_destroy (mongo_commands_t **self_p)
{
    mongo_commands_t *self = self_p ? *self_p : NULL;
    if (!self)
        return;
    mongo_cursors_destroy (&self->cursors);
    bson_free (self);
    *self_p = NULL;
}

size_t
mongo_commands_open_cursors (mongo_commands_t *self)
{
    return mongo_cursors_count (self->cursors);
}

/* ------------------------------------------------------------------ */
/*  Reading arguments                                                   */
/* ------------------------------------------------------------------ */

static const char *
command_name (const bson_t *command)
{
    bson_iter_t it;
    if (bson_iter_init (&it, command) && bson_iter_next (&it))
        return bson_iter_key (&it);
    return "";
}

/* The document or array at it as a view in *out; false (out empty) when
 * it is neither. */
static bool
view_at (const bson_iter_t *it, bson_t *out)
{
    uint32_t len = 0;
    const uint8_t *data = NULL;
    if (BSON_ITER_HOLDS_DOCUMENT (it))
        bson_iter_document (it, &len, &data);
    else if (BSON_ITER_HOLDS_ARRAY (it))
        bson_iter_array (it, &len, &data);
    if (data && bson_init_static (out, data, len))
        return true;
    bson_init (out);
    return false;
}

/* MongoDB's name of a BSON type, for messages. */
static const char *
type_name (bson_type_t type)
{
    switch (type) {
    case BSON_TYPE_DOUBLE:    return "double";
    case BSON_TYPE_UTF8:      return "string";
    case BSON_TYPE_DOCUMENT:  return "object";
    case BSON_TYPE_ARRAY:     return "array";
    case BSON_TYPE_BINARY:    return "binData";
    case BSON_TYPE_OID:       return "objectId";
    case BSON_TYPE_BOOL:      return "bool";
    case BSON_TYPE_DATE_TIME: return "date";
    case BSON_TYPE_NULL:      return "null";
    case BSON_TYPE_INT32:     return "int";
    case BSON_TYPE_INT64:     return "long";
    default:                  return "other";
    }
}

static void
wrong_type (mongo_error_t *err, const bson_t *command, const char *field, bson_type_t got,
            const char *expected)
{
    mongo_error_set (err, MONGO_ERR_TYPE_MISMATCH,
                     "BSON field '%s.%s' is the wrong type '%s', expected type '%s'",
                     command_name (command), field, type_name (got), expected);
}

static void
missing_field (mongo_error_t *err, const bson_t *command, const char *field)
{
    mongo_error_set (err, LOCATION_MISSING_FIELD,
                     "BSON field '%s.%s' is missing but a required field",
                     command_name (command), field);
}

/* The collection the command names in its first field. */
static bool
collection_arg (const mongo_call_t *call, const char **coll, mongo_error_t *err)
{
    bson_iter_t it;
    uint32_t len = 0;
    bson_iter_init (&it, call->command);
    bson_iter_next (&it);
    if (!BSON_ITER_HOLDS_UTF8 (&it)) {
        mongo_error_set (err, MONGO_ERR_INVALID_NAMESPACE, "collection name has invalid type %s",
                         type_name (bson_iter_type (&it)));
        return false;
    }
    *coll = bson_iter_utf8 (&it, &len);
    if (len == 0 || strlen (*coll) != len || strchr (*coll, '$')) {
        mongo_error_set (err, MONGO_ERR_INVALID_NAMESPACE, "Invalid namespace specified '%s.%s'",
                         call->db, *coll);
        return false;
    }
    return true;
}

/* doc's field as a document view in *out (empty when absent). */
static bool
document_field (const bson_t *doc, const bson_t *command, const char *field, bson_t *out,
                bool *present, mongo_error_t *err)
{
    bson_iter_t it;
    bson_init (out);
    if (present)
        *present = false;
    if (!bson_iter_init_find (&it, doc, field) || BSON_ITER_HOLDS_NULL (&it))
        return true;
    if (!BSON_ITER_HOLDS_DOCUMENT (&it) || !view_at (&it, out)) {
        wrong_type (err, command, field, bson_iter_type (&it), "object");
        return false;
    }
    if (present)
        *present = true;
    return true;
}

/* The command's field, an array, as a document view in *out. */
static bool
array_field (const bson_t *doc, const bson_t *command, const char *field, bson_t *out,
             mongo_error_t *err)
{
    bson_iter_t it;
    bson_init (out);
    if (!bson_iter_init_find (&it, doc, field)) {
        missing_field (err, command, field);
        return false;
    }
    if (!BSON_ITER_HOLDS_ARRAY (&it) || !view_at (&it, out)) {
        wrong_type (err, command, field, bson_iter_type (&it), "array");
        return false;
    }
    return true;
}

/* doc's field as an integer (int, long, or a double with no fraction);
 * *value untouched when absent. */
static bool
integer_field (const bson_t *doc, const bson_t *command, const char *field, int64_t *value,
               bool *present, mongo_error_t *err)
{
    bson_iter_t it;
    if (present)
        *present = false;
    if (!bson_iter_init_find (&it, doc, field) || BSON_ITER_HOLDS_NULL (&it))
        return true;
    bool integral = BSON_ITER_HOLDS_INT32 (&it) || BSON_ITER_HOLDS_INT64 (&it)
                    || (BSON_ITER_HOLDS_DOUBLE (&it)
                        && bson_iter_double (&it) == (double) (int64_t) bson_iter_double (&it));
    if (!integral) {
        wrong_type (err, command, field, bson_iter_type (&it), "long");
        return false;
    }
    *value = bson_iter_as_int64 (&it);
    if (present)
        *present = true;
    return true;
}

static bool
bool_field (const bson_t *doc, const char *field, bool absent)
{
    bson_iter_t it;
    if (!bson_iter_init_find (&it, doc, field) || BSON_ITER_HOLDS_NULL (&it))
        return absent;
    return bson_iter_as_bool (&it);
}

static char *
namespace_of (const char *db, const char *coll)
{
    return bson_strdup_printf ("%s.%s", db, coll);
}

/* cursor.batchSize of a command (listIndexes, aggregate, ...); -1: none. */
static bool
cursor_batch_size (const mongo_call_t *call, int64_t *batch_size, mongo_error_t *err)
{
    bson_t cursor;
    *batch_size = -1;
    return document_field (call->command, call->command, "cursor", &cursor, NULL, err)
           && integer_field (&cursor, call->command, "batchSize", batch_size, NULL, err);
}

/* ------------------------------------------------------------------ */
/*  Handshake and server                                                */
/* ------------------------------------------------------------------ */

static int64_t
now_ms (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_REALTIME, &ts);
    return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool
run_hello (mongo_commands_t *self, const mongo_call_t *call, bson_t *reply, mongo_error_t *err)
{
    bool modern = strcmp (command_name (call->command), "hello") == 0;
    if (bool_field (call->command, "helloOk", false))
        BSON_APPEND_BOOL (reply, "helloOk", true);
    BSON_APPEND_BOOL (reply, modern ? "isWritablePrimary" : "ismaster", true);
    BSON_APPEND_INT32 (reply, "maxBsonObjectSize", MAX_BSON_OBJECT_SIZE);
    BSON_APPEND_INT32 (reply, "maxMessageSizeBytes", MONGO_WIRE_MAX_MESSAGE_SIZE);
    BSON_APPEND_INT32 (reply, "maxWriteBatchSize", MAX_WRITE_BATCH_SIZE);
    BSON_APPEND_DATE_TIME (reply, "localTime", now_ms ());
    BSON_APPEND_INT32 (reply, "logicalSessionTimeoutMinutes", SESSION_TIMEOUT_MIN);
    BSON_APPEND_INT32 (reply, "connectionId", call->connection_id);
    BSON_APPEND_INT32 (reply, "minWireVersion", MIN_WIRE_VERSION);
    BSON_APPEND_INT32 (reply, "maxWireVersion", MAX_WIRE_VERSION);
    BSON_APPEND_BOOL (reply, "readOnly", false);
    return true;
}

static bool
run_nothing (mongo_commands_t *self, const mongo_call_t *call, bson_t *reply, mongo_error_t *err)
{
    return true;                /* ping, endSessions */
}

static bool
run_build_info (mongo_commands_t *self, const mongo_call_t *call, bson_t *reply,
                mongo_error_t *err)
{
    bson_t version, engines;
    BSON_APPEND_UTF8 (reply, "version", SERVER_VERSION);
    BSON_APPEND_UTF8 (reply, "gitVersion", "dlqd-mongo-test-server");
    BSON_APPEND_ARRAY_BEGIN (reply, "versionArray", &version);
    BSON_APPEND_INT32 (&version, "0", 6);
    BSON_APPEND_INT32 (&version, "1", 0);
    BSON_APPEND_INT32 (&version, "2", 0);
    BSON_APPEND_INT32 (&version, "3", 0);
    bson_append_array_end (reply, &version);
    BSON_APPEND_INT32 (reply, "bits", 64);
    BSON_APPEND_BOOL (reply, "debug", false);
    BSON_APPEND_INT32 (reply, "maxBsonObjectSize", MAX_BSON_OBJECT_SIZE);
    BSON_APPEND_ARRAY_BEGIN (reply, "storageEngines", &engines);
    BSON_APPEND_UTF8 (&engines, "0", "ephemeralForTest");
    bson_append_array_end (reply, &engines);
    BSON_APPEND_UTF8 (reply, "javascriptEngine", "none");
    return true;
}

/* ------------------------------------------------------------------ */
/*  Write errors                                                        */
/* ------------------------------------------------------------------ */

typedef struct {
    bson_t   errors;            /* the writeErrors array */
    uint32_t count;
} write_errors_t;

static void
write_errors_init (write_errors_t *w)
{
    bson_init (&w->errors);
    w->count = 0;
}

static void
write_errors_add (write_errors_t *w, const mongo_error_t *err, uint32_t at, const bson_t *details)
{
    mongo_error_append_write_error (err, (int32_t) at, details, &w->errors, w->count++);
}

/* Append writeErrors (when there are any) to reply; w is done. */
static void
write_errors_finish (write_errors_t *w, bson_t *reply)
{
    if (w->count > 0)
        bson_append_array (reply, "writeErrors", -1, &w->errors);
    bson_destroy (&w->errors);
}

/* The statements of a write command (documents, updates, deletes): an
 * array of 1 to MAX_WRITE_BATCH_SIZE elements. */
static bool
statements_arg (const mongo_call_t *call, const char *field, bson_t *statements,
                mongo_error_t *err)
{
    if (!array_field (call->command, call->command, field, statements, err))
        return false;
    uint32_t count = bson_count_keys (statements);
    if (count == 0 || count > MAX_WRITE_BATCH_SIZE) {
        mongo_error_set (err, MONGO_ERR_INVALID_LENGTH,
                         "Write batch sizes must be between 1 and %d. Got %u operations.",
                         MAX_WRITE_BATCH_SIZE, count);
        return false;
    }
    return true;
}

/* One statement of a write command, at index at of its array: false with
 * err (and details for writeErrors) when it failed. totals is the
 * command's own (a count, update_totals_t). */
typedef bool (*statement_fn_t) (mongo_commands_t *self, const mongo_call_t *call, const char *coll,
                                const bson_t *statement, uint32_t at, void *totals,
                                mongo_error_t *err, bson_t *details);

/* The statements of field (documents, updates, deletes) run in turn by
 * run_one (one that is not an object fails), their failures into w (set
 * up here, finished by the caller once it added its totals); an ordered
 * command stops at the first failure. False (err) when the command's own
 * arguments are bad. */
static bool
run_statements (mongo_commands_t *self, const mongo_call_t *call, const char *field,
                statement_fn_t run_one, void *totals, write_errors_t *w, mongo_error_t *err)
{
    const char *coll;
    bson_t statements;
    if (!collection_arg (call, &coll, err) || !statements_arg (call, field, &statements, err))
        return false;
    bool ordered = bool_field (call->command, "ordered", true);
    write_errors_init (w);
    bson_iter_t it;
    bson_iter_init (&it, &statements);
    for (uint32_t at = 0; bson_iter_next (&it); at++) {
        mongo_error_t statement_err = { 0 };
        bson_t statement, details = BSON_INITIALIZER;
        bool ok = BSON_ITER_HOLDS_DOCUMENT (&it) && view_at (&it, &statement);
        if (ok)
            ok = run_one (self, call, coll, &statement, at, totals, &statement_err, &details);
        else
            mongo_error_set (&statement_err, MONGO_ERR_TYPE_MISMATCH, "%s[%u] is not an object", field, at);
        if (!ok)
            write_errors_add (w, &statement_err, at, &details);
        bson_destroy (&details);
        if (!ok && ordered)
            break;
    }
    return true;
}

/* ------------------------------------------------------------------ */
/*  insert                                                              */
/* ------------------------------------------------------------------ */

/* A value as MongoDB's duplicate-key message writes it. */
static char *
key_value_text (const bson_value_t *value)
{
    if (value->value_type == BSON_TYPE_OID) {
        char hex [25];
        bson_oid_to_string (&value->value.v_oid, hex);
        return bson_strdup_printf ("ObjectId('%s')", hex);
    }
    bson_t holder = BSON_INITIALIZER;
    bson_append_value (&holder, "v", 1, value);
    char *json = bson_as_relaxed_extended_json (&holder, NULL);
    bson_destroy (&holder);
    const char *prefix = "{ \"v\" : ";
    size_t len = json ? strlen (json) : 0;
    char *text;
    if (len > strlen (prefix) + 2 && strncmp (json, prefix, strlen (prefix)) == 0)
        text = bson_strndup (json + strlen (prefix), len - strlen (prefix) - 2);
    else
        text = bson_strdup ("?");
    bson_free (json);
    return text;
}

static void
duplicate_key_error (const char *db, const char *coll, const bson_value_t *id,
                     mongo_error_t *err, bson_t *details)
{
    char *text = key_value_text (id);
    mongo_error_set (err, MONGO_ERR_DUPLICATE_KEY,
                     "E11000 duplicate key error collection: %s.%s index: _id_ dup key: { _id: %s }",
                     db, coll, text);
    bson_free (text);
    bson_t pattern, key_value;
    BSON_APPEND_DOCUMENT_BEGIN (details, "keyPattern", &pattern);
    BSON_APPEND_INT32 (&pattern, "_id", 1);
    bson_append_document_end (details, &pattern);
    BSON_APPEND_DOCUMENT_BEGIN (details, "keyValue", &key_value);
    BSON_APPEND_VALUE (&key_value, "_id", id);
    bson_append_document_end (details, &key_value);
}

/* doc with its _id first (a new ObjectId when it has none); NULL with err
 * when its _id is of a type MongoDB refuses. */
static bson_t *
with_id_first (const bson_t *doc, mongo_error_t *err)
{
    bson_iter_t it;
    bson_t *out = bson_new ();
    if (bson_iter_init_find (&it, doc, "_id")) {
        bson_type_t type = bson_iter_type (&it);
        if (type == BSON_TYPE_ARRAY || type == BSON_TYPE_REGEX || type == BSON_TYPE_UNDEFINED) {
            mongo_error_set (err, MONGO_ERR_INVALID_ID_FIELD, "can't use a%s %s for _id",
                             type == BSON_TYPE_ARRAY ? "n" : "",
                             type == BSON_TYPE_ARRAY ? "array" : type == BSON_TYPE_REGEX ? "regex"
                                                                                          : "undefined");
            bson_destroy (out);
            return NULL;
        }
        bson_append_iter (out, "_id", 3, &it);
    } else {
        bson_oid_t oid;
        bson_oid_init (&oid, NULL);
        BSON_APPEND_OID (out, "_id", &oid);
    }
    bson_copy_to_excluding_noinit (doc, out, "_id", NULL);
    return out;
}

/* Store doc (_id first) in db.coll; false with err (and details for a
 * duplicate key) when it is refused. */
static bool
store_document (mongo_commands_t *self, const char *db, const char *coll, const bson_t *doc,
                mongo_error_t *err, bson_t *details)
{
    bson_iter_t id;
    bson_iter_init_find (&id, doc, "_id");
    if (doc->len > MAX_BSON_OBJECT_SIZE) {
        mongo_error_set (err, MONGO_ERR_BSON_OBJECT_TOO_LARGE,
                         "BSONObj size: %u is invalid. Size must be between 0 and %d(16MB)",
                         doc->len, MAX_BSON_OBJECT_SIZE);
        return false;
    }
    if (mongo_faults_take_insert (self->faults, bson_iter_value (&id), err))
        return false;
    if (mongo_store_insert (self->store, db, coll, doc))
        return true;
    duplicate_key_error (db, coll, bson_iter_value (&id), err, details);
    return false;
}

/* One document of an insert; *inserted (int32_t) counts it. */
static bool
insert_one (mongo_commands_t *self, const mongo_call_t *call, const char *coll, const bson_t *doc,
            uint32_t at, void *inserted, mongo_error_t *err, bson_t *details)
{
    (void) at;
    bson_t *prepared = with_id_first (doc, err);
    if (!prepared)
        return false;
    bool ok = store_document (self, call->db, coll, prepared, err, details);
    bson_destroy (prepared);
    if (ok)
        (*(int32_t *) inserted)++;
    return ok;
}

static bool
run_insert (mongo_commands_t *self, const mongo_call_t *call, bson_t *reply, mongo_error_t *err)
{
    int32_t n = 0;
    write_errors_t w;
    if (!run_statements (self, call, "documents", insert_one, &n, &w, err))
        return false;
    BSON_APPEND_INT32 (reply, "n", n);
    write_errors_finish (&w, reply);
    return true;
}

/* ------------------------------------------------------------------ */
/*  update                                                              */
/* ------------------------------------------------------------------ */

typedef struct {
    int32_t  n;                 /* matched + upserted */
    int32_t  modified;
    bson_t   upserted;          /* array of {index, _id} */
    uint32_t upserted_count;
} update_totals_t;

/* The document an upsert of q with u inserts, _id first. */
static bson_t *
upsert_document (const bson_t *q, const bson_t *u, mongo_error_t *err)
{
    bson_t *base = mongo_update_upsert_base (q);
    if (mongo_update_is_replacement (u)) {
        bson_t *only_id = bson_new ();
        bson_iter_t id;
        if (bson_iter_init_find (&id, base, "_id"))
            bson_append_iter (only_id, NULL, 0, &id);
        bson_destroy (base);
        base = only_id;
    }
    bson_t *updated = mongo_update_apply (u, base, true, err);
    bson_destroy (base);
    if (!updated)
        return NULL;
    bson_t *doc = with_id_first (updated, err);
    bson_destroy (updated);
    return doc;
}

static bool
upsert (mongo_commands_t *self, const char *db, const char *coll, const bson_t *q,
        const bson_t *u, uint32_t at, update_totals_t *totals, mongo_error_t *err,
        bson_t *details)
{
    bson_t *doc = upsert_document (q, u, err);
    bool ok = doc && store_document (self, db, coll, doc, err, details);
    if (ok) {
        char key [16];
        const char *key_p;
        bson_t entry;
        bson_iter_t id;
        bson_uint32_to_string (totals->upserted_count++, &key_p, key, sizeof key);
        bson_append_document_begin (&totals->upserted, key_p, -1, &entry);
        BSON_APPEND_INT32 (&entry, "index", (int32_t) at);
        bson_iter_init_find (&id, doc, "_id");
        bson_append_iter (&entry, "_id", 3, &id);
        bson_append_document_end (&totals->upserted, &entry);
        totals->n++;
    }
    if (doc)
        bson_destroy (doc);
    return ok;
}

static bool
parse_update_statement (const mongo_call_t *call, const bson_t *statement, bson_t *q, bson_t *u,
                        mongo_error_t *err)
{
    bson_iter_t it;
    bool has_q, has_u;
    if (bson_iter_init_find (&it, statement, "u") && BSON_ITER_HOLDS_ARRAY (&it)) {
        mongo_error_set (err, MONGO_ERR_NOT_IMPLEMENTED,
                         "the MongoDB test server runs no update pipelines");
        return false;
    }
    if (!document_field (statement, call->command, "q", q, &has_q, err)
        || !document_field (statement, call->command, "u", u, &has_u, err))
        return false;
    if (!has_q || !has_u) {
        missing_field (err, call->command, has_q ? "updates.u" : "updates.q");
        return false;
    }
    if (!mongo_filter_check (q, err) || !mongo_update_check (u, err))
        return false;
    if (bool_field (statement, "multi", false) && mongo_update_is_replacement (u)) {
        mongo_error_set (err, MONGO_ERR_FAILED_TO_PARSE,
                         "multi update is not supported for replacement-style update");
        return false;
    }
    return true;
}

/* One {q, u, multi, upsert} of an update, added to totals (update_totals_t). */
static bool
update_one_statement (mongo_commands_t *self, const mongo_call_t *call, const char *coll,
                      const bson_t *statement, uint32_t at, void *totals_p,
                      mongo_error_t *err, bson_t *details)
{
    update_totals_t *totals = totals_p;
    bson_t q, u;
    size_t matched, modified;
    if (!parse_update_statement (call, statement, &q, &u, err))
        return false;
    bool ok = mongo_store_update (self->store, call->db, coll, &q, &u,
                                  bool_field (statement, "multi", false), &matched, &modified, err);
    totals->n += (int32_t) matched;
    totals->modified += (int32_t) modified;
    if (ok && matched == 0 && bool_field (statement, "upsert", false))
        ok = upsert (self, call->db, coll, &q, &u, at, totals, err, details);
    return ok;
}

static bool
run_update (mongo_commands_t *self, const mongo_call_t *call, bson_t *reply, mongo_error_t *err)
{
    update_totals_t totals = { 0 };
    write_errors_t w;
    bson_init (&totals.upserted);
    if (!run_statements (self, call, "updates", update_one_statement, &totals, &w, err)) {
        bson_destroy (&totals.upserted);
        return false;
    }
    BSON_APPEND_INT32 (reply, "n", totals.n);
    BSON_APPEND_INT32 (reply, "nModified", totals.modified);
    if (totals.upserted_count > 0)
        bson_append_array (reply, "upserted", -1, &totals.upserted);
    bson_destroy (&totals.upserted);
    write_errors_finish (&w, reply);
    return true;
}

/* ------------------------------------------------------------------ */
/*  findAndModify                                                       */
/* ------------------------------------------------------------------ */

typedef struct {
    const char    *coll;
    bson_t         query, sort, update, fields;
    bool           has_update, remove, return_new, upsert;
} find_modify_args_t;

static bool
find_modify_update_arg (const mongo_call_t *call, find_modify_args_t *a, mongo_error_t *err)
{
    bson_iter_t it;
    if (bson_iter_init_find (&it, call->command, "update") && BSON_ITER_HOLDS_ARRAY (&it)) {
        mongo_error_set (err, MONGO_ERR_NOT_IMPLEMENTED, "the MongoDB test server runs no update pipelines");
        return false;
    }
    return document_field (call->command, call->command, "update", &a->update, &a->has_update, err);
}

static bool
find_modify_arguments (const mongo_call_t *call, find_modify_args_t *a, mongo_error_t *err)
{
    const bson_t *cmd = call->command;
    if (!collection_arg (call, &a->coll, err)
        || !document_field (cmd, cmd, "query", &a->query, NULL, err)
        || !document_field (cmd, cmd, "sort", &a->sort, NULL, err)
        || !document_field (cmd, cmd, "fields", &a->fields, NULL, err)
        || !find_modify_update_arg (call, a, err))
        return false;
    a->remove = bool_field (cmd, "remove", false);
    a->return_new = bool_field (cmd, "new", false);
    a->upsert = bool_field (cmd, "upsert", false);
    if (a->remove == a->has_update) {
        mongo_error_set (err, MONGO_ERR_FAILED_TO_PARSE, "Either an update or remove=true must be specified");
        return false;
    }
    if (a->remove && (a->upsert || a->return_new)) {
        mongo_error_set (err, MONGO_ERR_FAILED_TO_PARSE, "Cannot specify both %s and remove=true",
                         a->upsert ? "upsert=true" : "new=true");
        return false;
    }
    return mongo_filter_check (&a->query, err) && mongo_sort_check (&a->sort, err)
           && mongo_projection_check (&a->fields, err) && (a->remove || mongo_update_check (&a->update, err));
}

/* value: doc under the projection (NULL: null); doc is taken. */
static void
append_value (bson_t *reply, bson_t *doc, const bson_t *fields)
{
    if (!doc) {
        BSON_APPEND_NULL (reply, "value");
        return;
    }
    bson_t *shown = bson_empty (fields) ? bson_copy (doc) : mongo_projection_apply (fields, doc);
    BSON_APPEND_DOCUMENT (reply, "value", shown);
    bson_destroy (shown);
    bson_destroy (doc);
}

/* No document matched: insert the upsert's (its _id into upserted). */
static bson_t *
find_modify_upsert (mongo_commands_t *self, const mongo_call_t *call, const find_modify_args_t *a,
                    bson_t *last_error, mongo_error_t *err)
{
    bson_t details = BSON_INITIALIZER;
    bson_t *doc = upsert_document (&a->query, &a->update, err);
    bool ok = doc && store_document (self, call->db, a->coll, doc, err, &details);
    bson_destroy (&details);
    if (!ok) {
        if (doc)
            bson_destroy (doc);
        return NULL;
    }
    bson_iter_t id;
    bson_iter_init_find (&id, doc, "_id");
    BSON_APPEND_INT32 (last_error, "n", 1);
    BSON_APPEND_BOOL (last_error, "updatedExisting", false);
    bson_append_iter (last_error, "upserted", -1, &id);
    return doc;
}

static bool
run_find_and_modify (mongo_commands_t *self, const mongo_call_t *call, bson_t *reply, mongo_error_t *err)
{
    find_modify_args_t a;
    bson_t *before = NULL, *after = NULL, last_error = BSON_INITIALIZER;
    if (!find_modify_arguments (call, &a, err))
        return false;
    mongo_modify_t modify = { &a.query, &a.sort, a.remove ? NULL : &a.update, a.remove };
    bool ok = mongo_store_find_and_modify (self->store, call->db, a.coll, &modify, &before, &after, err);
    if (ok && before) {
        BSON_APPEND_INT32 (&last_error, "n", 1);
        if (!a.remove)
            BSON_APPEND_BOOL (&last_error, "updatedExisting", true);
    } else if (ok && a.upsert) {
        after = find_modify_upsert (self, call, &a, &last_error, err);
        ok = after != NULL;
    } else if (ok) {
        BSON_APPEND_INT32 (&last_error, "n", 0);
        if (!a.remove)
            BSON_APPEND_BOOL (&last_error, "updatedExisting", false);
    }
    if (ok) {
        BSON_APPEND_DOCUMENT (reply, "lastErrorObject", &last_error);
        append_value (reply, a.return_new ? after : before, &a.fields);
        *(a.return_new ? &after : &before) = NULL;      /* taken */
    }
    if (before)
        bson_destroy (before);
    if (after)
        bson_destroy (after);
    bson_destroy (&last_error);
    return ok;
}

/* ------------------------------------------------------------------ */
/*  delete                                                              */
/* ------------------------------------------------------------------ */

/* One {q, limit} of a delete; *removed (size_t) adds how many went. */
static bool
delete_one_statement (mongo_commands_t *self, const mongo_call_t *call, const char *coll,
                      const bson_t *statement, uint32_t at, void *removed, mongo_error_t *err,
                      bson_t *details)
{
    (void) at;
    (void) details;
    bson_t q;
    bool has_q, has_limit;
    int64_t limit = -1;
    if (!document_field (statement, call->command, "q", &q, &has_q, err)
        || !integer_field (statement, call->command, "limit", &limit, &has_limit, err))
        return false;
    if (!has_q || !has_limit) {
        missing_field (err, call->command, has_q ? "deletes.limit" : "deletes.q");
        return false;
    }
    if (limit != 0 && limit != 1) {
        mongo_error_set (err, MONGO_ERR_FAILED_TO_PARSE,
                         "The limit field in delete objects must be 0 or 1. Got %" PRId64, limit);
        return false;
    }
    if (!mongo_filter_check (&q, err))
        return false;
    *(size_t *) removed += mongo_store_delete (self->store, call->db, coll, &q, limit == 1);
    return true;
}

static bool
run_delete (mongo_commands_t *self, const mongo_call_t *call, bson_t *reply, mongo_error_t *err)
{
    size_t n = 0;
    write_errors_t w;
    if (!run_statements (self, call, "deletes", delete_one_statement, &n, &w, err))
        return false;
    BSON_APPEND_INT32 (reply, "n", (int32_t) n);
    write_errors_finish (&w, reply);
    return true;
}

/* ------------------------------------------------------------------ */
/*  find, getMore, killCursors, count, aggregate                        */
/* ------------------------------------------------------------------ */

typedef struct {
    bson_t  filter, sort, projection;
    int64_t skip, limit, batch_size;
    bool    single_batch;
} find_args_t;

static bool
find_arguments (const mongo_call_t *call, find_args_t *a, mongo_error_t *err)
{
    const bson_t *cmd = call->command;
    bool has_batch_size;
    a->skip = a->limit = 0;
    a->batch_size = -1;
    if (!document_field (cmd, cmd, "filter", &a->filter, NULL, err)
        || !document_field (cmd, cmd, "sort", &a->sort, NULL, err)
        || !document_field (cmd, cmd, "projection", &a->projection, NULL, err)
        || !integer_field (cmd, cmd, "skip", &a->skip, NULL, err)
        || !integer_field (cmd, cmd, "limit", &a->limit, NULL, err)
        || !integer_field (cmd, cmd, "batchSize", &a->batch_size, &has_batch_size, err))
        return false;
    if (a->skip < 0 || (has_batch_size && a->batch_size < 0)) {
        mongo_error_set (err, MONGO_ERR_BAD_VALUE, "%s must be non-negative",
                         a->skip < 0 ? "skip" : "batchSize");
        return false;
    }
    a->single_batch = bool_field (cmd, "singleBatch", false);
    if (a->limit < 0) {         /* a negative limit: one batch of that many */
        a->limit = -a->limit;
        a->single_batch = true;
    }
    return mongo_filter_check (&a->filter, err) && mongo_sort_check (&a->sort, err)
           && mongo_projection_check (&a->projection, err);
}

static void
project_all (bson_t **docs, size_t count, const bson_t *projection)
{
    if (bson_empty (projection))
        return;
    for (size_t i = 0; i < count; i++) {
        bson_t *projected = mongo_projection_apply (projection, docs [i]);
        bson_destroy (docs [i]);
        docs [i] = projected;
    }
}

static bool
run_find (mongo_commands_t *self, const mongo_call_t *call, bson_t *reply, mongo_error_t *err)
{
    const char *coll;
    find_args_t a;
    size_t count;
    if (!collection_arg (call, &coll, err) || !find_arguments (call, &a, err))
        return false;
    mongo_query_t query = { &a.filter, &a.sort, a.skip, a.limit };
    bson_t **docs = mongo_store_find (self->store, call->db, coll, &query, &count);
    project_all (docs, count, &a.projection);
    char *ns = namespace_of (call->db, coll);
    mongo_cursors_first_batch (self->cursors, ns, docs, count, a.batch_size, a.single_batch, reply);
    bson_free (ns);
    return true;
}

static bool
cursor_id_arg (const mongo_call_t *call, int64_t *id, mongo_error_t *err)
{
    bson_iter_t it;
    bson_iter_init (&it, call->command);
    bson_iter_next (&it);
    if (!BSON_ITER_HOLDS_INT64 (&it) && !BSON_ITER_HOLDS_INT32 (&it)) {
        wrong_type (err, call->command, "getMore", bson_iter_type (&it), "long");
        return false;
    }
    *id = bson_iter_as_int64 (&it);
    return true;
}

static bool
run_get_more (mongo_commands_t *self, const mongo_call_t *call, bson_t *reply,
              mongo_error_t *err)
{
    bson_iter_t it;
    int64_t id, batch_size = 0;
    if (!cursor_id_arg (call, &id, err)
        || !integer_field (call->command, call->command, "batchSize", &batch_size, NULL, err))
        return false;
    if (!bson_iter_init_find (&it, call->command, "collection") || !BSON_ITER_HOLDS_UTF8 (&it)) {
        missing_field (err, call->command, "collection");
        return false;
    }
    char *ns = namespace_of (call->db, bson_iter_utf8 (&it, NULL));
    bool ok = mongo_cursors_next_batch (self->cursors, id, ns, batch_size, reply, err);
    bson_free (ns);
    return ok;
}

static void
append_id (bson_t *array, uint32_t *count, int64_t id)
{
    char key [16];
    const char *key_p;
    bson_uint32_to_string ((*count)++, &key_p, key, sizeof key);
    bson_append_int64 (array, key_p, -1, id);
}

static bool
run_kill_cursors (mongo_commands_t *self, const mongo_call_t *call, bson_t *reply,
                  mongo_error_t *err)
{
    const char *coll;
    bson_t ids, killed, not_found, empty;
    bson_iter_t it;
    uint32_t killed_count = 0, not_found_count = 0;
    if (!collection_arg (call, &coll, err)
        || !array_field (call->command, call->command, "cursors", &ids, err))
        return false;
    char *ns = namespace_of (call->db, coll);
    BSON_APPEND_ARRAY_BEGIN (reply, "cursorsKilled", &killed);
    bson_init (&not_found);
    bson_iter_init (&it, &ids);
    while (bson_iter_next (&it)) {
        int64_t id = bson_iter_as_int64 (&it);
        if (mongo_cursors_kill (self->cursors, id, ns))
            append_id (&killed, &killed_count, id);
        else
            append_id (&not_found, &not_found_count, id);
    }
    bson_append_array_end (reply, &killed);
    bson_append_array (reply, "cursorsNotFound", -1, &not_found);
    bson_destroy (&not_found);
    bson_init (&empty);
    bson_append_array (reply, "cursorsAlive", -1, &empty);
    bson_append_array (reply, "cursorsUnknown", -1, &empty);
    bson_free (ns);
    return true;
}

static bool
run_count (mongo_commands_t *self, const mongo_call_t *call, bson_t *reply, mongo_error_t *err)
{
    const char *coll;
    bson_t filter;
    int64_t skip = 0, limit = 0;
    const bson_t *cmd = call->command;
    if (!collection_arg (call, &coll, err)
        || !document_field (cmd, cmd, "query", &filter, NULL, err)
        || !integer_field (cmd, cmd, "skip", &skip, NULL, err)
        || !integer_field (cmd, cmd, "limit", &limit, NULL, err)
        || !mongo_filter_check (&filter, err))
        return false;
    if (skip < 0) {
        mongo_error_set (err, MONGO_ERR_BAD_VALUE, "skip value is negative in count query");
        return false;
    }
    mongo_query_t query = { &filter, NULL, skip, limit < 0 ? -limit : limit };
    size_t n = mongo_store_count (self->store, call->db, coll, &query);
    BSON_APPEND_INT32 (reply, "n", (int32_t) n);
    return true;
}

static bool
aggregate_arguments (const mongo_call_t *call, const char **coll, bson_t *pipeline,
                     int64_t *batch_size, mongo_error_t *err)
{
    bson_iter_t it;
    if (bson_iter_init (&it, call->command) && bson_iter_next (&it) && !BSON_ITER_HOLDS_UTF8 (&it)) {
        mongo_error_set (err, MONGO_ERR_NOT_IMPLEMENTED,
                         "the MongoDB test server runs no collection-less aggregate");
        return false;
    }
    if (!collection_arg (call, coll, err)
        || !array_field (call->command, call->command, "pipeline", pipeline, err))
        return false;
    if (!bson_iter_init_find (&it, call->command, "cursor")) {
        mongo_error_set (err, MONGO_ERR_FAILED_TO_PARSE,
                         "The 'cursor' option is required, except for aggregate with the explain"
                         " argument");
        return false;
    }
    return cursor_batch_size (call, batch_size, err) && mongo_aggregate_check (pipeline, err);
}

static bool
run_aggregate (mongo_commands_t *self, const mongo_call_t *call, bson_t *reply,
               mongo_error_t *err)
{
    const char *coll;
    bson_t pipeline, filter;
    int64_t batch_size;
    size_t count;
    if (!aggregate_arguments (call, &coll, &pipeline, &batch_size, err))
        return false;
    bool leading_match = mongo_aggregate_leading_match (&pipeline, &filter);
    mongo_query_t query = { leading_match ? &filter : NULL, NULL, 0, 0 };
    bson_t **docs = mongo_store_find (self->store, call->db, coll, &query, &count);
    docs = mongo_aggregate_run (&pipeline, leading_match ? 1 : 0, docs, count, &count);
    char *ns = namespace_of (call->db, coll);
    mongo_cursors_first_batch (self->cursors, ns, docs, count, batch_size, false, reply);
    bson_free (ns);
    return true;
}

/* ------------------------------------------------------------------ */
/*  Indexes                                                             */
/* ------------------------------------------------------------------ */

static bool
check_index_spec (const mongo_call_t *call, const bson_t *spec, mongo_error_t *err)
{
    bson_iter_t it;
    bson_t key;
    bool has_key;
    if (!document_field (spec, call->command, "key", &key, &has_key, err))
        return false;
    if (!has_key || bson_empty (&key)) {
        mongo_error_set (err, MONGO_ERR_FAILED_TO_PARSE,
                         "The 'key' field is a required property of an index specification");
        return false;
    }
    if (!bson_iter_init_find (&it, spec, "name") || !BSON_ITER_HOLDS_UTF8 (&it)
        || bson_iter_utf8 (&it, NULL) [0] == '\0') {
        mongo_error_set (err, MONGO_ERR_FAILED_TO_PARSE,
                         "The 'name' field is a required property of an index specification");
        return false;
    }
    if (bson_iter_init_find (&it, spec, "expireAfterSeconds")
        && mongo_value_type_class (bson_iter_type (&it)) != mongo_value_type_class (BSON_TYPE_INT32)) {
        mongo_error_set (err, 67, "TTL index 'expireAfterSeconds' option must be numeric, but"
                                  " received a type of '%s'", type_name (bson_iter_type (&it)));
        return false;
    }
    return true;
}

/* spec as listIndexes shows it: v (2 unless given), key, name, then the
 * other fields as given. */
static bson_t *
normalized_index_spec (const bson_t *spec)
{
    bson_iter_t it;
    bson_t *out = bson_new ();
    if (bson_iter_init_find (&it, spec, "v") && BSON_ITER_HOLDS_NUMBER (&it))
        BSON_APPEND_INT32 (out, "v", (int32_t) bson_iter_as_int64 (&it));
    else
        BSON_APPEND_INT32 (out, "v", 2);
    bson_iter_init_find (&it, spec, "key");
    bson_append_iter (out, NULL, 0, &it);
    bson_iter_init_find (&it, spec, "name");
    bson_append_iter (out, NULL, 0, &it);
    bson_copy_to_excluding_noinit (spec, out, "v", "key", "name", NULL);
    return out;
}

/* The normalized specs of createIndexes' indexes (NULL-terminated). */
static bson_t **
index_specs_arg (const mongo_call_t *call, size_t *count, mongo_error_t *err)
{
    bson_t indexes;
    bson_iter_t it;
    if (!array_field (call->command, call->command, "indexes", &indexes, err))
        return NULL;
    uint32_t total = bson_count_keys (&indexes);
    if (total == 0) {
        mongo_error_set (err, MONGO_ERR_BAD_VALUE, "Must specify at least one index to create");
        return NULL;
    }
    bson_t **specs = bson_malloc0 ((total + 1) * sizeof *specs);
    *count = 0;
    bson_iter_init (&it, &indexes);
    while (bson_iter_next (&it)) {
        bson_t spec;
        bool ok = BSON_ITER_HOLDS_DOCUMENT (&it) && view_at (&it, &spec);
        if (ok) {
            ok = check_index_spec (call, &spec, err);
        } else
            wrong_type (err, call->command, "indexes", bson_iter_type (&it), "object");
        if (!ok) {
            mongo_store_docs_free (specs, *count);
            return NULL;
        }
        specs [(*count)++] = normalized_index_spec (&spec);
    }
    return specs;
}

static bool
run_create_indexes (mongo_commands_t *self, const mongo_call_t *call, bson_t *reply,
                    mongo_error_t *err)
{
    const char *coll;
    size_t count = 0;
    bson_t **specs;
    mongo_index_result_t result;
    if (!collection_arg (call, &coll, err) || !(specs = index_specs_arg (call, &count, err)))
        return false;
    bool ok = mongo_store_create_indexes (self->store, call->db, coll,
                                          (const bson_t *const *) specs, count, &result, err);
    mongo_store_docs_free (specs, count);
    if (!ok)
        return false;
    BSON_APPEND_INT32 (reply, "numIndexesBefore", (int32_t) result.before);
    BSON_APPEND_INT32 (reply, "numIndexesAfter", (int32_t) result.after);
    if (result.before == result.after && !result.created_collection)
        BSON_APPEND_UTF8 (reply, "note", "all indexes already exist");
    else
        BSON_APPEND_BOOL (reply, "createdCollectionAutomatically", result.created_collection);
    return true;
}

static bool
run_list_indexes (mongo_commands_t *self, const mongo_call_t *call, bson_t *reply,
                  mongo_error_t *err)
{
    const char *coll;
    size_t count;
    int64_t batch_size;
    if (!collection_arg (call, &coll, err) || !cursor_batch_size (call, &batch_size, err))
        return false;
    bson_t **specs = mongo_store_indexes (self->store, call->db, coll, &count);
    if (!specs) {
        mongo_error_set (err, MONGO_ERR_NAMESPACE_NOT_FOUND, "ns does not exist: %s.%s",
                         call->db, coll);
        return false;
    }
    char *ns = namespace_of (call->db, coll);
    mongo_cursors_first_batch (self->cursors, ns, specs, count, batch_size, false, reply);
    bson_free (ns);
    return true;
}

/* The name of the index of db.coll whose key is key; NULL when none. */
static char *
index_name_of_key (mongo_commands_t *self, const char *db, const char *coll, const bson_t *key)
{
    size_t count;
    char *name = NULL;
    bson_t **specs = mongo_store_indexes (self->store, db, coll, &count);
    for (size_t i = 0; i < count && !name; i++) {
        bson_iter_t k, n;
        if (bson_iter_init_find (&k, specs [i], "key") && bson_iter_init_find (&n, specs [i], "name")) {
            bson_value_t wanted = { .value_type = BSON_TYPE_DOCUMENT };
            wanted.value.v_doc.data = (uint8_t *) bson_get_data (key);
            wanted.value.v_doc.data_len = key->len;
            if (mongo_value_equal (bson_iter_value (&k), &wanted))
                name = bson_strdup (bson_iter_utf8 (&n, NULL));
        }
    }
    mongo_store_docs_free (specs, count);
    return name;
}

/* The name of the index dropIndexes names, by name or by key. */
static char *
index_to_drop (mongo_commands_t *self, const mongo_call_t *call, const char *coll,
               mongo_error_t *err)
{
    bson_iter_t it;
    if (!bson_iter_init_find (&it, call->command, "index")) {
        missing_field (err, call->command, "index");
        return NULL;
    }
    if (BSON_ITER_HOLDS_UTF8 (&it))
        return bson_strdup (bson_iter_utf8 (&it, NULL));
    if (!BSON_ITER_HOLDS_DOCUMENT (&it)) {
        mongo_error_set (err, MONGO_ERR_NOT_IMPLEMENTED,
                         "the MongoDB test server drops indexes by one name or key");
        return NULL;
    }
    bson_t key;
    document_field (call->command, call->command, "index", &key, NULL, err);
    char *name = index_name_of_key (self, call->db, coll, &key);
    if (!name)
        mongo_error_set (err, MONGO_ERR_INDEX_NOT_FOUND, "can't find index with key");
    return name;
}

static bool
run_drop_indexes (mongo_commands_t *self, const mongo_call_t *call, bson_t *reply,
                  mongo_error_t *err)
{
    const char *coll;
    char *name;
    size_t before = 0;
    if (!collection_arg (call, &coll, err) || !(name = index_to_drop (self, call, coll, err)))
        return false;
    bool ok = mongo_store_drop_index (self->store, call->db, coll, name, &before, err);
    bson_free (name);
    if (ok)
        BSON_APPEND_INT32 (reply, "nIndexesWas", (int32_t) before);
    return ok;
}

/* ------------------------------------------------------------------ */
/*  Collections and databases                                           */
/* ------------------------------------------------------------------ */

static bool
run_create (mongo_commands_t *self, const mongo_call_t *call, bson_t *reply, mongo_error_t *err)
{
    const char *coll;
    if (!collection_arg (call, &coll, err))
        return false;
    if (!mongo_store_create_collection (self->store, call->db, coll)) {
        mongo_error_set (err, MONGO_ERR_NAMESPACE_EXISTS, "Collection %s.%s already exists.",
                         call->db, coll);
        return false;
    }
    return true;
}

static bool
run_drop (mongo_commands_t *self, const mongo_call_t *call, bson_t *reply, mongo_error_t *err)
{
    const char *coll;
    size_t indexes = 0;
    if (!collection_arg (call, &coll, err))
        return false;
    bson_t **specs = mongo_store_indexes (self->store, call->db, coll, &indexes);
    mongo_store_docs_free (specs, indexes);
    if (!mongo_store_drop_collection (self->store, call->db, coll)) {
        mongo_error_set (err, MONGO_ERR_NAMESPACE_NOT_FOUND, "ns not found");
        return false;
    }
    char *ns = namespace_of (call->db, coll);
    BSON_APPEND_INT32 (reply, "nIndexesWas", (int32_t) indexes);
    BSON_APPEND_UTF8 (reply, "ns", ns);
    bson_free (ns);
    return true;
}

static bool
run_drop_database (mongo_commands_t *self, const mongo_call_t *call, bson_t *reply,
                   mongo_error_t *err)
{
    mongo_store_drop_database (self->store, call->db);
    BSON_APPEND_UTF8 (reply, "dropped", call->db);
    return true;
}

static bson_t *
collection_info (const char *name, bool name_only)
{
    if (name_only)
        return BCON_NEW ("name", BCON_UTF8 (name), "type", BCON_UTF8 ("collection"));
    return BCON_NEW ("name", BCON_UTF8 (name), "type", BCON_UTF8 ("collection"),
                     "options", "{", "}", "info", "{", "readOnly", BCON_BOOL (false), "}",
                     "idIndex", "{", "v", BCON_INT32 (2), "key", "{", "_id", BCON_INT32 (1), "}",
                     "name", BCON_UTF8 ("_id_"), "}");
}

static bool
run_list_collections (mongo_commands_t *self, const mongo_call_t *call, bson_t *reply,
                      mongo_error_t *err)
{
    bson_t filter;
    int64_t batch_size;
    size_t count, kept = 0;
    if (!document_field (call->command, call->command, "filter", &filter, NULL, err)
        || !mongo_filter_check (&filter, err) || !cursor_batch_size (call, &batch_size, err))
        return false;
    bool name_only = bool_field (call->command, "nameOnly", false);
    char **names = mongo_store_collection_names (self->store, call->db, &count);
    bson_t **infos = bson_malloc0 ((count + 1) * sizeof *infos);
    for (size_t i = 0; i < count; i++) {
        bson_t *info = collection_info (names [i], name_only);
        if (mongo_filter_matches (&filter, info))
            infos [kept++] = info;
        else
            bson_destroy (info);
    }
    mongo_store_names_free (names, count);
    char *ns = namespace_of (call->db, "$cmd.listCollections");
    mongo_cursors_first_batch (self->cursors, ns, infos, kept, batch_size, false, reply);
    bson_free (ns);
    return true;
}

static bool
run_list_databases (mongo_commands_t *self, const mongo_call_t *call, bson_t *reply,
                    mongo_error_t *err)
{
    size_t count;
    bson_t databases;
    bool name_only = bool_field (call->command, "nameOnly", false);
    char **names = mongo_store_database_names (self->store, &count);
    BSON_APPEND_ARRAY_BEGIN (reply, "databases", &databases);
    for (size_t i = 0; i < count; i++) {
        char key [16];
        const char *key_p;
        bson_t entry;
        bson_uint32_to_string ((uint32_t) i, &key_p, key, sizeof key);
        bson_append_document_begin (&databases, key_p, -1, &entry);
        BSON_APPEND_UTF8 (&entry, "name", names [i]);
        if (!name_only) {
            BSON_APPEND_INT64 (&entry, "sizeOnDisk", 0);
            BSON_APPEND_BOOL (&entry, "empty", false);
        }
        bson_append_document_end (&databases, &entry);
    }
    bson_append_array_end (reply, &databases);
    if (!name_only)
        BSON_APPEND_INT64 (reply, "totalSize", 0);
    mongo_store_names_free (names, count);
    return true;
}

/* ------------------------------------------------------------------ */
/*  Dispatch                                                            */
/* ------------------------------------------------------------------ */

typedef struct {
    const char *name;
    handler_fn  run;
    bool        over_op_query;      /* served over OP_QUERY too */
} command_t;

static const command_t commands [] = {
    { "hello",           run_hello,            true },
    { "isMaster",        run_hello,            true },
    { "ismaster",        run_hello,            true },
    { "ping",            run_nothing,          false },
    { "buildInfo",       run_build_info,       false },
    { "buildinfo",       run_build_info,       false },
    { "endSessions",     run_nothing,          false },
    { "insert",          run_insert,           false },
    { "update",          run_update,           false },
    { "findAndModify",   run_find_and_modify,  false },
    { "findandmodify",   run_find_and_modify,  false },
    { "delete",          run_delete,           false },
    { "find",            run_find,             false },
    { "getMore",         run_get_more,         false },
    { "killCursors",     run_kill_cursors,     false },
    { "count",           run_count,            false },
    { "aggregate",       run_aggregate,        false },
    { "createIndexes",   run_create_indexes,   false },
    { "listIndexes",     run_list_indexes,     false },
    { "dropIndexes",     run_drop_indexes,     false },
    { "create",          run_create,           false },
    { "drop",            run_drop,             false },
    { "dropDatabase",    run_drop_database,    false },
    { "listCollections", run_list_collections, false },
    { "listDatabases",   run_list_databases,   false },
};

static const command_t *
find_command (const char *name)
{
    for (size_t i = 0; i < sizeof commands / sizeof commands [0]; i++)
        if (strcmp (commands [i].name, name) == 0)
            return &commands [i];
    return NULL;
}

bool
mongo_commands_knows (const char *name)
{
    return find_command (name) != NULL;
}

/* Whether call may run command at all; else err says why. */
static bool
admissible (const mongo_call_t *call, const char *name, const command_t *command,
            mongo_error_t *err)
{
    if (!command)
        mongo_error_set (err, MONGO_ERR_COMMAND_NOT_FOUND, "no such command: '%s'", name);
    else if (call->legacy && !command->over_op_query)
        mongo_error_set (err, MONGO_ERR_UNSUPPORTED_OP_QUERY,
                         "Unsupported OP_QUERY command: %s. The client driver may require an"
                         " upgrade.", name);
    else if (!call->db || !call->db [0])
        mongo_error_set (err, MONGO_ERR_MISSING_DB, "OP_MSG requests require a $db argument");
    else
        return true;
    return false;
}

bson_t *
mongo_commands_run (mongo_commands_t *self, const mongo_call_t *call)
{
    mongo_error_t err = { 0 };
    const char *name = command_name (call->command);
    const command_t *command = find_command (name);
    bson_t *reply = bson_new ();
    bool ok = admissible (call, name, command, &err) && command->run (self, call, reply, &err);
    if (ok)
        BSON_APPEND_DOUBLE (reply, "ok", 1.0);
    else {
        bson_reinit (reply);
        mongo_error_append_reply (&err, NULL, reply);
    }
    return reply;
}
