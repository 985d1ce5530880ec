/* pytorch_json.c -- PyTorch profiler traces (torch.profiler / libkineto
 * Chrome-trace JSON, `*.pt.trace.json[.gz]`; issue 29), one file per rank,
 * several files (or a zip / tar archive of them) read as one job.
 *
 * What is read (../shared/docs/pytorch-profiler-trace-format.md, checked
 * against the kineto_* traces of ../shared/traces):
 *   - "X" events of cat kernel / Kernel (2021): a kernel on args.device,
 *     args.stream, with grid, block, "registers per thread" and "shared
 *     memory" (static + dynamic bytes);
 *   - gpu_memcpy / Memcpy and gpu_memset / Memset: copies, their kind from
 *     the name ("Memcpy HtoD (Pinned -> Device)") and args.bytes;
 *   - cuda_runtime / Runtime and cuda_driver: host calls; a GPU event's
 *     launch (issue) time is the start of the call with the same
 *     args.correlation (cudaLaunchKernel, cudaLaunchKernelExC,
 *     cuLaunchKernel, cudaGraphLaunch -- one graph launch correlates with
 *     every kernel of the graph);
 *   - deviceProperties -> the run's device (the GPU with the most kernels)
 *     and the "devices" meta (every GPU used); distributedInfo -> the
 *     "rank"/"world_size" meta and the lanes' process names ("rank0 gpu0");
 *   - baseTimeNanoseconds: PyTorch 2.x writes ts as float microseconds
 *     from it; older traces write integer Unix-epoch microseconds. Both are
 *     read from their decimal text, exactly, to the nanosecond.
 * Everything else (cpu_op, python_function, ac2g flows...) is skipped
 * token by token: the file is never held as a tree (pjson.h), and a .gz
 * is inflated chunk by chunk through libarchive's raw reader.
 *
 * Streaming (importers.h imp_stream; docs/pytorch.md, "Bounded memory"):
 * a file's records wait for its end, where its launch calls, clock base
 * and rank are known (kineto writes GPU events before their calls), in
 * sorted runs spilled to an unlinked temporary file, the calls likewise
 * (runs by correlation id merged into one table); once every file is read
 * and accepted the runs are merged by start and handed over in batches --
 * the order, strings and values the whole import gives. Without a stream
 * the records stay in the trace and are resolved per file (finish_file).
 *
 * Refused, with the reason: a ROCm trace (hip* runtime calls), a CPU-only
 * trace, a trace without GPU events. */
#include <archive.h>
#include <assert.h>
#include <errno.h>
#include <archive_entry.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "archive.h"
#include "formats.h"
#include "pjson.h"
#include "sort_records.h"
#include "tmpfile.h"

#define PT_MAX_DEVS 64
/* each of base and offset below 2^61 ns, so their sum stays inside
 * IMP_MAX_TIME (trace_check.h) */
#define IMP_PT_TMAX (INT64_C(1) << 61)
#define PT_ROCM_MSG "a ROCm trace: hipLaunchKernel calls, no grid or block sizes — schedlab models NVIDIA GPUs"

/* ---- exact decimal times ---------------------------------------------------- */

/* JSON number text in microseconds to nanoseconds, exactly where the text
 * has at most three decimals, rounded half away from zero beyond. 0, or
 * -1 when the value does not fit an int64_t. */
int imp_pytorch_us_to_ns(const char *s, int64_t *out) {
    bool neg = false;
    if (*s == '-') { neg = true; s++; }
    uint64_t m = 0;
    int digits = 0, e10 = 3;
    int round_digit = -1;          /* the first digit dropped, for rounding */
    bool frac = false;
    for (; *s; s++) {
        if (*s == '.') { frac = true; continue; }
        if (*s == 'e' || *s == 'E') break;
        int d = *s - '0';
        if (digits == 0 && d == 0) {
            if (frac) e10--;
            continue;
        }
        if (digits < 19) {
            m = m * 10 + (uint64_t)d;
            digits++;
            if (frac) e10--;
        } else {
            if (!frac) e10++;
            if (round_digit < 0) round_digit = d;
        }
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        bool eneg = *s == '-';
        if (*s == '-' || *s == '+') s++;
        long e = 0;
        for (; *s; s++) {
            if (e < 100000) e = e * 10 + (*s - '0');
        }
        e10 += (int)(eneg ? -e : e);
    }
    if (m == 0) { *out = 0; return 0; }
    if (e10 > 0) {
        for (int i = 0; i < e10; i++) {
            if (m > UINT64_MAX / 10) return -1;
            m *= 10;
        }
        round_digit = -1;
    } else if (e10 < 0) {
        for (int i = 0; i < -e10; i++) {
            round_digit = (int)(m % 10);
            m /= 10;
            if (m == 0 && i > 20) break;
        }
    }
    if (round_digit >= 5) m++;
    if (m > (uint64_t)INT64_MAX) return -1;
    *out = neg ? -(int64_t)m : (int64_t)m;
    return 0;
}

/* An integer-valued JSON number ("3", "3.0", "3e2"); 0 or -1. */
static int num_int(const char *s, int64_t *out) {
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*end == '\0' && errno == 0) { *out = v; return 0; }
    double d = strtod(s, &end);
    if (*end != '\0' || !(d >= -9.2e18 && d <= 9.2e18) || d != (double)(long long)d) return -1;
    *out = (long long)d;
    return 0;
}

/* ---- one file's state ------------------------------------------------------ */

typedef struct pt_dev {
    int64_t id;
    char name[SIM_DEVICE_NAME_MAX];
    int64_t sms, major, minor, max_tpb, tpsm, regs_blk, regs_sm, warp, smem_blk, smem_sm, optin;
} pt_dev;

typedef struct pt_corr { int64_t corr, ts; } pt_corr;

/* A sorted run of records (or calls) in the spill file (pt_spill, below). */
typedef struct pt_run {
    uint64_t off;                  /* byte offset in the spill file */
    size_t n;                      /* records */
    uint32_t file;
} pt_run;


/* Per GPU record, what is resolved at the end of its file: the launch
 * call, the lane, the clock base. */
typedef struct pt_side {
    int64_t corr;
    int64_t dev;
    uint32_t file;
    bool has_corr;
} pt_side;

typedef struct pt_file {
    const char *name;
    int64_t base;                  /* baseTimeNanoseconds; 0 if absent */
    bool has_base;
    bool has_rank, has_world, has_devprops;
    int64_t rank, world;
    char backend[32];
    pt_dev devs[PT_MAX_DEVS];
    size_t ndevs;
    TRACE_VEC(pt_corr) calls;      /* runtime + driver calls with a correlation */
    size_t hip_calls, cpu_events, runtime_events;
    size_t before_window, unmatched;  /* this file's share of pt_ctx's counts */
    int64_t min_call_corr;
    size_t k0, c0;                 /* this file's first kernel and copy */
    size_t nk, nc;                 /* this file's kernels and copies */
    /* streaming: the calls of a file with more than a run of them, spilled
     * in runs sorted by correlation id, then merged into one table in the
     * temporary file (the earliest call of each id), found through an
     * index of every CALL_BLOCK-th id (stream_calls) */
    struct pt_runs { struct pt_run *v; size_t n, cap; } call_runs;
    uint64_t table_off;
    size_t table_n;
    int64_t *index;                /* the first id of each block of the table */
    size_t nindex;
    struct pt_corr *block;         /* the block last read */
    size_t block_no;               /* its number + 1; 0: none read */
} pt_file;

/* A GPU (file, device) with its kernels and copies, in the order its first
 * kernel (pt_ctx.kuse) or copy (cuse) came in the files: the "devices"
 * meta and the lane names follow that order (describe_devices, lanes). */
typedef struct pt_use {
    uint32_t file;
    int64_t dev;
    size_t n;
} pt_use;

/* The GPUs of a job of several (DESIGN §5, trace.devices): one per
 * distinct lane, (rank, gpu) -- "rank0 gpu0", "rank1 gpu1"; (file, gpu) for
 * files without distributedInfo -- in that order; a (file, device) pair of
 * the records maps to its lane's index (list_gpus). Sorted by (file, dev)
 * for gpu_index; none for one GPU. */
typedef struct pt_gpu {
    uint32_t file;
    int64_t dev;
    int64_t order;                 /* the lane: its rank, else (1 << 40) + the file */
    int32_t index;
} pt_gpu;

/* Streaming (importers.h imp_stream): a file's GPU records are kept until
 * its end (the launch call, the clock base and the rank may come after
 * them), in sorted runs of at most run_rows records spilled to an unlinked
 * temporary file; the runs of every file are merged by start at the end
 * and handed over in batches. */

typedef struct pt_spill {
    int fd;                        /* -1 until the first run is written */
    uint64_t end;                  /* bytes written */
    struct pt_runs kruns;
    struct pt_runs cruns;
    size_t run_rows;
} pt_spill;

typedef struct pt_ctx {
    trace *t;
    char *err;
    size_t errlen;
    pt_file *f;                    /* the file being read */
    uint32_t fileno;
    pj_reader r;
    TRACE_VEC(pt_side) kside;
    TRACE_VEC(pt_side) cside;
    size_t event;                  /* index in traceEvents */
    size_t comm;                   /* communication kernels */
    size_t before_window, unmatched;
    /* progress over all files: compressed bytes */
    double done_before, total;
    struct archive *gz;
    bool gz_started;        /* the first inflated block was handed over (its BOM passed) */
    const imp_file *file;
    /* the current event */
    char ph[4], cat[24];
    char *name;
    size_t name_len, name_cap;
    bool has_ts, has_dur, has_dev, has_stream, has_corr, has_bytes, has_regs, has_smem;
    int64_t ts, dur, dev, stream, corr, bytes, regs, smem, tid, pid;
    bool has_tid;
    int32_t grid[3], block[3];
    bool has_grid, has_block;
    imp_ctx *cx;                 /* the import's progress sink (NULL: none) */
    TRACE_VEC(pt_use) kuse;
    TRACE_VEC(pt_use) cuse;
    size_t kuse_last, cuse_last;   /* the last one found, tried first */
    bool streaming;                /* imp_stream_active: batches, spilled runs */
    bool droppable;                /* the file may be a mapping (the caller's, or an
                                      archive member's temporary file) */
    pt_spill sp;
    pt_file *files;                /* every file's tables, for the merge */
    pt_gpu *gpus;                  /* several GPUs: every (file, device) pair's index */
    size_t ngpus;
} pt_ctx;

