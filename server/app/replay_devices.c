/* replay_devices.c -- several GPUs replayed as several simulated GPUs. See
 * replay_devices.h. */
#include "replay_devices.h"

#include <ctype.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../simcore/sim.h"
#include "fidelity_causes.h"
#include "replay_calls.h"
#include "scenario.h"

/* A word "rankN" or "gpuN" (N decimal digits). */
static int device_word(const char *w, size_t len) {
    size_t p = len >= 4 && strncmp(w, "rank", 4) == 0 ? 4 : len >= 3 && strncmp(w, "gpu", 3) == 0 ? 3 : 0;
    if (!p || p == len) return 0;
    for (size_t i = p; i < len; i++)
        if (!isdigit((unsigned char)w[i])) return 0;
    return 1;
}

void replay_device_key(const char *process, char out[REPLAY_DEVICE_KEY]) {
    size_t o = 0;
    out[0] = '\0';
    for (const char *c = process ? process : ""; *c;) {
        while (*c == ' ') c++;
        const char *w = c;
        while (*c && *c != ' ') c++;
        size_t len = (size_t)(c - w);
        if (!len || !device_word(w, len) || o + len + 2 > REPLAY_DEVICE_KEY) continue;
        if (o) out[o++] = ' ';
        memcpy(out + o, w, len);
        o += len;
        out[o] = '\0';
    }
}

static int cmp_key(const void *a, const void *b) {
    /* "gpu2" before "gpu10": by length of the digits first, then text */
    const char *x = a, *y = b;
    size_t lx = strlen(x), ly = strlen(y);
    return lx != ly ? (lx < ly ? -1 : 1) : strcmp(x, y);
}

static size_t add_key(char (*keys)[REPLAY_DEVICE_KEY], size_t n, size_t max, const char *k,
                      char (*seen)[REPLAY_DEVICE_KEY], size_t *nseen) {
    for (size_t i = 0; i < *nseen; i++)
        if (strcmp(seen[i], k) == 0) return n;
    if (*nseen >= REPLAY_MAX_DEVICES) return n + 1;   /* past the most: counted, so refused */
    snprintf(seen[(*nseen)++], REPLAY_DEVICE_KEY, "%s", k);
    if (keys && n < max) snprintf(keys[n], REPLAY_DEVICE_KEY, "%s", k);
    return n + 1;
}

/* A trace that lists its GPUs (DESIGN §5: trace.devices, each record's
 * index) is split by the index; device i's key is the lane key of its first
 * record, or "device i" where that is empty or another GPU's. keys[i] ""
 * for a GPU without work. keys has t->devices.n entries. */
static void gpu_keys(const trace *t, char (*keys)[REPLAY_DEVICE_KEY]) {
    size_t ng = t->devices.n;
    for (size_t g = 0; g < ng; g++) keys[g][0] = '\0';
    for (size_t i = 0; i < t->kernels.n + t->copies.n; i++) {
        int32_t g = i < t->kernels.n ? t->kernels.v[i].device : t->copies.v[i - t->kernels.n].device;
        trace_str p = i < t->kernels.n ? t->kernels.v[i].process
                                        : t->copies.v[i - t->kernels.n].process;
        if (g < 0 || (size_t)g >= ng || keys[g][0]) continue;
        replay_device_key(trace_str_get(t, p), keys[g]);
        bool taken = !keys[g][0];
        for (size_t o = 0; o < ng && !taken; o++)
            taken = o != (size_t)g && strcmp(keys[o], keys[g]) == 0;
        if (taken) snprintf(keys[g], REPLAY_DEVICE_KEY, "device %d", (int)g);
    }
}

char (*replay_gpu_keys(const trace *t))[REPLAY_DEVICE_KEY] {
    char (*keys)[REPLAY_DEVICE_KEY] = malloc((t->devices.n ? t->devices.n : 1) * sizeof *keys);
    if (keys) gpu_keys(t, keys);
    return keys;
}

/* The GPU index of key `key` in a trace that lists its GPUs, or -1. */
static int32_t gpu_of_key(const trace *t, const char *key) {
    char (*keys)[REPLAY_DEVICE_KEY] = malloc(t->devices.n * sizeof *keys);
    if (!keys) return -2;
    gpu_keys(t, keys);
    int32_t g = -1;
    for (size_t i = 0; i < t->devices.n && g < 0; i++)
        if (keys[i][0] && strcmp(keys[i], key) == 0) g = (int32_t)i;
    free(keys);
    return g;
}

