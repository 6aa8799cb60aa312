/*  mongo_wire — decoding requests and encoding replies; see mongo_wire.h. */
#include "mongo_wire.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define OP_MSG_CHECKSUM_PRESENT  (1u << 0)
#define OP_MSG_MORE_TO_COME      (1u << 1)
#define OP_MSG_EXHAUST_ALLOWED   (1u << 16)
#define OP_MSG_REQUIRED_BITS     0xffffu     /* unknown ones of these: refuse */
#define OP_REPLY_AWAIT_CAPABLE   8
#define SMALLEST_BSON            5

/* A bounded reader over the bytes of one message. */
typedef struct {
    const uint8_t *at;
    size_t         left;
} reader_t;

static void
fail (char *error, size_t error_len, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (error, error_len, fmt, ap);
    va_end (ap);
}

static int32_t
decode_i32 (const uint8_t *p)
{
    return (int32_t) ((uint32_t) p [0] | (uint32_t) p [1] << 8 | (uint32_t) p [2] << 16
                      | (uint32_t) p [3] << 24);
}

static void
encode_i32 (uint8_t *p, int32_t value)
{
    uint32_t v = (uint32_t) value;
    p [0] = (uint8_t) v;
    p [1] = (uint8_t) (v >> 8);
    p [2] = (uint8_t) (v >> 16);
    p [3] = (uint8_t) (v >> 24);
}

static bool
read_i32 (reader_t *r, int32_t *out)
{
    if (r->left < 4)
        return false;
    *out = decode_i32 (r->at);
    r->at += 4;
    r->left -= 4;
    return true;
}

static bool
read_u8 (reader_t *r, uint8_t *out)
{
    if (r->left < 1)
        return false;
    *out = *r->at;
    r->at++;
    r->left--;
    return true;
}

/* A NUL-terminated string inside the message; *out points into it. */
static bool
read_cstring (reader_t *r, const char **out)
{
    const uint8_t *nul = memchr (r->at, 0, r->left);
    if (!nul)
        return false;
    *out = (const char *) r->at;
    size_t len = (size_t) (nul - r->at) + 1;
    r->at += len;
    r->left -= len;
    return true;
}

/* Whether the document at data (len bytes) and every document inside it
 * is well-formed, nested no deeper than MONGO_WIRE_MAX_DEPTH. (bson_validate
 * skips an embedded document whose own length or terminator is wrong.) */
static bool
well_formed (const uint8_t *data, uint32_t len, int depth)
{
    bson_iter_t it;
    if (depth > MONGO_WIRE_MAX_DEPTH || !bson_iter_init_from_data (&it, data, len))
        return false;
    while (bson_iter_next (&it)) {
        uint32_t inner_len = 0, code_len;
        const uint8_t *inner = NULL;
        if (BSON_ITER_HOLDS_DOCUMENT (&it))
            bson_iter_document (&it, &inner_len, &inner);
        else if (BSON_ITER_HOLDS_ARRAY (&it))
            bson_iter_array (&it, &inner_len, &inner);
        else if (BSON_ITER_HOLDS_CODEWSCOPE (&it))
            bson_iter_codewscope (&it, &code_len, &inner_len, &inner);
        else
            continue;
        if (!inner || !well_formed (inner, inner_len, depth + 1))
            return false;
    }
    return it.err_off == 0;
}

/* One BSON document, checked through and through; doc is a static view. */
static bool
read_document (reader_t *r, bson_t *doc)
{
    int32_t len;
    if (r->left < SMALLEST_BSON)
        return false;
    len = decode_i32 (r->at);
    if (len < SMALLEST_BSON || (size_t) len > r->left)
        return false;
    if (!well_formed (r->at, (uint32_t) len, 1) || !bson_init_static (doc, r->at, (size_t) len))
        return false;
    r->at += len;
    r->left -= (size_t) len;
    return true;
}

bool
mongo_wire_header_decode (const uint8_t *bytes, mongo_wire_header_t *header, char *error,
                          size_t error_len)
{
    header->length = decode_i32 (bytes);
    header->request_id = decode_i32 (bytes + 4);
    header->response_to = decode_i32 (bytes + 8);
    header->opcode = decode_i32 (bytes + 12);
    if (header->length < MONGO_WIRE_HEADER_SIZE + SMALLEST_BSON
        || header->length > MONGO_WIRE_MAX_MESSAGE_SIZE) {
        fail (error, error_len, "message length %d out of bounds [%d, %d]", header->length,
              MONGO_WIRE_HEADER_SIZE + SMALLEST_BSON, MONGO_WIRE_MAX_MESSAGE_SIZE);
        return false;
    }
    return true;
}

/* ------------------------------------------------------------------ */
/*  OP_MSG                                                              */
/* ------------------------------------------------------------------ */

