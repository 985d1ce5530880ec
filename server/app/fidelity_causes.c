/* fidelity_causes.c -- a replay's report explains itself (fidelity_causes.h). */
#include "fidelity_causes.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_gaps.h"
#include "replay.h"

static void add(json_t *causes, const char *kind, const char *text) {
    json_array_append_new(causes, json_pack("{s:s, s:s}", "cause", kind, "text", text));
}

int fidelity_explain(json_t *rep, const trace *m, const replay_info *info,
                     const replay_heldout *h) {
    json_t *causes = json_array();
    if (!causes) return -1;
    int64_t span = json_integer_value(json_object_get(rep, "span_ns"));
    char buf[768];

    /* ---- the calibration, said plainly */
    size_t nk = info ? info->kernels : m->kernels.n, nc = info ? info->calibrated : 0;
    if (nc)
        snprintf(buf, sizeof buf,
                 "the block times of %zu of the %zu kernels were calibrated from this very "
                 "trace (each kernel's measured duration), so their duration errors are small "
                 "by construction; the held-out prediction (held_out) is the test of the model",
                 nc, nk);
    else
        snprintf(buf, sizeof buf, "every kernel runs its measured block times (block records)");
    json_object_set_new(rep, "calibration",
                        json_pack("{s:I, s:I, s:s}", "calibrated_kernels", (json_int_t)nc,
                                  "kernels", (json_int_t)nk, "text", buf));
    if (h) json_object_set_new(rep, "held_out", replay_heldout_json(h));

    /* ---- host delays: work that waited with its stream idle and its
     * engine free, after its call had handed it over (host_gaps.h) */
    int engines = info && info->copy_engines > 0 ? info->copy_engines : m->device.copy_engines;
    int64_t lat = info ? info->launch_latency : 0;
    host_gap *v = NULL;
    size_t delayed = 0;
    if (host_gaps_find(m, engines, lat, &v, &delayed) != 0) goto oom;
    int64_t worst = 0;
    const host_gap *wh = NULL;
    for (size_t i = 0; i < delayed; i++)
        if (v[i].start - v[i].ready > worst) {
            worst = v[i].start - v[i].ready;
            wh = &v[i];
        }
    if (wh && span > 0 && (double)worst >= 0.005 * (double)span) {
        int kern = wh->id < m->kernels.n;
        const char *nm = kern ? trace_str_get(m, m->kernels.v[wh->id].name)
                              : trace_str_get(m, m->copies.v[wh->id - m->kernels.n].name);
        const char *st = kern ? trace_str_get(m, m->kernels.v[wh->id].stream)
                              : trace_str_get(m, m->copies.v[wh->id - m->kernels.n].stream);
        snprintf(buf, sizeof buf,
                 "host: %zu %s started long after their API call had handed them to the GPU, "
                 "with their stream idle and their engine free (the longest: %s on stream %s, "
                 "%.3f ms = %.1f %% of the span); the host held them (a slow or blocking call, "
                 "e.g. lazy module loading in a concurrent launch), which no issue time in the "
                 "trace shows; %s",
                 delayed, delayed == 1 ? "op" : "ops", nm ? nm : "?", st ? st : "?",
                 (double)worst / 1e6, 100.0 * (double)worst / (double)span,
                 info && info->host_gaps
                     ? "the replay issues them at their measured start (a measured host gap)"
                     : "so the replay runs them that much earlier");
        add(causes, "host", buf);
    }

    /* ---- copies of one direction overlapping in time */
    static const int32_t dirs[] = {TRACE_COPY_H2D, TRACE_COPY_D2H};
    static const char *const dnames[] = {"host-to-device", "device-to-host"};
    for (size_t d = 0; d < 2; d++) {
        size_t over = 0, most = 1;
        for (size_t i = 0; i < m->copies.n; i++) {
            const trace_copy *c = &m->copies.v[i];
            if (c->direction != dirs[d] || c->start == TRACE_NONE || c->end == TRACE_NONE) continue;
            size_t at_once = 1;
            for (size_t j = 0; j < m->copies.n; j++) {
                const trace_copy *o = &m->copies.v[j];
                if (j == i || o->direction != dirs[d] || o->start == TRACE_NONE) continue;
                if (o->start <= c->start && o->end > c->start) at_once++;
            }
            if (at_once > 1) over++;
            if (at_once > most) most = at_once;
        }
        if (over && info && info->copies_in_flight >= (int32_t)most) {
            /* replay_copies.h: the device runs them at once, as recorded */
            snprintf(buf, sizeof buf,
                     "overlapping_copies: %zu %s copies started while another one of the same "
                     "direction was running (up to %zu at once): copies from pageable memory "
                     "are staged by the driver through pinned buffers, so copies on different "
                     "streams overlap; replayed so (the device's copies_in_flight %d, each copy "
                     "for its measured duration)",
                     over, dnames[d], most, (int)info->copies_in_flight);
            add(causes, "overlapping_copies", buf);
        } else if (over) {
            snprintf(buf, sizeof buf,
                     "overlapping_copies: %zu %s copies started while another one of the same "
                     "direction was running (up to %zu at once), but a copy engine performs one "
                     "copy at a time (ce.h, TX2 paper §2.2) and the device has %s; copies from pageable memory are staged by the driver through "
                     "pinned buffers, so their records span the staging and overlap: the model "
                     "runs them one after another",
                     over, dnames[d], most,
                     engines >= 2 ? "one per direction" : "one for both directions");
            add(causes, "overlapping_copies", buf);
        }
    }

    /* ---- device */
    if (info && strncmp(info->device_why, "the preset", 10) == 0) {
        const char *own = replay_trace_device_name(m);
        snprintf(buf, sizeof buf, "device: replayed on %s, not on the trace's own device \"%s\"",
                 info->device_why, own && *own ? own : "(unnamed)");
        add(causes, "device", buf);
    }

    /* ---- several GPUs (process names "pid P gpuN ctxC", importers) */
    {
        char seen[16][16];
        size_t ns = 0;
        for (size_t i = 0; i < m->kernels.n && ns < 16; i++) {
            const char *p = trace_str_get(m, m->kernels.v[i].process);
            const char *g = p ? strstr(p, "gpu") : NULL;
            if (!g) continue;
            char tok[16];
            size_t l = 0;
            while (g[l] && g[l] != ' ' && l + 1 < sizeof tok) {
                tok[l] = g[l];
                l++;
            }
            tok[l] = '\0';
            size_t s = 0;
            while (s < ns && strcmp(seen[s], tok) != 0) s++;
            if (s == ns) snprintf(seen[ns++], sizeof seen[0], "%s", tok);
        }
        if (ns > 1 && info && info->devices > 1) {
            /* replay_devices.h: what several simulated GPUs cannot show */
            snprintf(buf, sizeof buf,
                     "several_gpus: the trace's work ran on %zu GPUs and is replayed as %zu "
                     "simulated GPUs, each on its own device; what couples them is not "
                     "modelled: an NCCL kernel waits on its peers on the other GPUs, that wait "
                     "is calibrated into its measured duration, so a changed run (another "
                     "policy, the held-out half) does not delay the peers", info->devices,
                     info->devices);
            add(causes, "several_gpus", buf);
        } else if (ns > 1) {
            snprintf(buf, sizeof buf,
                     "several_gpus: the trace's kernels ran on %zu GPUs, replayed on one device "
                     "(their work shares its SMs and copy engines in the simulation)", ns);
            add(causes, "several_gpus", buf);
        }
    }

    /* ---- kernels that overlapped on the hardware */
    double ov = json_real_value(json_object_get(rep, "overlap_share"));
    if (ov > 0.05) {
        snprintf(buf, sizeof buf,
                 "concurrent_kernels: %.0f %% of the measured kernel time overlapped another "
                 "kernel; block times are calibrated for each kernel alone, and concurrent "
                 "kernels slow each other down (memory bandwidth, caches)", ov * 100);
        add(causes, "concurrent_kernels", buf);
    }
    free(v);
    v = NULL;

    /* ---- each missed target names the causes */
    json_t *tg = json_object_get(rep, "targets");
    const char *key;
    json_t *t;
    json_object_foreach(tg, key, t) {
        if (json_is_true(json_object_get(t, "ok")) || !json_array_size(causes)) continue;
        size_t len = (size_t)snprintf(buf, sizeof buf, "%s missed; measured causes:", key);
        size_t ci;
        json_t *c;
        json_array_foreach(causes, ci, c)
            if (len < sizeof buf)
                len += (size_t)snprintf(buf + len, sizeof buf - len, "%s %s", ci ? ";" : "",
                                        json_string_value(json_object_get(c, "cause")));
        if (len < sizeof buf) snprintf(buf + len, sizeof buf - len, " (see causes)");
        json_object_set_new(t, "why", json_string(buf));
    }
    json_object_set_new(rep, "causes", causes);

    /* ---- "worst": only kernels that differ */
    json_t *w = json_object_get(rep, "worst"), *keep = json_array();
    size_t wi;
    json_t *e;
    json_array_foreach(w, wi, e) {
        double de = json_real_value(json_object_get(e, "duration_error"));
        int64_t ms = json_integer_value(json_object_get(e, "measured_start"));
        int64_t ss = json_integer_value(json_object_get(e, "simulated_start"));
        int64_t md = json_integer_value(json_object_get(e, "measured_duration"));
        int64_t sd = json_integer_value(json_object_get(e, "simulated_duration"));
        double se = fabs((double)(ss - ms)), ee = fabs((double)(ss + sd - ms - md));
        if (de >= 0.005 || (span > 0 && (se >= 0.001 * (double)span || ee >= 0.001 * (double)span)))
            json_array_append(keep, e);
    }
    json_object_set_new(rep, "worst", keep);
    return 0;
oom:
    free(v);
    json_decref(causes);
    return -1;
}

