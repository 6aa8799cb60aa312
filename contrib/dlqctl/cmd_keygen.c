/*  cmd_keygen — CURVE certificate pairs (see the header). The files are
 *  zcert's ZPL format (core/dlq_cert.h), so the gateway, libdlq and any
 *  other ZeroMQ tool read them.
 */
#include "cmd_keygen.h"

#include "dlq_cert.h"
#include "dlq_token.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static const char keygen_usage [] =
    "usage: dlqctl keygen NAME --role ROLE [--streams S,...] [--token] [--dir D]\n"
    "       dlqctl keygen NAME --server [--dir D]\n"
    "\n"
    "Write a CURVE certificate pair: D/NAME.key, the public certificate, and\n"
    "D/NAME.key_secret, its secret key (mode 0600: keep it on the machine\n"
    "that uses it). Neither file is overwritten. Needs no gateway.\n"
    "\n"
    "A client's key: copy NAME.key into the gateway's security.curve.clients\n"
    "directory (it is read within 2 s, or at SIGHUP); the client then uses\n"
    "--cert NAME.key_secret and the gateway's public key (--server-key).\n"
    "The gateway's own pair (--server): security.curve.server_secret_key\n"
    "names NAME.key_secret; clients get NAME.key.\n"
    "\n"
    "--token also makes a token for the HTTP API and the console\n"
    "(Authorization: Bearer TOKEN) for the same principal: printed once on a\n"
    "line \"token: dlqd_...\", never written; NAME.key keeps only its SHA-256\n"
    "(metadata token_sha256).\n"
    "\n"
    "      --role ROLE     worker (PUT, RESOLVE, FAIL, CKPT.* on its streams),\n"
    "                      viewer (GET, LIST, COUNT, GROUPS, STATS, ...),\n"
    "                      operator (a viewer's verbs, REPLAY, REDELIVER),\n"
    "                      admin (everything)\n"
    "      --streams S,... the streams it may use: names, or patterns where *\n"
    "                      is any run of characters (required but for admin)\n"
    "      --token         a token of the HTTP API for this principal too\n"
    "      --server        the gateway's pair (no role, no streams)\n"
    "  -d, --dir D         where to write (default: the current directory)\n";

enum { OPT_ROLE = 256, OPT_STREAMS, OPT_SERVER, OPT_TOKEN };

static bool
valid_name (const char *name)
{
    if (!*name || name [0] == '.' || strlen (name) > 128)
        return false;
    for (const char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')
              || *p == '.' || *p == '_' || *p == '-'))
            return false;
    return true;
}

static bool
valid_role (const char *role)
{
    static const char *const roles [] = { "worker", "viewer", "operator", "admin" };
    for (size_t i = 0; i < sizeof roles / sizeof roles [0]; i++)
        if (strcmp (role, roles [i]) == 0)
            return true;
    return false;
}

/* Names or patterns separated by commas, none empty, no control bytes. */
static bool
valid_streams (const char *streams)
{
    if (!*streams)
        return false;
    const char *p = streams;
    while (true) {
        const char *end = strchr (p, ',');
        size_t len = end ? (size_t) (end - p) : strlen (p);
        size_t blank = strspn (p, " \t");
        if (blank >= len)
            return false;
        for (size_t i = 0; i < len; i++)
            if ((unsigned char) p [i] < 0x20 || p [i] == 0x7f)
                return false;
        if (!end)
            return true;
        p = end + 1;
    }
}

static void
print_next_steps (const char *path, const char *name, bool server)
{
    if (server)
        printf ("wrote %s and %s_secret\n"
                "gateway: security = { curve = { server_secret_key = \"%s_secret\"; clients = \"...\"; }; };\n"
                "clients: give them %s (the public key, not secret)\n", path, path, path, path);
    else
        printf ("wrote %s and %s_secret\n"
                "allow it: copy %s into the gateway's security.curve.clients directory\n"
                "use it:   dlqctl --cert %s_secret --server-key SERVER.key ... (client \"%s\")\n",
                path, path, path, path, name);
}

