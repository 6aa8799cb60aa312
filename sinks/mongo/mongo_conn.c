/*  mongo_conn — a mongoc client and error classes; see mongo_conn.h. */
#include "mongo_conn.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void
init (void)
{
    mongoc_init ();
}

void
dlq_mongo_init_once (void)
{
    pthread_once (&init_once, init);
}

/* Set one "name=value" URI option, typed as mongoc knows it. */
static bool
set_option (mongoc_uri_t *uri, const char *item, char *err, size_t err_len)
{
    const char *eq = strchr (item, '=');
    if (!eq || eq == item) {
        snprintf (err, err_len, "mongoc: \"%s\" is not \"name=value\"", item);
        return false;
    }
    char name [128];
    snprintf (name, sizeof name, "%.*s", (int) (eq - item), item);
    const char *value = eq + 1;
    char *end = NULL;
    bool ok;
    errno = 0;
    if (mongoc_uri_option_is_int32 (name)) {
        long n = strtol (value, &end, 10);
        ok = *value && !*end && errno == 0 && n >= INT32_MIN && n <= INT32_MAX
          && mongoc_uri_set_option_as_int32 (uri, name, (int32_t) n);
    }
    else if (mongoc_uri_option_is_int64 (name)) {
        long long n = strtoll (value, &end, 10);
        ok = *value && !*end && errno == 0 && mongoc_uri_set_option_as_int64 (uri, name, n);
    }
    else if (mongoc_uri_option_is_bool (name))
        ok = (strcmp (value, "true") == 0 || strcmp (value, "false") == 0)
          && mongoc_uri_set_option_as_bool (uri, name, strcmp (value, "true") == 0);
    else if (mongoc_uri_option_is_utf8 (name))
        ok = mongoc_uri_set_option_as_utf8 (uri, name, value);
    else {
        snprintf (err, err_len, "mongoc: %s: not a URI option mongo-c-driver knows", name);
        return false;
    }
    if (!ok)
        snprintf (err, err_len, "mongoc: %s: bad value \"%s\"", name, value);
    return ok;
}

static void
default_int32 (mongoc_uri_t *uri, const char *name, int32_t value)
{
    if (!mongoc_uri_has_option (uri, name))
        mongoc_uri_set_option_as_int32 (uri, name, value);
}

mongoc_client_t *
dlq_mongo_client_new (const char *uri_text, const char *const *options, size_t option_count,
                      const char *app_name, char *err, size_t err_len)
{
    dlq_mongo_init_once ();
    bson_error_t error;
    mongoc_uri_t *uri = mongoc_uri_new_with_error (uri_text, &error);
    if (!uri) {
        snprintf (err, err_len, "uri: %s", error.message);
        return NULL;
    }
    for (size_t i = 0; i < option_count; i++)
        if (!set_option (uri, options [i], err, err_len)) {
            mongoc_uri_destroy (uri);
            return NULL;
        }
    default_int32 (uri, MONGOC_URI_SERVERSELECTIONTIMEOUTMS, 5000);
    default_int32 (uri, MONGOC_URI_CONNECTTIMEOUTMS, 5000);
    default_int32 (uri, MONGOC_URI_SOCKETTIMEOUTMS, 30000);
    if (!mongoc_uri_get_appname (uri))
        mongoc_uri_set_appname (uri, app_name);
    mongoc_client_t *client = mongoc_client_new_from_uri_with_error (uri, &error);
    mongoc_uri_destroy (uri);
    if (!client) {
        snprintf (err, err_len, "uri: %s", error.message);
        return NULL;
    }
    mongoc_client_set_error_api (client, MONGOC_ERROR_API_VERSION_2);
    return client;
}

const char *
dlq_mongo_database_name (const char *uri_text, const char *database, char *out, size_t out_len)
{
    const char *name = database;
    mongoc_uri_t *uri = NULL;
    if (!name || !*name) {
        uri = mongoc_uri_new_with_error (uri_text, NULL);
        name = uri ? mongoc_uri_get_database (uri) : NULL;
    }
    snprintf (out, out_len, "%s", name && *name ? name : "flowwarden");
    mongoc_uri_destroy (uri);
    return out;
}

bool
dlq_mongo_code_is_transient (int32_t code)
{
    switch (code) {
        case 6:         /* HostUnreachable */
        case 7:         /* HostNotFound */
        case 89:        /* NetworkTimeout */
        case 91:        /* ShutdownInProgress */
        case 189:       /* PrimarySteppedDown */
        case 262:       /* ExceededTimeLimit */
        case 9001:      /* SocketException */
        case 10107:     /* NotWritablePrimary */
        case 11600:     /* InterruptedAtShutdown */
        case 11602:     /* InterruptedDueToReplStateChange */
        case 13435:     /* NotPrimaryNoSecondaryOk */
        case 13436:     /* NotPrimaryOrSecondary */
        case 64:        /* WriteConcernFailed */
        case 112:       /* WriteConflict */
        case 50:        /* MaxTimeMSExpired */
            return true;
        default:
            return false;
    }
}

bool
dlq_mongo_error_is_transient (const bson_error_t *error)
{
    switch (error->domain) {
        case MONGOC_ERROR_STREAM:
        case MONGOC_ERROR_SERVER_SELECTION:
        case MONGOC_ERROR_PROTOCOL:
            return true;
        case MONGOC_ERROR_SERVER:
        case MONGOC_ERROR_WRITE_CONCERN:
            return dlq_mongo_code_is_transient ((int32_t) error->code);
        default:
            return false;
    }
}
