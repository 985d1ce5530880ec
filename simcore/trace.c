/* trace.c -- storage for the trace model: growable record arrays and an
 * interned string table. See trace.h for the ownership and error rules. */
#include "trace.h"

#include <stdlib.h>
#include <string.h>

#include "fnv.h"

struct trace_strhash {
    uint32_t *slots;         /* string ids; 0 = empty */
    size_t cap;              /* power of two */
};

static uint64_t str_hash(const char *s, size_t n) {
    uint64_t h = FNV1A_OFFSET;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= FNV1A_PRIME;
    }
    return h;
}

/* Grow a vector to hold at least `need` elements of size `esz`. */
static bool vec_grow(trace *t, void **v, size_t *cap, size_t need, size_t esz) {
    if (t->oom) return false;
    if (need <= *cap) return true;
    size_t ncap = *cap ? *cap : 16;
    while (ncap < need) ncap *= 2;
    void *nv = realloc(*v, ncap * esz);
    if (!nv) { t->oom = true; return false; }
    *v = nv;
    *cap = ncap;
    return true;
}

#define VEC_PUSH(t, vec) \
    (vec_grow((t), (void **)&(vec).v, &(vec).cap, (vec).n + 1, sizeof(*(vec).v)) \
         ? &(vec).v[(vec).n++] : NULL)

void trace_init(trace *t) {
    memset(t, 0, sizeof *t);
}

void trace_free(trace *t) {
    free(t->name);
    free(t->source);
    free(t->kernels.v);
    free(t->blocks.v);
    free(t->cohorts.v);
    free(t->copies.v);
    free(t->queue_events.v);
    free(t->warp_issues.v);
    free(t->warp_epochs.v);
    free(t->jobs.v);
    free(t->host_calls.v);
    free(t->pauses.v);
    free(t->meta.v);
    free(t->devices.v);
    for (size_t i = 0; i < t->strs.n; i++) free(t->strs.v[i]);
    free(t->strs.v);
    if (t->strhash) {
        free(t->strhash->slots);
        free(t->strhash);
    }
    trace_init(t);
}

static int set_owned(trace *t, char **dst, const char *s) {
    char *copy = NULL;
    if (s) {
        copy = strdup(s);
        if (!copy) { t->oom = true; return -1; }
    }
    free(*dst);
    *dst = copy;
    return 0;
}

int trace_set_name(trace *t, const char *s) { return set_owned(t, &t->name, s); }
int trace_set_source(trace *t, const char *s) { return set_owned(t, &t->source, s); }

static bool strhash_rehash(trace *t, size_t ncap) {
    uint32_t *slots = calloc(ncap, sizeof *slots);
    if (!slots) { t->oom = true; return false; }
    for (size_t id = 1; id < t->strs.n; id++) {
        const char *s = t->strs.v[id];
        size_t i = str_hash(s, strlen(s)) & (ncap - 1);
        while (slots[i]) i = (i + 1) & (ncap - 1);
        slots[i] = (uint32_t)id;
    }
    free(t->strhash->slots);
    t->strhash->slots = slots;
    t->strhash->cap = ncap;
    return true;
}

trace_str trace_intern_n(trace *t, const char *s, size_t len) {
    if (!s || t->oom) return 0;
    if (!t->strhash) {
        t->strhash = calloc(1, sizeof *t->strhash);
        if (!t->strhash) { t->oom = true; return 0; }
        /* id 0 stands for "absent" */
        char **slot0 = VEC_PUSH(t, t->strs);
        if (!slot0) return 0;
        *slot0 = NULL;
        if (!strhash_rehash(t, 64)) return 0;
    }
    struct trace_strhash *h = t->strhash;
    size_t i = str_hash(s, len) & (h->cap - 1);
    while (h->slots[i]) {
        const char *c = t->strs.v[h->slots[i]];
        if (strncmp(c, s, len) == 0 && c[len] == '\0') return h->slots[i];
        i = (i + 1) & (h->cap - 1);
    }
    if (t->strs.n >= UINT32_MAX - 1) { t->oom = true; return 0; }
    char *copy = malloc(len + 1);
    if (!copy) { t->oom = true; return 0; }
    memcpy(copy, s, len);
    copy[len] = '\0';
    char **slot = VEC_PUSH(t, t->strs);
    if (!slot) { free(copy); return 0; }
    *slot = copy;
    trace_str id = (trace_str)(t->strs.n - 1);
    h->slots[i] = id;
    if (t->strs.n * 2 > h->cap) strhash_rehash(t, h->cap * 2);
    return t->oom ? 0 : id;
}

