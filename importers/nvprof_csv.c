/* nvprof_csv.c -- `nvprof --print-gpu-trace --csv` logs into the trace model.
 *
 * Layout (../shared/docs/profiler-trace-formats.md §1.2-1.5): "==PID==" or
 * "========" preamble lines (which may hold commas, so they are skipped
 * before tokenising), a header naming "Start" and "Duration" (nvprof
 * quotes them and puts Start first; a table saved again by pandas or a
 * spreadsheet may not, imp_nvprof_header_line), a units
 * row chosen per column per file, then one row per GPU activity. Columns are
 * found by name: 17-, 20-, 22- and wider variants (SrcMemType/DstMemType,
 * Unified Memory, P2P and metric columns) all carry the same named ones.
 *
 * A row is a kernel when "Grid X" is filled, a copy or memset when "Size" is
 * filled, a Unified Memory copy when its name says so and "Unified Memory"
 * holds a byte count; page-fault groups and rows without a duration carry no
 * GPU interval and are counted in the meta key "skipped_rows".
 *
 * The format streams (issue 9, stream.c): after each row imp_stream_rows may
 * hand the rows read so far to the caller and empty the trace's arrays, so
 * rows are counted here, not read back from the trace. Repeated names go
 * through small caches (str_cache) rather than the demangler each row. */
#include "csv.h"
#include "formats.h"
#include "unit_table.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    C_START, C_DURATION, C_GX, C_GY, C_GZ, C_BX, C_BY, C_BZ, C_REGS, C_SSMEM, C_DSMEM,
    C_SIZE, C_DEVICE, C_CONTEXT, C_STREAM, C_NAME, C_CORR, C_UM, C_COUNT
};

static const char *const col_names[C_COUNT] = {
    [C_START] = "Start", [C_DURATION] = "Duration", [C_GX] = "Grid X", [C_GY] = "Grid Y",
    [C_GZ] = "Grid Z", [C_BX] = "Block X", [C_BY] = "Block Y", [C_BZ] = "Block Z",
    [C_REGS] = "Registers Per Thread", [C_SSMEM] = "Static SMem", [C_DSMEM] = "Dynamic SMem",
    [C_SIZE] = "Size", [C_DEVICE] = "Device", [C_CONTEXT] = "Context", [C_STREAM] = "Stream",
    [C_NAME] = "Name", [C_CORR] = "Correlation_ID", [C_UM] = "Unified Memory",
};

/* Strings seen lately, so one that repeats (most kernel names, streams and
 * copy names do, row after row) is demangled and interned once: slots
 * direct-mapped by a hash of the text. Interning is idempotent, so a hit
 * gives the ids a miss would: the trace's string table is the same. */
#define STR_CACHE 64

typedef struct str_slot {
    char *text;                  /* owned; NULL: empty slot */
    trace_str id, raw;           /* a kernel's display name and raw name (0: same) */
} str_slot;

typedef struct str_cache {
    str_slot slot[STR_CACHE];
} str_cache;

static str_slot *cache_slot(str_cache *c, const char *s, bool *hit) {
    uint32_t h = 2166136261u;    /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) h = (h ^ *p) * 16777619u;
    str_slot *sl = &c->slot[h % STR_CACHE];
    *hit = sl->text && strcmp(sl->text, s) == 0;
    return sl;
}

/* Remember `s` in its slot (on failure the slot stays empty: a miss). */
static void cache_keep(str_slot *sl, const char *s, trace_str id, trace_str raw) {
    free(sl->text);
    sl->text = strdup(s);
    sl->id = id;
    sl->raw = raw;
}

static void cache_free(str_cache *c) {
    for (size_t i = 0; i < STR_CACHE; i++) free(c->slot[i].text);
}

/* The id of `s` in t, through the cache. */
static trace_str intern_cached(str_cache *c, trace *t, const char *s) {
    bool hit;
    str_slot *sl = cache_slot(c, s, &hit);
    if (hit) return sl->id;
    trace_str id = trace_intern(t, s);
    if (id) cache_keep(sl, s, id, 0);
    return id;
}

