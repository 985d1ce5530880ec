/* scenario.c -- schedlab-scenario/1 JSON into simulator configs (DESIGN §4).
 *
 * Parsing happens in two stages. The JSON is first read into device-free
 * "raw" values (durations remember whether they were given in cycles), then
 * every run (the base and each variant) is resolved against its own device:
 * cycles become nanoseconds with that device's clock and every kernel is
 * checked against that device's limits. A variant that swaps the device can
 * therefore make an op invalid, and the message says which variant.
 *
 * This file holds the scenario itself: policy, streams, ops, variants and
 * the runs built from them. Paths, key checks and messages are jsonr.c's,
 * an object's keys as a table scn_keys.c's, quantities with units
 * units.c's, the device object device_json.c's, and whether a kernel fits
 * a device is simcore's (sim_kernel_fits). */
#include "scenario.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "device_json.h"
#include "kernlib.h"
#include "scenario_tasks.h"
#include "scenario_reference.h"
#include "scn_keys.h"
#include "trace_json.h"
#include "../../importers/jsonr.h"
#include "../../simcore/fnv.h"
#include "units.h"

/* A program's body entries (each one op with its own count and keys): a
 * source loop whose steps differ in a fixed pattern is written out whole
 * (sgemm-scoreboard: 31 steps of 148 entries, its DRAM load in 12 of them) */
#define SCN_MAX_BODY 8192
#define SCN_SCHEMA "schedlab-scenario/1"

/* ---- raw (device-free) values ------------------------------------------ */

typedef struct scn_rawop {
    sim_op_kind kind;
    const char *name;
    int32_t stream;
    units_dur at;
    int64_t blocks;
    int32_t threads;
    int64_t smem;
    int32_t regs;
    units_dur *block_time;
    size_t nblock_time;
    /* warp-level kernels (simcore/exec_warp.c) */
    bool has_program;
    bool lib_program;        /* the program is the kernel library's ("program": NAME) */
    sim_program program;     /* latency[] filled per run (units_resolve) */
    sim_instr *body;         /* program.body, owned */
    sim_access *access;      /* program.access, owned; NULL when no op has one */
    unsigned char *mem_keys; /* per body entry, the MK_* keys of the memory system given;
                                owned, NULL when no entry gives one */
    sim_dep *dep;            /* program.dep, owned; NULL when no entry has "dep" */
    const json_t *program_json; /* while parsing: the "program" object read (parse_program) */
    units_dur latency[SIM_NICLASS];
    bool latency_given[SIM_NICLASS];
    int32_t budget;          /* QAWS budget; 0 = 1 */
    double qos_goal;         /* ISCA'17 QoS goal in (0, 1]; 0 = none */
    int64_t bytes;
    int32_t direction;
    units_dur duration;      /* copies: measured duration (replay); 0 = bytes / bandwidth */
    bool has_duration;
    bool blocking;           /* copies: cudaMemcpy, the task waits (sim_op.blocking) */
    bool sync_device;        /* syncs: "scope": "device" (sim_op.sync_device) */
    bool own_latency;        /* kernels, copies: "launch_latency" given (sim_op.own_latency) */
    units_dur launch_latency;
    const char *task;        /* an op of a NULL stream: its caller (sim_op.task); NULL: none */
} scn_rawop;

enum {
    POL_PLACEMENT = 1u << 0,
    POL_LAUNCH = 1u << 1,
    POL_DISPATCH = 1u << 2,
    POL_CONTEXTS = 1u << 3,
    POL_GPU_WAIT = 1u << 4,
    POL_TIME_SLICE = 1u << 5,
    POL_CONTEXT_SWITCH = 1u << 6,
    POL_RUNLIST_UPDATE = 1u << 7,
    POL_WARP = 1u << 8,
    POL_BUDGETS = 1u << 9,   /* a variant's "budgets" */
    POL_IOCTL_BOOKKEEPING = 1u << 10,
    POL_CONTEXT_SWITCH_IDLE = 1u << 11,
    POL_SM_PREEMPT = 1u << 12,
    POL_TB_ADJUST = 1u << 13,
    POL_QUOTA_HISTORY = 1u << 14,
    POL_SPART_TAKE_LAST = 1u << 15,
    POL_SPART_TAKE_ONLY = 1u << 16,
    POL_SPART_TRIAL = 1u << 17
};

typedef struct scn_rawpolicy {
    int32_t placement;
    units_dur launch_latency;
    units_dur dispatch_latency;
    int32_t driver;          /* policy.contexts: the driver table's entry */
    int32_t gpu_wait;        /* sim_gpu_wait */
    units_dur time_slice, context_switch, runlist_update;
    units_dur ioctl_bookkeeping;   /* issue 27; zero: every macro at runlist_update */
    units_dur context_switch_idle; /* issue 27 (Table 5), when has_context_switch_idle */
    bool has_context_switch_idle;  /* absent: every switch at context_switch */
    int32_t warp;            /* warp table (policy.warp) */
    int64_t warp_issue_limit;
    int64_t warp_epoch;
    int64_t quota_epoch;     /* T_epoch of the quota warp policies; 0 = SIM_QUOTA_EPOCH */
    units_dur sm_preempt;    /* spart-climb's SM preemption, when has_sm_preempt */
    bool has_sm_preempt;     /* absent: an SM handed over drains */
    bool tb_adjust;          /* ISCA'17 §3.6's run-time TB adjustment */
    bool quota_history;      /* ISCA'17 §3.4.2's alpha_k, when has_quota_history */
    bool has_quota_history;  /* absent: the quota scheme's own */
    bool spart_take_last;    /* spart-climb may take a stream's last SM */
    bool spart_take_only;    /* spart-climb never gives an SM back */
    bool spart_trial;        /* spart-climb gives an SM back by trial */
    unsigned given;          /* POL_* keys this object wrote */
} scn_rawpolicy;

typedef struct scn_run {
    char *name;
    char *label;             /* sim_config.name */
    sim_device device;
    bool device_given;       /* a variant wrote "device" */
    scn_rawpolicy raw;
    sim_policy policy;
    sim_op *ops;
    int64_t *times;          /* every op's block_time, back to back */
    int32_t *budgets;        /* [nops] a variant's "budgets" by op; 0 = the op's own */
    sim_program *programs;   /* [nops] each op's program with this run's latencies */
} scn_run;

struct scn_scenario {
    char *name;
    char *description;
    uint64_t seed;
    sim_stream *streams;
    size_t nstreams;
    scn_rawop *rawops;
    size_t nops;
    scn_run *runs;
    size_t nruns;
    scn_tasks tasks;         /* real-time tasks, cpus, duration (scenario_tasks.h) */
    bool cohorts;            /* "cohorts": runs with sim_config.cohorts */
    int64_t max_records;     /* with cohorts: a run's records at most (scn_limit_records);
                                0: SCN_MAX_COHORTS */
    char **strs;             /* every string the configs point to */
    size_t nstrs, capstrs;
};

/* ---- errors -------------------------------------------------------------- */

typedef struct pctx {
    jr_ctx jr;               /* jr.pfx: "" or `variants[1] ("fast"): ` while resolving runs */
    scn_scenario *s;
    /* streams by name (the NULL streams by "null" and their process): an
     * open-addressing table of indices + 1, so declaring or naming a stream
     * costs O(1), not a scan of every stream (issue 31: 60,000 declared
     * streams took 56 s) */
    uint32_t *sidx;
    size_t sidx_cap;
    /* every program was written for any device (scn_parse_json_portable):
     * the checks of a program's keys against the runs' devices pass it */
    bool portable;
    /* the "program" objects read so far, by address: the op that read each
     * (copy_read_program); a slot is overwritten by a later one */
    struct {
        const json_t *v;
        size_t op;
    } programs[64];
} pctx;

/* ---- owned strings ------------------------------------------------------- */

static char *own(pctx *c, const char *str) {
    scn_scenario *s = c->s;
    if (s->nstrs == s->capstrs) {
        size_t cap = s->capstrs ? s->capstrs * 2 : 16;
        char **v = realloc(s->strs, cap * sizeof *v);
        if (!v)
            return NULL;
        s->strs = v;
        s->capstrs = cap;
    }
    char *d = strdup(str);
    if (!d)
        return NULL;
    s->strs[s->nstrs++] = d;
    return d;
}

/* ---- an object's keys --------------------------------------------------- */

/* Each object's keys are a table of scn_key rows (scn_keys.h, shared with
 * scenario_tasks.c): one row gives the key, its reader and, for a key the
 * object must give, what its "missing" message adds; the unknown-key check
 * and the reading walk the table. A reader here gets the pctx as ctx. */

/* ---- policy -------------------------------------------------------------- */

/* A policy object's keys, each named once (issue 24 point 4): its type,
 * the scn_rawpolicy member it writes, the POL_* bit it marks given and the
 * sim_policy member it sets. The table drives the unknown-key check ("did
 * you mean"), the reader (parse_policy), the run's sim_policy (build_run)
 * and the base run's name (name_base_run), which names the keys some
 * variant changes in `name_rank` order. */
typedef enum pk_type {
    PK_TABLE,    /* a name of a policy table (table: placement, SIM_TABLE_*) */
    PK_DUR,      /* a duration (units.h): ns or cycles */
    PK_COUNT,    /* an integer lo .. 2^40 */
    PK_WAIT,     /* "suspend" or "busy" (sim_gpu_wait) */
    PK_BOOL      /* true or false */
} pk_type;

#define PK_PLACEMENT (-1)   /* table: the placement table (sim_placement_*) */

typedef struct pol_key {
    const char *key;
    pk_type type;
    size_t off;          /* the scn_rawpolicy member */
    size_t to;           /* the sim_policy member (a PK_DUR: resolved to ns) */
    unsigned bit;        /* POL_* it marks given; 0: none */
    int table;           /* PK_TABLE: PK_PLACEMENT or a SIM_TABLE_* */
    const char *what;    /* PK_TABLE: its name in "unknown WHAT" */
    int64_t lo;          /* PK_COUNT: the least value */
    bool zero_none;      /* PK_COUNT: 0 records none (-1; the simulator's 0 is its default) */
    int64_t dflt_ns;     /* PK_DUR: what the base run's name shows when the base gives none */
    bool absent_off;     /* PK_DUR: absent is its own setting, not 0 (the base run's name
                            shows "no KEY" when the base gives none) */
    int name_rank;       /* its place in the base run's name; 0: not named */
} pol_key;

/* the member m of scn_rawpolicy and of sim_policy (one name in both) */
#define PK_AT(m) offsetof(scn_rawpolicy, m), offsetof(sim_policy, m)
static const pol_key policy_table[] = {
    {"placement", PK_TABLE, PK_AT(placement), POL_PLACEMENT, PK_PLACEMENT, "placement",
     .name_rank = 1},
    {"launch_latency", PK_DUR, PK_AT(launch_latency), POL_LAUNCH, .name_rank = 2},
    {"dispatch_latency", PK_DUR, PK_AT(dispatch_latency), POL_DISPATCH, .name_rank = 3},
    /* the warp table (simcore/policies.c): gto, lrr, qaws */
    {"warp", PK_TABLE, PK_AT(warp), POL_WARP, SIM_TABLE_WARP, "warp policy", .name_rank = 11},
    {"warp_issue_limit", PK_COUNT, PK_AT(warp_issue_limit), 0, .lo = 0, .zero_none = true},
    {"warp_epoch", PK_COUNT, PK_AT(warp_epoch), 0, .lo = 1},
    /* ISCA'17 §3.4.1 T_epoch, cycles (default 10K, §4.1) */
    {"quota_epoch", PK_COUNT, PK_AT(quota_epoch), 0, .lo = 1},
    /* spart-climb and tb_adjust: an SM's blocks are preempted, a whole SM's
     * context saved (or restored) in this long (simcore/exec_warp.c
     * preempt_block); given, even as 0, it replaces draining */
    {"sm_preempt", PK_DUR, PK_AT(sm_preempt), POL_SM_PREEMPT, .name_rank = 12,
     .absent_off = true},
    /* ISCA'17 §3.6's run-time TB adjustment of the quota schemes
     * (simcore/tb_adjust.c) */
    {"tb_adjust", PK_BOOL, PK_AT(tb_adjust), POL_TB_ADJUST, .name_rank = 13},
    /* ISCA'17 §3.4.2's history-based adjustment on or off under any quota
     * scheme (§4.8's ablation); absent: the scheme's own */
    {"quota_history", PK_BOOL, PK_AT(quota_history), POL_QUOTA_HISTORY, .name_rank = 14},
    /* spart-climb: a QoS kernel may take the last SM of a stream without
     * goals (simcore/spart.c; docs/qos.md, "Spart's floor") */
    {"spart_take_last", PK_BOOL, PK_AT(spart_take_last), POL_SPART_TAKE_LAST,
     .name_rank = 15},
    /* spart-climb: a QoS kernel never gives an SM back (simcore/spart.c;
     * docs/qos.md, "Spart's give-back") */
    {"spart_take_only", PK_BOOL, PK_AT(spart_take_only), POL_SPART_TAKE_ONLY,
     .name_rank = 16},
    /* spart-climb: an SM is given back by trial and error (simcore/spart.c;
     * docs/qos.md, "Spart's give-back") */
    {"spart_trial", PK_BOOL, PK_AT(spart_trial), POL_SPART_TRIAL, .name_rank = 17},
    /* the driver table (simcore/policy.h): shared, time-slice, gcaps */
    {"contexts", PK_TABLE, PK_AT(driver), POL_CONTEXTS, SIM_TABLE_DRIVER, "contexts",
     .name_rank = 4},
    /* 0: the driver's default, 1024us (GCAPS paper §7.1.1) */
    {"time_slice", PK_DUR, PK_AT(time_slice), POL_TIME_SLICE, .dflt_ns = SIM_DEFAULT_TIME_SLICE,
     .name_rank = 6},
    {"context_switch", PK_DUR, PK_AT(context_switch), POL_CONTEXT_SWITCH, .name_rank = 7},
    {"runlist_update", PK_DUR, PK_AT(runlist_update), POL_RUNLIST_UPDATE, .name_rank = 8},
    {"gpu_wait", PK_WAIT, PK_AT(gpu_wait), POL_GPU_WAIT, .name_rank = 5},
    {"ioctl_bookkeeping", PK_DUR, PK_AT(ioctl_bookkeeping), POL_IOCTL_BOOKKEEPING,
     .name_rank = 9},
    /* a switch away from a context with no work left (issue 27, Table 5;
     * simcore/tsg.c); given, even as 0, it replaces context_switch there */
    {"context_switch_idle", PK_DUR, PK_AT(context_switch_idle), POL_CONTEXT_SWITCH_IDLE,
     .name_rank = 10},
};
#define POLICY_NKEYS (sizeof policy_table / sizeof *policy_table)
#define PK_NAME_RANKS 17   /* the highest name_rank */

