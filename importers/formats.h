/* formats.h -- the importers' internal contract: one reader per format
 * (imp_read_fn, importers.h), named by its descriptor in the format's own
 * file and called by imp_import() (importers.c) after detection. Each fills
 * an empty trace and returns 0, or -1 with one line in err naming file,
 * place and problem. Re-basing and the "origin_ns" meta are done by
 * imp_import. The readers are also called directly (fuzz/, the unit tests)
 * with a NULL context: no progress, no streaming. */
#ifndef IMPORTERS_FORMATS_H
#define IMPORTERS_FORMATS_H

#include <stdarg.h>
#include <stdbool.h>

#include "importers.h"
#include "trace_check.h"

/* The context of one import: its progress sink and its batch sink, made by
 * imp_import_opts on its stack and handed to the reader, which passes it to
 * the calls below. NULL everywhere means neither (every call a no-op). */
struct imp_ctx {
    /* progress.c */
    imp_progress_fn progress;    /* NULL: no sink */
    void *user;
    double last;                 /* the last fraction reported */
    imp_cancel_fn cancelled;     /* NULL: never cancelled */
    unsigned calls;              /* imp_progress_at calls, to ask cancelled every 1,024 */
    bool stop;                   /* cancelled said true */
    /* stream.c */
    imp_stream *s;               /* NULL: not streaming */
    bool have_base;
    int64_t lo, hi;              /* earliest and latest time seen (absolute) */
    size_t dropped;              /* bytes of the mapped file already dropped */
};

int imp_examiner_json(imp_ctx *cx, const imp_file *files, size_t nfiles, trace *out, char *err,
                      size_t errlen);
int imp_globaltimer_csv(imp_ctx *cx, const imp_file *files, size_t nfiles, trace *out, char *err,
                        size_t errlen);
int imp_nvprof_csv(imp_ctx *cx, const imp_file *files, size_t nfiles, trace *out, char *err,
                   size_t errlen);
int imp_nvprof_sqlite(imp_ctx *cx, const imp_file *files, size_t nfiles, trace *out, char *err,
                      size_t errlen);
int imp_nsys_sqlite(imp_ctx *cx, const imp_file *files, size_t nfiles, trace *out, char *err,
                    size_t errlen);
/* pytorch_json.c: one or more rank files (plain, gzipped, or in a zip/tar) */
int imp_pytorch_json(const imp_file *files, size_t nfiles, trace *out, char *err, size_t errlen);
bool imp_pytorch_detect(const unsigned char *data, size_t len);
/* JSON number text in microseconds to exact nanoseconds; 0 or -1 (overflow) */
int imp_pytorch_us_to_ns(const char *s, int64_t *out);

/* errors.c: write "FILE<sep>message" into err as one printable line (control
 * characters escaped) and return -1, so `return imp_error(...)` reads as the
 * failure it is. */
int imp_verror(char *err, size_t errlen, const char *file, const char *sep, const char *fmt,
               va_list ap);
