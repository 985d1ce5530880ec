/* replay.c -- trace -> schedlab-scenario/1, calibrated from the trace. See
 * replay.h. */
#include "replay.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../importers/jsonr.h"
#include "../../simcore/cc.h"
#include "../../simcore/sim.h"
#include "host_gaps.h"
#include "replay_copies.h"
#include "scenario.h"
#include "trace_json.h"

typedef struct rstream {
    trace_str process, stream;   /* as in the trace (0 = unknown) */
    char *name;                  /* unique scenario name; "null" for a NULL stream */
    int32_t priority;
    trace_str task;              /* the CPU task the trace's host_calls name for it (0: none) */
} rstream;

/* One kernel or copy of the trace on its way into the scenario. */
typedef struct rop {
    int64_t at;                  /* host issue time in the scenario */
    int64_t start, end;          /* measured (TRACE_NONE if unknown) */
    size_t order;                /* trace order: kernels, then copies (then syncs) */
    long stream;                 /* index into the rstream list */
    bool scripted;               /* issued as the trace's host_calls say (trace.h) */
    size_t hseq;                 /* then: its place in host_calls */
    json_t *op;
} rop;

/* By issue time; at one time the calls the trace scripted keep their order
 * (the host made them so), ahead of the rest. */
static int cmp_op(const void *a, const void *b) {
    const rop *x = a, *y = b;
    if (x->at != y->at) return x->at < y->at ? -1 : 1;
    if (x->scripted != y->scripted) return x->scripted ? -1 : 1;
    if (x->scripted) return (x->hseq > y->hseq) - (x->hseq < y->hseq);
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* each stream's own order: by measured start, then trace order */
static int cmp_stream_order(const void *a, const void *b) {
    const rop *x = *(const rop *const *)a, *y = *(const rop *const *)b;
    if (x->stream != y->stream) return x->stream < y->stream ? -1 : 1;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order);
}

static const char *proc_name(const trace *t, trace_str p) {
    const char *s = trace_str_get(t, p);
    return s && *s ? s : "P0";
}

/* The scenario stream for (process, stream), added on first use. Stream
 * names are unique across processes in a scenario, so a name already used
 * by another process gets "@process" appended. */
static long stream_of(const trace *t, rstream **v, size_t *n, trace_str process,
                      trace_str stream, int32_t priority) {
    for (size_t i = 0; i < *n; i++)
        if ((*v)[i].process == process && (*v)[i].stream == stream) return (long)i;
    rstream *nv = realloc(*v, (*n + 1) * sizeof *nv);
    if (!nv) return -1;
    *v = nv;
    const char *sn = trace_str_get(t, stream);
    char buf[256];
    if (!sn || !*sn || strcmp(sn, "null") == 0) {
        snprintf(buf, sizeof buf, "null");
    } else {
        snprintf(buf, sizeof buf, "%s", sn);
        for (size_t i = 0; i < *n; i++)
            if (strcmp(nv[i].name, buf) == 0) {
                snprintf(buf, sizeof buf, "%s@%s", sn, proc_name(t, process));
                break;
            }
    }
    nv[*n] = (rstream){.process = process, .stream = stream, .name = strdup(buf),
                       .priority = priority, .task = 0};
    if (!nv[*n].name) return -1;
    return (long)(*n)++;
}

/* The CPU task the trace's host_calls name for an op of stream si: a
 * declared stream's is the stream's (streams[].task), a NULL stream's the
 * op's own "task" (scenario-format.md: every task of a process may issue
 * to its one default stream, TX2 paper §2.3). */
static void take_task(const trace *t, rstream *st, json_t *op, trace_str task) {
    if (!task) return;
    if (strcmp(st->name, "null") == 0)
        json_object_set_new(op, "task", tj_string(trace_str_get(t, task)));
    else
        st->task = task;
}

static json_t *priority_json(int32_t p) {
    return p == TRACE_PRIO_NONE ? json_string("none") : json_integer(p);
}

/* ---- device -------------------------------------------------------------- */

const char *replay_preset_for(const char *device_name) {
    if (!device_name || !*device_name) return NULL;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < sim_preset_count(); i++) {
            const char *pn = sim_preset_at(i)->name;
            char key[SIM_DEVICE_NAME_MAX];
            size_t k = 0;
            for (const char *c = pn; *c && k + 1 < sizeof key; c++) {
                if (*c == '-') {
                    if (pass == 1) break;   /* the first part only */
                    continue;
                }
                key[k++] = (char)tolower((unsigned char)*c);
            }
            key[k] = '\0';
            if (sim_name_has_words(device_name, key)) return pn;
        }
    return NULL;
}

/* Copies smaller than this are timed by their fixed cost (the call, the
 * DMA set-up: a few µs), not by the link: the V100 trace's 184-byte
 * copies of 1.5 to 2 µs "moved" 109 MB/s (issue 28). From 1 MiB a copy
 * takes 80 µs or more on PCIe 3.0 x16 (12 GB/s), so a few µs of fixed
 * cost is a few per cent of it. */
#define REPLAY_FIT_COPY_MIN (1 << 20)

/* Bytes per second the trace's engine copies of REPLAY_FIT_COPY_MIN bytes
 * or more moved, over all of them; 0 when it has none with a size and a
 * duration. */
static double fitted_bandwidth(const trace *t) {
    double bytes = 0, ns = 0;
    for (size_t i = 0; i < t->copies.n; i++) {
        const trace_copy *c = &t->copies.v[i];
        if ((c->direction != TRACE_COPY_H2D && c->direction != TRACE_COPY_D2H &&
             c->direction != TRACE_COPY_D2D && c->direction != TRACE_COPY_P2P) ||
            c->bytes < REPLAY_FIT_COPY_MIN)
            continue;
        if (c->bytes <= 0 || c->start == TRACE_NONE || c->end == TRACE_NONE || c->end <= c->start)
            continue;
        bytes += (double)c->bytes;
        ns += (double)(c->end - c->start);
    }
    if (!(ns > 0) || !(bytes > 0)) return 0;
    double bw = floor(bytes * 1e9 / ns + 0.5);
    return bw >= 1 ? bw : 1;
}

const char *replay_trace_device_name(const trace *t) {
    if (t->has_device && t->device.name[0]) return t->device.name;
    for (size_t i = 0; i < t->meta.n; i++) {
        const char *k = trace_str_get(t, t->meta.v[i].key);
        if (k && strcmp(k, "device") == 0) return trace_str_get(t, t->meta.v[i].value);
    }
    return NULL;
}

/* The device the scenario runs on: its JSON (*out) and its value (*dev, to
 * calibrate against). */