/* the keys' names, in the table's order, NULL-terminated (jr_check_keys) */
static void policy_key_names(const char *names[POLICY_NKEYS + 1]) {
    for (size_t i = 0; i < POLICY_NKEYS; i++)
        names[i] = policy_table[i].key;
    names[POLICY_NKEYS] = NULL;
}

/* A PK_TABLE's entries: how many, the name of one, the one named s (-1). */
static size_t pk_count(int table) {
    return table == PK_PLACEMENT ? sim_placement_count() : sim_policy_count(table);
}
static const char *pk_name(int table, int32_t i) {
    return table == PK_PLACEMENT ? sim_placement_name(i) : sim_policy_name(table, i);
}
static int32_t pk_find(int table, const char *s) {
    return table == PK_PLACEMENT ? sim_placement_find(s) : sim_policy_find(table, s);
}

static int parse_policy(pctx *c, json_t *v, const char *path, scn_rawpolicy *pol) {
    char p[JR_PATH_MAX];
    const char *keys[POLICY_NKEYS + 1];
    policy_key_names(keys);
    if (jr_need_object(&c->jr, v, path) || jr_check_keys(&c->jr, v, path, keys))
        return -1;
    const char *key;
    json_t *val;
    json_object_foreach(v, key, val) {
        jr_join(p, path, key);
        const pol_key *k = policy_table;
        while (strcmp(k->key, key) != 0)
            k++;   /* jr_check_keys found it */
        void *at = (char *)pol + k->off;
        switch (k->type) {
        case PK_TABLE: {
            const char *s = NULL;
            if (jr_get_string(&c->jr, val, p, &s))
                return -1;
            int32_t id = pk_find(k->table, s);
            if (id < 0) {
                size_t n = pk_count(k->table);
                const char *names[32];
                if (n > 32)
                    n = 32;
                for (size_t i = 0; i < n; i++)
                    names[i] = pk_name(k->table, (int32_t)i);
                return jr_fail_unknown(&c->jr, p, k->what, s, names, n);
            }
            *(int32_t *)at = id;
            break;
        }
        case PK_DUR:
            if (units_parse_dur(&c->jr, val, p, at))
                return -1;
            break;
        case PK_COUNT:
            if (jr_get_count(&c->jr, val, p, k->lo, INT64_C(1) << 40, at))
                return -1;
            if (k->zero_none && *(int64_t *)at == 0)
                *(int64_t *)at = -1;
            break;
        case PK_WAIT: {
            static const char *const waits[] = {"suspend", "busy"};
            const char *s = NULL;
            if (jr_get_string(&c->jr, val, p, &s))
                return -1;
            if (strcmp(s, "suspend") == 0)
                *(int32_t *)at = SIM_WAIT_SUSPEND;
            else if (strcmp(s, "busy") == 0)
                *(int32_t *)at = SIM_WAIT_BUSY;
            else
                return jr_fail_unknown(&c->jr, p, k->key, s, waits, 2);
            break;
        }
        case PK_BOOL:
            if (!json_is_boolean(val))
                return jr_fail(&c->jr, p, "must be true or false, not %s", jr_type_name(val));
            *(bool *)at = json_is_true(val);
            break;
        }
        pol->given |= k->bit;
    }
    /* context_switch_idle's 0 is a cost, not "absent" (sim.h) */
    if (pol->given & POL_CONTEXT_SWITCH_IDLE)
        pol->has_context_switch_idle = true;
    if (pol->given & POL_SM_PREEMPT) pol->has_sm_preempt = true;   /* so is sm_preempt's */
    if (pol->given & POL_QUOTA_HISTORY) pol->has_quota_history = true;   /* false is a setting */
    return 0;
}

/* ---- streams ------------------------------------------------------------- */

/* TX2 paper §4.2: cudaDeviceGetStreamPriorityRange gives -1 (high) and 0
 * (low); priority-none is its own value, which the simulator ranks with
 * low (rule A1). */
#define SCN_PRIO_HIGH (-1)
#define SCN_PRIO_LOW 0

static int parse_priority(pctx *c, json_t *v, const char *path, int32_t *out) {
    if (json_is_string(v)) {
        static const char *const names[] = {"high", "low", "none"};
        const char *s = json_string_value(v);
        if (strcmp(s, "high") == 0)
            *out = SCN_PRIO_HIGH;
        else if (strcmp(s, "low") == 0)
            *out = SCN_PRIO_LOW;
        else if (strcmp(s, "none") == 0)
            *out = SIM_PRIO_NONE;
        else
            return jr_fail_unknown(&c->jr, path, "priority", s, names, 3);
        return 0;
    }
    if (!json_is_integer(v))
        return jr_fail(&c->jr, path, "must be \"high\", \"low\", \"none\" or an integer, not %s",
                       jr_type_name(v));
    json_int_t x = json_integer_value(v);
    if (x < -1000000 || x > 1000000)
        return jr_fail(&c->jr, path, "%" JSON_INTEGER_FORMAT " is out of range "
                       "(-1000000..1000000)", x);
    *out = (int32_t)x;
    return 0;
}

static uint64_t stream_hash(const char *name, const char *process) {
    uint64_t h = FNV1A_OFFSET;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * FNV1A_PRIME;
    if (strcmp(name, "null") == 0)          /* "null" is one per process */
        for (const unsigned char *p = (const unsigned char *)process; *p; p++)
            h = (h ^ *p) * FNV1A_PRIME;
    return h;
}

/* The index of stream `name` (of `process` when it is "null"), or -1. */
static long find_stream(const pctx *c, const char *name, const char *process) {
    if (!c->sidx_cap)
        return -1;
    bool is_null = strcmp(name, "null") == 0;
    size_t m = c->sidx_cap - 1;
    for (size_t i = (size_t)stream_hash(name, process) & m; c->sidx[i]; i = (i + 1) & m) {
        const sim_stream *st = &c->s->streams[c->sidx[i] - 1];
        if (strcmp(st->name, name) == 0 && (!is_null || strcmp(st->process, process) == 0))
            return (long)c->sidx[i] - 1;
    }
    return -1;
}

static int index_stream(pctx *c, size_t j) {
    if ((j + 1) * 2 > c->sidx_cap) {
        size_t nc = c->sidx_cap ? c->sidx_cap * 2 : 64;
        uint32_t *v = calloc(nc, sizeof *v);
        if (!v)
            return -1;
        free(c->sidx);
        c->sidx = v;
        c->sidx_cap = nc;
        for (size_t k = 0; k < j; k++)
            if (index_stream(c, k))
                return -1;
    }
    const sim_stream *st = &c->s->streams[j];
    size_t m = c->sidx_cap - 1;
    size_t i = (size_t)stream_hash(st->name, st->process) & m;
    while (c->sidx[i])
        i = (i + 1) & m;
    c->sidx[i] = (uint32_t)j + 1;
    return 0;
}

static int add_stream(pctx *c, const char *name, const char *process, int32_t prio,
                      size_t *cap) {
    scn_scenario *s = c->s;
    if (s->nstreams == *cap) {
        size_t nc = *cap ? *cap * 2 : 8;
        sim_stream *v = realloc(s->streams, nc * sizeof *v);
        if (!v)
            return jr_oom(&c->jr);
        s->streams = v;
        *cap = nc;
    }
    sim_stream *st = &s->streams[s->nstreams];
    memset(st, 0, sizeof *st);
    st->name = own(c, name);
    st->process = own(c, process);
    st->priority = prio;
    if (!st->name || !st->process)
        return jr_oom(&c->jr);
    s->nstreams++;
    if (index_stream(c, s->nstreams - 1))
        return jr_oom(&c->jr);
    return 0;
}

/* A stream's keys (stream_table) as read, before it is added. */
typedef struct stream_in {
    const char *name, *process;
    const char *task;        /* the CPU task issuing to it (sim_stream.task); NULL: its own */
    int32_t prio;
    int64_t first, count;    /* "sms" */
} stream_in;

static int read_stream_name(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    const char **name = &((stream_in *)obj)->name;
    if (jr_get_name(&c->jr, v, path, name)) return -1;
    /* every process has its NULL stream already, at CUDA's default
     * priority (TX2 paper §4.1, N1-N2): declaring it would give it another */
    if (strcmp(*name, "null") == 0)
        return jr_fail(&c->jr, path, "\"null\" is each process's NULL stream, there without "
                       "being declared (ops name it by \"stream\": \"null\" and \"process\")");
    return 0;
}
static int read_stream_process(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    return jr_get_name(&c->jr, v, path, &((stream_in *)obj)->process);
}
static int read_stream_priority(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    return parse_priority(c, v, path, &((stream_in *)obj)->prio);
}
/* TX2 paper §2.2, §3.2 (Fig. 3: tau1 issues to S2 and S3): the CPU task,
 * an OS thread of the stream's process, that issues to it */
static int read_stream_task(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    return jr_get_name(&c->jr, v, path, &((stream_in *)obj)->task);
}
static int read_sms_first(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    return jr_get_count(&c->jr, v, path, 0, SIM_MAX_SMS - 1, &((stream_in *)obj)->first);
}
static int read_sms_count(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    return jr_get_count(&c->jr, v, path, 1, SIM_MAX_SMS, &((stream_in *)obj)->count);
}

/* the stream's SM partition under placement "spart" (spart.c, ISCA'17
 * §4.1): {"first": rank, "count": SMs} of the sm_order */
static const scn_key sms_table[] = {
    {"first", .read = read_sms_first},
    {"count", .read = read_sms_count, .missing = " (SMs of the partition)"},
};
_Static_assert(SCN_NKEYS(sms_table) <= SCN_MAX_KEYS, "sms_table: raise SCN_MAX_KEYS");

/* "sms": read once the stream is added (step 1), into the last stream */
static int read_stream_sms(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    stream_in *in = obj;
    if (scn_keys_check(&c->jr, v, path, sms_table, SCN_NKEYS(sms_table)) ||
        scn_keys_read(c, v, path, sms_table, SCN_NKEYS(sms_table), 0, in))
        return -1;
    c->s->streams[c->s->nstreams - 1].sm_first = (int32_t)in->first;
    c->s->streams[c->s->nstreams - 1].sm_count = (int32_t)in->count;
    return 0;
}

static const scn_key stream_table[] = {
    {"name", .read = read_stream_name, .missing = ""},
    {"process", .read = read_stream_process},
    {"priority", .read = read_stream_priority},
    {"task", .read = read_stream_task},
    {"sms", .read = read_stream_sms, .step = 1},
};
#define STREAM_NKEYS SCN_NKEYS(stream_table)
_Static_assert(STREAM_NKEYS <= SCN_MAX_KEYS, "stream_table: raise SCN_MAX_KEYS");

static int parse_streams(pctx *c, json_t *v, size_t *cap) {
    char p[JR_PATH_MAX], q[JR_PATH_MAX];
    if (!json_is_array(v))
        return jr_fail(&c->jr, "streams", "must be an array, not %s", jr_type_name(v));
    for (size_t i = 0; i < json_array_size(v); i++) {
        json_t *o = json_array_get(v, i);
        jr_index(p, "streams", i);
        stream_in in = {NULL, "P0", NULL, SIM_PRIO_NONE, 0, 0};
        if (scn_keys_check(&c->jr, o, p, stream_table, STREAM_NKEYS) ||
            scn_keys_read(c, o, p, stream_table, STREAM_NKEYS, 0, &in))
            return -1;
        /* Named streams are unique so an op's "stream" names one; "null"
         * exists once per process (TX2 paper §4.1). */
        long j = find_stream(c, in.name, in.process);
        if (j >= 0)
            return jr_fail(&c->jr, jr_join(q, p, "name"), "\"%s\" is already streams[%ld]",
                           in.name, j);
        if (add_stream(c, in.name, in.process, in.prio, cap))
            return -1;
        if (in.task && !(c->s->streams[c->s->nstreams - 1].task = own(c, in.task)))
            return jr_oom(&c->jr);
        if (scn_keys_read(c, o, p, stream_table, STREAM_NKEYS, 1, &in))
            return -1;
    }
    /* a task is a thread of one process (TX2 paper §2.2): simcore's rule,
     * checked here so that the scenario is refused where it is read */
    char err[512];
    if (sim_stream_tasks(c->s->streams, c->s->nstreams, NULL, err, sizeof err) < 0) {
        const char *colon = strstr(err, ": ");
        if (!colon || strncmp(err, "streams[", 8) != 0)
            return jr_oom(&c->jr);
        char path[JR_PATH_MAX];
        snprintf(path, sizeof path, "%.*s", (int)(colon - err), err);
        return jr_fail(&c->jr, path, "%s", colon + 2);
    }
    return 0;
}

/* The named stream, or (for "null") the NULL stream of `process`, added on
 * first use. */
