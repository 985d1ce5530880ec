/* globaltimer_csv.c -- our own per-block trace format, written by
 * tools/recorder (see its README for the contract):
 *
 *   # comment
 *   kernel,block,sm,start_ns,end_ns[,stream][,threads]
 *   K1,0,3,1700000000000,1700000050000,s1,256
 *
 * The header line is optional; with it, columns are found by name in any
 * order, without it they are positional. `kernel` labels one launch: every
 * row with the same label is a block of that launch (repeated launches of one
 * function get distinct labels, e.g. "gemm#2"). Times are %globaltimer
 * nanoseconds; %smid is the SM. Kernels come out in order of first
 * appearance with first_block = earliest block start, fully_dispatched =
 * latest block start, end = latest block end, blocks = rows. */
#include "csv.h"
#include "formats.h"
#include "trace_check.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { G_KERNEL, G_BLOCK, G_SM, G_START, G_END, G_STREAM, G_THREADS, G_COUNT };

static const char *const gcol_names[G_COUNT] = {
    "kernel", "block", "sm", "start_ns", "end_ns", "stream", "threads",
};

typedef struct gt_row_ref {
    int32_t kernel, index;
    long line;
} gt_row_ref;

typedef struct gt_ctx {
    imp_ctx *cx;             /* the import's progress and batch sinks (may be NULL) */
    const char *file;
    char *err;
    size_t errlen;
    int col[G_COUNT];
    int32_t *kidx;           /* trace_str id of a label -> kernel index + 1 */
    size_t kidx_n;
    gt_row_ref *refs;
    size_t nrefs, refcap;
    struct gt_stream *st;    /* streaming's state (issue 9), else NULL */
} gt_ctx;

static int gfail(gt_ctx *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    imp_verror(c->err, c->errlen, c->file, ":", fmt, ap);
    va_end(ap);
    return -1;
}

static bool blank_or_comment(const char *s, size_t len) {
    size_t i = 0;
    while (i < len && (s[i] == ' ' || s[i] == '\t')) i++;
    return i == len || s[i] == '#';
}

static int lookup_header(gt_ctx *c, const imp_csv *r) {
    for (int k = 0; k < G_COUNT; k++) c->col[k] = -1;
    for (size_t i = 0; i < r->nf; i++) {
        const char *name = r->f[i].s;
        while (*name == ' ') name++;
        size_t n = strlen(name);
        while (n && name[n - 1] == ' ') n--;
        int found = -1;
        for (int k = 0; k < G_COUNT; k++)
            if (strlen(gcol_names[k]) == n && strncmp(name, gcol_names[k], n) == 0) found = k;
        if (found < 0) {
            char q[64];
            return gfail(c, "%ld:%zu: unknown column \"%s\" (expected kernel, block, sm, "
                            "start_ns, end_ns, stream, threads)", r->rec_line, i + 1,
                         imp_quote_value(q, sizeof q, r->f[i].s, 40));
        }
        if (c->col[found] >= 0)
            return gfail(c, "%ld: column \"%s\" appears twice", r->rec_line, gcol_names[found]);
        c->col[found] = (int)i;
    }
    for (int k = 0; k <= G_END; k++)
        if (c->col[k] < 0)
            return gfail(c, "%ld: the header has no \"%s\" column", r->rec_line, gcol_names[k]);
    return 0;
}

static int int_field(gt_ctx *c, const imp_csv *r, int k, int64_t lo, int64_t hi, int64_t *out) {
    const char *s = r->f[c->col[k]].s;
    if (imp_parse_int64(s, out) < 0 || *out < lo || *out > hi) {
        char q[64];
        return gfail(c, "%ld: column \"%s\": expected an integer in [%lld, %lld], got \"%s\"",
                     r->rec_line, gcol_names[k], (long long)lo, (long long)hi,
                     imp_quote_value(q, sizeof q, s, 40));
    }
    return 0;
}