static int choose_device(const trace *t, const char *what, const char *preset, json_t **out,
                         sim_device *dev, replay_info *info, char *err, size_t errlen) {
    const char *tname = replay_trace_device_name(t);
    double bw = fitted_bandwidth(t);
    if (preset) {
        const sim_device *p = sim_preset_find(preset);
        if (!p) {
            char names[512] = "";
            size_t len = 0;
            for (size_t i = 0; i < sim_preset_count() && len < sizeof names; i++)
                len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", i ? ", " : "",
                                        sim_preset_at(i)->name);
            snprintf(err, errlen, "device: no preset named \"%s\" (presets: %s)", preset, names);
            return -1;
        }
        *dev = *p;
        *out = json_string(preset);
        snprintf(info->device, sizeof info->device, "%s", preset);
        snprintf(info->device_why, sizeof info->device_why, "the preset %s, as asked", preset);
        return *out ? 0 : -1;
    }
    /* The trace's own device, completed from its compute capability
     * (simcore/cc.h): recorded by the profiler (meta compute_capability),
     * else that of the GPU its name names, whose SM count fills a device
     * that records none (an nvprof CSV names only the device) */
    const char *ccm = trace_get_meta(t, "compute_capability");
    const sim_gpu_model *model = sim_gpu_model_for(tname);
    int major = 0, minor = 0;
    const sim_cc *cc = NULL;
    if (ccm && sscanf(ccm, "%d.%d", &major, &minor) == 2) cc = sim_cc_find(major, minor);
    if (!cc && model) {
        /* a complete device that records no compute capability (a
         * simulated run's) stays exactly as it is */
        sim_device probe = t->device;
        char why0[256];
        if (probe.copy_engines < 1) probe.copy_engines = 1;
        if (probe.schedulers_per_sm < 1) probe.schedulers_per_sm = 4;
        if (!(probe.copy_bandwidth > 0)) probe.copy_bandwidth = 1;
        if (!t->has_device || sim_device_validate(&probe, why0, sizeof why0) != 0)
            cc = sim_cc_find(model->major, model->minor);
    }
    if (t->has_device || (cc && model)) {
        sim_device d = t->has_device ? t->device : (sim_device){0};
        int from_model = 0, completed = 0;
        if (!t->has_device) {
            snprintf(d.name, sizeof d.name, "%s", tname);
            d.sms = model->sms;
            d.sm_order_kind = SIM_SM_ORDER_ASCENDING;
            sim_device_fill_order(&d);
            from_model = 1;
        }
        if (cc) completed = sim_cc_complete(&d, cc);
        /* copy engines: the driver's asyncEngineCount as the importer
         * kept it (one, or one per direction: ce.h); a GPU known only by
         * name is a discrete one, with an engine per direction */
        if (d.copy_engines < 1) d.copy_engines = from_model ? 2 : 1;
        if (!(d.copy_bandwidth > 0)) d.copy_bandwidth = bw > 0 ? bw : 12.0 * 1024 * 1024 * 1024;
        if (d.schedulers_per_sm < 1) d.schedulers_per_sm = 4;
        char why[256];
        if (sim_device_validate(&d, why, sizeof why) == 0) {
            json_t *j = tj_device_json(&d);
            if (!j) return -1;
            if (d.clock_hz == 0) json_object_del(j, "clock");
            /* H100-C1: a preset's carveouts are no trace field (device.h), so
             * a device named as a preset that has them runs on that preset
             * with every field of the trace over it */
            const sim_device *cp = sim_preset_find(replay_preset_for(d.name));
            if (cp && cp->nsmem_carveouts > 0 && cp->sms == d.sms) {
                if (json_object_set_new(j, "preset", json_string(cp->name)) != 0) {
                    json_decref(j);
                    return -1;
                }
                /* the same SM count as the preset's explicit order, so
                 * no new one is needed (device_json.c) */
                json_object_del(j, "sms");
                d.nsmem_carveouts = cp->nsmem_carveouts;
                memcpy(d.smem_carveouts_kb, cp->smem_carveouts_kb, sizeof d.smem_carveouts_kb);
                d.smem_reserved_per_block = cp->smem_reserved_per_block;
            }
            *dev = d;
            *out = j;
            snprintf(info->device, sizeof info->device, "%s", d.name);
            char ccs[96] = "";
            if (cc)
                snprintf(ccs, sizeof ccs, ", compute capability %d.%d (%s)%s", cc->major,
                         cc->minor, cc->arch, completed ? " filling what it lacks" : "");
            snprintf(info->device_why, sizeof info->device_why,
                     "the trace's own device \"%s\" (%d SMs%s%s)%s%s", d.name, (int)d.sms,
                     from_model ? ", by its name: " : "", from_model ? model->source : "", ccs,
                     t->device.copy_bandwidth > 0 ? ""
                     : bw > 0 ? ", copy bandwidth fitted from its copies of 1 MiB or more"
                              : ", copy bandwidth 12 GiB/s (PCIe 3.0 x16): no copy of 1 MiB or "
                                "more to fit it from");
            return 0;
        }
    }
    const char *pn = replay_preset_for(tname);
    if (!pn) {
        if (tname && *tname)
            snprintf(err, errlen,
                     "%s: the trace's device \"%s\" records neither its SM count nor its compute "
                     "capability, and its name is no GPU schedlab knows; replay it on a device "
                     "preset", what, tname);
        else
            snprintf(err, errlen,
                     "%s: the trace names no device; replay it on a device preset",
                     what);
        return -1;
    }
    const sim_device *p = sim_preset_find(pn);
    sim_device d = *p;
    /* what the trace records goes over the preset */
    int changed = 0;
    if (t->has_device) {
        const sim_device *td = &t->device;
#define TAKE(field, type, kind, key, req, doc)                                   \
        if (td->field > 0 && td->field != d.field &&                             \
            (strcmp(key, "sms") != 0 || d.sm_order_kind != SIM_SM_ORDER_EXPLICIT)) { \
            d.field = td->field;                                                 \
            changed++;                                                           \
        }
        SIM_DEVICE_FIELDS(TAKE)
#undef TAKE
        char why[256];
        if (changed && sim_device_validate(&d, why, sizeof why) != 0) {
            d = *p;   /* the trace's fields contradict each other: the preset as it is */
            changed = 0;
        }
    }
    json_t *j = json_object();
    json_t *full = changed ? tj_device_json(&d) : NULL;
    if (!j || (changed && !full)) {
        json_decref(j);
        json_decref(full);
        return -1;
    }
    json_object_set_new(j, "preset", json_string(pn));
#define PUT(field, type, kind, key, req, doc)                                    \
    if (full && d.field != p->field) json_object_set(j, key, json_object_get(full, key));
    SIM_DEVICE_FIELDS(PUT)
#undef PUT
    json_decref(full);
    if (!changed) {
        json_decref(j);
        j = json_string(pn);
        if (!j) return -1;
    }
    *dev = d;
    *out = j;
    snprintf(info->device, sizeof info->device, "%s", pn);
    snprintf(info->device_why, sizeof info->device_why,
             "the preset %s, which the trace's device \"%s\" names%s", pn, tname,
             changed ? " (with the SM count and limits the trace records)" : "");
    return 0;
}

/* Copies the trace ran at once on one engine (replay_copies.h) become the
 * device's copies_in_flight, so they overlap in the replay as recorded; a
 * preset named by its name becomes {"preset": NAME, "copies_in_flight": N}.
 * Nothing changes where no copies overlapped. 0, or -1 out of memory. */