static int resolve_stream(pctx *c, const char *name, const char *process, const char *path,
                          size_t ndeclared, size_t *cap, int32_t *out) {
    scn_scenario *s = c->s;
    bool is_null = strcmp(name, "null") == 0;
    const char *proc = process ? process : "P0";
    long found = find_stream(c, name, proc);
    if (found >= 0) {
        const sim_stream *st = &s->streams[found];
        if (!is_null && process && strcmp(st->process, process) != 0)
            return jr_fail(&c->jr, path, "stream \"%s\" belongs to process \"%s\", not \"%s\"",
                           name, st->process, process);
        *out = (int32_t)found;
        return 0;
    }
    if (is_null) {
        if (add_stream(c, "null", proc, SIM_PRIO_NONE, cap))
            return -1;
        *out = (int32_t)(s->nstreams - 1);
        return 0;
    }
    char list[400];
    size_t used = 0;
    list[0] = '\0';
    for (size_t j = 0; j < ndeclared && used < sizeof list; j++) {
        int w = snprintf(list + used, sizeof list - used, "%s%s", j ? ", " : "",
                         s->streams[j].name);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    jr_near n;
    jr_near_init(&n, name);
    for (size_t j = 0; j < ndeclared; j++)
        jr_near_add(&n, s->streams[j].name);
    jr_near_add(&n, "null");
    const char *near = jr_near_get(&n);
    return jr_fail(&c->jr, path, "no stream named \"%s\" (%s%s%sstreams: %s)", name,
                   near ? "did you mean \"" : "", near ? near : "", near ? "\"? " : "",
                   ndeclared ? list : "none declared; only \"null\"");
}

/* ---- ops ----------------------------------------------------------------- */

enum { OPK_KERNEL = 1, OPK_COPY = 2, OPK_SYNC = 4, OPK_ANY = 7 };

/* "dep": the results an instruction reads, as distances back in the warp's
 * instruction stream (a number, or a list of up to SIM_DEP_MAX; 0 or []:
 * none still pending). A body with one "dep" has a scoreboard, and its
 * entries without one read the instruction just before (1). */
static int parse_dep(pctx *c, json_t *v, const char *path, sim_dep *d) {
    char q[JR_PATH_MAX];
    d->n = 0;
    if (json_is_integer(v)) {
        int64_t x;
        if (jr_get_count(&c->jr, v, path, 0, SIM_DEP_FAR, &x))
            return -1;
        if (x > 0) d->on[d->n++] = (int32_t)x;
        return 0;
    }
    if (!json_is_array(v))
        return jr_fail(&c->jr, path, "must be a number of instructions back (0..%d) or a list of "
                       "up to %d, not %s", SIM_DEP_FAR, SIM_DEP_MAX, jr_type_name(v));
    if (json_array_size(v) > SIM_DEP_MAX)
        return jr_fail(&c->jr, path, "lists %zu results; an instruction reads at most %d",
                       json_array_size(v), SIM_DEP_MAX);
    for (size_t i = 0; i < json_array_size(v); i++) {
        int64_t x;
        if (jr_get_count(&c->jr, json_array_get(v, i), jr_index(q, path, i), 1, SIM_DEP_FAR, &x))
            return -1;
        d->on[d->n++] = (int32_t)x;
    }
    return 0;
}

/* "access": how a warp's 32 threads' addresses fall into 32-byte sectors
 * (GPGPU-Sim's coalescer, docs/memory.md): "coalesced" (consecutive 4-byte
 * words: 4 sectors), "strided:N" (every N-th word: min(32, 4N)), "random"
 * (32), or a number of sectors. */
static int parse_access(pctx *c, json_t *v, const char *path, int32_t *sectors) {
    if (json_is_integer(v)) {
        int64_t n;
        if (jr_get_count(&c->jr, v, path, 1, 1024, &n))
            return -1;
        *sectors = (int32_t)n;
        return 0;
    }
    const char *a = NULL;
    if (jr_get_string(&c->jr, v, path, &a))
        return -1;
    if (strcmp(a, "coalesced") == 0) {
        *sectors = 4;
        return 0;
    }
    if (strcmp(a, "random") == 0) {
        *sectors = 32;
        return 0;
    }
    if (strncmp(a, "strided:", 8) == 0) {
        char *end = NULL;
        long n = strtol(a + 8, &end, 10);
        if (end != a + 8 && *end == '\0' && n >= 1 && n <= 1024) {
            *sectors = n >= 8 ? 32 : (int32_t)(4 * n);
            return 0;
        }
    }
    return jr_fail(&c->jr, path, "\"%s\" is not an access pattern (coalesced, strided:N with N "
                   "in 1..1024, random, or a number of sectors)", a);
}

/* One entry of a program's body as read (instr_table): the op, the
 * entry's index and the body's length, the body's path and its
 * instructions so far (for "has more than"), and the entry's class. */
typedef struct instr_in {
    scn_rawop *op;
    size_t i, n;
    const char *body;
    int64_t *total;
    int32_t ic;
} instr_in;

/* the body's access[] (every entry's; zero: the default access), made by
 * the first entry that gives one of its keys */
static sim_access *instr_access(pctx *c, instr_in *in) {
    if (!in->op->access && !(in->op->access = calloc(in->n, sizeof *in->op->access)))
        jr_oom(&c->jr);
    return in->op->access ? &in->op->access[in->i] : NULL;
}

/* The keys of a mem op that the device's memory system reads
 * (docs/scenario-format.md Program: "With the device's memory system on
 * ... a mem op may add"), in instr_table's order; check_mem_keys_apply
 * refuses them where no run has it. */
enum { MK_ACCESS = 1u << 0, MK_STORE = 1u << 1, MK_FOOTPRINT = 1u << 2, MK_SCOPE = 1u << 3,
       MK_MANAGED = 1u << 4 };
static int mem_key_given(pctx *c, instr_in *in, unsigned bit) {
    if (!in->op->mem_keys && !(in->op->mem_keys = calloc(in->n, sizeof *in->op->mem_keys)))
        return jr_oom(&c->jr);
    in->op->mem_keys[in->i] |= (unsigned char)bit;
    return 0;
}

static int read_instr_op(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    instr_in *in = obj;
    const char *cls = NULL;
    if (jr_get_string(&c->jr, v, path, &cls))
        return -1;
    in->ic = sim_iclass_find(cls);
    if (in->ic < 0) {
        const char *names[SIM_NICLASS];
        for (int32_t k = 0; k < SIM_NICLASS; k++)
            names[k] = sim_iclass_name(k);
        return jr_fail_unknown(&c->jr, path, "instruction class", cls, names, SIM_NICLASS);
    }
    in->op->body[in->i].iclass = in->ic;
    return 0;
}
/* read always: an entry without "count" is one instruction */
static int read_instr_count(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    instr_in *in = obj;
    int64_t count = 1;
    if (v && jr_get_count(&c->jr, v, path, 1, 1 << 20, &count))
        return -1;
    *in->total += count;
    if (*in->total > (1 << 20))
        return jr_fail(&c->jr, in->body, "has more than %d instructions; use \"repeat\"", 1 << 20);
    in->op->body[in->i].count = (int32_t)count;
    return 0;
}
static int read_instr_access(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    instr_in *in = obj;
    sim_access *a = instr_access(c, in);
    if (!a)
        return -1;
    if (in->ic != SIM_ICLASS_MEM)
        return jr_fail(&c->jr, path, "only a mem op has an access pattern");
    if (parse_access(c, v, path, &a->sectors))
        return -1;
    return mem_key_given(c, in, MK_ACCESS);
}
/* A mem op's true/false key (store, managed): true on another op is an
 * error, "only a mem op WHAT". */
static int read_mem_flag(pctx *c, json_t *v, const char *path, const instr_in *in,
                         const char *what, int32_t *out) {
    if (!json_is_boolean(v))
        return jr_fail(&c->jr, path, "must be true or false, not %s", jr_type_name(v));
    if (in->ic != SIM_ICLASS_MEM && json_is_true(v))
        return jr_fail(&c->jr, path, "only a mem op %s", what);
    *out = json_is_true(v);
    return 0;
}
static int read_instr_store(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    sim_access *a = instr_access(c, obj);
    if (!a || read_mem_flag(c, v, path, obj, "is a store", &a->store))
        return -1;
    return mem_key_given(c, obj, MK_STORE);
}
static int read_instr_footprint(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    instr_in *in = obj;
    sim_access *a = instr_access(c, in);
    if (!a)
        return -1;
    if (in->ic != SIM_ICLASS_MEM)
        return jr_fail(&c->jr, path, "only a mem op has a working set");
    if (units_parse(&c->jr, v, path, UNITS_SIZE, &a->footprint, NULL))
        return -1;
    if (a->footprint > (INT64_C(1) << 40))
        return jr_fail(&c->jr, path, "more than 1 TiB");
    return mem_key_given(c, in, MK_FOOTPRINT);
}
static int read_instr_scope(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    instr_in *in = obj;
    sim_access *a = instr_access(c, in);
    const char *sc = NULL;
    if (!a || jr_get_string(&c->jr, v, path, &sc))
        return -1;
    if (in->ic != SIM_ICLASS_MEM)
        return jr_fail(&c->jr, path, "only a mem op has a working set");
    if (strcmp(sc, "warp") == 0)
        a->scope = SIM_SCOPE_WARP;
    else if (strcmp(sc, "block") == 0)
        a->scope = SIM_SCOPE_BLOCK;
    else if (strcmp(sc, "kernel") == 0)
        a->scope = SIM_SCOPE_KERNEL;
    else
        return jr_fail(&c->jr, path, "\"%s\" is not a scope (warp, block or kernel)", sc);
    return mem_key_given(c, in, MK_SCOPE);
}
static int read_instr_managed(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    sim_access *a = instr_access(c, obj);
    if (!a || read_mem_flag(c, v, path, obj, "reads or writes managed memory", &a->managed))
        return -1;
    return mem_key_given(c, obj, MK_MANAGED);
}
static int read_instr_dep(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    instr_in *in = obj;
    scn_rawop *op = in->op;
    if (!op->dep) {
        op->dep = calloc(in->n, sizeof *op->dep);
        if (!op->dep)
            return jr_oom(&c->jr);
        for (size_t k = 0; k < in->n; k++)
            op->dep[k] = (sim_dep){ .n = 1, .on = {1} };
    }
    return parse_dep(c, v, path, &op->dep[in->i]);
}
static int read_instr_fu(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    instr_in *in = obj;
    sim_access *a = instr_access(c, in);
    const char *fu = NULL;
    if (!a || jr_get_string(&c->jr, v, path, &fu))
        return -1;
    if (strcmp(fu, "fp32") != 0)
        return jr_fail(&c->jr, path, "\"%s\" is not a functional unit the model knows "
                       "(fp32)", fu);
    if (in->ic != SIM_ICLASS_ALU)
        return jr_fail(&c->jr, path, "only an alu op runs on the fp32 pipe");
    a->fp32 = 1;
    return 0;
}

/* An entry of a program's body: {"op": "mem", "count": 4, "access": ...} */
static const scn_key instr_table[] = {
    {"op", .read = read_instr_op, .missing = " (alu, sfu, shared, mem or barrier)"},
    {"count", .read = read_instr_count, .always = true},
    {"access", .read = read_instr_access},
    {"store", .read = read_instr_store},
    {"fu", .read = read_instr_fu, .step = 1},
    {"footprint", .read = read_instr_footprint},
    {"scope", .read = read_instr_scope},
    {"managed", .read = read_instr_managed},
    {"dep", .read = read_instr_dep},
};
#define INSTR_NKEYS SCN_NKEYS(instr_table)
_Static_assert(INSTR_NKEYS <= SCN_MAX_KEYS, "instr_table: raise SCN_MAX_KEYS");

static int read_program_body(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    scn_rawop *op = obj;
    char q[JR_PATH_MAX];
    if (!json_is_array(v))
        return jr_fail(&c->jr, path, "must be an array, not %s", jr_type_name(v));
    size_t n = json_array_size(v);
    if (n == 0)
        return jr_fail(&c->jr, path, "is empty; give at least one instruction");
    if (n > SCN_MAX_BODY)
        return jr_fail(&c->jr, path, "has %zu entries; at most %d (use \"count\" and "
                       "\"repeat\")", n, SCN_MAX_BODY);
    op->body = calloc(n, sizeof *op->body);
    if (!op->body)
        return jr_oom(&c->jr);
    int64_t total = 0;
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(v, i);
        instr_in in = {op, i, n, path, &total, -1};
        jr_index(q, path, i);
        if (scn_keys_check(&c->jr, e, q, instr_table, INSTR_NKEYS) ||
            scn_keys_read(c, e, q, instr_table, INSTR_NKEYS, 0, &in) ||
            scn_keys_read(c, e, q, instr_table, INSTR_NKEYS, 1, &in))
            return -1;
    }
    op->program.body = op->body;
    op->program.access = op->access;
    op->program.dep = op->dep;
    op->program.nbody = n;
    op->program.repeat = 1;
    return 0;
}
static int read_program_repeat(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    return jr_get_count(&c->jr, v, path, 1, INT64_C(1000000000000),
                        &((scn_rawop *)obj)->program.repeat);
}
static int read_program_persistent(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    if (!json_is_boolean(v))
        return jr_fail(&c->jr, path, "must be true or false, not %s", jr_type_name(v));
    ((scn_rawop *)obj)->program.persistent = json_is_true(v);
    return 0;
}
static int read_program_mem_requests(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    int64_t m;
    if (jr_get_count(&c->jr, v, path, 1, 1024, &m))
        return -1;
    ((scn_rawop *)obj)->program.mem_requests = (int32_t)m;
    return 0;
}

/* "program": {"body": [{"op": "alu", "count": 8}, {"op": "mem"}], "repeat": 100,
 * "persistent": true, "mem_requests": 4} (simcore/sim.h sim_program) */
static const scn_key program_table[] = {
    {"body", .read = read_program_body,
     .missing = " (the instructions every warp runs, e.g. [{\"op\": \"alu\", \"count\": 8}, "
                "{\"op\": \"mem\"}])"},
    {"repeat", .read = read_program_repeat},
    {"persistent", .read = read_program_persistent},
    {"mem_requests", .read = read_program_mem_requests},
};
#define PROGRAM_NKEYS SCN_NKEYS(program_table)
_Static_assert(PROGRAM_NKEYS <= SCN_MAX_KEYS, "program_table: raise SCN_MAX_KEYS");

/* A copy of n elements of `size` at p (NULL for NULL); false on OOM. */
static bool dup_array(void *dst, const void *p, size_t n, size_t size) {
    void *d = NULL;
    if (p && !(d = malloc(n * size)))
        return false;
    if (p)
        memcpy(d, p, n * size);
    *(void **)dst = d;
    return true;
}

/* The same "program" object as an earlier op's: that op's reading of it,
 * copied. A QoS sweep's scenario launches each kernel a run at a time, all
 * of them one shared object (qos_sweep.c build): the Parboil sgemm's 4,588
 * instructions read again for each run took three quarters of a spec's
 * check. (A library kernel's program, read from a copy freed after its op,
 * is never matched: its address may be another's by then.) 1 when copied,
 * 0 when no earlier op has it, -1 on OOM. */
static size_t program_slot(const json_t *v) {
    return (size_t)(((uintptr_t)v >> 4) * 0x9E3779B97F4A7C15ULL >> 58);   /* 0..63 */
}

static int copy_read_program(pctx *c, const json_t *v, scn_rawop *op) {
    size_t h = program_slot(v), i = c->programs[h].op;
    if (c->programs[h].v != v || i >= c->s->nops)
        return 0;
    const scn_rawop *e = &c->s->rawops[i];
    if (!e->has_program || e->lib_program || e->program_json != v)
        return 0;
    size_t n = e->program.nbody;
    if (!dup_array(&op->body, e->body, n, sizeof *e->body) ||
        !dup_array(&op->access, e->access, n, sizeof *e->access) ||
        !dup_array(&op->mem_keys, e->mem_keys, n, sizeof *e->mem_keys) ||
        !dup_array(&op->dep, e->dep, n, sizeof *e->dep))
        return jr_oom(&c->jr);
    op->program = e->program;
    op->program.body = op->body;
    op->program.access = op->access;
    op->program.dep = op->dep;
    op->program_json = v;
    op->has_program = true;
    return 1;
}