typedef struct nv_ctx {
    const char *file;
    char *err;
    size_t errlen;
    int col[C_COUNT];        /* index in the row, -1 if the file lacks it */
    int64_t mult[C_COUNT];   /* unit multiplier to ns or bytes */
    size_t ncols;
    long header_line;
    str_cache kernels, streams, copies;   /* names of kernels, streams, copies */
} nv_ctx;

static int fail(nv_ctx *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    imp_verror(c->err, c->errlen, c->file, ":", fmt, ap);
    va_end(ap);
    return -1;
}

static bool starts_with(const char *s, size_t len, const char *prefix) {
    size_t n = strlen(prefix);
    return len >= n && memcmp(s, prefix, n) == 0;
}

static bool contains(const char *s, size_t len, const char *needle) {
    size_t n = strlen(needle);
    for (size_t i = 0; i + n <= len; i++)
        if (memcmp(s + i, needle, n) == 0) return true;
    return false;
}

static bool is_blank_line(const char *s, size_t len) {
    for (size_t i = 0; i < len; i++)
        if (s[i] != ' ' && s[i] != '\t') return false;
    return true;
}

/* nvprof's auto-scaled units (s, ms, us, ns; B, KB, MB, GB, TB), read
 * through the one unit table (unit_table.h); KB/MB/GB are binary
 * (verified against the throughput column in profiler-trace-formats.md
 * §1.4). */
static int64_t time_unit(const char *u) { return imp_unit_scale(imp_time_units, u); }
static int64_t size_unit(const char *u) { return imp_unit_scale(imp_size_units, u); }

static const char *cell(const imp_csv *r, const nv_ctx *c, int col) {
    return c->col[col] >= 0 ? r->f[c->col[col]].s : "";
}

/* A filled numeric cell scaled by its column's unit. */
static int scaled(nv_ctx *c, const imp_csv *r, int col, int64_t *out) {
    const char *s = cell(r, c, col);
    if (imp_dec_scaled(s, c->mult[col], out) < 0) {
        char q[64];
        return fail(c, "%ld: column \"%s\": expected a number, got \"%s\"", r->rec_line,
                    col_names[col], imp_quote_value(q, sizeof q, s, 40));
    }
    return 0;
}

static int dim(nv_ctx *c, const imp_csv *r, int col, int32_t *out) {
    const char *s = cell(r, c, col);
    int64_t v;
    if (imp_parse_int64(s, &v) < 0 || v < 1 || v > INT32_MAX) {
        char q[64];
        return fail(c, "%ld: column \"%s\": expected a positive integer, got \"%s\"",
                    r->rec_line, col_names[col], imp_quote_value(q, sizeof q, s, 40));
    }
    *out = (int32_t)v;
    return 0;
}

static int find_header(nv_ctx *c, imp_csv *r) {
    const char *line;
    size_t len;
    while (imp_csv_peek_line(r, &line, &len)) {
        if (contains(line, len, "No kernels were profiled") ||
            contains(line, len, "no kernels were profiled"))
            return fail(c, "%ld: nvprof profiled no kernels (\"No kernels were profiled.\")",
                        r->line);
        if (starts_with(line, len, "==") || is_blank_line(line, len)) {
            imp_csv_skip_line(r);
            continue;
        }
        if (starts_with(line, len, "\"Start\"") || starts_with(line, len, "Start,") ||
            imp_nvprof_header_line(line, len)) {
            char e[256];
            if (imp_csv_next(r, e, sizeof e) < 0) return fail(c, "%s", e);
            return 0;
        }
        if (starts_with(line, len, "\"Type\",\"Time(%)\""))
            return fail(c, "%ld: this is an nvprof summary table; record the trace with "
                           "nvprof --print-gpu-trace --csv", r->line);
        if (starts_with(line, len, "Start (ns)") || starts_with(line, len, "Start(sec)") ||
            starts_with(line, len, "\"Start (ns)\""))
            return fail(c, "%ld: this is an nsys stats CSV, not nvprof; import the nsys "
                           "SQLite export (nsys export --type sqlite) instead", r->line);
        /* application output mixed into the log before the table */
        imp_csv_skip_line(r);
    }
    return fail(c, " no nvprof GPU-trace header (a line starting with \"Start\"); record the "
                   "log with nvprof --print-gpu-trace --csv");
}