size_t replay_device_keys(const trace *t, char (*keys)[REPLAY_DEVICE_KEY], size_t max) {
    char seen[REPLAY_MAX_DEVICES][REPLAY_DEVICE_KEY];
    size_t nseen = 0, n = 0;
    if (t->devices.n) {
        char (*gk)[REPLAY_DEVICE_KEY] = malloc(t->devices.n * sizeof *gk);
        if (!gk) return 0;
        gpu_keys(t, gk);
        for (size_t g = 0; g < t->devices.n; g++)
            if (gk[g][0]) n = add_key(keys, n, max, gk[g], seen, &nseen);
        free(gk);
        if (keys) qsort(keys, n < max ? n : max, sizeof *keys, cmp_key);
        return n;
    }
    trace_str last = (trace_str)-1;
    char k[REPLAY_DEVICE_KEY];
    for (size_t i = 0; i < t->kernels.n + t->copies.n; i++) {
        trace_str p = i < t->kernels.n ? t->kernels.v[i].process
                                        : t->copies.v[i - t->kernels.n].process;
        if (p == last) continue;   /* records of one lane come together */
        last = p;
        replay_device_key(trace_str_get(t, p), k);
        n = add_key(keys, n, max, k, seen, &nseen);
    }
    if (keys) qsort(keys, n < max ? n : max, sizeof *keys, cmp_key);
    return n;
}

static int copy_meta(const trace *t, trace *o) {
    if (trace_set_name(o, t->name) < 0 || trace_set_source(o, t->source) < 0) return -1;
    o->device = t->device;
    o->has_device = t->has_device;
    o->origin = t->origin;
    for (size_t i = 0; i < t->meta.n; i++)
        if (trace_set_meta(o, trace_str_get(t, t->meta.v[i].key),
                           trace_str_get(t, t->meta.v[i].value)) < 0)
            return -1;
    return 0;
}

/* Whether a record (its lane, its GPU index) is on GPU `key`: by the index
 * where the trace lists its GPUs (gpu: key's index), else by the lane. */
static int on_device(const trace *t, trace_str process, int32_t device, int32_t gpu,
                     const char *key) {
    if (t->devices.n) return device == gpu;
    char k[REPLAY_DEVICE_KEY];
    replay_device_key(trace_str_get(t, process), k);
    return strcmp(k, key) == 0;
}

/* A kernel or copy as syncs are placed by it: its lane, stream, call. */
typedef struct srec {
    trace_str process, stream;
    int64_t issue;
    int32_t device;
} srec;

static int cmp_srec_stream(const void *a, const void *b) {
    const srec *x = a, *y = b;
    if (x->process != y->process) return x->process < y->process ? -1 : 1;
    if (x->stream != y->stream) return x->stream < y->stream ? -1 : 1;
    return (x->issue > y->issue) - (x->issue < y->issue);
}

static int cmp_srec_process(const void *a, const void *b) {
    const srec *x = a, *y = b;
    if (x->process != y->process) return x->process < y->process ? -1 : 1;
    return (x->issue > y->issue) - (x->issue < y->issue);
}

/* The last of v (n, sorted by cmp) that matches `key` by cmp_key (its lane
 * and stream, or its lane) and was called at or before key->issue; NULL
 * when none was. */
static const srec *last_before(const srec *v, size_t n, const srec *key,
                               int (*cmp)(const void *, const void *)) {
    size_t lo = 0, hi = n;   /* the first after key */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp(&v[mid], key) <= 0) lo = mid + 1;
        else hi = mid;
    }
    if (!lo) return NULL;
    const srec *r = &v[lo - 1];
    bool same = r->process == key->process && (cmp == cmp_srec_process || r->stream == key->stream);
    return same ? r : NULL;
}

/* Per host call of t: whether it is a sync of GPU `key` (gpu: its index
 * where t lists its GPUs). A sync names a lane and a stream, no GPU: by
 * its lane, as every record, where t does not list its GPUs; where it
 * does, on the GPU of the kernel or copy called last before it on its
 * stream (what a stream sync waits for, and the stream's GPU: a CUDA
 * stream belongs to one device), else in its lane (a device sync waits
 * for its calling thread's current device); a sync called before any
 * work of its lane waited for nothing and is no GPU's (replay_calls.h:
 * its task's later calls are made when it returned). here[j] for each
 * call; 0, or -1 out of memory. */
