/* qos.c -- sim_ipc_isolated: the IPC a kernel reaches alone on the device
 * (ISCA'17 §3.2, IPC_isolated), by simulating it alone, cached per kernel
 * shape (sim.h says what counts as the shape).
 *
 * The cache key is the bytes of every value the isolated run depends on,
 * written one after another (never a struct's memory, whose padding is
 * unspecified): the device's fields, the policies, the kernel's shape.
 * Every part whose length varies follows what says how long it is (the
 * device's SM count before its SM order, the body's length before the
 * body, whether there is a scoreboard and each entry's count of reads
 * before the reads), so no key is the start of another: two keys of one
 * length are one shape exactly when their bytes are equal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "warp.h"

typedef struct sim_ipc_entry {
    unsigned char *key;
    size_t len;
    double ipc;
} sim_ipc_entry;

typedef struct keybuf {
    unsigned char *v;
    size_t n, cap;
    bool oom;
} keybuf;

static void put(keybuf *b, const void *p, size_t n) {
    if (b->oom) return;
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 512;
        while (cap < b->n + n) cap *= 2;
        unsigned char *v = realloc(b->v, cap);
        if (!v) {
            b->oom = true;
            return;
        }
        b->v = v;
        b->cap = cap;
    }
    memcpy(b->v + b->n, p, n);
    b->n += n;
}

#define PUT(b, x) put((b), &(x), sizeof(x))   /* x: an lvalue */

static void key_of(keybuf *b, const sim_config *cfg, const sim_op *o) {
    const sim_device *d = &cfg->device;
#define KEY_FIELD(field, type, kind, key, req, doc) PUT(b, d->field);
    SIM_DEVICE_FIELDS(KEY_FIELD)
#undef KEY_FIELD
    int32_t order = (int32_t)d->sm_order_kind;
    PUT(b, order);
    for (int32_t i = 0; i < d->sms && i < SIM_MAX_SMS; i++) PUT(b, d->sm_order[i]);
    const sim_policy *p = &cfg->policy;
    PUT(b, p->placement);
    PUT(b, p->execution);
    PUT(b, p->driver);
    PUT(b, p->launch_latency);
    PUT(b, p->dispatch_latency);
    PUT(b, p->warp);
    PUT(b, o->blocks);
    PUT(b, o->threads);
    PUT(b, o->smem);
    PUT(b, o->regs);
    PUT(b, o->budget);
    const sim_program *g = o->program;
    uint64_t nbody = g->nbody;
    PUT(b, nbody);
    uint8_t scoreboard = g->dep != NULL;
    PUT(b, scoreboard);
    for (size_t j = 0; j < g->nbody; j++) {
        PUT(b, g->body[j].iclass);
        PUT(b, g->body[j].count);
        sim_access a = g->access ? g->access[j] : (sim_access){ 0, 0, 0, 0, 0, 0 };
        PUT(b, a.sectors);
        PUT(b, a.store);
        PUT(b, a.fp32);
        PUT(b, a.scope);
        PUT(b, a.footprint);
        PUT(b, a.managed);
        if (g->dep) {   /* the scoreboard */
            PUT(b, g->dep[j].n);
            for (int32_t q = 0; q < g->dep[j].n; q++) PUT(b, g->dep[j].on[q]);
        }
    }
    PUT(b, g->repeat);
    for (int32_t c = 0; c < SIM_NICLASS; c++) PUT(b, g->latency[c]);
    PUT(b, g->mem_requests);
    PUT(b, g->persistent);
}

void sim_ipc_cache_init(sim_ipc_cache *c) {
    memset(c, 0, sizeof *c);
}

void sim_ipc_cache_free(sim_ipc_cache *c) {
    for (size_t i = 0; i < c->n; i++) free(c->v[i].key);
    free(c->v);
    memset(c, 0, sizeof *c);
}

/* The isolated run of op `op` (the op alone, at 0, on a stream of its own;
 * a quota policy's own scheduler underneath, ISCA'17 Table 1: GTO) into
 * *alone / *one / *stream, and its cache key into kb. */
