/*  mongo_wire — the framing of the MongoDB wire protocol, as much of it as
 *  a test server that mongo-c-driver talks to needs.
 *
 *  Every message starts with a 16-byte header (messageLength, requestID,
 *  responseTo, opCode; little-endian int32s). Requests understood:
 *    - OP_MSG (2013): flagBits, then sections: exactly one of kind 0 (the
 *      command body) and any of kind 1 (a document sequence: size,
 *      identifier, documents). Each sequence is merged into the command as
 *      an array field named by its identifier, as the server itself sees
 *      it ({insert: "c", documents: [...]}). The database is the body's
 *      $db. checksumPresent is tolerated (the CRC-32C is skipped, not
 *      checked); moreToCome means the client wants no reply (w:0 writes).
 *    - OP_QUERY (2004) on <db>.$cmd: the legacy form the driver still uses
 *      for its connection handshake (isMaster / hello); a {$query: ...}
 *      wrapper is unwrapped. Answered with an OP_REPLY (1).
 *  Every document is checked through and through (each embedded one too,
 *  nested at most MONGO_WIRE_MAX_DEPTH deep), so the rest of the server
 *  only ever iterates well-formed BSON. Anything else (OP_COMPRESSED, the
 *  removed legacy opcodes, a query on a collection, a malformed or
 *  oversized message) is refused: the caller closes the connection.
 */
#ifndef DLQ_MONGO_WIRE_H
#define DLQ_MONGO_WIRE_H

#include <bson/bson.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MONGO_WIRE_HEADER_SIZE       16
#define MONGO_WIRE_MAX_MESSAGE_SIZE  48000000    /* maxMessageSizeBytes */
#define MONGO_WIRE_MAX_DEPTH         200         /* nesting of documents, as MongoDB's limit */

enum {
    MONGO_OP_REPLY      = 1,
    MONGO_OP_QUERY      = 2004,
    MONGO_OP_COMPRESSED = 2012,
    MONGO_OP_MSG        = 2013,
};

typedef struct {
    int32_t length;             /* of the whole message, header included */
    int32_t request_id;
    int32_t response_to;
    int32_t opcode;
} mongo_wire_header_t;

/* One request, decoded. */
typedef struct {
    int32_t  request_id;
    int32_t  opcode;            /* MONGO_OP_MSG or MONGO_OP_QUERY */
    bool     more_to_come;      /* OP_MSG: answer nothing */
    char    *db;                /* NULL: an OP_MSG without $db */
    bson_t  *command;           /* document sequences merged in */
} mongo_wire_request_t;

/* Decode the 16 header bytes. False (error filled) when the length is
 * out of bounds (below the header plus a minimal body, or above
 * MONGO_WIRE_MAX_MESSAGE_SIZE). */
bool mongo_wire_header_decode (const uint8_t *bytes, mongo_wire_header_t *header,
                               char *error, size_t error_len);

/* Decode a whole message (header included, len bytes). NULL, error
 * filled, when it is malformed or not a request this server takes. */
mongo_wire_request_t *mongo_wire_request_new (const uint8_t *message, size_t len,
                                              char *error, size_t error_len);
void mongo_wire_request_destroy (mongo_wire_request_t **self_p);

/* The name of the request's command: its first field (never NULL; "" for
 * an empty command). */
const char *mongo_wire_request_command_name (const mongo_wire_request_t *self);

/* Encode reply as the answer to request, with request_id as its own id:
 * an OP_MSG (flagBits 0, one kind-0 section) for an OP_MSG, an OP_REPLY
 * for an OP_QUERY. Returns the bytes (bson_free) and their length. */
uint8_t *mongo_wire_reply_encode (const mongo_wire_request_t *request, int32_t request_id,
                                  const bson_t *reply, size_t *len_out);

#endif
