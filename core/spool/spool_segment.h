/*  spool_segment — the files of the spool: names, listing, and the scan
 *  that finds how much of a segment holds whole records.
 *
 *  A segment is DIR/<position of its first byte, 20 decimal digits>.seg;
 *  nothing else in the directory is a segment.
 */
#ifndef DLQ_SPOOL_SEGMENT_H
#define DLQ_SPOOL_SEGMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DLQ_SPOOL_SEGMENT_SUFFIX ".seg"

/* DIR/BASE.seg into out (truncated to len). */
void dlq_spool_segment_path (char *out, size_t len, const char *dir, uint64_t base);

/* The base of the segment file called name (no directory), or false when
 * the name is not a segment's. */
bool dlq_spool_segment_parse_name (const char *name, uint64_t *base_out);

/* The bases of dir's segments in ascending order (*bases_out malloc'd,
 * NULL when none). False with err set when dir cannot be read. */
/* fsync directory dir, so the entries just made or removed in it stay;
 * false with err set on failure. */
bool dlq_spool_segment_sync_dir (const char *dir, char *err, size_t err_len);

bool dlq_spool_segment_list (const char *dir, uint64_t **bases_out, size_t *count_out, char *err, size_t err_len);

typedef struct {
    uint64_t valid_bytes;       /* the whole records at the start of the segment */
    uint64_t records;           /* how many */
    uint64_t last_record;       /* the offset of the last of them (when records > 0) */
    bool     bad;               /* what follows them is a record that does not check (else it is
                                   the end of the file or a record the file ends inside) */
    bool     reaches_end;       /* that record's header is well formed and the record it declares
                                   reaches the end of the file (a lone record cut short) */
    uint64_t declared_end;      /* where the record after the whole ones would end by its header,
                                   when that header is whole and well formed; else 0 */
} dlq_spool_scan_t;

/* Read the segment open on fd (size bytes) from its start and count its
 * whole, checking records (payloads of at most max_record_bytes). False
 * with err set on a read error. */
bool dlq_spool_segment_scan (int fd, uint64_t size, uint32_t max_record_bytes, dlq_spool_scan_t *out,
                             char *err, size_t err_len);

#endif
