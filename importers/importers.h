/* importers.h -- hardware trace formats into the trace model (DESIGN §3).
 *
 * Every importer reads bytes already in memory (the CLI reads the file, the
 * server has the upload body), so the same code path serves both. The
 * SQLite-based formats open the bytes with sqlite3_deserialize.
 *
 * Ownership: the caller owns `out` (trace_init'ed, empty); on failure the
 * importer may have written to it and the caller must trace_free it -- the
 * caller stores nothing from a failed import.
 *
 * Errors: -1 and one line in `err` naming the file, the place (line:column,
 * row, table.column) and what is wrong, e.g.
 *   "run.csv:14: column \"Duration\": expected a number, got \"abc\"". */
#ifndef IMPORTERS_H
#define IMPORTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../simcore/trace.h"

/* The formats, one line each: its enum constant and its descriptor
 * (imp_importer, below), defined in the format's own file. A new format is
 * that file plus one line here: names, detection, dispatch, streaming, the
 * several-files rule, the server's messages, /api/capabilities and the
 * upload form all follow this list. Detection tries the descriptors in this
 * order (docs/extending.md, "A trace format"). */
#define IMP_FORMATS(X) \
    X(IMP_EXAMINER_JSON, imp_examiner_json_format)      /* cuda_scheduling_examiner */ \
    X(IMP_GLOBALTIMER_CSV, imp_globaltimer_csv_format)  /* tools/recorder's CSV */ \
    X(IMP_NVPROF_CSV, imp_nvprof_csv_format)            /* nvprof --print-gpu-trace --csv */ \
    X(IMP_NVPROF_SQLITE, imp_nvprof_sqlite_format)      /* nvprof -o / nvvp */ \
    X(IMP_NSYS_SQLITE, imp_nsys_sqlite_format)          /* nsys export --type sqlite */ \
    X(IMP_SCHEDLAB_TRACE, imp_schedlab_trace_format)    /* `schedlab export`, DESIGN §5 */ \
    X(IMP_PYTORCH, imp_pytorch_format)                  /* torch.profiler (libkineto) JSON */

typedef enum imp_format {
    IMP_UNKNOWN = -1,
#define IMP_FORMAT_ENUM(id, desc) id,
    IMP_FORMATS(IMP_FORMAT_ENUM)
#undef IMP_FORMAT_ENUM
    IMP_FORMAT_COUNT
} imp_format;

typedef struct imp_file {
    const char *name;            /* for messages; the base name is enough */
    const unsigned char *data;
    size_t len;
} imp_file;

/* One import's progress and batch sinks (formats.h); NULL: neither. */
typedef struct imp_ctx imp_ctx;

/* A format's reader: fills the empty `out` from nfiles files (one unless
 * the format is multi_file), 0 or -1 with one line in err. */
typedef int (*imp_read_fn)(imp_ctx *cx, const imp_file *files, size_t nfiles, trace *out,
                           char *err, size_t errlen);

/* What a format is, declared once in its own file (IMP_FORMATS above), in
 * the style of simcore's policy tables. */
typedef struct imp_importer {
    const char *name;            /* --format and ?format=, e.g. "nvprof-csv" */
    const char *hint;            /* one line for people: what file this is (the upload form) */
    /* true when the content is this format; imp_detect asks each in order */
    bool (*detect)(const imp_file *f);
    /* a name ending the detection when no content matched (".json"), or NULL */
    const char *suffix;
    imp_read_fn read;
    bool stream;                 /* hands rows over in batches (imp_stream) */
    bool multi_file;             /* several files (or an archive of them) are one run */
    /* the reader opens archives and gzip itself (a .json.gz is one file, a
     * .tar.gz a job), so imp_import hands the files over as uploaded */
    bool own_archives;
    /* streams rows by start, not in file order: after a failed stream the
     * first bad row met need not be the one the whole-file import names
     * (imp_stream.whole_message) */
    bool out_of_order;
    /* the file is the trace model itself (schedlab-trace): kept as read --
     * not re-based, no "origin_ns", "format" or "files" meta added -- so an
     * exported run imported again is the same run */
    bool as_written;
} imp_importer;

#define IMP_FORMAT_DECLARE(id, desc) extern const imp_importer desc;
IMP_FORMATS(IMP_FORMAT_DECLARE)
#undef IMP_FORMAT_DECLARE

/* The descriptor of f, or NULL for IMP_UNKNOWN and out-of-range values. */
const imp_importer *imp_importer_get(imp_format f);
/* "examiner-json, globaltimer-csv, ..." into buf (truncated to fit): the
 * list the messages name. Returns buf. */
const char *imp_format_list(char *buf, size_t len);

/* "examiner-json", "globaltimer-csv", "nvprof-csv", "nvprof-sqlite", "nsys-sqlite",
 * "schedlab-trace", "pytorch" */
const char *imp_format_name(imp_format f);
imp_format imp_format_parse(const char *name);  /* IMP_UNKNOWN if no such name */

/* Detect the format from the content (name only as a last hint). */
imp_format imp_detect(const imp_file *file);

/* Import one run from one or more files of one format. Several files only
 * make sense for examiner-json (one file per stream of one scenario) and
 * pytorch (one file per rank of a job); an archive (.zip/.tar) of such
 * files counts as several files. fmt may be
 * IMP_UNKNOWN: detected from the first file. The trace is re-based so the
 * first event is at 0, with the original origin in t->origin and in the
 * meta key "origin_ns". Returns 0, or -1 with `err` filled. */
int imp_import(imp_format fmt, const imp_file *files, size_t nfiles, trace *out,
               char *err, size_t errlen);

