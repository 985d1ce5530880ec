/* budget.c -- the work budget of one request. See budget.h. */
#include "budget.h"

#include <errno.h>
#include <stdbool.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void budget_default(budget *b) {
    b->blocks = 20000000;      /* 20 M blocks: some 20 s of simulation and storing */
    b->ops = 200000;
    b->variants = 64;
    b->events = 100000000;
    b->seconds = 1000000;      /* 11.6 simulated days */
    b->sync_events = 200000;   /* about 0.1 s of work answers at once */
    b->sync_bytes = 4 << 20;
    b->queue = 16;
    b->workers = 1;
    b->streams = 4096;         /* issue 31: set-up costs streams x priority levels */
    b->processes = 256;        /* one queue per process and priority level */
    b->tasks = 4096;
    /* one sweep job (issue 30): about a minute on 2 cores of a 2020s CPU
     * (docs/api.md, POST /api/sweeps); bigger ones are the CLI's (shards) */
    b->sweep_analyses = 5000000;   /* 5 x Fig. 8(a) at 10,000 tasksets: ~20 s */
    b->sweep_cycles = 25000000;    /* 2.3 x the reduced QoSreach sweep: ~1 min */
    b->sweep_threads = 2;
}

static const struct { const char *key; size_t off; } keys[] = {
    {"blocks", offsetof(budget, blocks)},       {"ops", offsetof(budget, ops)},
    {"variants", offsetof(budget, variants)},   {"events", offsetof(budget, events)},
    {"seconds", offsetof(budget, seconds)},     {"sync", offsetof(budget, sync_events)},
    {"sync_bytes", offsetof(budget, sync_bytes)}, {"queue", offsetof(budget, queue)},
    {"workers", offsetof(budget, workers)},
    {"streams", offsetof(budget, streams)},     {"processes", offsetof(budget, processes)},
    {"tasks", offsetof(budget, tasks)},
    {"sweep_analyses", offsetof(budget, sweep_analyses)},
    {"sweep_cycles", offsetof(budget, sweep_cycles)},
    {"sweep_threads", offsetof(budget, sweep_threads)},
};

int budget_parse(const char *spec, budget *b, char *err, size_t errlen) {
    const char *p = spec;
    unsigned seen = 0;   /* the keys set: one given twice is refused, as an option is */
    while (p && *p) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        char item[96];
        if (l >= sizeof item) {
            snprintf(err, errlen, "--budget: \"%.40s...\" is too long", p);
            return -1;
        }
        memcpy(item, p, l);
        item[l] = '\0';
        char shown[96];
        memcpy(shown, item, l + 1);
        char *eq = strchr(item, '=');
        size_t k = 0;
        if (eq) {
            *eq = '\0';
            for (; k < sizeof keys / sizeof *keys; k++)
                if (strcmp(keys[k].key, item) == 0) break;
        }
        if (!eq || k == sizeof keys / sizeof *keys) {
            snprintf(err, errlen, "--budget: \"%s\": expected KEY=N with KEY one of blocks, ops, "
                     "variants, events, seconds, streams, processes, tasks, sync, sync_bytes, "
                     "queue, workers, sweep_analyses, sweep_cycles, sweep_threads", shown);
            return -1;
        }
        /* decimal digits alone, as the CLI's other numbers (docs/cli.md):
         * strtod took "0x10" (16), "1e3", " 5" and "+5" */
        long long lo = 0, hi = 999999999999999999LL;
        if (strcmp(item, "workers") == 0 || strcmp(item, "queue") == 0) lo = 1, hi = 64;
        if (strcmp(item, "sweep_threads") == 0) lo = 1, hi = 256;
        const char *d = eq + 1;
        long long v = 0;
        size_t nd = strspn(d, "0123456789");
        bool ok = nd > 0 && !d[nd] && nd <= 18;
        for (size_t i = 0; ok && i < nd; i++) v = v * 10 + (d[i] - '0');
        if (!ok || v < lo || v > hi) {
            snprintf(err, errlen, "--budget: %s: expected a whole number %lld..%lld in digits, got \"%s\"",
                     item, lo, hi, d);
            return -1;
        }
        if (seen & (1u << k)) {
            snprintf(err, errlen, "--budget: %s given twice", item);
            return -1;
        }
        seen |= 1u << k;
        *(long long *)((char *)b + keys[k].off) = v;
        p += l + (e ? 1 : 0);
    }
    return 0;
}