/* The index in trace.devices of device `dev` of file `file` (0 for one GPU). */
static int32_t gpu_index(const pt_ctx *c, uint32_t file, int64_t dev) {
    size_t lo = 0, hi = c->ngpus;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const pt_gpu *g = &c->gpus[mid];
        if (g->file < file || (g->file == file && g->dev < dev)) lo = mid + 1;
        else hi = mid;
    }
    return lo < c->ngpus ? c->gpus[lo].index : 0;
}

#define VEC_PUSH(vec, val, okvar) do { \
    if ((vec).n == (vec).cap) { \
        size_t nc_ = (vec).cap ? (vec).cap * 2 : 256; \
        void *nv_ = realloc((vec).v, nc_ * sizeof *(vec).v); \
        if (!nv_) { okvar = false; break; } \
        (vec).v = nv_; (vec).cap = nc_; \
    } \
    (vec).v[(vec).n++] = (val); \
} while (0)

/* "FILE: message" into the caller's buffer. fail() is -1, written at the
 * call so that every reader of `rc = ok ? 0 : fail(...)` sees it, the
 * static analyzer too (`make analyze`: it does not follow variadic calls). */
static void fail_msg(pt_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail_msg(pt_ctx *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    imp_verror(c->err, c->errlen, c->f ? c->f->name : "input", ": ", fmt, ap);
    va_end(ap);
}
#define fail(c, ...) (fail_msg((c), __VA_ARGS__), -1)

static int json_fail(pt_ctx *c) {
    const char *m = c->r.err[0] ? c->r.err : "malformed JSON";
    /* a .json.gz's offsets count the inflated text, which the file on disk
     * is not: "byte 500000" of a 60 KB file is no place anyone can find */
    const char *colon = c->gz && strncmp(m, "byte ", 5) == 0 ? strchr(m, ':') : NULL;
    if (colon)
        return fail(c, "%.*s of the decompressed JSON%s", (int)(colon - m), m, colon);
    return fail(c, "%s", m);
}

static int event_fail(pt_ctx *c, const char *field, const char *what) {
    return fail(c, "traceEvents[%zu].%s: %s", c->event, field, what);
}

/* ---- reading values ---------------------------------------------------------- */

static int want_int(pt_ctx *c, pj_tok t, const char *field, int64_t *v) {
    if (t != PJ_NUMBER || num_int(c->r.str, v) < 0) {
        if (t == PJ_ERROR) return json_fail(c);
        char what[96];
        snprintf(what, sizeof what, "expected an integer, got %s%.40s%s",
                 t == PJ_NUMBER || t == PJ_STRING ? "\"" : "",
                 t == PJ_NUMBER || t == PJ_STRING ? c->r.str : "another value",
                 t == PJ_NUMBER || t == PJ_STRING ? "\"" : "");
        return event_fail(c, field, what);
    }
    return 0;
}

static int want_time(pt_ctx *c, pj_tok t, const char *field, int64_t *v) {
    if (t == PJ_ERROR) return json_fail(c);
    if (t != PJ_NUMBER) return event_fail(c, field, "expected a number of microseconds");
    if (imp_pytorch_us_to_ns(c->r.str, v) < 0 || *v > IMP_PT_TMAX || *v < -IMP_PT_TMAX)
        return event_fail(c, field, "out of range");
    return 0;
}

/* [x, y, z] of positive integers within CUDA's limits. */
static int want_dim3(pt_ctx *c, pj_tok t, const char *field, int32_t d[3]) {
    if (t == PJ_ERROR) return json_fail(c);
    if (t != PJ_ARR) return event_fail(c, field, "expected [x, y, z]");
    int n = 0;
    for (;;) {
        t = pj_next(&c->r);
        if (t == PJ_ARR_END) break;
        int64_t v = 0;
        if (want_int(c, t, field, &v) < 0) return -1;
        if (n >= 3) return event_fail(c, field, "more than three dimensions");
        if (v < 0 || v > INT32_MAX) return event_fail(c, field, "a dimension out of range");
        d[n++] = (int32_t)v;
    }
    if (n != 3) return event_fail(c, field, "expected three dimensions");
    return 0;
}

static void copy_str(char *dst, size_t cap, const char *s) {
    size_t n = strlen(s);
    if (n >= cap) n = cap - 1;
    memcpy(dst, s, n);
    dst[n] = '\0';
}

static int read_args(pt_ctx *c) {
    for (;;) {
        pj_tok t = pj_next(&c->r);
        if (t == PJ_OBJ_END) return 0;
        if (t != PJ_KEY) return json_fail(c);
        const char *k = c->r.str;
        int r = 0;
        int64_t v;
        if (strcmp(k, "device") == 0) {
            t = pj_next(&c->r);
            if (t == PJ_NUMBER) { r = want_int(c, t, "args.device", &c->dev); c->has_dev = true; }
            else r = pj_skip(&c->r, t) < 0 ? json_fail(c) : 0;
        } else if (strcmp(k, "stream") == 0) {
            /* ROCm writes "0x0" for the runtime call's stream: only numbers count */
            t = pj_next(&c->r);
            if (t == PJ_NUMBER) { r = want_int(c, t, "args.stream", &c->stream); c->has_stream = true; }
            else r = pj_skip(&c->r, t) < 0 ? json_fail(c) : 0;
        } else if (strcmp(k, "correlation") == 0) {
            t = pj_next(&c->r);
            if (t == PJ_NUMBER) { r = want_int(c, t, "args.correlation", &c->corr); c->has_corr = true; }
            else r = pj_skip(&c->r, t) < 0 ? json_fail(c) : 0;
        } else if (strcmp(k, "grid") == 0) {
            r = want_dim3(c, pj_next(&c->r), "args.grid", c->grid);
            c->has_grid = r == 0;
        } else if (strcmp(k, "block") == 0) {
            r = want_dim3(c, pj_next(&c->r), "args.block", c->block);
            c->has_block = r == 0;
        } else if (strcmp(k, "registers per thread") == 0) {
            r = want_int(c, pj_next(&c->r), "args.registers per thread", &v);
            if (r == 0 && (v < 0 || v > 65536)) r = event_fail(c, "args.registers per thread", "out of range");
            if (r == 0) { c->regs = v; c->has_regs = true; }   /* kept only when read */
        } else if (strcmp(k, "shared memory") == 0) {
            r = want_int(c, pj_next(&c->r), "args.shared memory", &v);
            if (r == 0 && (v < 0 || v > ((int64_t)1 << 40))) r = event_fail(c, "args.shared memory", "out of range");
            if (r == 0) { c->smem = v; c->has_smem = true; }   /* kept only when read */
        } else if (strcmp(k, "bytes") == 0) {
            r = want_int(c, pj_next(&c->r), "args.bytes", &v);
            if (r == 0 && (v < 0 || v > ((int64_t)1 << 50))) r = event_fail(c, "args.bytes", "out of range");
            if (r == 0) { c->bytes = v; c->has_bytes = true; }   /* kept only when read */
        } else {
            r = pj_skip(&c->r, pj_next(&c->r)) < 0 ? json_fail(c) : 0;
        }
        if (r < 0) return -1;
    }
}

/* "stream 7" (2021 traces) or 7. */
static void read_tid(pt_ctx *c, pj_tok t) {
    c->has_tid = false;
    const char *s = c->r.str;
    if (t == PJ_STRING) {
        if (strncmp(s, "stream ", 7) != 0) return;
        s += 7;
    } else if (t != PJ_NUMBER) {
        return;
    }
    if (num_int(s, &c->tid) == 0) c->has_tid = true;
}

static int read_event(pt_ctx *c) {
    c->ph[0] = c->cat[0] = '\0';
    c->name_len = 0;
    if (c->name) c->name[0] = '\0';
    c->has_ts = c->has_dur = c->has_dev = c->has_stream = c->has_corr = false;
    c->has_bytes = c->has_regs = c->has_smem = c->has_grid = c->has_block = c->has_tid = false;
    c->regs = c->smem = c->bytes = 0;
    for (;;) {
        pj_tok t = pj_next(&c->r);
        if (t == PJ_OBJ_END) return 0;
        if (t != PJ_KEY) return json_fail(c);
        const char *k = c->r.str;
        int r = 0;
        if (k[0] == 'p' && k[1] == 'h' && !k[2]) {
            t = pj_next(&c->r);
            if (t == PJ_STRING) copy_str(c->ph, sizeof c->ph, c->r.str);
            else if (pj_skip(&c->r, t) < 0) r = json_fail(c);
        } else if (strcmp(k, "cat") == 0) {
            t = pj_next(&c->r);
            if (t == PJ_STRING) copy_str(c->cat, sizeof c->cat, c->r.str);
            else if (pj_skip(&c->r, t) < 0) r = json_fail(c);
        } else if (strcmp(k, "name") == 0) {
            t = pj_next(&c->r);
            if (t == PJ_STRING) {
                size_t n = c->r.len;
                if (n + 1 > c->name_cap) {
                    size_t nc = c->name_cap ? c->name_cap : 256;
                    while (nc < n + 1) nc *= 2;
                    char *nn = realloc(c->name, nc);
                    if (!nn) return fail(c, "out of memory");
                    c->name = nn;
                    c->name_cap = nc;
                }
                memcpy(c->name, c->r.str, n + 1);
                c->name_len = n;
            } else if (pj_skip(&c->r, t) < 0) {
                r = json_fail(c);
            }
        } else if (strcmp(k, "ts") == 0) {
            r = want_time(c, pj_next(&c->r), "ts", &c->ts);
            c->has_ts = true;
        } else if (strcmp(k, "dur") == 0) {
            r = want_time(c, pj_next(&c->r), "dur", &c->dur);
            c->has_dur = true;
        } else if (strcmp(k, "tid") == 0) {
            t = pj_next(&c->r);
            read_tid(c, t);
            if (pj_skip(&c->r, t) < 0) r = json_fail(c);
        } else if (strcmp(k, "args") == 0) {
            t = pj_next(&c->r);
            if (t == PJ_OBJ) r = read_args(c);
            else if (pj_skip(&c->r, t) < 0) r = json_fail(c);
        } else {
            if (pj_skip(&c->r, pj_next(&c->r)) < 0) r = json_fail(c);
        }
        if (r < 0) return -1;
    }
}

enum { EV_OTHER, EV_KERNEL, EV_MEMCPY, EV_MEMSET, EV_CALL, EV_CPU };

static int event_kind(const char *cat) {
    if (!strcmp(cat, "kernel") || !strcmp(cat, "Kernel")) return EV_KERNEL;
    if (!strcmp(cat, "gpu_memcpy") || !strcmp(cat, "Memcpy")) return EV_MEMCPY;
    if (!strcmp(cat, "gpu_memset") || !strcmp(cat, "Memset")) return EV_MEMSET;
    if (!strcmp(cat, "cuda_runtime") || !strcmp(cat, "Runtime") || !strcmp(cat, "cuda_driver"))
        return EV_CALL;
    if (!strcmp(cat, "cpu_op") || !strcmp(cat, "Operator") || !strcmp(cat, "python_function") ||
        !strcmp(cat, "user_annotation"))
        return EV_CPU;
    return EV_OTHER;
}

/* NCCL's kernels: "ncclKernel_..." (older), "ncclDevKernel_..." (newer),
 * sometimes with "void " in front (pytorch-profiler-trace-format.md,
 * "Variations"). The summary (simcore/summary.c) uses the same rule. */
static bool comm_name(const char *n) {
    if (strncmp(n, "void ", 5) == 0) n += 5;
    return strncmp(n, "nccl", 4) == 0;
}

static int copy_kind(const char *name, bool memset_) {
    if (memset_) return TRACE_COPY_MEMSET;
    /* "Memcpy HtoD (Pinned -> Device)", "Memcpy DtoH (Device -> Pageable)" */
    static const struct { const char *k; int dir; } kinds[] = {
        { "HtoD", TRACE_COPY_H2D }, { "DtoH", TRACE_COPY_D2H }, { "DtoD", TRACE_COPY_D2D },
        { "HtoH", TRACE_COPY_H2H }, { "PtoP", TRACE_COPY_P2P },
    };
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (strstr(name, kinds[i].k)) return kinds[i].dir;
    return TRACE_COPY_OTHER;
}

/* Count a kernel or copy of (file, dev) in uses (kuse or cuse). */
static bool count_use(pt_ctx *c, bool kernel, uint32_t file, int64_t dev) {
    size_t *last = kernel ? &c->kuse_last : &c->cuse_last;
    pt_use *v = kernel ? c->kuse.v : c->cuse.v;
    size_t n = kernel ? c->kuse.n : c->cuse.n;
    if (*last < n && v[*last].file == file && v[*last].dev == dev) {
        v[*last].n++;
        return true;
    }
    for (size_t i = 0; i < n; i++)
        if (v[i].file == file && v[i].dev == dev) {
            v[i].n++;
            *last = i;
            return true;
        }
    bool ok = true;
    pt_use u = { file, dev, 1 };
    if (kernel) VEC_PUSH(c->kuse, u, ok);
    else VEC_PUSH(c->cuse, u, ok);
    *last = n;
    return ok;
}

static int spill_rows(pt_ctx *c);
static int spill_calls(pt_ctx *c);

static int add_gpu_event(pt_ctx *c, int kind) {
    const char *what = kind == EV_KERNEL ? "kernel" : kind == EV_MEMCPY ? "memcpy" : "memset";
    if (!c->has_ts) return fail(c, "traceEvents[%zu] (%s): no ts", c->event, what);
    if (!c->has_dur) return fail(c, "traceEvents[%zu] (%s): no dur", c->event, what);
    if (c->dur < 0) return event_fail(c, "dur", "negative");
    if (c->ts > IMP_PT_TMAX - c->dur) return event_fail(c, "dur", "out of range");
    int64_t stream = c->has_stream ? c->stream : c->has_tid ? c->tid : -1;
    char sbuf[24];
    trace_str sname = 0;
    if (stream >= 0) {
        int w = snprintf(sbuf, sizeof sbuf, "%lld", (long long)stream);
        sname = trace_intern_n(c->t, sbuf, (size_t)w);
    }
    pt_side side = { c->corr, c->has_dev ? c->dev : -1, c->fileno, c->has_corr };
    bool ok = true;
    const char *name = c->name ? c->name : "";
    if (kind == EV_KERNEL) {
        trace_kernel *k = trace_add_kernel(c->t);
        if (!k) return fail(c, "out of memory");
        char dbuf[16384];
        const char *shown = imp_demangle(name, dbuf, sizeof dbuf);
        k->name = trace_intern(c->t, shown ? shown : name);
        if (shown) k->raw_name = trace_intern(c->t, name);
        k->stream = sname;
        k->first_block = c->ts;
        k->end = c->ts + c->dur;
        if (c->has_grid) {
            memcpy(k->grid, c->grid, sizeof k->grid);
            k->blocks = (int64_t)c->grid[0] * c->grid[1] * c->grid[2];
        }
        if (c->has_block) {
            memcpy(k->block, c->block, sizeof k->block);
            int64_t th = (int64_t)c->block[0] * c->block[1] * c->block[2];
            k->threads = th <= INT32_MAX ? (int32_t)th : 0;
        }
        if (c->has_regs) k->regs = (int32_t)c->regs;
        if (c->has_smem) k->smem = c->smem;
        if (comm_name(name)) c->comm++;
        VEC_PUSH(c->kside, side, ok);
    } else {
        trace_copy *cp = trace_add_copy(c->t);
        if (!cp) return fail(c, "out of memory");
        cp->name = trace_intern(c->t, name);
        cp->stream = sname;
        cp->direction = copy_kind(name, kind == EV_MEMSET);
        cp->bytes = c->has_bytes ? c->bytes : 0;
        cp->start = c->ts;
        cp->end = c->ts + c->dur;
        VEC_PUSH(c->cside, side, ok);
    }
    if (kind == EV_KERNEL) c->f->nk++;
    else c->f->nc++;
    if (ok) ok = count_use(c, kind == EV_KERNEL, side.file, side.dev);
    if (!ok || c->t->oom) return fail(c, "out of memory");
    /* streaming: a full run's records are sorted and spilled */
    if (c->streaming && c->t->kernels.n + c->t->copies.n >= c->sp.run_rows) return spill_rows(c);
    return 0;
}

static int read_events(pt_ctx *c) {
    pj_tok t = pj_next(&c->r);
    if (t == PJ_ERROR) return json_fail(c);
    if (t != PJ_ARR) return fail(c, "traceEvents: expected an array");
    for (c->event = 0;; c->event++) {
        t = pj_next(&c->r);
        if (t == PJ_ARR_END) return 0;
        if (t == PJ_ERROR) return json_fail(c);
        /* the pages of a mapped file read so far are not read again */
        if ((c->event & 4095) == 0 && c->streaming && c->droppable)
            imp_stream_drop(c->cx, c->file, c->gz ? (size_t)archive_filter_bytes(c->gz, -1)
                                                  : (size_t)pj_offset(&c->r));
        if ((c->event & 4095) == 0 && imp_progress_active(c->cx)) {
            double done = c->gz ? (double)archive_filter_bytes(c->gz, -1)
                                : (double)pj_offset(&c->r);
            if (!imp_progress_at(c->cx, c->done_before + done, c->total))
                return fail(c, "%s", IMP_CANCELLED);
        }
        if (t != PJ_OBJ) {
            if (pj_skip(&c->r, t) < 0) return json_fail(c);
            continue;
        }
        if (read_event(c) < 0) return -1;
        int kind = event_kind(c->cat);
        if (kind == EV_OTHER) continue;
        if (kind == EV_CPU) {
            c->f->cpu_events++;
            continue;
        }
        /* complete events only: "X" (kineto writes its GPU and API
         * activities so); flows and instant events carry no duration */
        if (strcmp(c->ph, "X") != 0) continue;
        if (kind == EV_CALL) {
            c->f->runtime_events++;
            if (strncmp(c->name ? c->name : "", "hip", 3) == 0) c->f->hip_calls++;
            if (c->has_corr && c->has_ts) {
                bool ok = true;
                pt_corr pc = { c->corr, c->ts };
                VEC_PUSH(c->f->calls, pc, ok);
                if (!ok) return fail(c, "out of memory");
                if (c->streaming && c->f->calls.n >= c->sp.run_rows && spill_calls(c) < 0)
                    return -1;
            }
            continue;
        }
        if (add_gpu_event(c, kind) < 0) return -1;
    }
}

static int read_device(pt_ctx *c, size_t index) {
    pt_dev d;
    memset(&d, 0, sizeof d);
    d.id = (int64_t)index;
    static const struct { const char *key; size_t off; } fields[] = {
        { "id", offsetof(pt_dev, id) },
        { "numSms", offsetof(pt_dev, sms) },
        { "computeMajor", offsetof(pt_dev, major) },
        { "computeMinor", offsetof(pt_dev, minor) },
        { "maxThreadsPerBlock", offsetof(pt_dev, max_tpb) },
        { "maxThreadsPerMultiprocessor", offsetof(pt_dev, tpsm) },
        { "regsPerBlock", offsetof(pt_dev, regs_blk) },
        { "regsPerMultiprocessor", offsetof(pt_dev, regs_sm) },
        { "warpSize", offsetof(pt_dev, warp) },
        { "sharedMemPerBlock", offsetof(pt_dev, smem_blk) },
        { "sharedMemPerMultiprocessor", offsetof(pt_dev, smem_sm) },
        { "sharedMemPerBlockOptin", offsetof(pt_dev, optin) },
    };
    for (;;) {
        pj_tok t = pj_next(&c->r);
        if (t == PJ_OBJ_END) break;
        if (t != PJ_KEY) return json_fail(c);
        char key[48];
        copy_str(key, sizeof key, c->r.str);
        t = pj_next(&c->r);
        if (t == PJ_ERROR) return json_fail(c);
        if (strcmp(key, "name") == 0 && t == PJ_STRING) {
            copy_str(d.name, sizeof d.name, c->r.str);
            continue;
        }
        bool done = false;
        for (size_t i = 0; i < sizeof fields / sizeof *fields && !done; i++) {
            if (strcmp(key, fields[i].key) != 0) continue;
            int64_t v;
            if (t != PJ_NUMBER || num_int(c->r.str, &v) < 0 || v < 0 || v > ((int64_t)1 << 50))
                return fail(c, "deviceProperties[%zu].%s: expected a non-negative integer", index, key);
            memcpy((char *)&d + fields[i].off, &v, sizeof v);
            done = true;
        }
        if (!done && pj_skip(&c->r, t) < 0) return json_fail(c);
    }
    if (c->f->ndevs < PT_MAX_DEVS) c->f->devs[c->f->ndevs++] = d;
    return 0;
}

static int read_distributed(pt_ctx *c) {
    for (;;) {
        pj_tok t = pj_next(&c->r);
        if (t == PJ_OBJ_END) return 0;
        if (t != PJ_KEY) return json_fail(c);
        char key[32];
        copy_str(key, sizeof key, c->r.str);
        t = pj_next(&c->r);
        if (t == PJ_ERROR) return json_fail(c);
        int64_t v;
        if (strcmp(key, "rank") == 0 || strcmp(key, "world_size") == 0) {
            if (t != PJ_NUMBER || num_int(c->r.str, &v) < 0 || v < 0 || v > (1 << 24))
                return fail(c, "distributedInfo.%s: expected a non-negative integer", key);
            if (key[0] == 'r') { c->f->rank = v; c->f->has_rank = true; }
            else { c->f->world = v; c->f->has_world = true; }
        } else if (strcmp(key, "backend") == 0 && t == PJ_STRING) {
            copy_str(c->f->backend, sizeof c->f->backend, c->r.str);
        } else if (pj_skip(&c->r, t) < 0) {
            return json_fail(c);
        }
    }
}

static int read_top(pt_ctx *c) {
    pj_tok t = pj_next(&c->r);
    if (t == PJ_ERROR) return json_fail(c);
    if (t != PJ_OBJ) return fail(c, "not a PyTorch profiler trace: the top level is not an object");
    bool events = false;
    for (;;) {
        t = pj_next(&c->r);
        if (t == PJ_OBJ_END) break;
        if (t != PJ_KEY) return json_fail(c);
        if (strcmp(c->r.str, "traceEvents") == 0) {
            if (read_events(c) < 0) return -1;
            events = true;
        } else if (strcmp(c->r.str, "deviceProperties") == 0) {
            t = pj_next(&c->r);
            if (t != PJ_ARR) return t == PJ_ERROR ? json_fail(c) : fail(c, "deviceProperties: expected an array");
            c->f->has_devprops = true;
            for (size_t i = 0;; i++) {
                t = pj_next(&c->r);
                if (t == PJ_ARR_END) break;
                if (t == PJ_OBJ) {
                    if (read_device(c, i) < 0) return -1;
                } else if (pj_skip(&c->r, t) < 0) {
                    return json_fail(c);
                }
            }
        } else if (strcmp(c->r.str, "distributedInfo") == 0) {
            t = pj_next(&c->r);
            if (t == PJ_OBJ) {
                if (read_distributed(c) < 0) return -1;
            } else if (pj_skip(&c->r, t) < 0) {
                return json_fail(c);
            }
        } else if (strcmp(c->r.str, "baseTimeNanoseconds") == 0) {
            t = pj_next(&c->r);
            if (t != PJ_NUMBER || num_int(c->r.str, &c->f->base) < 0 || c->f->base < 0 ||
                c->f->base > IMP_PT_TMAX)
                return t == PJ_ERROR ? json_fail(c) : fail(c, "baseTimeNanoseconds: expected a non-negative integer");
            c->f->has_base = true;
        } else if (pj_skip(&c->r, pj_next(&c->r)) < 0) {
            return json_fail(c);
        }
    }
    t = pj_next(&c->r);
    if (t != PJ_END) return json_fail(c);
    if (!events) return fail(c, "not a PyTorch profiler trace: no traceEvents array");
    return 0;
}

/* ---- input: plain bytes, or gzip inflated chunk by chunk ------------------- */

static int gz_refill(void *user, const unsigned char **buf, size_t *len) {
    pt_ctx *c = user;
    const void *b;
    size_t n;
    la_int64_t off;
    int r;
    for (;;) {
        r = archive_read_data_block(c->gz, &b, &n, &off);
        if (r == ARCHIVE_EOF) {
            *len = 0;
            return 0;
        }
        if (r < ARCHIVE_WARN) {
            const char *m = archive_error_string(c->gz);
            pj_fail(&c->r, "gzip: %s", m ? m : "unreadable compressed data");
            return -1;
        }
        /* a UTF-8 byte order mark opening the document (read_file): passed
         * over, the reader's offsets still counting it (pj_offset adds
         * `before`, which fill() has set for this chunk already) */
        if (!c->gz_started && n >= 3 && memcmp(b, "\xEF\xBB\xBF", 3) == 0) {
            b = (const unsigned char *)b + 3;
            n -= 3;
            c->r.before += 3;
        }
        c->gz_started = true;
        if (n) break;           /* a block of the mark alone: the next one */
    }
    *buf = b;
    *len = n;
    return 0;
}

static struct archive *gz_open(const unsigned char *data, size_t len) {
    struct archive *a = archive_read_new();
    struct archive_entry *e;
    if (!a) return NULL;
    if (archive_read_support_filter_gzip(a) != ARCHIVE_OK ||
        archive_read_support_format_raw(a) != ARCHIVE_OK ||
        /* 64 KB a read, so archive_filter_bytes says how far the
         * compressed bytes were read (the pages a stream drops behind) */
        archive_read_open_memory2(a, data, len, 65536) != ARCHIVE_OK ||
        archive_read_next_header(a, &e) != ARCHIVE_OK) {
        archive_read_free(a);
        return NULL;
    }
    return a;
}

static bool is_gzip(const unsigned char *d, size_t len) {
    return len >= 2 && d[0] == 0x1f && d[1] == 0x8b;
}

/* The first `cap` bytes of the document (inflated when gzipped). */
static size_t peek_doc(const unsigned char *d, size_t len, unsigned char *buf, size_t cap) {
    if (!is_gzip(d, len)) {
        size_t n = len < cap ? len : cap;
        memcpy(buf, d, n);
        return n;
    }
    struct archive *a = gz_open(d, len);
    if (!a) return 0;
    size_t n = 0;
    while (n < cap) {
        la_ssize_t r = archive_read_data(a, buf + n, cap - n);
        if (r <= 0) break;
        n += (size_t)r;
    }
    archive_read_free(a);
    return n;
}

/* A PyTorch profiler document: an object naming one of kineto's top-level
 * keys near its start (deviceProperties lists every GPU, and
 * distributedInfo a job's process groups, before traceEvents). */
static bool doc_is_pytorch(const unsigned char *b, size_t n) {
    size_t i = 0;
    if (n >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF) i = 3;
    while (i < n && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n')) i++;
    if (i >= n || b[i] != '{') return false;
    static const char *const keys[] = { "\"traceEvents\"", "\"deviceProperties\"",
                                        "\"distributedInfo\"", "\"baseTimeNanoseconds\"" };
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        size_t kl = strlen(keys[k]);
        for (size_t j = i; j + kl <= n; j++)
            if (b[j] == '"' && memcmp(b + j, keys[k], kl) == 0) return true;
    }
    return false;
}

#define PEEK_BYTES 65536

/* tar (plain or gzipped) or zip: the first member's first bytes, with
 * archive.c's readers (no external-program filters). */
static bool archive_first_member_is_pytorch(const unsigned char *d, size_t len) {
    struct archive *a = archive_read_new();
    if (!a) return false;
    archive_read_support_format_tar(a);
    archive_read_support_format_zip(a);
    archive_read_support_filter_gzip(a);
    archive_read_support_filter_bzip2(a);
    archive_read_support_filter_xz(a);
    bool yes = false;
    struct archive_entry *e;
    if (archive_read_open_memory(a, d, len) == ARCHIVE_OK) {
        for (int i = 0; i < 64 && archive_read_next_header(a, &e) == ARCHIVE_OK; i++) {
            const char *p = archive_entry_pathname(e);
            size_t pl = p ? strlen(p) : 0;
            const char *b = p ? strrchr(p, '/') : NULL;
            b = b ? b + 1 : p;
            if (archive_entry_filetype(e) != AE_IFREG || pl < 5 || strcmp(p + pl - 5, ".json") != 0 ||
                !b || b[0] == '.' || strstr(p, "__MACOSX/"))
                continue;
            unsigned char *buf = malloc(PEEK_BYTES);
            if (!buf) break;
            size_t n = 0;
            while (n < PEEK_BYTES) {
                la_ssize_t r = archive_read_data(a, buf + n, PEEK_BYTES - n);
                if (r <= 0) break;
                n += (size_t)r;
            }
            yes = doc_is_pytorch(buf, n);
            free(buf);
            break;
        }
    }
    archive_read_free(a);
    return yes;
}

/* gzip holding a tar rather than one JSON document */
static bool gzip_is_tar(const unsigned char *d, size_t len) {
    unsigned char buf[512];
    size_t n = peek_doc(d, len, buf, sizeof buf);
    return imp_archive_detect(buf, n) == IMP_ARCHIVE_TAR;
}

bool imp_pytorch_detect(const unsigned char *d, size_t len) {
    if (!d || len == 0) return false;
    imp_archive_kind k = imp_archive_detect(d, len);
    if (k == IMP_ARCHIVE_GZIP && !gzip_is_tar(d, len)) {
        unsigned char *buf = malloc(PEEK_BYTES);
        if (!buf) return false;
        size_t n = peek_doc(d, len, buf, PEEK_BYTES);
        bool yes = doc_is_pytorch(buf, n);
        free(buf);
        return yes;
    }
    if (k != IMP_ARCHIVE_NONE) return archive_first_member_is_pytorch(d, len);
    /* a document naming schedlab's own schema (importers/schedlab_trace.c's
     * test, on the same bytes) is ours, whatever keys it also has: the
     * descriptors' tests never both say yes (fuzz/fuzz_detect.c) */
    bool schema;
    if (imp_sniff_json_object(d, len, &schema) && schema) return false;
    return doc_is_pytorch(d, len < PEEK_BYTES ? len : PEEK_BYTES);
}

/* ---- one file -------------------------------------------------------------- */

static int read_file(pt_ctx *c, const imp_file *file) {
    c->file = file;
    c->f->k0 = c->t->kernels.n;
    c->f->c0 = c->t->copies.n;
    c->f->min_call_corr = INT64_MAX;
    c->gz = NULL;
    c->gz_started = false;
    if (is_gzip(file->data, file->len)) {
        c->gz = gz_open(file->data, file->len);
        if (!c->gz) return fail(c, "not a readable gzip file");
        pj_init(&c->r, NULL, 0, gz_refill, c);
    } else if (file->len >= 3 && memcmp(file->data, "\xEF\xBB\xBF", 3) == 0) {
        /* a UTF-8 byte order mark (Windows tools write one) before the
         * document: passed over, as RFC 8259 §8.1 lets a parser; the
         * reader's offsets still count the file's bytes */
        pj_init(&c->r, file->data + 3, file->len - 3, NULL, NULL);
        c->r.before = 3;
    } else {
        pj_init(&c->r, file->data, file->len, NULL, NULL);
    }
    int rc = read_top(c);
    pj_free(&c->r);
    if (c->gz) archive_read_free(c->gz);
    c->gz = NULL;
    return rc;
}

static int cmp_corr(const void *a, const void *b) {
    const pt_corr *x = a, *y = b;
    if (x->corr != y->corr) return x->corr < y->corr ? -1 : 1;
    return (x->ts > y->ts) - (x->ts < y->ts);
}

/* The launch call of correlation id `corr`: its earliest start (a
 * runtime call and the driver call it makes may share the id). */
static bool find_call(const pt_file *f, int64_t corr, int64_t *ts) {
    size_t lo = 0, hi = f->calls.n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->calls.v[mid].corr < corr) lo = mid + 1;
        else hi = mid;
    }
    if (lo < f->calls.n && f->calls.v[lo].corr == corr) {
        *ts = f->calls.v[lo].ts;
        return true;
    }
    return false;
}