static int parse_program(pctx *c, json_t *v, const char *path, scn_rawop *op) {
    int copied = copy_read_program(c, v, op);
    if (copied)
        return copied < 0 ? -1 : 0;
    if (scn_keys_check(&c->jr, v, path, program_table, PROGRAM_NKEYS) ||
        scn_keys_read(c, v, path, program_table, PROGRAM_NKEYS, 0, op))
        return -1;
    op->program_json = v;
    op->has_program = true;
    {   /* (op is rawops[i]: parse_op, from read_top_ops) */
        size_t h = program_slot(v);
        c->programs[h].v = v;
        c->programs[h].op = (size_t)(op - c->s->rawops);
    }
    return 0;
}

/* "latency": {"mem": "400cycles", "alu": 4}: per class, a duration (cycles,
 * or time converted with the run's clock) overriding the device's. */
static int parse_latency(pctx *c, json_t *v, const char *path, scn_rawop *op) {
    char p[JR_PATH_MAX];
    if (jr_need_object(&c->jr, v, path))
        return -1;
    const char *names[SIM_NICLASS + 1];
    for (int32_t k = 0; k < SIM_NICLASS; k++)
        names[k] = sim_iclass_name(k);
    names[SIM_NICLASS] = NULL;
    if (jr_check_keys(&c->jr, v, path, names))
        return -1;
    for (int32_t k = 0; k < SIM_NICLASS; k++) {
        json_t *e = json_object_get(v, names[k]);
        if (!e)
            continue;
        jr_join(p, path, names[k]);
        /* a plain number is cycles here: latencies are counted in cycles */
        if (json_is_integer(e)) {
            if (json_integer_value(e) < 1 || json_integer_value(e) > 1000000000)
                return jr_fail(&c->jr, p, "%" JSON_INTEGER_FORMAT " is outside 1..1000000000 "
                               "cycles", json_integer_value(e));
            op->latency[k].v = (int64_t)json_integer_value(e);
            op->latency[k].cycles = true;
        } else if (units_parse_dur(&c->jr, e, p, &op->latency[k])) {
            return -1;
        }
        op->latency_given[k] = true;
    }
    return 0;
}

/* An op as read (op_table): the op, its path (ops[i]), its name, the
 * stream named, a copy's direction as given, and the blocks of the
 * kernels so far. */
typedef struct op_in {
    scn_rawop *op;
    const char *path;
    const char *name;
    const char *stream, *process;
    const char *dir;
    int64_t *total_blocks;
} op_in;

static int read_op_name(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    op_in *in = obj;
    if (jr_get_name(&c->jr, v, path, &in->name))
        return -1;
    if (!(in->op->name = own(c, in->name)))
        return jr_oom(&c->jr);
    return 0;
}
static int read_op_stream(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    return jr_get_name(&c->jr, v, path, &((op_in *)obj)->stream);
}
/* TX2 paper §2.3: "By default, GPU operations from all CPU programs are
 * inserted into the single default stream": an op of the NULL stream names
 * the CPU task that calls it (sim_op.task); checked against its stream
 * once that is known */
static int read_op_task(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    const char *task = NULL;
    if (jr_get_name(&c->jr, v, path, &task))
        return -1;
    if (!(((op_in *)obj)->op->task = own(c, task)))
        return jr_oom(&c->jr);
    return 0;
}
static int read_op_process(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    return jr_get_name(&c->jr, v, path, &((op_in *)obj)->process);
}
static int read_op_at(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    return units_parse_dur(&c->jr, v, path, &((op_in *)obj)->op->at);
}
/* The op's own issue -> stream queue latency (sim_op.own_latency) */
static int read_op_launch_latency(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    scn_rawop *op = ((op_in *)obj)->op;
    if (units_parse_dur(&c->jr, v, path, &op->launch_latency))
        return -1;
    op->own_latency = true;
    return 0;
}
static int read_op_program(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    return parse_program(c, v, path, ((op_in *)obj)->op);
}
static int read_op_latency(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    return parse_latency(c, v, path, ((op_in *)obj)->op);
}
/* A QAWS budget counts warp instructions (QAWS §IV): a kernel of a fixed
 * block_time issues none, so a budget there would change nothing. */
#define BUDGET_NEEDS_PROGRAM "runs for a fixed block_time; a budget counts warp instructions " \
                             "and needs a \"program\" (the warp-level model)"
static int read_op_budget(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    op_in *in = obj;
    int64_t b;
    if (jr_get_count(&c->jr, v, path, 1, 1000000, &b))
        return -1;
    if (!in->op->has_program)
        return jr_fail(&c->jr, path, "kernel \"%s\" " BUDGET_NEEDS_PROGRAM, in->name);
    in->op->budget = (int32_t)b;
    return 0;
}
static int read_op_qos_goal(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    op_in *in = obj;
    /* ISCA'17 §3.2: a fraction of the IPC the kernel reaches alone */
    if (!json_is_number(v))
        return jr_fail(&c->jr, path, "must be a number in (0, 1], not %s", jr_type_name(v));
    double g = json_number_value(v);
    if (!(g > 0 && g <= 1))
        return jr_fail(&c->jr, path, "%g is outside (0, 1] (a fraction of the IPC the "
                       "kernel reaches alone on the device)", g);
    if (!in->op->has_program)
        return jr_fail(&c->jr, path, "kernel \"%s\" runs for a fixed block_time; a QoS "
                       "goal needs a \"program\" (the warp-level model)", in->name);
    in->op->qos_goal = g;
    return 0;
}
/* At most SCN_MAX_TOTAL_BLOCKS blocks over all kernels: the simulator
 * keeps every block in the trace, and a request body must not make the
 * server allocate without bound. */
static int read_op_blocks(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    op_in *in = obj;
    if (jr_get_count(&c->jr, v, path, 1, INT32_MAX, &in->op->blocks))
        return -1;
    if (!c->s->cohorts && in->op->blocks > SCN_MAX_TOTAL_BLOCKS - *in->total_blocks)
        return jr_fail(&c->jr, path, "the scenario's kernels would have more than %" PRId64
                       " blocks in all, the most this build simulates",
                       (int64_t)SCN_MAX_TOTAL_BLOCKS);
    *in->total_blocks += in->op->blocks;
    return 0;
}
static int read_op_threads(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    int64_t x;
    if (jr_get_count(&c->jr, v, path, 1, INT32_MAX, &x))
        return -1;
    ((op_in *)obj)->op->threads = (int32_t)x;
    return 0;
}
static int read_op_smem(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    return units_parse(&c->jr, v, path, UNITS_SIZE, &((op_in *)obj)->op->smem, NULL);
}
static int read_op_regs(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    int64_t x;
    if (jr_get_count(&c->jr, v, path, 0, INT32_MAX, &x))
        return -1;
    /* CUDA's per-thread limit on every architecture since Kepler
     * (TX2 paper §3.2, "Register resources"). */
    if (x > 255)
        return jr_fail(&c->jr, path, "%" PRId64 " is more than 255 registers per thread", x);
    ((op_in *)obj)->op->regs = (int32_t)x;
    return 0;
}
/* a duration, or one per block (cycled) */
static int read_op_block_time(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    scn_rawop *op = ((op_in *)obj)->op;
    size_t n = json_is_array(v) ? json_array_size(v) : 1;
    if (n == 0)
        return jr_fail(&c->jr, path, "must not be an empty array");
    op->block_time = calloc(n, sizeof *op->block_time);
    if (!op->block_time)
        return jr_oom(&c->jr);
    op->nblock_time = n;
    if (!json_is_array(v))
        return units_parse_dur(&c->jr, v, path, &op->block_time[0]);
    for (size_t k = 0; k < n; k++) {
        char r[JR_PATH_MAX];
        if (units_parse_dur(&c->jr, json_array_get(v, k), jr_index(r, path, k),
                            &op->block_time[k]))
            return -1;
    }
    return 0;
}
static int read_op_bytes(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    return units_parse(&c->jr, v, path, UNITS_SIZE, &((op_in *)obj)->op->bytes, NULL);
}
static int read_op_direction(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    op_in *in = obj;
    if (jr_get_string(&c->jr, v, path, &in->dir))
        return -1;
    /* "memset": stream work no copy engine serves, with an explicit
     * duration (what `schedlab replay` writes for a measured memset) */
    static const char *const dirs[] = {"h2d", "d2h", "d2d", "memset", "other"};
    static const int32_t dirv[] = {TRACE_COPY_H2D, TRACE_COPY_D2H, TRACE_COPY_D2D,
                                   TRACE_COPY_MEMSET, TRACE_COPY_OTHER};
    for (int k = 0; k < 5; k++)
        if (strcmp(in->dir, dirs[k]) == 0) {
            in->op->direction = dirv[k];
            return 0;
        }
    return jr_fail_unknown(&c->jr, path, "direction", in->dir, dirs, 5);
}
/* TX2 paper §2.3: "By default, copy operations are synchronous with
 * respect to a CPU program: they do not return until the copy is
 * complete" -- a cudaMemcpy; false (the default here, as in the paper's
 * experiments) is a cudaMemcpyAsync */
static int read_op_blocking(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    if (!json_is_boolean(v))
        return jr_fail(&c->jr, path, "must be true or false, not %s", jr_type_name(v));
    ((op_in *)obj)->op->blocking = json_is_true(v);
    return 0;
}
/* A sync's "scope": "stream" (cudaStreamSynchronize, the default) or
 * "device" (cudaDeviceSynchronize: TX2 paper §2.3, "wait for all
 * previously issued GPU operations to complete") */
static int read_op_scope(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    const char *sc;
    if (jr_get_string(&c->jr, v, path, &sc))
        return -1;
    static const char *const scopes[] = {"stream", "device"};
    if (strcmp(sc, "stream") != 0 && strcmp(sc, "device") != 0)
        return jr_fail_unknown(&c->jr, path, "scope", sc, scopes, 2);
    ((op_in *)obj)->op->sync_device = strcmp(sc, "device") == 0;
    return 0;
}
/* read always: a copy that uses no copy engine needs it */
static int read_op_duration(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    op_in *in = obj;
    scn_rawop *op = in->op;
    if (op->kind != SIM_OP_COPY)
        return 0;
    if (v) {
        if (units_parse_dur(&c->jr, v, path, &op->duration))
            return -1;
        op->has_duration = true;
    } else if (op->direction == TRACE_COPY_MEMSET || op->direction == TRACE_COPY_OTHER) {
        return jr_fail(&c->jr, in->path, "%s \"%s\" needs \"duration\" (it uses no copy "
                       "engine, so its bytes give no time)", in->dir, in->name);
    }
    return 0;
}

/* An op's keys with the kinds of op that take them: the table gives the
 * unknown-key check its names ("did you mean") and each kind the keys it
 * takes ("a copy takes: ..."), in this order. Step 0 reads the op's name
 * and stream, which is then found (or, "null", added); step 1 its issue
 * time; then a kernel's or a copy's own keys are checked as a whole (the
 * rows with `missing` are the keys its kind must give: `kernel "K1" is
 * missing "threads"`) and read in steps 2 and 3. */
static const scn_key op_table[] = {
    {"kernel", .read = read_op_name, .kinds = OPK_KERNEL},
    {"copy", .read = read_op_name, .kinds = OPK_COPY},
    {"sync", .read = read_op_name, .kinds = OPK_SYNC},
    {"stream", .read = read_op_stream, .kinds = OPK_ANY},
    {"process", .read = read_op_process, .kinds = OPK_ANY},
    {"task", .read = read_op_task, .step = 1, .kinds = OPK_ANY},
    {"at", .read = read_op_at, .step = 1, .kinds = OPK_ANY},
    {"launch_latency", .read = read_op_launch_latency, .step = 1, .kinds = OPK_KERNEL | OPK_COPY},
    {"blocks", .read = read_op_blocks, .missing = "", .step = 3, .kinds = OPK_KERNEL},
    {"threads", .read = read_op_threads, .missing = "", .step = 3, .kinds = OPK_KERNEL},
    {"smem", .read = read_op_smem, .step = 3, .kinds = OPK_KERNEL},
    {"regs", .read = read_op_regs, .step = 3, .kinds = OPK_KERNEL},
    {"block_time", .read = read_op_block_time, .step = 3, .kinds = OPK_KERNEL},
    {"program", .read = read_op_program, .step = 2, .kinds = OPK_KERNEL},
    {"latency", .read = read_op_latency, .step = 2, .kinds = OPK_KERNEL},
    {"budget", .read = read_op_budget, .step = 2, .kinds = OPK_KERNEL},
    {"qos_goal", .read = read_op_qos_goal, .step = 2, .kinds = OPK_KERNEL},
    {"bytes", .read = read_op_bytes, .missing = "", .step = 2, .kinds = OPK_COPY},
    {"direction", .read = read_op_direction, .missing = " (h2d, d2h, d2d, memset or other)",
     .step = 2, .kinds = OPK_COPY},
    {"duration", .read = read_op_duration, .step = 3, .always = true, .kinds = OPK_COPY},
    {"blocking", .read = read_op_blocking, .step = 2, .kinds = OPK_COPY},
    {"scope", .read = read_op_scope, .step = 2, .kinds = OPK_SYNC},
};
#define OP_NKEYS SCN_NKEYS(op_table)
_Static_assert(OP_NKEYS <= SCN_MAX_KEYS, "op_table: raise SCN_MAX_KEYS");

/* The keys of the kinds in mask, in the table's order, NULL-terminated. */
static void op_key_names(unsigned mask, const char *names[OP_NKEYS + 1]) {
    size_t n = 0;
    for (size_t i = 0; i < OP_NKEYS; i++)
        if (op_table[i].kinds & mask)
            names[n++] = op_table[i].key;
    names[n] = NULL;
}

/* The rows of the kinds in mask, in the table's order; their number. */
static size_t op_rows(unsigned mask, scn_key rows[OP_NKEYS]) {
    size_t n = 0;
    for (size_t i = 0; i < OP_NKEYS; i++)
        if (op_table[i].kinds & mask)
            rows[n++] = op_table[i];
    return n;
}