static int syncs_here(const trace *t, int32_t gpu, const char *key, bool *here) {
    size_t nrec = t->kernels.n + t->copies.n, nv = 0;
    srec *by_stream = NULL, *by_process = NULL;
    if (t->devices.n) {
        by_stream = malloc((nrec + 1) * sizeof *by_stream);
        by_process = malloc((nrec + 1) * sizeof *by_process);
        if (!by_stream || !by_process) {
            free(by_stream);
            free(by_process);
            return -1;
        }
        for (size_t i = 0; i < nrec; i++) {
            bool kern = i < t->kernels.n;
            const trace_kernel *k = kern ? &t->kernels.v[i] : NULL;
            const trace_copy *c = kern ? NULL : &t->copies.v[i - t->kernels.n];
            int64_t issue = kern ? k->issue : c->issue;
            if (issue == TRACE_NONE) continue;   /* never called */
            by_stream[nv++] = (srec){kern ? k->process : c->process, kern ? k->stream : c->stream,
                                     issue, kern ? k->device : c->device};
        }
        memcpy(by_process, by_stream, nv * sizeof *by_stream);
        qsort(by_stream, nv, sizeof *by_stream, cmp_srec_stream);
        qsort(by_process, nv, sizeof *by_process, cmp_srec_process);
    }
    for (size_t j = 0; j < t->host_calls.n; j++) {
        const trace_host_call *c = &t->host_calls.v[j];
        here[j] = false;
        if (c->kind != TRACE_CALL_SYNC && c->kind != TRACE_CALL_DEVICE_SYNC) continue;
        if (!t->devices.n) {
            here[j] = on_device(t, c->process, -1, gpu, key);
            continue;
        }
        srec k = {c->process, c->stream, c->issue != TRACE_NONE ? c->issue : c->at, -1};
        const srec *r = last_before(by_stream, nv, &k, cmp_srec_stream);
        if (!r) r = last_before(by_process, nv, &k, cmp_srec_process);
        here[j] = r && r->device == gpu;
    }
    free(by_stream);
    free(by_process);
    return 0;
}

int replay_device_subtrace(const trace *t, const char *key, trace *o) {
    trace_init(o);
    int32_t gpu = t->devices.n ? gpu_of_key(t, key) : -1;
    int32_t *kmap = calloc(t->kernels.n + 1, sizeof *kmap);
    int32_t *cmap = calloc(t->copies.n + 1, sizeof *cmap);
    bool *here = calloc(t->host_calls.n + 1, sizeof *here);
    int64_t *bmap = NULL;
    if (gpu < -1 || !kmap || !cmap || !here || copy_meta(t, o) != 0) goto oom;
    if (gpu >= 0) {
        /* one GPU of several: its own device record, a device as the
         * importers set has_device (its SM count known); a GPU known only
         * by name (an nvprof CSV's "GeForce GTX 1080 Ti (1)") is named as
         * such a trace of one GPU names it, by its meta "device", so the
         * replay finds it by name as it would alone */
        const sim_device *g = &t->devices.v[gpu];
        o->device = *g;
        o->has_device = g->sms > 0;
        if (!o->has_device && g->name[0] && trace_set_meta(o, "device", g->name) < 0) goto oom;
    }
    for (size_t i = 0; i < t->kernels.n; i++) {
        const trace_kernel *k = &t->kernels.v[i];
        kmap[i] = REPLAY_CALLS_ELSEWHERE;
        if (!on_device(t, k->process, k->device, gpu, key)) continue;
        trace_kernel *n = trace_add_kernel(o);
        if (!n) goto oom;
        *n = *k;
        n->device = 0;
        n->name = trace_intern(o, trace_str_get(t, k->name));
        n->raw_name = trace_intern(o, trace_str_get(t, k->raw_name));
        n->stream = trace_intern(o, trace_str_get(t, k->stream));
        n->process = trace_intern(o, trace_str_get(t, k->process));
        kmap[i] = (int32_t)(o->kernels.n - 1);
    }
    for (size_t i = 0; i < t->copies.n; i++) {
        const trace_copy *c = &t->copies.v[i];
        cmap[i] = REPLAY_CALLS_ELSEWHERE;
        if (!on_device(t, c->process, c->device, gpu, key)) continue;
        trace_copy *n = trace_add_copy(o);
        if (!n) goto oom;
        *n = *c;
        n->device = 0;
        n->name = trace_intern(o, trace_str_get(t, c->name));
        n->stream = trace_intern(o, trace_str_get(t, c->stream));
        n->process = trace_intern(o, trace_str_get(t, c->process));
        cmap[i] = (int32_t)(o->copies.n - 1);
    }
    /* the host's calls of this GPU's work (replay_calls.h): another GPU's
     * sync or blocking copy held the task that calls here too where the
     * task issues to both */
    if (syncs_here(t, gpu, key, here) != 0 || replay_calls_subset(t, kmap, cmap, here, o) != 0)
        goto oom;
    if (t->blocks.n) {
        bmap = malloc(t->blocks.n * sizeof *bmap);
        if (!bmap) goto oom;
        for (size_t i = 0; i < t->blocks.n; i++) {
            const trace_block *b = &t->blocks.v[i];
            bmap[i] = -1;
            if (b->kernel < 0 || (size_t)b->kernel >= t->kernels.n || kmap[b->kernel] < 0) continue;
            trace_block *n = trace_add_block(o);
            if (!n) goto oom;
            *n = *b;
            n->kernel = kmap[b->kernel];
            bmap[i] = (int64_t)(o->blocks.n - 1);
        }
        for (size_t i = 0; i < t->pauses.n; i++) {
            const trace_pause *p = &t->pauses.v[i];
            if (p->block < 0 || (size_t)p->block >= t->blocks.n || bmap[p->block] < 0) continue;
            if (!trace_add_pause(o, bmap[p->block], p->start, p->end)) goto oom;
        }
    }
    free(kmap);
    free(cmap);
    free(here);
    free(bmap);
    if (o->oom) {
        trace_free(o);
        return -1;
    }
    return 0;
oom:
    free(kmap);
    free(cmap);
    free(here);
    free(bmap);
    trace_free(o);
    return -1;
}