static const char *base_name(const char *p) {
    const char *b = strrchr(p, '/');
    return b ? b + 1 : p;
}

/* The lane's process name: "rank1 gpu1", or "gpu0" for a lone file, or
 * "NAME gpu0" in a job of files without distributedInfo. */
static trace_str lane_name(pt_ctx *c, const pt_file *f, int64_t dev, size_t nfiles) {
    char buf[160];
    char d[32] = "";
    if (dev >= 0) snprintf(d, sizeof d, "gpu%lld", (long long)dev);
    else snprintf(d, sizeof d, "gpu?");
    if (f->has_rank) snprintf(buf, sizeof buf, "rank%lld %s", (long long)f->rank, d);
    else if (nfiles > 1) {
        snprintf(buf, sizeof buf, "%.100s %s", base_name(f->name), d);
        for (char *p = buf; *p; p++)
            if (*p == '/' || *p == ':') *p = '_';
    } else snprintf(buf, sizeof buf, "%s", d);
    return trace_intern(c->t, buf);
}

/* Resolve what only the whole file tells: the launch calls, the lanes and
 * the clock base. */
static int finish_file(pt_ctx *c, size_t nfiles) {
    pt_file *f = c->f;
    /* (no calls: no array at all, and qsort's base must not be NULL) */
    if (f->calls.n > 1) qsort(f->calls.v, f->calls.n, sizeof *f->calls.v, cmp_corr);
    if (f->calls.n) f->min_call_corr = f->calls.v[0].corr;
    int64_t base = f->has_base ? f->base : 0;
    trace_str lane_cache[4] = { 0 };
    int64_t lane_dev[4] = { INT64_MIN, INT64_MIN, INT64_MIN, INT64_MIN };
    for (int pass = 0; pass < 2; pass++) {
        size_t from = pass ? f->c0 : f->k0;
        size_t to = pass ? c->t->copies.n : c->t->kernels.n;
        for (size_t i = from; i < to; i++) {
            const pt_side *s = pass ? &c->cside.v[i] : &c->kside.v[i];
            int64_t issue = TRACE_NONE, ts;
            if (s->has_corr && find_call(f, s->corr, &ts)) {
                issue = ts + base;
            } else if (!pass) {
                if (s->has_corr && f->calls.n && s->corr < f->min_call_corr) {
                    c->before_window++;
                    f->before_window++;
                } else {
                    c->unmatched++;
                    f->unmatched++;
                }
            }
            trace_str lane = 0;
            int slot = (int)((uint64_t)s->dev & 3);
            if (lane_dev[slot] == s->dev) lane = lane_cache[slot];
            else {
                lane = lane_name(c, f, s->dev, nfiles);
                lane_dev[slot] = s->dev;
                lane_cache[slot] = lane;
            }
            if (pass) {
                trace_copy *cp = &c->t->copies.v[i];
                cp->issue = issue;
                cp->start += base;
                cp->end += base;
                cp->process = lane;
            } else {
                trace_kernel *k = &c->t->kernels.v[i];
                k->issue = issue;
                k->first_block += base;
                k->end += base;
                k->process = lane;
            }
        }
    }
    if (c->t->oom) return fail(c, "out of memory");
    return 0;
}