static int parse_op_obj(pctx *c, json_t *o, size_t i, size_t ndeclared, size_t *cap,
                        int64_t *total_blocks, scn_rawop *op) {
    char p[JR_PATH_MAX], q[JR_PATH_MAX];
    jr_index(p, "ops", i);
    if (scn_keys_known(&c->jr, o, p, op_table, OP_NKEYS))
        return -1;
    static const char *const kinds[] = {"kernel", "copy", "sync"};
    int kind = -1;
    for (int k = 0; k < 3; k++) {
        if (!json_object_get(o, kinds[k]))
            continue;
        if (kind >= 0)
            return jr_fail(&c->jr, p, "has both \"%s\" and \"%s\"; an op is one of them",
                           kinds[kind], kinds[k]);
        kind = k;
    }
    if (kind < 0)
        return jr_fail(&c->jr, p, "needs \"kernel\", \"copy\" or \"sync\" with the op's name, "
                       "e.g. {\"kernel\": \"K1\", ...}");
    /* TX2 paper §2.3: "Kernel launches are asynchronous with respect to the
     * CPU program"; a sync is the call that waits */
    if (kind != 1 && json_object_get(o, "blocking"))
        return jr_fail(&c->jr, jr_join(q, p, "blocking"), "%s",
                       kind == 0 ? "a kernel launch is asynchronous (TX2 paper §2.3): its task "
                                   "goes on at once; to wait for it, follow it with a \"sync\" "
                                   "on its stream"
                                 : "a sync always blocks its task until its stream's earlier "
                                   "work has completed");
    const char *allowed[OP_NKEYS + 1];
    op_key_names(1u << kind, allowed);
    const char *key;
    json_t *val;
    json_object_foreach(o, key, val) {
        bool ok = false;
        for (const char **a = allowed; *a && !ok; a++)
            ok = strcmp(*a, key) == 0;
        if (!ok) {
            char list[256];
            jr_list_names(list, sizeof list, allowed, jr_count(allowed), "");
            return jr_fail(&c->jr, p, "\"%s\" does not apply to a %s (a %s takes: %s)", key,
                           kinds[kind], kinds[kind], list);
        }
    }

    memset(op, 0, sizeof *op);
    op->kind = kind == 0 ? SIM_OP_KERNEL : kind == 1 ? SIM_OP_COPY : SIM_OP_SYNC;
    op_in in = {op, p, NULL, "null", NULL, NULL, total_blocks};
    if (scn_keys_read(c, o, p, op_table, OP_NKEYS, 0, &in) ||
        resolve_stream(c, in.stream, in.process, jr_join(q, p, "stream"), ndeclared, cap,
                       &op->stream) ||
        scn_keys_read(c, o, p, op_table, OP_NKEYS, 1, &in))
        return -1;
    /* TX2 paper §2.3: the default stream is every CPU program's; a declared
     * stream is its task's (streams[].task) */
    if (op->task && strcmp(in.stream, "null") != 0)
        return jr_fail(&c->jr, jr_join(q, p, "task"), "stream \"%s\" is issued to by its own "
                       "task (streams[].task); only an op of the NULL stream names the task "
                       "that calls it, since every CPU program of a process issues to that one "
                       "default stream (TX2 paper §2.3)", in.stream);
    const char *name = in.name;

    /* a kernel's block time is given (block_time) or comes out of its
     * warps (program): exactly one of the two */
    bool kernel = op->kind == SIM_OP_KERNEL;
    json_t *jprog = json_object_get(o, "program"), *jtime = json_object_get(o, "block_time");
    if (kernel && jprog && jtime)
        return jr_fail(&c->jr, p, "kernel \"%s\" gives both \"block_time\" and "
                       "\"program\"; its blocks take one or the other", name);
    if (kernel && !jprog && !jtime)
        return jr_fail(&c->jr, p, "kernel \"%s\" needs \"block_time\" (how long each block "
                       "runs) or \"program\" (the instructions its warps run)", name);
    scn_key rows[OP_NKEYS];
    if (scn_keys_need(&c->jr, o, p, rows, op_rows(1u << kind, rows), kinds[kind], name))
        return -1;
    if (kernel && !jprog && json_object_get(o, "latency"))
        return jr_fail(&c->jr, jr_join(q, p, "latency"), "applies to a kernel with a "
                       "\"program\" only");
    return scn_keys_read(c, o, p, op_table, OP_NKEYS, 2, &in) ||
           scn_keys_read(c, o, p, op_table, OP_NKEYS, 3, &in) ? -1 : 0;
}

/* "program": "vectorAdd": a kernel of the library (kernlib.h). The op is
 * read as if it had the library's program and, for the keys it lacks, the
 * library's blocks, threads, smem, regs and latency. */
static int parse_op(pctx *c, json_t *o, size_t i, size_t ndeclared, size_t *cap,
                    int64_t *total_blocks, scn_rawop *op) {
    json_t *jp = json_is_object(o) ? json_object_get(o, "program") : NULL;
    if (!json_is_string(jp))
        return parse_op_obj(c, o, i, ndeclared, cap, total_blocks, op);
    char p[JR_PATH_MAX], q[JR_PATH_MAX];
    jr_join(q, jr_index(p, "ops", i), "program");
    const char *name = json_string_value(jp);
    const kl_kernel *k = kl_find(name);
    if (!k) {
        size_t n;
        const char *const *names = kl_names(&n);
        if (n == 0)
            return jr_fail(&c->jr, q, "\"%s\" names a kernel of the kernel library, and none is "
                           "loaded (%s%s has no kernels)", name, kl_dir() ? kl_dir() :
                           "the scenarios folder's kernels/", kl_dir() ? "" : " folder");
        const char *near = kl_suggest(name);
        if (near)
            return jr_fail(&c->jr, q, "\"%s\" is not in the kernel library (did you mean "
                           "\"%s\"?)", name, near);
        char list[512];
        jr_list_names(list, sizeof list, names, n, "");
        return jr_fail(&c->jr, q, "\"%s\" is not in the kernel library (it has: %s)", name,
                       list);
    }
    json_t *lib = json_loadb(k->text, k->len, 0, NULL), *o2 = json_copy(o);
    int rc = -1;
    if (!lib || !o2) {
        rc = lib ? jr_oom(&c->jr) : jr_fail(&c->jr, q, "%s: no longer reads as JSON", k->path);
        goto out;
    }
    if (json_object_set(o2, "program", json_object_get(lib, "program")))
        goto oom;
    static const char *const inherit[] = {"blocks", "threads", "smem", "regs", "latency"};
    for (size_t j = 0; j < sizeof inherit / sizeof *inherit; j++) {
        json_t *v = json_object_get(lib, inherit[j]);
        if (v && !json_object_get(o2, inherit[j]) && json_object_set(o2, inherit[j], v))
            goto oom;
    }
    rc = parse_op_obj(c, o2, i, ndeclared, cap, total_blocks, op);
    op->lib_program = rc == 0;
    goto out;
oom:
    rc = jr_oom(&c->jr);
out:
    json_decref(o2);
    json_decref(lib);
    return rc;
}

/* ---- variants and run names ---------------------------------------------- */

/* the ops' kernel names: a kernel named `name`, or (false) *near */
static bool has_kernel(const scn_scenario *s, const char *name, const char **near) {
    jr_near n;
    jr_near_init(&n, name);
    for (size_t i = 0; i < s->nops; i++) {
        if (s->rawops[i].kind != SIM_OP_KERNEL || !s->rawops[i].name)
            continue;
        if (strcmp(s->rawops[i].name, name) == 0)
            return true;
        jr_near_add(&n, s->rawops[i].name);
    }
    *near = jr_near_get(&n);
    return false;
}
/* How many kernel ops are named `name` (names may repeat: a kernel launched
 * again); where there are several, "ops[0], ops[2]" (the first eight) in
 * where. A budget or a reference row names one kernel: several are refused. */
static size_t kernel_ops(const scn_scenario *s, const char *name, char *where, size_t n) {
    size_t count = 0, used = 0;
    where[0] = '\0';
    for (size_t i = 0; i < s->nops; i++) {
        if (s->rawops[i].kind != SIM_OP_KERNEL || !s->rawops[i].name ||
            strcmp(s->rawops[i].name, name) != 0)
            continue;
        if (count < 8) {
            int w = snprintf(where + used, n - used, "%sops[%zu]", count ? ", " : "", i);
            if (w > 0 && (size_t)w < n - used) used += (size_t)w;
        } else if (count == 8) {
            int w = snprintf(where + used, n - used, ", ...");
            if (w > 0 && (size_t)w < n - used) used += (size_t)w;
        }
        count++;
    }
    return count;
}

/* A variant's "budgets": {"K2": 6}: QAWS budgets by kernel name. */
static int parse_budgets(pctx *c, json_t *v, const char *path, scn_run *run) {
    char p[JR_PATH_MAX];
    scn_scenario *s = c->s;
    if (jr_need_object(&c->jr, v, path))
        return -1;
    if (json_object_size(v) == 0)
        return jr_fail(&c->jr, path, "is empty; give {\"KERNEL\": budget, ...}");
    run->budgets = calloc(s->nops ? s->nops : 1, sizeof *run->budgets);
    if (!run->budgets)
        return jr_oom(&c->jr);
    const char *key;
    json_t *val;
    json_object_foreach(v, key, val) {
        jr_join(p, path, key);
        int64_t b;
        if (jr_get_count(&c->jr, val, p, 1, 1000000, &b))
            return -1;
        char where[160];
        if (kernel_ops(s, key, where, sizeof where) > 1)
            return jr_fail(&c->jr, p, "kernel \"%s\" names several ops (%s); a budget is one "
                           "kernel's: give them distinct names", key, where);
        bool found = false;
        for (size_t i = 0; i < s->nops; i++) {
            if (s->rawops[i].kind == SIM_OP_KERNEL && strcmp(s->rawops[i].name, key) == 0) {
                if (!s->rawops[i].has_program)
                    return jr_fail(&c->jr, p, "kernel \"%s\" " BUDGET_NEEDS_PROGRAM, key);
                run->budgets[i] = (int32_t)b;
                found = true;
            }
        }
        const char *near;
        if (!found && !has_kernel(s, key, &near))
            return jr_fail(&c->jr, p, "no kernel named \"%s\" in ops%s%s%s", key,
                           near ? " (did you mean \"" : "", near ? near : "", near ? "\"?)" : "");
    }
    run->raw.given |= POL_BUDGETS;
    return 0;
}

/* Run 0's name says what the variants change, valued as the base has it:
 * with a variant "round-robin" that sets policy.placement the base run is
 * "most-room"; with one that sets device it is the base device's name. */
/* A part of a base run's name in the variants' style: lower case, a run of
 * spaces, commas and underscores one '-' (so "K2 budget 4" reads
 * "k2-budget-4", "time_slice 1.024 ms" "time-slice-1.024-ms"), rewritten in
 * place from its n bytes; its new length. */
static size_t kebab(char *p, size_t n) {
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        char ch = p[i];
        if (ch == ' ' || ch == ',' || ch == '_') {
            if (o > 0 && p[o - 1] != '-') p[o++] = '-';
            continue;
        }
        p[o++] = (ch >= 'A' && ch <= 'Z') ? (char)(ch - 'A' + 'a') : ch;
    }
    while (o > 0 && p[o - 1] == '-') o--;
    p[o] = '\0';
    return o;
}

/* "cpus" and "duration" say how the real-time tasks run (docs/scenario-
 * format.md Real-time tasks: their cores, when their jobs are released);
 * without "tasks" nothing reads them (the ops run to their end whatever
 * "duration" says): refused where they are given. (policy.gpu_wait is
 * kept: a replay of a task run's trace, ops alone, gives it so that its
 * trace says what the run's did, server/app/replay.c.) */
static int check_tasks_keys(pctx *c, json_t *root) {
    static const char *const why[] = {
        "cpus", "gives the real-time tasks' cores",
        "duration", "bounds when the real-time tasks release jobs (ops run to their end)"};
    if (c->s->tasks.ntasks)
        return 0;
    for (size_t i = 0; i < 4; i += 2)
        if (jr_opt(root, why[i]))
            return jr_fail(&c->jr, why[i], "%s, and this scenario has no \"tasks\"", why[i + 1]);
    return 0;
}

/* The keys of a mem op that the device's memory system reads, what each
 * does there (the refusals below say it). */
static const struct { unsigned bit; const char *key, *what; } mem_key_table[] = {
    {MK_ACCESS, "access", "says how the op's addresses fall into the sectors of the "
                          "device's memory system"},
    {MK_STORE, "store", "makes the op a store, whose warp goes on after issue in the "
                        "device's memory system"},
    {MK_FOOTPRINT, "footprint", "gives the working set the op walks in the caches of the "
                                "device's memory system"},
    {MK_SCOPE, "scope", "says whose working set the op walks in the caches of the "
                        "device's memory system"},
    {MK_MANAGED, "managed", "puts the op's data in unified memory, whose pages the "
                            "device's memory system migrates"},
};

/* The first of the keys in `mask` given on a mem op of the scenario's own
 * program (a library kernel's, "program": NAME, is written for every
 * device and keeps them), skipping a managed op where `managed_ok`: its
 * place in p ("ops[i].program.body[j].KEY"), the op's entry in *op and
 * *entry, and its mem_key_table index; -1 when none is. */
static int own_mem_key(const scn_scenario *s, unsigned mask, bool managed_ok, char *p,
                       size_t plen, const scn_rawop **op_out, size_t *entry) {
    for (size_t i = 0; i < s->nops; i++) {
        const scn_rawop *op = &s->rawops[i];
        if (op->kind != SIM_OP_KERNEL || !op->has_program || op->lib_program || !op->mem_keys)
            continue;
        for (size_t j = 0; j < op->program.nbody; j++) {
            if (op->program.body[j].iclass != SIM_ICLASS_MEM ||
                (managed_ok && op->access && op->access[j].managed))
                continue;
            for (size_t k = 0; k < sizeof mem_key_table / sizeof mem_key_table[0]; k++)
                if (mask & op->mem_keys[j] & mem_key_table[k].bit) {
                    snprintf(p, plen, "ops[%zu].program.body[%zu].%s", i, j, mem_key_table[k].key);
                    *op_out = op;
                    *entry = j;
                    return (int)k;
                }
        }
    }
    return -1;
}

/* A mem op's "access", "store", "footprint", "scope" and "managed" are
 * the device's memory system's (docs/scenario-format.md Warp-level timing:
 * "With the device's memory system on ... a mem op may add" them), which
 * device.dram_sectors > 0 turns on (Device table; simcore/exec_warp.c
 * reads a store, the working set and managed pages only then, E->mx);
 * where no run's device has it, every mem op costs latency_mem alone and
 * each of them changes nothing: refused at the op's own program. */
static int check_mem_keys_apply(pctx *c) {
    if (c->portable)
        return 0;
    const scn_scenario *s = c->s;
    for (size_t r = 0; r < s->nruns; r++)
        if (s->runs[r].device.dram_sectors > 0)
            return 0;
    char p[JR_PATH_MAX];
    const scn_rawop *op;
    size_t j;
    int k = own_mem_key(s, MK_ACCESS | MK_STORE | MK_FOOTPRINT | MK_SCOPE | MK_MANAGED, false, p,
                        sizeof p, &op, &j);
    if (k < 0)
        return 0;
    return jr_fail(&c->jr, p, "%s, which is off here (device.dram_sectors is 0%s): every mem op "
                   "costs latency_mem, on which it has no effect", mem_key_table[k].what,
                   s->nruns > 1 ? " in every run" : "");
}

