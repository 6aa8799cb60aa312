/*  mongo_error — MongoDB errors and their reply fields; see mongo_error.h. */
#include "mongo_error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    int         code;
    const char *name;
} code_name_t;

static const code_name_t code_names [] = {
    { 1,     "InternalError" },
    { 2,     "BadValue" },
    { 4,     "NoSuchKey" },
    { 6,     "HostUnreachable" },
    { 7,     "HostNotFound" },
    { 9,     "FailedToParse" },
    { 11,    "UserNotFound" },
    { 13,    "Unauthorized" },
    { 14,    "TypeMismatch" },
    { 16,    "InvalidLength" },
    { 18,    "AuthenticationFailed" },
    { 26,    "NamespaceNotFound" },
    { 27,    "IndexNotFound" },
    { 43,    "CursorNotFound" },
    { 48,    "NamespaceExists" },
    { 50,    "MaxTimeMSExpired" },
    { 53,    "InvalidIdField" },
    { 59,    "CommandNotFound" },
    { 66,    "ImmutableField" },
    { 67,    "CannotCreateIndex" },
    { 73,    "InvalidNamespace" },
    { 85,    "IndexOptionsConflict" },
    { 86,    "IndexKeySpecsConflict" },
    { 89,    "NetworkTimeout" },
    { 91,    "ShutdownInProgress" },
    { 96,    "OperationFailed" },
    { 100,   "UnsatisfiableWriteConcern" },
    { 112,   "WriteConflict" },
    { 121,   "DocumentValidationFailure" },
    { 189,   "PrimarySteppedDown" },
    { 238,   "NotImplemented" },
    { 262,   "ExceededTimeLimit" },
    { 352,   "UnsupportedOpQueryCommand" },
    { 9001,  "SocketException" },
    { 10107, "NotWritablePrimary" },
    { 10334, "BSONObjectTooLarge" },
    { 11000, "DuplicateKey" },
    { 11600, "InterruptedAtShutdown" },
    { 11602, "InterruptedDueToReplStateChange" },
    { 13435, "NotPrimaryNoSecondaryOk" },
    { 13436, "NotPrimaryOrSecondary" },
};

const char *
mongo_error_codename (int code, char *buf, size_t buf_len)
{
    for (size_t i = 0; i < sizeof code_names / sizeof code_names [0]; i++)
        if (code_names [i].code == code)
            return code_names [i].name;
    snprintf (buf, buf_len, "Location%d", code);
    return buf;
}

void
mongo_error_set_named (mongo_error_t *err, int code, const char *codename, const char *message)
{
    char buf [32];
    err->code = code;
    if (!codename)
        codename = mongo_error_codename (code, buf, sizeof buf);
    snprintf (err->codename, sizeof err->codename, "%s", codename);
    snprintf (err->message, sizeof err->message, "%s", message ? message : "");
}

void
mongo_error_set (mongo_error_t *err, int code, const char *fmt, ...)
{
    char message [sizeof err->message];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (message, sizeof message, fmt, ap);
    va_end (ap);
    mongo_error_set_named (err, code, NULL, message);
}

void
mongo_error_append_reply (const mongo_error_t *err, const char *label, bson_t *reply)
{
    BSON_APPEND_DOUBLE (reply, "ok", 0.0);
    BSON_APPEND_UTF8 (reply, "errmsg", err->message);
    BSON_APPEND_INT32 (reply, "code", err->code);
    BSON_APPEND_UTF8 (reply, "codeName", err->codename);
    if (label) {
        bson_t labels;
        BSON_APPEND_ARRAY_BEGIN (reply, "errorLabels", &labels);
        BSON_APPEND_UTF8 (&labels, "0", label);
        bson_append_array_end (reply, &labels);
    }
}

bson_t *
mongo_error_reply_new (const mongo_error_t *err, const char *label)
{
    bson_t *reply = bson_new ();
    mongo_error_append_reply (err, label, reply);
    return reply;
}

void
mongo_error_append_write_error (const mongo_error_t *err, int32_t index, const bson_t *details,
                                bson_t *write_errors, uint32_t position)
{
    char key [16];
    const char *key_p;
    bson_uint32_to_string (position, &key_p, key, sizeof key);
    bson_t entry;
    bson_append_document_begin (write_errors, key_p, -1, &entry);
    BSON_APPEND_INT32 (&entry, "index", index);
    BSON_APPEND_INT32 (&entry, "code", err->code);
    if (details)
        bson_concat (&entry, details);
    BSON_APPEND_UTF8 (&entry, "errmsg", err->message);
    bson_append_document_end (write_errors, &entry);
}