static int map_columns(nv_ctx *c, imp_csv *r) {
    for (int k = 0; k < C_COUNT; k++) c->col[k] = -1;
    c->ncols = r->nf;
    c->header_line = r->rec_line;
    for (size_t i = 0; i < r->nf; i++)
        for (int k = 0; k < C_COUNT; k++)
            if (c->col[k] < 0 && strcmp(r->f[i].s, col_names[k]) == 0) c->col[k] = (int)i;
    static const int required[] = {C_START, C_DURATION, C_NAME};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (c->col[required[i]] < 0)
            return fail(c, "%ld: the header has no \"%s\" column", c->header_line,
                        col_names[required[i]]);
    return 0;
}

static int read_units(nv_ctx *c, imp_csv *r) {
    char e[256];
    int rc = imp_csv_next(r, e, sizeof e);
    if (rc < 0) return fail(c, "%s", e);
    if (rc == 0) return fail(c, "%ld: the units row after the header is missing", r->line);
    if (r->nf != c->ncols)
        return fail(c, "%ld: the units row has %zu fields, the header (line %ld) has %zu",
                    r->rec_line, r->nf, c->header_line, c->ncols);
    static const int timed[] = {C_START, C_DURATION};
    static const int sized[] = {C_SSMEM, C_DSMEM, C_SIZE, C_UM};
    for (int k = 0; k < C_COUNT; k++) c->mult[k] = 1;
    for (size_t i = 0; i < sizeof timed / sizeof timed[0]; i++) {
        int k = timed[i];
        const char *u = r->f[c->col[k]].s;
        c->mult[k] = time_unit(u);
        if (!c->mult[k]) {
            char q[64];
            return fail(c, "%ld: column \"%s\": unknown time unit \"%s\" (expected s, ms, us "
                           "or ns in the units row)", r->rec_line, col_names[k],
                        imp_quote_value(q, sizeof q, u, 40));
        }
    }
    for (size_t i = 0; i < sizeof sized / sizeof sized[0]; i++) {
        int k = sized[i];
        if (c->col[k] < 0) continue;
        const char *u = r->f[c->col[k]].s;
        /* an all-empty column may print no unit */
        c->mult[k] = *u ? size_unit(u) : 1;
        if (!c->mult[k]) {
            char q[64];
            return fail(c, "%ld: column \"%s\": unknown size unit \"%s\" (expected B, KB, "
                           "MB or GB)", r->rec_line, col_names[k],
                        imp_quote_value(q, sizeof q, u, 40));
        }
    }
    return 0;
}

/* "GeForce GTX 1080 Ti (0)" + "1" -> "dev0:ctx1": queue names are
 * stream:<process>/<stream>, so the process must stay short and slash-free. */
static trace_str process_name(trace *t, const char *dev, const char *ctx) {
    char buf[160];
    size_t dl = strlen(dev);
    const char *open = dl ? strrchr(dev, '(') : NULL;
    char devpart[96];
    if (open && dev[dl - 1] == ')' && open + 1 < dev + dl - 1) {
        size_t n = (size_t)(dev + dl - 1 - (open + 1));
        bool digits = n < 16;
        for (size_t i = 0; i < n && digits; i++) digits = open[1 + i] >= '0' && open[1 + i] <= '9';
        if (digits) snprintf(devpart, sizeof devpart, "dev%.*s", (int)n, open + 1);
        else snprintf(devpart, sizeof devpart, "%.80s", dev);
    } else {
        snprintf(devpart, sizeof devpart, "%.80s", dl ? dev : "dev");
    }
    for (char *p = devpart; *p; p++)
        if (*p == '/') *p = '_';
    if (*ctx) snprintf(buf, sizeof buf, "%s:ctx%.40s", devpart, ctx);
    else snprintf(buf, sizeof buf, "%s", devpart);
    return trace_intern(t, buf);
}

