/*  mongo_error — the error the MongoDB test server answers with: MongoDB's
 *  numeric code, its code name and a message. A command that fails as a
 *  whole answers {ok: 0, errmsg, code, codeName, errorLabels?}; one write of
 *  a batch that fails becomes a writeError {index, code, errmsg}. Every
 *  module of the server that refuses something fills one of these; this one
 *  knows the code names and turns an error into reply fields.
 */
#ifndef DLQ_MONGO_ERROR_H
#define DLQ_MONGO_ERROR_H

#include <bson/bson.h>

#include <stdbool.h>

/* The codes the server answers with (MongoDB's error_codes.yml). */
enum {
    MONGO_ERR_BAD_VALUE                = 2,
    MONGO_ERR_FAILED_TO_PARSE          = 9,
    MONGO_ERR_TYPE_MISMATCH            = 14,
    MONGO_ERR_INVALID_LENGTH           = 16,
    MONGO_ERR_NAMESPACE_NOT_FOUND      = 26,
    MONGO_ERR_INDEX_NOT_FOUND          = 27,
    MONGO_ERR_CURSOR_NOT_FOUND         = 43,
    MONGO_ERR_NAMESPACE_EXISTS         = 48,
    MONGO_ERR_INVALID_ID_FIELD         = 53,
    MONGO_ERR_COMMAND_NOT_FOUND        = 59,
    MONGO_ERR_IMMUTABLE_FIELD          = 66,
    MONGO_ERR_INVALID_NAMESPACE        = 73,
    MONGO_ERR_INDEX_OPTIONS_CONFLICT   = 85,
    MONGO_ERR_INDEX_KEY_SPECS_CONFLICT = 86,
    MONGO_ERR_NOT_IMPLEMENTED          = 238,   /* NotImplemented: what this test server lacks */
    MONGO_ERR_UNSUPPORTED_OP_QUERY     = 352,
    MONGO_ERR_NOT_WRITABLE_PRIMARY     = 10107,
    MONGO_ERR_BSON_OBJECT_TOO_LARGE    = 10334,
    MONGO_ERR_DUPLICATE_KEY            = 11000,
    MONGO_ERR_MISSING_DB               = 40571,
};

typedef struct {
    int  code;                  /* 0: no error */
    char codename [64];
    char message [1024];
} mongo_error_t;

/* MongoDB's name of code ("DuplicateKey", "NotWritablePrimary", ...), or
 * "Location<code>" for a code this table does not know. */
const char *mongo_error_codename (int code, char *buf, size_t buf_len);

/* Fill err: code, its name, and the printf-formatted message. */
void mongo_error_set (mongo_error_t *err, int code, const char *fmt, ...)
    BSON_GNUC_PRINTF (3, 4);

/* Fill err with an explicit code name (NULL: the known name of code). */
void mongo_error_set_named (mongo_error_t *err, int code, const char *codename,
                            const char *message);

/* Append {ok: 0, errmsg, code, codeName} to reply, and errorLabels:
 * [label] when label is not NULL. */
void mongo_error_append_reply (const mongo_error_t *err, const char *label, bson_t *reply);

/* A new reply {ok: 0, ...} for err (mongo_error_append_reply). */
bson_t *mongo_error_reply_new (const mongo_error_t *err, const char *label);

/* Append the writeError {index, code, <the fields of details>, errmsg} to
 * the array write_errors, as its element number position. details (NULL:
 * none) holds extra fields such as a duplicate key's keyPattern and
 * keyValue. */
void mongo_error_append_write_error (const mongo_error_t *err, int32_t index,
                                     const bson_t *details, bson_t *write_errors,
                                     uint32_t position);

#endif