static bool cancelled(atomic_bool *cancel) { return cancel && atomic_load(cancel); }

/* The block sink of a GPU's simulation: the job's cancel asked at every
 * batch of blocks, as a stored scenario's simulation asks it (store.c,
 * spill_emit), so that a cancel stops the run within a batch; each batch
 * kept, in the order emitted (sim.h: the order trace->blocks would have had
 * without a sink), and handed back to the trace once the run is over. */
typedef struct keep_sink {
    atomic_bool *cancel;         /* may be NULL */
    trace_block *v;
    size_t n, cap;
    bool oom;
} keep_sink;

static int keep_emit(void *ctx, const trace_block *b, size_t n) {
    keep_sink *k = ctx;
    if (cancelled(k->cancel)) return -1;
    if (n > k->cap - k->n) {
        size_t cap = k->cap ? k->cap : n;
        while (cap - k->n < n) {
            if (cap > SIZE_MAX / 2 / sizeof *k->v) {
                k->oom = true;
                return -1;
            }
            cap *= 2;
        }
        trace_block *v = realloc(k->v, cap * sizeof *v);
        if (!v) {
            k->oom = true;
            return -1;
        }
        k->v = v;
        k->cap = cap;
    }
    memcpy(k->v + k->n, b, n * sizeof *b);
    k->n += n;
    return 0;
}

/* the cancel, asked as often in a run of cohorts, which emits few
 * blocks (sim.h) */
static int keep_placed(void *ctx, int64_t placed) {
    (void)placed;
    return cancelled(((keep_sink *)ctx)->cancel) ? -1 : 0;
}

/* Simulate a scenario's run `run` (0: the scenario itself, then its
 * variants), stopping within a batch of blocks once *cancel is set (cancel
 * may be NULL): 0, 1 (it does not simulate: err), REPLAY_CANCELLED, -1
 * (OOM). */
static int simulate(const json_t *scn, size_t run, atomic_bool *cancel, trace *out, char *err,
                    size_t errlen) {
    char *txt = json_dumps(scn, JSON_COMPACT);
    if (!txt) return -1;
    scn_scenario *s = NULL;
    int rc = scn_parse(txt, strlen(txt), "replay", &s, err, errlen);
    free(txt);
    if (rc != 0) {
        replay_name_op(scn, err, errlen);
        return 1;
    }
    sim_config cfg;
    keep_sink keep = {.cancel = cancel};
    sim_block_sink sink = {.ctx = &keep, .emit = keep_emit, .batch = 0, .placed = keep_placed};
    rc = scn_config(s, run, &cfg, err, errlen) != 0 ? 1 : 0;
    if (rc == 0) {
        cfg.block_sink = &sink;
        if (sim_run(&cfg, out, err, errlen) != 0)
            rc = keep.oom ? -1 : cancelled(cancel) ? REPLAY_CANCELLED : 1;
    }
    if (rc == 1) replay_name_op(scn, err, errlen);
    scn_free(s);
    if (rc == 0) {
        /* the run is over: its blocks went to the sink, every one (sim.h) */
        free(out->blocks.v);
        out->blocks.v = keep.v;
        out->blocks.n = keep.n;
        out->blocks.cap = keep.cap;
    } else {
        free(keep.v);
    }
    return rc;
}