/* The CUDA ordinal in a Device cell: "GeForce GTX 1080 Ti (0)" is nvprof's
 * "name (deviceId)" (profiler-trace-formats.md §1.3), so the number in the
 * trailing parentheses, and the name before them in *namelen; 0 and the
 * whole cell when it ends in none. -1 for a number past IMP_MAX_GPUS. */
static int32_t device_ordinal(const char *dev, size_t *namelen) {
    size_t dl = strlen(dev);
    *namelen = dl;
    const char *open = dl ? strrchr(dev, '(') : NULL;
    if (!open || dev[dl - 1] != ')' || open + 1 == dev + dl - 1) return 0;
    int64_t v = 0;
    for (const char *p = open + 1; p < dev + dl - 1; p++) {
        if (*p < '0' || *p > '9') return 0;
        v = v * 10 + (*p - '0');
        if (v >= IMP_MAX_GPUS) return -1;
    }
    *namelen = (size_t)(open - dev);
    while (*namelen && dev[*namelen - 1] == ' ') --*namelen;
    return (int32_t)v;
}

static int copy_direction(const char *name) {
    size_t n = strlen(name);
    /* a unified-memory migration is its own kind (issue 28) */
    if (strncmp(name, "[Unified Memory Memcpy", 22) == 0)
        return contains(name, n, "DtoH") ? TRACE_COPY_UVM_D2H
               : contains(name, n, "DtoD") ? TRACE_COPY_UVM_D2D : TRACE_COPY_UVM_H2D;
    if (contains(name, n, "HtoD") || contains(name, n, "Host-to-Device")) return TRACE_COPY_H2D;
    if (contains(name, n, "DtoH") || contains(name, n, "Device-to-Host")) return TRACE_COPY_D2H;
    if (contains(name, n, "DtoD") || contains(name, n, "Device-to-Device")) return TRACE_COPY_D2D;
    if (contains(name, n, "HtoH") || contains(name, n, "Host-to-Host")) return TRACE_COPY_H2H;
    if (contains(name, n, "PtoP") || contains(name, n, "Peer-to-Peer")) return TRACE_COPY_P2P;
    if (contains(name, n, "memset")) return TRACE_COPY_MEMSET;
    return TRACE_COPY_OTHER;
}

/* Old nvprof appends " [corrId]" to kernel names; returns the length
 * without it (pitfall 3: only when there is no Correlation_ID column). */
static size_t strip_corr(const char *s, size_t len) {
    if (len < 4 || s[len - 1] != ']') return len;
    size_t i = len - 1;
    while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9') i--;
    if (i == len - 1 || i < 2 || s[i - 1] != '[' || s[i - 2] != ' ') return len;
    return i - 2;
}