trace_str trace_intern(trace *t, const char *s) {
    return s ? trace_intern_n(t, s, strlen(s)) : 0;
}

const char *trace_str_get(const trace *t, trace_str id) {
    return (id && id < t->strs.n) ? t->strs.v[id] : NULL;
}

trace_kernel *trace_add_kernel(trace *t) {
    trace_kernel *k = VEC_PUSH(t, t->kernels);
    if (!k) return NULL;
    memset(k, 0, sizeof *k);
    k->priority = TRACE_PRIO_NONE;
    k->issue = k->first_block = k->fully_dispatched = k->end = TRACE_NONE;
    k->smem = TRACE_NONE;
    return k;
}

trace_block *trace_add_block(trace *t) {
    trace_block *b = VEC_PUSH(t, t->blocks);
    if (!b) return NULL;
    b->kernel = -1;
    b->index = -1;
    b->sm = -1;
    b->start = b->end = TRACE_NONE;
    return b;
}

trace_copy *trace_add_copy(trace *t) {
    trace_copy *c = VEC_PUSH(t, t->copies);
    if (!c) return NULL;
    memset(c, 0, sizeof *c);
    c->direction = TRACE_COPY_OTHER;
    c->engine = -1;
    c->bytes = TRACE_NONE;
    c->issue = c->start = c->end = TRACE_NONE;
    return c;
}

int32_t trace_add_device(trace *t, const sim_device *d) {
    if (t->devices.n >= INT32_MAX) return -1;
    sim_device *v = VEC_PUSH(t, t->devices);
    if (!v) return -1;
    *v = *d;
    return (int32_t)(t->devices.n - 1);
}

trace_queue_event *trace_add_queue_event(trace *t, int64_t when, trace_str queue,
                                         trace_str item, trace_queue_op op) {
    trace_queue_event *e = VEC_PUSH(t, t->queue_events);
    if (!e) return NULL;
    e->t = when;
    e->queue = queue;
    e->item = item;
    e->event = (int32_t)op;
    return e;
}

trace_warp_issue *trace_add_warp_issue(trace *t) {
    trace_warp_issue *w = VEC_PUSH(t, t->warp_issues);
    if (w) memset(w, 0, sizeof *w);
    return w;
}

trace_warp_epoch *trace_add_warp_epoch(trace *t) {
    trace_warp_epoch *w = VEC_PUSH(t, t->warp_epochs);
    if (w) memset(w, 0, sizeof *w);
    return w;
}

trace_host_call *trace_add_host_call(trace *t) {
    trace_host_call *c = VEC_PUSH(t, t->host_calls);
    if (!c) return NULL;
    memset(c, 0, sizeof *c);
    c->record = -1;
    c->at = c->issue = c->end = TRACE_NONE;
    return c;
}

trace_pause *trace_add_pause(trace *t, int64_t block, int64_t start, int64_t end) {
    trace_pause *p = VEC_PUSH(t, t->pauses);
    if (!p) return NULL;
    p->block = block;
    p->start = start;
    p->end = end;
    return p;
}

