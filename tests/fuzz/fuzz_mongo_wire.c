/*  fuzz_mongo_wire — the MongoDB wire-protocol test server's message
 *  parser (tests/mongo/mongo_wire: the header, OP_MSG sections, OP_QUERY,
 *  every BSON document checked through) and what the server then does
 *  with a command (mongo_commands: the store, filters, updates,
 *  aggregation, cursors), as a connection of the server would.
 *
 *  Input: the bytes a client sends on one connection: messages back to
 *  back, each framed by its header's length; reading stops where the
 *  server would close the connection (a bad header, a truncated or
 *  refused message). Each input runs on an empty store. Oracles: every
 *  reply is {ok: ...}; an OP_MSG reply is itself a well-formed OP_MSG that
 *  the parser reads back to the same document, under the header's length.
 */
#include "fuzz_support.h"
#include "mongo_commands.h"
#include "mongo_faults.h"
#include "mongo_store.h"
#include "mongo_wire.h"

#include <bson/bson.h>
#include <string.h>

#define MESSAGES_MAX 32

/* The reply encoded for request, read back as an OP_MSG request. */
static void
check_reply (const mongo_wire_request_t *req, const bson_t *reply, int32_t id)
{
    bson_iter_t it;
    FUZZ_CHECK (bson_iter_init_find (&it, reply, "ok"));
    size_t len = 0;
    uint8_t *bytes = mongo_wire_reply_encode (req, id, reply, &len);
    mongo_wire_header_t header;
    char error [256];
    FUZZ_CHECK (bytes && len >= MONGO_WIRE_HEADER_SIZE && mongo_wire_header_decode (bytes, &header, error, sizeof error));
    FUZZ_CHECK ((size_t) header.length == len && header.request_id == id && header.response_to == req->request_id);
    if (req->opcode == MONGO_OP_MSG) {
        FUZZ_CHECK (header.opcode == MONGO_OP_MSG);
        mongo_wire_request_t *back = mongo_wire_request_new (bytes, len, error, sizeof error);
        if (!back)
            fuzz_fail ("an OP_MSG reply the parser refuses: %s", error);
        FUZZ_CHECK (bson_equal (back->command, reply) && !back->more_to_come);
        mongo_wire_request_destroy (&back);
    }
    else
        FUZZ_CHECK (header.opcode == MONGO_OP_REPLY);
    bson_free (bytes);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    mongo_store_t *store = mongo_store_new ();
    mongo_faults_t *faults = mongo_faults_new ();
    mongo_commands_t *commands = mongo_commands_new (store, faults);
    size_t at = 0;
    for (int n = 0; n < MESSAGES_MAX && size - at >= MONGO_WIRE_HEADER_SIZE; n++) {
        mongo_wire_header_t header;
        char error [256];
        if (!mongo_wire_header_decode (data + at, &header, error, sizeof error)) {
            FUZZ_CHECK (error [0]);
            break;
        }
        FUZZ_CHECK (header.length >= MONGO_WIRE_HEADER_SIZE);
        if ((size_t) header.length > size - at)
            break;
        mongo_wire_request_t *req = mongo_wire_request_new (data + at, (size_t) header.length, error, sizeof error);
        at += (size_t) header.length;
        if (!req) {
            FUZZ_CHECK (error [0]);
            break;
        }
        FUZZ_CHECK (req->command && mongo_wire_request_command_name (req));
        FUZZ_CHECK (req->opcode == MONGO_OP_MSG || req->opcode == MONGO_OP_QUERY);
        mongo_call_t call = { req->db, req->command, 1, req->opcode == MONGO_OP_QUERY };
        bson_t *reply = mongo_commands_run (commands, &call);
        FUZZ_CHECK (reply != NULL);
        check_reply (req, reply, n + 1);
        bson_destroy (reply);
        mongo_wire_request_destroy (&req);
    }
    mongo_commands_destroy (&commands);
    mongo_faults_destroy (&faults);
    mongo_store_destroy (&store);
    return 0;
}
