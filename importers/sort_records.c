/* sort_records.c -- see sort_records.h. */
#include "sort_records.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct sort_ent {
    int64_t key;
    size_t idx;              /* position before sorting: the tie-break */
} sort_ent;

static int ent_cmp(const void *pa, const void *pb) {
    const sort_ent *a = pa, *b = pb;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* Sort (key, position) pairs -- small and cheap to move -- then move each
 * record once, in place, cycle by cycle (one record of scratch), so the
 * sort does not copy the run. Skipped when already in key order. */
int imp_sort_records(void *base, size_t n, size_t esz, size_t key_off) {
    char *a = base;
    size_t i = 1;
    int64_t prev, cur;
    while (i < n) {
        memcpy(&prev, a + (i - 1) * esz + key_off, sizeof prev);
        memcpy(&cur, a + i * esz + key_off, sizeof cur);
        if (prev > cur) break;
        i++;
    }
    if (i >= n) return 0;
    if (n > SIZE_MAX / sizeof(sort_ent)) return -1;
    sort_ent *e = malloc(n * sizeof *e);
    char *tmp = malloc(esz);
    if (!e || !tmp) { free(e); free(tmp); return -1; }
    for (i = 0; i < n; i++) {
        memcpy(&e[i].key, a + i * esz + key_off, sizeof e[i].key);
        e[i].idx = i;
    }
    qsort(e, n, sizeof *e, ent_cmp);
    /* slot i must receive record e[i].idx; a slot done is marked idx = i */
    for (i = 0; i < n; i++) {
        if (e[i].idx == i) continue;
        memcpy(tmp, a + i * esz, esz);
        size_t j = i;
        for (;;) {
            size_t k = e[j].idx;
            e[j].idx = j;
            if (k == i) { memcpy(a + j * esz, tmp, esz); break; }
            memcpy(a + j * esz, a + k * esz, esz);
            j = k;
        }
    }
    free(e);
    free(tmp);
    return 0;
}
