/* replay.c -- trace -> schedlab-scenario/1. See replay.h. */
#include "replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_json.h"

typedef struct rstream {
    trace_str process, stream;   /* as in the trace (0 = unknown) */
    char *name;                  /* unique scenario name; "null" for a NULL stream */
    int32_t priority;
} rstream;

typedef struct rop {
    int64_t at;
    size_t order;                /* trace order: ties keep it */
    json_t *op;
} rop;

static int cmp_op(const void *a, const void *b) {
    const rop *x = a, *y = b;
    if (x->at != y->at) return x->at < y->at ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
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
                       .priority = priority};
    if (!nv[*n].name) return -1;
    return (long)(*n)++;
}

static json_t *priority_json(int32_t p) {
    return p == TRACE_PRIO_NONE ? json_string("none") : json_integer(p);
}

static json_t *device_json(const trace *t, const char *what, const char *preset, char *err,
                           size_t errlen) {
    if (preset) {
        if (!sim_preset_find(preset)) {
            char names[512] = "";
            size_t len = 0;
            for (size_t i = 0; i < sim_preset_count() && len < sizeof names; i++)
                len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", i ? ", " : "",
                                        sim_preset_at(i)->name);
            snprintf(err, errlen, "--device: no preset named \"%s\" (presets: %s)", preset, names);
            return NULL;
        }
        return json_string(preset);
    }
    if (t->has_device) {
        char why[256];
        if (sim_device_validate(&t->device, why, sizeof why) == 0) {
            json_t *d = tj_device_json(&t->device);
            if (d && t->device.clock_hz == 0) json_object_del(d, "clock");
            return d;
        }
        if (sim_preset_find(t->device.name)) return json_string(t->device.name);
        snprintf(err, errlen,
                 "%s: the trace's device \"%s\" is incomplete (%s); replay it on a device preset (--device PRESET)",
                 what, t->device.name, why);
        return NULL;
    }
    snprintf(err, errlen, "%s: the trace names no device; replay it on a device preset (--device PRESET)", what);
    return NULL;
}

/* Per-block durations by block index for kernel k, or NULL when the trace
 * has no blocks of it. Missing indices get the mean of the known ones. */
static json_t *block_times(const trace *t, const size_t *mine, size_t nmine, int64_t nblocks) {
    if (nblocks <= 0 || nblocks > 1000000 || nmine == 0) return NULL;
    int64_t *d = calloc((size_t)nblocks, sizeof *d);
    if (!d) return NULL;
    int64_t sum = 0, known = 0;
    for (size_t m = 0; m < nmine; m++) {
        const trace_block *b = &t->blocks.v[mine[m]];
        if (b->index < 0 || b->index >= nblocks ||
            b->start == TRACE_NONE || b->end == TRACE_NONE || d[b->index])
            continue;
        d[b->index] = b->end - b->start > 0 ? b->end - b->start : 1;
        sum += d[b->index];
        known++;
    }
    json_t *arr = NULL;
    if (known) {
        int64_t mean = sum / known > 0 ? sum / known : 1;
        arr = json_array();
        for (int64_t i = 0; arr && i < nblocks; i++)
            json_array_append_new(arr, json_integer(d[i] ? d[i] : mean));
    }
    free(d);
    return arr;
}