/* The merged run before any GPU is merged: m's name, device, origin and
 * meta, source "simulation", and its GPUs numbered as the measured trace m
 * numbers them (DESIGN §5), so that GPU n of the replay is GPU n of the
 * measurement (keys and compare rows alike, also where a GPU had no work):
 * m's devices, each replaced by its simulated device as merge() meets it.
 * A trace without devices (a run stored before they were listed) gets them
 * in the keys' order. 0, or -1 out of memory. */
static int merged_begin(const trace *m, trace *o) {
    if (copy_meta(m, o) != 0 || trace_set_source(o, "simulation") < 0) return -1;
    for (size_t g = 0; g < m->devices.n; g++)
        if (trace_add_device(o, &m->devices.v[g]) < 0) return -1;
    return 0;
}

/* Append simulated run s (GPU `key` of the measured trace m) to the merged
 * run o: its device is m's index of the GPU (or the next of o's, for an m
 * without devices), which its records index (DESIGN §5); they keep their
 * process names; queue names get the device key in front, so that one
 * GPU's "ce" is not another's. */
static int merge(trace *o, const trace *m, const trace *s, const char *key) {
    size_t k0 = o->kernels.n, c0 = o->copies.n, b0 = o->blocks.n;
    int32_t gpu = m->devices.n ? gpu_of_key(m, key) : trace_add_device(o, &s->device);
    if (gpu < 0 || (size_t)gpu >= o->devices.n) return -1;
    o->devices.v[gpu] = s->device;
    for (size_t i = 0; i < s->kernels.n; i++) {
        const trace_kernel *k = &s->kernels.v[i];
        trace_kernel *n = trace_add_kernel(o);
        if (!n) return -1;
        *n = *k;
        n->name = trace_intern(o, trace_str_get(s, k->name));
        n->raw_name = trace_intern(o, trace_str_get(s, k->raw_name));
        n->stream = trace_intern(o, trace_str_get(s, k->stream));
        n->process = trace_intern(o, trace_str_get(s, k->process));
        n->device = gpu;
    }
    for (size_t i = 0; i < s->copies.n; i++) {
        const trace_copy *c = &s->copies.v[i];
        trace_copy *n = trace_add_copy(o);
        if (!n) return -1;
        *n = *c;
        n->name = trace_intern(o, trace_str_get(s, c->name));
        n->stream = trace_intern(o, trace_str_get(s, c->stream));
        n->process = trace_intern(o, trace_str_get(s, c->process));
        n->device = gpu;
    }
    for (size_t i = 0; i < s->cohorts.n; i++) {   /* a device simulated as cohorts */
        trace_cohort *n = trace_add_cohort(o);
        if (!n) return -1;
        *n = s->cohorts.v[i];
        n->kernel += (int32_t)k0;
    }
    if (s->blocks.n && trace_reserve_blocks(o, s->blocks.n) != 0) return -1;
    for (size_t i = 0; i < s->blocks.n; i++) {
        trace_block *n = trace_add_block(o);
        if (!n) return -1;
        *n = s->blocks.v[i];
        n->kernel += (int32_t)k0;
    }
    for (size_t i = 0; i < s->pauses.n; i++)
        if (!trace_add_pause(o, s->pauses.v[i].block + (int64_t)b0, s->pauses.v[i].start,
                             s->pauses.v[i].end))
            return -1;
    /* the host's calls of its tasks, their records renumbered; put back in
     * order of `at` once every GPU is in (merged_calls_sort) */
    for (size_t i = 0; i < s->host_calls.n; i++) {
        const trace_host_call *c = &s->host_calls.v[i];
        trace_host_call *n = trace_add_host_call(o);
        if (!n) return -1;
        *n = *c;
        if (c->kind == TRACE_CALL_KERNEL) n->record += (int32_t)k0;
        else if (c->kind == TRACE_CALL_COPY) n->record += (int32_t)c0;
        n->task = trace_intern(o, trace_str_get(s, c->task));
        n->name = trace_intern(o, trace_str_get(s, c->name));
        n->stream = trace_intern(o, trace_str_get(s, c->stream));
        n->process = trace_intern(o, trace_str_get(s, c->process));
    }
    for (size_t i = 0; i < s->queue_events.n; i++) {
        const trace_queue_event *q = &s->queue_events.v[i];
        char qn[512];
        snprintf(qn, sizeof qn, "%s%s%s", key, *key ? " " : "", trace_str_get(s, q->queue));
        if (!trace_add_queue_event(o, q->t, trace_intern(o, qn),
                                   trace_intern(o, trace_str_get(s, q->item)),
                                   (trace_queue_op)q->event))
            return -1;
    }
    return o->oom ? -1 : 0;
}

