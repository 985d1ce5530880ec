/* window_cohorts.c -- GET /api/runs/{run}/blocks of a run simulated with
 * cohorts (issue 28, "the placement view of a replay draws them"; see
 * window_cohorts.h and docs/api.md).
 *
 * A window holds the run's ordinary blocks (block pages, as any run's) and
 * the waves of its cohorts that overlap it (db/cohort_window.h). When the
 * blocks they stand for are at most `max`, every wave is expanded and the
 * answer is the one a block-by-block run of the same scenario gives, byte
 * for byte: the same blocks in the same order. That order is the run's
 * (start, seq): a block-by-block run records blocks as it places them, so
 * blocks of one start come in placement order. A cohort's wave is placed
 * at once on an idle GPU (simcore/cohort.c), before anything else at its
 * instant, its blocks by index (rank r gets index placed + r, the next
 * round placed + n + r, ...); waves of two kernels at one instant (blocks
 * of no duration) in the order their cohorts were recorded. Past `max`
 * blocks, while the records are at most `max`, each wave on an SM is one
 * entry with its `count` (DESIGN.md: "a block entry may stand for a
 * cohort") and `stride`; past that the caller answers bins. */
#include "window_cohorts.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../db/cohort_window.h"
#include "jw.h"
#include "pause_index.h"
#include "trace_json.h"

/* An entry of the answer: a block, or a cohort's wave of `count` blocks
 * (count 1: one block of it). seq orders entries of one start: a cohort's
 * (its record's, made the smallest of its kernel's at that start) before
 * any ordinary block's. */
typedef struct entry {
    trace_block b;
    int64_t count, stride;
    int64_t seq;
    bool cohort;
} entry;

typedef struct collect {
    entry *v;
    size_t n, cap;
    int64_t max;
    int64_t records, blocks;     /* wave records and blocks of the cohorts so far */
    struct coh { trace_cohort c; int64_t seq; } *c;   /* the cohorts read */
    size_t nc, capc;
    int64_t from, to;
    bool oom;
} collect;

static bool grow(void **v, size_t *cap, size_t n, size_t size) {
    if (n < *cap) return true;
    size_t nc = *cap ? *cap * 2 : 256;
    void *nv = realloc(*v, nc * size);
    if (!nv) return false;
    *v = nv;
    *cap = nc;
    return true;
}

static entry *push(collect *c) {
    if (!grow((void **)&c->v, &c->cap, c->n, sizeof *c->v)) {
        c->oom = true;
        return NULL;
    }
    return &c->v[c->n++];
}

static int take_cohort(void *ctx, const trace_cohort *co, int64_t seq) {
    collect *c = ctx;
    int64_t w0, w1;
    cw_overlap(co, c->from, c->to, &w0, &w1);
    c->records += w1 - w0;
    c->blocks += cw_blocks(co, w0, w1);
    if (c->records > c->max) return 1;   /* too many even as waves: bins */
    if (!grow((void **)&c->c, &c->capc, c->nc, sizeof *c->c)) {
        c->oom = true;
        return -1;
    }
    c->c[c->nc].c = *co;
    c->c[c->nc++].seq = seq;
    return 0;
}

static int take_block(void *ctx, const trace_block *b) {
    collect *c = ctx;
    entry *e = push(c);
    if (!e) return -1;
    *e = (entry){.b = *b, .count = 1, .stride = 1, .seq = INT64_MAX, .cohort = false};
    return 0;
}

static int by_start_kernel(const void *x, const void *y) {
    const entry *a = x, *b = y;
    if (a->b.start != b->b.start) return a->b.start < b->b.start ? -1 : 1;
    if (a->cohort != b->cohort) return a->cohort ? -1 : 1;
    if (a->b.kernel != b->b.kernel) return a->b.kernel < b->b.kernel ? -1 : 1;
    return (a->b.index > b->b.index) - (a->b.index < b->b.index);
}

static int by_start_seq(const void *x, const void *y) {
    const entry *a = x, *b = y;
    if (a->b.start != b->b.start) return a->b.start < b->b.start ? -1 : 1;
    if (a->seq != b->seq) return a->seq < b->seq ? -1 : 1;
    if (a->cohort && b->cohort) return (a->b.index > b->b.index) - (a->b.index < b->b.index);
    return 0;
}

/* The entries in answer order: by start; at one start the cohorts' first
 * (each kernel's at the smallest seq of its records there, then by
 * index), then the ordinary blocks, which came in (start, seq) order and
 * keep it (qsort is not stable: their seq is made their position). */