/* ---- streaming: sorted runs, merged by start (importers.h imp_stream) ------ */

/* What a whole import does at its end -- every file's records sorted by
 * start (ties in file order), each given its launch call, clock base and
 * lane -- done in bounded memory: the records of one file are buffered up
 * to run_rows, sorted by their file time (the file's base is one constant,
 * so the order is the same) and spilled as a run; at the end the runs are
 * merged by start + base, ties to the earlier run (runs are in file
 * order, so the merge is as stable as imp_sort_records), resolved as
 * finish_file resolves them and handed over with imp_stream_rows. Memory:
 * one run, a read buffer per run (MERGE_BUF records) and the launch calls
 * (16 bytes per runtime/driver call with a correlation: the join key). */

typedef struct pt_krec { trace_kernel k; pt_side s; } pt_krec;
typedef struct pt_crec { trace_copy c; pt_side s; } pt_crec;
typedef struct pt_key { int64_t key; size_t i; } pt_key;

#define MERGE_BUF 128

static int cmp_key(const void *a, const void *b) {
    const pt_key *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* The temporary file failed (no room, no TMPDIR): not the file's fault,
 * so the caller may import it again whole (imp_stream.whole_message). */
static int spill_fail(pt_ctx *c, const char *what, const char *why) {
    if (c->cx && c->cx->s) c->cx->s->whole_message = true;
    return fail(c, "%s the import's temporary file: %s", what, why);
}

static int spill_write(pt_ctx *c, const void *p, size_t n) {
    if (c->sp.fd < 0 && (c->sp.fd = imp_tmp_fd("pytorch")) < 0) return spill_fail(c, "creating", strerror(errno));
    const char *b = p;
    while (n) {
        ssize_t w = pwrite(c->sp.fd, b, n, (off_t)c->sp.end);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return spill_fail(c, "writing", w < 0 ? strerror(errno) : "nothing written");
        b += w;
        n -= (size_t)w;
        c->sp.end += (uint64_t)w;
    }
    return 0;
}

/* The buffered records of the current file, sorted by start, as one run of
 * kernels and one of copies; the buffers are emptied. */
static int spill_rows(pt_ctx *c) {
    trace *t = c->t;
    for (int pass = 0; pass < 2; pass++) {
        size_t n = pass ? t->copies.n : t->kernels.n;
        if (n == 0) continue;
        pt_key *keys = malloc(n * sizeof *keys);
        if (!keys) return fail(c, "out of memory");
        for (size_t i = 0; i < n; i++)
            keys[i] = (pt_key){ pass ? t->copies.v[i].start : t->kernels.v[i].first_block, i };
        qsort(keys, n, sizeof *keys, cmp_key);
        pt_run run = { c->sp.end, n, c->fileno };
        int rc = 0;
        union { pt_krec k[MERGE_BUF]; pt_crec c[MERGE_BUF]; } *buf = malloc(sizeof *buf);
        if (!buf) rc = fail(c, "out of memory");
        for (size_t i = 0; i < n && rc == 0;) {
            size_t m = 0;
            for (; m < MERGE_BUF && i < n; m++, i++) {
                size_t j = keys[i].i;
                if (pass) buf->c[m] = (pt_crec){ t->copies.v[j], c->cside.v[j] };
                else buf->k[m] = (pt_krec){ t->kernels.v[j], c->kside.v[j] };
            }
            rc = spill_write(c, buf, m * (pass ? sizeof(pt_crec) : sizeof(pt_krec)));
        }
        free(buf);
        free(keys);
        bool ok = true;
        if (rc == 0) {
            if (pass) VEC_PUSH(c->sp.cruns, run, ok);
            else VEC_PUSH(c->sp.kruns, run, ok);
            if (!ok) rc = fail(c, "out of memory");
        }
        if (rc < 0) return -1;
    }
    t->kernels.n = t->copies.n = 0;
    c->kside.n = c->cside.n = 0;
    return 0;
}

/* ---- streaming: the launch calls ---- */

#define CALL_BLOCK 256

/* The buffered calls, sorted by (id, start), as one run; emptied. */
static int spill_calls(pt_ctx *c) {
    pt_file *f = c->f;
    if (f->calls.n == 0) return 0;
    qsort(f->calls.v, f->calls.n, sizeof *f->calls.v, cmp_corr);
    pt_run run = { c->sp.end, f->calls.n, c->fileno };
    if (spill_write(c, f->calls.v, f->calls.n * sizeof *f->calls.v) < 0) return -1;
    bool ok = true;
    VEC_PUSH(f->call_runs, run, ok);
    if (!ok) return fail(c, "out of memory");
    f->calls.n = 0;
    return 0;
}

typedef struct call_cursor { const pt_run *run; size_t next, at, have; pt_corr buf[CALL_BLOCK]; } call_cursor;

static bool call_load(pt_ctx *c, call_cursor *k, int *rc) {
    if (k->at < k->have) return true;
    size_t m = k->run->n - k->next;
    if (m == 0) return false;
    if (m > CALL_BLOCK) m = CALL_BLOCK;
    size_t want = m * sizeof(pt_corr), got = 0;
    off_t off = (off_t)(k->run->off + (uint64_t)k->next * sizeof(pt_corr));
    while (got < want) {
        ssize_t r = pread(c->sp.fd, (char *)k->buf + got, want - got, off + (off_t)got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            *rc = spill_fail(c, "reading", r < 0 ? strerror(errno) : "short file");
            return false;
        }
        got += (size_t)r;
    }
    k->next += m;
    k->at = 0;
    k->have = m;
    return true;
}

/* A file whose calls were spilled: its runs merged into one table, the
 * earliest call of each id (what find_call picks in memory), and the
 * index of its blocks. Runs are few (a run is run_rows calls): a scan for
 * the smallest beats a heap's bookkeeping. */
static int stream_calls(pt_ctx *c) {
    pt_file *f = c->f;
    if (spill_calls(c) < 0) return -1;
    size_t nr = f->call_runs.n;
    call_cursor *cur = calloc(nr, sizeof *cur);
    pt_corr *out = malloc(CALL_BLOCK * sizeof *out);
    int rc = cur && out ? 0 : fail(c, "out of memory");
    size_t total = 0;
    for (size_t i = 0; i < nr; i++) total += f->call_runs.v[i].n;
    size_t maxblocks = total / CALL_BLOCK + 1;
    if (rc == 0 && !(f->index = malloc(maxblocks * sizeof *f->index))) rc = fail(c, "out of memory");
    assert(f->table_n == 0 && f->nindex == 0);   /* a file's calls stream once, at its end */
    for (size_t i = 0; i < nr && rc == 0; i++) {
        cur[i].run = &f->call_runs.v[i];
        call_load(c, &cur[i], &rc);
    }
    f->table_off = c->sp.end;
    size_t nout = 0;
    bool have_last = false;
    int64_t last = 0;
    while (rc == 0) {
        size_t best = nr;
        for (size_t i = 0; i < nr; i++) {
            if (cur[i].at >= cur[i].have) continue;
            if (best == nr || cmp_corr(&cur[i].buf[cur[i].at], &cur[best].buf[cur[best].at]) < 0)
                best = i;
        }
        if (best == nr) break;
        pt_corr e = cur[best].buf[cur[best].at++];
        call_load(c, &cur[best], &rc);
        if (have_last && e.corr == last) continue;   /* a later call of the same id */
        have_last = true;
        last = e.corr;
        if (f->table_n % CALL_BLOCK == 0) f->index[f->nindex++] = e.corr;
        out[nout++] = e;
        f->table_n++;
        if (nout == CALL_BLOCK) {
            rc = spill_write(c, out, nout * sizeof *out);
            nout = 0;
        }
    }
    if (rc == 0 && nout) rc = spill_write(c, out, nout * sizeof *out);
    if (rc == 0 && f->table_n) f->min_call_corr = f->index[0];
    free(cur);
    free(out);
    free(f->call_runs.v);
    f->call_runs.v = NULL;
    f->call_runs.n = f->call_runs.cap = 0;
    return rc;
}

/* find_call for a streamed file: in memory, or in its table (one block
 * read per lookup that leaves the block last read; kernels come by start,
 * so their ids mostly rise and the blocks are read about once). */
static bool find_call_s(pt_ctx *c, pt_file *f, int64_t corr, int64_t *ts, int *rc) {
    if (!f->table_n) return find_call(f, corr, ts);
    size_t lo = 0, hi = f->nindex;
    while (lo < hi) {              /* the first block whose first id is > corr */
        size_t mid = lo + (hi - lo) / 2;
        if (f->index[mid] <= corr) lo = mid + 1;
        else hi = mid;
    }
    if (lo == 0) return false;
    size_t b = lo - 1;
    size_t n = f->table_n - b * CALL_BLOCK < CALL_BLOCK ? f->table_n - b * CALL_BLOCK : CALL_BLOCK;
    if (f->block_no != b + 1) {
        if (!f->block && !(f->block = calloc(CALL_BLOCK, sizeof *f->block))) {
            *rc = fail(c, "out of memory");
            return false;
        }
        size_t want = n * sizeof(pt_corr), got = 0;
        off_t off = (off_t)(f->table_off + (uint64_t)b * CALL_BLOCK * sizeof(pt_corr));
        while (got < want) {
            ssize_t r = pread(c->sp.fd, (char *)f->block + got, want - got, off + (off_t)got);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) {
                f->block_no = 0;
                *rc = spill_fail(c, "reading", r < 0 ? strerror(errno) : "short file");
                return false;
            }
            got += (size_t)r;
        }
        f->block_no = b + 1;
    }
    lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->block[mid].corr < corr) lo = mid + 1;
        else hi = mid;
    }
    if (lo < n && f->block[lo].corr == corr) {
        *ts = f->block[lo].ts;
        return true;
    }
    return false;
}

