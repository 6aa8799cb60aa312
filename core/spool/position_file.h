/*  position_file — one position kept durably under a name: a reader of the
 *  log that must know after a crash how far it had got before it acted
 *  (a sink's attempted marker: the events it may have sent) writes its
 *  position here and syncs, before acting, without waiting for any other
 *  thread's commit.
 *
 *  The file holds two slots of 32 bytes; a write goes to the slot the last
 *  write did not use and is synced (fdatasync) before it returns, so a
 *  write torn by a crash leaves the other slot, the position before it.
 *  A slot: "DLQP" (4 bytes), version 1 (1 byte), 3 zero bytes, the write's
 *  sequence number (u64 LE), the position (u64 LE), 4 zero bytes, CRC32C
 *  of the 28 bytes before it (u32 LE). Reading takes the valid slot with
 *  the higher sequence number. A file whose sequence is above 2^62 (which
 *  writes never reach) has its position written again under 1 and 2 when
 *  it is opened.
 *
 *  One object is used by one thread at a time.
 */
#ifndef DLQ_POSITION_FILE_H
#define DLQ_POSITION_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DLQ_POSITION_FILE_BYTES 64

typedef enum {
    DLQ_POSITION_FILE_OK = 0,
    DLQ_POSITION_FILE_NONE,     /* no valid slot: a new file, or both slots torn or zeroed */
    DLQ_POSITION_FILE_ERROR     /* I/O error; err says which */
} dlq_position_file_result_t;

typedef struct dlq_position_file dlq_position_file_t;

/* Open path, creating it (mode 0600) when missing, and its directory
 * (mode 0750) when that is missing but its parent is not, each new entry
 * synced; its position in *position_out (0 when none is valid:
 * *found_out false). NULL with err set on failure. */
dlq_position_file_t *dlq_position_file_open (const char *path, uint64_t *position_out, bool *found_out,
                                             char *err, size_t err_len);

/* Accepts NULL and NULLs the pointer. */
void dlq_position_file_destroy (dlq_position_file_t **self_p);

/* Write position and sync it. ERROR with err set when the write or the
 * sync failed (the position kept may then be this one or the one before). */
dlq_position_file_result_t dlq_position_file_write (dlq_position_file_t *self, uint64_t position,
                                                    char *err, size_t err_len);

/* The position two slots hold (bytes: DLQ_POSITION_FILE_BYTES, or fewer
 * from a short file). Pure: for open and the fuzz harness. */
dlq_position_file_result_t dlq_position_file_parse (const uint8_t *bytes, size_t len, uint64_t *position_out,
                                                    uint64_t *sequence_out);

#endif