static void order(collect *c, size_t nblocks) {
    if (c->n < 2) return;   /* (qsort of no array at all is undefined) */
    for (size_t i = 0; i < nblocks; i++) c->v[i].seq = INT64_MAX / 2 + (int64_t)i;
    qsort(c->v, c->n, sizeof *c->v, by_start_kernel);
    for (size_t i = 0; i < c->n;) {
        size_t j = i;
        int64_t least = c->v[i].seq;
        while (j < c->n && c->v[j].cohort && c->v[i].cohort && c->v[j].b.start == c->v[i].b.start &&
               c->v[j].b.kernel == c->v[i].b.kernel) {
            if (c->v[j].seq < least) least = c->v[j].seq;
            j++;
        }
        if (j == i) {
            i++;
            continue;
        }
        for (size_t k = i; k < j; k++) c->v[k].seq = least;
        i = j;
    }
    qsort(c->v, c->n, sizeof *c->v, by_start_seq);
}

/* The cohorts' waves into entries: every block (expand) or one a wave. */
static bool cohort_entries(collect *c, bool expand) {
    for (size_t i = 0; i < c->nc; i++) {
        const trace_cohort *co = &c->c[i].c;
        int64_t w0, w1, p = cw_per_wave(co);
        cw_overlap(co, c->from, c->to, &w0, &w1);
        for (int64_t w = w0; w < w1; w++) {
            int64_t nb = cw_wave_blocks(co, w);
            for (int64_t j = 0; j < (expand ? nb : 1); j++) {
                entry *e = push(c);
                if (!e) return false;
                e->b = trace_cohort_block(co, w * p + j);
                e->count = expand ? 1 : nb;
                e->stride = co->stride;
                e->seq = c->c[i].seq;
                e->cohort = true;
            }
        }
    }
    return true;
}

static void put_entry(jw_buf *b, const entry *e, const pause_index *pauses) {
    if (e->count == 1) {
        if (pauses && !e->cohort) pause_index_put_block(pauses, b, &e->b);
        else tj_put_block(b, &e->b);
        return;
    }
    /* a wave: the block entry of its first block, with count and stride */
    tj_put_block(b, &e->b);
    if (b->oom || !b->len) return;
    b->len--;   /* its '}' */
    jw_puts(b, ",\"count\":");
    jw_i64_raw(b, e->count);
    jw_puts(b, ",\"stride\":");
    jw_i64_raw(b, e->stride);
    jw_putc(b, '}');
}

bool window_cohort_blocks(db *d, const char *run, const pyr_run *r, int64_t from, int64_t to,
                          int64_t max, http_response *res) {
    char err[512];
    collect c = {.max = max, .from = from, .to = to};
    pause_index *pauses = NULL;
    jw_buf b = {0};
    bool answered = true;
    int rc = db_window_cohorts(d, r, from, to, take_cohort, &c, err, sizeof err);
    if (rc == 1) {   /* more waves than max: bins */
        answered = false;
        goto out;
    }
    if (rc < 0 || c.oom) goto fail;
    int64_t left = max - c.records, n = 0;
    rc = db_window_blocks(d, r, from, to, left + 1, take_block, &c, &n, err, sizeof err);
    if (rc < 0 || c.oom) goto fail;
    if (n > left) {   /* blocks and waves together past max: bins */
        answered = false;
        goto out;
    }
    bool has_pauses = false;
    rc = db_run_has_pauses(d, r, &has_pauses, err, sizeof err);
    if (!rc && has_pauses) rc = pause_index_load(d, run, from, to, &pauses, err, sizeof err);
    if (rc) goto fail;
    /* at most max blocks in all: each one, as a block-by-block run answers */
    bool expand = n + c.blocks <= max;
    size_t nblocks = c.n;
    if (!cohort_entries(&c, expand)) goto fail;
    order(&c, nblocks);
    char head[160];
    snprintf(head, sizeof head,
             "{\"from\":%" PRId64 ",\"to\":%" PRId64 ",\"mode\":\"blocks\",\"blocks\":[", from, to);
    jw_puts(&b, head);
    for (size_t i = 0; i < c.n; i++) {
        if (i) jw_putc(&b, ',');
        put_entry(&b, &c.v[i], pauses);
    }
    jw_puts(&b, "],\"total\":");
    jw_i64_raw(&b, n + c.blocks);
    jw_putc(&b, '}');
    if (b.oom) goto fail;
    http_set_buf(res, 200, &b, "application/json");
    goto out;
fail:
    jw_free(&b);
    if (rc < 0) http_set_error(res, rc == DB_NOT_FOUND ? 404 : 500, "%s", err);
    else http_set_error(res, 500, "out of memory writing the response");
out:
    if (!answered) jw_free(&b);
    pause_index_free(pauses);
    free(c.v);
    free(c.c);
    return answered;
}
