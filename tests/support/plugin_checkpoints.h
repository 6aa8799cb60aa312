/*  plugin_checkpoints — a sink plugin's checkpoint calls
 *  (dlq_sink_checkpoint_ops_t) driven from a test, for the suites that
 *  load a plugin in the test process (the contract suite's
 *  contract_checkpoints, for any plugin; itest_postgres_ckpt and
 *  itest_mongo_ckpt, for what only their backend shows): writes, GET,
 *  remove and LIST through a QUERY
 *  instance, answers compared with core's dlq_checkpoint_format; and the
 *  contract's checks that hold for every store (what each kind of write
 *  changes, tokens and metadata byte for byte, NOT_FOUND, remove, LIST
 *  pages in byte order with a literal prefix and a keyset cursor, two
 *  writers of one stream at once, first writes of new streams racing). A suite adds what it sees behind the
 *  plugin (a table, documents) through callbacks.
 *
 *  Every function fails the calling test (Criterion asserts) when the
 *  plugin does not answer as required.
 */
#ifndef PLUGIN_CHECKPOINTS_H
#define PLUGIN_CHECKPOINTS_H

#include "checkpoint.h"
#include "dlq_sink.h"
#include "plugin_support.h"

#include <stddef.h>
#include <stdint.h>

#define PLUGIN_CKPT_NOW 1781015533500LL     /* 2026-06-09T14:32:13.500Z */

typedef struct {
    test_plugin_t plugin;       /* loaded by the suite */
    void         *reader;       /* a QUERY instance (plugin_ckpt_open) */
} plugin_ckpt_t;

/* Open the reader of the loaded plugin, which must have this version's
 * checkpoint calls. */
void plugin_ckpt_open (plugin_ckpt_t *c);

/* Another QUERY instance of the loaded plugin. */
void *plugin_ckpt_instance (const plugin_ckpt_t *c);

/* Destroy the reader and unload the plugin; nothing when not loaded. */
void plugin_ckpt_close (plugin_ckpt_t *c);

/* The plugin's checkpoint calls, and its last error on instance (a
 * placeholder when the plugin has no last_error call). */
const dlq_sink_checkpoint_ops_t *plugin_ckpt_ops (const plugin_ckpt_t *c);
const char *plugin_ckpt_error (const plugin_ckpt_t *c, void *instance);

/* record as dlq_checkpoint_format writes it. Caller frees. */
char *plugin_ckpt_formatted (const dlq_sink_checkpoint_t *record);

/* Write record as kind says at now through instance; must be OK. The
 * answer; caller frees. */
char *plugin_ckpt_write (const plugin_ckpt_t *c, void *instance, dlq_sink_ckpt_write_t kind,
                         const dlq_sink_checkpoint_t *record, int64_t now);

/* The reader's GET of stream: its record, or NULL when NOT_FOUND (which
 * must write nothing). Caller frees. */
char *plugin_ckpt_get (const plugin_ckpt_t *c, const char *stream);

/* A write of kind through the reader answers want, and GET then gives
 * want too. */
void plugin_ckpt_expect_write (const plugin_ckpt_t *c, dlq_sink_ckpt_write_t kind,
                               const dlq_sink_checkpoint_t *record, int64_t now, const dlq_sink_checkpoint_t *want);

/* A SEEN or PROCESSED request's record: stream, the token, its time. */
dlq_sink_checkpoint_t plugin_ckpt_token (dlq_sink_ckpt_write_t kind, const char *stream, const char *token,
                                         int64_t at);

/* A record of stream with every field set (instance worker-7, tokens
 * and metadata, times before PLUGIN_CKPT_NOW). */
dlq_sink_checkpoint_t plugin_ckpt_full (const char *stream);

/* Checks of what a suite sees behind the plugin: of stream; of stream
 * after a write of kind; of the text stored as stream's SEEN token. NULL
 * where one is taken: nothing to check. */
typedef void plugin_ckpt_stream_fn (const char *stream);
typedef void plugin_ckpt_kind_fn (const char *stream, dlq_sink_ckpt_write_t kind);
typedef void plugin_ckpt_text_fn (const char *stream, const char *text);

/* SEEN of "orders" at PLUGIN_CKPT_NOW and PROCESSED of "payments" at
 * PLUGIN_CKPT_NOW + 1 create their records with only their pair (and
 * only_pair says so behind the plugin); the second leaves the first. */
void plugin_ckpt_expect_first_writes (const plugin_ckpt_t *c, plugin_ckpt_kind_fn *only_pair);

/* On a full record of "orders", SEEN and PROCESSED change only their
 * pair and updatedAt, also when given every other field; untouched then
 * checks "orders" behind the plugin (NULL: nothing). */
void plugin_ckpt_expect_pairs_only (const plugin_ckpt_t *c, plugin_ckpt_stream_fn *untouched);

/* SAVE replaces every field of "orders": a full record, then partial
 * (of "orders"; after_partial checks it behind the plugin), then one with
 * no field (after_bare); a SAVE creates a full record. */
void plugin_ckpt_expect_saves (const plugin_ckpt_t *c, const dlq_sink_checkpoint_t *partial,
                               plugin_ckpt_stream_fn *after_partial, plugin_ckpt_stream_fn *after_bare);

/* Each of texts [0, n) as a SEEN token, a PROCESSED token and metadata
 * (SAVE of stream-<i>, then a SEEN) comes back byte for byte; stored
 * checks the SEEN token behind the plugin after the SAVE. */
void plugin_ckpt_expect_texts (const plugin_ckpt_t *c, const char *const *texts, size_t n,
                               plugin_ckpt_text_fn *stored);

/* GET of a missing record is NOT_FOUND: before any write, and for names
 * a stored one starts with, differs from in case or is followed by. */
void plugin_ckpt_expect_not_found (const plugin_ckpt_t *c);

/* Remove says whether there was a record, keeps the others, and a SEEN
 * creates the record again; gone checks behind the plugin that the
 * removed one is (NULL: nothing). */
void plugin_ckpt_expect_remove (const plugin_ckpt_t *c, plugin_ckpt_stream_fn *gone);

/* SEEN or PROCESSED (by turns) of names with %, _, \, regular
 * expression characters and non-ASCII bytes, for the LIST checks. */
void plugin_ckpt_store_names (const plugin_ckpt_t *c);

/* LIST of the stored names pages in byte order with literal prefixes and
 * pages of every size, each page full but the last, the last without a
 * cursor; a NULL prefix is every record, the cursor the page's last name. */
void plugin_ckpt_expect_list_pages (const plugin_ckpt_t *c);

/* A cursor of LIST over the stored names is a position in byte order; a
 * cursor that cannot be a name is BAD_CURSOR and writes nothing; an empty
 * one is the first page; one past the prefix an empty page. */
void plugin_ckpt_expect_cursors (const plugin_ckpt_t *c);

/* Two instances on their own threads writing 2,000 SEEN and 2,000
 * PROCESSED of stream "busy" at once never undo each other: each answer
 * has the writer's token and the other's never goes back; the final
 * record has the last token of each. */
void plugin_ckpt_expect_two_writers (const plugin_ckpt_t *c);

/* Two instances on their own threads, in step, each write first (SEEN
 * by one, PROCESSED by the other) to each of streams new streams
 * race-0000 ...: every write succeeds (a store that creates a record
 * with an insert must try again when the other's insert won), and every
 * record ends with both tokens. */
void plugin_ckpt_expect_racing_first_writes (const plugin_ckpt_t *c, int streams);

#endif
