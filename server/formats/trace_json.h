/* trace_json.h -- the trace model as JSON: schedlab-trace/1 (DESIGN §5) both
 * ways, and export to the Chrome/Perfetto trace-event format.
 *
 * Writing streams text into a growable buffer instead of building a jansson
 * tree: a run of ten million blocks would otherwise hold ten million JSON
 * objects. Each record kind has one writer (tj_put_*), used by the trace
 * export and by the API's lists alike, so both always agree.
 *
 * Unknown values (TRACE_NONE, priority TRACE_PRIO_NONE, 0 for "unknown"
 * counts) are written as null and read back as the same unknown value.
 * Strings that are not valid UTF-8 are written with U+FFFD in place of the
 * bad bytes, so the output is always valid JSON.
 *
 * Memory: a tj_buf owns its text; tj_buf_free releases it. */
#ifndef SERVER_TRACE_JSON_H
#define SERVER_TRACE_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../../simcore/trace.h"
#include "jw.h"

/* The writer is jw (jw.h): whole-buffer (`tj_buf b = {0}`), or streaming to
 * a sink, with identical bytes. */
typedef jw_buf tj_buf;

/* The trace document's schema (DESIGN §5) */
#define TJ_SCHEMA "schedlab-trace/1"

void tj_buf_free(tj_buf *b);
void tj_puts(tj_buf *b, const char *s);              /* raw text */
void tj_putc(tj_buf *b, char c);
void tj_put_str(tj_buf *b, const char *s);           /* JSON string, or null for NULL */
void tj_put_i64(tj_buf *b, int64_t v);               /* null for TRACE_NONE */

/* One record each, as in DESIGN §5 / docs/api.md. */
void tj_put_device(tj_buf *b, const sim_device *d);
void tj_put_kernel(tj_buf *b, const trace *t, size_t i);
/* the same with another id: a window's kernels keep their ids in the run */
void tj_put_kernel_id(tj_buf *b, const trace *t, size_t i, int64_t id);
void tj_put_block(tj_buf *b, const trace_block *blk);
void tj_put_copy(tj_buf *b, const trace *t, size_t i);
/* the same with another id: a window's copies keep their ids in the run */
void tj_put_copy_id(tj_buf *b, const trace *t, size_t i, int64_t id);
void tj_put_queue_event(tj_buf *b, const trace *t, size_t i);
void tj_put_warp_issue(tj_buf *b, const trace_warp_issue *w);
void tj_put_warp_epoch(tj_buf *b, const trace_warp_epoch *w);
void tj_put_job(tj_buf *b, const trace *t, size_t i);
/* host_calls[i] (docs/trace-format.md "host_calls"): the export's and
 * GET /api/runs/{run}/host_calls' one writer */
void tj_put_host_call(tj_buf *b, const trace *t, size_t i);

/* A new reference to the device object (NULL on OOM). */
json_t *tj_device_json(const sim_device *d);
/* A new reference to a JSON string (U+FFFD for bad UTF-8), or null for NULL. */
json_t *tj_string(const char *s);

/* The whole trace as schedlab-trace/1. Returns 0, or -1 on OOM (or when a
 * streaming writer's sink failed). With a writer in push mode (jw_init_sink)
 * the text goes out as it is made: memory is the trace plus one chunk. */
int tj_write_trace(const trace *t, tj_buf *out);