static int add_kernel(nv_ctx *c, const imp_csv *r, trace *t, int64_t start, int64_t dur,
                      trace_str stream, trace_str proc, int32_t device, size_t *rows) {
    int32_t g[3], b[3];
    static const int gc[3] = {C_GX, C_GY, C_GZ}, bc[3] = {C_BX, C_BY, C_BZ};
    for (int i = 0; i < 3; i++) {
        if (c->col[gc[i]] < 0 || c->col[bc[i]] < 0)
            return fail(c, "%ld: a kernel row needs the \"%s\" and \"%s\" columns", r->rec_line,
                        col_names[gc[i]], col_names[bc[i]]);
        if (dim(c, r, gc[i], &g[i]) < 0 || dim(c, r, bc[i], &b[i]) < 0) return -1;
    }
    int64_t regs = 0, ss = 0, ds = 0;
    bool have_smem = false;
    const char *rs = cell(r, c, C_REGS);
    if (*rs && (imp_parse_int64(rs, &regs) < 0 || regs < 0 || regs > INT32_MAX)) {
        char q[64];
        return fail(c, "%ld: column \"%s\": expected a non-negative integer, got \"%s\"",
                    r->rec_line, col_names[C_REGS], imp_quote_value(q, sizeof q, rs, 40));
    }
    if (*cell(r, c, C_SSMEM)) {
        if (scaled(c, r, C_SSMEM, &ss) < 0) return -1;
        have_smem = true;
    }
    if (*cell(r, c, C_DSMEM)) {
        if (scaled(c, r, C_DSMEM, &ds) < 0) return -1;
        have_smem = true;
    }
    if (ss < 0 || ds < 0 || ss > INT64_MAX - ds)
        return fail(c, "%ld: shared memory size out of range", r->rec_line);
    int64_t blocks = 1;
    for (int i = 0; i < 3; i++) {
        if (blocks > INT64_MAX / g[i])
            return fail(c, "%ld: grid %d x %d x %d has more blocks than fit in 64 bits",
                        r->rec_line, g[0], g[1], g[2]);
        blocks *= g[i];
    }

    const char *raw = cell(r, c, C_NAME);
    bool hit;
    str_slot *sl = cache_slot(&c->kernels, raw, &hit);
    trace_kernel *k;
    if (hit) {
        k = trace_add_kernel(t);
        if (k) {
            k->name = sl->id;
            k->raw_name = sl->raw;
        }
        goto fill;
    }
    size_t rawlen = strlen(raw);
    size_t keep = c->col[C_CORR] < 0 ? strip_corr(raw, rawlen) : rawlen;
    char *base = malloc(keep + 1);
    if (!base) return fail(c, "%ld: out of memory", r->rec_line);
    memcpy(base, raw, keep);
    base[keep] = '\0';
    /* names are demangled by nvprof unless --demangling off was given */
    size_t dlen = keep * 4 + 256;
    char *dbuf = malloc(dlen);
    const char *shown = dbuf ? imp_demangle(base, dbuf, dlen) : NULL;
    if (!shown) shown = base;

    k = trace_add_kernel(t);
    if (k) {
        k->name = trace_intern(t, shown);
        k->raw_name = strcmp(shown, raw) == 0 ? 0 : trace_intern(t, raw);
        if (k->name && !t->oom) cache_keep(sl, raw, k->name, k->raw_name);
    }
    free(base);
    free(dbuf);
fill:
    if (k) {
        ++*rows;
        k->stream = stream;
        k->process = proc;
        k->device = device;
        k->first_block = start;
        k->end = start + dur;
        for (int i = 0; i < 3; i++) {
            k->grid[i] = g[i];
            k->block[i] = b[i];
        }
        k->blocks = blocks;
        int64_t threads = (int64_t)b[0] * b[1] * b[2];
        k->threads = threads > INT32_MAX ? 0 : (int32_t)threads;
        k->regs = (int32_t)regs;
        k->smem = have_smem ? ss + ds : TRACE_NONE;
    }
    return 0;
}

