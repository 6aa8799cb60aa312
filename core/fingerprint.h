/*  fingerprint — group failures by "what is failing" (issue 8).
 *
 *  A fingerprint is 16 lowercase hex characters: the 64-bit FNV-1a hash of
 *
 *      error.type  '\0'  normalised message  '\0'  top frames
 *
 *  where the message has its variable parts (ids, numbers, quoted values,
 *  addresses, times) replaced by placeholders and the top frames are the
 *  DLQ_FINGERPRINT_FRAMES innermost stack frames without line numbers. The
 *  same bug seen with different ids or values gives one fingerprint; a
 *  different error type, different message words or a different throwing
 *  method gives another. error.type is hashed as sent (no normalisation).
 *
 *  Fingerprints are stored, so they must never drift: FNV-1a 64 (offset
 *  basis 0xcbf29ce484222325, prime 0x100000001b3) over bytes is the same on
 *  every platform and version, and every rule below is part of the
 *  definition. ANY change to the normalisation or frame rules (or to the
 *  hash input) must bump DLQ_FINGERPRINT_VERSION, and a store should keep
 *  the version next to each fingerprint so that fingerprints of different
 *  versions are never compared. test_fingerprint pins literal values.
 *
 *  Message normalisation (dlq_fingerprint_normalise_message). A "word" is a
 *  maximal run of ASCII letters, digits and non-ASCII bytes; '_', '-', '.',
 *  ':' and other punctuation separate words. Scanning left to right:
 *
 *    'x' "x" `x`   a quoted value, quotes included -> <str>. It opens at a
 *                  quote that does not follow a word character (so the
 *                  apostrophe of "can't" does not open one) and closes at the
 *                  next same quote on the same line (for ' one not followed
 *                  by a word character: 'don't' is one value). Whatever it
 *                  holds (a UUID, a number) it is one <str>. No backslash
 *                  escapes (Windows paths). Unclosed: the quote stays as text
 *                  and scanning goes on after it.
 *
 *    at the start of a word, first match wins:
 *    <uuid>  8-4-4-4-12 hex digits, either case, not followed by a word char
 *    <time>  an ISO-8601 date YYYY-MM-DD, optionally with 'T'/'t'/' ' and
 *            HH:MM[:SS[.fraction]] (',' fraction too), then Z or +HH[:]MM;
 *            or the basic format 20260609T143211[.fraction][zone]
 *    <ip>    an IPv4 address a.b.c.d (each <= 255), with its :port (1-5
 *            digits); a.b.c.d.e or an octet > 255 is a <num>
 *    <hex>   0x followed by hex digits; or a whole word of >= 8 hex digits
 *            with at least one digit AND one letter a-f (ObjectIds, hashes,
 *            tokens; an all-digit word is a number, an all-letter word such
 *            as "deadbeefcafe" stays a word); right after '@', a hex word of
 *            any length with a digit (Java's Object.toString "Conn@1b6d358")
 *    <num>   digits, with ".digits" / ",digits" groups (3.14, 1,000, 1.2.3)
 *            and an exponent (1e-5); a sign is included when it does not
 *            follow a word character ("-5" but not the "-" of "node-3").
 *            Letters glued after the number stay: "3000ms" -> "<num>ms".
 *
 *    Digits inside a word that starts with a letter are kept: "utf8",
 *    "http2", "sha256", "v2", "user42", "x86". Such words are names far more
 *    often than values, and keeping them keeps different things apart; the
 *    cost is that "user42"/"user43" are two groups (quote or separate your
 *    ids). Because '_', '-', '.', '/' separate words, "order_123",
 *    "Thread-7", "items.3", "HTTP/1.1", "UTF-8" and "v1.2.3" become
 *    "order_<num>", "Thread-<num>", "items.<num>", "HTTP/<num>",
 *    "UTF-<num>" and "v1.<num>": cosmetic for the common names, and it only
 *    ever merges messages that differ in those numbers.
 *
 *    ASCII whitespace and control characters (NUL included) are runs of
 *    whitespace: each run becomes one space, and the ends are trimmed. The
 *    result is cut to DLQ_FINGERPRINT_MESSAGE_MAX bytes, never inside a UTF-8
 *    sequence (a trailing space left by the cut is trimmed; the cut may
 *    fall inside a placeholder: "<n"). Only ASCII bytes are ever replaced,
 *    so valid UTF-8 in gives valid UTF-8 out.
 *
 *  Top frames (dlq_fingerprint_top_frames). Recognised frame lines (leading
 *  whitespace ignored; every other line is skipped: the "Type: message"
 *  line, "Caused by:", "... 5 more", "Traceback ...", "goroutine 1 ..."):
 *
 *    Java    at com.acme.Orders.handle(Orders.java:42)
 *            (logback / log4j2 packaging data " ~[app.jar:1.2]" ignored)
 *    .NET    at Ns.Type.Method(String s) in C:\src\X.cs:line 42
 *            at Ns.Type.Method(String s)              (no symbols)
 *    JS/V8   at f (/app/file.js:1:2)     at /app/file.js:1:2
 *    Python  File "/app/x.py", line 12, in f
 *    Go      main.f(0xc000012345, ...)  followed by  <tab>/src/x.go:12 +0x1d
 *
 *  Each becomes "identity (file)" ("(file)" for an anonymous JS frame,
 *  "identity" alone without a file): the method or function as printed
 *  (Java and JS without the location, .NET with its parameter list, Go
 *  without its argument values), and the base name of the file without
 *  line, column, ":line N", "+0x" offset or "?query". Line numbers are
 *  dropped so that an edit elsewhere in the file keeps the group; the file
 *  stays because it is stable and tells same-named functions apart;
 *  directories are dropped because they differ between hosts, virtualenvs,
 *  build agents and deploy directories. In identities and file names, 0x...
 *  and words of >= 8 hex digits (as above) become <hex> (bundle hashes such
 *  as main.3f2a1b9c.js).
 *  Java identities also lose the class loader / module prefix ("app//",
 *  "java.base@17/") and the per-run parts of generated classes:
 *  "Orders$$Lambda$14/0x0000000800c0b448.apply" -> "Orders$$Lambda.apply",
 *  "$Proxy42" -> "$Proxy", "GeneratedMethodAccessor7" -> "...Accessor".
 *  Frames are innermost first: the first ones printed, except for Python,
 *  whose traceback prints the innermost call last, so when the first frame
 *  found is a Python one the last Python frames are taken, last first.
 */