/* A streamed file's end: its last run, its launch calls sorted, its lanes
 * named in the order finish_file names them (kernels, then copies). */
static int stream_finish_file(pt_ctx *c, size_t nfiles) {
    pt_file *f = c->f;
    if (spill_rows(c) < 0) return -1;
    if (f->call_runs.n) {
        if (stream_calls(c) < 0) return -1;
    } else {
        if (f->calls.n > 1) qsort(f->calls.v, f->calls.n, sizeof *f->calls.v, cmp_corr);
        if (f->calls.n) f->min_call_corr = f->calls.v[0].corr;
    }
    for (int pass = 0; pass < 2; pass++) {
        const pt_use *u = pass ? c->cuse.v : c->kuse.v;
        size_t n = pass ? c->cuse.n : c->kuse.n;
        for (size_t i = 0; i < n; i++)
            if (u[i].file == c->fileno) lane_name(c, f, u[i].dev, nfiles);
    }
    if (c->t->oom) return fail(c, "out of memory");
    return 0;
}

typedef struct pt_cursor {
    const pt_run *run;
    size_t next;                   /* records of the run read into buf so far */
    size_t at, have;               /* the current record in buf, how many buf holds */
    unsigned char *buf;
    int64_t key;                   /* the current record's start + its file's base */
} pt_cursor;