/* Make t, in place, the trace that writing it with tj_write_trace and
 * reading the text back with the schedlab-trace/1 importer
 * (IMP_SCHEDLAB_TRACE, importers/schedlab_trace.c) gives, without the text:
 * what the writer leaves out (a kernel's warp and QoS fields outside those
 * runs, a record's device in a trace of one GPU, a host call's fields of
 * another kind) back to the record's default; what JSON cannot say (a
 * non-finite number, an index below -1, an unknown copy direction or queue
 * event) as the reader takes its null or name; each device through its
 * JSON object (the fields it leaves out 0, its SM order refilled); every
 * string as its JSON text reads back (bad UTF-8 repaired), interned anew in
 * the order the reader meets them (so the string ids, which the database
 * keeps, are the reader's) and the strings no record uses dropped. What the
 * reader refuses (a negative dim3 or number, a pause outside its block, a
 * malformed cohort, a blocking call that is no copy, a queue event without
 * a time or queue) is not checked: a simulation does not make them, and
 * imp_check_trace's range checks are the caller's. 0, or -1 with err:
 * out of memory (t->oom then), or a device the reader refuses (more SMs
 * than it keeps; "trace: devices[1].sms: ..."). Blocks are not touched:
 * O(records other than blocks) plus O(strings). */
int tj_as_read(trace *t, char *err, size_t errlen);

/* Where the blocks of a streamed trace come from when they are not in
 * trace->blocks (a simulation's blocks spilled to a file, see
 * `schedlab simulate`): next() sets *v, *n to the next batch (borrowed until
 * the next call), *n = 0 at the end; non-zero on failure. */
typedef struct tj_block_src {
    void *ctx;
    int (*next)(void *ctx, const trace_block **v, size_t *n);
} tj_block_src;

/* schedlab-trace/1 written in steps, for a pull-mode writer (an HTTP
 * response built as it is sent, http_set_stream): tj_stream_step appends
 * records until jw_pending(out) >= until (SIZE_MAX: to the end) and returns
 * 1 while there is more, 0 when the text is complete, -1 on failure. The
 * bytes are those of tj_write_trace, however the steps fall. blocks: NULL
 * for trace->blocks. `t` (and the source) must outlive the stream. */
typedef struct tj_stream {
    const trace *t;
    const tj_block_src *blocks;
    int part;                    /* which array is being written */
    bool open;                   /* its '[' is out */
    size_t i;                    /* records of it written */
    const trace_block *bv;       /* the source's current batch */
    size_t bn, bi;
} tj_stream;
void tj_stream_init(tj_stream *s, const trace *t, const tj_block_src *blocks);
int tj_stream_step(tj_stream *s, tj_buf *out, size_t until);

/* Chrome/Perfetto trace-event JSON: pid 1 is the device with one track (tid)
 * per SM holding its blocks (a cohort run's cohorts, issue 28: one slice
 * per wave of a cohort, its blocks in args.count, after the blocks); pid
 * 2.. one per process with one track per stream holding kernels and copies;
 * real-time jobs on a last "tasks" pid with one track per task. ts/dur are
 * microseconds written as exact decimals with three fractional digits (ns
 * precision). Returns 0, or -1 on OOM. */
int tj_write_chrome(const trace *t, tj_buf *out);

/* The Chrome export in steps, as tj_stream for schedlab-trace/1: init
 * numbers the tracks (0, or -1 on OOM), step appends until
 * jw_pending(out) >= until and returns 1 while there is more, 0 when done,
 * -1 on failure; free releases the track tables. Same bytes as
 * tj_write_chrome however the steps fall. */
typedef struct tj_chrome {
    const trace *t;
    int phase;
    size_t i;
    bool first;                  /* no event written yet */
    struct tj_chrome_state *st;
    const tj_block_src *blocks;  /* NULL: trace->blocks */
    const trace_block *bv;       /* the source's current batch */
    size_t bn, bi;
    int64_t wave;                /* the cohort's next wave (issue 28) */
} tj_chrome;
int tj_chrome_init(tj_chrome *c, const trace *t);
/* The same with the blocks from a source (as tj_stream's) and the highest
 * SM any of them names (-1: none), which the SM tracks come before. */
int tj_chrome_init_src(tj_chrome *c, const trace *t, const tj_block_src *blocks, int32_t top);
int tj_chrome_step(tj_chrome *c, tj_buf *out, size_t until);
void tj_chrome_free(tj_chrome *c);

#endif
