/* summary.c -- see summary.h. */
#include "summary.h"

#include <stdlib.h>
#include <string.h>

enum { C_COMPUTE = 1, C_COMM = 2, C_COPY = 4, C_ALL = 7 };

typedef struct ivl {
    int64_t s, e;
    trace_str proc, stream;
    int cls;
} ivl;

bool trace_is_comm_kernel(const char *name) {
    if (!name) return false;
    if (strncmp(name, "void ", 5) == 0) name += 5;
    return strncmp(name, "nccl", 4) == 0;
}

static int cmp_stream(const void *a, const void *b) {
    const ivl *x = a, *y = b;
    if (x->proc != y->proc) return x->proc < y->proc ? -1 : 1;
    if (x->stream != y->stream) return x->stream < y->stream ? -1 : 1;
    if (x->s != y->s) return x->s < y->s ? -1 : 1;
    return (x->e > y->e) - (x->e < y->e);
}

static int cmp_device(const void *a, const void *b) {
    const ivl *x = a, *y = b;
    if (x->proc != y->proc) return x->proc < y->proc ? -1 : 1;
    if (x->s != y->s) return x->s < y->s ? -1 : 1;
    return (x->e > y->e) - (x->e < y->e);
}

/* The union of the intervals of v[0..n) (sorted by start) whose class is in
 * mask: its length, and its pieces in out (may be NULL; room for n). */
static int64_t union_of(const ivl *v, size_t n, int mask, ivl *out, size_t *nout) {
    int64_t len = 0, cs = 0, ce = 0;
    bool open = false;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(v[i].cls & mask)) continue;
        if (open && v[i].s <= ce) {
            if (v[i].e > ce) ce = v[i].e;
            continue;
        }
        if (open) {
            len += ce - cs;
            if (out) out[k++] = (ivl){ cs, ce, 0, 0, 0 };
        }
        cs = v[i].s;
        ce = v[i].e;
        open = true;
    }
    if (open) {
        len += ce - cs;
        if (out) out[k++] = (ivl){ cs, ce, 0, 0, 0 };
    }
    if (nout) *nout = k;
    return len;
}

/* Length of the intersection of two unions (disjoint, sorted pieces). */
static int64_t intersect(const ivl *a, size_t na, const ivl *b, size_t nb) {
    int64_t len = 0;
    size_t i = 0, j = 0;
    while (i < na && j < nb) {
        int64_t s = a[i].s > b[j].s ? a[i].s : b[j].s;
        int64_t e = a[i].e < b[j].e ? a[i].e : b[j].e;
        if (e > s) len += e - s;
        if (a[i].e < b[j].e) i++;
        else j++;
    }
    return len;
}

static void fill_lane(tsum_lane *l, const ivl *v, size_t n, int64_t window) {
    l->window = window;
    l->busy = union_of(v, n, C_ALL, NULL, NULL);
    l->compute = union_of(v, n, C_COMPUTE, NULL, NULL);
    l->comm = union_of(v, n, C_COMM, NULL, NULL);
    l->copy = union_of(v, n, C_COPY, NULL, NULL);
    l->idle = window - l->busy;
    for (size_t i = 0; i < n; i++) {
        if (v[i].cls == C_COPY) l->copies++;
        else l->kernels++;
    }
}

/* nearest rank: the ceil(p/100 n)-th smallest of sorted v */
static int64_t pct(const int64_t *v, size_t n, int p) {
    size_t r = ((size_t)p * n + 99) / 100;
    if (r == 0) r = 1;
    return v[r - 1];
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

typedef struct kd { trace_str name; int64_t d; } kd;

static int cmp_kd(const void *a, const void *b) {
    const kd *x = a, *y = b;
    if (x->name != y->name) return x->name < y->name ? -1 : 1;
    return (x->d > y->d) - (x->d < y->d);
}

static int cmp_name_total(const void *a, const void *b) {
    const tsum_name *x = a, *y = b;
    if (x->total != y->total) return x->total > y->total ? -1 : 1;
    return (x->name > y->name) - (x->name < y->name);
}

static bool known(int64_t s, int64_t e) { return s != TRACE_NONE && e != TRACE_NONE && e >= s; }

void trace_summary_free(trace_summary *s) {
    free(s->devices);
    free(s->streams);
    free(s->names);
    memset(s, 0, sizeof *s);
}

static int lanes(trace_summary *s, ivl *v, size_t n) {
    ivl *tmp = malloc((n ? n : 1) * 2 * sizeof *tmp);
    s->devices = calloc(n ? n : 1, sizeof *s->devices);
    s->streams = calloc(n ? n : 1, sizeof *s->streams);
    if (!tmp || !s->devices || !s->streams) { free(tmp); return -1; }
    /* devices */
    qsort(v, n, sizeof *v, cmp_device);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        int64_t lo = v[i].s, hi = v[i].e;
        while (j < n && v[j].proc == v[i].proc) {
            if (v[j].e > hi) hi = v[j].e;
            j++;
        }
        tsum_lane *l = &s->devices[s->ndevices++];
        l->process = v[i].proc;
        fill_lane(l, v + i, j - i, hi - lo);
        size_t na, nb;
        ivl *a = tmp, *b = tmp + n;
        union_of(v + i, j - i, C_COMM, a, &na);
        union_of(v + i, j - i, C_COMPUTE, b, &nb);
        l->comm_overlapped = intersect(a, na, b, nb);
        s->comm += l->comm;
        s->comm_overlapped += l->comm_overlapped;
        i = j;
    }
    /* streams, with their device's window */
    qsort(v, n, sizeof *v, cmp_stream);
    size_t d = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && v[j].proc == v[i].proc && v[j].stream == v[i].stream) j++;
        while (d < s->ndevices && s->devices[d].process != v[i].proc) d++;
        tsum_lane *l = &s->streams[s->nstreams++];
        l->process = v[i].proc;
        l->stream = v[i].stream;
        fill_lane(l, v + i, j - i, d < s->ndevices ? s->devices[d].window : 0);
        i = j;
    }
    free(tmp);
    return 0;
}