/* A mem op's "footprint" and "scope" give the working set its addresses
 * walk (docs/memory.md), which simcore/exec_warp.c reads only to place
 * them in a cache or a page: the L1 (l1_access, device.l1_smem_kb), the L2
 * (l2_addrs, l2_kb) and, for a managed op, unified memory's pages
 * (uvm_touch, uvm_wait, uvm_page_kb); K->ws, which holds it, is made only
 * with one of them. With the memory system on but none of them in any run
 * (the v100, rtx2080ti and pascal-gilman presets as shipped) every sector
 * goes to DRAM at its share, and the two keys change nothing: refused at
 * the op's own program (check_mem_keys_apply has refused them already
 * where the memory system is off in every run). */
static int check_working_set_applies(pctx *c) {
    if (c->portable)
        return 0;
    const scn_scenario *s = c->s;
    bool uvm = false;
    for (size_t r = 0; r < s->nruns; r++) {
        const sim_device *d = &s->runs[r].device;
        if (!(d->dram_sectors > 0))
            continue;
        if (d->l1_smem_kb > 0 || d->l2_kb > 0)
            return 0;
        uvm |= d->uvm_page_kb > 0;
    }
    char p[JR_PATH_MAX];
    const scn_rawop *op;
    size_t j;
    int k = own_mem_key(s, MK_FOOTPRINT | MK_SCOPE, uvm, p, sizeof p, &op, &j);
    if (k < 0)
        return 0;
    /* a managed op's, where no run has unified memory either */
    bool managed = op->access && op->access[j].managed;
    return jr_fail(&c->jr, p, "%s, which has no cache here (device.l1_smem_kb and l2_kb are 0%s)"
                   "%s: every sector of the op goes to DRAM, on which it has no effect",
                   mem_key_table[k].what, s->nruns > 1 ? " in every run" : "",
                   managed ? " nor unified memory (device.uvm_page_kb is 0)" : "");
}

/* A mem op's "managed" puts its data in unified memory, whose pages
 * device.uvm_page_kb models (Device table: "0 = managed memory not
 * modelled"); simcore/exec_warp.c marks the op managed only with it
 * (EW_X_MANAGED needs E->uvm_page, set with the memory system on and
 * uvm_page_kb > 0). With the memory system on but no run's device with
 * unified memory (every preset as shipped: most-room-*-transfer add it),
 * the op's sectors go as any other's and the key changes nothing: refused
 * at the op's own program, given at all ("managed": false too), as
 * check_mem_keys_apply refuses it without the memory system. */
static int check_managed_applies(pctx *c) {
    if (c->portable)
        return 0;
    const scn_scenario *s = c->s;
    for (size_t r = 0; r < s->nruns; r++)
        if (s->runs[r].device.dram_sectors > 0 && s->runs[r].device.uvm_page_kb > 0)
            return 0;
    char p[JR_PATH_MAX];
    const scn_rawop *op;
    size_t j;
    int k = own_mem_key(s, MK_MANAGED, false, p, sizeof p, &op, &j);
    if (k < 0)
        return 0;
    return jr_fail(&c->jr, p, "%s, which has no unified memory here (device.uvm_page_kb is 0%s): "
                   "the op's sectors go as any other's, on which it has no effect",
                   mem_key_table[k].what, s->nruns > 1 ? " in every run" : "");
}

/* An alu op's "fu": "fp32" puts it on its sub-core's fp32 pipe
 * (docs/scenario-format.md Program body), which device.fp32_rate > 0
 * models (Device table: "0 = not modelled"); simcore/exec_warp.c marks an
 * instruction for the pipe only with it (EW_X_FP32 needs E->fp_iv), so
 * where no run's device has it every alu op issues and costs latency_alu
 * as any other and "fu" changes nothing: refused at the op's own program.
 * A library kernel's program ("program": NAME) is written for every
 * device and keeps it, as it keeps its memory keys. */
static int check_fu_applies(pctx *c) {
    if (c->portable)
        return 0;
    const scn_scenario *s = c->s;
    for (size_t r = 0; r < s->nruns; r++)
        if (s->runs[r].device.fp32_rate > 0)
            return 0;
    for (size_t i = 0; i < s->nops; i++) {
        const scn_rawop *op = &s->rawops[i];
        if (op->kind != SIM_OP_KERNEL || !op->has_program || op->lib_program || !op->access)
            continue;
        for (size_t j = 0; j < op->program.nbody; j++) {
            if (!op->access[j].fp32)
                continue;
            char p[JR_PATH_MAX];
            snprintf(p, sizeof p, "ops[%zu].program.body[%zu].fu", i, j);
            return jr_fail(&c->jr, p, "runs the op on the sub-core's fp32 pipe, which is not "
                           "modelled here (device.fp32_rate is 0%s): every alu op costs "
                           "latency_alu, on which it has no effect",
                           s->nruns > 1 ? " in every run" : "");
        }
    }
    return 0;
}

/* policy.warp orders the warps of kernels with a "program" (the
 * warp-level model, docs/scenario-format.md Policy: "for kernels with a
 * program"); where no kernel has one, every kernel runs for its
 * block_time and the warp policy changes nothing: refused where it is
 * given, the base's or a variant's, as a budget on such a kernel is. */
static int check_warp_applies(pctx *c) {
    const scn_scenario *s = c->s;
    for (size_t i = 0; i < s->nops; i++)
        if (s->rawops[i].kind == SIM_OP_KERNEL && s->rawops[i].has_program)
            return 0;
    for (size_t r = 0; r < s->nruns; r++) {
        if (!(s->runs[r].raw.given & POL_WARP))
            continue;
        char p[JR_PATH_MAX];
        if (r == 0)
            snprintf(p, sizeof p, "policy.warp");
        else
            snprintf(p, sizeof p, "variants[%zu].policy.warp", r - 1);
        return jr_fail(&c->jr, p, "\"%s\" schedules the warps of kernels with a \"program\" (the "
                       "warp-level model); every kernel here runs for a fixed block_time, on which "
                       "a warp policy has no effect",
                       sim_policy_name(SIM_TABLE_WARP, s->runs[r].raw.warp));
    }
    return 0;
}

/* policy.time_slice, context_switch, context_switch_idle and
 * runlist_update are the TSG runlist's (docs/scenario-format.md Policy:
 * contexts "time-slice" serves each process "up to time_slice each,
 * context_switch per switch"; gcaps, fmlp+ and mpcp time-slice the runlist
 * as it does; context_switch_idle is a switch away from a context with no
 * work left, simcore/tsg.c; runlist_update is ε of GCAPS Def. 2, recorded
 * in a run's meta for its bounds, server/app/task_bounds.c); under contexts
 * "shared" there is no runlist and none of them changes anything (the
 * shared driver has no TSG, and sim.c records the runlist's meta only for
 * another driver). ioctl_bookkeeping is the cost of a GCAPS macro that
 * leaves the runlist as it is (GCAPS paper §7.2, issue 27): the host
 * charges it only under a driver that says which macros switch
 * (simcore/host_tasks.c, sim_driver_bookkeeping: gcaps), no analysis reads
 * it (schedlab rta charges ε per macro) and replay gives it again under
 * gcaps alone, so under "time-slice", "fmlp+", "mpcp" and "shared" it
 * changes nothing. The base's value reaches every run that does not give
 * its own; refused where it is given when no run it reaches reads it. */
static bool reads_contexts_key(int32_t driver, bool gcaps_only, int32_t shared) {
    return gcaps_only ? sim_driver_bookkeeping(driver) : driver != shared;
}

static int check_contexts_keys(pctx *c) {
    static const struct { const char *key; unsigned bit; bool gcaps_only; } keys[] = {
        {"time_slice", POL_TIME_SLICE, false},
        {"context_switch", POL_CONTEXT_SWITCH, false},
        {"runlist_update", POL_RUNLIST_UPDATE, false},
        {"ioctl_bookkeeping", POL_IOCTL_BOOKKEEPING, true},
        {"context_switch_idle", POL_CONTEXT_SWITCH_IDLE, false},
    };
    const scn_scenario *s = c->s;
    int32_t shared = sim_policy_find(SIM_TABLE_DRIVER, "shared");
    for (size_t r = 0; r < s->nruns; r++)
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
            if (!(s->runs[r].raw.given & keys[k].bit))
                continue;
            bool reads = false;
            /* the contexts modes of the runs it reaches, for the message */
            bool modes[32] = {false};
            for (size_t q = 0; q < s->nruns && !reads; q++)
                if (q == r || (r == 0 && !(s->runs[q].raw.given & keys[k].bit))) {
                    int32_t d = s->runs[q].raw.driver;
                    reads = reads_contexts_key(d, keys[k].gcaps_only, shared);
                    if (d >= 0 && d < 32) modes[d] = true;
                }
            if (reads)
                continue;
            char p[JR_PATH_MAX];
            if (r == 0)
                snprintf(p, sizeof p, "policy.%s", keys[k].key);
            else
                snprintf(p, sizeof p, "variants[%zu].policy.%s", r - 1, keys[k].key);
            const char *who = r == 0 && s->nruns > 1 ? "every run it reaches has" : "this run has";
            if (!keys[k].gcaps_only)
                return jr_fail(&c->jr, p, "is the runlist's, read under contexts \"time-slice\", "
                               "\"gcaps\", \"fmlp+\" or \"mpcp\"; %s contexts \"shared\" (one "
                               "order across processes, no runlist), on which it has no effect",
                               who);
            char list[256] = "";
            size_t used = 0, nm = 0, count = sim_policy_count(SIM_TABLE_DRIVER);
            for (size_t d = 0; d < count && d < 32; d++)
                nm += modes[d];
            for (size_t d = 0, i = 0; d < count && d < 32; d++) {
                if (!modes[d])
                    continue;
                int w = snprintf(list + used, sizeof list - used, "%s\"%s\"",
                                 i == 0 ? "" : i + 1 == nm ? " or " : ", ",
                                 sim_policy_name(SIM_TABLE_DRIVER, (int32_t)d));
                if (w > 0 && (size_t)w < sizeof list - used)
                    used += (size_t)w;
                i++;
            }
            return jr_fail(&c->jr, p, "is a GCAPS macro's (the cost of a gcapsGpuSegBegin/End "
                           "that leaves the runlist as it is), read under contexts \"gcaps\" "
                           "alone; %s contexts %s (no GCAPS macro), on which it has no effect",
                           who, list);
        }
    return 0;
}

static int name_base_run(pctx *c) {
    scn_scenario *s = c->s;
    unsigned given = 0;
    bool device = false;
    for (size_t r = 1; r < s->nruns; r++) {
        given |= s->runs[r].raw.given;
        device |= s->runs[r].device_given;
    }
    const scn_rawpolicy *b = &s->runs[0].raw;
    const sim_device *d = &s->runs[0].device;
    char name[256] = "";
    size_t used = 0;
    char tmp[64];
    /* in the style of the names variants are given ("qaws-k2-budget-2",
     * "time-slice-busy"): lower case, words joined by '-' */
#define ADD_PART(...)                                                                \
    do {                                                                             \
        int w_ = snprintf(name + used, sizeof name - used, "%s", used ? "-" : "");  \
        if (w_ > 0 && (size_t)w_ < sizeof name - used)                               \
            used += (size_t)w_;                                                      \
        size_t from_ = used;                                                         \
        w_ = snprintf(name + used, sizeof name - used, __VA_ARGS__);                \
        if (w_ > 0 && (size_t)w_ < sizeof name - used)                               \
            used += (size_t)w_;                                                      \
        used = from_ + kebab(name + from_, used - from_);                            \
    } while (0)
    /* the policy keys some variant gives, in name_rank order (policy_table) */
    for (int rank = 1; rank <= PK_NAME_RANKS; rank++) {
        const pol_key *k = policy_table;
        while (k < policy_table + POLICY_NKEYS && k->name_rank != rank)
            k++;
        if (k == policy_table + POLICY_NKEYS || !(given & k->bit))
            continue;
        const void *at = (const char *)b + k->off;
        switch (k->type) {
        case PK_TABLE:
            ADD_PART("%s", pk_name(k->table, *(const int32_t *)at));
            break;
        case PK_WAIT:
            ADD_PART("%s", *(const int32_t *)at == SIM_WAIT_BUSY ? "busy" : "suspend");
            break;
        case PK_DUR: {
            const units_dur *u = at;
            if (u->cycles)
                ADD_PART("%s %" PRId64 " cycles", k->key, u->v);
            else if (k->dflt_ns && !(b->given & k->bit))
                ADD_PART("%s %s", k->key, units_fmt_ns(tmp, sizeof tmp, k->dflt_ns));
            else if (k->absent_off && !(b->given & k->bit))
                ADD_PART("no %s", k->key);
            else
                ADD_PART("%s %s", k->key, units_fmt_ns(tmp, sizeof tmp, u->v));
            break;
        }
        case PK_BOOL:
            ADD_PART("%s%s", *(const bool *)at ? "" : "no ", k->key);
            break;
        case PK_COUNT:
            break;
        }
    }
    if (given & POL_BUDGETS) {
        /* the base's budgets of the kernels some variant changes */
        for (size_t i = 0; i < s->nops; i++) {
            bool changed = false;
            for (size_t r = 1; r < s->nruns && !changed; r++)
                changed = s->runs[r].budgets && s->runs[r].budgets[i];
            if (changed)
                ADD_PART("%s budget %d", s->rawops[i].name,
                         s->rawops[i].budget ? (int)s->rawops[i].budget : 1);
        }
    }
    if (device)
        ADD_PART("%s", d->name);
#undef ADD_PART
    bool clash = used == 0;
    for (size_t r = 1; r < s->nruns && !clash; r++)
        clash = strcmp(s->runs[r].name, name) == 0;
    s->runs[0].name = own(c, clash ? "default" : name);
    if (!s->runs[0].name)
        return jr_oom(&c->jr);
    return 0;
}

/* A variant's keys. Its run is named first (step 0), then starts from the
 * base run and takes what the variant changes (steps 1 and 2). */
