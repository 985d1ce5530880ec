/* pause_index.c -- pauses by block for the blocks API. See pause_index.h. */
#include "pause_index.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct pentry {
    int32_t kernel, index;
    size_t seq;              /* order of arrival: the order the pauses began */
    int64_t start, end;
} pentry;

struct pause_index {
    pentry *v;
    size_t n, cap;
    bool oom;
};

static int add(void *ctx, int32_t kernel, int32_t index, int64_t start, int64_t end) {
    pause_index *x = ctx;
    if (x->n == x->cap) {
        size_t cap = x->cap ? x->cap * 2 : 256;
        pentry *v = realloc(x->v, cap * sizeof *v);
        if (!v) {
            x->oom = true;
            return -1;
        }
        x->v = v;
        x->cap = cap;
    }
    x->v[x->n] = (pentry){ kernel, index, x->n, start, end };
    x->n++;
    return 0;
}

static int cmp(const void *a, const void *b) {
    const pentry *x = a, *y = b;
    if (x->kernel != y->kernel) return x->kernel < y->kernel ? -1 : 1;
    if (x->index != y->index) return x->index < y->index ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

int pause_index_load(db *d, const char *run, int64_t from, int64_t to, pause_index **out,
                     char *err, size_t errlen) {
    *out = NULL;
    pause_index *x = calloc(1, sizeof *x);
    if (!x) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = db_pauses_window(d, run, from, to, add, x, err, errlen);
    if (x->oom) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
    }
    if (rc || x->n == 0) {
        pause_index_free(x);
        return rc;
    }
    qsort(x->v, x->n, sizeof *x->v, cmp);
    *out = x;
    return 0;
}

void pause_index_put_block(const pause_index *idx, tj_buf *b, const trace_block *blk) {
    tj_put_block(b, blk);
    if (!idx || b->oom || b->len == 0) return;
    /* the first pause of this block, by binary search */
    size_t lo = 0, hi = idx->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const pentry *e = &idx->v[mid];
        if (e->kernel < blk->kernel || (e->kernel == blk->kernel && e->index < blk->index))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == idx->n || idx->v[lo].kernel != blk->kernel || idx->v[lo].index != blk->index) return;
    b->len--;   /* reopen the object tj_put_block closed */
    tj_puts(b, ",\"pauses\":[");
    for (size_t i = lo; i < idx->n && idx->v[i].kernel == blk->kernel && idx->v[i].index == blk->index;
         i++) {
        char s[64];
        snprintf(s, sizeof s, "%s[%" PRId64 ",%" PRId64 "]", i > lo ? "," : "", idx->v[i].start,
                 idx->v[i].end);
        tj_puts(b, s);
    }
    tj_puts(b, "]}");
}

void pause_index_free(pause_index *idx) {
    if (!idx) return;
    free(idx->v);
    free(idx);
}