json_t *budget_json(const budget *b) {
    return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "blocks", (json_int_t)b->blocks,
                     "ops", (json_int_t)b->ops, "variants", (json_int_t)b->variants, "events",
                     (json_int_t)b->events, "seconds", (json_int_t)b->seconds, "streams",
                     (json_int_t)b->streams, "processes", (json_int_t)b->processes, "tasks",
                     (json_int_t)b->tasks, "sweep_analyses", (json_int_t)b->sweep_analyses,
                     "sweep_cycles", (json_int_t)b->sweep_cycles, "sweep_threads",
                     (json_int_t)b->sweep_threads);
}

static long long sat_add(long long a, long long b) { return a > LLONG_MAX - b ? LLONG_MAX : a + b; }
static long long sat_mul(long long a, long long b) {
    return a && b > LLONG_MAX / a ? LLONG_MAX : a * b;
}

void budget_prescan(const char *s, size_t n, budget_work *w) {
    static const char *const names[] = {"streams", "ops", "variants", "tasks"};
    long long *counts[] = {&w->streams, &w->ops, &w->variants, &w->tasks};
    memset(w, 0, sizeof *w);
    int depth = 0;
    size_t ks = 0, kn = 0;      /* the last string at depth 1: an array's key */
    long long *target = NULL;   /* the counted array being scanned */
    bool any = false;           /* it has an element */
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (depth == 2 && target && !any && c != ' ' && c != '\t' && c != '\n' && c != '\r' &&
            c != ']') {
            any = true;
            (*target)++;
        }
        if (c == '"') {
            size_t st = i + 1;
            for (i++; i < n && s[i] != '"'; i++)
                if (s[i] == '\\') i++;
            if (depth == 1) { ks = st; kn = i - st; }
            continue;
        }
        if (c == '{' || c == '[') {
            if (depth == 1 && c == '[') {
                target = NULL;
                any = false;
                for (size_t k = 0; k < sizeof names / sizeof *names; k++)
                    if (kn == strlen(names[k]) && memcmp(s + ks, names[k], kn) == 0)
                        target = counts[k];
            }
            depth++;
        } else if (c == '}' || c == ']') {
            if (--depth <= 1) target = NULL;
        } else if (c == ',' && depth == 2 && target) {
            (*target)++;
        }
    }
    /* a scenario's variants count as runs less one, as budget_estimate's */
}