typedef struct seq_call {
    trace_host_call c;
    size_t seq;
} seq_call;

static int cmp_seq_call(const void *a, const void *b) {
    const seq_call *x = a, *y = b;
    if (x->c.at != y->c.at) return x->c.at < y->c.at ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* The merged run's host calls, GPU after GPU as merge() appended them, in
 * order of `at`, GPU order on ties (trace.h keeps them so). 0, or -1 out
 * of memory. */
static int merged_calls_sort(trace *o) {
    size_t n = o->host_calls.n;
    if (n < 2) return 0;
    seq_call *v = malloc(n * sizeof *v);
    if (!v) return -1;
    for (size_t i = 0; i < n; i++) v[i] = (seq_call){o->host_calls.v[i], i};
    qsort(v, n, sizeof *v, cmp_seq_call);
    for (size_t i = 0; i < n; i++) o->host_calls.v[i] = v[i].c;
    free(v);
    return 0;
}

void replay_devices_free(replay_dev *v, size_t n) {
    for (size_t i = 0; v && i < n; i++) {
        trace_free(&v[i].measured);
        trace_free(&v[i].simulated);
        fidelity_free(&v[i].fid);
        json_decref(v[i].scenario);
    }
    free(v);
}

/* How messages name device `key` of the run `what`: "run X, gpu0". */
static void device_what(char *buf, size_t n, const char *what, const char *key) {
    snprintf(buf, n, "%s, %s", what, *key ? key : "the device without a key");
}

/* m's GPUs as a replay takes them (replay_device_keys), one entry each in
 * *out (freed with replay_devices_free), its key set, its traces empty:
 * 0, 1 (more GPUs than a replay simulates: err), -1 (out of memory: err). */
static int devices_new(const trace *m, const char *what, replay_dev **out, size_t *nout,
                       char *err, size_t errlen) {
    *out = NULL;
    *nout = 0;
    char (*keys)[REPLAY_DEVICE_KEY] = calloc(REPLAY_MAX_DEVICES, sizeof *keys);
    size_t n = keys ? replay_device_keys(m, keys, REPLAY_MAX_DEVICES) : 0;
    if (keys && n > REPLAY_MAX_DEVICES) {
        snprintf(err, errlen, "%s: work on %zu GPUs; a replay simulates at most %d", what, n,
                 REPLAY_MAX_DEVICES);
        free(keys);
        return 1;
    }
    replay_dev *v = keys ? calloc(n + 1, sizeof *v) : NULL;
    if (!v) {
        free(keys);
        snprintf(err, errlen, "%s: out of memory replaying its GPUs", what);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        trace_init(&v[i].measured);
        trace_init(&v[i].simulated);
        snprintf(v[i].key, sizeof v[i].key, "%s", keys[i]);
    }
    free(keys);
    *out = v;
    *nout = n;
    return 0;
}

int replay_devices_run(const trace *m, const char *what, const char *preset, int with_heldout,
                       atomic_bool *cancel, replay_dev **out, size_t *nout, trace *merged,
                       char *err, size_t errlen) {
    trace_init(merged);
    int dr = devices_new(m, what, out, nout, err, errlen);
    if (dr != 0) return dr;
    replay_dev *v = *out;
    size_t n = *nout;
    if (merged_begin(m, merged) != 0) goto oom;
    char list[REPLAY_MAX_DEVICES * (REPLAY_DEVICE_KEY + 2)] = "";
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        replay_dev *d = &v[i];
        if (cancelled(cancel)) goto cancel;
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", d->key);
        if (replay_device_subtrace(m, d->key, &d->measured) != 0) goto oom;
        char dwhat[160], e[1024] = "";
        device_what(dwhat, sizeof dwhat, what, d->key);
        int ir = replay_scenario_info_ctl(&d->measured, dwhat, preset, cancel, &d->scenario,
                                          &d->info, e, sizeof e);
        if (ir == REPLAY_CANCELLED) goto cancel;
        if (ir != 0) {
            snprintf(err, errlen, "%s", e);
            goto fail;
        }
        int sr = simulate(d->scenario, 0, cancel, &d->simulated, e, sizeof e);
        if (sr < 0) goto oom;
        if (sr == REPLAY_CANCELLED) goto cancel;
        if (sr > 0) {
            snprintf(err, errlen, "%s: does not simulate: %s", dwhat, e);
            goto fail;
        }
        if (fidelity_compare(&d->measured, &d->simulated, &d->fid, err, errlen) != 0) goto fail;
        d->ok = 1;
        if (cancelled(cancel)) goto cancel;
        int hr = with_heldout ? replay_heldout_run_ctl(&d->measured, dwhat, preset, cancel,
                                                       &d->held, err, errlen)
                              : 0;
        if (hr == REPLAY_CANCELLED) goto cancel;
        if (hr != 0) goto fail;
        if (merge(merged, m, &d->simulated, d->key) != 0) goto oom;
    }
    if (merged_calls_sort(merged) != 0 || trace_set_meta(merged, "replayed_devices", list) < 0)
        goto oom;
    return 0;
oom:
    snprintf(err, errlen, "%s: out of memory replaying its GPUs", what);
    replay_devices_free(*out, *nout);
    *out = NULL;
    *nout = 0;
    trace_free(merged);
    return -1;
cancel:
    snprintf(err, errlen, "%s: cancelled", what);
    replay_devices_free(*out, *nout);
    *out = NULL;
    *nout = 0;
    trace_free(merged);
    return REPLAY_CANCELLED;
fail:
    replay_devices_free(*out, *nout);
    *out = NULL;
    *nout = 0;
    trace_free(merged);
    return 1;
}