static int copies_as_measured(const trace *t, json_t **devj, sim_device *dev, replay_info *info) {
    int32_t n = replay_copies_in_flight(t, dev->copy_engines);
    if (n < 0) return -1;
    if (n > 64) n = 64;   /* device.c's bound */
    if (n <= 1) return 0;
    if (json_is_string(*devj)) {
        json_t *o = json_pack("{s:O}", "preset", *devj);
        if (!o) return -1;
        json_decref(*devj);
        *devj = o;
    }
    if (json_object_set_new(*devj, "copies_in_flight", json_integer(n)) != 0) return -1;
    dev->copies_in_flight = n;
    info->copies_in_flight = n;
    return 0;
}

/* ---- calibration --------------------------------------------------------- */

/* Blocks of one kernel an empty SM of d holds: the first resource to run
 * out limits it, counted as the simulator counts (simcore/sms.c). */
static int64_t blocks_per_sm(const sim_device *d, int64_t threads, int64_t regs, int64_t smem) {
    int64_t r = d->blocks_per_sm;
    if (threads > 0) {
        int64_t warps = (threads + d->warp_size - 1) / d->warp_size;
        if (d->threads_per_sm / threads < r) r = d->threads_per_sm / threads;
        if (d->warps_per_sm / warps < r) r = d->warps_per_sm / warps;
        if (regs > 0 && d->regs_per_sm / (regs * threads) < r) r = d->regs_per_sm / (regs * threads);
    }
    if (smem > 0 && d->smem_per_sm / smem < r) r = d->smem_per_sm / smem;
    return r > 0 ? r : 1;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

typedef struct kspan {
    int64_t first, end;
    size_t i;
} kspan;

static int cmp_kspan(const void *a, const void *b) {
    const kspan *x = a, *y = b;
    if (x->first != y->first) return x->first < y->first ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

typedef struct lgap {
    uint64_t stream;             /* (process, stream) packed */
    int64_t gap;
} lgap;

static int cmp_lgap(const void *a, const void *b) {
    const lgap *x = a, *y = b;
    if (x->stream != y->stream) return x->stream < y->stream ? -1 : 1;
    return (x->gap > y->gap) - (x->gap < y->gap);
}

/* Streams whose own launch latency is fitted: those with this many kernels
 * nothing held back, at least (a median of fewer is one launch's). */
#define REPLAY_STREAM_LATENCY_MIN 3

/* Each kernel's shift from the launch latency `lat` to its stream's own
 * (issue 28: "fitted per stream if they differ"; 39 ms and 1.6 ms appear on
 * different traces, and the V100 trace's GPUs fit 1.6 ms and 2.8 µs): the
 * median gap of the stream's kernels nothing held back, where it has
 * REPLAY_STREAM_LATENCY_MIN of them and the median differs from lat by
 * more than 10 µs and 50 %; else 0. *nstreams counts the streams so fitted. */
static void stream_shifts(const trace *t, lgap *g, size_t ng, int64_t lat, int64_t *kshift,
                          size_t *nstreams) {
    *nstreams = 0;
    qsort(g, ng, sizeof *g, cmp_lgap);
    for (size_t j = 0; j < ng;) {
        size_t e = j;
        while (e < ng && g[e].stream == g[j].stream) e++;
        if (e - j >= REPLAY_STREAM_LATENCY_MIN) {
            int64_t med = g[j + (e - j - 1) / 2].gap, d = med - lat;
            int64_t ad = d < 0 ? -d : d;
            if (ad > 10000 && 2 * ad > lat) {
                (*nstreams)++;
                for (size_t i = 0; i < t->kernels.n; i++) {
                    const trace_kernel *k = &t->kernels.v[i];
                    if ((((uint64_t)k->process << 32) | k->stream) == g[j].stream) kshift[i] = d;
                }
            }
        }
        j = e;
    }
}

/* The median issue -> first block gap of the kernels nothing held back:
 * the previous op of their stream had ended by their issue, and no other
 * kernel that started before them was still running at their issue. With
 * kshift (t->kernels.n of them, zeroed), each kernel's shift to its
 * stream's own latency (stream_shifts). */
static int launch_latency(const trace *t, int64_t *out, int64_t *kshift, size_t *nstreams) {
    *out = 0;
    size_t n = t->kernels.n;
    if (!n) return 0;
    /* ops of each stream by start: the end of the previous one */
    size_t nall = t->kernels.n + t->copies.n;
    rop *all = calloc(nall, sizeof *all);
    rop **ord = calloc(nall, sizeof *ord);
    int64_t *prev_end = malloc(n * sizeof *prev_end);
    kspan *ks = calloc(n, sizeof *ks);
    int64_t *gaps = malloc(n * sizeof *gaps);
    lgap *lg = malloc(n * sizeof *lg);
    int rc = -1;
    if (!all || !ord || !prev_end || !ks || !gaps || !lg) goto done;
    for (size_t i = 0; i < n; i++) {
        const trace_kernel *k = &t->kernels.v[i];
        /* a stream is (process, stream): pack both ids */
        all[i] = (rop){.start = k->first_block, .end = k->end, .order = i,
                       .stream = (long)(((uint64_t)k->process << 32) | k->stream)};
        prev_end[i] = TRACE_NONE;
    }
    for (size_t i = 0; i < t->copies.n; i++) {
        const trace_copy *c = &t->copies.v[i];
        all[n + i] = (rop){.start = c->start, .end = c->end, .order = n + i,
                           .stream = (long)(((uint64_t)c->process << 32) | c->stream)};
    }
    for (size_t i = 0; i < nall; i++) ord[i] = &all[i];
    qsort(ord, nall, sizeof *ord, cmp_stream_order);
    for (size_t i = 1; i < nall; i++)
        if (ord[i]->order < n && ord[i - 1]->stream == ord[i]->stream)
            prev_end[ord[i]->order] = ord[i - 1]->end;
    size_t nks = 0;
    for (size_t i = 0; i < n; i++) {
        const trace_kernel *k = &t->kernels.v[i];
        if (k->first_block == TRACE_NONE || k->end == TRACE_NONE) continue;
        ks[nks++] = (kspan){.first = k->first_block, .end = k->end, .i = i};
    }
    qsort(ks, nks, sizeof *ks, cmp_kspan);
    size_t ngaps = 0;
    int64_t running = INT64_MIN;   /* latest end of the kernels that started earlier */
    for (size_t j = 0; j < nks;) {
        size_t e = j;
        while (e < nks && ks[e].first == ks[j].first) e++;
        for (size_t m = j; m < e; m++) {
            const trace_kernel *k = &t->kernels.v[ks[m].i];
            if (k->issue == TRACE_NONE || k->issue > k->first_block) continue;
            if (prev_end[ks[m].i] != TRACE_NONE && prev_end[ks[m].i] > k->issue) continue;
            if (running > k->issue) continue;
            lg[ngaps] = (lgap){((uint64_t)k->process << 32) | k->stream, k->first_block - k->issue};
            gaps[ngaps++] = k->first_block - k->issue;
        }
        for (size_t m = j; m < e; m++)
            if (ks[m].end > running) running = ks[m].end;
        j = e;
    }
    if (ngaps) {
        qsort(gaps, ngaps, sizeof *gaps, cmp_i64);
        *out = gaps[(ngaps - 1) / 2];
        if (kshift) stream_shifts(t, lg, ngaps, *out, kshift, nstreams);
    }
    rc = 0;
done:
    free(lg);
    free(all);
    free(ord);
    free(prev_end);
    free(ks);
    free(gaps);
    return rc;
}

typedef struct cspan {
    int64_t issue, start, end;
    int32_t engine;
} cspan;

static int cmp_cspan(const void *a, const void *b) {
    const cspan *x = a, *y = b;
    if (x->engine != y->engine) return x->engine < y->engine ? -1 : 1;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end;
}

/* The time a copy engine needs between two copies: the median gap between
 * a copy's end and the start of the next one on the same engine (the
 * engine the simulator would use on dev) where that one was already issued,
 * so it waited only for the engine. A copy holds its engine for its
 * measured duration plus this. 0 when no copy waited so. */
static int copy_gap(const trace *t, const sim_device *dev, int64_t *out) {
    *out = 0;
    cspan *v = calloc(t->copies.n + 1, sizeof *v);
    int64_t *gaps = calloc(t->copies.n + 1, sizeof *gaps);
    if (!v || !gaps) {
        free(v);
        free(gaps);
        return -1;
    }
    size_t n = 0, ng = 0;
    for (size_t i = 0; i < t->copies.n; i++) {
        const trace_copy *c = &t->copies.v[i];
        if (c->start == TRACE_NONE || c->end == TRACE_NONE || c->issue == TRACE_NONE) continue;
        if (c->direction != TRACE_COPY_H2D && c->direction != TRACE_COPY_D2H &&
            c->direction != TRACE_COPY_D2D && c->direction != TRACE_COPY_P2P)
            continue;
        v[n++] = (cspan){c->issue, c->start, c->end,
                         (dev->copy_engines >= 2 && c->direction == TRACE_COPY_D2H) ? 1 : 0};
    }
    qsort(v, n, sizeof *v, cmp_cspan);
    for (size_t i = 1; i < n; i++)
        if (v[i].engine == v[i - 1].engine && v[i].issue <= v[i - 1].end &&
            v[i].start >= v[i - 1].end)
            gaps[ng++] = v[i].start - v[i - 1].end;
    if (ng) {
        qsort(gaps, ng, sizeof *gaps, cmp_i64);
        *out = gaps[(ng - 1) / 2];
    }
    free(v);
    free(gaps);
    return 0;
}

/* Per-block durations by block index for kernel k, or NULL when the trace
 * has no blocks of it. Missing indices get the mean of the known ones. A
 * block's duration is the time it ran: end - start less its pauses (a
 * preempted block's record spans them, trace.h). */
static json_t *block_times(const trace *t, const size_t *mine, size_t nmine, int64_t nblocks,
                           const int64_t *paused) {
    if (nblocks <= 0 || nblocks > 1000000 || nmine == 0) return NULL;
    int64_t *d = calloc((size_t)nblocks, sizeof *d);
    if (!d) return NULL;
    int64_t sum = 0, known = 0;
    for (size_t m = 0; m < nmine; m++) {
        const trace_block *b = &t->blocks.v[mine[m]];
        if (b->index < 0 || b->index >= nblocks ||
            b->start == TRACE_NONE || b->end == TRACE_NONE || d[b->index])
            continue;
        int64_t ran = b->end - b->start - (paused ? paused[mine[m]] : 0);
        d[b->index] = ran > 0 ? ran : 1;
        sum += d[b->index];
        known++;
    }
    json_t *arr = NULL;
    if (known) {
        int64_t mean = sum / known > 0 ? sum / known : 1;
        int same = 1;
        for (int64_t i = 0; i < nblocks; i++)
            if ((d[i] ? d[i] : mean) != (d[0] ? d[0] : mean)) same = 0;
        if (same) {
            arr = json_integer(d[0] ? d[0] : mean);   /* one time for every block */
        } else {
            arr = json_array();
            for (int64_t i = 0; arr && i < nblocks; i++)
                json_array_append_new(arr, json_integer(d[i] ? d[i] : mean));
        }
    }
    free(d);
    return arr;
}

static const char *copy_direction(int32_t dir) {
    switch (dir) {
    case TRACE_COPY_H2D: return "h2d";
    case TRACE_COPY_D2H: return "d2h";
    case TRACE_COPY_D2D:
    case TRACE_COPY_P2P: return "d2d";
    case TRACE_COPY_MEMSET: return "memset";
    /* h2h, a unified-memory migration (pages moved on a fault, queued on
     * no engine: trace.h) and anything else: stream work for its measured
     * duration, no engine */
    default: return "other";
    }
}

static int discard_blocks(void *ctx, const trace_block *b, size_t n) {
    (void)ctx;
    (void)b;
    (void)n;
    return 0;
}

const sim_block_sink *replay_discard_sink(void) {
    static const sim_block_sink sink = {.ctx = NULL, .emit = discard_blocks, .batch = 0};
    return &sink;
}

static bool cancelled(atomic_bool *cancel) { return cancel && atomic_load(cancel); }

/* discard_blocks, unless the job is cancelled (ctx: its cancel) */
static int discard_unless_cancelled(void *ctx, const trace_block *b, size_t n) {
    (void)b;
    (void)n;
    return cancelled(ctx) ? -1 : 0;
}

/* asked as often in a run of cohorts, which emits few blocks (sim.h) */
static int go_on_unless_cancelled(void *ctx, int64_t placed) {
    (void)placed;
    return cancelled(ctx) ? -1 : 0;
}

void replay_discard_sink_cancel(sim_block_sink *sink, atomic_bool *cancel) {
    *sink = (sim_block_sink){.ctx = cancel, .emit = discard_unless_cancelled, .batch = 0,
                             .placed = go_on_unless_cancelled};
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Issue 28 ("cost by kernels, not blocks"): a replay whose kernels have
 * more blocks in all than a block-by-block run keeps (SCN_MAX_TOTAL_BLOCKS;
 * the Rodinia Gaussian's 4.29 G) runs with "cohorts": identical blocks are
 * simulated and kept as cohorts (simcore/cohort.c), the same schedule, and
 * keeps only the placement variants that place cohorts too (round-robin).
 * A smaller replay stays block by block, as before. */
static void replay_cohorts(json_t *root) {
    json_t *jops = json_object_get(root, "ops");
    int64_t total = 0;
    for (size_t i = 0; i < json_array_size(jops); i++) {
        json_t *o = json_array_get(jops, i);
        if (json_object_get(o, "kernel")) total += json_integer_value(json_object_get(o, "blocks"));
    }
    if (total <= SCN_MAX_TOTAL_BLOCKS) return;
    json_object_set_new(root, "cohorts", json_true());
    /* a placement without cohorts places block by block (cohort.c): past
     * the limit, a variant of one would only fail */
    json_t *vs = json_object_get(root, "variants");
    for (size_t i = json_array_size(vs); i-- > 0;) {
        const char *pn = json_string_value(
            json_object_get(json_object_get(json_array_get(vs, i), "policy"), "placement"));
        if (!sim_placement_cohorts(sim_placement_find(pn))) json_array_remove(vs, i);
    }
    if (vs && !json_array_size(vs)) json_object_del(root, "variants");
}

/* Kernels that share the GPU run longer than alone (the leftover rule gives
 * the later one what the earlier one leaves). Simulate the scenario under
 * its base policy and scale each calibrated kernel's block time by measured
 * / simulated duration; keep the pass whose duration errors are smallest.
 * Calibrated kernel ops carry their measured duration in "measured" on the
 * way in; it is removed here. Each pass asks *cancel (may be NULL) at every
 * batch of blocks. Returns 0, REPLAY_CANCELLED, or -1 out of memory. A
 * scenario the simulator refuses is left as it is (simulating it says
 * why). */
static int refine(json_t *root, replay_info *info, atomic_bool *cancel) {
    json_t *jops = json_object_get(root, "ops");
    size_t n = json_array_size(jops), nk = 0, nc = 0;
    json_t **kop = calloc(n + 1, sizeof *kop);        /* the kernel ops, in order */
    int64_t *bt = calloc(n + 1, sizeof *bt), *best = calloc(n + 1, sizeof *best);
    int64_t *mdur = calloc(n + 1, sizeof *mdur);
    double *errs = calloc(n + 1, sizeof *errs);
    int rc = -1;
    if (!kop || !bt || !best || !mdur || !errs) goto done;
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_array_get(jops, i);
        if (!json_object_get(o, "kernel")) continue;
        kop[nk] = o;
        bt[nk] = json_integer_value(json_object_get(o, "block_time"));
        best[nk] = bt[nk];
        mdur[nk] = json_integer_value(json_object_get(o, "measured"));
        json_object_del(o, "measured");
        nk++;
    }
    double best_score = INFINITY;
    sim_block_sink sink;
    replay_discard_sink_cancel(&sink, cancel);
    for (int pass = 0; pass < REPLAY_PASSES; pass++) {
        if (cancelled(cancel)) {
            rc = REPLAY_CANCELLED;
            goto done;
        }
        char *txt = json_dumps(root, JSON_COMPACT);
        if (!txt) goto done;
        scn_scenario *s = NULL;
        char e[512];
        int bad = scn_parse(txt, strlen(txt), "replay", &s, e, sizeof e);
        free(txt);
        sim_config cfg;
        if (bad || scn_config(s, 0, &cfg, e, sizeof e) != 0) {
            scn_free(s);
            break;   /* simulating it will say why */
        }
        cfg.block_sink = &sink;
        trace tr;
        trace_init(&tr);
        int ran = sim_run(&cfg, &tr, e, sizeof e);
        scn_free(s);
        if (ran != 0 && cancelled(cancel)) {
            trace_free(&tr);
            rc = REPLAY_CANCELLED;
            goto done;
        }
        if (ran != 0 || tr.kernels.n != nk) {
            trace_free(&tr);
            break;
        }
        info->passes = pass + 1;
        nc = 0;
        for (size_t k = 0; k < nk; k++) {
            int64_t md = mdur[k];
            if (md <= 0) continue;
            const trace_kernel *sk = &tr.kernels.v[k];
            int64_t sd = sk->end != TRACE_NONE && sk->first_block != TRACE_NONE
                             ? sk->end - sk->first_block : 0;
            errs[nc++] = sd > 0 ? fabs((double)(sd - md)) / (double)md : 1.0;
        }
        qsort(errs, nc, sizeof *errs, cmp_double);
        double med = nc ? errs[(nc - 1) / 2] : 0;
        double p90 = nc ? errs[(size_t)ceil(0.9 * (double)nc) - 1] : 0;
        if (pass == 0) {
            info->alone_median = med;
            info->alone_p90 = p90;
        }
        double score = p90 + med;
        if (score < best_score) {
            best_score = score;
            info->refined_median = med;
            info->refined_p90 = p90;
            memcpy(best, bt, nk * sizeof *bt);
        }
        if (p90 <= 0.001) {
            trace_free(&tr);
            break;
        }
        for (size_t k = 0; k < nk; k++) {
            int64_t md = mdur[k];
            const trace_kernel *sk = &tr.kernels.v[k];
            if (md <= 0 || sk->end == TRACE_NONE || sk->first_block == TRACE_NONE) continue;
            int64_t sd = sk->end - sk->first_block;
            if (sd <= 0) continue;
            double nb = floor((double)bt[k] * (double)md / (double)sd + 0.5);
            bt[k] = nb < 1 ? 1 : nb > 1e15 ? bt[k] : (int64_t)nb;
            json_object_set_new(kop[k], "block_time", json_integer(bt[k]));
        }
        trace_free(&tr);
    }
    for (size_t k = 0; k < nk; k++)
        if (mdur[k] > 0) json_object_set_new(kop[k], "block_time", json_integer(best[k]));
    rc = 0;
done:
    free(kop);
    free(bt);
    free(best);
    free(mdur);
    free(errs);
    return rc;
}

/* The issue time of record `id` (kernels, then copies): `at`, or for an op
 * the host held back (host_gaps.h) its measured start less `lat` (the
 * launch latency of a kernel; a copy starts as it is issued) where that is
 * later. */
static int64_t held_at(const host_gap *v, size_t n, size_t id, int64_t at, int64_t lat) {
    size_t lo = 0, hi = n;   /* v is sorted by id */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].id < id) lo = mid + 1;
        else hi = mid;
    }
    if (lo < n && v[lo].id == id && v[lo].start - lat > at) return v[lo].start - lat;
    return at;
}