static int cmp_name(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int budget_estimate(const scn_scenario *s, budget_work *w, char *err, size_t errlen) {
    memset(w, 0, sizeof *w);
    size_t runs = scn_run_count(s);
    w->variants = (long long)runs - 1;
    for (size_t r = 0; r < runs; r++) {
        sim_config cfg;
        char why[400];
        if (scn_config(s, r, &cfg, why, sizeof why)) {
            snprintf(err, errlen, "run \"%s\": %s", scn_run_name(s, r), why);
            return -1;
        }
        /* counted before anything else looks at the run: the simulator's
         * set-up is quadratic in them (issue 31); processes by sorting their
         * names, O(n log n) */
        if ((long long)cfg.nstreams > w->streams) w->streams = (long long)cfg.nstreams;
        if ((long long)cfg.ntasks > w->tasks) w->tasks = (long long)cfg.ntasks;
        if (cfg.nstreams) {
            const char **names = malloc(cfg.nstreams * sizeof *names);
            if (!names) {
                snprintf(err, errlen, "out of memory");
                return -1;
            }
            for (size_t i = 0; i < cfg.nstreams; i++)
                names[i] = cfg.streams[i].process ? cfg.streams[i].process : "";
            qsort(names, cfg.nstreams, sizeof *names, cmp_name);
            long long procs = 1;
            for (size_t i = 1; i < cfg.nstreams; i++) procs += strcmp(names[i - 1], names[i]) != 0;
            free(names);
            if (procs > w->processes) w->processes = procs;
        }
        long long blocks = 0;
        double t_end = 0, work = 0;
        int32_t sms = cfg.device.sms > 0 ? cfg.device.sms : 1;
        /* with cohorts (issue 28) a kernel of one block time that finds
         * the GPU idle costs records, not blocks (cohort.c): a record per SM
         * for its first wave, or for a stretch of identical waves jumped
         * over at once and then its last wave, where the run places cohorts
         * at all (sim_cohorts_apply); what the estimate misses (kernels that
         * share the GPU, a stretch cut by the host's next op) the run's
         * record limit catches (writes_admit_scenario: scn_limit_records) */
        bool by_wave = sim_cohorts_apply(&cfg);
        for (size_t i = 0; i < cfg.nops; i++) {
            const sim_op *op = &cfg.ops[i];
            if ((double)op->at > t_end) t_end = (double)op->at;
            if (op->kind == SIM_OP_KERNEL) {
                long long nb = op->blocks > 0 ? op->blocks : 0;
                int32_t room = by_wave && op->nblock_time == 1
                                   ? sim_room_empty(&cfg.device, op->threads, op->regs, op->smem)
                                   : 0;
                if (room > 0) {
                    long long per = (long long)sms * room;
                    long long rec = nb > per ? 2 * (long long)sms : sms;
                    if (rec < nb) nb = rec;
                }
                if (by_wave) w->cohorts = true;
                blocks = sat_add(blocks, nb);
                int64_t bt = 0;
                for (size_t k = 0; k < op->nblock_time; k++)
                    if (op->block_time[k] > bt) bt = op->block_time[k];
                double waves = ceil((double)(op->blocks > 0 ? op->blocks : 0) / sms);
                work += waves * ((double)bt + (double)cfg.policy.dispatch_latency) +
                        (double)cfg.policy.launch_latency;
            } else if (op->kind == SIM_OP_COPY && cfg.device.copy_bandwidth > 0) {
                work += (double)op->bytes / cfg.device.copy_bandwidth * 1e9;
            }
        }
        if (r == 0) w->ops = (long long)cfg.nops;
        w->blocks = sat_add(w->blocks, blocks);
        w->events = sat_add(w->events, sat_add(sat_mul(2, blocks), sat_mul(4, (long long)cfg.nops)));
        double secs = (t_end + work) / 1e9;
        if (secs > w->seconds) w->seconds = secs;
    }
    return 0;
}

json_t *budget_check(const budget *b, const budget_work *w) {
    char msg[1024] = "";
    size_t n = 0;
#define OVER(val, lim, what)                                                                     \
    if ((double)(val) > (double)(lim))                                                           \
        n += (size_t)snprintf(msg + n, sizeof msg - n, "%s%s: %.0f is over the limit of %lld",   \
                              n ? "; " : "", what, (double)(val), (long long)(lim));              \
    if (n >= sizeof msg) n = sizeof msg - 1;
    OVER(w->blocks, b->blocks, w->cohorts ? "block records (with cohorts: about two a kernel "
                                             "and SM; all kernels', times the runs)"
                                           : "blocks (all kernels' blocks times the runs)")
    OVER(w->ops, b->ops, "ops")
    OVER(w->variants, b->variants, "variants")
    OVER(w->events, b->events, "simulated events (estimated)")
    OVER(w->seconds, b->seconds, "simulated seconds (estimated)")
    OVER(w->streams, b->streams, "streams")
    OVER(w->processes, b->processes, "processes")
    OVER(w->tasks, b->tasks, "tasks")
#undef OVER
    if (!n) return NULL;
    json_t *work = json_pack("{s:I, s:I, s:I, s:I, s:f, s:I, s:I, s:I}", "blocks",
                             (json_int_t)w->blocks, "ops", (json_int_t)w->ops, "variants",
                             (json_int_t)w->variants, "events", (json_int_t)w->events, "seconds",
                             w->seconds, "streams", (json_int_t)w->streams, "processes",
                             (json_int_t)w->processes, "tasks", (json_int_t)w->tasks);
    char full[1200];
    snprintf(full, sizeof full, "scenario: too much work for one request: %s (serve --budget "
             "sets the limits)", msg);
    return json_pack("{s:s, s:o, s:o}", "error", full, "work", work, "budget", budget_json(b));
}