int replay_scenario(const trace *t, const char *what, const char *device_preset, json_t **out,
                    char *err, size_t errlen) {
    *out = NULL;
    json_t *dev = device_json(t, what, device_preset, err, errlen);
    if (!dev) return -1;
    rstream *streams = NULL;
    size_t nstreams = 0, nops = 0, skipped = 0;
    rop *ops = calloc(t->kernels.n + t->copies.n + 1, sizeof *ops);
    /* blocks grouped by kernel (a counting sort), so each kernel reads
     * only its own blocks */
    size_t *first = calloc(t->kernels.n + 1, sizeof *first);
    size_t *byk = malloc((t->blocks.n + 1) * sizeof *byk);
    int rc = -1;
    if (!ops || !first || !byk) goto oom;
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
        int64_t at = k->issue != TRACE_NONE ? k->issue : k->first_block;
        int64_t blocks = k->blocks > 0 ? k->blocks
                         : (int64_t)(k->grid[0] ? k->grid[0] : 1) * (k->grid[1] ? k->grid[1] : 1) *
                               (k->grid[2] ? k->grid[2] : 1);
        int64_t threads = k->threads > 0 ? k->threads
                          : (int64_t)(k->block[0] ? k->block[0] : 1) *
                                (k->block[1] ? k->block[1] : 1) * (k->block[2] ? k->block[2] : 1);
        if (at == TRACE_NONE) { skipped++; continue; }
        json_t *bt = block_times(t, byk + first[i], first[i + 1] - first[i], blocks);
        if (!bt) {
            int64_t s = k->first_block != TRACE_NONE ? k->first_block : k->issue;
            if (k->end == TRACE_NONE || s == TRACE_NONE) { skipped++; continue; }
            bt = json_integer(k->end - s > 0 ? k->end - s : 1);
        }
        long si = stream_of(t, &streams, &nstreams, k->process, k->stream, k->priority);
        if (si < 0) { json_decref(bt); goto oom; }
        const char *name = trace_str_get(t, k->name);
        char fallback[32];
        if (!name) { snprintf(fallback, sizeof fallback, "kernel %zu", i); name = fallback; }
        json_t *op = json_pack("{s:o, s:s, s:s, s:I, s:I, s:I, s:o}", "kernel", tj_string(name),
                               "stream", streams[si].name, "process",
                               proc_name(t, k->process), "at", (json_int_t)at, "blocks",
                               (json_int_t)blocks, "threads", (json_int_t)threads, "block_time",
                               bt);
        if (!op) goto oom;
        if (k->regs > 0) json_object_set_new(op, "regs", json_integer(k->regs));
        if (k->smem != TRACE_NONE) json_object_set_new(op, "smem", json_integer(k->smem));
        ops[nops++] = (rop){.at = at, .order = i, .op = op};
    }
    for (size_t i = 0; i < t->copies.n; i++) {
        const trace_copy *c = &t->copies.v[i];
        int64_t at = c->issue != TRACE_NONE ? c->issue : c->start;
        const char *dir = c->direction == TRACE_COPY_H2D   ? "h2d"
                          : c->direction == TRACE_COPY_D2H ? "d2h"
                          : (c->direction == TRACE_COPY_D2D || c->direction == TRACE_COPY_P2P)
                              ? "d2d"
                              : NULL;
        /* memsets and host-to-host copies use no copy engine queue the
         * simulator models: they are left out and counted. */
        if (at == TRACE_NONE || !dir || c->bytes == TRACE_NONE || c->bytes < 0) { skipped++; continue; }
        long si = stream_of(t, &streams, &nstreams, c->process, c->stream, TRACE_PRIO_NONE);
        if (si < 0) goto oom;
        const char *name = trace_str_get(t, c->name);
        char fallback[32];
        if (!name) { snprintf(fallback, sizeof fallback, "copy %zu", i); name = fallback; }
        json_t *op = json_pack("{s:o, s:s, s:s, s:I, s:I, s:s}", "copy", tj_string(name),
                               "stream", streams[si].name, "process", proc_name(t, c->process),
                               "at", (json_int_t)at, "bytes", (json_int_t)c->bytes,
                               "direction", dir);
        if (!op) goto oom;
        ops[nops++] = (rop){.at = at, .order = t->kernels.n + i, .op = op};
    }
    qsort(ops, nops, sizeof *ops, cmp_op);
    /* a scenario's times start at 0 */
    int64_t shift = nops && ops[0].at < 0 ? ops[0].at : 0;

    json_t *root = json_object();
    json_t *jstreams = json_array(), *jops = json_array();
    if (!root || !jstreams || !jops) { json_decref(root); json_decref(jstreams); json_decref(jops); goto oom; }
    char name[512], desc[512];
    snprintf(name, sizeof name, "Replay of %s", t->name ? t->name : what);
    snprintf(desc, sizeof desc,
             "Derived by `schedlab replay` from %s (source %s): %zu ops; %zu records without "
             "the times, sizes or copy direction a scenario needs were left out.",
             what, t->source ? t->source : "unknown", nops, skipped);
    json_object_set_new(root, "schema", json_string("schedlab-scenario/1"));
    json_object_set_new(root, "name", tj_string(name));
    json_object_set_new(root, "description", tj_string(desc));
    json_object_set_new(root, "device", dev);
    dev = NULL;
    for (size_t i = 0; i < nstreams; i++) {
        if (strcmp(streams[i].name, "null") == 0) continue;   /* implicit in every process */
        json_array_append_new(jstreams,
                              json_pack("{s:s, s:s, s:o}", "name", streams[i].name, "process",
                                        proc_name(t, streams[i].process), "priority",
                                        priority_json(streams[i].priority)));
    }
    for (size_t i = 0; i < nops; i++) {
        if (shift) json_object_set_new(ops[i].op, "at", json_integer(ops[i].at - shift));
        json_array_append_new(jops, ops[i].op);
        ops[i].op = NULL;
    }
    json_object_set_new(root, "streams", jstreams);
    json_object_set_new(root, "ops", jops);
    *out = root;
    rc = 0;
    goto done;
oom:
    snprintf(err, errlen, "%s: out of memory deriving the scenario", what);
done:
    json_decref(dev);
    for (size_t i = 0; i < nops; i++) json_decref(ops[i].op);
    free(ops);
    free(first);
    free(byk);
    for (size_t i = 0; i < nstreams; i++) free(streams[i].name);
    free(streams);
    return rc;
}