static void alone_of(const sim_config *cfg, size_t op, sim_config *alone, sim_op *one,
                     sim_stream *stream, keybuf *kb) {
    *one = cfg->ops[op];
    one->stream = 0;
    one->at = 0;
    one->qos_goal = 0;
    *stream = (sim_stream){ .name = "S1", .process = "P0", .priority = SIM_PRIO_NONE };
    *alone = (sim_config){ 0 };
    alone->name = "isolated";
    alone->device = cfg->device;
    alone->policy = cfg->policy;
    const warp_policy *wp = warp_get(cfg->policy.warp);
    if (wp && wp->quota) alone->policy.warp = 0;
    alone->policy.tb_adjust = false;   /* §3.6's, of sharing: nothing to adjust alone */
    alone->policy.has_quota_history = false;   /* a quota scheme's, and alone runs GTO */
    alone->policy.host = 0;
    alone->policy.warp_issue_limit = -1;     /* no issue records: only the ipc is read */
    alone->streams = stream;
    alone->nstreams = 1;
    alone->ops = one;
    alone->nops = 1;
    alone->seed = cfg->seed;
    key_of(kb, alone, one);
}

static int cache_add(sim_ipc_cache *cache, keybuf *kb, double v) {
    for (size_t i = 0; i < cache->n; i++) {
        if (cache->v[i].len == kb->n && memcmp(cache->v[i].key, kb->v, kb->n) == 0) {
            free(kb->v);
            cache->v[i].ipc = v;
            return 0;
        }
    }
    if (cache->n == cache->cap) {
        size_t cap = cache->cap ? 2 * cache->cap : 16;
        sim_ipc_entry *nv = realloc(cache->v, cap * sizeof *nv);
        if (!nv) {
            free(kb->v);
            return -1;
        }
        cache->v = nv;
        cache->cap = cap;
    }
    cache->v[cache->n++] = (sim_ipc_entry){ .key = kb->v, .len = kb->n, .ipc = v };
    return 0;
}

int sim_ipc_cache_put(sim_ipc_cache *cache, const sim_config *cfg, size_t op, double ipc) {
    if (op >= cfg->nops || cfg->ops[op].kind != SIM_OP_KERNEL || !cfg->ops[op].program) return -1;
    sim_config alone;
    sim_op one;
    sim_stream stream;
    keybuf kb = { 0 };
    alone_of(cfg, op, &alone, &one, &stream, &kb);
    if (kb.oom) {
        free(kb.v);
        return -1;
    }
    return cache_add(cache, &kb, ipc);
}

int sim_ipc_isolated(const sim_config *cfg, size_t op, sim_ipc_cache *cache, double *ipc,
                     char *err, size_t errlen) {
    if (op >= cfg->nops || cfg->ops[op].kind != SIM_OP_KERNEL || !cfg->ops[op].program) {
        snprintf(err, errlen, "ops[%zu]: not a kernel with a program; only those have an "
                 "isolated IPC", op);
        return -1;
    }
    sim_config alone;
    sim_op one;
    sim_stream stream;
    keybuf kb = { 0 };
    alone_of(cfg, op, &alone, &one, &stream, &kb);
    if (kb.oom) {
        free(kb.v);
        snprintf(err, errlen, "ops[%zu]: out of memory", op);
        return -1;
    }
    if (cache) {
        for (size_t i = 0; i < cache->n; i++) {
            if (cache->v[i].len == kb.n && memcmp(cache->v[i].key, kb.v, kb.n) == 0) {
                free(kb.v);
                *ipc = cache->v[i].ipc;
                return 0;
            }
        }
    }
    trace t;
    trace_init(&t);
    char e[256];
    int rc = sim_run(&alone, &t, e, sizeof e);
    double v = rc == 0 && t.kernels.n == 1 ? t.kernels.v[0].ipc : 0;
    trace_free(&t);
    if (rc != 0) {
        free(kb.v);
        snprintf(err, errlen, "ops[%zu]: alone on the device: %s", op, e);
        return -1;
    }
    if (cache) {
        cache->runs++;
        if (cache_add(cache, &kb, v) != 0) {
            snprintf(err, errlen, "ops[%zu]: out of memory", op);
            return -1;
        }
    } else {
        free(kb.v);
    }
    *ipc = v;
    return 0;
}