trace_job *trace_add_job(trace *t) {
    trace_job *j = VEC_PUSH(t, t->jobs);
    if (!j) return NULL;
    j->task = 0;
    j->job = 0;
    j->release = j->start = j->end = j->deadline = TRACE_NONE;
    return j;
}

int trace_set_meta(trace *t, const char *key, const char *value) {
    trace_str k = trace_intern(t, key), v = trace_intern(t, value);
    if (t->oom) return -1;
    for (size_t i = 0; i < t->meta.n; i++)
        if (t->meta.v[i].key == k) { t->meta.v[i].value = v; return 0; }
    trace_meta *m = VEC_PUSH(t, t->meta);
    if (!m) return -1;
    m->key = k;
    m->value = v;
    return 0;
}

const char *trace_get_meta(const trace *t, const char *key) {
    for (size_t i = 0; i < t->meta.n; i++) {
        const char *k = trace_str_get(t, t->meta.v[i].key);
        if (k && strcmp(k, key) == 0) return trace_str_get(t, t->meta.v[i].value);
    }
    return NULL;
}

trace_cohort *trace_add_cohort(trace *t) {
    trace_cohort *c = VEC_PUSH(t, t->cohorts);
    if (!c) return NULL;
    memset(c, 0, sizeof *c);
    c->kernel = c->sm = -1;
    c->start = c->end = TRACE_NONE;
    return c;
}

int64_t trace_block_total(const trace *t) {
    int64_t n = (int64_t)t->blocks.n;
    for (size_t i = 0; i < t->cohorts.n; i++) n += t->cohorts.v[i].count;
    return n;
}

int trace_expand_cohorts(trace *t) {
    if (t->oom) return -1;
    int64_t total = trace_block_total(t);
    if (total < 0 || (uint64_t)total > SIZE_MAX / sizeof *t->blocks.v ||
        trace_reserve_blocks(t, (size_t)(total - (int64_t)t->blocks.n)) != 0) {
        t->oom = true;
        return -1;
    }
    for (size_t i = 0; i < t->cohorts.n; i++)
        for (int64_t j = 0; j < t->cohorts.v[i].count; j++)
            t->blocks.v[t->blocks.n++] = trace_cohort_block(&t->cohorts.v[i], j);
    t->cohorts.n = 0;
    return 0;
}

int trace_reserve_blocks(trace *t, size_t n) {
    return vec_grow(t, (void **)&t->blocks.v, &t->blocks.cap, t->blocks.n + n,
                    sizeof *t->blocks.v) ? 0 : -1;
}

static void span(int64_t x, int64_t *lo, int64_t *hi) {
    if (x == TRACE_NONE) return;
    if (*lo == TRACE_NONE || x < *lo) *lo = x;
    if (*hi == TRACE_NONE || x > *hi) *hi = x;
}

void trace_time_span(const trace *t, int64_t *tmin, int64_t *tmax) {
    int64_t lo = TRACE_NONE, hi = TRACE_NONE;
    for (size_t i = 0; i < t->kernels.n; i++) {
        const trace_kernel *k = &t->kernels.v[i];
        span(k->issue, &lo, &hi);
        span(k->first_block, &lo, &hi);
        span(k->fully_dispatched, &lo, &hi);
        span(k->end, &lo, &hi);
    }
    for (size_t i = 0; i < t->blocks.n; i++) {
        span(t->blocks.v[i].start, &lo, &hi);
        span(t->blocks.v[i].end, &lo, &hi);
    }
    for (size_t i = 0; i < t->cohorts.n; i++) {   /* first and last waves */
        const trace_cohort *c = &t->cohorts.v[i];
        trace_block b = trace_cohort_block(c, c->count - 1);
        span(c->start, &lo, &hi);
        span(b.end, &lo, &hi);
    }
    for (size_t i = 0; i < t->copies.n; i++) {
        const trace_copy *c = &t->copies.v[i];
        span(c->issue, &lo, &hi);
        span(c->start, &lo, &hi);
        span(c->end, &lo, &hi);
    }
    for (size_t i = 0; i < t->queue_events.n; i++) span(t->queue_events.v[i].t, &lo, &hi);
    for (size_t i = 0; i < t->jobs.n; i++) {
        const trace_job *j = &t->jobs.v[i];
        span(j->release, &lo, &hi);
        span(j->start, &lo, &hi);
        span(j->end, &lo, &hi);
        /* a deadline is not an event: it does not widen the span */
    }
    for (size_t i = 0; i < t->host_calls.n; i++) {
        const trace_host_call *c = &t->host_calls.v[i];
        span(c->at, &lo, &hi);
        span(c->issue, &lo, &hi);
        span(c->end, &lo, &hi);
    }
    *tmin = lo;
    *tmax = hi;
}