static int read_variant_name(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    scn_run *run = obj;
    scn_scenario *s = c->s;
    const char *name = NULL;
    if (jr_get_name(&c->jr, v, path, &name))
        return -1;
    if (strcmp(name, "default") == 0)
        return jr_fail(&c->jr, path, "\"default\" is kept for the base run; choose another name");
    for (const scn_run *r = s->runs + 1; r < run; r++)
        if (strcmp(r->name, name) == 0)
            return jr_fail(&c->jr, path, "\"%s\" is already variants[%zu]", name,
                           (size_t)(r - s->runs) - 1);
    if (!(run->name = own(c, name)))
        return jr_oom(&c->jr);
    return 0;
}
/* A variant's "policy" or "device" object of no key changes nothing, as
 * an empty "budgets" (and a variant without them) does not: refused the
 * same way, or the variant would be a second run of the base. */
static int variant_empty(pctx *c, json_t *v, const char *path, const char *give) {
    if (json_is_object(v) && json_object_size(v) == 0)
        return jr_fail(&c->jr, path, "is empty; give %s", give);
    return 0;
}
static int read_variant_policy(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    if (variant_empty(c, v, path, "the policy keys this variant changes"))
        return -1;
    return parse_policy(c, v, path, &((scn_run *)obj)->raw);
}
static int read_variant_budgets(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    return parse_budgets(c, v, path, obj);
}
static int read_variant_device(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    scn_run *run = obj;
    if (variant_empty(c, v, path, "the device fields this variant changes, or a preset"))
        return -1;
    if (dj_parse(&c->jr, v, path, &c->s->runs[0].device, &run->device))
        return -1;
    /* a device equal to the scenario's own, but for its name, changes
     * nothing the runs read: "device" read and ignored (a repeat run
     * changes no key: a policy of the base's own values, docs/scenario-
     * format.md Variants). Bytes compared: padding that differs only lets
     * an equal device through, as before. */
    sim_device a, b;
    memcpy(&a, &c->s->runs[0].device, sizeof a);
    memcpy(&b, &run->device, sizeof b);
    memset(a.name, 0, sizeof a.name);
    memset(b.name, 0, sizeof b.name);
    if (memcmp(&a, &b, sizeof a) == 0)
        return jr_fail(&c->jr, path, "makes the scenario's own device (\"%s\"), so it changes "
                       "nothing; give the fields or preset this variant changes, or leave "
                       "\"device\" out", c->s->runs[0].device.name);
    run->device_given = true;
    return 0;
}

static const scn_key variant_table[] = {
    {"name", .read = read_variant_name, .missing = ""},
    {"policy", .read = read_variant_policy, .step = 1},
    {"device", .read = read_variant_device, .step = 2},
    {"budgets", .read = read_variant_budgets, .step = 1},
};
#define VARIANT_NKEYS SCN_NKEYS(variant_table)
_Static_assert(VARIANT_NKEYS <= SCN_MAX_KEYS, "variant_table: raise SCN_MAX_KEYS");

static int parse_variants(pctx *c, json_t *v) {
    char p[JR_PATH_MAX];
    scn_scenario *s = c->s;
    if (!json_is_array(v))
        return jr_fail(&c->jr, "variants", "must be an array, not %s", jr_type_name(v));
    for (size_t i = 0; i < json_array_size(v); i++) {
        json_t *o = json_array_get(v, i);
        scn_run *run = &s->runs[i + 1];
        jr_index(p, "variants", i);
        if (scn_keys_check(&c->jr, o, p, variant_table, VARIANT_NKEYS) ||
            scn_keys_read(c, o, p, variant_table, VARIANT_NKEYS, 0, run))
            return -1;
        /* every key but "name" changes something */
        if (json_object_size(o) < 2)
            return jr_fail(&c->jr, p, "changes nothing; give \"policy\", \"device\" and/or "
                           "\"budgets\"");
        run->raw = s->runs[0].raw;
        run->raw.given = 0;
        run->device = s->runs[0].device;
        if (scn_keys_read(c, o, p, variant_table, VARIANT_NKEYS, 1, run) ||
            scn_keys_read(c, o, p, variant_table, VARIANT_NKEYS, 2, run))
            return -1;
    }
    return 0;
}

static int64_t sat_add(int64_t a, int64_t b) {
    return a > INT64_MAX - b ? INT64_MAX : a + b;
}

static int64_t sat_mul(int64_t a, int64_t b) {
    return (b != 0 && a > INT64_MAX / b) ? INT64_MAX : a * b;
}

/* Everything the simulator could ever wait for, added up, must stay far from
 * int64 overflow (TRACE_NONE is INT64_MIN; times are int64_t ns). */
#define SCN_MAX_MAKESPAN (INT64_MAX / 4)

static int build_run(pctx *c, size_t r) {
    scn_scenario *s = c->s;
    scn_run *run = &s->runs[r];
    const sim_device *d = &run->device;
    char p[JR_PATH_MAX], q[JR_PATH_MAX];

    /* every policy key into the run's sim_policy (policy_table's `to`) */
    for (size_t i = 0; i < POLICY_NKEYS; i++) {
        const pol_key *k = &policy_table[i];
        const char *from = (const char *)&run->raw + k->off;
        char *to = (char *)&run->policy + k->to;
        if (k->type == PK_DUR) {
            char where[64];
            snprintf(where, sizeof where, "policy.%s", k->key);
            if (units_resolve(&c->jr, *(const units_dur *)from, d, where, (int64_t *)(void *)to))
                return -1;
        } else if (k->type == PK_COUNT) {
            *(int64_t *)(void *)to = *(const int64_t *)(const void *)from;
        } else if (k->type == PK_BOOL) {
            *(bool *)(void *)to = *(const bool *)(const void *)from;
        } else {
            *(int32_t *)(void *)to = *(const int32_t *)(const void *)from;
        }
    }
    run->policy.has_context_switch_idle = run->raw.has_context_switch_idle;
    run->policy.has_sm_preempt = run->raw.has_sm_preempt;
    run->policy.has_quota_history = run->raw.has_quota_history;
    /* QoS goals need a quota warp policy (ISCA'17; simcore/warp_quota_*.c,
     * the warp table's quota flag) or the run-time Spart (spart.c) */
    const char *wname = sim_policy_name(SIM_TABLE_WARP, run->policy.warp);
    for (size_t i = 0; i < s->nops; i++)
        if (s->rawops[i].qos_goal > 0 && !sim_warp_quota(run->policy.warp) &&
            !sim_placement_qos(run->policy.placement)) {
            /* the quota schemes of the table: "a, b, c or d" */
            char names[256] = "";
            size_t nw = sim_policy_count(SIM_TABLE_WARP), nq = 0, at = 0;
            for (size_t w = 0; w < nw; w++) nq += sim_warp_quota((int32_t)w);
            for (size_t w = 0, j = 0; w < nw && at < sizeof names; w++) {
                if (!sim_warp_quota((int32_t)w)) continue;
                j++;
                at += (size_t)snprintf(names + at, sizeof names - at, "%s%s",
                                       j == 1 ? "" : j == nq ? " or " : ", ",
                                       sim_policy_name(SIM_TABLE_WARP, (int32_t)w));
            }
            jr_index(p, "ops", i);
            return jr_fail(&c->jr, jr_join(q, p, "qos_goal"), "needs a quota warp policy "
                           "(policy.warp %s), not \"%s\", or placement spart-climb", names,
                           wname ? wname : "?");
        }
    /* kernels with a program run under the warp-level model */
    for (size_t i = 0; i < s->nops; i++)
        if (s->rawops[i].has_program)
            run->policy.execution = sim_policy_find(SIM_TABLE_EXECUTION, "warp");
    run->programs = calloc(s->nops ? s->nops : 1, sizeof *run->programs);
    if (!run->programs)
        return jr_oom(&c->jr);
    if (s->tasks.ntasks) {
        run->policy.host = sim_policy_find(SIM_TABLE_HOST, "tasks");
        if (run->policy.host < 0)
            return jr_fail(&c->jr, "tasks", "this build has no \"tasks\" host");
        if (scn_tasks_check(&c->jr, &s->tasks, d))
            return -1;
    }

    size_t ntimes = 0;
    for (size_t i = 0; i < s->nops; i++)
        ntimes += s->rawops[i].nblock_time;
    run->ops = calloc(s->nops ? s->nops : 1, sizeof *run->ops);
    run->times = calloc(ntimes ? ntimes : 1, sizeof *run->times);
    if (!run->ops || !run->times)
        return jr_oom(&c->jr);

    int64_t makespan = 0;
    size_t t = 0;
    for (size_t i = 0; i < s->nops; i++) {
        const scn_rawop *ro = &s->rawops[i];
        sim_op *op = &run->ops[i];
        jr_index(p, "ops", i);
        op->kind = ro->kind;
        op->name = ro->name;
        op->stream = ro->stream;
        if (units_resolve(&c->jr, ro->at, d, jr_join(q, p, "at"), &op->at))
            return -1;
        makespan = sat_add(makespan, op->at);
        if (ro->own_latency) {
            if (units_resolve(&c->jr, ro->launch_latency, d, jr_join(q, p, "launch_latency"),
                              &op->launch_latency))
                return -1;
            op->own_latency = true;
            makespan = sat_add(makespan, op->launch_latency);
        }
        op->direction = ro->direction;
        op->blocking = ro->blocking;
        op->sync_device = ro->sync_device;
        op->task = ro->task;
        if (ro->kind == SIM_OP_KERNEL) {
            op->blocks = ro->blocks;
            op->threads = ro->threads;
            op->smem = ro->smem;
            op->regs = ro->regs;
            op->block_time = ro->nblock_time ? &run->times[t] : NULL;
            op->nblock_time = ro->nblock_time;
            op->budget = run->budgets && run->budgets[i] ? run->budgets[i] : ro->budget;
            op->qos_goal = ro->qos_goal;
            int64_t longest = 0;
            if (ro->has_program) {
                /* latencies: cycles as given, times in this run's clock;
                 * the longest a block could take bounds the makespan */
                sim_program *pg = &run->programs[i];
                *pg = ro->program;
                int64_t maxlat = 1;
                const int32_t devlat[] = {d->latency_alu, d->latency_sfu, d->latency_shared,
                                          d->latency_mem};
                for (int32_t k = 0; k < SIM_NICLASS && k < 4; k++)
                    if (devlat[k] > maxlat)
                        maxlat = devlat[k];
                for (int32_t k = 0; k < SIM_NICLASS; k++) {
                    if (!ro->latency_given[k])
                        continue;
                    char b[JR_PATH_MAX];
                    jr_join(q, p, "latency");
                    jr_join(b, q, sim_iclass_name(k));
                    int64_t cyc;
                    if (ro->latency[k].cycles) {
                        cyc = ro->latency[k].v;
                    } else {
                        if (d->clock_hz <= 0)
                            return jr_fail(&c->jr, b, "a time needs the device's clock to become "
                                           "cycles; give cycles (\"400cycles\") or "
                                           "device.clock");
                        cyc = (int64_t)((double)ro->latency[k].v * (double)d->clock_hz / 1e9 + 0.5);
                    }
                    if (cyc < 1 || cyc > 1000000000)
                        return jr_fail(&c->jr, b, "%" PRId64 " cycles is outside 1..1000000000",
                                       cyc);
                    pg->latency[k] = (int32_t)cyc;
                    if (cyc > maxlat)
                        maxlat = cyc;
                }
                op->program = pg;
                int64_t len = 0;
                for (size_t k = 0; k < pg->nbody; k++)
                    len += pg->body[k].count;
                double ns = d->clock_hz > 0 ? 1e9 / (double)d->clock_hz : 1.0;
                /* a block: every instruction after the longest latency */
                double est = (double)len * (double)pg->repeat * (double)maxlat * ns;
                longest = est >= 1e18 ? INT64_MAX / 8 : (int64_t)est;
            }
            for (size_t k = 0; k < ro->nblock_time; k++) {
                char b[JR_PATH_MAX];
                jr_join(q, p, "block_time");
                if (ro->nblock_time > 1)
                    jr_index(b, q, k);
                else
                    snprintf(b, sizeof b, "%s", q);
                if (units_resolve(&c->jr, ro->block_time[k], d, b, &run->times[t + k]))
                    return -1;
                if (run->times[t + k] > longest)
                    longest = run->times[t + k];
            }
            t += ro->nblock_time;
            /* the one fit check (simcore/check.c), rooted at this op */
            char msg[512];
            if (sim_kernel_fits(d, op->threads, op->smem, op->regs, p, msg, sizeof msg))
                return jr_fail(&c->jr, "", "%s", msg);
            makespan = sat_add(makespan, sat_mul(ro->blocks,
                               sat_add(longest, run->policy.dispatch_latency)));
        } else if (ro->kind == SIM_OP_COPY) {
            op->bytes = ro->bytes;
            if (ro->has_duration) {
                if (units_resolve(&c->jr, ro->duration, d, jr_join(q, p, "duration"),
                                  &op->duration))
                    return -1;
                if (op->duration <= 0)
                    return jr_fail(&c->jr, q, "must be more than 0");
                makespan = sat_add(makespan, op->duration);
                makespan = sat_add(makespan, run->policy.launch_latency);
                continue;
            }
            if (d->copy_engines < 1)
                return jr_fail(&c->jr, p, "a copy needs a copy engine but the device has "
                               "copy_engines = %" PRId32, d->copy_engines);
            if (!(d->copy_bandwidth > 0))
                return jr_fail(&c->jr, p, "a copy needs the device's copy_bandwidth; set "
                               "device.copy_bandwidth (e.g. \"12GB/s\")");
            double ns = (double)ro->bytes / d->copy_bandwidth * 1e9;
            makespan = ns >= 4.0e18 ? INT64_MAX : sat_add(makespan, (int64_t)ns);
        }
        makespan = sat_add(makespan, run->policy.launch_latency);
    }
    if (makespan > SCN_MAX_MAKESPAN)
        return jr_fail(&c->jr, "ops", "the scenario could run longer than this build can count "
                       "(about 73 years of simulated time)");
    return 0;
}

/* ---- top level ----------------------------------------------------------- */

static const char *base_name_of(const char *file, char *buf, size_t n) {
    const char *b = strrchr(file, '/');
    b = b ? b + 1 : file;
    snprintf(buf, n, "%s", b);
    size_t l = strlen(buf);
    if (l > 5 && strcmp(buf + l - 5, ".json") == 0)
        buf[l - 5] = '\0';
    return buf;
}

/* The scenario's top-level keys as read (top_table): the streams[]
 * allocated. */
typedef struct root_in {
    size_t cap;
} root_in;