/* A kind-1 section: appended to sequences as {identifier: [docs]}. */
static bool
read_sequence (reader_t *r, bson_t *sequences, char *error, size_t error_len)
{
    int32_t size;
    const char *identifier;
    reader_t whole = *r;
    if (!read_i32 (r, &size) || size < 4 || (size_t) size > whole.left) {
        fail (error, error_len, "OP_MSG document sequence with a bad size");
        return false;
    }
    reader_t seq = { whole.at + 4, (size_t) size - 4 };
    r->at = whole.at + size;
    r->left = whole.left - (size_t) size;
    if (!read_cstring (&seq, &identifier)) {
        fail (error, error_len, "OP_MSG document sequence without an identifier");
        return false;
    }
    bson_t array;
    bson_append_array_begin (sequences, identifier, -1, &array);
    for (uint32_t i = 0; seq.left > 0; i++) {
        bson_t doc;
        char key [16];
        const char *key_p;
        if (!read_document (&seq, &doc)) {
            bson_append_array_end (sequences, &array);
            fail (error, error_len, "OP_MSG document sequence '%s': document %u malformed",
                  identifier, i);
            return false;
        }
        bson_uint32_to_string (i, &key_p, key, sizeof key);
        bson_append_document (&array, key_p, -1, &doc);
    }
    bson_append_array_end (sequences, &array);
    return true;
}

/* The body with every sequence appended; NULL when a sequence repeats a
 * field of the body. */
static bson_t *
merge_sections (const bson_t *body, const bson_t *sequences, char *error, size_t error_len)
{
    bson_iter_t it;
    bson_iter_init (&it, sequences);
    while (bson_iter_next (&it)) {
        bson_iter_t dup;
        if (bson_iter_init_find (&dup, body, bson_iter_key (&it))) {
            fail (error, error_len, "OP_MSG: '%s' is both in the body and a document sequence",
                  bson_iter_key (&it));
            return NULL;
        }
    }
    bson_t *command = bson_copy (body);
    bson_concat (command, sequences);
    return command;
}

static char *
db_of_body (const bson_t *body)
{
    bson_iter_t it;
    if (bson_iter_init_find (&it, body, "$db") && BSON_ITER_HOLDS_UTF8 (&it))
        return bson_strdup (bson_iter_utf8 (&it, NULL));
    return NULL;
}

static bool
decode_op_msg (reader_t *r, mongo_wire_request_t *req, char *error, size_t error_len)
{
    int32_t flags;
    bson_t body, sequences;
    bool have_body = false, ok = true;
    if (!read_i32 (r, &flags)) {
        fail (error, error_len, "OP_MSG without flagBits");
        return false;
    }
    uint32_t known = OP_MSG_CHECKSUM_PRESENT | OP_MSG_MORE_TO_COME | OP_MSG_EXHAUST_ALLOWED;
    if ((uint32_t) flags & OP_MSG_REQUIRED_BITS & ~known) {
        fail (error, error_len, "OP_MSG with unknown required flag bits 0x%x", (unsigned) flags);
        return false;
    }
    if ((uint32_t) flags & OP_MSG_CHECKSUM_PRESENT) {
        if (r->left < 4) {
            fail (error, error_len, "OP_MSG too short for its checksum");
            return false;
        }
        r->left -= 4;
    }
    req->more_to_come = ((uint32_t) flags & OP_MSG_MORE_TO_COME) != 0;
    bson_init (&sequences);
    while (ok && r->left > 0) {
        uint8_t kind = 0;
        read_u8 (r, &kind);
        if (kind == 0 && !have_body) {
            have_body = read_document (r, &body);
            if (!have_body) {
                fail (error, error_len, "OP_MSG body malformed");
                ok = false;
            }
        } else if (kind == 1)
            ok = read_sequence (r, &sequences, error, error_len);
        else if (kind == 0) {
            fail (error, error_len, "OP_MSG with two bodies (sections of kind 0)");
            ok = false;
        } else {
            fail (error, error_len, "OP_MSG section of unknown kind %u", kind);
            ok = false;
        }
    }
    if (ok && !have_body) {
        fail (error, error_len, "OP_MSG without a body (section of kind 0)");
        ok = false;
    }
    if (ok) {
        req->command = merge_sections (&body, &sequences, error, error_len);
        ok = req->command != NULL;
    }
    if (ok)
        req->db = db_of_body (&body);
    bson_destroy (&sequences);
    return ok;
}

/* ------------------------------------------------------------------ */
/*  OP_QUERY                                                            */
/* ------------------------------------------------------------------ */

/* "admin.$cmd" -> "admin"; NULL when the name is not <db>.$cmd. */
static char *
db_of_command_namespace (const char *ns)
{
    const char *suffix = ".$cmd";
    size_t len = strlen (ns), suffix_len = strlen (suffix);
    if (len <= suffix_len || strcmp (ns + len - suffix_len, suffix) != 0)
        return NULL;
    return bson_strndup (ns, len - suffix_len);
}