int
cmd_keygen (dlqctl_t *ctl, int argc, char **argv)
{
    static const struct option options [] = {
        { "role",    required_argument, NULL, OPT_ROLE },
        { "streams", required_argument, NULL, OPT_STREAMS },
        { "server",  no_argument,       NULL, OPT_SERVER },
        { "token",   no_argument,       NULL, OPT_TOKEN },
        { "dir",     required_argument, NULL, 'd' },
        DLQCTL_COMMON_LONG_OPTIONS
    };
    const char *role = NULL, *streams = NULL, *dir = ".";
    bool server = false, token = false;
    int opt, status = DLQCTL_EXIT_OK;
    optind = 0;
    while ((opt = getopt_long (argc, argv, "hd:" DLQCTL_GLOBAL_SHORT, options, NULL)) != -1)
        switch (opt) {
            case OPT_ROLE:    role = optarg; break;
            case OPT_STREAMS: streams = optarg; break;
            case OPT_SERVER:  server = true; break;
            case OPT_TOKEN:   token = true; break;
            case 'd':         dir = optarg; break;
            default:
                if (!dlqctl_common_option (ctl, "keygen", keygen_usage, opt, argv, &status))
                    return status;
        }
    if (optind + 1 != argc)
        return dlqctl_usage_error ("keygen", "expected one NAME");
    const char *name = argv [optind];
    if (!valid_name (name))
        return dlqctl_usage_error ("keygen", "NAME '%s' must be 1 to 128 letters, digits, '.', '_' or '-', "
                                   "not starting with '.'", name);
    if (server && (role || streams || token))
        return dlqctl_usage_error ("keygen", "--server takes no --role, --streams or --token");
    if (!server && (!role || !valid_role (role)))
        return dlqctl_usage_error ("keygen", "--role must be worker, viewer, operator or admin");
    if (!server && !streams && strcmp (role, "admin") != 0)
        return dlqctl_usage_error ("keygen", "--streams is needed for the role %s (names or patterns, e.g. "
                                   "orders,billing.*; * for every stream)", role);
    if (streams && !valid_streams (streams))
        return dlqctl_usage_error ("keygen", "--streams '%s' has an empty entry or a control character", streams);
    char path [4096];
    if (snprintf (path, sizeof path, "%s/%s.key", dir, name) >= (int) sizeof path)
        return dlqctl_usage_error ("keygen", "--dir is too long");
    char secret [DLQ_TOKEN_TEXT_LEN + 1] = "", hash [DLQ_TOKEN_HASH_LEN + 1] = "";
    if (token && !dlq_token_generate (secret)) {
        fprintf (stderr, "dlqctl: keygen: no random bytes for a token (libsodium could not start)\n");
        return DLQCTL_EXIT_NO_INPUT;
    }
    dlq_token_hash (secret, strlen (secret), hash);
    const char *meta [8] = { "name", name, "role", role };
    size_t count = server ? 1 : 2;
    if (streams) {
        meta [2 * count] = "streams";
        meta [2 * count++ + 1] = streams;
    }
    if (token) {
        meta [2 * count] = "token_sha256";
        meta [2 * count++ + 1] = hash;
    }
    char err [600];
    dlq_cert_result_t rc = dlq_cert_generate (path, meta, count, err, sizeof err);
    if (rc != DLQ_CERT_OK) {
        fprintf (stderr, "dlqctl: keygen: %s\n", err);
        return rc == DLQ_CERT_ERR_EXISTS ? DLQCTL_EXIT_REJECTED : DLQCTL_EXIT_NO_INPUT;
    }
    print_next_steps (path, name, server);
    if (token)
        printf ("token: %s\n"
                "(the HTTP API's and the console's: Authorization: Bearer TOKEN; shown once, kept nowhere)\n",
                secret);
    memset (secret, 0, sizeof secret);
    return DLQCTL_EXIT_OK;
}