static int names(trace_summary *s, const trace *t) {
    size_t n = 0;
    kd *v = malloc((t->kernels.n ? t->kernels.n : 1) * sizeof *v);
    if (!v) return -1;
    for (size_t i = 0; i < t->kernels.n; i++) {
        const trace_kernel *k = &t->kernels.v[i];
        if (!known(k->first_block, k->end)) continue;
        v[n++] = (kd){ k->name, k->end - k->first_block };
        s->kernel_time += k->end - k->first_block;
    }
    qsort(v, n, sizeof *v, cmp_kd);
    s->names = calloc(n ? n : 1, sizeof *s->names);
    int64_t *d = malloc((n ? n : 1) * sizeof *d);
    if (!s->names || !d) { free(v); free(d); return -1; }
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && v[j].name == v[i].name) j++;
        tsum_name *m = &s->names[s->nnames++];
        m->name = v[i].name;
        m->count = j - i;
        for (size_t k = i; k < j; k++) {
            d[k - i] = v[k].d;
            m->total += v[k].d;
        }
        m->min = d[0];
        m->max = d[j - i - 1];
        m->p50 = pct(d, j - i, 50);
        m->p95 = pct(d, j - i, 95);
        m->mean = (double)m->total / (double)m->count;
        m->share = s->kernel_time ? (double)m->total / (double)s->kernel_time : 0;
        i = j;
    }
    qsort(s->names, s->nnames, sizeof *s->names, cmp_name_total);
    free(v);
    free(d);
    return 0;
}

static int launch(trace_summary *s, const trace *t) {
    int64_t *d = malloc((t->kernels.n ? t->kernels.n : 1) * sizeof *d);
    if (!d) return -1;
    size_t n = 0;
    double sum = 0;
    for (size_t i = 0; i < t->kernels.n; i++) {
        const trace_kernel *k = &t->kernels.v[i];
        if (k->issue == TRACE_NONE || k->first_block == TRACE_NONE) continue;
        d[n++] = k->first_block - k->issue;
        sum += (double)(k->first_block - k->issue);
    }
    qsort(d, n, sizeof *d, cmp_i64);
    tsum_dist *l = &s->launch;
    l->count = n;
    if (n) {
        l->min = d[0];
        l->max = d[n - 1];
        l->p50 = pct(d, n, 50);
        l->p95 = pct(d, n, 95);
        l->p99 = pct(d, n, 99);
        l->mean = sum / (double)n;
    }
    free(d);
    return 0;
}

int trace_summarize(const trace *t, trace_summary *s) {
    memset(s, 0, sizeof *s);
    size_t cap = t->kernels.n + t->copies.n;
    ivl *v = malloc((cap ? cap : 1) * sizeof *v);
    if (!v) return -1;
    size_t n = 0;
    for (size_t i = 0; i < t->kernels.n; i++) {
        const trace_kernel *k = &t->kernels.v[i];
        if (!known(k->first_block, k->end)) continue;
        /* the name as shown or as the source wrote it: nvprof and Nsight
         * keep the mangled name as the raw one ("_Z33ncclBroadcast…"),
         * which alone read every NCCL kernel of such a trace as compute */
        bool comm = trace_is_comm_kernel(trace_str_get(t, k->name)) ||
                    (k->raw_name && trace_is_comm_kernel(trace_str_get(t, k->raw_name)));
        v[n++] = (ivl){ k->first_block, k->end, k->process, k->stream, comm ? C_COMM : C_COMPUTE };
    }
    for (size_t i = 0; i < t->copies.n; i++) {
        const trace_copy *c = &t->copies.v[i];
        if (!known(c->start, c->end)) continue;
        v[n++] = (ivl){ c->start, c->end, c->process, c->stream, C_COPY };
    }
    int rc = lanes(s, v, n);
    free(v);
    if (rc == 0) rc = names(s, t);
    if (rc == 0) rc = launch(s, t);
    if (rc < 0) trace_summary_free(s);
    return rc;
}
