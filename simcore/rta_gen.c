/* rta_gen.c -- random tasksets per the GCAPS paper's §7.1 / Table 3. See
 * rta_gen.h. The generator follows the authors' taskset_gen.py step by
 * step (names in comments), in integer units of 10 us. */
#include "rta_gen.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- random numbers: splitmix64, one independent stream per taskset ---- */

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static uint64_t next(rng *r) {
    return mix(r->s += UINT64_C(0x9e3779b97f4a7c15));
}

/* Uniform in [0, n) without modulo bias (Lemire's multiply and reject). */
static uint64_t below(rng *r, uint64_t n) {
    unsigned __int128 m = (unsigned __int128)next(r) * n;
    uint64_t lo = (uint64_t)m;
    if (lo < n) {
        uint64_t t = -n % n;
        while (lo < t) {
            m = (unsigned __int128)next(r) * n;
            lo = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

/* randint(lo, hi), both included, as Python's */
static int32_t irange(rng *r, int32_t lo, int32_t hi) {
    return lo + (int32_t)below(r, (uint64_t)((int64_t)hi - lo + 1));
}

static double u01(rng *r) {
    return (double)(next(r) >> 11) * 0x1.0p-53;
}

void rta_gen_defaults(rta_gen_params *p) {
    *p = (rta_gen_params){.cpus = 4, .tasks = 0, .tasks_per_cpu_lo = 3, .tasks_per_cpu_hi = 6,
                          .util_cpu_lo = 40, .util_cpu_hi = 60, .util_task_lo = 5,
                          .util_task_hi = 25, .util_task_step = 5, .gpu_ratio_lo = 40,
                          .gpu_ratio_hi = 60, .period_lo_ms = 30, .period_hi_ms = 500,
                          .segs_lo = 1, .segs_hi = 3, .g_to_c_lo = 20, .g_to_c_hi = 200,
                          .misc_lo = 10, .misc_hi = 30, .be_pct = 0, .released_code = false};
}

int rta_gen_check(const rta_gen_params *p, char *err, size_t errlen) {
#define RANGE(lo, hi, min, max, what)                                                   \
    if ((lo) < (min) || (hi) > (max) || (lo) > (hi)) {                                  \
        snprintf(err, errlen, "%s: [%d, %d] is not a range within [%d, %d]", what,      \
                 (int)(lo), (int)(hi), (int)(min), (int)(max));                         \
        return -1;                                                                      \
    }
    RANGE(p->cpus, p->cpus, 1, RTA_MAX_TASKS, "cpus");
    RANGE(p->tasks, p->tasks, 0, RTA_MAX_TASKS, "tasks");
    RANGE(p->tasks_per_cpu_lo, p->tasks_per_cpu_hi, 1, RTA_MAX_TASKS, "tasks_per_cpu");
    RANGE(p->util_cpu_lo, p->util_cpu_hi, 1, 100, "util_per_cpu (hundredths)");
    RANGE(p->util_task_lo, p->util_task_hi, 1, 100, "task_util (hundredths)");
    RANGE(p->util_task_step, p->util_task_step, 1, 100, "task_util step (hundredths)");
    RANGE(p->gpu_ratio_lo, p->gpu_ratio_hi, 0, 100, "gpu_ratio (hundredths)");
    RANGE(p->period_lo_ms, p->period_hi_ms, 1, 1000000, "period_ms");
    RANGE(p->segs_lo, p->segs_hi, 1, RTA_GEN_MAX_SEGS, "gpu_segments");
    RANGE(p->g_to_c_lo, p->g_to_c_hi, 0, 100000, "g_to_c (hundredths)");
    RANGE(p->misc_lo, p->misc_hi, 0, 100, "misc_ratio (hundredths)");
    RANGE(p->be_pct, p->be_pct, 0, 100, "be_ratio (hundredths)");
#undef RANGE
    if (p->tasks == 0 && (int64_t)p->cpus * p->tasks_per_cpu_hi > RTA_MAX_TASKS) {
        snprintf(err, errlen, "cpus x tasks_per_cpu: up to %lld tasks, at most %d are analysed",
                 (long long)p->cpus * p->tasks_per_cpu_hi, RTA_MAX_TASKS);
        return -1;
    }
    return 0;
}

/* Split `total` units into n non-negative whole parts that add up to it:
 * UUniFast (Bini & Buttazzo 2005, the paper's ref. [8]) or the released
 * code's random_divider (the larger piece first, then shuffled). Parts are
 * rounded through their running sums, so none is negative and the sum is
 * exact. */
static void divide(rng *r, int64_t total, int n, bool released, int64_t *out) {
    double part[RTA_MAX_TASKS];
    double rest = (double)total;
    for (int i = 1; i < n; i++) {
        double f = pow(u01(r), 1.0 / (double)(n - i));
        if (released) {
            part[i - 1] = f * rest;       /* random_divider: seg = r^(1/(n-i)) * rest */
            rest -= part[i - 1];
        } else {
            double nx = rest * f;         /* UUniFast: nextSum = sum * r^(1/(n-i)) */
            part[i - 1] = rest - nx;
            rest = nx;
        }
    }
    part[n - 1] = rest;
    if (released)
        for (int i = n - 1; i > 0; i--) {
            int j = (int)below(r, (uint64_t)i + 1);
            double t = part[i];
            part[i] = part[j];
            part[j] = t;
        }
    double cum = 0;
    int64_t prev = 0;
    for (int i = 0; i < n; i++) {
        cum += part[i];
        int64_t c = i == n - 1 ? total : llround(cum);
        if (c < prev)
            c = prev;
        if (c > total)
            c = total;
        out[i] = c - prev;
        prev = c;
    }
}

#define UNIT_NS INT64_C(10000)   /* 10 us: the released code's 0.01 ms */

/* create_single_task: utilisation u (hundredths) and period T (ms). */
static void make_task(const rta_gen_params *p, rng *r, int32_t u, int32_t t_ms, bool gpu,
                      rta_task *k, int64_t *misc, int64_t *exec) {
    int64_t e = (int64_t)u * t_ms;       /* U*T in 10 us units */
    int64_t c = e, nseg = 0;
    if (gpu) {
        /* C = E / (1 + G/C), rounded to 10 us; G = E - C */
        int64_t ratio = irange(r, p->g_to_c_lo, p->g_to_c_hi);
        c = (2 * e * 100 + (100 + ratio)) / (2 * (100 + ratio));
        nseg = irange(r, p->segs_lo, p->segs_hi);
        int64_t parts[RTA_GEN_MAX_SEGS];
        divide(r, e - c, (int)nseg, p->released_code, parts);
        for (int64_t j = 0; j < nseg; j++) {
            /* G^m = G_seg * U[misc ratio], G^e = G_seg - G^m */
            int64_t g = parts[j] * UNIT_NS;
            misc[j] = g * irange(r, p->misc_lo, p->misc_hi) / 100;
            exec[j] = g - misc[j];
        }
    }
    *k = (rta_task){.period = (int64_t)t_ms * 1000000, .deadline = (int64_t)t_ms * 1000000,
                    .cpu_total = c * UNIT_NS, .cpu_segments = (int32_t)nseg + 1,
                    .gpu_segments = (int32_t)nseg, .misc = misc, .exec = exec, .cpu = -1};
}

size_t rta_gen_taskset(const rta_gen_params *p, uint64_t seed, uint32_t point, uint64_t index,
                       rta_gen_buf *buf, rta_taskset *ts) {
    rng r = {mix(seed ^ mix(((uint64_t)point << 40) ^ index ^ UINT64_C(0x5ced5eed)))};
    size_t n = 0;
    int32_t util[RTA_MAX_TASKS];       /* hundredths, for WFD */
    if (p->tasks > 0) {
        /* random_taskset_uunifast with num_tasks > 0: per task, GPU-using
         * with a chance drawn from gpu_ratio, U from {lo, lo+step, .., hi},
         * T uniform in whole ms. */
        for (int32_t i = 0; i < p->tasks; i++, n++) {
            bool gpu = u01(&r) < irange(&r, p->gpu_ratio_lo, p->gpu_ratio_hi) / 100.0;
            int32_t steps = (p->util_task_hi - p->util_task_lo) / p->util_task_step;
            util[n] = p->util_task_lo + p->util_task_step * irange(&r, 0, steps);
            int32_t t_ms = irange(&r, p->period_lo_ms, p->period_hi_ms);
            make_task(p, &r, util[n], t_ms, gpu, &buf->t[n], buf->misc + n * RTA_GEN_MAX_SEGS,
                      buf->exec + n * RTA_GEN_MAX_SEGS);
        }
    } else {
        /* per core: its task count, its utilisation split by UUniFast (at
         * least 0.01 per task, as the released code forces) */
        for (int32_t cpu = 0; cpu < p->cpus; cpu++) {
            int k = irange(&r, p->tasks_per_cpu_lo, p->tasks_per_cpu_hi);
            int32_t ucpu = irange(&r, p->util_cpu_lo, p->util_cpu_hi);
            int64_t parts[RTA_MAX_TASKS];
            divide(&r, ucpu, k, p->released_code, parts);
            for (int j = 0; j < k; j++, n++) {
                bool gpu = u01(&r) < irange(&r, p->gpu_ratio_lo, p->gpu_ratio_hi) / 100.0;
                util[n] = parts[j] < 1 ? 1 : (int32_t)parts[j];
                int32_t t_ms = irange(&r, p->period_lo_ms, p->period_hi_ms);
                make_task(p, &r, util[n], t_ms, gpu, &buf->t[n],
                          buf->misc + n * RTA_GEN_MAX_SEGS, buf->exec + n * RTA_GEN_MAX_SEGS);
                buf->t[n].cpu = cpu;
            }
        }
    }
    /* best-effort tasks: int(be_pct * n) of them, chosen uniformly */
    size_t nbe = (size_t)p->be_pct * n / 100;
    assert(nbe <= n);   /* be_pct <= 100: rta_gen_check */
    if (nbe) {
        size_t pick[RTA_MAX_TASKS];
        for (size_t i = 0; i < n; i++)
            pick[i] = i;
        for (size_t i = 0; i < nbe; i++) {
            size_t j = i + (size_t)below(&r, n - i);
            size_t t = pick[i];
            pick[i] = pick[j];
            pick[j] = t;
            buf->t[pick[i]].best_effort = true;
        }
    }
    /* WFD: each unpinned task to the least-utilised core (lowest id on a
     * tie), by decreasing utilisation (the paper) or in generation order
     * (the released code). */
    int64_t load[RTA_MAX_TASKS] = {0};
    size_t order[RTA_MAX_TASKS];
    for (size_t i = 0; i < n; i++) {
        size_t j = i;
        if (!p->released_code)
            while (j > 0 && util[order[j - 1]] < util[i]) {
                order[j] = order[j - 1];
                j--;
            }
        order[j] = i;
    }
    for (size_t q = 0; q < n; q++) {
        rta_task *k = &buf->t[order[q]];
        if (k->cpu >= 0)
            continue;
        int32_t best = 0;
        for (int32_t c = 1; c < p->cpus; c++)
            if (load[c] < load[best])
                best = c;
        k->cpu = best;
        load[best] += util[order[q]];
    }
    /* RM: shorter period = higher priority, ties in generation order;
     * real-time priorities n_rt..1 (sort_tasks_RM). */
    size_t rm[RTA_MAX_TASKS], nrt = 0;
    for (size_t i = 0; i < n; i++) {
        if (buf->t[i].best_effort)
            continue;
        size_t j = nrt++;
        while (j > 0 && buf->t[rm[j - 1]].period > buf->t[i].period) {
            rm[j] = rm[j - 1];
            j--;
        }
        rm[j] = i;
    }
    for (size_t q = 0; q < nrt; q++)
        buf->t[rm[q]].priority = (int32_t)(nrt - q);
    ts->tasks = buf->t;
    ts->n = n;
    ts->cpus = p->cpus;
    return n;
}