int imp_error(char *err, size_t errlen, const char *file, const char *sep, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* progress.c: the progress sink of an import (importers.h, imp_options),
 * in its context. imp_progress_begin/end bracket one imp_import_opts;
 * imp_progress_at reports done/total of the parse, throttled to 1 % steps
 * and kept below 1.0 (only a finished import reports 1.0) and never
 * decreasing. Without a sink (or a context) every call is a cheap no-op.
 * It also asks imp_options.cancelled, every 1,024 calls and at every
 * report: false once the import is to stop (and from then on), when the
 * format fails with IMP_CANCELLED; true to go on. */
void imp_progress_begin(imp_ctx *cx, const imp_options *opts);
bool imp_progress_at(imp_ctx *cx, double done, double total);
void imp_progress_end(imp_ctx *cx, bool ok);
/* Ask imp_options.cancelled now (where no row is read for a long time: an
 * SQLite sort before its first row); true once the import is to stop. */
bool imp_cancel_now(imp_ctx *cx);
/* True when the import has a sink: work done only to measure progress
 * (the SQLite formats' count(*)) is skipped without one. */
bool imp_progress_active(const imp_ctx *cx);

/* stream.c: the batch sink of an import (importers.h, imp_stream; issue 9),
 * in its context like progress. imp_stream_begin/end bracket one import
 * (NULL: not streaming, and every call below is a no-op returning 0). A
 * streaming format calls
 * imp_stream_rows after adding a row: when a batch is full it is re-based,
 * handed to the caller and emptied, and the first `read` bytes of a mapped
 * `file` (may be NULL) are dropped; imp_stream_flush hands over the rest
 * before the format returns. Both return 0, or -1 with the caller's error
 * in err. imp_stream_end sets t->origin, shift and range_ok. A format
 * counts its rows itself: t's kernels and copies are emptied per batch. */
void imp_stream_begin(imp_ctx *cx, imp_stream *s);
static inline bool imp_stream_active(const imp_ctx *cx) { return cx && cx->s != NULL; }
int imp_stream_rows(imp_ctx *cx, trace *t, const imp_file *file, size_t read, char *err,
                    size_t errlen);
int imp_stream_flush(imp_ctx *cx, trace *t, char *err, size_t errlen);
/* A format that reads its file more than once (globaltimer-csv: summaries,
 * then blocks) drops the pages of a pass behind itself with
 * imp_stream_drop (no-op when not streaming or not mapped) and calls
 * imp_stream_rewind before reading the file again from its start. */
void imp_stream_drop(imp_ctx *cx, const imp_file *file, size_t read);
void imp_stream_rewind(imp_ctx *cx);
/* A format that reads its file out of order (the SQLite ones) drops every
 * page of a mapped file now and then instead; they come back from the page
 * cache when read again, so a read-only mapping stays valid. */
void imp_stream_forget(imp_ctx *cx, const imp_file *f);
void imp_stream_end(imp_ctx *cx, trace *t);

/* devices.c: the GPUs of a trace of several (DESIGN §5, trace.h `devices`)
 * where a format numbers them by CUDA ordinal -- nvprof and nsys deviceId,
 * the "(N)" ending nvprof CSV's Device column -- and a kernel's or copy's
 * `device` is its ordinal, known when its row is read (the rows stream).
 * An ordinal is 0..IMP_MAX_GPUS-1 (trace_check.h): one past is damage, refused with the
 * row, and the bound keeps what a file can make the import allocate small
 * (a sim_device is about 1 KB); pytorch_json.c keeps as many (PT_MAX_DEVS).
 *
 * imp_devices_reserve: as the rows are read, grow t->devices to hold
 * ordinal `ord` (new entries copies of t->device; ordinal 0 alone adds
 * none: a trace of one GPU has no entries), so every batch a stream hands
 * over already indexes entries that exist (trace_check.c checks each
 * batch). The format fills the entries at its end. 0, or -1 out of memory
 * (t->oom).
 * imp_devices_unlisted: the meta key "devices_unlisted" naming the
 * entries whose bit in `listed` is clear ("2, 5": ordinals the file says
 * nothing about, their entry a copy of t->device), and an import warning
 * (imp_warn) naming `file` and `where` the ordinals were looked for; none:
 * neither. 0, or -1 out of memory. */
int imp_devices_reserve(trace *t, int32_t ord);
int imp_devices_unlisted(trace *t, uint64_t listed, const char *file, const char *where);

/* Content sniffers behind the descriptors' detect (true when the bytes look
 * like it). */
int imp_sqlite_kind(const unsigned char *data, size_t len); /* IMP_NVPROF_SQLITE, IMP_NSYS_SQLITE or IMP_UNKNOWN */
/* -1 with one line in err saying why no format takes this SQLite file
 * (unreadable, WAL tables missing, someone else's database) */
int imp_sqlite_unknown(const imp_file *f, char *err, size_t errlen);
/* detect.c: the JSON formats: the bytes (after a BOM and white space) open
 * an object; `schema` is then whether schedlab's "schedlab-trace/1" is
 * named in its first 4 KiB. The text formats: IMP_NVPROF_CSV,
 * IMP_GLOBALTIMER_CSV or IMP_UNKNOWN for bytes that are not SQLite, an
 * archive or a JSON object -- one scan, since which of the two a file is
 * depends on where in it each one's markers come first. */
bool imp_sniff_json_object(const unsigned char *d, size_t len, bool *schema);
imp_format imp_sniff_text(const unsigned char *d, size_t len);
/* detect.c: whether one line (without its newline) is an nvprof GPU-trace
 * header: fields named exactly "Start" and "Duration", quoted or not, in
 * any order and among any others. nvprof prints Start first, quoted; the
 * columns are read by name (nvprof_csv.c), so a table saved by pandas
 * (unquoted) or with its columns reordered is the same table. */
bool imp_nvprof_header_line(const char *s, size_t len);

/* demangle.c: Itanium C++ ABI names ("_Z9vectorAddPKfS0_Pfi") to a display
 * form ("vectorAdd(float const*, float const*, float*, int)"). Writes into
 * buf and returns buf, or returns NULL when `name` is not mangled or cannot
 * be fully demangled (then show the raw name). */
const char *imp_demangle(const char *name, char *buf, size_t buflen);

#endif