/* Progress of one import (issue 15), so a server job can show how far the
 * parse is: `progress` (may be NULL) is called on the importing thread with
 * a fraction in [0, 1] that never decreases, at most about every 1 % (a
 * hundred calls, whatever the size), and with exactly 1.0 last when the
 * import succeeds. What each format measures: the CSV formats the bytes
 * read, examiner-json the bytes of the files done plus the share of the
 * current file's "times" entries, the SQLite formats the activity rows read
 * of their count(*). A plain function pointer so the importers need nothing
 * of the server. */
typedef void (*imp_progress_fn)(void *user, double fraction);
/* Streaming (issue 9): the formats that can (nvprof-csv, globaltimer-csv,
 * nvprof-sqlite, nsys-sqlite, pytorch; see docs/trace-format.md) hand their kernels,
 * copies and blocks over in batches as they read, so an import's memory
 * does not grow with the file. Every `rows` kernels + copies + blocks,
 * batch(user, t, ...) is called with t's kernels, copies and blocks
 * holding the next rows (t->kernels.v[0] is kernel number `kernels` of the
 * run, copies and blocks likewise: `blocks` below); it stores them and
 * returns 0, or -1 with err filled, which ends the import with that error.
 * After the call the importer empties t's kernels, copies and blocks; the
 * string table, meta and device stay in t to the end. Blocks name kernels
 * by their number in the run (globaltimer-csv hands every kernel over in
 * its first batch, before any block).
 *
 * The run is re-based to its earliest time as imp_import always does, but
 * a stream cannot know that time before the last row: batch times are
 * relative to `base`, the earliest time of the first batch (and
 * t->origin stays 0 until the end). When the import succeeds, t->origin
 * and "origin_ns" hold the true origin and `shift` is what to add to every
 * time already handed over to re-base it (0 unless a later row was earlier
 * than the whole first batch: nvprof lists rows by start). The formats
 * that cannot stream ignore this and fill t whole as before
 * (`streamed` stays false). */
typedef struct imp_stream {
    int (*batch)(void *user, const trace *t, size_t kernels, size_t copies, char *err,
                 size_t errlen);
    void *user;
    size_t rows;                 /* batch size; 0: 65536 */
    /* the files' bytes are read-only file mappings (mmap) the caller owns:
     * the import drops the pages it has read behind itself (madvise
     * MADV_DONTNEED; they come back from the page cache if read again), so
     * a 10 GB file is never resident at once. Never for heap memory:
     * dropping it would zero it. */
    bool mapped;
    /* set by the import */
    bool streamed;               /* batches were used (a streaming format) */
    size_t kernels, copies;      /* rows handed over so far */
    size_t blocks;               /* blocks handed over so far (globaltimer-csv) */
    int64_t base;                /* the origin of the batches' times */
    int64_t shift;               /* after success: add to every handed-over time */
    /* after success: every handed-over time, re-based, is within the range
     * imp_check_trace allows (trace_check.h); when false the caller must
     * not keep the run (import again without streaming for the message) */
    bool range_ok;
    /* after a failure: the message may not be the one the file gets parsed
     * whole (the SQLite formats meet rows by start, not by rowid): import
     * it again without streaming for that message */
    bool whole_message;
} imp_stream;

/* Cancellation of an import under way (a server job cancelled, or the
 * server stopping): asked on the importing thread at the parse's progress
 * points (every 1,024 rows or records, whether or not a progress sink is
 * set); once it answers true the import stops with IMP_CANCELLED in its
 * message and fails. */
typedef bool (*imp_cancel_fn)(void *user);
#define IMP_CANCELLED "the import was cancelled"

typedef struct imp_options {
    imp_progress_fn progress;    /* may be NULL */
    void *user;                  /* passed back to progress and cancelled */
    imp_stream *stream;          /* may be NULL: the trace is filled whole */
    imp_cancel_fn cancelled;     /* may be NULL: never cancelled */
} imp_options;

/* True for the formats that stream (imp_stream; their descriptor's
 * `stream`): nvprof-csv, globaltimer-csv (read twice: checks and kernel
 * summaries, then blocks), nvprof-sqlite and nsys-sqlite (rows by start),
 * pytorch (sorted runs spilled to a temporary file, merged by start at the
 * end; its several rank files too). The JSON ones jansson parses
 * (examiner-json, schedlab-trace) fill the trace whole. */
bool imp_can_stream(imp_format fmt);

/* imp_import with options; opts may be NULL (then it is imp_import). */
int imp_import_opts(imp_format fmt, const imp_file *files, size_t nfiles,
                    const imp_options *opts, trace *out, char *err, size_t errlen);

/* Import warnings: what an import left out of the user's files (an
 * archive's members that are not result files, rows without a GPU
 * interval or timestamps) or filled in by a guess (a GPU the device table
 * does not list), one line each naming the file (or "ARCHIVE(member)") and
 * what and why. Kept in the run's meta (docs/trace-format.md, "Import
 * warnings"): IMP_WARNINGS_KEY holds the first IMP_WARNINGS_SHOWN lines,
 * joined by "\n"; IMP_WARNINGS_TOTAL_KEY how many there were in all
 * (decimal), so a file with a million skipped members costs twenty lines.
 * Both are absent when the import left nothing out. */
#define IMP_WARNINGS_KEY "import_warnings"
#define IMP_WARNINGS_TOTAL_KEY "import_warnings_total"
#define IMP_WARNINGS_SHOWN 20

/* Adds one warning, "FILE: " and the message (control characters
 * escaped, so it stays one line). 0, or -1 out of memory (t->oom set). */
int imp_warn(trace *t, const char *file, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The number of warnings t's meta counts (0 when none). */
long long imp_warnings_total(const trace *t);

#endif