/* The command inside a {$query: {...}, $readPreference: ...} wrapper, or
 * the query itself. */
static bson_t *
unwrap_query (const bson_t *query)
{
    bson_iter_t it;
    if (bson_iter_init_find (&it, query, "$query") && BSON_ITER_HOLDS_DOCUMENT (&it)) {
        uint32_t len;
        const uint8_t *data;
        bson_iter_document (&it, &len, &data);
        return bson_new_from_data (data, len);
    }
    return bson_copy (query);
}

static bool
decode_op_query (reader_t *r, mongo_wire_request_t *req, char *error, size_t error_len)
{
    int32_t flags, skip, number_to_return;
    const char *ns;
    bson_t query;
    if (!read_i32 (r, &flags) || !read_cstring (r, &ns) || !read_i32 (r, &skip)
        || !read_i32 (r, &number_to_return) || !read_document (r, &query)) {
        fail (error, error_len, "OP_QUERY malformed");
        return false;
    }
    req->db = db_of_command_namespace (ns);
    if (!req->db) {
        fail (error, error_len, "OP_QUERY on '%s': only commands (<db>.$cmd) are served", ns);
        return false;
    }
    req->command = unwrap_query (&query);
    return true;
}

/* ------------------------------------------------------------------ */
/*  Requests and replies                                                */
/* ------------------------------------------------------------------ */

mongo_wire_request_t *
mongo_wire_request_new (const uint8_t *message, size_t len, char *error, size_t error_len)
{
    mongo_wire_header_t header;
    if (len < MONGO_WIRE_HEADER_SIZE) {
        fail (error, error_len, "message shorter than its header");
        return NULL;
    }
    if (!mongo_wire_header_decode (message, &header, error, error_len))
        return NULL;
    if ((size_t) header.length != len) {
        fail (error, error_len, "message length %d but %zu bytes", header.length, len);
        return NULL;
    }
    mongo_wire_request_t *req = bson_malloc0 (sizeof *req);
    req->request_id = header.request_id;
    req->opcode = header.opcode;
    reader_t r = { message + MONGO_WIRE_HEADER_SIZE, len - MONGO_WIRE_HEADER_SIZE };
    bool ok;
    if (header.opcode == MONGO_OP_MSG)
        ok = decode_op_msg (&r, req, error, error_len);
    else if (header.opcode == MONGO_OP_QUERY)
        ok = decode_op_query (&r, req, error, error_len);
    else {
        fail (error, error_len, "opcode %d not served (OP_MSG and OP_QUERY on $cmd only)",
              header.opcode);
        ok = false;
    }
    if (!ok)
        mongo_wire_request_destroy (&req);
    return req;
}

void
mongo_wire_request_destroy (mongo_wire_request_t **self_p)
{
    mongo_wire_request_t *self = *self_p;
    if (!self)
        return;
    bson_free (self->db);
    if (self->command)
        bson_destroy (self->command);
    bson_free (self);
    *self_p = NULL;
}

const char *
mongo_wire_request_command_name (const mongo_wire_request_t *self)
{
    bson_iter_t it;
    if (self->command && bson_iter_init (&it, self->command) && bson_iter_next (&it))
        return bson_iter_key (&it);
    return "";
}

static void
encode_header (uint8_t *out, size_t len, int32_t request_id, int32_t response_to, int32_t opcode)
{
    encode_i32 (out, (int32_t) len);
    encode_i32 (out + 4, request_id);
    encode_i32 (out + 8, response_to);
    encode_i32 (out + 12, opcode);
}

uint8_t *
mongo_wire_reply_encode (const mongo_wire_request_t *request, int32_t request_id,
                         const bson_t *reply, size_t *len_out)
{
    const uint8_t *doc = bson_get_data (reply);
    bool op_msg = request->opcode == MONGO_OP_MSG;
    size_t prefix = MONGO_WIRE_HEADER_SIZE + (op_msg ? 4 + 1 : 4 + 8 + 4 + 4);
    size_t len = prefix + reply->len;
    uint8_t *out = bson_malloc0 (len);
    encode_header (out, len, request_id, request->request_id,
                   op_msg ? MONGO_OP_MSG : MONGO_OP_REPLY);
    uint8_t *p = out + MONGO_WIRE_HEADER_SIZE;
    if (op_msg) {
        encode_i32 (p, 0);                      /* flagBits */
        p [4] = 0;                              /* section kind 0 */
    } else {
        encode_i32 (p, OP_REPLY_AWAIT_CAPABLE); /* responseFlags */
        /* cursorID 0 (8 bytes) and startingFrom 0 are already zero */
        encode_i32 (p + 16, 1);                 /* numberReturned */
    }
    memcpy (out + prefix, doc, reply->len);
    *len_out = len;
    return out;
}