/* Load the cursor's current record's key, refilling its buffer; false at
 * the run's end (or on a read error, in *rc). */
static bool cursor_load(pt_ctx *c, pt_cursor *k, size_t esz, size_t key_off, int *rc) {
    if (k->at == k->have) {
        size_t m = k->run->n - k->next;
        if (m == 0) return false;
        if (m > MERGE_BUF) m = MERGE_BUF;
        size_t want = m * esz, got = 0;
        off_t off = (off_t)(k->run->off + (uint64_t)k->next * esz);
        while (got < want) {
            ssize_t r = pread(c->sp.fd, k->buf + got, want - got, off + (off_t)got);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) {
                *rc = spill_fail(c, "reading", r < 0 ? strerror(errno) : "short file");
                return false;
            }
            got += (size_t)r;
        }
        k->next += m;
        k->at = 0;
        k->have = m;
    }
    int64_t ts;
    memcpy(&ts, k->buf + k->at * esz + key_off, sizeof ts);
    const pt_file *f = &c->files[k->run->file];
    k->key = ts + (f->has_base ? f->base : 0);
    return true;
}

static bool cursor_less(const pt_cursor *a, const pt_cursor *b) {
    return a->key < b->key || (a->key == b->key && a->run < b->run);
}

static void heap_down(pt_cursor **h, size_t n, size_t i) {
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && cursor_less(h[l], h[m])) m = l;
        if (r < n && cursor_less(h[r], h[m])) m = r;
        if (m == i) return;
        pt_cursor *x = h[i];
        h[i] = h[m];
        h[m] = x;
        i = m;
    }
}

typedef struct pt_lanes {
    uint32_t file[4];
    int64_t dev[4];
    trace_str lane[4];
    int32_t gpu[4];
    bool set[4];
} pt_lanes;

/* One record's launch call, clock base, lane and GPU (finish_file's rules,
 * gpu_index). */
static int resolve(pt_ctx *c, const pt_side *s, bool kernel, pt_lanes *lc, int64_t *issue,
                   int64_t *base, trace_str *lane, int32_t *gpu, size_t nfiles) {
    pt_file *f = &c->files[s->file];
    int64_t ts;
    int rc = 0;
    *issue = TRACE_NONE;
    *base = f->has_base ? f->base : 0;
    if (s->has_corr && find_call_s(c, f, s->corr, &ts, &rc)) {
        *issue = ts + *base;
    } else if (rc < 0) {
        return -1;
    } else if (kernel) {
        if (s->has_corr && (f->calls.n || f->table_n) && s->corr < f->min_call_corr) {
            c->before_window++;
            f->before_window++;
        } else {
            c->unmatched++;
            f->unmatched++;
        }
    }
    int slot = (int)(((uint64_t)s->dev + s->file) & 3);
    if (lc->set[slot] && lc->file[slot] == s->file && lc->dev[slot] == s->dev) {
        *lane = lc->lane[slot];
        *gpu = lc->gpu[slot];
        return 0;
    }
    *lane = lane_name(c, f, s->dev, nfiles);
    *gpu = gpu_index(c, s->file, s->dev);
    lc->set[slot] = true;
    lc->file[slot] = s->file;
    lc->dev[slot] = s->dev;
    lc->lane[slot] = *lane;
    lc->gpu[slot] = *gpu;
    return 0;
}

/* Merge the runs of kernels (copies) into the batches. */
static int merge_runs(pt_ctx *c, bool copies, size_t nfiles) {
    const pt_run *runs = copies ? c->sp.cruns.v : c->sp.kruns.v;
    size_t nr = copies ? c->sp.cruns.n : c->sp.kruns.n;
    size_t esz = copies ? sizeof(pt_crec) : sizeof(pt_krec);
    size_t key_off = copies ? offsetof(pt_crec, c) + offsetof(trace_copy, start)
                            : offsetof(pt_krec, k) + offsetof(trace_kernel, first_block);
    if (nr == 0) return 0;
    pt_cursor *cur = calloc(nr, sizeof *cur);
    pt_cursor **heap = calloc(nr, sizeof *heap);
    int rc = cur && heap ? 0 : fail(c, "out of memory");
    size_t nh = 0;
    for (size_t i = 0; i < nr && rc == 0; i++) {
        cur[i].run = &runs[i];
        if (!(cur[i].buf = malloc(MERGE_BUF * esz))) rc = fail(c, "out of memory");
        else if (cursor_load(c, &cur[i], esz, key_off, &rc)) heap[nh++] = &cur[i];
    }
    for (size_t i = nh; rc == 0 && i-- > 0;) heap_down(heap, nh, i);
    pt_lanes lc;
    memset(&lc, 0, sizeof lc);
    while (rc == 0 && nh) {
        pt_cursor *k = heap[0];
        const unsigned char *rec = k->buf + k->at * esz;
        int64_t issue, base;
        trace_str lane;
        int32_t gpu;
        if (copies) {
            pt_crec r;
            memcpy(&r, rec, sizeof r);
            trace_copy *cp = trace_add_copy(c->t);
            if (!cp) { rc = fail(c, "out of memory"); break; }
            if (resolve(c, &r.s, false, &lc, &issue, &base, &lane, &gpu, nfiles) < 0) { rc = -1; break; }
            *cp = r.c;
            cp->issue = issue;
            cp->start += base;
            cp->end += base;
            cp->process = lane;
            cp->device = gpu;
        } else {
            pt_krec r;
            memcpy(&r, rec, sizeof r);
            trace_kernel *kk = trace_add_kernel(c->t);
            if (!kk) { rc = fail(c, "out of memory"); break; }
            if (resolve(c, &r.s, true, &lc, &issue, &base, &lane, &gpu, nfiles) < 0) { rc = -1; break; }
            *kk = r.k;
            kk->issue = issue;
            kk->first_block += base;
            kk->end += base;
            kk->process = lane;
            kk->device = gpu;
        }
        if (c->t->oom) { rc = fail(c, "out of memory"); break; }
        if (imp_stream_rows(c->cx, c->t, NULL, 0, c->err, c->errlen) < 0) { rc = -1; break; }
        k->at++;
        if (cursor_load(c, k, esz, key_off, &rc)) heap_down(heap, nh, 0);
        else if (rc == 0) {
            heap[0] = heap[--nh];
            heap_down(heap, nh, 0);
        }
    }
    for (size_t i = 0; cur && i < nr; i++) free(cur[i].buf);
    free(cur);
    free(heap);
    return rc;
}

static int stream_out(pt_ctx *c, size_t nfiles) {
    if (merge_runs(c, false, nfiles) < 0 || merge_runs(c, true, nfiles) < 0) return -1;
    if (imp_stream_flush(c->cx, c->t, c->err, c->errlen) < 0) return -1;
    if (c->t->oom) return fail(c, "out of memory");
    return 0;
}