size_t replay_devices_variants(const replay_dev *v, size_t n) {
    return n ? json_array_size(json_object_get(v[0].scenario, "variants")) : 0;
}

const char *replay_devices_variant_name(const replay_dev *v, size_t n, size_t i) {
    if (!n) return NULL;
    json_t *var = json_array_get(json_object_get(v[0].scenario, "variants"), i);
    return json_string_value(json_object_get(var, "name"));
}

int replay_devices_variant(const trace *m, const replay_dev *v, size_t n, size_t i,
                           atomic_bool *cancel, trace *merged, char *err, size_t errlen) {
    trace_init(merged);
    if (merged_begin(m, merged) != 0) goto oom;
    char keys[REPLAY_MAX_DEVICES * (REPLAY_DEVICE_KEY + 2)] = "";
    size_t len = 0;
    for (size_t d = 0; d < n; d++) {
        trace sim;
        trace_init(&sim);
        char e[1024] = "";
        int sr = cancelled(cancel) ? REPLAY_CANCELLED
                                   : simulate(v[d].scenario, i + 1, cancel, &sim, e, sizeof e);
        if (sr == 0 && merge(merged, m, &sim, v[d].key) != 0) sr = -1;
        trace_free(&sim);
        if (sr < 0) goto oom;
        if (sr == REPLAY_CANCELLED) {
            snprintf(err, errlen, "%s: cancelled", replay_devices_variant_name(v, n, i));
            trace_free(merged);
            return REPLAY_CANCELLED;
        }
        if (sr > 0) {
            snprintf(err, errlen, "%s, %s: does not simulate: %s",
                     replay_devices_variant_name(v, n, i), v[d].key, e);
            trace_free(merged);
            return 1;
        }
        len += (size_t)snprintf(keys + len, sizeof keys - len, "%s%s", d ? ", " : "", v[d].key);
    }
    if (merged_calls_sort(merged) != 0 || trace_set_meta(merged, "replayed_devices", keys) < 0)
        goto oom;
    return 0;
oom:
    snprintf(err, errlen, "out of memory replaying the GPUs");
    trace_free(merged);
    return -1;
}