#ifndef DLQ_FINGERPRINT_H
#define DLQ_FINGERPRINT_H

#include "dlq_buf.h"

#include <stdbool.h>
#include <stddef.h>

#define DLQ_FINGERPRINT_VERSION     1     /* bump on ANY change to the rules above */
#define DLQ_FINGERPRINT_FRAMES      3     /* frames that take part in the hash */
#define DLQ_FINGERPRINT_MESSAGE_MAX 512   /* bytes of normalised message */
#define DLQ_FINGERPRINT_HEX_LEN     16

typedef struct {
    char   hex [DLQ_FINGERPRINT_HEX_LEN + 1];             /* lowercase, NUL-terminated */
    char   normalised [DLQ_FINGERPRINT_MESSAGE_MAX + 1];  /* for display, NUL-terminated */
    size_t normalised_len;
} dlq_fingerprint_t;

/* Append the normalised form of len bytes of message to out (at most
 * DLQ_FINGERPRINT_MESSAGE_MAX bytes are appended). message may be NULL when
 * len is 0. */
void dlq_fingerprint_normalise_message (const char *message, size_t len, dlq_buf_t *out);

/* Append the first max_frames frames of a stack trace to out, one normalised
 * frame per line, joined by '\n' (no trailing newline). Returns the number of
 * frames appended (0 when none is recognised; stack may then be NULL). */
size_t dlq_fingerprint_top_frames (const char *stack, size_t len, size_t max_frames,
                                   dlq_buf_t *out);

/* Fingerprint of one failure. error_type is NUL-terminated; NULL fields are
 * treated as empty (the lengths are then ignored). */
void dlq_fingerprint_of (const char *error_type, const char *message, size_t message_len,
                         const char *stack, size_t stack_len, dlq_fingerprint_t *fp);

/* The same from a FailedEvent JSON body: error.type, error.message and
 * error.stackTrace (a missing or non-string one is empty). Returns false,
 * leaving fp untouched, when the body is not JSON or not an object. */
bool dlq_fingerprint_of_event (const char *json, size_t len, dlq_fingerprint_t *fp);

#endif