static void shift(int64_t *x, int64_t d) {
    if (*x != TRACE_NONE) *x -= d;
}

int64_t trace_rebase(trace *t) {
    int64_t lo, hi;
    trace_time_span(t, &lo, &hi);
    if (lo == TRACE_NONE || lo == 0) return 0;
    for (size_t i = 0; i < t->kernels.n; i++) {
        trace_kernel *k = &t->kernels.v[i];
        shift(&k->issue, lo);
        shift(&k->first_block, lo);
        shift(&k->fully_dispatched, lo);
        shift(&k->end, lo);
    }
    for (size_t i = 0; i < t->blocks.n; i++) {
        shift(&t->blocks.v[i].start, lo);
        shift(&t->blocks.v[i].end, lo);
    }
    for (size_t i = 0; i < t->cohorts.n; i++) {
        shift(&t->cohorts.v[i].start, lo);
        shift(&t->cohorts.v[i].end, lo);
    }
    for (size_t i = 0; i < t->copies.n; i++) {
        shift(&t->copies.v[i].issue, lo);
        shift(&t->copies.v[i].start, lo);
        shift(&t->copies.v[i].end, lo);
    }
    for (size_t i = 0; i < t->queue_events.n; i++) shift(&t->queue_events.v[i].t, lo);
    for (size_t i = 0; i < t->pauses.n; i++) {
        shift(&t->pauses.v[i].start, lo);
        shift(&t->pauses.v[i].end, lo);
    }
    for (size_t i = 0; i < t->jobs.n; i++) {
        shift(&t->jobs.v[i].release, lo);
        shift(&t->jobs.v[i].start, lo);
        shift(&t->jobs.v[i].end, lo);
        shift(&t->jobs.v[i].deadline, lo);
    }
    for (size_t i = 0; i < t->host_calls.n; i++) {
        shift(&t->host_calls.v[i].at, lo);
        shift(&t->host_calls.v[i].issue, lo);
        shift(&t->host_calls.v[i].end, lo);
    }
    t->origin += lo;
    return lo;
}

static const char *const copy_dir_names[] = {
    [TRACE_COPY_H2D] = "h2d", [TRACE_COPY_D2H] = "d2h", [TRACE_COPY_D2D] = "d2d",
    [TRACE_COPY_H2H] = "h2h", [TRACE_COPY_P2P] = "p2p", [TRACE_COPY_MEMSET] = "memset",
    [TRACE_COPY_OTHER] = "other", [TRACE_COPY_UVM_H2D] = "uvm_h2d",
    [TRACE_COPY_UVM_D2H] = "uvm_d2h", [TRACE_COPY_UVM_D2D] = "uvm_d2d",
};

const char *trace_copy_dir_name(int32_t dir) {
    if (dir < 0 || dir > TRACE_COPY_DIR_LAST) return "other";
    return copy_dir_names[dir];
}

int trace_copy_dir_parse(const char *s) {
    for (int i = 0; i <= TRACE_COPY_DIR_LAST; i++)
        if (strcmp(s, copy_dir_names[i]) == 0) return i;
    return -1;
}
