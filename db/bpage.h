/* bpage.h -- a run's blocks stored as pages (issue 9): BPAGE_BLOCKS blocks
 * in trace order per row of `block_pages`, varint-encoded in one blob, with
 * each page's start/stop bounds in indexed columns. db/block_pages.sql has
 * the tables and the reasons; this is the one module that reads or writes
 * them (db_store.c writes through bpage_writer; db_query.c, db_load.c and
 * pyramid.c read through bpage_scan / bpage_window, the export through
 * db_read_blocks).
 *
 * Why pages: streamed into one row per block, every block cost two b-tree
 * inserts (the table and its covering window index) with seven columns
 * each: 775 ns of the 840 ns a simulated block cost end to end, 62 bytes of
 * database per block. A page is one insert of ~10 bytes per block.
 *
 * The codec (bpage_encode, bpage_decode) is pure: no SQLite, so the fuzz
 * harness (fuzz/fuzz_bpage.c) links it alone. */
#ifndef DB_BPAGE_H
#define DB_BPAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../simcore/trace.h"

/* Blocks per page: page k of a run holds the blocks numbered (seq)
 * k*BPAGE_BLOCKS .. k*BPAGE_BLOCKS + n - 1. 256 keeps a 10 K-block window
 * within ~2 % of extra blocks decoded at its edges, and a page's blob
 * (about 2.5 KB on the bench) one row. */
#define BPAGE_BLOCKS 256

/* The most bytes one block takes: three 32-bit varints (5 bytes each) and
 * two 64-bit ones (10 each). */
#define BPAGE_MAX_BLOCK_BYTES 35

/* ---- the codec ------------------------------------------------------------ */

/* Encodes b[0..n) into out (room for n * BPAGE_MAX_BLOCK_BYTES bytes);
 * returns the bytes written. Per block, unsigned LEB128 varints of zigzag
 * values: kernel - previous kernel, index - previous index (32-bit,
 * wrapping), sm, start - previous start, end - start (64-bit, wrapping);
 * "previous" is 0 before the first block. TRACE_NONE is stored as the value
 * it is (INT64_MIN), so unknown times round-trip without a flag. */
size_t bpage_encode(const trace_block *b, size_t n, uint8_t *out);

/* Decodes exactly n blocks from p[0..len) into out. 0, or -1 when the bytes
 * are not what bpage_encode writes for n blocks: a varint running past the
 * end or past its width, a non-canonical (over-long) varint, a 32-bit field
 * out of range, or bytes left over. */
int bpage_decode(const uint8_t *p, size_t len, size_t n, trace_block *out);

#ifndef BPAGE_CODEC_ONLY
#include "db.h"

/* ---- writing ---------------------------------------------------------------- */

/* The pages of the run being stored: blocks are buffered until a page is
 * full, so memory stays one page however many blocks come. */
typedef struct bpage_writer {
    db *d;
    int64_t run;
    int64_t seq;                 /* blocks taken so far: the next block's seq */
    size_t n;                    /* blocks in buf (seq - n .. seq - 1) */
    int64_t span;                /* the widest page so far: max(s_hi - s_lo) */
    trace_block buf[BPAGE_BLOCKS];
    uint8_t enc[BPAGE_BLOCKS * BPAGE_MAX_BLOCK_BYTES];
} bpage_writer;

void bpage_writer_init(bpage_writer *w, db *d, int64_t run);

/* Takes blocks b[0..n), numbered from w->seq on. A block with both times
 * known must not end before it starts (the old table's CHECK): such a
 * block is refused with an error naming it. -1 with err set on failure; the
 * caller rolls the run back. */
int bpage_add(bpage_writer *w, const trace_block *b, size_t n, char *err, size_t errlen);

/* Writes the last, partial page and the run's page span. */
int bpage_finish(bpage_writer *w, char *err, size_t errlen);

/* ---- reading ------------------------------------------------------------------ */

/* One block and its seq (its number in the run). Non-zero stops the scan
 * and is returned. */
typedef int (*bpage_cb)(void *ctx, const trace_block *b, int64_t seq);

/* Every block of run `run` in seq order. */
int bpage_scan(db *d, int64_t run, bpage_cb cb, void *ctx, char *err, size_t errlen);

/* The blocks with lo <= start < to and end > from (lo is from minus the
 * run's longest block, so these are the blocks overlapping [from, to)):
 * ordered = true in (start, seq) order, the order of the old ORDER BY
 * start, seq; ordered = false in page order (for sums and counts). At most
 * `limit` blocks (< 0: all). */
int bpage_window(db *d, int64_t run, int64_t lo, int64_t to, int64_t from, bool ordered,
                 int64_t limit, bpage_cb cb, void *ctx, char *err, size_t errlen);

/* The SQL that finds a window's candidate pages (?1 run, ?2 lowest s_lo,
 * ?3 to, ?4 lo, ?5 from), so a test can check its query plan. */
const char *bpage_window_sql(void);

/* Migration: every run's rows of the old `blocks` table into pages, then
 * the table dropped (db.c runs it after db/block_pages.sql). */
int dbi_bpage_migrate(db *d, char *err, size_t errlen);
#endif

#endif