static int cmp_ref(const void *a, const void *b) {
    const gt_row_ref *x = a, *y = b;
    if (x->kernel != y->kernel) return x->kernel < y->kernel ? -1 : 1;
    if (x->index != y->index) return x->index < y->index ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

static const char *trimmed(const char *s, size_t *len) {
    while (*s == ' ' || *s == '\t') s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
    *len = n;
    return s;
}

/* One row checked and folded into its kernel's summary; its block's
 * kernel, index, SM and times in *b. */
static int parse_row(gt_ctx *c, const imp_csv *r, trace *t, trace_block *b) {
    size_t klen;
    const char *label = trimmed(r->f[c->col[G_KERNEL]].s, &klen);
    if (klen == 0) return gfail(c, "%ld: column \"kernel\": empty kernel label", r->rec_line);
    int64_t index, sm, start, end, threads = 0;
    if (int_field(c, r, G_BLOCK, 0, INT32_MAX, &index) < 0 ||
        int_field(c, r, G_SM, 0, IMP_MAX_SMS - 1, &sm) < 0 ||   /* trace_check.h */
        int_field(c, r, G_START, 0, INT64_MAX, &start) < 0 ||
        int_field(c, r, G_END, 0, INT64_MAX, &end) < 0)
        return -1;
    if (c->col[G_THREADS] >= 0 && int_field(c, r, G_THREADS, 1, INT32_MAX, &threads) < 0)
        return -1;
    if (end < start)
        return gfail(c, "%ld: end_ns %lld is before start_ns %lld", r->rec_line,
                     (long long)end, (long long)start);
    size_t slen = 0;
    const char *st = c->col[G_STREAM] >= 0 ? trimmed(r->f[c->col[G_STREAM]].s, &slen) : "";
    trace_str stream = slen ? trace_intern_n(t, st, slen) : 0;

    trace_str id = trace_intern_n(t, label, klen);
    if (t->oom) return gfail(c, "%ld: out of memory", r->rec_line);
    if (id >= c->kidx_n) {
        size_t n = c->kidx_n ? c->kidx_n : 64;
        while (n <= id) n *= 2;
        int32_t *nk = realloc(c->kidx, n * sizeof *nk);
        if (!nk) return gfail(c, "%ld: out of memory", r->rec_line);
        memset(nk + c->kidx_n, 0, (n - c->kidx_n) * sizeof *nk);
        c->kidx = nk;
        c->kidx_n = n;
    }
    trace_kernel *k;
    int32_t ki;
    if (c->kidx[id] == 0) {
        if (t->kernels.n >= INT32_MAX - 1) return gfail(c, "%ld: too many kernels", r->rec_line);
        k = trace_add_kernel(t);
        if (!k) return gfail(c, "%ld: out of memory", r->rec_line);
        ki = (int32_t)(t->kernels.n - 1);
        c->kidx[id] = ki + 1;
        char *dbuf = malloc(klen * 4 + 256);
        const char *shown = dbuf ? imp_demangle(trace_str_get(t, id), dbuf, klen * 4 + 256) : NULL;
        k = &t->kernels.v[ki];
        if (shown) {
            trace_str sid = trace_intern(t, shown);
            k = &t->kernels.v[ki];
            k->name = sid;
            k->raw_name = id;
        } else {
            k->name = id;
        }
        free(dbuf);
        k->stream = stream;
        k->threads = (int32_t)threads;
        k->first_block = k->fully_dispatched = start;
        k->end = end;
        k->blocks = 0;
    } else {
        ki = c->kidx[id] - 1;
        k = &t->kernels.v[ki];
        char q1[64], q2[64], q3[64];
        if (k->stream != stream)
            return gfail(c, "%ld: kernel \"%s\" is on stream \"%s\" here but on \"%s\" in an "
                            "earlier row; give each launch its own label", r->rec_line,
                         imp_quote_value(q1, sizeof q1, trace_str_get(t, id), 40),
                         imp_quote_value(q2, sizeof q2, trace_str_get(t, stream), 40),
                         imp_quote_value(q3, sizeof q3, trace_str_get(t, k->stream), 40));
        if (k->threads != threads)
            return gfail(c, "%ld: kernel \"%s\" has %lld threads per block here but %d in an "
                            "earlier row", r->rec_line,
                         imp_quote_value(q1, sizeof q1, trace_str_get(t, id), 40),
                         (long long)threads, k->threads);
        if (start < k->first_block) k->first_block = start;
        if (start > k->fully_dispatched) k->fully_dispatched = start;
        if (end > k->end) k->end = end;
    }
    k->blocks++;
    *b = (trace_block){.kernel = ki, .index = (int32_t)index, .sm = (int32_t)sm,
                       .start = start, .end = end};
    return 0;
}

static int add_row(gt_ctx *c, const imp_csv *r, trace *t) {
    trace_block row = {0};
    if (parse_row(c, r, t, &row) < 0) return -1;
    trace_block *b = trace_add_block(t);
    if (!b) return gfail(c, "%ld: out of memory", r->rec_line);
    b->kernel = row.kernel;
    b->index = row.index;
    b->sm = row.sm;
    b->start = row.start;
    b->end = row.end;
    int32_t ki = row.kernel;
    int64_t index = row.index;
    if (c->nrefs == c->refcap) {
        size_t ncap = c->refcap ? c->refcap * 2 : 256;
        gt_row_ref *nr = realloc(c->refs, ncap * sizeof *nr);
        if (!nr) return gfail(c, "%ld: out of memory", r->rec_line);
        c->refs = nr;
        c->refcap = ncap;
    }
    c->refs[c->nrefs++] = (gt_row_ref){ki, (int32_t)index, r->rec_line};
    return 0;
}

typedef int (*gt_row_fn)(gt_ctx *c, const imp_csv *r, trace *t);

/* Read the file once, calling fn for every block row: comments and blank
 * lines skipped, the header (or the first row's width) fixing the columns.
 * Progress counts this pass as [p0, p0 + pw) of the import. */
static int scan(gt_ctx *c, const imp_file *file, trace *out, gt_row_fn fn, double p0, double pw) {
    imp_csv r;
    imp_csv_init(&r, (const char *)file->data, file->len);
    int ret = -1;
    bool first = true;
    size_t ncols = 0, rows = 0;
    for (;;) {
        /* bytes read (issue 15) */
        if (!imp_progress_at(c->cx, p0 * (double)r.len + pw * (double)r.pos, (double)r.len)) {
            gfail(c, "%s", IMP_CANCELLED);
            goto done;
        }
        const char *line;
        size_t len;
        if (!imp_csv_peek_line(&r, &line, &len)) break;
        if (blank_or_comment(line, len)) {
            imp_csv_skip_line(&r);
            continue;
        }
        char e[256];
        int rc = imp_csv_next(&r, e, sizeof e);
        if (rc < 0) {
            gfail(c, "%s", e);
            goto done;
        }
        if (rc == 0) break;
        if (first) {
            first = false;
            bool header = false;
            for (size_t i = 0; i < r.nf && !header; i++) {
                size_t n;
                const char *fi = trimmed(r.f[i].s, &n);
                header = n == 8 && strncmp(fi, "start_ns", 8) == 0;
            }
            if (header) {
                if (lookup_header(c, &r) < 0) goto done;
                ncols = r.nf;
                continue;
            }
            if (r.nf < 5 || r.nf > 7) {
                gfail(c, "%ld: %zu fields; expected kernel,block,sm,start_ns,end_ns"
                         "[,stream][,threads]", r.rec_line, r.nf);
                goto done;
            }
            for (int k = 0; k < G_COUNT; k++) c->col[k] = k < (int)r.nf ? k : -1;
            ncols = r.nf;
        }
        if (r.nf != ncols) {
            gfail(c, "%ld: %zu fields, expected %zu like the first row", r.rec_line, r.nf, ncols);
            goto done;
        }
        if (fn(c, &r, out) < 0) goto done;
        /* a mapped file's pages read are dropped (issue 9; a no-op unless
         * streaming) */
        if (++rows % 4096 == 0) imp_stream_drop(c->cx, file, r.pos);
    }
    ret = 0;
done:
    imp_csv_free(&r);
    return ret;
}

/* ---- streaming (issue 9) -------------------------------------------------------------
 *
 * The whole-file import holds every block, and a reference per row for the
 * duplicate check. Streamed, the file is read twice instead: the first
 * pass checks every row as above and keeps only the kernels' summaries
 * (first_block, fully_dispatched, end, blocks: known only at the end) and
 * one bit per block index of each kernel for the duplicate check; the
 * kernels go to the caller as the first batch, and their earliest block is
 * the run's origin, so the blocks of the second pass are re-based as they
 * are read and no stored time ever needs a shift. Memory: the kernels, the
 * bitsets (a kernel's largest block index / 8 bytes) and one batch. Every
 * message is the whole-file import's: the passes read in file order, and a
 * duplicate found by the bits is named by a third pass that looks for its
 * first two lines. */

typedef struct gt_bits {
    uint64_t *w;
    size_t nw;
    int64_t dup;             /* the smallest block index seen twice, or -1 */
} gt_bits;

typedef struct gt_stream {
    gt_bits *bits;           /* per kernel */
    size_t nbits;
    size_t rows;
    int32_t dup_kernel;      /* the duplicate to name (third pass) */
    int64_t dup_index;
    long dup_line[2];
    size_t dup_found;
} gt_stream;

static int sum_row(gt_ctx *c, const imp_csv *r, trace *t) {
    trace_block b;
    if (parse_row(c, r, t, &b) < 0) return -1;
    c->st->rows++;
    if ((size_t)b.kernel >= c->st->nbits) {
        size_t n = c->st->nbits ? c->st->nbits * 2 : 64;
        while (n <= (size_t)b.kernel) n *= 2;
        gt_bits *nb = realloc(c->st->bits, n * sizeof *nb);
        if (!nb) return gfail(c, "%ld: out of memory", r->rec_line);
        for (size_t i = c->st->nbits; i < n; i++) nb[i] = (gt_bits){NULL, 0, -1};
        c->st->bits = nb;
        c->st->nbits = n;
    }
    gt_bits *g = &c->st->bits[b.kernel];
    size_t w = (size_t)b.index / 64;
    if (w >= g->nw) {
        size_t n = g->nw ? g->nw * 2 : 4;
        while (n <= w) n *= 2;
        uint64_t *nw = realloc(g->w, n * sizeof *nw);
        if (!nw) return gfail(c, "%ld: out of memory", r->rec_line);
        memset(nw + g->nw, 0, (n - g->nw) * sizeof *nw);
        g->w = nw;
        g->nw = n;
    }
    uint64_t bit = (uint64_t)1 << (b.index % 64);
    if ((g->w[w] & bit) && (g->dup < 0 || b.index < g->dup)) g->dup = b.index;
    g->w[w] |= bit;
    return 0;
}

/* The kernel of a row already checked by the first pass. */
static int32_t row_kernel(gt_ctx *c, const imp_csv *r, trace *t) {
    size_t klen;
    const char *label = trimmed(r->f[c->col[G_KERNEL]].s, &klen);
    trace_str id = trace_intern_n(t, label, klen);
    return id < c->kidx_n ? c->kidx[id] - 1 : -1;
}

static int block_row(gt_ctx *c, const imp_csv *r, trace *t) {
    int64_t index, sm, start, end;
    int32_t ki = row_kernel(c, r, t);
    if (ki < 0 || int_field(c, r, G_BLOCK, 0, INT32_MAX, &index) < 0 ||
        int_field(c, r, G_SM, 0, IMP_MAX_SMS - 1, &sm) < 0 ||
        int_field(c, r, G_START, 0, INT64_MAX, &start) < 0 ||
        int_field(c, r, G_END, 0, INT64_MAX, &end) < 0)
        return ki < 0 ? gfail(c, "%ld: the file changed while it was read", r->rec_line) : -1;
    trace_block *b = trace_add_block(t);
    if (!b) return gfail(c, "%ld: out of memory", r->rec_line);
    *b = (trace_block){.kernel = ki, .index = (int32_t)index, .sm = (int32_t)sm,
                       .start = start, .end = end};
    return imp_stream_rows(c->cx, t, NULL, 0, c->err, c->errlen);
}

static int dup_row(gt_ctx *c, const imp_csv *r, trace *t) {
    int64_t index;
    if (row_kernel(c, r, t) != c->st->dup_kernel ||
        int_field(c, r, G_BLOCK, 0, INT32_MAX, &index) < 0 || index != c->st->dup_index)
        return 0;
    if (c->st->dup_found < 2) c->st->dup_line[c->st->dup_found++] = r->rec_line;
    return 0;
}

static int stream_import(gt_ctx *c, const imp_file *file, trace *out) {
    gt_stream st = {.dup_kernel = -1};
    c->st = &st;
    int ret = -1;
    if (scan(c, file, out, sum_row, 0, 0.5) < 0) goto done;
    if (st.rows == 0) {
        gfail(c, " no block rows (expected kernel,block,sm,start_ns,end_ns lines)");
        goto done;
    }
    for (size_t k = 0; k < out->kernels.n && k < st.nbits; k++)
        if (st.bits[k].dup >= 0) {
            st.dup_kernel = (int32_t)k;
            st.dup_index = st.bits[k].dup;
            break;
        }
    if (st.dup_kernel >= 0) {
        imp_stream_rewind(c->cx);
        if (scan(c, file, out, dup_row, 0.5, 0.5) < 0) goto done;
        const trace_kernel *k = &out->kernels.v[st.dup_kernel];
        trace_str label = k->raw_name ? k->raw_name : k->name;
        char q[64];
        gfail(c, "%ld: kernel \"%s\" block %d appears twice (first at line %ld)", st.dup_line[1],
              imp_quote_value(q, sizeof q, trace_str_get(out, label), 40), (int)st.dup_index,
              st.dup_line[0]);
        goto done;
    }
    if (out->oom) {
        gfail(c, " out of memory");
        goto done;
    }
    for (size_t k = 0; k < st.nbits; k++) free(st.bits[k].w);
    free(st.bits);
    st.bits = NULL;
    st.nbits = 0;
    /* the kernels first: their earliest time is the origin (imp_stream's base) */
    if (imp_stream_flush(c->cx, out, c->err, c->errlen) < 0) goto done;
    imp_stream_rewind(c->cx);
    if (scan(c, file, out, block_row, 0.5, 0.5) < 0) goto done;
    if (imp_stream_flush(c->cx, out, c->err, c->errlen) < 0) goto done;
    if (out->oom) {
        gfail(c, " out of memory");
        goto done;
    }
    ret = 0;
done:
    for (size_t k = 0; k < st.nbits; k++) free(st.bits[k].w);
    free(st.bits);
    c->st = NULL;
    return ret;
}

int imp_globaltimer_csv(imp_ctx *cx, const imp_file *files, size_t nfiles, trace *out, char *err,
                        size_t errlen) {
    (void)nfiles;   /* one file (not multi_file) */
    const imp_file *file = &files[0];
    gt_ctx c;
    memset(&c, 0, sizeof c);
    c.cx = cx;
    c.file = file->name ? file->name : "globaltimer.csv";
    c.err = err;
    c.errlen = errlen;
    int ret = -1;
    if (imp_stream_active(cx)) {
        ret = stream_import(&c, file, out);
        goto done;
    }
    if (scan(&c, file, out, add_row, 0, 1) < 0) goto done;
    if (out->blocks.n == 0) {
        gfail(&c, " no block rows (expected kernel,block,sm,start_ns,end_ns lines)");
        goto done;
    }
    if (c.nrefs > 1) qsort(c.refs, c.nrefs, sizeof *c.refs, cmp_ref);
    for (size_t i = 1; i < c.nrefs; i++)
        if (c.refs[i].kernel == c.refs[i - 1].kernel && c.refs[i].index == c.refs[i - 1].index) {
            const trace_kernel *k = &out->kernels.v[c.refs[i].kernel];
            trace_str label = k->raw_name ? k->raw_name : k->name;
            char q[64];
            gfail(&c, "%ld: kernel \"%s\" block %d appears twice (first at line %ld)",
                  c.refs[i].line, imp_quote_value(q, sizeof q, trace_str_get(out, label), 40),
                  c.refs[i].index,
                  c.refs[i - 1].line);
            goto done;
        }
    if (out->oom) {
        gfail(&c, " out of memory");
        goto done;
    }
    ret = 0;
done:
    free(c.kidx);
    free(c.refs);
    return ret;
}

static bool detect(const imp_file *f) {
    return imp_sniff_text(f->data, f->len) == IMP_GLOBALTIMER_CSV;
}

const imp_importer imp_globaltimer_csv_format = {
    .name = "globaltimer-csv",
    .hint = "tools/recorder block CSV: kernel,block,sm,start_ns,end_ns (.csv)",
    .detect = detect,
    .read = imp_globaltimer_csv,
    .stream = true,
};