static int read_top_schema(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    (void)obj;
    const char *str = NULL;
    if (!v)
        return jr_fail(&c->jr, path, "missing (write \"schema\": \"" SCN_SCHEMA "\")");
    if (jr_get_string(&c->jr, v, path, &str))
        return -1;
    /* the other JSON schedlab writes, met where a scenario should be */
    if (strcmp(str, SCN_REPLAY_DEVICES_SCHEMA) == 0)
        return jr_fail(&c->jr, path, "\"%s\" is the replay of a trace of several GPUs: each "
                       "devices[i].scenario is a \"" SCN_SCHEMA "\" of its own, simulated alone",
                       str);
    if (strcmp(str, TJ_SCHEMA) == 0)
        return jr_fail(&c->jr, path, "\"%s\" is a trace, not a scenario (`schedlab import` "
                       "stores it; `schedlab replay` makes a scenario of the stored run)", str);
    if (strcmp(str, SCN_SCHEMA) != 0)
        return jr_fail(&c->jr, path, "\"%s\" is not supported (this build reads \"" SCN_SCHEMA
                       "\")", str);
    return 0;
}
/* read always: a scenario without "name" is named after its file */
static int read_top_name(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    (void)obj;
    char buf[256];
    const char *str = NULL;
    if (v) {
        if (jr_get_name(&c->jr, v, path, &str))
            return -1;
    } else {
        str = base_name_of(c->jr.file, buf, sizeof buf);
    }
    if (!(c->s->name = own(c, str)))
        return jr_oom(&c->jr);
    return 0;
}
static int read_top_description(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    (void)obj;
    const char *str = "";
    if (v && jr_get_string(&c->jr, v, path, &str))
        return -1;
    if (!(c->s->description = own(c, str)))
        return jr_oom(&c->jr);
    return 0;
}
static int read_top_seed(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    (void)obj;
    int64_t seed;
    if (jr_get_count(&c->jr, v, path, 0, INT64_MAX, &seed))
        return -1;
    c->s->seed = (uint64_t)seed;
    return 0;
}
/* "reference": what the paper (or a recording) reports beside what the runs
 * give (scenario_reference.h): checked once the runs are named (step 5),
 * never simulated */
static bool ref_run(const void *ctx, const char *name, const char **near) {
    const scn_scenario *s = ctx;
    if (scn_find_run(s, name) >= 0)
        return true;
    jr_near n;
    jr_near_init(&n, name);
    for (size_t i = 0; i < scn_run_count(s); i++)
        jr_near_add(&n, scn_run_name(s, i));
    *near = jr_near_get(&n);
    return false;
}
static bool ref_kernel(const void *ctx, const char *name, const char **near) {
    return has_kernel(ctx, name, near);
}
static size_t ref_kernel_ops(const void *ctx, const char *name, char *where, size_t n) {
    return kernel_ops(ctx, name, where, n);
}
static bool ref_task(const void *ctx, const char *name, const char **near) {
    const scn_scenario *s = ctx;
    jr_near n;
    jr_near_init(&n, name);
    for (size_t i = 0; i < s->tasks.ntasks; i++) {
        if (s->tasks.tasks[i].name && strcmp(s->tasks.tasks[i].name, name) == 0)
            return true;
        jr_near_add(&n, s->tasks.tasks[i].name);
    }
    *near = jr_near_get(&n);
    return false;
}
static int read_top_reference(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    (void)obj;
    const scn_ref_names names = {c->s, ref_run, ref_kernel, ref_task, ref_kernel_ops};
    return scn_ref_check(&c->jr, v, path, &names);
}
/* "cohorts": true (issue 28): runs place identical blocks as cohorts
 * (sim_config.cohorts); the limit is then on the records a run keeps
 * (SCN_MAX_COHORTS, checked as it runs), not on the blocks */
static int read_top_cohorts(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    (void)obj;
    if (!json_is_boolean(v))
        return jr_fail(&c->jr, path, "must be true or false, not %s", jr_type_name(v));
    c->s->cohorts = json_is_true(v);
    return 0;
}
static int read_top_device(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    (void)obj;
    if (!v)
        return jr_fail(&c->jr, path, "missing (a preset name such as \"tx2\", or an object)");
    return dj_parse(&c->jr, v, path, NULL, &c->s->runs[0].device);
}
static int read_top_policy(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    (void)obj;
    return parse_policy(c, v, path, &c->s->runs[0].raw);
}
static int read_top_streams(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    (void)path;
    return parse_streams(c, v, &((root_in *)obj)->cap);
}
/* real-time tasks (issue 13): "cpus" and "duration", then "tasks"
 * (scenario_tasks.h; null is absent there) */
static int read_top_cpus(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    (void)obj;
    return scn_tasks_read_cpus(&c->jr, v, path, &c->s->tasks);
}
static int read_top_duration(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    (void)obj;
    return scn_tasks_read_duration(&c->jr, v, path, &c->s->tasks);
}
static int read_top_tasks(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    (void)obj;
    return scn_tasks_read(&c->jr, v, path, &c->s->tasks);
}
/* read always: with tasks, ops are optional */
static int read_top_ops(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    root_in *in = obj;
    scn_scenario *s = c->s;
    size_t ndeclared = s->nstreams;   /* the rest are "null" streams ops add */
    if (!v && s->tasks.ntasks)
        v = NULL;
    else if (!v)
        return jr_fail(&c->jr, path, "missing (the kernels, copies and syncs to run, or "
                       "\"tasks\")");
    else if (!json_is_array(v))
        return jr_fail(&c->jr, path, "must be an array, not %s", jr_type_name(v));
    if (v && json_array_size(v) == 0)
        return jr_fail(&c->jr, path, "is empty; give at least one kernel or copy");
    s->rawops = calloc(v ? json_array_size(v) : 1, sizeof *s->rawops);
    if (!s->rawops)
        return jr_oom(&c->jr);
    int64_t total_blocks = 0;
    for (size_t i = 0; v && i < json_array_size(v); i++) {
        int rc = parse_op(c, json_array_get(v, i), i, ndeclared, &in->cap, &total_blocks,
                          &s->rawops[i]);
        s->nops = i + 1;   /* so scn_free releases a half-parsed op's arrays */
        if (rc)
            return -1;
    }
    return 0;
}
static int read_top_variants(void *ctx, json_t *v, const char *path, void *obj) {
    pctx *c = ctx;
    (void)path, (void)obj;
    return parse_variants(c, v);
}

/* Step 0 reads the scenario's own keys (schema, name, description, seed,
 * cohorts); then the runs, base and variants, are made and step 1 reads
 * the base's device; step 2 its policy (over "most-room" placement), the
 * streams, and the tasks' cores and duration; step 3 the tasks (whose
 * "cpu" is one of those cores); step 4 the ops and the variants (which
 * name the ops' kernels). */
static const scn_key top_table[] = {
    {"schema", .read = read_top_schema, .always = true},
    {"name", .read = read_top_name, .always = true},
    {"description", .read = read_top_description, .always = true},
    {"device", .read = read_top_device, .step = 1, .always = true},
    {"policy", .read = read_top_policy, .step = 2},
    {"streams", .read = read_top_streams, .step = 2},
    {"ops", .read = read_top_ops, .step = 4, .always = true},
    {"variants", .read = read_top_variants, .step = 4},
    {"seed", .read = read_top_seed},
    {"tasks", .read = read_top_tasks, .step = 3},
    {"cpus", .read = read_top_cpus, .step = 2},
    {"duration", .read = read_top_duration, .step = 2},
    {"cohorts", .read = read_top_cohorts},
    {"reference", .read = read_top_reference, .step = 5},
};
#define TOP_NKEYS SCN_NKEYS(top_table)
_Static_assert(TOP_NKEYS <= SCN_MAX_KEYS, "top_table: raise SCN_MAX_KEYS");

static int parse_root(pctx *c, json_t *root) {
    scn_scenario *s = c->s;
    if (!json_is_object(root))
        return jr_fail(&c->jr, "", "a scenario is a JSON object, not %s", jr_type_name(root));
    root_in in = {0};
    /* a document of another schema is named as such before its keys are
     * checked against a scenario's ("unknown key \"devices\"" said nothing
     * of what the file was) */
    json_t *schema = json_object_get(root, "schema");
    if (json_is_string(schema) && read_top_schema(c, schema, "schema", NULL))
        return -1;
    if (scn_keys_check(&c->jr, root, "", top_table, TOP_NKEYS) ||
        scn_keys_read(c, root, "", top_table, TOP_NKEYS, 0, &in))
        return -1;

    json_t *jv = json_object_get(root, "variants");
    size_t nvar = json_is_array(jv) ? json_array_size(jv) : 0;
    s->runs = calloc(1 + nvar, sizeof *s->runs);
    if (!s->runs)
        return jr_oom(&c->jr);
    s->nruns = 1 + nvar;
    if (scn_keys_read(c, root, "", top_table, TOP_NKEYS, 1, &in))
        return -1;

    scn_rawpolicy *pol = &s->runs[0].raw;
    pol->placement = sim_placement_find("most-room");
    if (pol->placement < 0)
        return jr_fail(&c->jr, "policy.placement", "this build has no \"most-room\" placement");
    if (scn_keys_read(c, root, "", top_table, TOP_NKEYS, 2, &in) ||
        scn_keys_read(c, root, "", top_table, TOP_NKEYS, 3, &in) ||
        scn_keys_read(c, root, "", top_table, TOP_NKEYS, 4, &in))
        return -1;
    if (check_warp_applies(c) || check_contexts_keys(c) || check_mem_keys_apply(c) ||
        check_working_set_applies(c) ||
        check_managed_applies(c) || check_fu_applies(c) || check_tasks_keys(c, root) ||
        name_base_run(c) ||
        scn_keys_read(c, root, "", top_table, TOP_NKEYS, 5, &in))
        return -1;

    char buf[256];
    for (size_t r = 0; r < s->nruns; r++) {
        char pfx[JR_PATH_MAX + 80];
        scn_run *run = &s->runs[r];
        if (r == 0)
            pfx[0] = '\0';
        else
            snprintf(pfx, sizeof pfx, "variants[%zu] (\"%s\"): ", r - 1, run->name);
        c->jr.pfx = pfx;
        int rc = build_run(c, r);
        c->jr.pfx = "";
        if (rc)
            return -1;
        if (s->nruns == 1) {
            run->label = s->name;
        } else {
            snprintf(buf, sizeof buf, "%s [%s]", s->name, run->name);
            if (!(run->label = own(c, buf)))
                return jr_oom(&c->jr);
        }
    }
    return 0;
}

int scn_parse(const char *text, size_t len, const char *file, scn_scenario **out, char *err,
              size_t errlen) {
    *out = NULL;
    jr_ctx jc = {file ? file : "scenario", err, errlen, ""};
    json_t *root = jr_load(&jc, text, len);
    if (!root)
        return -1;
    int rc = scn_parse_json(root, file, out, err, errlen);
    json_decref(root);
    return rc;
}

static int parse_json(json_t *root, const char *file, bool portable, scn_scenario **out,
                      char *err, size_t errlen) {
    *out = NULL;
    if (err && errlen)
        err[0] = '\0';
    if (!file)
        file = "scenario";
    pctx c = {.jr = {file, err, errlen, ""}, .portable = portable};
    scn_scenario *s = calloc(1, sizeof *s);
    if (!s) {
        if (err && errlen)
            snprintf(err, errlen, "%s: out of memory", file);
        return -1;
    }
    c.s = s;
    int rc = parse_root(&c, root);
    free(c.sidx);
    if (rc) {
        scn_free(s);
        return -1;
    }
    *out = s;
    return 0;
}

int scn_parse_json(json_t *root, const char *file, scn_scenario **out, char *err,
                   size_t errlen) {
    return parse_json(root, file, false, out, err, errlen);
}

int scn_parse_json_portable(json_t *root, const char *file, scn_scenario **out, char *err,
                            size_t errlen) {
    return parse_json(root, file, true, out, err, errlen);
}

/* Scenarios are small; anything past this is not a scenario. */
#define SCN_MAX_FILE (64u << 20)

int scn_parse_file(const char *path, scn_scenario **out, char *err, size_t errlen) {
    *out = NULL;
    size_t len;
    char *buf = jr_read_file(path, SCN_MAX_FILE, "scenario", &len, err, errlen);
    if (!buf)
        return -1;
    int rc = scn_parse(buf, len, jr_path_name(path), out, err, errlen);
    free(buf);
    return rc;
}

void scn_free(scn_scenario *s) {
    if (!s)
        return;
    for (size_t i = 0; i < s->nops; i++) {
        free(s->rawops[i].block_time);
        free(s->rawops[i].body);
        free(s->rawops[i].access);
        free(s->rawops[i].mem_keys);
        free(s->rawops[i].dep);
    }
    free(s->rawops);
    for (size_t r = 0; r < s->nruns; r++) {
        free(s->runs[r].ops);
        free(s->runs[r].times);
        free(s->runs[r].budgets);
        free(s->runs[r].programs);
    }
    free(s->runs);
    free(s->streams);
    scn_tasks_free(&s->tasks);
    for (size_t i = 0; i < s->nstrs; i++)
        free(s->strs[i]);
    free(s->strs);
    free(s);
}

const char *scn_name(const scn_scenario *s) {
    return s->name;
}

const char *scn_description(const scn_scenario *s) {
    return s->description;
}

size_t scn_run_count(const scn_scenario *s) {
    return s->nruns;
}

const char *scn_run_name(const scn_scenario *s, size_t run) {
    return run < s->nruns ? s->runs[run].name : NULL;
}

int scn_find_run(const scn_scenario *s, const char *name) {
    for (size_t r = 0; r < s->nruns; r++)
        if (strcmp(s->runs[r].name, name) == 0)
            return (int)r;
    return -1;
}

int scn_config(const scn_scenario *s, size_t run, sim_config *out, char *err, size_t errlen) {
    if (run >= s->nruns) {
        snprintf(err, errlen, "%s: no run %zu (the scenario has %zu: the base and %zu "
                 "variants)", s->name, run, s->nruns, s->nruns - 1);
        return -1;
    }
    const scn_run *r = &s->runs[run];
    memset(out, 0, sizeof *out);
    out->name = r->label;
    out->device = r->device;
    out->policy = r->policy;
    out->streams = s->streams;
    out->nstreams = s->nstreams;
    out->ops = r->ops;
    out->nops = s->nops;
    out->seed = s->seed;
    out->tasks = s->tasks.tasks;
    out->ntasks = s->tasks.ntasks;
    out->cpus = s->tasks.cpus;
    out->duration = s->tasks.duration;
    out->cohorts = s->cohorts;
    out->max_records = !s->cohorts ? 0 : s->max_records > 0 ? s->max_records : SCN_MAX_COHORTS;
    return 0;
}

void scn_limit_records(scn_scenario *s, int64_t n) {
    if (s->cohorts && n > 0 && n < SCN_MAX_COHORTS) s->max_records = n;
}