static int cmp_gap_id(const void *a, const void *b) {
    const host_gap *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

int replay_scenario(const trace *t, const char *what, const char *device_preset, json_t **out,
                    char *err, size_t errlen) {
    return replay_scenario_info(t, what, device_preset, out, NULL, err, errlen);
}

int replay_scenario_info(const trace *t, const char *what, const char *device_preset,
                         json_t **out, replay_info *info_out, char *err, size_t errlen) {
    return replay_scenario_info_ctl(t, what, device_preset, NULL, out, info_out, err, errlen);
}

int replay_scenario_info_ctl(const trace *t, const char *what, const char *device_preset,
                             atomic_bool *cancel, json_t **out, replay_info *info_out, char *err,
                             size_t errlen) {
    *out = NULL;
    replay_info info;
    memset(&info, 0, sizeof info);
    sim_device dev;
    json_t *devj = NULL;
    if (choose_device(t, what, device_preset, &devj, &dev, &info, err, errlen) != 0) {
        if (!err[0]) snprintf(err, errlen, "%s: out of memory deriving the scenario", what);
        return -1;
    }
    rstream *streams = NULL;
    size_t nstreams = 0, nops = 0;
    size_t nrec = t->kernels.n + t->copies.n + t->host_calls.n;
    rop *ops = calloc(nrec + 1, sizeof *ops);
    rop **ord = calloc(nrec + 1, sizeof *ord);
    /* per kernel, then copy: 1 + its place in the trace's host_calls, or 0 */
    size_t *call_of = calloc(t->kernels.n + t->copies.n + 1, sizeof *call_of);
    int64_t *kdur = NULL, *paused = NULL;
    int64_t *kshift = NULL;  /* per kernel: its stream's own launch latency - lat */
    host_gap *held = NULL;   /* ops the host held back: issued at their start */
    size_t nheld = 0;
    /* blocks grouped by kernel (a counting sort), so each kernel reads
     * only its own blocks */
    size_t *first = calloc(t->kernels.n + 1, sizeof *first);
    size_t *byk = malloc((t->blocks.n + 1) * sizeof *byk);
    int rc = -1;
    if (!ops || !ord || !first || !byk || !call_of) goto oom;
    /* A simulation whose CPU tasks can be held (trace.h, host_calls) says
     * which task called each op when, and where it synchronised: the replay
     * makes the same calls from the same tasks (scenario-format.md, "What
     * blocks the host"), so what its syncs and blocking copies held is
     * issued when they return, as in the run, not at the recorded issue
     * time, where an arrival at the same instant could fall the other way. */
    for (size_t j = 0; j < t->host_calls.n; j++) {
        const trace_host_call *hc = &t->host_calls.v[j];
        if (hc->kind == TRACE_CALL_KERNEL && hc->record >= 0 && (size_t)hc->record < t->kernels.n)
            call_of[hc->record] = j + 1;
        else if (hc->kind == TRACE_CALL_COPY && hc->record >= 0 &&
                 (size_t)hc->record < t->copies.n)
            call_of[t->kernels.n + (size_t)hc->record] = j + 1;
    }
    info.copy_engines = dev.copy_engines;
    if (copies_as_measured(t, &devj, &dev, &info) != 0) goto oom;
    kshift = calloc(t->kernels.n + 1, sizeof *kshift);
    if (!kshift || launch_latency(t, &info.launch_latency, kshift, &info.latency_streams) != 0)
        goto oom;
    int64_t lat = info.launch_latency;
    if (copy_gap(t, &dev, &info.copy_gap) != 0) goto oom;
    if (host_gaps_find(t, dev.copy_engines, lat, &held, &nheld) != 0) goto oom;
    info.host_gaps = nheld;
    if (nheld) qsort(held, nheld, sizeof *held, cmp_gap_id);
    for (size_t i = 0; i < nheld; i++)
        if (held[i].start - held[i].ready > info.host_gap_max)
            info.host_gap_max = held[i].start - held[i].ready;
    if (t->pauses.n) {   /* the time each block was paused, by block */
        paused = calloc(t->blocks.n + 1, sizeof *paused);
        if (!paused) goto oom;
        for (size_t i = 0; i < t->pauses.n; i++) {
            const trace_pause *pz = &t->pauses.v[i];
            if (pz->block >= 0 && (size_t)pz->block < t->blocks.n && pz->end > pz->start)
                paused[pz->block] += pz->end - pz->start;
        }
    }
    /* per kernel op: its measured duration, and whether its block time is
     * calibrated (no block records); indexed like the trace's kernels */
    kdur = calloc(t->kernels.n + 1, sizeof *kdur);
    if (!kdur) goto oom;
    for (size_t i = 0; i < t->blocks.n; i++) {
        int32_t k = t->blocks.v[i].kernel;
        if (k >= 0 && (size_t)k < t->kernels.n) first[k + 1]++;
    }
    for (size_t k = 0; k < t->kernels.n; k++) first[k + 1] += first[k];
    {
        size_t *fill = calloc(t->kernels.n + 1, sizeof *fill);
        if (!fill) goto oom;
        for (size_t i = 0; i < t->blocks.n; i++) {
            int32_t k = t->blocks.v[i].kernel;
            if (k >= 0 && (size_t)k < t->kernels.n) byk[first[k] + fill[k]++] = i;
        }
        free(fill);
    }

    for (size_t i = 0; i < t->kernels.n; i++) {
        const trace_kernel *k = &t->kernels.v[i];
        int64_t at = k->issue != TRACE_NONE ? k->issue
                     : k->first_block != TRACE_NONE ? k->first_block - lat : TRACE_NONE;
        int64_t blocks = k->blocks > 0 ? k->blocks
                         : (int64_t)(k->grid[0] ? k->grid[0] : 1) * (k->grid[1] ? k->grid[1] : 1) *
                               (k->grid[2] ? k->grid[2] : 1);
        int64_t threads = k->threads > 0 ? k->threads
                          : (int64_t)(k->block[0] ? k->block[0] : 1) *
                                (k->block[1] ? k->block[1] : 1) * (k->block[2] ? k->block[2] : 1);
        if (at == TRACE_NONE) { info.skipped++; continue; }
        /* the simulator adds lat to every op: a stream of its own latency
         * is issued that much later (or earlier) */
        const trace_host_call *hc = call_of[i] ? &t->host_calls.v[call_of[i] - 1] : NULL;
        if (hc && hc->at != TRACE_NONE) at = hc->at;
        if (k->issue != TRACE_NONE) at += kshift[i];
        if (!hc) at = held_at(held, nheld, i, at, lat + kshift[i]);
        json_t *bt = block_times(t, byk + first[i], first[i + 1] - first[i], blocks, paused);
        if (!bt) {
            /* no block records: the block time that makes the kernel last
             * as measured when it runs alone on dev with its occupancy */
            int64_t s = k->first_block != TRACE_NONE ? k->first_block : k->issue;
            if (k->end == TRACE_NONE || s == TRACE_NONE) { info.skipped++; continue; }
            int64_t dur = k->end - s > 0 ? k->end - s : 1;
            int64_t per_wave = (int64_t)dev.sms *
                               blocks_per_sm(&dev, threads, k->regs > 0 ? k->regs : 0,
                                             k->smem != TRACE_NONE && k->smem > 0 ? k->smem : 0);
            int64_t waves = (blocks + per_wave - 1) / per_wave;
            if (waves < 1) waves = 1;
            int64_t b = (dur + waves / 2) / waves;
            bt = json_integer(b > 0 ? b : 1);
            kdur[i] = dur;
            info.calibrated++;
        }
        long si = stream_of(t, &streams, &nstreams, k->process, k->stream, k->priority);
        if (si < 0) { json_decref(bt); goto oom; }
        const char *name = trace_str_get(t, k->name);
        char fallback[32];
        if (!name) { snprintf(fallback, sizeof fallback, "kernel %zu", i); name = fallback; }
        json_t *op = json_pack("{s:o, s:s, s:s, s:I, s:I, s:I, s:o}", "kernel", tj_string(name),
                               "stream", streams[si].name, "process",
                               proc_name(t, k->process), "at", (json_int_t)0, "blocks",
                               (json_int_t)blocks, "threads", (json_int_t)threads, "block_time",
                               bt);
        if (!op) goto oom;
        if (k->regs > 0) json_object_set_new(op, "regs", json_integer(k->regs));
        if (k->smem != TRACE_NONE) json_object_set_new(op, "smem", json_integer(k->smem));
        ops[nops++] = (rop){.at = at, .start = k->first_block, .end = k->end, .order = i,
                            .stream = si, .scripted = hc != NULL,
                            .hseq = call_of[i] ? call_of[i] - 1 : 0, .op = op};
        if (hc) take_task(t, &streams[si], op, hc->task);
        info.kernels++;
    }
    for (size_t i = 0; i < t->copies.n; i++) {
        const trace_copy *c = &t->copies.v[i];
        int64_t at = c->issue != TRACE_NONE ? c->issue
                     : c->start != TRACE_NONE ? c->start - lat : TRACE_NONE;
        size_t cj = call_of[t->kernels.n + i];
        const trace_host_call *hc = cj ? &t->host_calls.v[cj - 1] : NULL;
        if (hc && hc->at != TRACE_NONE) at = hc->at;
        else if (at != TRACE_NONE) at = held_at(held, nheld, t->kernels.n + i, at, 0);
        const char *dir = copy_direction(c->direction);
        int engine = strcmp(dir, "memset") != 0 && strcmp(dir, "other") != 0;
        int64_t dur = c->start != TRACE_NONE && c->end != TRACE_NONE ? c->end - c->start : -1;
        /* an engine copy can go by its bytes; other stream work needs its
         * measured duration */
        if (at == TRACE_NONE || (engine && (c->bytes == TRACE_NONE || c->bytes < 0) && dur <= 0) ||
            (!engine && dur <= 0)) {
            info.skipped++;
            continue;
        }
        long si = stream_of(t, &streams, &nstreams, c->process, c->stream, TRACE_PRIO_NONE);
        if (si < 0) goto oom;
        const char *name = trace_str_get(t, c->name);
        char fallback[32];
        if (!name) { snprintf(fallback, sizeof fallback, "copy %zu", i); name = fallback; }
        json_t *op = json_pack("{s:o, s:s, s:s, s:I, s:I, s:s}", "copy", tj_string(name),
                               "stream", streams[si].name, "process", proc_name(t, c->process),
                               "at", (json_int_t)0, "bytes",
                               (json_int_t)(c->bytes > 0 ? c->bytes : 0), "direction", dir);
        if (!op) goto oom;
        /* an engine copy holds its engine for the gap the hardware left
         * between back-to-back copies too */
        if (dur > 0) json_object_set_new(op, "duration", json_integer(dur + (engine ? info.copy_gap : 0)));
        if (hc && hc->blocking) json_object_set_new(op, "blocking", json_true());
        ops[nops++] = (rop){.at = at, .start = c->start, .end = c->end,
                            .order = t->kernels.n + i, .stream = si, .scripted = hc != NULL,
                            .hseq = cj ? cj - 1 : 0, .op = op};
        if (hc) take_task(t, &streams[si], op, hc->task);
        if (engine) info.copies++;
        else info.memsets++;
    }
    /* the syncs of the trace's host calls (a kernel's or copy's is above) */
    for (size_t j = 0; j < t->host_calls.n; j++) {
        const trace_host_call *hc = &t->host_calls.v[j];
        if (hc->kind != TRACE_CALL_SYNC && hc->kind != TRACE_CALL_DEVICE_SYNC) continue;
        if (hc->at == TRACE_NONE || !hc->stream) { info.skipped++; continue; }
        long si = stream_of(t, &streams, &nstreams, hc->process, hc->stream, TRACE_PRIO_NONE);
        if (si < 0) goto oom;
        const char *name = trace_str_get(t, hc->name);
        char fallback[32];
        if (!name) { snprintf(fallback, sizeof fallback, "sync %zu", j); name = fallback; }
        json_t *op = json_pack("{s:o, s:s, s:s, s:I}", "sync", tj_string(name), "stream",
                               streams[si].name, "process", proc_name(t, hc->process), "at",
                               (json_int_t)0);
        if (!op) goto oom;
        if (hc->kind == TRACE_CALL_DEVICE_SYNC)
            json_object_set_new(op, "scope", json_string("device"));
        ops[nops++] = (rop){.at = hc->at < 0 ? 0 : hc->at, .start = hc->issue, .end = hc->end,
                            .order = t->kernels.n + t->copies.n + j, .stream = si,
                            .scripted = true, .hseq = j, .op = op};
        take_task(t, &streams[si], op, hc->task);
    }
    /* Early ops: the scenario keeps the trace's time axis, and an op whose
     * issue falls before its start (t = 0, the earliest record) -- a kernel
     * launched before the profiler's window opened has no launch call and
     * is issued at its start less the launch latency (the DLRM rank-1
     * PyTorch trace's first kernel, at 0 - 7 us); a stream of a shorter
     * latency than lat, near the start -- issued at 0 would arrive -at late
     * (the simulator adds the latency to every op, streams.c). It is issued
     * at 0 with the part of the latency left as its own (the op's
     * "launch_latency"), so it reaches its stream when it did: a kernel
     * without issue at its measured start. */
    for (size_t i = 0; i < nops; i++) {
        if (ops[i].at >= 0) continue;   /* (a sync's is 0 at least: above) */
        int64_t own = lat + ops[i].at > 0 ? lat + ops[i].at : 0;
        json_object_set_new(ops[i].op, "launch_latency", json_integer(own));
        ops[i].at = 0;
        info.early++;
    }
    /* Each stream keeps its measured order: an op is never issued before
     * the op ahead of it in its stream (Fig. 3's K3 stays behind C2o and
     * C3i, which share its issue time). */
    for (size_t i = 0; i < nops; i++) ord[i] = &ops[i];
    qsort(ord, nops, sizeof *ord, cmp_stream_order);
    for (size_t i = 0; i < nops; i++) {
        /* (a scripted call is issued when the host made it: its stream's
         * order is the host's) */
        if (i && !ord[i]->scripted && ord[i - 1]->stream == ord[i]->stream &&
            ord[i]->at < ord[i - 1]->at)
            ord[i]->at = ord[i - 1]->at;
    }
    qsort(ops, nops, sizeof *ops, cmp_op);

    json_t *root = json_object();
    json_t *jstreams = json_array(), *jops = json_array();
    if (!root || !jstreams || !jops) { json_decref(root); json_decref(jstreams); json_decref(jops); goto oom; }
    char name[512];
    snprintf(name, sizeof name, "Replay of %s", t->name ? t->name : what);
    json_object_set_new(root, "schema", json_string("schedlab-scenario/1"));
    json_object_set_new(root, "name", tj_string(name));
    json_object_set_new(root, "device", devj);
    devj = NULL;
    /* the scenario runs under the default placement policy; every other
     * policy of the table is a variant, so one replay compares them all */
    json_t *pol = json_pack("{s:s}", "placement", sim_placement_name(0));
    if (pol && lat > 0) json_object_set_new(pol, "launch_latency", json_integer(lat));
    /* a simulated run says which GPU-context policy it ran (simcore/sim.c's
     * meta): its replay runs the same, so the round trip holds */
    const char *ctxs = trace_get_meta(t, "contexts");
    if (pol && ctxs && sim_policy_find(SIM_TABLE_DRIVER, ctxs) > 0) {
        json_object_set_new(pol, "contexts", json_string(ctxs));
        static const char *const keys[] = {"time_slice", "context_switch", "runlist_update"};
        for (size_t k = 0; k < 3; k++) {
            const char *v = trace_get_meta(t, keys[k]);
            char *end = NULL;
            long long ns = v ? strtoll(v, &end, 10) : 0;
            if (v && end && !*end && ns > 0) json_object_set_new(pol, keys[k], json_integer(ns));
        }
        /* issue 27: present only when the run gave it, 0 included */
        const char *ci = trace_get_meta(t, "context_switch_idle");
        char *cend = NULL;
        long long cins = ci ? strtoll(ci, &cend, 10) : -1;
        if (ci && cend && !*cend && cins >= 0)
            json_object_set_new(pol, "context_switch_idle", json_integer(cins));
        /* issue 27: a GCAPS macro's bookkeeping cost, recorded when the
         * run gave it (> 0); carried where the run's driver reads it
         * (gcaps), as the scenario parser refuses it elsewhere. A replay's
         * ops call no macro, so it moves none of them: the replay's
         * policy and meta are the run's, as runlist_update's are */
        const char *bk = trace_get_meta(t, "ioctl_bookkeeping");
        char *bend = NULL;
        long long bkns = bk ? strtoll(bk, &bend, 10) : 0;
        if (bk && bend && !*bend && bkns > 0 &&
            sim_driver_bookkeeping(sim_policy_find(SIM_TABLE_DRIVER, ctxs)))
            json_object_set_new(pol, "ioctl_bookkeeping", json_integer(bkns));
        const char *gw = trace_get_meta(t, "gpu_wait");
        if (gw && strcmp(gw, "busy") == 0) json_object_set_new(pol, "gpu_wait", json_string(gw));
    }
    json_object_set_new(root, "policy", pol);
    for (size_t i = 0; i < nstreams; i++) {
        if (strcmp(streams[i].name, "null") == 0) continue;   /* implicit in every process */
        json_t *js = json_pack("{s:s, s:s, s:o}", "name", streams[i].name, "process",
                               proc_name(t, streams[i].process), "priority",
                               priority_json(streams[i].priority));
        if (js && streams[i].task)
            json_object_set_new(js, "task", tj_string(trace_str_get(t, streams[i].task)));
        json_array_append_new(jstreams, js);
    }
    for (size_t i = 0; i < nops; i++) {
        if (ops[i].order < t->kernels.n && kdur[ops[i].order] > 0)
            json_object_set_new(ops[i].op, "measured", json_integer(kdur[ops[i].order]));
        json_object_set_new(ops[i].op, "at", json_integer(ops[i].at));
        json_array_append_new(jops, ops[i].op);
        ops[i].op = NULL;
    }
    json_object_set_new(root, "streams", jstreams);
    json_object_set_new(root, "ops", jops);
    json_t *variants = json_array();
    for (size_t p = 1; variants && p < sim_placement_count(); p++) {
        /* a replay has no SM partitions: spart would place as most-room */
        if (sim_placement_partitioned((int32_t)p)) continue;
        const char *pn = sim_placement_name((int32_t)p);
        json_array_append_new(variants, json_pack("{s:s, s:{s:s}}", "name", pn, "policy",
                                                  "placement", pn));
    }
    if (variants && json_array_size(variants)) json_object_set_new(root, "variants", variants);
    else json_decref(variants);
    replay_cohorts(root);
    int refined_rc = info.calibrated ? refine(root, &info, cancel) : 0;
    if (refined_rc != 0) {
        json_decref(root);
        if (refined_rc != REPLAY_CANCELLED) goto oom;
        snprintf(err, errlen, "%s: cancelled", what);
        rc = REPLAY_CANCELLED;
        goto done;
    }
    char desc[2048], refined[256] = "";
    if (info.passes > 1)
        snprintf(refined, sizeof refined,
                 " (then refined in %d simulation passes so that, sharing the GPU as they did, "
                 "they last as measured)", info.passes);
    snprintf(desc, sizeof desc,
             "Derived by `schedlab replay` from %s (source %s) on %s: %zu kernels (%zu with the "
             "block time that gives their measured duration alone%s), %zu copies and %zu memsets "
             "at their measured durations (copies plus the %" PRId64 " ns the engine left between "
             "copies), launch latency %" PRId64 " ns; %zu records without the times a scenario "
             "needs were left out.",
             what, t->source ? t->source : "unknown", info.device_why, info.kernels,
             info.calibrated, refined, info.copies, info.memsets, info.copy_gap, lat,
             info.skipped);
    if (info.latency_streams) {
        size_t dl = strlen(desc);
        snprintf(desc + dl, sizeof desc - dl,
                 " %zu streams launch with their own latency (the median of their kernels "
                 "nothing held back).", info.latency_streams);
    }
    if (info.early) {
        size_t dl = strlen(desc);
        snprintf(desc + dl, sizeof desc - dl,
                 " %zu ops whose issue falls before the trace's start (e.g. launched before the "
                 "profiler's window: no launch call) are issued at 0 with the rest of the launch "
                 "latency as their own, so they reach their stream when they did.",
                 info.early);
    }
    if (info.host_gaps) {
        size_t dl = strlen(desc);
        snprintf(desc + dl, sizeof desc - dl,
                 " %zu ops the host held back (started long after their call, stream idle, "
                 "engine free; the longest %" PRId64 " ns) are issued at their measured start.",
                 info.host_gaps, info.host_gap_max);
    }
    json_object_set_new(root, "description", tj_string(desc));
    *out = root;
    rc = 0;
    goto done;
oom:
    snprintf(err, errlen, "%s: out of memory deriving the scenario", what);
done:
    json_decref(devj);
    for (size_t i = 0; i < nops; i++) json_decref(ops[i].op);
    free(ops);
    free(held);
    free(kshift);
    free(kdur);
    free(paused);
    free(ord);
    free(call_of);
    free(first);
    free(byk);
    for (size_t i = 0; i < nstreams; i++) free(streams[i].name);
    free(streams);
    if (info_out) *info_out = info;
    return rc;
}

int replay_check(const json_t *scn, const char *what, char *err, size_t errlen) {
    char *txt = json_dumps(scn, JSON_COMPACT);
    if (!txt) {
        snprintf(err, errlen, "%s: out of memory checking the scenario", what);
        return -1;
    }
    char e[1024] = "";
    scn_scenario *s = NULL;
    sim_config cfg;
    int bad = scn_parse(txt, strlen(txt), "replay", &s, e, sizeof e) != 0 ||
              scn_config(s, 0, &cfg, e, sizeof e) != 0;
    free(txt);
    scn_free(s);
    if (!bad) return 0;
    replay_name_op(scn, e, sizeof e);
    snprintf(err, errlen, "%s: does not simulate: %s", what, e);
    return 1;
}

char *replay_text(const json_t *doc) {
    return jr_dumps_line(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
}

void replay_name_op(const json_t *scn, char *err, size_t errlen) {
    const char *at = err ? strstr(err, "ops[") : NULL;
    if (!at || errlen == 0) return;
    char *end = NULL;
    unsigned long long i = strtoull(at + 4, &end, 10);
    if (end == at + 4 || *end != ']') return;
    const json_t *op = json_array_get(json_object_get(scn, "ops"), (size_t)i);
    if (!op) return;
    static const char *const kinds[] = {"kernel", "copy", "memset", "other"};
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
        const char *name = json_string_value(json_object_get(op, kinds[k]));
        if (!name) continue;
        const char *stream = json_string_value(json_object_get(op, "stream"));
        size_t len = strlen(err);
        if (len + 1 < errlen)
            snprintf(err + len, errlen - len, " (ops[%llu]: %s \"%.200s\"%s%.60s%s)", i, kinds[k], name,
                     stream ? " on stream \"" : "", stream ? stream : "", stream ? "\"" : "");
        return;
    }
}