json_t *replay_devices_json(const replay_dev *v, size_t n) {
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++) {
        const replay_dev *d = &v[i];
        const fidelity *f = &d->fid;
        const json_t *dev = json_object_get(d->scenario, "device");
        double bw = json_real_value(json_object_get(dev, "copy_bandwidth"));
        if (!(bw > 0)) bw = (double)json_integer_value(json_object_get(dev, "copy_bandwidth"));
        json_t *o = json_pack(
            "{s:s, s:s, s:s, s:I, s:I, s:I, s:b, s:f, s:f, s:f, s:f, s:I, s:f}", "device", d->key,
            "name", d->info.device, "device_why", d->info.device_why, "kernels",
            (json_int_t)d->info.kernels, "copies", (json_int_t)(d->info.copies + d->info.memsets),
            "sms", (json_int_t)d->measured.device.sms,
            "ok", d->ok && fidelity_ok(f), "duration_error_median", f->dur_median,
            "duration_error_p90", f->dur_p90, "start_error_median_share", f->start_median_share,
            "makespan_difference", f->makespan_diff, "launch_latency_ns",
            (json_int_t)d->info.launch_latency, "copy_bandwidth", bw);
        if (o && (d->held.done || d->held.why[0]))
            json_object_set_new(o, "held_out", replay_heldout_json(&d->held));
        if (!o || json_array_append_new(a, o) != 0) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

int replay_devices_explain(json_t *rep, const replay_dev *v, size_t n) {
    json_t *devs = replay_devices_json(v, n);
    if (!devs || json_object_set_new(rep, "devices", devs) != 0) return -1;
    return 0;
}

int replay_devices_report(const trace *m, const replay_dev *v, size_t n, const trace *merged,
                          json_t **out, replay_info *combined, char *err, size_t errlen) {
    *out = NULL;
    replay_info c;
    memset(&c, 0, sizeof c);
    char keys[256] = "";
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        const replay_info *d = &v[i].info;
        c.kernels += d->kernels;
        c.calibrated += d->calibrated;
        c.copies += d->copies;
        c.memsets += d->memsets;
        c.skipped += d->skipped;
        if (len < sizeof keys)
            len += (size_t)snprintf(keys + len, sizeof keys - len, "%s%s", i ? ", " : "", v[i].key);
    }
    if (n) {
        c.launch_latency = v[0].info.launch_latency;
        c.copy_gap = v[0].info.copy_gap;
        c.copy_engines = v[0].info.copy_engines;
        snprintf(c.device, sizeof c.device, "%s", v[0].info.device);
        char head[320];
        snprintf(head, sizeof head, "%zu simulated GPUs (%s), each ", n, keys);
        size_t hl = strlen(head) < sizeof c.device_why - 1 ? strlen(head) : sizeof c.device_why - 1;
        memcpy(c.device_why, head, hl);
        size_t rest = strlen(v[0].info.device_why);
        if (rest > sizeof c.device_why - 1 - hl) rest = sizeof c.device_why - 1 - hl;
        memcpy(c.device_why + hl, v[0].info.device_why, rest);
        c.device_why[hl + rest] = '\0';
    }
    c.devices = n;
    fidelity f;
    if (fidelity_compare(m, merged, &f, err, errlen) != 0) return -1;
    json_t *rep = fidelity_json(&f, m, merged, 10);
    fidelity_free(&f);
    if (!rep || fidelity_explain(rep, m, &c, NULL) != 0 || replay_devices_explain(rep, v, n) != 0 ||
        json_object_set_new(rep, "held_out",
                            json_pack("{s:b, s:s}", "done", 0, "why",
                                      "predicted GPU by GPU: see devices[].held_out")) != 0) {
        json_decref(rep);
        snprintf(err, errlen, "out of memory writing the fidelity report");
        return -1;
    }
    *out = rep;
    if (combined) *combined = c;
    return 0;
}

json_t *replay_devices_scenarios(const replay_dev *v, size_t n) {
    json_t *doc = json_pack("{s:s, s:[]}", "schema", SCN_REPLAY_DEVICES_SCHEMA, "devices");
    json_t *devs = json_object_get(doc, "devices");
    for (size_t i = 0; doc && i < n; i++) {
        if (json_array_append_new(devs, json_pack("{s:s, s:O}", "device", v[i].key, "scenario",
                                                  v[i].scenario)) != 0) {
            json_decref(doc);
            return NULL;
        }
    }
    return doc;
}

int replay_document(const trace *m, const char *what, const char *preset, json_t **out,
                    char *err, size_t errlen) {
    *out = NULL;
    if (replay_device_keys(m, NULL, 0) <= 1) {
        json_t *scn = NULL;
        if (replay_scenario(m, what, preset, &scn, err, errlen) != 0) return 1;
        int rc = replay_check(scn, what, err, errlen);
        if (rc == 0) *out = scn;
        else json_decref(scn);
        return rc;
    }
    /* the GPUs as replay_devices_run takes them, without simulating them */
    replay_dev *v;
    size_t n;
    int rc = devices_new(m, what, &v, &n, err, errlen);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        replay_dev *d = &v[i];
        if (replay_device_subtrace(m, d->key, &d->measured) != 0) {
            snprintf(err, errlen, "%s: out of memory replaying its GPUs", what);
            rc = -1;
            break;
        }
        char dwhat[160];
        device_what(dwhat, sizeof dwhat, what, d->key);
        if (replay_scenario_info(&d->measured, dwhat, preset, &d->scenario, &d->info, err,
                                 errlen) != 0)
            rc = 1;
        else
            rc = replay_check(d->scenario, dwhat, err, errlen);
    }
    if (rc == 0 && !(*out = replay_devices_scenarios(v, n))) {
        snprintf(err, errlen, "%s: out of memory writing the scenarios", what);
        rc = -1;
    }
    replay_devices_free(v, n);
    return rc;
}
