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

#include "../simcore/trace.h"
#include "jsonr.h"

typedef struct tj_buf {
    char *s;          /* NUL-terminated while !oom */
    size_t len, cap;
    bool oom;         /* sticky: later writes are no-ops */
} tj_buf;

void tj_buf_free(tj_buf *b);
void tj_puts(tj_buf *b, const char *s);              /* raw text */
void tj_putc(tj_buf *b, char c);
void tj_put_str(tj_buf *b, const char *s);           /* JSON string, or null for NULL */
void tj_put_i64(tj_buf *b, int64_t v);               /* null for TRACE_NONE */

/* One record each, as in DESIGN §5 / docs/api.md. */
void tj_put_device(tj_buf *b, const sim_device *d);
void tj_put_kernel(tj_buf *b, const trace *t, size_t i);
void tj_put_block(tj_buf *b, const trace_block *blk);
void tj_put_copy(tj_buf *b, const trace *t, size_t i);
void tj_put_queue_event(tj_buf *b, const trace *t, size_t i);
void tj_put_warp_issue(tj_buf *b, const trace_warp_issue *w);
void tj_put_warp_epoch(tj_buf *b, const trace_warp_epoch *w);
void tj_put_job(tj_buf *b, const trace *t, size_t i);

/* A new reference to the device object (NULL on OOM). */
json_t *tj_device_json(const sim_device *d);
/* A new reference to a JSON string (U+FFFD for bad UTF-8), or null for NULL. */
json_t *tj_string(const char *s);

/* The whole trace as schedlab-trace/1. Returns 0, or -1 on OOM. */
int tj_write_trace(const trace *t, tj_buf *out);

/* Chrome/Perfetto trace-event JSON: pid 1 is the device with one track (tid)
 * per SM holding its blocks; pid 2.. one per process with one track per
 * stream holding kernels and copies; real-time jobs on a last "tasks" pid
 * with one track per task. ts/dur are microseconds written as exact decimals
 * with three fractional digits (ns precision). Returns 0, or -1 on OOM. */
int tj_write_chrome(const trace *t, tj_buf *out);

/* Parse schedlab-trace/1 text into `out` (trace_init'ed, empty; the caller
 * frees it, also on failure). `file` names the input in messages:
 * "FILE:3:14: JSON: ..." or "FILE: kernels[2].issue: expected an integer or null". */
int tj_parse_trace(const char *text, size_t len, const char *file, trace *out, char *err,
                   size_t errlen);

/* Device object (as tj_put_device writes it) into *d; messages go through
 * c at `path` ("trace.json: device.sms: expected a non-negative integer").
 * Missing or null fields are 0 (unknown). Its numeric fields are those of
 * simcore's table (SIM_DEVICE_FIELDS), as tj_put_device writes them. */
int tj_parse_device(jr_ctx *c, json_t *obj, const char *path, sim_device *d);

#endif