/* ---- the run --------------------------------------------------------------- */

/* Resident blocks per SM by compute capability: CUDA C++ Programming
 * Guide, "Technical Specifications per Compute Capability" (the trace's
 * deviceProperties do not carry it). 0 when not listed. */
static int32_t blocks_per_sm(int64_t major, int64_t minor) {
    int cc = (int)(major * 10 + minor);
    switch (cc) {
    case 50: case 52: case 53: case 60: case 61: case 62: case 70: case 72: case 80: case 87:
    case 90: case 100: case 103: return 32;
    case 75: return 16;
    case 86: case 120: return 16;
    case 89: return 24;
    default: return 0;
    }
}

/* *s (zeroed, as trace_init leaves t->device) from a deviceProperties
 * entry; true when it gave the SM count. */
static bool fill_device(sim_device *s, const pt_dev *d) {
    bool sms = false;
    snprintf(s->name, sizeof s->name, "%s", d->name);
    if (d->sms > 0 && d->sms <= SIM_MAX_SMS) {
        s->sms = (int32_t)d->sms;
        /* the trace cannot show the block scheduler's tie-break order
         * (most-room §4.3); ascending is the model's default */
        s->sm_order_kind = SIM_SM_ORDER_ASCENDING;
        for (int32_t i = 0; i < s->sms; i++) s->sm_order[i] = (int16_t)i;
        sms = true;
    }
    if (d->tpsm <= INT32_MAX) s->threads_per_sm = (int32_t)d->tpsm;
    if (d->max_tpb <= INT32_MAX) s->max_threads_per_block = (int32_t)d->max_tpb;
    if (d->warp > 0 && d->warp <= INT32_MAX) {
        s->warp_size = (int32_t)d->warp;
        if (d->tpsm / d->warp <= INT32_MAX) s->warps_per_sm = (int32_t)(d->tpsm / d->warp);
    }
    s->regs_per_sm = d->regs_sm;
    s->max_regs_per_block = d->regs_blk;
    s->smem_per_sm = d->smem_sm;
    /* kernels may opt in to more than the 48 KB default (cudaFuncSetAttribute) */
    s->max_smem_per_block = d->optin > d->smem_blk ? d->optin : d->smem_blk;
    s->blocks_per_sm = blocks_per_sm(d->major, d->minor);
    return sms;
}

static void set_device(trace *t, const pt_dev *d) {
    if (fill_device(&t->device, d)) t->has_device = true;
}

static const pt_dev *find_dev(const pt_file *f, int64_t id) {
    for (size_t i = 0; i < f->ndevs; i++)
        if (f->devs[i].id == id) return &f->devs[i];
    return NULL;
}

static int appendf(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int appendf(char **buf, size_t *len, size_t *cap, const char *fmt, ...) {
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int w = vsnprintf(*buf ? *buf + *len : NULL, *buf ? *cap - *len : 0, fmt, ap);
        va_end(ap);
        if (w < 0) return -1;
        if (*buf && *len + (size_t)w < *cap) {
            *len += (size_t)w;
            return 0;
        }
        size_t nc = (*cap ? *cap * 2 : 256) + (size_t)w;
        char *nb = realloc(*buf, nc);
        if (!nb) return -1;
        if (!*buf) nb[0] = '\0';
        *buf = nb;
        *cap = nc;
    }
}

/* The GPUs used, by lane: meta "devices", and the run's device (the one
 * with the most kernels, then copies). */
static int describe_devices(pt_ctx *c, pt_file *files, size_t nfiles) {
    typedef struct { uint32_t file; int64_t dev; size_t kernels, copies; } use;
    use u[64];
    size_t nu = 0;
    /* the first 64 GPUs by their first kernel, then by their first copy */
    for (int pass = 0; pass < 2; pass++) {
        size_t n = pass ? c->cuse.n : c->kuse.n;
        for (size_t i = 0; i < n; i++) {
            const pt_use *s = pass ? &c->cuse.v[i] : &c->kuse.v[i];
            size_t j = 0;
            while (j < nu && !(u[j].file == s->file && u[j].dev == s->dev)) j++;
            if (j == nu) {
                if (nu == 64) continue;
                u[nu++] = (use){ s->file, s->dev, 0, 0 };
            }
            if (pass) u[j].copies += s->n; else u[j].kernels += s->n;
        }
    }
    size_t best = 0;
    for (size_t j = 1; j < nu; j++)
        if (u[j].kernels > u[best].kernels ||
            (u[j].kernels == u[best].kernels && u[j].copies > u[best].copies))
            best = j;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int rc = 0;
    for (size_t j = 0; j < nu && rc == 0; j++) {
        const pt_file *f = &files[u[j].file];
        const pt_dev *d = find_dev(f, u[j].dev);
        char lane[128] = "";
        const char *ln = trace_str_get(c->t, lane_name(c, f, u[j].dev, nfiles));
        snprintf(lane, sizeof lane, "%s", ln ? ln : "");
        if (d)
            rc = appendf(&buf, &len, &cap, "%s%s: %s (%lld SMs, CC %lld.%lld, %lld KiB shared "
                         "memory per block opt-in, %zu kernels, %zu copies)", j ? "; " : "", lane,
                         d->name, (long long)d->sms, (long long)d->major, (long long)d->minor,
                         (long long)((d->optin > d->smem_blk ? d->optin : d->smem_blk) / 1024),
                         u[j].kernels, u[j].copies);
        else
            rc = appendf(&buf, &len, &cap, "%s%s: not in deviceProperties (%zu kernels, %zu "
                         "copies)", j ? "; " : "", lane, u[j].kernels, u[j].copies);
        if (j == best && d) {
            set_device(c->t, d);
            char cc[32];
            snprintf(cc, sizeof cc, "%lld.%lld", (long long)d->major, (long long)d->minor);
            if (trace_set_meta(c->t, "compute_capability", cc) < 0) rc = -1;
        }
    }
    if (rc == 0 && buf && trace_set_meta(c->t, "devices", buf) < 0) rc = -1;
    free(buf);
    return rc < 0 ? fail(c, "out of memory") : 0;
}

static int cmp_gpu_order(const void *pa, const void *pb) {
    const pt_gpu *a = pa, *b = pb;
    if (a->order != b->order) return a->order < b->order ? -1 : 1;
    if (a->dev != b->dev) return a->dev < b->dev ? -1 : 1;
    return a->file < b->file ? -1 : a->file > b->file;
}

static int cmp_gpu_key(const void *pa, const void *pb) {
    const pt_gpu *a = pa, *b = pb;
    if (a->file != b->file) return a->file < b->file ? -1 : 1;
    return a->dev < b->dev ? -1 : a->dev > b->dev;
}

/* The GPUs of a job (DESIGN §5): with two lanes or more, t->devices gets
 * one entry per lane in (rank, gpu) order (files without distributedInfo
 * after, in file order), each built from its file's deviceProperties entry
 * for that gpu as describe_devices builds t->device (the first file's, when
 * two files share a lane); a gpu not listed there gets a copy of t->device
 * and its index in the meta "devices_unlisted". c->gpus then maps every
 * (file, device) of the records to its index (gpu_index). Call after
 * describe_devices, before the records get their index. */
static int list_gpus(pt_ctx *c, pt_file *files) {
    size_t n = c->kuse.n + c->cuse.n;
    pt_gpu *g = malloc((n ? n : 1) * sizeof *g);
    if (!g) return fail(c, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const pt_use *u = i < c->kuse.n ? &c->kuse.v[i] : &c->cuse.v[i - c->kuse.n];
        const pt_file *f = &files[u->file];
        g[i] = (pt_gpu){ u->file, u->dev, f->has_rank ? f->rank : ((int64_t)1 << 40) + u->file, 0 };
    }
    if (n > 1) qsort(g, n, sizeof *g, cmp_gpu_order);
    /* the lanes: (order, dev); a pair in kuse and cuse counts once */
    int32_t lanes = 0;
    for (size_t i = 0; i < n; i++) {
        if (i && g[i].order == g[i - 1].order && g[i].dev == g[i - 1].dev) g[i].index = lanes - 1;
        else g[i].index = lanes++;
    }
    if (lanes < 2) {   /* one GPU: no devices, every index 0 */
        free(g);
        return 0;
    }
    if (lanes > IMP_MAX_GPUS) {
        free(g);
        return fail(c, "work on %d GPUs (rank and device pairs); schedlab keeps at most %d in one "
                       "trace", (int)lanes, IMP_MAX_GPUS);
    }
    char *unlisted = NULL;
    size_t ulen = 0, ucap = 0;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (i && g[i].index == g[i - 1].index) continue;
        /* the lane's first file (by file order) that lists the gpu */
        const pt_dev *d = NULL;
        for (size_t j = i; j < n && g[j].index == g[i].index && !d; j++)
            d = find_dev(&files[g[j].file], g[j].dev);
        sim_device x;
        memset(&x, 0, sizeof x);
        if (d) fill_device(&x, d);
        else {
            x = c->t->device;   /* as an ordinal an nvprof export does not list */
            rc = appendf(&unlisted, &ulen, &ucap, "%s%d", ulen ? ", " : "", (int)g[i].index);
            if (rc == 0)
                rc = imp_warn(c->t, files[g[i].file].name, "GPU %lld (the run's device %d) is not "
                              "in its \"deviceProperties\": taken to be the run's device (%s)",
                              (long long)g[i].dev, (int)g[i].index,
                              x.name[0] ? x.name : "unnamed");
        }
        if (rc == 0 && trace_add_device(c->t, &x) < 0) rc = -1;
    }
    if (rc == 0 && unlisted && trace_set_meta(c->t, "devices_unlisted", unlisted) < 0) rc = -1;
    free(unlisted);
    if (rc < 0) {
        free(g);
        c->t->devices.n = 0;   /* nothing half-listed */
        return fail(c, "out of memory");
    }
    qsort(g, n, sizeof *g, cmp_gpu_key);
    c->gpus = g;
    c->ngpus = n;
    return 0;
}

/* A whole import's records (kside/cside parallel to them, before the
 * sort) get their GPU's index. */
static void set_gpus(pt_ctx *c) {
    if (!c->ngpus) return;
    for (int pass = 0; pass < 2; pass++) {
        size_t n = pass ? c->t->copies.n : c->t->kernels.n;
        const pt_side *side = pass ? c->cside.v : c->kside.v;
        uint32_t file = UINT32_MAX;
        int64_t dev = INT64_MIN;
        int32_t gpu = 0;
        for (size_t i = 0; i < n; i++) {
            if (side[i].file != file || side[i].dev != dev) {
                file = side[i].file;
                dev = side[i].dev;
                gpu = gpu_index(c, file, dev);
            }
            if (pass) c->t->copies.v[i].device = gpu;
            else c->t->kernels.v[i].device = gpu;
        }
    }
}