char *fidelity_text(const json_t *rep) {
    size_t cap = 8192, len = 0;
    char *s = malloc(cap);
    if (!s) return NULL;
#define P(...)                                                              \
    do {                                                                    \
        if (len < cap) len += (size_t)snprintf(s + len, cap - len, __VA_ARGS__); \
    } while (0)
    P("fidelity: %s; duration error median %.2f %%, p90 %.2f %%; start error median %.3f %% "
      "of the span; makespan %+.2f %% (targets 2 %%, 10 %%, 1 %%, 2 %%)\n",
      json_is_true(json_object_get(rep, "ok")) ? "every target met" : "not every target met",
      100 * json_real_value(json_object_get(rep, "duration_error_median")),
      100 * json_real_value(json_object_get(rep, "duration_error_p90")),
      100 * json_real_value(json_object_get(rep, "start_error_median_share")),
      100 * json_real_value(json_object_get(rep, "makespan_difference")));
    const char *cal = json_string_value(json_object_get(json_object_get(rep, "calibration"), "text"));
    if (cal) P("  calibration: %s\n", cal);
    json_t *h = json_object_get(rep, "held_out");
    if (json_is_true(json_object_get(h, "done")))
        P("  held-out (first half calibrates, second half predicted: %lld kernels, %lld "
          "unpredicted): duration error median %.2f %%, p90 %.2f %%; start error median %.3f %%; "
          "makespan %+.2f %%\n",
          (long long)json_integer_value(json_object_get(h, "predicted")),
          (long long)json_integer_value(json_object_get(h, "unpredicted")),
          100 * json_real_value(json_object_get(h, "duration_error_median")),
          100 * json_real_value(json_object_get(h, "duration_error_p90")),
          100 * json_real_value(json_object_get(h, "start_error_median_share")),
          100 * json_real_value(json_object_get(h, "makespan_difference")));
    else if (h)
        P("  held-out: none (%s)\n", json_string_value(json_object_get(h, "why")));
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(rep, "causes"), i, c)
        P("  cause: %s\n", json_string_value(json_object_get(c, "text")));
    json_array_foreach(json_object_get(rep, "worst"), i, c)
        P("  differs: kernel %lld %s: start %+.3f ms, duration %.2f %%\n",
          (long long)json_integer_value(json_object_get(c, "measured")),
          json_string_value(json_object_get(c, "name")),
          (double)(json_integer_value(json_object_get(c, "simulated_start")) -
                   json_integer_value(json_object_get(c, "measured_start"))) / 1e6,
          100 * json_real_value(json_object_get(c, "duration_error")));
#undef P
    if (len >= cap) s[cap - 1] = '\0';
    return s;
}
