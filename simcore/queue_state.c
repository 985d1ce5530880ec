/* queue_state.c -- replaying queue events into queue contents. See
 * queue_state.h. */
#include "queue_state.h"

#include <stdlib.h>
#include <string.h>

void sim_qstate_init(sim_qstate *s, bool series) {
    memset(s, 0, sizeof *s);
    s->series = series;
}

void sim_qstate_free(sim_qstate *s) {
    for (size_t i = 0; i < s->n; i++) {
        free(s->q[i].items);
        free(s->q[i].t);
        free(s->q[i].len);
    }
    free(s->q);
    sim_qstate_init(s, s->series);
}

/* Queues are few (one per stream, EE priority and copy engine), so a linear
 * search is enough; the last one found is tried first because events come
 * in runs on one queue. */
static sim_qstate_queue *get_queue(sim_qstate *s, trace_str name) {
    if (s->last < s->n && s->q[s->last].name == name) return &s->q[s->last];
    for (size_t i = 0; i < s->n; i++)
        if (s->q[i].name == name) {
            s->last = i;
            return &s->q[i];
        }
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 16;
        sim_qstate_queue *nq = realloc(s->q, nc * sizeof *nq);
        if (!nq) return NULL;
        s->q = nq;
        s->cap = nc;
    }
    sim_qstate_queue *q = &s->q[s->n];
    memset(q, 0, sizeof *q);
    q->name = name;
    s->last = s->n++;
    return q;
}

static int enqueue(sim_qstate_queue *q, trace_str item) {
    if (q->n == q->cap) {
        /* slide the live entries down before growing: a FIFO that is
         * drained as fast as it fills then never grows */
        if (q->head > 0) {
            memmove(q->items, q->items + q->head, (q->n - q->head) * sizeof *q->items);
            q->n -= q->head;
            q->head = 0;
        }
        if (q->n == q->cap) {
            size_t nc = q->cap ? q->cap * 2 : 8;
            trace_str *ni = realloc(q->items, nc * sizeof *ni);
            if (!ni) return -1;
            q->items = ni;
            q->cap = nc;
        }
    }
    q->items[q->n++] = item;
    return 0;
}

/* false: the queue did not hold the item */
static bool dequeue(sim_qstate_queue *q, trace_str item) {
    for (size_t i = q->head; i < q->n; i++) {
        if (q->items[i] != item) continue;
        if (i == q->head) q->head++;
        else {
            memmove(q->items + i, q->items + i + 1, (q->n - i - 1) * sizeof *q->items);
            q->n--;
        }
        return true;
    }
    return false;
}

static int add_point(sim_qstate_queue *q, int64_t t) {
    int64_t len = (int64_t)sim_qstate_len(q);
    if (q->np && q->t[q->np - 1] == t) {
        q->len[q->np - 1] = len;
        return 0;
    }
    if (q->np == q->capp) {
        size_t nc = q->capp ? q->capp * 2 : 16;
        int64_t *nt = realloc(q->t, nc * sizeof *nt);
        if (!nt) return -1;
        q->t = nt;
        int64_t *nl = realloc(q->len, nc * sizeof *nl);
        if (!nl) return -1;
        q->len = nl;
        q->capp = nc;
    }
    q->t[q->np] = t;
    q->len[q->np++] = len;
    return 0;
}

int sim_qstate_apply(sim_qstate *s, int64_t t, trace_str queue, trace_str item, int32_t event) {
    if (s->oom) return -1;
    sim_qstate_queue *q = get_queue(s, queue);
    if (!q) goto oom;
    if (event == TRACE_ENQUEUE) {
        if (enqueue(q, item)) goto oom;
    } else if (!dequeue(q, item)) {
        s->stray++;
    }
    if (s->series && add_point(q, t)) goto oom;
    return 0;
oom:
    s->oom = true;
    return -1;
}

typedef struct order_key {
    int64_t t;
    size_t i;
} order_key;

static int order_cmp(const void *a, const void *b) {
    const order_key *x = a, *y = b;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

int sim_qstate_replay(sim_qstate *s, const trace *tr, int64_t at) {
    if (s->oom) return -1;
    const trace_queue_event *e = tr->queue_events.v;
    size_t n = tr->queue_events.n;
    bool sorted = true;
    for (size_t i = 1; i < n && sorted; i++) sorted = e[i - 1].t <= e[i].t;
    if (sorted) {
        /* the simulator's traces: walk them as they are */
        for (size_t i = 0; i < n && e[i].t <= at; i++)
            if (sim_qstate_apply(s, e[i].t, e[i].queue, e[i].item, e[i].event)) return -1;
        return 0;
    }
    /* (t, index) keys make qsort's order the stable one, as the database's
     * ORDER BY t, seq */
    order_key *k = malloc(n * sizeof *k);
    if (!k) {
        s->oom = true;
        return -1;
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (e[i].t <= at) k[m++] = (order_key){e[i].t, i};
    qsort(k, m, sizeof *k, order_cmp);
    int rc = 0;
    for (size_t j = 0; j < m && !rc; j++) {
        const trace_queue_event *x = &e[k[j].i];
        rc = sim_qstate_apply(s, x->t, x->queue, x->item, x->event);
    }
    free(k);
    return rc;
}

const sim_qstate_queue *sim_qstate_find(const sim_qstate *s, trace_str name) {
    for (size_t i = 0; i < s->n; i++)
        if (s->q[i].name == name) return &s->q[i];
    return NULL;
}