static int set_meta_num(trace *t, const char *key, long long v) {
    char b[32];
    snprintf(b, sizeof b, "%lld", v);
    return trace_set_meta(t, key, b);
}

/* The meta "note" (and the warning) on n kernels launched before the window. */
static const char *note_before_window(char note[200], size_t n) {
    snprintf(note, 200, "%zu kernel%s launched before the profiling window opened (no "
             "launch call in the trace; %s below the first call's): kept, with no issue "
             "time", n, n == 1 ? " was" : "s were",
             n == 1 ? "its correlation id is" : "their correlation ids are");
    return note;
}

static int run_meta(pt_ctx *c, pt_file *files, size_t nfiles) {
    char *ranks = NULL;
    size_t len = 0, cap = 0;
    int rc = 0;
    int64_t world = -1;
    bool worlds_differ = false;
    const char *backend = NULL;
    char note[200];
    for (size_t i = 0; i < nfiles && rc == 0; i++) {
        if (files[i].has_rank)
            rc = appendf(&ranks, &len, &cap, "%s%lld", len ? ", " : "", (long long)files[i].rank);
        if (files[i].has_world) {
            if (world >= 0 && world != files[i].world) worlds_differ = true;
            world = files[i].world;
        }
        if (files[i].backend[0]) backend = files[i].backend;
    }
    if (rc == 0 && ranks) rc = trace_set_meta(c->t, nfiles > 1 ? "ranks" : "rank", ranks);
    free(ranks);
    if (rc == 0 && world >= 0 && !worlds_differ) rc = set_meta_num(c->t, "world_size", world);
    if (rc == 0 && backend) rc = trace_set_meta(c->t, "distributed_backend", backend);
    if (rc == 0 && c->comm) rc = set_meta_num(c->t, "communication_kernels", (long long)c->comm);
    if (rc == 0 && c->before_window) {
        rc = set_meta_num(c->t, "kernels_before_window", (long long)c->before_window);
        if (rc == 0) rc = trace_set_meta(c->t, "note", note_before_window(note, c->before_window));
    }
    if (rc == 0 && c->unmatched)
        rc = set_meta_num(c->t, "kernels_without_launch_call", (long long)c->unmatched);
    /* the same, for the user (imp_warn): one line per file and kind */
    for (size_t i = 0; i < nfiles && rc == 0; i++) {
        const char *name = files[i].name ? files[i].name : "input";
        if (files[i].before_window)
            rc = imp_warn(c->t, name, "%s", note_before_window(note, files[i].before_window));
        if (rc == 0 && files[i].unmatched)
            rc = imp_warn(c->t, name, "%zu kernel%s without a launch call (no runtime call "
                          "with %s correlation id): kept, with no issue time",
                          files[i].unmatched, files[i].unmatched == 1 ? "" : "s",
                          files[i].unmatched == 1 ? "its" : "their");
    }
    return rc < 0 ? fail(c, "out of memory") : 0;
}

/* The refusals: decided on the whole file, so nothing is half-read. */
static int check_file(pt_ctx *c, size_t kernels, size_t copies) {
    pt_file *f = c->f;
    if (f->hip_calls) return fail(c, PT_ROCM_MSG);
    if (kernels + copies > 0) return 0;
    if (f->runtime_events == 0 && f->ndevs == 0)
        return fail(c, "a CPU-only trace: no GPU in deviceProperties and no CUDA runtime calls "
                    "(%zu CPU events) -- record with ProfilerActivity.CUDA on a GPU", f->cpu_events);
    return fail(c, "no GPU events: no kernel, gpu_memcpy or gpu_memset in traceEvents (%zu CUDA "
                "runtime calls) -- record with ProfilerActivity.CUDA", f->runtime_events);
}

static int import_files(pt_ctx *c, const imp_file *files, const bool *own, size_t nfiles,
                        pt_file *pf) {
    double total = 0;
    for (size_t i = 0; i < nfiles; i++) total += (double)files[i].len;
    c->total = total > 0 ? total : 1;
    for (size_t i = 0; i < nfiles; i++) {
        c->f = &pf[i];
        c->fileno = (uint32_t)i;
        pf[i].name = files[i].name ? files[i].name : "input";
        /* an archive's member is a read-only mapping of its own temporary
         * file (archive.h): its pages read may be dropped as the caller's */
        c->droppable = own != NULL;
        /* the pages dropped so far were the previous file's: a job's next
         * file is dropped behind from its own start */
        imp_stream_rewind(c->cx);
        if (read_file(c, &files[i]) < 0) return -1;
        if (check_file(c, pf[i].nk, pf[i].nc) < 0) return -1;
        if (c->streaming ? stream_finish_file(c, nfiles) < 0 : finish_file(c, nfiles) < 0)
            return -1;
        c->done_before += (double)files[i].len;
    }
    c->f = &pf[0];
    /* the run's device and its GPUs before any record goes out: a stream's
     * batches index the devices already there (trace_check.c) */
    if (describe_devices(c, pf, nfiles) < 0 || list_gpus(c, pf) < 0) return -1;
    /* streaming: every file read and accepted, the records go out sorted */
    if (c->streaming && stream_out(c, nfiles) < 0) return -1;
    if (!c->streaming) set_gpus(c);
    if (run_meta(c, pf, nfiles) < 0) return -1;
    if (!c->streaming &&
        (imp_sort_records(c->t->kernels.v, c->t->kernels.n, sizeof *c->t->kernels.v,
                          offsetof(trace_kernel, first_block)) < 0 ||
         imp_sort_records(c->t->copies.v, c->t->copies.n, sizeof *c->t->copies.v,
                          offsetof(trace_copy, start)) < 0))
        return fail(c, "out of memory");
    if (trace_set_source(c->t, "pytorch") < 0) return fail(c, "out of memory");
    return 0;
}

/* What expand() gave: the members it read out of archives are its own
 * (own[i]: mapped temporary files, archive.h), the files passed through are
 * the caller's (borrowed entries); imp_archive_free tells them apart. */
static void free_expanded(imp_file *all, bool *own, size_t n) {
    imp_archive_free(all, n);
    free(own);
}

/* Archives among the files (a job's rank files in a zip or tar) expanded
 * with archive.c, in place, in upload order; gzipped JSON stays as it is.
 * The members left out are import warnings on `warn` (archive.h). */
static int expand(const imp_file *files, size_t nfiles, trace *warn, imp_file **out,
                  size_t *nout, bool **owned, char *err, size_t errlen) {
    imp_file *all = NULL;
    bool *own = NULL;
    size_t n = 0;
    for (size_t i = 0; i < nfiles; i++) {
        imp_archive_kind k = imp_archive_detect(files[i].data, files[i].len);
        bool arc = k != IMP_ARCHIVE_NONE &&
                   !(k == IMP_ARCHIVE_GZIP && !gzip_is_tar(files[i].data, files[i].len));
        imp_file *members = NULL;
        size_t nm = 1;
        if (arc && imp_archive_expand_for(&files[i], IMP_WANT_PYTORCH, warn, &members, &nm,
                                          err, errlen) < 0)
            goto bad;
        imp_file *ga = realloc(all, (n + nm) * sizeof *ga);
        bool *go = ga ? realloc(own, (n + nm) * sizeof *go) : NULL;
        if (ga) all = ga;
        if (go) own = go;
        if (!ga || !go) {
            imp_archive_free(members, nm);
            snprintf(err, errlen, "%s: out of memory", files[i].name ? files[i].name : "input");
            goto bad;
        }
        if (members) {
            for (size_t j = 0; j < nm; j++) {
                all[n] = members[j];
                own[n++] = true;
            }
            free(members);
        } else {
            if (imp_archive_borrow(&files[i], &all[n]) < 0) {
                snprintf(err, errlen, "%s: out of memory", files[i].name ? files[i].name : "input");
                goto bad;
            }
            own[n++] = false;
        }
    }
    *out = all;
    *nout = n;
    *owned = own;
    return 0;
bad:
    free_expanded(all, own, n);
    return -1;
}

static int read_all(imp_ctx *cx, const imp_file *files, size_t nfiles, trace *out, char *err,
                    size_t errlen) {
    imp_file *all = NULL;
    bool *own = NULL;
    size_t n = 0;
    if (expand(files, nfiles, out, &all, &n, &own, err, errlen) < 0) return -1;
    pt_ctx c;
    memset(&c, 0, sizeof c);
    c.cx = cx;
    c.t = out;
    c.err = err;
    c.errlen = errlen;
    c.streaming = imp_stream_active(cx);
    c.sp.fd = -1;
    if (c.streaming) {
        /* a run is a few batches: imp_stream.rows (0: 65536) x 4 */
        size_t rows = cx->s->rows ? cx->s->rows : 65536;
        c.sp.run_rows = rows < SIZE_MAX / 4 ? rows * 4 : rows;
    }
    pt_file *pf = calloc(n ? n : 1, sizeof *pf);
    c.files = pf;
    int rc;
    if (!pf) rc = imp_error(err, errlen, files[0].name ? files[0].name : "input", ": ", "out of memory");
    else rc = import_files(&c, all, own, n, pf);
    for (size_t i = 0; pf && i < n; i++) {
        free(pf[i].calls.v);
        free(pf[i].call_runs.v);
        free(pf[i].index);
        free(pf[i].block);
    }
    free(pf);
    free(c.kside.v);
    free(c.cside.v);
    free(c.kuse.v);
    free(c.cuse.v);
    free(c.gpus);
    free(c.sp.kruns.v);
    free(c.sp.cruns.v);
    if (c.sp.fd >= 0) close(c.sp.fd);
    free(c.name);
    free_expanded(all, own, n);
    return rc;
}

/* ---- the descriptor (importers.h, IMP_FORMATS) ----------------------------- */

int imp_pytorch_json(const imp_file *files, size_t nfiles, trace *out, char *err, size_t errlen) {
    return read_all(NULL, files, nfiles, out, err, errlen);
}

static bool detect(const imp_file *f) { return imp_pytorch_detect(f->data, f->len); }

const imp_importer imp_pytorch_format = {
    .name = "pytorch",
    .hint = "PyTorch profiler (torch.profiler / libkineto) trace JSON or .json.gz, one file per "
            "rank or a .zip/.tar.gz of a job",
    .detect = detect,
    /* batches: a file's records wait for its end (a kernel's launch call
     * may come after it, docs/pytorch.md) in sorted runs spilled to a
     * temporary file, merged by start at the end (stream_out) */
    .read = read_all,
    .stream = true,
    .multi_file = true,
    .own_archives = true,
};