int imp_nvprof_csv(imp_ctx *cx, const imp_file *files, size_t nfiles, trace *out, char *err,
                   size_t errlen) {
    (void)nfiles;   /* one file (not multi_file) */
    const imp_file *file = &files[0];
    nv_ctx c;
    memset(&c, 0, sizeof c);
    c.file = file->name ? file->name : "nvprof.csv";
    c.err = err;
    c.errlen = errlen;
    imp_csv r;
    imp_csv_init(&r, (const char *)file->data, file->len);
    int ret = -1;
    /* rows left out: no GPU interval, a copy with no byte count */
    int64_t skipped = 0, no_interval = 0;
    const char *device = NULL;
    char last_dev[128] = "", last_ctx[64] = "";
    trace_str proc = 0;
    bool have_proc = false;
    /* DESIGN §5: a record's index in devices is its GPU's ordinal
     * (device_ordinal), known as its row is read; devices grows to the
     * largest (imp_devices_reserve), each entry a copy of t->device named
     * as the column names that GPU, and an ordinal no row names stays the
     * copy ("devices_unlisted") */
    int32_t ord = 0;
    uint64_t named = 0;               /* ordinals whose name a row gave */
    char (*dev_names)[SIM_DEVICE_NAME_MAX] = NULL;
    /* kernels and copies read: a streaming import (imp_stream) empties the
     * trace's arrays batch by batch */
    size_t rows = 0;
    if (find_header(&c, &r) < 0 || map_columns(&c, &r) < 0 || read_units(&c, &r) < 0) goto done;

    for (;;) {
        if (!imp_progress_at(cx, (double)r.pos, (double)r.len)) {   /* bytes read (issue 15) */
            fail(&c, "%s", IMP_CANCELLED);
            goto done;
        }
        const char *line;
        size_t len;
        if (!imp_csv_peek_line(&r, &line, &len)) break;
        if (starts_with(line, len, "==") || is_blank_line(line, len)) {
            imp_csv_skip_line(&r);
            continue;
        }
        char e[256];
        int rc = imp_csv_next(&r, e, sizeof e);
        if (rc < 0) {
            fail(&c, "%s", e);
            goto done;
        }
        if (rc == 0) break;
        if (r.nf != c.ncols) {
            fail(&c, "%ld: %zu fields, but the header (line %ld) has %zu", r.rec_line, r.nf,
                 c.header_line, c.ncols);
            goto done;
        }
        if (!*cell(&r, &c, C_DURATION)) {   /* CPU page faults: no GPU interval */
            skipped++;
            no_interval++;
            continue;
        }
        int64_t start, dur;
        if (scaled(&c, &r, C_START, &start) < 0 || scaled(&c, &r, C_DURATION, &dur) < 0)
            goto done;
        if (dur < 0 || start > INT64_MAX - dur) {
            fail(&c, "%ld: column \"Duration\": a negative or overflowing duration", r.rec_line);
            goto done;
        }
        const char *dev = cell(&r, &c, C_DEVICE);
        if (*dev && !device) {
            device = dev;
            size_t dl = strlen(dev);
            const char *open = strrchr(dev, '(');
            size_t keep = (open && open > dev && open[-1] == ' ' && dev[dl - 1] == ')')
                              ? (size_t)(open - 1 - dev) : dl;
            char name[256];
            snprintf(name, sizeof name, "%.*s", (int)(keep < 255 ? keep : 255), dev);
            trace_set_meta(out, "device", name);
        }
        const char *st = cell(&r, &c, C_STREAM);
        trace_str stream = *st ? intern_cached(&c.streams, out, st) : 0;
        /* rows repeat one device and context: name the process once */
        const char *ctx = cell(&r, &c, C_CONTEXT);
        if (!have_proc || strcmp(dev, last_dev) != 0 || strcmp(ctx, last_ctx) != 0) {
            size_t nl;
            ord = device_ordinal(dev, &nl);
            if (ord < 0) {
                char q[64];
                fail(&c, "%ld: column \"Device\": \"%s\" ends in a GPU ordinal out of range "
                     "[0, %d]", r.rec_line, imp_quote_value(q, sizeof q, dev, 40),
                     IMP_MAX_GPUS - 1);
                goto done;
            }
            if (!(named >> ord & 1) && *dev) {
                if (!dev_names && !(dev_names = calloc(IMP_MAX_GPUS, sizeof *dev_names))) {
                    fail(&c, "%ld: out of memory", r.rec_line);
                    goto done;
                }
                snprintf(dev_names[ord], sizeof dev_names[ord], "%.*s",
                         (int)(nl < SIM_DEVICE_NAME_MAX ? nl : SIM_DEVICE_NAME_MAX - 1), dev);
                named |= UINT64_C(1) << ord;
            }
            if (imp_devices_reserve(out, ord) < 0) {
                fail(&c, "%ld: out of memory", r.rec_line);
                goto done;
            }
            proc = process_name(out, dev, ctx);
            have_proc = strlen(dev) < sizeof last_dev && strlen(ctx) < sizeof last_ctx;
            if (have_proc) {
                strcpy(last_dev, dev);
                strcpy(last_ctx, ctx);
            }
        }
        const char *name = cell(&r, &c, C_NAME);

        if (*cell(&r, &c, C_GX)) {
            if (add_kernel(&c, &r, out, start, dur, stream, proc, ord, &rows) < 0 ||
                imp_stream_rows(cx, out, file, r.pos, err, errlen) < 0)
                goto done;
            continue;
        }
        int64_t bytes;
        bool um = strncmp(name, "[Unified Memory Memcpy", 22) == 0;
        if (*cell(&r, &c, C_SIZE)) {
            if (scaled(&c, &r, C_SIZE, &bytes) < 0) goto done;
        } else if (um && c.col[C_UM] >= 0 && imp_dec_scaled(cell(&r, &c, C_UM), c.mult[C_UM],
                                                            &bytes) == 0) {
            /* the byte count of a UM migration sits in "Unified Memory" */
        } else {
            skipped++;
            continue;
        }
        trace_copy *cp = trace_add_copy(out);
        if (cp) {
            rows++;
            cp->name = intern_cached(&c.copies, out, name);
            cp->stream = stream;
            cp->process = proc;
            cp->device = ord;
            cp->direction = copy_direction(name);
            cp->bytes = bytes;
            cp->start = start;
            cp->end = start + dur;
        }
        if (imp_stream_rows(cx, out, file, r.pos, err, errlen) < 0) goto done;
    }
    if (rows == 0) {
        fail(&c, " the GPU trace has no kernel or copy rows");
        goto done;
    }
    if (skipped) {
        char num[32];
        snprintf(num, sizeof num, "%lld", (long long)skipped);
        trace_set_meta(out, "skipped_rows", num);
        if (no_interval)
            imp_warn(out, c.file, "%lld row%s left out: an empty \"Duration\" (no GPU "
                     "interval, e.g. a CPU page fault)", (long long)no_interval,
                     no_interval == 1 ? "" : "s");
        if (skipped > no_interval)
            imp_warn(out, c.file, "%lld row%s left out: neither a kernel (no grid size) nor a "
                     "copy with a byte count (\"Size\")", (long long)(skipped - no_interval),
                     skipped - no_interval == 1 ? "" : "s");
    }
    if (out->devices.n) {
        if (imp_devices_unlisted(out, named, c.file, "any row's \"Device\" column") < 0) {
            fail(&c, " out of memory");
            goto done;
        }
        for (size_t i = 0; i < out->devices.n; i++)
            if (named >> i & 1)
                memcpy(out->devices.v[i].name, dev_names[i], sizeof dev_names[i]);
    }
    if (out->oom) {
        fail(&c, " out of memory");
        goto done;
    }
    if (imp_stream_flush(cx, out, err, errlen) < 0) goto done;
    ret = 0;
done:
    free(dev_names);
    cache_free(&c.kernels);
    cache_free(&c.streams);
    cache_free(&c.copies);
    imp_csv_free(&r);
    return ret;
}

static bool detect(const imp_file *f) { return imp_sniff_text(f->data, f->len) == IMP_NVPROF_CSV; }

const imp_importer imp_nvprof_csv_format = {
    .name = "nvprof-csv",
    .hint = "nvprof --print-gpu-trace --csv log (.csv)",
    .detect = detect,
    .read = imp_nvprof_csv,
    .stream = true,
};
