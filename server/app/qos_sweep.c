/* qos_sweep.c -- the ISCA'17 QoSreach sweep over a scenario template. See
 * qos_sweep.h and docs/qos.md. */
#include "qos_sweep.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../simcore/sim.h"
#include "../../importers/jsonr.h"
#include "kernlib.h"
#include "scenario.h"
#include "sweep.h"

#define QOS_MAX_KERNELS 64
#define QOS_MAX_PAIRS 4096
#define QOS_MAX_GOALS 100
#define QOS_MAX_SCHEMES 16
#define QOS_MAX_SEQUENCE 16   /* launches of one benchmark's run ("sequence") */
/* A pair's scenario, its kernels' ops launched "runs" times each, is built
 * as a JSON tree (build) and simulated: at most this much JSON text's worth
 * (ISCA'17 §4.1's 2M-cycle window, 64 launches of each Parboil program:
 * 2.4 MB) */
#define QOS_MAX_SCENARIO_BYTES ((size_t)64 << 20)
/* cycles per warp_epochs record: the non-QoS kernel's issues are counted
 * over the QoS kernel's lifetime from these (ISCA'17 §4.1 measures both
 * kernels over one window, re-running whichever ends first) */
#define QOS_WINDOW_EPOCH 500

/* The template's kernel roles: a pair has "$qos" and "$other"; ISCA'17's
 * trios (§4.1: "Either one or two kernels of the trio are QoS and the
 * remaining one(s) are non-QoS kernels") add "$qos2" or "$other2". A
 * group of the sweep (still called a pair in the spec and the result)
 * puts one kernel in each role the template has. */
enum { R_QOS, R_OTHER, R_QOS2, R_OTHER2, QOS_ROLES };
static const char *const role_name[QOS_ROLES] = {"$qos", "$other", "$qos2", "$other2"};
static bool role_qos(int r) { return r == R_QOS || r == R_QOS2; }
/* the order of a group's kernels in the spec ("pairs": [[QOS, QOS2?,
 * OTHER, OTHER2?]]), in the result, and of the SM ranks Spart gives them */
static const int role_order[QOS_ROLES] = {R_QOS, R_QOS2, R_OTHER, R_OTHER2};

typedef struct qos_kernel {
    const char *name;        /* borrowed from def */
    bool compute;            /* "class": "compute" (else "memory"), ISCA'17 Fig. 7 C/M */
    json_t *def;             /* the kernel's op keys (no name, no class) */
} qos_kernel;

typedef struct qos_scheme {
    const char *name;
    json_t *policy;          /* scenario policy keys over the template's */
    bool hill;               /* Spart: SM partitions by qos_hill_climb */
    bool quota;              /* policy.warp is a quota scheme: the QoS op gets qos_goal */
    bool climb;              /* placement spart-climb: the run-time Spart, which gets the
                                goal too and starts from the even split */
} qos_scheme;

struct qos_spec {
    json_t *norm;            /* normalised spec (kernels and template resolved) */
    char *name;
    json_t *tmpl;            /* the template scenario, its "window" and "runs" taken out */
    json_t *tmpl_given;      /* the template as the spec gave it (the normal form's) */
    qos_kernel k[QOS_MAX_KERNELS];
    size_t nk;
    int32_t pair[QOS_MAX_PAIRS][QOS_ROLES];   /* the kernel in each role, -1 none */
    size_t npairs;
    double goal[QOS_MAX_GOALS];
    size_t ngoals;
    qos_scheme sch[QOS_MAX_SCHEMES];
    size_t nsch;
    int64_t other_repeat;
    int32_t sms;             /* the template's device */
    bool has[QOS_ROLES];     /* the template's roles: "$qos" and "$other" always */
    int nroles, nqos;        /* how many, how many of them QoS kernels */
    size_t op[QOS_ROLES];    /* each role's op in the template */
    int64_t runs[QOS_ROLES]; /* the template ops' "runs" (ISCA'17 §4.1 re-execution) */
    int64_t window;          /* the template's "window": cycles measured (0: the QoS kernel's life) */
    bool full_runs;          /* "full_runs": simulate past the window (the same points, slower) */
};

static int fail(char *err, size_t errlen, const char *file, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(char *err, size_t errlen, const char *file, const char *fmt, ...) {
    if (err && errlen) {
        int k = snprintf(err, errlen, "%s: ", file);
        va_list ap;
        va_start(ap, fmt);
        if (k > 0 && (size_t)k < errlen) vsnprintf(err + k, errlen - (size_t)k, fmt, ap);
        va_end(ap);
        jr_one_line(err, errlen);   /* a name from the spec may hold a newline */
    }
    return -1;
}

void qos_spec_free(qos_spec *s) {
    if (!s) return;
    json_decref(s->norm);
    json_decref(s->tmpl);
    json_decref(s->tmpl_given);
    for (size_t i = 0; i < s->nk; i++) json_decref(s->k[i].def);
    for (size_t i = 0; i < s->nsch; i++) json_decref(s->sch[i].policy);
    free(s->name);
    free(s);
}

const char *qos_spec_name(const qos_spec *s) { return s->name; }

/* A JSON value given inline or as a file name relative to the spec's folder. */
static json_t *load_ref(json_t *v, const char *file, const char *what, char *err, size_t errlen) {
    if (!json_is_string(v)) return json_incref(v);
    char path[4096];
    const char *slash = strrchr(file, '/');
    const char *name = json_string_value(v);
    if (name[0] == '/' || !slash)
        snprintf(path, sizeof path, "%s", name);
    else
        snprintf(path, sizeof path, "%.*s/%s", (int)(slash - file), file, name);
    size_t len;
    char *text = jr_read_file(path, 16u << 20, what, &len, err, errlen);
    if (!text) return NULL;
    jr_ctx c = {.file = path, .err = err, .errlen = errlen};
    json_t *j = jr_load(&c, text, len);
    free(text);
    return j;
}

/* policy.warp is a quota scheme (the warp table's flag, sim_warp_quota);
 * an unknown name is left to the scenario parser's message */
static bool is_quota(json_t *policy) {
    const char *w = json_string_value(json_object_get(policy, "warp"));
    return w && sim_warp_quota(sim_policy_find(SIM_TABLE_WARP, w));
}

/* policy.placement moves SM partitions towards the goals at run time
 * (spart-climb, sim_placement_qos) */
static bool is_climb(json_t *policy) {
    const char *p = json_string_value(json_object_get(policy, "placement"));
    return p && sim_placement_qos(sim_policy_find(SIM_TABLE_PLACEMENT, p));
}

static int find_kernel(const qos_spec *s, const char *name) {
    for (size_t i = 0; name && i < s->nk; i++)
        if (strcmp(s->k[i].name, name) == 0) return (int)i;
    return -1;
}

static json_t *build(const qos_spec *s, size_t pair, double goal, const qos_scheme *sc,
                     const int32_t *sms, int only);

/* "program": "sgemm": a kernel of the kernel library (kernlib.h; the
 * Parboil benchmarks of ISCA'17 §4.1 are there). The kernel takes the
 * library's program and, for the keys it lacks, the library's blocks,
 * threads, smem, regs and latency, as a scenario op naming it does
 * (scenario.c parse_op); resolved here so that other_repeat can scale the
 * program and the result's spec holds what was simulated. `at` names the
 * place for a message ("kernels[3]", "kernels[3].sequence[1]"). */
static int from_library(json_t *def, const char *name, const char *at, const char *file,
                        char *err, size_t errlen) {
    const kl_kernel *k = kl_find(name);
    if (!k) {
        const char *near = kl_suggest(name);
        return fail(err, errlen, file, "%s.program: \"%s\" is not in the kernel library%s%s%s",
                    at, name, near ? " (did you mean \"" : "", near ? near : "",
                    near ? "\"?)" : "");
    }
    json_t *lib = json_loadb(k->text, k->len, 0, NULL);
    if (!lib) return fail(err, errlen, file, "%s.program: %s no longer reads as JSON", at, k->path);
    json_object_set(def, "program", json_object_get(lib, "program"));
    static const char *const inherit[] = {"blocks", "threads", "smem", "regs", "latency"};
    for (size_t j = 0; j < sizeof inherit / sizeof *inherit; j++) {
        json_t *v = json_object_get(lib, inherit[j]);
        if (v && !json_object_get(def, inherit[j])) json_object_set(def, inherit[j], v);
    }
    json_decref(lib);
    return 0;
}

/* One kernel launch of the set: op keys with a "program" that is the
 * warp-level model's program or the name of a kernel of the library (a
 * sequence's element may be that name alone). Returns a new def, or NULL
 * with err set. */
static json_t *launch_def(json_t *o, const char *at, const char *file, char *err, size_t errlen) {
    json_t *def = json_is_string(o) ? json_pack("{s:O}", "program", o) : json_deep_copy(o);
    json_t *pv = json_object_get(def, "program");
    if (!json_is_object(pv) && !json_is_string(pv)) {
        json_decref(def);
        fail(err, errlen, file, "%s.program: missing (the warp-level model's program, or the "
             "name of a kernel of the kernel library)", at);
        return NULL;
    }
    if (json_is_string(pv) && from_library(def, json_string_value(pv), at, file, err, errlen)) {
        json_decref(def);
        return NULL;
    }
    return def;
}

/* ISCA'17 §4.1 runs whole benchmarks: "If the benchmark has multiple
 * kernels ... we use the total number of instructions and cycles from the
 * benchmark to calculate the IPC". A kernel of the set is one launch
 * ("program") or a benchmark's launches in order ("sequence"): each run
 * of the benchmark launches them all, one after another on its stream,
 * under the benchmark's name, so the sweep measures the benchmark's IPC
 * and the QoS manager counts its instructions as one kernel's (exec_warp.c
 * warp_init: launches on one stream under one name and goal are one
 * kernel of the manager). */
static int parse_kernels(qos_spec *s, json_t *kv, const char *file, char *err, size_t errlen) {
    json_t *arr = json_is_object(kv) ? json_object_get(kv, "kernels") : kv;
    if (!json_is_array(arr) || json_array_size(arr) < 2 || json_array_size(arr) > QOS_MAX_KERNELS)
        return fail(err, errlen, file, "kernels: must be an array of 2..%d kernels (or "
                    "{\"kernels\": [...]}, or its file name)", QOS_MAX_KERNELS);
    for (size_t i = 0; i < json_array_size(arr); i++) {
        json_t *o = json_array_get(arr, i);
        const char *name = json_string_value(json_object_get(o, "name"));
        const char *cls = json_string_value(json_object_get(o, "class"));
        if (!json_is_object(o) || !name || !*name || name[0] == '$')
            return fail(err, errlen, file, "kernels[%zu].name: missing (a kernel needs a name)", i);
        if (!cls || (strcmp(cls, "compute") && strcmp(cls, "memory")))
            return fail(err, errlen, file, "kernels[%zu].class: expected \"compute\" or "
                        "\"memory\" (ISCA'17 Fig. 7)", i);
        if (find_kernel(s, name) >= 0)
            return fail(err, errlen, file, "kernels[%zu].name: \"%s\" is listed twice", i, name);
        char at[64];
        snprintf(at, sizeof at, "kernels[%zu]", i);
        json_t *seq = json_object_get(o, "sequence"), *def;
        if (seq) {
            const char *key;
            json_t *v;
            json_object_foreach(o, key, v)
                if (strcmp(key, "name") && strcmp(key, "class") && strcmp(key, "sequence"))
                    return fail(err, errlen, file, "kernels[%zu].%s: a kernel with a \"sequence\" "
                                "gives its launches' keys in each launch", i, key);
            if (!json_is_array(seq) || json_array_size(seq) < 1 ||
                json_array_size(seq) > QOS_MAX_SEQUENCE)
                return fail(err, errlen, file, "kernels[%zu].sequence: must be an array of "
                            "1..%d launches (a kernel of the library by name, or {\"program\", "
                            "...})", i, QOS_MAX_SEQUENCE);
            json_t *launches = json_array();
            for (size_t j = 0; j < json_array_size(seq); j++) {
                snprintf(at, sizeof at, "kernels[%zu].sequence[%zu]", i, j);
                json_t *e = json_array_get(seq, j), *d = NULL;
                if (!json_is_string(e) && !json_is_object(e))
                    fail(err, errlen, file, "%s: expected a kernel of the library by name, or "
                         "{\"program\", ...}", at);
                else if (json_is_object(e) && (json_object_get(e, "name") ||
                                               json_object_get(e, "class")))
                    fail(err, errlen, file, "%s: a launch takes the benchmark's name and class "
                         "(no \"%s\" of its own)", at,
                         json_object_get(e, "name") ? "name" : "class");
                else
                    d = launch_def(e, at, file, err, errlen);
                if (!d) {
                    json_decref(launches);
                    return -1;
                }
                json_array_append_new(launches, d);
            }
            def = json_pack("{s:o}", "sequence", launches);
        } else {
            def = launch_def(o, at, file, err, errlen);
            if (!def) return -1;
            json_object_del(def, "class");
            json_object_del(def, "name");
        }
        /* the op keys of the kernel; its name kept as "$name" beside them */
        json_object_set_new(def, "$name", json_string(name));
        s->k[s->nk].def = def;
        s->k[s->nk].name = json_string_value(json_object_get(def, "$name"));
        s->k[s->nk].compute = strcmp(cls, "compute") == 0;
        s->nk++;
    }
    return 0;
}

static int parse_template(qos_spec *s, const char *file, char *err, size_t errlen) {
    json_t *ops = json_object_get(s->tmpl, "ops");
    if (!json_is_object(s->tmpl) || !json_is_array(ops))
        return fail(err, errlen, file, "template: must be a schedlab-scenario/1 with ops");
    /* ISCA'17 §4.1: the programs run over a fixed simulated window (2M
     * cycles there); "window" measures the first that many cycles from the
     * QoS kernel's first block (the runs must outlast it) */
    json_t *wv = json_object_get(s->tmpl, "window");
    if (wv) {
        if (!json_is_integer(wv) || json_integer_value(wv) < 1)
            return fail(err, errlen, file, "template.window: must be a positive integer (cycles)");
        s->window = json_integer_value(wv);
        json_object_del(s->tmpl, "window");
    }
    for (size_t i = 0; i < json_array_size(ops); i++) {
        json_t *o = json_array_get(ops, i);
        const char *k = json_string_value(json_object_get(o, "kernel"));
        int r = 0;
        while (k && r < QOS_ROLES && strcmp(k, role_name[r])) r++;
        if (!k || r == QOS_ROLES) continue;
        if (!json_is_string(json_object_get(o, "stream")))
            return fail(err, errlen, file, "template.ops[%zu].stream: \"%s\" needs a declared "
                        "stream (its SM partition under Spart)", i, k);
        if (s->has[r]) return fail(err, errlen, file, "template.ops[%zu]: a second \"%s\"", i, k);
        /* ISCA'17 §4.1: each program is re-executed back to back on its
         * stream; "runs" launches the op that many times */
        json_t *rv = json_object_get(o, "runs");
        if (rv && (!json_is_integer(rv) || json_integer_value(rv) < 1 ||
                   json_integer_value(rv) > 1000))
            return fail(err, errlen, file, "template.ops[%zu].runs: must be an integer in "
                        "1..1000", i);
        s->runs[r] = rv ? json_integer_value(rv) : 1;
        if (rv) json_object_del(o, "runs");
        s->has[r] = true;
        s->op[r] = i;
        s->nroles++;
        s->nqos += role_qos(r);
    }
    if (!s->has[R_QOS] || !s->has[R_OTHER])
        return fail(err, errlen, file, "template.ops: needs one kernel \"$qos\" and one "
                    "\"$other\" (the QoS and the non-QoS kernel of each pair; \"$qos2\" or "
                    "\"$other2\" make it a trio)");
    for (int a = 0; a < QOS_ROLES; a++)
        for (int b = a + 1; b < QOS_ROLES; b++) {
            if (!s->has[a] || !s->has[b]) continue;
            const char *sa = json_string_value(json_object_get(json_array_get(ops, s->op[a]), "stream"));
            const char *sb = json_string_value(json_object_get(json_array_get(ops, s->op[b]), "stream"));
            if (strcmp(sa, sb) == 0)
                return fail(err, errlen, file, "template.ops: \"%s\" and \"%s\" share stream "
                            "\"%s\" (they must co-run)", role_name[a], role_name[b], sa);
        }
    return 0;
}

static int check_template(qos_spec *s, const char *file, char *err, size_t errlen) {
    /* the device's SMs (Spart's partitions), and a check that the template
     * takes the kernels and every scheme's policy: the first pair as each
     * scheme runs it (a partition of 1 SM where it has one). The SMs come
     * first from the pair under the template's own policy, so that a
     * partition can be built whatever the schemes' order. */
    qos_scheme plain = {.name = "template", .policy = json_object()};
    for (size_t k = 0; k <= s->nsch; k++) {
        const qos_scheme *sc = k == 0 ? &plain : &s->sch[k - 1];
        int32_t one[QOS_ROLES];
        for (int r = 0; r < QOS_ROLES; r++) one[r] = 1;
        json_t *j = build(s, 0, s->goal[0], sc, sc->hill ? one : NULL, -1);
        if (!j) {
            json_decref(plain.policy);
            return fail(err, errlen, file, "out of memory");
        }
        scn_scenario *scn;
        char serr[1024];
        int rc = scn_parse_json_portable(j, "template", &scn, serr, sizeof serr);
        json_decref(j);
        if (rc) {
            json_decref(plain.policy);
            if (k == 0) return fail(err, errlen, file, "%s (pair 0)", serr);
            return fail(err, errlen, file, "%s (schemes[%zu] \"%s\", pair 0)", serr, k - 1,
                        sc->name);
        }
        sim_config cfg;
        rc = scn_config(scn, 0, &cfg, serr, sizeof serr);
        if (!rc) s->sms = cfg.device.sms;
        /* and what the simulator refuses of the policy, here rather than
         * at the scheme's first point, maybe hours into the sweep */
        bool refused = !rc && sim_check_policy(&cfg, serr, sizeof serr) != 0;
        scn_free(scn);
        if (rc) {
            json_decref(plain.policy);
            return fail(err, errlen, file, "%s", serr);
        }
        if (refused) {
            json_decref(plain.policy);
            if (k == 0) return fail(err, errlen, file, "template: %s", serr);
            return fail(err, errlen, file, "schemes[%zu] \"%s\": %s", k - 1, sc->name, serr);
        }
    }
    json_decref(plain.policy);
    if (s->sms < s->nroles)
        return fail(err, errlen, file, "template.device: %d SMs cannot be partitioned between %d "
                    "kernels", (int)s->sms, s->nroles);
    return 0;
}

/* "pairs": "all": the groups of different kernels for the roles from
 * role_order[o] on, g[] holding the earlier roles' kernels; a second QoS
 * (non-QoS) kernel comes after the first in the kernel set, so that each
 * unordered choice is made once. Returns -1 past QOS_MAX_PAIRS. */
static int all_groups(qos_spec *s, int o, int32_t *g) {
    if (o == QOS_ROLES) {
        if (s->npairs == QOS_MAX_PAIRS) return -1;
        memcpy(s->pair[s->npairs++], g, sizeof s->pair[0]);
        return 0;
    }
    int r = role_order[o];
    if (!s->has[r]) {
        g[r] = -1;
        return all_groups(s, o + 1, g);
    }
    int32_t from = r == R_QOS2 ? g[R_QOS] + 1 : r == R_OTHER2 ? g[R_OTHER] + 1 : 0;
    for (int32_t k = from; k < (int32_t)s->nk; k++) {
        bool used = false;
        for (int p = 0; p < o; p++) used |= g[role_order[p]] == k;
        if (used) continue;
        g[r] = k;
        if (all_groups(s, o + 1, g)) return -1;
    }
    return 0;
}

int qos_spec_parse(json_t *root, const char *file, qos_spec **out, char *err, size_t errlen) {
    *out = NULL;
    static const char *const keys[] = {"schema", "kind", "name", "description", "template",
                                       "kernels", "pairs", "goals", "schemes", "other_repeat",
                                       "full_runs", "reference", NULL};
    const char *key;
    json_t *v;
    json_object_foreach(root, key, v) {
        bool ok = false;
        for (const char *const *k = keys; *k && !ok; k++) ok = strcmp(*k, key) == 0;
        if (!ok) return fail(err, errlen, file, "%s: unknown key (kind \"qos\")", key);
    }
    qos_spec *s = calloc(1, sizeof *s);
    if (!s) return fail(err, errlen, file, "out of memory");
    json_t *kv = NULL, *pairs_norm = NULL;
    const char *name = json_string_value(json_object_get(root, "name"));
    if (!name || !*name) {
        fail(err, errlen, file, "name: missing (a string naming the experiment)");
        goto bad;
    }
    s->name = strdup(name);
    v = json_object_get(root, "description");
    if (v && !json_is_string(v)) {
        fail(err, errlen, file, "description: must be a string");
        goto bad;
    }
    /* goals: fractions of IPC_isolated (ISCA'17 §3.2, §4.1: 50% ... 95%) */
    v = json_object_get(root, "goals");
    if (!json_is_array(v) || json_array_size(v) < 1 || json_array_size(v) > QOS_MAX_GOALS) {
        fail(err, errlen, file, "goals: must be an array of 1..%d fractions of IPC_isolated",
             QOS_MAX_GOALS);
        goto bad;
    }
    for (size_t i = 0; i < json_array_size(v); i++) {
        json_t *g = json_array_get(v, i);
        double d = json_is_number(g) ? json_number_value(g) : -1;
        if (!(d > 0 && d <= 1)) {
            fail(err, errlen, file, "goals[%zu]: must be a number in (0, 1]", i);
            goto bad;
        }
        s->goal[s->ngoals++] = d;
    }
    v = json_object_get(root, "schemes");
    if (!json_is_array(v) || json_array_size(v) < 1 || json_array_size(v) > QOS_MAX_SCHEMES) {
        fail(err, errlen, file, "schemes: must be an array of 1..%d {\"name\", \"policy\"}",
             QOS_MAX_SCHEMES);
        goto bad;
    }
    for (size_t i = 0; i < json_array_size(v); i++) {
        json_t *o = json_array_get(v, i);
        const char *sn = json_string_value(json_object_get(o, "name"));
        json_t *pol = json_object_get(o, "policy");
        json_t *part = json_object_get(o, "partition");
        const char *pk;
        json_t *pv;
        bool okeys = json_is_object(o);
        json_object_foreach(o, pk, pv) okeys = okeys && (!strcmp(pk, "name") ||
                                                         !strcmp(pk, "policy") ||
                                                         !strcmp(pk, "partition"));
        if (!okeys || !sn || !*sn || (pol && !json_is_object(pol))) {
            fail(err, errlen, file, "schemes[%zu]: expected {\"name\", \"policy\": {...}, "
                 "\"partition\"?: \"hill-climb\"}", i);
            goto bad;
        }
        if (part && (!json_is_string(part) || strcmp(json_string_value(part), "hill-climb"))) {
            fail(err, errlen, file, "schemes[%zu].partition: expected \"hill-climb\"", i);
            goto bad;
        }
        for (size_t k = 0; k < s->nsch; k++)
            if (strcmp(s->sch[k].name, sn) == 0) {
                fail(err, errlen, file, "schemes[%zu].name: \"%s\" is listed twice", i, sn);
                goto bad;
            }
        s->sch[s->nsch].policy = pol ? json_deep_copy(pol) : json_object();
        s->sch[s->nsch].hill = part != NULL;
        s->sch[s->nsch].quota = is_quota(pol);
        s->sch[s->nsch].climb = is_climb(pol);
        if (s->sch[s->nsch].climb && s->sch[s->nsch].hill) {
            fail(err, errlen, file, "schemes[%zu]: placement spart-climb moves its partitions "
                 "itself; \"partition\": \"hill-climb\" searches fixed ones (placement "
                 "\"spart\")", i);
            json_decref(s->sch[s->nsch].policy);
            goto bad;
        }
        /* the name lives in the scheme's own policy object (the spec's
         * tree is the caller's) */
        json_object_set_new(s->sch[s->nsch].policy, "$name", json_string(sn));
        s->sch[s->nsch].name = json_string_value(json_object_get(s->sch[s->nsch].policy, "$name"));
        s->nsch++;
    }
    s->other_repeat = 1;
    if ((v = json_object_get(root, "other_repeat"))) {
        if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > 1000) {
            fail(err, errlen, file, "other_repeat: must be an integer in 1..1000");
            goto bad;
        }
        s->other_repeat = json_integer_value(v);
    }
    if ((v = json_object_get(root, "full_runs"))) {
        if (!json_is_boolean(v)) {
            fail(err, errlen, file, "full_runs: must be true or false");
            goto bad;
        }
        s->full_runs = json_is_true(v);
    }
    kv = json_object_get(root, "kernels");
    if (!kv) {
        fail(err, errlen, file, "kernels: missing (the kernel set, or its file name)");
        goto bad;
    }
    kv = load_ref(kv, file, "kernel set", err, errlen);
    if (!kv || parse_kernels(s, kv, file, err, errlen)) goto bad;
    v = json_object_get(root, "template");
    if (!v) {
        fail(err, errlen, file, "template: missing (a scenario with kernels \"$qos\" and "
             "\"$other\", or its file name)");
        goto bad;
    }
    /* the result's spec keeps the template whole: its window and runs are
     * what every point measured (without them two results of different
     * windows read as one sweep's, to `schedlab merge` and --reuse) */
    s->tmpl_given = load_ref(v, file, "scenario template", err, errlen);
    s->tmpl = s->tmpl_given ? json_deep_copy(s->tmpl_given) : NULL;
    if (!s->tmpl || parse_template(s, file, err, errlen)) goto bad;
    {
        /* every role's op launched runs times, each the largest kernel */
        size_t big = 0, launches = 0;
        for (size_t i = 0; i < s->nk; i++) {
            size_t n = json_dumpb(s->k[i].def, NULL, 0, JSON_COMPACT);
            if (n > big) big = n;
        }
        for (int r = 0; r < QOS_ROLES; r++)
            if (s->has[r]) launches += (size_t)s->runs[r];
        if (big > 0 && launches > QOS_MAX_SCENARIO_BYTES / big) {
            fail(err, errlen, file, "template: %zu launches of kernels of up to %zu bytes of "
                 "JSON make a pair's scenario of more than %zu MB (fewer runs, or smaller "
                 "programs)", launches, big, QOS_MAX_SCENARIO_BYTES >> 20);
            goto bad;
        }
    }
    v = json_object_get(root, "pairs");
    if (!v || (json_is_string(v) && !strcmp(json_string_value(v), "all"))) {
        /* ISCA'17 §4.1: "10 x 9 = 90 pairs of kernels are generated: one
         * is a QoS kernel and the other is a non-QoS kernel"; a trio
         * template: every choice of different kernels for its roles, the
         * two QoS (or two non-QoS) kernels unordered ("trios of all
         * possible combinations") */
        int32_t g[QOS_ROLES];
        if (all_groups(s, 0, g)) {
            fail(err, errlen, file, "pairs: \"all\" makes more than %d groups of the kernel "
                 "set; list them", QOS_MAX_PAIRS);
            goto bad;
        }
        if (s->npairs == 0) {
            /* found by fuzz_sweep_spec: a trio template over a set of two */
            fail(err, errlen, file, "pairs: \"all\" makes no group: the template has %d "
                 "kernel roles and the kernel set %zu kernels", s->nroles, s->nk);
            goto bad;
        }
    } else if (json_is_array(v) && json_array_size(v) >= 1 &&
               json_array_size(v) <= QOS_MAX_PAIRS) {
        for (size_t i = 0; i < json_array_size(v); i++) {
            json_t *p = json_array_get(v, i);
            bool ok = json_is_array(p) && json_array_size(p) == (size_t)s->nroles;
            int32_t *g = s->pair[s->npairs];
            for (int r = 0; r < QOS_ROLES; r++) g[r] = -1;
            for (int o = 0, at = 0; ok && o < QOS_ROLES; o++) {
                int r = role_order[o];
                if (!s->has[r]) continue;
                int k = find_kernel(s, json_string_value(json_array_get(p, (size_t)at++)));
                for (int x = 0; x < QOS_ROLES && k >= 0; x++) ok = ok && g[x] != k;
                ok = ok && k >= 0;
                g[r] = k;
            }
            if (!ok) {
                if (s->nroles == 2)
                    fail(err, errlen, file, "pairs[%zu]: expected [QOS KERNEL, NON-QOS KERNEL], "
                         "two different names of the kernel set", i);
                else
                    fail(err, errlen, file, "pairs[%zu]: expected [%s], %d different names of "
                         "the kernel set (the template's roles, QoS kernels first)", i,
                         s->has[R_QOS2] ? (s->has[R_OTHER2] ? "QOS, QOS2, OTHER, OTHER2"
                                                            : "QOS, QOS2, OTHER")
                                        : "QOS, OTHER, OTHER2", s->nroles);
                goto bad;
            }
            s->npairs++;
        }
    } else {
        fail(err, errlen, file, "pairs: expected \"all\" or an array of [QOS, NON-QOS] names");
        goto bad;
    }
    if (check_template(s, file, err, errlen)) goto bad;

    pairs_norm = json_array();
    for (size_t i = 0; i < s->npairs; i++) {
        json_t *g = json_array();
        for (int o = 0; o < QOS_ROLES; o++)
            if (s->has[role_order[o]])
                json_array_append_new(g, json_string(s->k[s->pair[i][role_order[o]]].name));
        json_array_append_new(pairs_norm, g);
    }
    json_t *kn = json_array();
    for (size_t i = 0; i < s->nk; i++) {
        json_t *d = json_deep_copy(s->k[i].def);
        json_object_del(d, "$name");
        json_object_set_new(d, "name", json_string(s->k[i].name));
        json_object_set_new(d, "class", json_string(s->k[i].compute ? "compute" : "memory"));
        json_array_append_new(kn, d);
    }
    json_t *schn = json_array();
    for (size_t i = 0; i < s->nsch; i++) {
        json_t *pol = json_deep_copy(s->sch[i].policy);
        json_object_del(pol, "$name");
        json_t *o = json_pack("{s:s, s:o}", "name", s->sch[i].name, "policy", pol);
        if (s->sch[i].hill) json_object_set_new(o, "partition", json_string("hill-climb"));
        json_array_append_new(schn, o);
    }
    json_t *gn = json_array();
    for (size_t i = 0; i < s->ngoals; i++) json_array_append_new(gn, json_real(s->goal[i]));
    s->norm = json_pack("{s:s, s:s, s:s, s:O?, s:O, s:o, s:O, s:o, s:o, s:I}", "schema",
                        "schedlab-sweep/1", "kind", "qos", "name", name, "description",
                        json_object_get(root, "description"), "template", s->tmpl_given, "kernels", kn,
                        "pairs", pairs_norm, "goals", gn, "schemes", schn, "other_repeat",
                        (json_int_t)s->other_repeat);
    json_decref(pairs_norm);
    pairs_norm = NULL;
    if (s->norm && s->full_runs) json_object_set_new(s->norm, "full_runs", json_true());
    /* the paper's QoSreach per scheme, drawn beside ours (issue 30) */
    const char *snames[QOS_MAX_SCHEMES];
    for (size_t i = 0; i < s->nsch; i++) snames[i] = s->sch[i].name;
    if (sweep_reference_check(json_object_get(root, "reference"), "qosreach", 0, snames, s->nsch,
                              file, err, errlen))
        goto bad;
    if (s->norm && json_object_get(root, "reference"))
        json_object_set(s->norm, "reference", json_object_get(root, "reference"));
    if (!s->norm || !s->name) {
        fail(err, errlen, file, "out of memory");
        goto bad;
    }
    json_decref(kv);
    *out = s;
    return 0;
bad:
    json_decref(kv);
    json_decref(pairs_norm);
    qos_spec_free(s);
    return -1;
}

/* ---- one point ------------------------------------------------------------------ */

/* The stream of role r's op in the template. */
static const char *role_stream(const qos_spec *s, json_t *ops, int r) {
    return json_string_value(json_object_get(json_array_get(ops, s->op[r]), "stream"));
}

/* Give role r's stream the SM ranks [first, first + count). */
static void set_sms(json_t *streams, const char *name, int32_t first, int32_t count) {
    for (size_t i = 0; i < json_array_size(streams); i++) {
        json_t *st = json_array_get(streams, i);
        const char *n = json_string_value(json_object_get(st, "name"));
        if (n && !strcmp(n, name))
            json_object_set_new(st, "sms", json_pack("{s:i, s:i}", "first", (int)first, "count",
                                                     (int)count));
    }
}

/* Spart's first partition (both searches: the offline one, hill_climb_group,
 * and the run-time one, placement spart-climb): n / kernels SMs each, the
 * rest to the non-QoS kernels in role order (a pair: half each). */
static void even_split(const qos_spec *s, int32_t *m) {
    int32_t rest = s->sms;
    for (int x = 0; x < QOS_ROLES; x++) {
        m[x] = s->has[x] ? s->sms / s->nroles : 0;
        rest -= m[x];
    }
    for (int o = 0; rest > 0; o = (o + 1) % QOS_ROLES) {
        int x = role_order[o];
        if (s->has[x] && !role_qos(x)) {
            m[x]++;
            rest--;
        }
    }
}

/* The template with group `pair` in place: the scheme's policy over the
 * template's, qos_goal on the QoS kernels under a quota policy, and SM
 * partitions when sms is given (Spart: sms[r] SMs for role r, the roles'
 * ranks one after the other in role_order: for a pair the QoS kernel's
 * stream gets ranks 0..sms[R_QOS]-1, the other's the rest). Each kernel's
 * op is launched its template op's "runs" times, the copies appended to
 * the ops (its stream runs them back to back: ISCA'17 §4.1 re-executes
 * each program over the simulated window). only = a role: that role's
 * kernel alone (the other roles' ops removed); -1 all. */
static json_t *build(const qos_spec *s, size_t pair, double goal, const qos_scheme *sc,
                     const int32_t *sms, int only) {
    json_t *j = json_deep_copy(s->tmpl);
    if (!j) return NULL;
    json_t *pol = json_object_get(j, "policy");
    if (!json_is_object(pol)) {
        pol = json_object();
        json_object_set_new(j, "policy", pol);
    }
    json_object_update(pol, sc->policy);
    json_object_del(pol, "$name");
    json_t *ops = json_object_get(j, "ops");
    json_t *streams = json_object_get(j, "streams");
    for (int role = 0; role < QOS_ROLES; role++) {
        if (!s->has[role]) continue;
        size_t at = s->op[role];
        const qos_kernel *k = &s->k[s->pair[pair][role]];
        json_t *t = json_array_get(ops, at);
        /* one run of the kernel: its launch, or its sequence's in order */
        json_t *seq = json_object_get(k->def, "sequence");
        size_t n = seq ? json_array_size(seq) : 1;
        json_t *run = json_array();
        for (size_t e = 0; e < n; e++) {
            /* (the launch's own keys are set here, its program shared with
             * the kernel set's: a copy of a Parboil program is thousands
             * of objects, and a deep copy of each run's took 45 % of a
             * spec's check, GET /api/sweeps/specs 2.6 s) */
            json_t *o = json_copy(seq ? json_array_get(seq, e) : k->def);
            if (!o) {
                json_decref(run);
                json_decref(j);
                return NULL;
            }
            json_object_del(o, "$name");
            json_object_set_new(o, "kernel", json_string(k->name));
            json_object_set(o, "stream", json_object_get(t, "stream"));
            if (json_object_get(t, "at")) json_object_set(o, "at", json_object_get(t, "at"));
            if (json_object_get(t, "process"))
                json_object_set(o, "process", json_object_get(t, "process"));
            if (!role_qos(role) && s->other_repeat > 1) {
                /* the non-QoS kernel outlasts the QoS one, so that both
                 * share the GPU for the QoS kernel's whole life (ISCA'17
                 * §4.1 re-runs whichever program ends first) */
                json_t *prog = json_copy(json_object_get(o, "program"));
                json_t *r = json_object_get(prog, "repeat");
                json_int_t rep = json_is_integer(r) ? json_integer_value(r) : 1;
                json_object_set_new(prog, "repeat", json_integer(rep * s->other_repeat));
                json_object_set_new(o, "program", prog);
            }
            if (role_qos(role) && (sc->quota || sc->climb))
                json_object_set_new(o, "qos_goal", json_real(goal));
            json_array_append_new(run, o);
        }
        /* the run's first launch takes the template op's place; the rest,
         * and the runs after it, follow at the end (in order on the
         * stream): the same launch objects again, which nothing changes
         * from here on (the scenario reader only reads them) */
        if (only < 0 || only == role)
            for (int64_t r = 0; r < s->runs[role]; r++)
                for (size_t e = r == 0; e < n; e++)
                    json_array_append(ops, json_array_get(run, e));
        json_array_set(ops, at, json_array_get(run, 0));
        json_decref(run);
    }
    int32_t even[QOS_ROLES];
    if (!sms && sc->climb && only < 0) {
        /* the run-time Spart starts from the even split and moves SMs
         * itself (simcore/spart.c) */
        even_split(s, even);
        sms = even;
    }
    if (only >= 0)   /* the other roles' ops, the last first */
        for (size_t i = json_array_size(ops); i-- > 0;)
            for (int r = 0; r < QOS_ROLES; r++)
                if (s->has[r] && r != only && s->op[r] == i) json_array_remove(ops, i);
    if (sms) {
        int32_t first = 0;
        for (int o = 0; o < QOS_ROLES; o++) {
            int r = role_order[o];
            if (!s->has[r]) continue;
            set_sms(streams, role_stream(s, ops, r), first, sms[r]);
            first += sms[r];
        }
    } else if (sc->quota && only < 0 && s->nroles - s->nqos >= 2) {
        /* ISCA'17 §3.6, "Symmetric TB allocation for two or more kernels":
         * "QoS kernels are evenly distributed to every SM ... we partition
         * SMs to non-QoS kernels equally. Each kernel is then symmetrically
         * dispatched to its own partition of SMs. For example, consider one
         * QoS kernel and two non-QoS kernels on a GPU with 16 SMs. The QoS
         * kernel will run on 16 SMs and each non-QoS kernel will run on 8
         * SMs." The non-QoS kernels' streams get equal partitions (the
         * first ones one SM more where they do not divide), the QoS
         * kernels every SM; placement "spart" keeps each to its own, and
         * ee.c shares each SM equally between the kernels on it. */
        int32_t no = s->nroles - s->nqos, first = 0;
        for (int o = 0, i = 0; o < QOS_ROLES; o++) {
            int r = role_order[o];
            if (!s->has[r] || role_qos(r)) continue;
            int32_t n = s->sms / no + (i++ < s->sms % no);
            set_sms(streams, role_stream(s, ops, r), first, n);
            first += n;
        }
        json_object_set_new(pol, "placement", json_string("spart"));
    }
    return j;
}

/* What one run says, per role: its kernel's IPC over its window, and its
 * issues per cycle over the QoS kernel's window (what a non-QoS kernel's
 * throughput counts). */
typedef struct run_out {
    double ipc[QOS_ROLES];
    double window_ipc[QOS_ROLES];
} run_out;

typedef struct wctx {
    const qos_spec *s;
    uint64_t sims;
    sim_ipc_cache cache;     /* the quota policies' IPC_isolated, per thread (sim.h) */
    bool full;               /* run past the window (tests: the stop changes nothing) */
    uint64_t restarts;       /* runs made again in full: the stop came too early */
} wctx;

/* The cycles a run must simulate for window W to measure what the whole
 * run measures: up to the end of the last warp_epochs record that overlaps
 * the window (a record cut by the window counts pro rata, so all of it must
 * be there). ISCA'17 §4.1's window is all the sweep measures, so each run
 * stops there (sim_config.stop) with this much to spare for the roles'
 * first blocks, which begin a little after cycle 0; measure() checks that
 * the stop came late enough and the run is made again in full if not. */
#define QOS_STOP_SLACK (4 * QOS_WINDOW_EPOCH)

static int64_t epoch_ceil(double c) {
    int64_t e = (int64_t)ceil(c / QOS_WINDOW_EPOCH);
    return e * QOS_WINDOW_EPOCH;
}

/* the time (ns) at which cycle c begins, as exec_warp.c counts it */
static int64_t ns_of(int64_t c, int64_t hz) {
    return c / hz * 1000000000 + ((c % hz) * 1000000000 + hz - 1) / hz;
}

/* What a run says (run_out) from its trace. Returns 1 when the run stopped
 * (cfg->stop) before the end of what the window needs: the numbers are then
 * not the whole run's, and the caller runs it again without a stop. */
static int measure(const qos_spec *s, const sim_config *cfg, const trace *t,
                   const char *const names[QOS_ROLES], run_out *r) {
    /* each role's runs (ISCA'17 §4.1: a program re-executed over the
     * window): its warp instructions over the cycles from its first run's
     * first block to its last run's end; the runs are the kernel ops named
     * as the role's kernel, in op order. A run the stop cut short ends at
     * the stop. */
    double hz = (double)cfg->device.clock_hz;
    double instr[QOS_ROLES] = {0}, c0[QOS_ROLES], c1[QOS_ROLES];
    for (int x = 0; x < QOS_ROLES; x++) c0[x] = c1[x] = -1;
    int8_t *role = calloc(t->kernels.n ? t->kernels.n : 1, 1);
    if (!role) return -1;
    size_t kn = 0;
    int present[QOS_ROLES] = {0};
    for (size_t i = 0; i < cfg->nops && kn < t->kernels.n; i++) {
        const sim_op *op = &cfg->ops[i];
        if (op->kind != SIM_OP_KERNEL) continue;
        role[kn] = -1;
        for (int x = 0; x < QOS_ROLES; x++)
            if (names[x] && op->name && !strcmp(op->name, names[x])) role[kn] = (int8_t)x;
        if (role[kn] >= 0) present[role[kn]] = 1;
        kn++;
    }
    for (size_t i = 0; i < t->kernels.n; i++) {
        const trace_kernel *k = &t->kernels.v[i];
        int x = role[i];
        int64_t end = k->end;
        if (end == TRACE_NONE && cfg->stop > 0 && k->first_block != TRACE_NONE) end = cfg->stop;
        if (x < 0 || end <= k->first_block) continue;
        double a = (double)k->first_block * hz / 1e9, b = (double)end * hz / 1e9;
        instr[x] += (double)k->instructions;
        if (c0[x] < 0 || a < c0[x]) c0[x] = a;
        if (b > c1[x]) c1[x] = b;
    }
    int64_t W = s->window;
    if (cfg->stop > 0) {
        /* every role began, and each role's window ended with its last
         * epoch record before the stop */
        for (int x = 0; x < QOS_ROLES; x++)
            if (present[x] && (c0[x] < 0 || ns_of(epoch_ceil(c0[x] + (double)W),
                                                   cfg->device.clock_hz) >= cfg->stop)) {
                free(role);
                return 1;
            }
    }
    for (int x = 0; W > 0 && x < QOS_ROLES; x++) {
        /* a fixed window from the role's first block: its issues there
         * (epochs cut by the window count pro rata) */
        if (!(c1[x] > c0[x])) continue;
        if (c1[x] > c0[x] + (double)W) c1[x] = c0[x] + (double)W;
        instr[x] = 0;
        for (size_t i = 0; i < t->warp_epochs.n; i++) {
            const trace_warp_epoch *e = &t->warp_epochs.v[i];
            if (e->kernel < 0 || (size_t)e->kernel >= t->kernels.n || role[e->kernel] != x)
                continue;
            double a = (double)e->cycle, b = a + (double)e->cycles;
            double lo = a > c0[x] ? a : c0[x], hi = b < c1[x] ? b : c1[x];
            if (hi > lo) instr[x] += (double)e->issues * (hi - lo) / (b - a);
        }
    }
    for (int x = 0; x < QOS_ROLES; x++) {
        r->ipc[x] = c1[x] > c0[x] ? instr[x] / (c1[x] - c0[x]) : 0;
        /* one run, no window: the trace's own IPC (the same measure) */
        int found = 0;
        size_t at = 0;
        for (size_t i = 0; i < t->kernels.n && W <= 0; i++)
            if (role[i] == x && found++ == 0) at = i;
        if (found == 1) r->ipc[x] = t->kernels.v[at].ipc;
    }
    for (int x = 0; x < QOS_ROLES; x++) {
        /* the QoS kernel's life in cycles, and this role's issues in it
         * (epochs cut by the window count pro rata) */
        r->window_ipc[x] = 0;
        if (!(c1[R_QOS] > c0[R_QOS] && c1[x] > c0[x])) continue;
        double issues = 0;
        for (size_t i = 0; i < t->warp_epochs.n; i++) {
            const trace_warp_epoch *e = &t->warp_epochs.v[i];
            if (e->kernel < 0 || (size_t)e->kernel >= t->kernels.n || role[e->kernel] != x)
                continue;
            double a = (double)e->cycle, b = a + (double)e->cycles;
            double lo = a > c0[R_QOS] ? a : c0[R_QOS], hi = b < c1[R_QOS] ? b : c1[R_QOS];
            if (hi > lo) issues += (double)e->issues * (hi - lo) / (b - a);
        }
        r->window_ipc[x] = issues / (c1[R_QOS] - c0[R_QOS]);
    }
    free(role);
    return 0;
}

/* iso[r] > 0 for a QoS role: its kernel's IPC_isolated as the sweep
 * measures it (over the window), told to the simulator so that the goal the
 * quota policies pursue is the goal judged (ISCA'17 §3.2: IPC_goal is a
 * share of one IPC_isolated). For a non-QoS role, told too: the simulator
 * wants every program kernel's for its trace (trace_kernel.ipc_isolated),
 * which no point reads, and would otherwise run that kernel alone to its
 * end, past the window (a Parboil tpacf: 30 s of CPU a thread). iso NULL:
 * none. */
static int simulate(wctx *w, json_t *j, size_t pair, const double *iso, run_out *r,
                    char *err, size_t errlen) {
    /* the group's kernels: their ops carry the kernel set's names */
    const char *names[QOS_ROLES] = {NULL};
    for (int x = 0; x < QOS_ROLES; x++)
        if (w->s->has[x]) names[x] = w->s->k[w->s->pair[pair][x]].name;
    scn_scenario *sc;
    if (scn_parse_json_portable(j, "template", &sc, err, errlen)) return -1;
    sim_config cfg;
    if (scn_config(sc, 0, &cfg, err, errlen)) {
        scn_free(sc);
        return -1;
    }
    cfg.policy.warp_issue_limit = -1;             /* no per-issue records: epochs suffice */
    cfg.policy.warp_epoch = QOS_WINDOW_EPOCH;
    cfg.ipc_cache = &w->cache;
    /* nothing past the window is measured: stop there (see QOS_STOP_SLACK) */
    if (w->s->window > 0 && !w->full)
        cfg.stop = ns_of(epoch_ceil((double)(w->s->window + QOS_STOP_SLACK)), cfg.device.clock_hz);
    /* the non-QoS kernels' first: where two kernels have one shape (one
     * cache key), the QoS kernel's value is the one kept */
    for (int pass = 0; pass < 2 && iso; pass++)
        for (size_t i = 0; i < cfg.nops; i++) {
            if (cfg.ops[i].kind != SIM_OP_KERNEL || !cfg.ops[i].program || !cfg.ops[i].name)
                continue;
            int x = 0;
            while (x < QOS_ROLES && !(names[x] && !strcmp(names[x], cfg.ops[i].name))) x++;
            if (x == QOS_ROLES || role_qos(x) != (pass == 1) || !(iso[x] > 0)) continue;
            if (sim_ipc_cache_put(&w->cache, &cfg, i, iso[x]) != 0) {
                scn_free(sc);
                return fail(err, errlen, "sweep", "out of memory");
            }
        }
    int rc;
    for (;;) {
        trace t;
        trace_init(&t);
        rc = sim_run(&cfg, &t, err, errlen);
        w->sims++;
        int m = rc == 0 ? measure(w->s, &cfg, &t, names, r) : 0;
        trace_free(&t);
        if (m < 0) rc = fail(err, errlen, "sweep", "out of memory");
        if (m != 1) break;
        cfg.stop = 0;                                 /* the stop came too early */
        w->restarts++;
    }
    scn_free(sc);
    return rc;
}

/* ISCA'17 §4.1: the QoS goal is a share of IPC_isolated; the simulator
 * runs each kernel alone (the template with only its role's op) */
static int isolated(wctx *w, size_t kernel, int role, double *ipc, char *err, size_t errlen) {
    const qos_spec *s = w->s;
    /* a group with this kernel in `role` */
    size_t pair = 0;
    while (s->has[role] && pair < s->npairs && s->pair[pair][role] != (int32_t)kernel) pair++;
    if (!s->has[role] || pair == s->npairs) {
        *ipc = 0;
        return 0;
    }
    qos_scheme plain = {.name = "isolated", .policy = json_object()};
    json_t *j = build(s, pair, 1.0, &plain, NULL, role);
    json_decref(plain.policy);
    if (!j) return fail(err, errlen, "sweep", "out of memory");
    run_out r;
    int rc = simulate(w, j, pair, NULL, &r, err, errlen);
    json_decref(j);
    *ipc = r.ipc[role];
    return rc;
}

int32_t qos_hill_climb(int32_t n, qos_eval_fn eval, void *ctx, int *met, double *thr) {
    int32_t m = n / 2;
    int ok;
    double t;
    if (eval(ctx, m, &ok, &t)) return -1;
    /* ISCA'17 §2.3: "adjusting the number of SMs for each kernel to achieve
     * performance goals with hill-climbing [3]": give the QoS kernel SMs
     * until its goal is met ... */
    while (!ok && m < n - 1) {
        m++;
        if (eval(ctx, m, &ok, &t)) return -1;
    }
    /* ... then hand SMs back to the non-QoS kernel while the goal stays met
     * and the non-QoS throughput improves (§3: the non-QoS kernels'
     * objective is their throughput) */
    while (ok && m > 1) {
        int ok2;
        double t2;
        if (eval(ctx, m - 1, &ok2, &t2)) return -1;
        if (!ok2 || !(t2 > t)) break;
        m--;
        t = t2;
    }
    *met = ok;
    *thr = t;
    return m;
}

/* one (pair, scheme) over every goal: the unit of work */
typedef struct point {
    int met;                 /* every QoS kernel met the goal */
    double attained[2];      /* $qos's and $qos2's IPC over IPC_isolated */
    double thr;              /* the non-QoS kernels' mean normalised throughput */
    int32_t sms[QOS_ROLES];  /* Spart's partition */
} point;

/* a partition Spart has simulated (sms per role) and what it gave */
typedef struct hpart {
    int32_t sms[QOS_ROLES];
    run_out out;
} hpart;

typedef struct hctx {
    wctx *w;
    size_t pair;
    const qos_scheme *sc;
    double goal;
    const double *iso;       /* [QOS_ROLES] the group's IPC_isolated per role */
    hpart *seen;
    size_t nseen, cap;
    char *err;
    size_t errlen;
    const sweep_ctl *ctl;
} hctx;

static bool goal_met(double ipc, double goal, double iso) {
    return ipc >= goal * iso;   /* qos_met as the trace defines it (ISCA'17 §4.1) */
}

/* A point's verdict from a run: every QoS kernel's goal met (ISCA'17 §4.1;
 * a trio with two QoS kernels: both, the paper's "(x %, x %)" cases), and
 * the non-QoS kernels' throughput (§4.3), their mean where there are two
 * (the paper does not say how it combines them). */
static void verdict(const qos_spec *s, const run_out *r, double goal, const double *iso,
                    int *met, double *thr) {
    int ok = 1, n = 0;
    double t = 0;
    for (int x = 0; x < QOS_ROLES; x++) {
        if (!s->has[x]) continue;
        if (role_qos(x)) {
            ok &= goal_met(r->ipc[x], goal, iso[x]);
        } else {
            t += iso[x] > 0 ? r->window_ipc[x] / iso[x] : 0;
            n++;
        }
    }
    *met = ok;
    *thr = n ? t / n : 0;
}

/* Spart's run with sms[r] SMs for role r; a partition's run does not
 * depend on the goal (Spart has no quotas), so each group simulates it
 * once. NULL on failure (h->err says why). */
static const run_out *hill_run(hctx *h, const int32_t *sms) {
    for (size_t i = 0; i < h->nseen; i++)
        if (!memcmp(h->seen[i].sms, sms, sizeof h->seen[i].sms)) return &h->seen[i].out;
    if (h->ctl && h->ctl->cancel && atomic_load(h->ctl->cancel)) {
        fail(h->err, h->errlen, "sweep", "cancelled");
        return NULL;
    }
    if (h->nseen == h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 16;
        hpart *p = realloc(h->seen, cap * sizeof *p);
        if (!p) {
            fail(h->err, h->errlen, "sweep", "out of memory");
            return NULL;
        }
        h->seen = p;
        h->cap = cap;
    }
    hpart *e = &h->seen[h->nseen];
    memcpy(e->sms, sms, sizeof e->sms);
    json_t *j = build(h->w->s, h->pair, h->goal, h->sc, sms, -1);
    if (!j) {
        fail(h->err, h->errlen, "sweep", "out of memory");
        return NULL;
    }
    int rc = simulate(h->w, j, h->pair, NULL, &e->out, h->err, h->errlen);
    json_decref(j);
    if (rc) return NULL;
    h->nseen++;
    return &e->out;
}

/* Spart with m SMs for the QoS kernel of a pair (qos_hill_climb's eval) */
static int hill_eval(void *ctx, int32_t m, int *met, double *thr) {
    hctx *h = ctx;
    int32_t sms[QOS_ROLES] = {0};
    sms[R_QOS] = m;
    sms[R_OTHER] = h->w->s->sms - m;
    const run_out *r = hill_run(h, sms);
    if (!r) return -1;
    verdict(h->w->s, r, h->goal, h->iso, met, thr);
    return 0;
}

/* Spart for a trio (ISCA'17 Figs. 6b-c and 8b-c compare Rollover with it;
 * the paper says no more of its search than §2.3's "adjusting the number
 * of SMs for each kernel to achieve performance goals with hill-climbing"):
 * qos_hill_climb's search with one knob per QoS kernel. Start from the
 * even split (n / kernels each, the rest to the non-QoS kernels in order);
 * while a QoS kernel misses its goal, give the one furthest below it an SM
 * of the non-QoS kernel with the most (each keeps one); once every goal is
 * met, take SMs back from the QoS kernels in order, each to the non-QoS
 * kernel with the fewest, while the goals stay met and the non-QoS
 * throughput improves. m gets the partition. Returns -1 on failure. */
static int hill_climb_group(hctx *h, int32_t *m, int *met, double *thr) {
    const qos_spec *s = h->w->s;
    even_split(s, m);
    const run_out *r = hill_run(h, m);
    if (!r) return -1;
    int ok;
    double t;
    verdict(s, r, h->goal, h->iso, &ok, &t);
    while (!ok) {
        int worst = -1, donor = -1;
        double wr = 0;
        for (int x = 0; x < QOS_ROLES; x++) {
            if (!s->has[x]) continue;
            if (role_qos(x)) {
                double a = h->iso[x] > 0 ? r->ipc[x] / (h->goal * h->iso[x]) : 0;
                if (a < 1 && (worst < 0 || a < wr)) {
                    worst = x;
                    wr = a;
                }
            } else if (m[x] > 1 && (donor < 0 || m[x] > m[donor])) {
                donor = x;
            }
        }
        if (worst < 0 || donor < 0) break;
        m[worst]++;
        m[donor]--;
        if (!(r = hill_run(h, m))) return -1;
        verdict(s, r, h->goal, h->iso, &ok, &t);
    }
    for (bool moved = ok; moved;) {
        moved = false;
        for (int o = 0; o < QOS_ROLES && !moved; o++) {
            int x = role_order[o];
            if (!s->has[x] || !role_qos(x) || m[x] <= 1) continue;
            int to = -1;
            for (int y = 0; y < QOS_ROLES; y++)
                if (s->has[y] && !role_qos(y) && (to < 0 || m[y] < m[to])) to = y;
            int32_t c[QOS_ROLES];
            memcpy(c, m, sizeof c);
            c[x]--;
            c[to]++;
            const run_out *r2 = hill_run(h, c);
            if (!r2) return -1;
            int ok2;
            double t2;
            verdict(s, r2, h->goal, h->iso, &ok2, &t2);
            if (ok2 && t2 > t) {
                memcpy(m, c, sizeof c);
                t = t2;
                moved = true;
            }
        }
    }
    *met = ok;
    *thr = t;
    return 0;
}

typedef struct job {
    const qos_spec *s;
    const sweep_ctl *ctl;    /* progress in points, cancel (NULL: none) */
    const double *iso;       /* [nk][QOS_ROLES]: IPC_isolated per kernel in each role */
    double *isoout;          /* phase 1 writes here */
    size_t *units;           /* phase 2: (pair, scheme) units of this shard */
    size_t nunits;
    point *pts;              /* [npairs][nsch][ngoals] */
    size_t next;             /* next unit to take */
    pthread_mutex_t mu;
    int phase;
    int failed;
    char err[1024];
    uint64_t sims;
} job;

/* The attained IPC (over IPC_isolated) of the group's QoS kernels. */
static void attained(const qos_spec *s, const run_out *r, const double *iso, double *out) {
    out[0] = iso[R_QOS] > 0 ? r->ipc[R_QOS] / iso[R_QOS] : 0;
    out[1] = s->has[R_QOS2] && iso[R_QOS2] > 0 ? r->ipc[R_QOS2] / iso[R_QOS2] : 0;
}

static int do_unit(job *jb, wctx *w, size_t u, char *err, size_t errlen) {
    const qos_spec *s = jb->s;
    if (jb->phase == 1) {
        /* isolated IPC of kernel u / QOS_ROLES in role u % QOS_ROLES */
        return isolated(w, u / QOS_ROLES, (int)(u % QOS_ROLES), &jb->isoout[u], err, errlen);
    }
    size_t pair = u / s->nsch, k = u % s->nsch;
    const qos_scheme *sc = &s->sch[k];
    double iso[QOS_ROLES] = {0};
    for (int x = 0; x < QOS_ROLES; x++)
        if (s->has[x]) iso[x] = jb->iso[QOS_ROLES * (size_t)s->pair[pair][x] + (size_t)x];
    point *p = &jb->pts[(pair * s->nsch + k) * s->ngoals];
    hctx h = {.w = w, .pair = pair, .sc = sc, .iso = iso, .err = err, .errlen = errlen,
              .ctl = jb->ctl};
    int rc = 0;
    const sweep_ctl *ctl = jb->ctl;
    for (size_t g = 0; g < s->ngoals && rc == 0; g++) {
        if (ctl && ctl->done && g)
            atomic_fetch_add_explicit(ctl->done, 1, memory_order_relaxed);
        if (ctl && ctl->cancel && atomic_load(ctl->cancel)) {
            rc = fail(err, errlen, "sweep", "cancelled");
            break;
        }
        if (sc->hill) {
            h.goal = s->goal[g];
            int met;
            double thr;
            int32_t m[QOS_ROLES] = {0};
            if (s->nroles == 2) {
                m[R_QOS] = qos_hill_climb(s->sms, hill_eval, &h, &met, &thr);
                m[R_OTHER] = s->sms - m[R_QOS];
                if (m[R_QOS] < 0) rc = -1;
            } else {
                rc = hill_climb_group(&h, m, &met, &thr);
            }
            const run_out *r = rc ? NULL : hill_run(&h, m);
            if (!r) {
                rc = -1;
                break;
            }
            p[g] = (point){.met = met, .thr = thr};
            memcpy(p[g].sms, m, sizeof m);
            attained(s, r, iso, p[g].attained);
            continue;
        }
        json_t *j = build(s, pair, s->goal[g], sc, NULL, -1);
        if (!j) {
            rc = fail(err, errlen, "sweep", "out of memory");
            break;
        }
        run_out r;
        rc = simulate(w, j, pair, iso, &r, err, errlen);
        json_decref(j);
        if (rc == 0) {
            p[g] = (point){0};
            verdict(s, &r, s->goal[g], iso, &p[g].met, &p[g].thr);
            attained(s, &r, iso, p[g].attained);
        }
    }
    free(h.seen);
    if (rc == 0 && ctl && ctl->done && s->ngoals)
        atomic_fetch_add_explicit(ctl->done, 1, memory_order_relaxed);
    if (rc && ctl && ctl->cancel && atomic_load(ctl->cancel))
        return fail(err, errlen, "sweep", "cancelled");
    if (rc) {
        char full[1400], names[300] = "";
        for (int o = 0; o < QOS_ROLES; o++)
            if (s->has[role_order[o]])
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%.64s",
                         *names ? "+" : "", s->k[s->pair[pair][role_order[o]]].name);
        snprintf(full, sizeof full, "%s %s, scheme %.64s: %.1000s", s->nroles == 2 ? "pair" : "group",
                 names, sc->name, err);
        size_t n = strlen(full) < errlen ? strlen(full) : errlen - 1;
        memcpy(err, full, n);
        err[n] = '\0';
    }
    return rc;
}

static void *worker(void *arg) {
    job *jb = arg;
    wctx w = {.s = jb->s, .full = jb->s->full_runs};
    sim_ipc_cache_init(&w.cache);
    char err[1024];
    for (;;) {
        pthread_mutex_lock(&jb->mu);
        size_t i = jb->next++;
        int stop = jb->failed;
        pthread_mutex_unlock(&jb->mu);
        size_t n = jb->phase == 1 ? QOS_ROLES * jb->s->nk : jb->nunits;
        if (!stop && jb->ctl && jb->ctl->cancel && atomic_load(jb->ctl->cancel)) {
            pthread_mutex_lock(&jb->mu);
            if (!jb->failed) snprintf(jb->err, sizeof jb->err, "cancelled");
            jb->failed = 1;
            pthread_mutex_unlock(&jb->mu);
            break;
        }
        if (stop || i >= n) break;
        size_t u = jb->phase == 1 ? i : jb->units[i];
        if (do_unit(jb, &w, u, err, sizeof err)) {
            pthread_mutex_lock(&jb->mu);
            if (!jb->failed) snprintf(jb->err, sizeof jb->err, "%s", err);
            jb->failed = 1;
            pthread_mutex_unlock(&jb->mu);
            break;
        }
    }
    pthread_mutex_lock(&jb->mu);
    jb->sims += w.sims + (uint64_t)w.cache.runs;
    pthread_mutex_unlock(&jb->mu);
    sim_ipc_cache_free(&w.cache);
    return NULL;
}

static int run_phase(job *jb, int phase, int threads) {
    jb->phase = phase;
    jb->next = 0;
    pthread_t tid[256];
    int started = 0;
    for (int t = 0; t < threads; t++) {
        if (pthread_create(&tid[t], NULL, worker, jb) != 0) break;
        started++;
    }
    if (started == 0) worker(jb);
    for (int t = 0; t < started; t++) pthread_join(tid[t], NULL);
    return jb->failed ? -1 : 0;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* x as the result file writes it (10 significant digits, sweep.c): the
 * one-process run summarises the very numbers `schedlab merge` reads back
 * from the shards, so both write the same means to the last digit. */
static double sig10(double x) {
    char b[40];
    snprintf(b, sizeof b, "%.10g", x);
    return strtod(b, NULL);
}

/* The summaries of a result's points (qos_run and qos_merge): QoSreach =
 * met / all (ISCA'17 §4.1: "# of Success Cases / # of Total Cases"), and
 * the mean normalised throughput of the non-QoS kernel over the points
 * that meet their goal (§4.1: "only the cases that meet the QoS goal are
 * included"), overall and per goal. */
/* ISCA'17 Fig. 5 counts the cases History misses "by how much they miss
 * the QoS goals" (the shortfall 1 - attained / goal), "most of them ...
 * only within 5%"; the paper does not list its categories: these are
 * (0, 5 %], (5, 10 %], (10, 20 %], over 20 % (docs/qos.md). */
static const double shortfall_bins[] = {0.05, 0.10, 0.20};
#define QOS_NBINS (sizeof shortfall_bins / sizeof *shortfall_bins + 1)

static int summarise(json_t *res) {
    json_t *schemes = json_object_get(res, "schemes"), *goals = json_object_get(res, "goals");
    json_t *pts = json_object_get(res, "points");
    size_t ns = json_array_size(schemes), ng = json_array_size(goals);
    /* (a merged file's goals beyond a spec's most: not counted) */
    if (ng > QOS_MAX_GOALS) ng = QOS_MAX_GOALS;
    json_t *reach = json_object(), *reachg = json_object(), *thr = json_object(),
           *thrg = json_object(), *miss = json_object(), *over = json_object();
    for (size_t k = 0; k < ns; k++) {
        const char *sn = json_string_value(json_array_get(schemes, k));
        if (!sn) continue;
        double met = 0, all = 0, tsum = 0, osum = 0;
        double gm[QOS_MAX_GOALS] = {0}, ga[QOS_MAX_GOALS] = {0}, gt[QOS_MAX_GOALS] = {0};
        json_int_t bins[QOS_NBINS] = {0};
        size_t i;
        json_t *p;
        json_array_foreach(pts, i, p) {
            /* (a merged shard's point without a scheme counts for none) */
            const char *ps = json_string_value(json_object_get(p, "scheme"));
            if (!ps || strcmp(ps, sn)) continue;
            double goal = json_number_value(json_object_get(p, "goal"));
            size_t g = 0;
            while (g < ng && fabs(json_number_value(json_array_get(goals, g)) - goal) > 1e-9) g++;
            if (g == ng) continue;
            bool m = json_is_true(json_object_get(p, "qos_met"));
            double t = json_number_value(json_object_get(p, "throughput"));
            /* the QoS kernel's IPC over its goal's (Fig. 9: "normalized to
             * their QoS goals"); below 1 by the shortfall when missed. A
             * trio's two QoS kernels: the shortfall of the one further
             * below, the overshoot of both, averaged */
            double r = json_number_value(json_object_get(p, "attained")) / goal, os = r - 1;
            json_t *a2 = json_object_get(p, "attained2");
            if (a2) {
                double r2 = json_number_value(a2) / goal;
                os = (os + r2 - 1) / 2;
                if (r2 < r) r = r2;
            }
            all++;
            ga[g]++;
            if (m) {
                met++;
                tsum += t;
                osum += os;
                gm[g]++;
                gt[g] += t;
            } else {
                size_t b = 0;
                while (b < QOS_NBINS - 1 && 1 - r > shortfall_bins[b]) b++;
                bins[b]++;
            }
        }
        json_object_set_new(reach, sn, json_real(all > 0 ? met / all : 0));
        json_object_set_new(thr, sn, met > 0 ? json_real(tsum / met) : json_null());
        json_t *ra = json_array(), *ta = json_array();
        for (size_t g = 0; g < ng; g++) {
            json_array_append_new(ra, json_real(ga[g] > 0 ? gm[g] / ga[g] : 0));
            json_array_append_new(ta, gm[g] > 0 ? json_real(gt[g] / gm[g]) : json_null());
        }
        json_object_set_new(reachg, sn, ra);
        json_object_set_new(thrg, sn, ta);
        json_t *ma = json_array();
        for (size_t b = 0; b < QOS_NBINS; b++) json_array_append_new(ma, json_integer(bins[b]));
        json_object_set_new(miss, sn, ma);
        json_object_set_new(over, sn, met > 0 ? json_real(sig10(osum / met)) : json_null());
    }
    json_t *edges = json_array();
    for (size_t b = 0; b < QOS_NBINS - 1; b++) json_array_append_new(edges, json_real(shortfall_bins[b]));
    json_object_set_new(res, "qosreach", reach);
    json_object_set_new(res, "qosreach_by_goal", reachg);
    json_object_set_new(res, "throughput", thr);
    json_object_set_new(res, "throughput_by_goal", thrg);
    /* Fig. 5: the points each scheme misses, by shortfall: misses[s][b]
     * those whose shortfall is at most shortfall_bins[b] (and above the
     * bin before), the last bin above them all */
    json_object_set_new(res, "shortfall_bins", edges);
    json_object_set_new(res, "misses", miss);
    /* Fig. 9: how far the met points' QoS kernels overshoot their goals */
    json_object_set_new(res, "overshoot", over);
    return 0;
}

static int online_cpus(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 256 ? 256 : (int)n;
}

uint64_t qos_points(const qos_spec *s) {
    return (uint64_t)s->npairs * s->nsch * s->ngoals;
}

uint64_t qos_shard_points(const qos_spec *s, int index, int count) {
    if (count < 1 || index < 0 || (size_t)index >= s->npairs) return 0;
    /* pairs index, index + count, ... (qos_run_ctl) */
    uint64_t pairs = (s->npairs - (size_t)index + (size_t)count - 1) / (size_t)count;
    return pairs * s->nsch * s->ngoals;
}

uint64_t qos_cycles(const qos_spec *s) {
    return qos_points(s) * (uint64_t)(s->window > 0 ? s->window : 1000000);
}

int qos_run(const qos_spec *s, int index, int count, int threads, json_t **result,
            qos_stats *st, char *err, size_t errlen) {
    return qos_run_ctl(s, index, count, threads, NULL, result, st, err, errlen);
}

struct qos_reuse {
    json_t *old;             /* the earlier result (a reference) */
    int64_t from[QOS_MAX_PAIRS];   /* each group's index in it, -1: simulated again */
    uint64_t to_run, reused;   /* points simulated, points taken */
};

/* qos_run_ctl, leaving out the groups `reuse` takes from an earlier result
 * (NULL: none): their points are not in *result, the kernels alone are. */
static int run_units(const qos_spec *s, int index, int count, const qos_reuse *reuse, int threads,
                     const sweep_ctl *ctl, json_t **result, qos_stats *st, char *err,
                     size_t errlen) {
    *result = NULL;
    if (count < 1 || index < 0 || index >= count)
        return fail(err, errlen, "--shard", "expected i/n with 0 <= i < n");
    if (threads <= 0) threads = online_cpus();
    if (threads > 256) threads = 256;
    double t0 = now();
    job *jb = calloc(1, sizeof *jb);
    double *iso = calloc(QOS_ROLES * s->nk, sizeof *iso);
    size_t nall = s->npairs * s->nsch;
    size_t *units = calloc(nall ? nall : 1, sizeof *units);
    point *pts = calloc(nall * s->ngoals, sizeof *pts);
    if (!jb || !iso || !units || !pts) {
        free(jb);
        free(iso);
        free(units);
        free(pts);
        return fail(err, errlen, "sweep", "out of memory");
    }
    pthread_mutex_init(&jb->mu, NULL);
    jb->s = s;
    jb->ctl = ctl;
    jb->isoout = iso;
    jb->iso = iso;
    jb->pts = pts;
    jb->units = units;
    /* shard i of n: pairs i, i + n, ... (every scheme of a pair together:
     * Spart's partitions are shared across its goals) */
    for (size_t p = (size_t)index; p < s->npairs; p += (size_t)count)
        for (size_t k = 0; k < s->nsch && !(reuse && reuse->from[p] >= 0); k++)
            units[jb->nunits++] = p * s->nsch + k;
    if (ctl && ctl->phase) atomic_store(ctl->phase, "isolated IPC");
    int rc = run_phase(jb, 1, threads < (int)(QOS_ROLES * s->nk) ? threads : (int)(QOS_ROLES * s->nk));
    double iso_s = now() - t0;
    uint64_t iso_sims = jb->sims;
    if (ctl && ctl->phase) atomic_store(ctl->phase, "points");
    if (rc == 0) rc = run_phase(jb, 2, threads);
    if (rc) fail(err, errlen, "sweep", "%s", jb->err);
    double wall = now() - t0;
    if (st)
        *st = (qos_stats){.wall_s = wall, .points = jb->nunits * s->ngoals, .sims = jb->sims,
                          .threads = threads, .iso_s = iso_s, .iso_sims = iso_sims};
    if (rc == 0) {
        json_t *points = json_array(), *kern = json_array(), *pairs = json_array();
        /* each kernel's IPC_isolated in each role the template has: as the
         * QoS kernel, as the non-QoS one, as a trio's second */
        static const char *const iso_key[QOS_ROLES] = {"ipc_isolated", "ipc_isolated_other",
                                                       "ipc_isolated_qos2", "ipc_isolated_other2"};
        for (size_t i = 0; i < s->nk; i++) {
            json_t *o = json_pack("{s:s, s:s}", "name", s->k[i].name, "class",
                                  s->k[i].compute ? "compute" : "memory");
            for (int x = 0; x < QOS_ROLES; x++)
                if (x < 2 || s->has[x])
                    json_object_set_new(o, iso_key[x], json_real(iso[QOS_ROLES * i + (size_t)x]));
            json_array_append_new(kern, o);
        }
        /* a group's kernels by role, and its classes in role_order (Fig. 7's
         * C+M: the QoS kernel's class first; a trio's C+M+M) */
        static const char *const role_key[QOS_ROLES] = {"qos", "other", "qos2", "other2"};
        for (size_t p = 0; p < s->npairs; p++) {
            json_t *o = json_object();
            char cls[2 * QOS_ROLES] = "";
            for (int q = 0; q < QOS_ROLES; q++) {
                int x = role_order[q];
                if (!s->has[x]) continue;
                const qos_kernel *k = &s->k[s->pair[p][x]];
                json_object_set_new(o, role_key[x], json_string(k->name));
                size_t at = strlen(cls);
                if (at) cls[at++] = '+';
                cls[at++] = k->compute ? 'C' : 'M';
                cls[at] = 0;
            }
            json_object_set_new(o, "classes", json_string(cls));
            json_array_append_new(pairs, o);
        }
        for (size_t u = 0; u < jb->nunits; u++) {
            size_t pair = units[u] / s->nsch, k = units[u] % s->nsch;
            for (size_t g = 0; g < s->ngoals; g++) {
                const point *q = &pts[units[u] * s->ngoals + g];
                json_t *o = json_pack("{s:i, s:s, s:f, s:b, s:f, s:f}", "pair", (int)pair,
                                      "scheme", s->sch[k].name, "goal", s->goal[g], "qos_met",
                                      q->met, "attained", sig10(q->attained[0]), "throughput",
                                      sig10(q->thr));
                /* a trio's second QoS kernel */
                if (s->has[R_QOS2])
                    json_object_set_new(o, "attained2", json_real(sig10(q->attained[1])));
                /* Spart's partition: the QoS kernel's SMs; a trio's, every
                 * kernel's in role_order */
                if (s->sch[k].hill && s->nroles == 2)
                    json_object_set_new(o, "sms", json_integer(q->sms[R_QOS]));
                else if (s->sch[k].hill) {
                    json_t *a = json_array();
                    for (int x = 0; x < QOS_ROLES; x++)
                        if (s->has[role_order[x]])
                            json_array_append_new(a, json_integer(q->sms[role_order[x]]));
                    json_object_set_new(o, "sms", a);
                }
                json_array_append_new(points, o);
            }
        }
        json_t *schn = json_array();
        for (size_t k = 0; k < s->nsch; k++) json_array_append_new(schn, json_string(s->sch[k].name));
        *result = json_pack("{s:s, s:s, s:s, s:O, s:o, s:O, s:o, s:o, s:o}", "schema",
                            "schedlab-sweep-result/1", "kind", "qos", "name", s->name, "spec",
                            s->norm, "schemes", schn, "goals", json_object_get(s->norm, "goals"),
                            "pairs", pairs, "kernels", kern, "points", points);
        if (*result && count > 1)
            json_object_set_new(*result, "shard",
                                json_pack("{s:i, s:i, s:I}", "index", index, "count", count,
                                          "points", (json_int_t)(jb->nunits * s->ngoals)));
        if (*result) summarise(*result);
        else rc = fail(err, errlen, "sweep", "out of memory");
    }
    pthread_mutex_destroy(&jb->mu);
    free(jb);
    free(iso);
    free(units);
    free(pts);
    return rc;
}

int qos_run_ctl(const qos_spec *s, int index, int count, int threads, const sweep_ctl *ctl,
                json_t **result, qos_stats *st, char *err, size_t errlen) {
    return run_units(s, index, count, NULL, threads, ctl, result, st, err, errlen);
}

/* The cell ((group * nsch + scheme) * ngoals + goal) of a result's point,
 * or -1 when it is not a point of the sweep: its pair not one of its
 * ngroups, its scheme or goal not one of its, or its verdict and numbers
 * (qos_met, attained, throughput) missing. merge and --reuse take points
 * only so. */
static long long point_cell(json_t *pt, size_t ngroups, const char *const *sch, size_t nsch,
                            const double *goal, size_t ngoals) {
    json_t *pv = json_object_get(pt, "pair"), *gv = json_object_get(pt, "goal");
    const char *sn = json_string_value(json_object_get(pt, "scheme"));
    size_t k = 0, g = 0;
    while (sn && k < nsch && strcmp(sn, sch[k])) k++;
    while (json_is_number(gv) && g < ngoals && fabs(json_number_value(gv) - goal[g]) > 1e-9) g++;
    bool ok = json_is_integer(pv) && json_integer_value(pv) >= 0 &&
              (size_t)json_integer_value(pv) < ngroups && sn && k < nsch && json_is_number(gv) &&
              g < ngoals && json_is_boolean(json_object_get(pt, "qos_met")) &&
              json_is_number(json_object_get(pt, "attained")) &&
              json_is_number(json_object_get(pt, "throughput"));
    return ok ? ((long long)json_integer_value(pv) * (long long)nsch + (long long)k) * (long long)ngoals +
                    (long long)g
              : -1;
}

#define POINT_NOT_OURS "not a point of this sweep (pair, scheme, goal, qos_met, attained, throughput)"

static int point_cmp(const void *a, const void *b) {
    json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    long long px = json_integer_value(json_object_get(x, "pair")),
              py = json_integer_value(json_object_get(y, "pair"));
    return px < py ? -1 : px > py;   /* stable within a pair: qsort is not, see below */
}

int qos_merge(json_t *const *shards, size_t n, json_t **merged, char *err, size_t errlen) {
    return qos_merge_named(shards, NULL, n, merged, err, errlen);
}

int qos_merge_named(json_t *const *shards, const char *const *names, size_t n, json_t **merged,
                    char *err, size_t errlen) {
    *merged = NULL;
    json_t *first = shards[0];
    json_t *sh0 = json_object_get(first, "shard");
    long long count = sh0 ? json_integer_value(json_object_get(sh0, "count")) : 1;
    if (count < 1 || (size_t)count != n)
        return fail(err, errlen, "merge", "the shards say there are %lld of them, %zu given",
                    count, n);
    /* the sweep's groups, schemes and goals, which every point is one of */
    json_t *spec = json_object_get(first, "spec");
    json_t *pairs = json_object_get(spec, "pairs"), *schemes = json_object_get(spec, "schemes"),
           *goals = json_object_get(spec, "goals");
    size_t ngroups = json_array_size(pairs), nsch = json_array_size(schemes),
           ngoals = json_array_size(goals);
    if (!json_is_array(pairs) || !json_is_array(schemes) || !json_is_array(goals) || !ngroups ||
        ngroups > QOS_MAX_PAIRS || !nsch || nsch > QOS_MAX_SCHEMES || !ngoals ||
        ngoals > QOS_MAX_GOALS)
        return fail(err, errlen, names ? names[0] : "shard file 1",
                    "spec: its pairs (1-%d), schemes (1-%d) or goals (1-%d) are not a sweep's",
                    QOS_MAX_PAIRS, QOS_MAX_SCHEMES, QOS_MAX_GOALS);
    const char *sch[QOS_MAX_SCHEMES];
    double goal[QOS_MAX_GOALS];
    for (size_t k = 0; k < nsch; k++) {
        sch[k] = json_string_value(json_object_get(json_array_get(schemes, k), "name"));
        if (!sch[k])
            return fail(err, errlen, names ? names[0] : "shard file 1",
                        "spec.schemes[%zu].name: not a string", k);
    }
    for (size_t g = 0; g < ngoals; g++) {
        if (!json_is_number(json_array_get(goals, g)))
            return fail(err, errlen, names ? names[0] : "shard file 1",
                        "spec.goals[%zu]: not a number", g);
        goal[g] = json_number_value(json_array_get(goals, g));
    }
    char *spec0 = json_dumps(spec, JSON_SORT_KEYS | JSON_COMPACT);
    bool seen[256] = {false};
    size_t total = 0;
    for (size_t i = 0; i < n; i++) total += json_array_size(json_object_get(shards[i], "points"));
    json_t **all = calloc(total ? total : 1, sizeof *all);
    /* each (pair, scheme, goal) cell taken once: a second point for it is refused */
    size_t ncells = ngroups * nsch * ngoals;
    unsigned char *cell_of = calloc(ncells, 1);
    int rc = 0;
    size_t at = 0;
    if (!spec0 || !all || !cell_of || n > 256) {
        rc = fail(err, errlen, "merge", n > 256 ? "at most 256 shards" : "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n && rc == 0; i++) {
        json_t *sh = json_object_get(shards[i], "shard");
        char buf[32];
        snprintf(buf, sizeof buf, "shard file %zu", i + 1);
        const char *what = names ? names[i] : buf;
        long long idx = n == 1 && !sh ? 0 : json_integer_value(json_object_get(sh, "index"));
        if ((n > 1 && !sh) || idx < 0 || (size_t)idx >= n) {
            rc = fail(err, errlen, what, "shard: not one of %zu shards", n);
            break;
        }
        if (seen[idx]) {
            rc = fail(err, errlen, what, "shard %lld/%zu given twice", idx, n);
            break;
        }
        seen[idx] = true;
        char *text = json_dumps(json_object_get(shards[i], "spec"), JSON_SORT_KEYS | JSON_COMPACT);
        bool same = text && strcmp(text, spec0) == 0;
        free(text);
        if (!same) {
            if (names)
                rc = fail(err, errlen, what, "spec: differs from %s's (another sweep)", names[0]);
            else
                rc = fail(err, errlen, what, "spec: differs from shard file 1's (another sweep)");
            break;
        }
        size_t k;
        json_t *p;
        json_array_foreach(json_object_get(shards[i], "points"), k, p) {
            long long c = point_cell(p, ngroups, sch, nsch, goal, ngoals);
            long long pair = c < 0 ? 0 : json_integer_value(json_object_get(p, "pair"));
            if (c < 0)
                rc = fail(err, errlen, what, "points[%zu]: " POINT_NOT_OURS, k);
            else if (pair % (long long)n != idx)   /* shard i holds pairs i, i + n, ... */
                rc = fail(err, errlen, what, "points[%zu]: pair %lld is shard %lld/%zu's, not "
                          "this one's (%lld/%zu)", k, pair, pair % (long long)n, n, idx, n);
            else if (cell_of[c]++)
                rc = fail(err, errlen, what, "points[%zu]: its pair, scheme and goal a second time",
                          k);
            if (rc) break;
            all[at++] = p;
        }
    }
    if (rc == 0) {
        if (at != ncells) {
            rc = fail(err, errlen, "merge", "the shards cover %zu of %zu points", at, ncells);
            goto done;
        }
        /* the one-process order: by pair, and within a pair as each shard
         * wrote it (a shard holds whole pairs); insertion sort keeps it */
        for (size_t i = 1; i < at; i++)
            for (size_t j = i; j > 0 && point_cmp(&all[j - 1], &all[j]) > 0; j--) {
                json_t *t = all[j];
                all[j] = all[j - 1];
                all[j - 1] = t;
            }
        json_t *out = json_deep_copy(first);
        json_object_del(out, "shard");
        json_t *pts = json_array();
        for (size_t i = 0; i < at; i++) json_array_append(pts, all[i]);
        json_object_set_new(out, "points", pts);
        summarise(out);
        *merged = out;
    }
done:
    free(cell_of);
    free(all);
    free(spec0);
    return rc;
}

/* ---- --reuse: an earlier result's points for the groups that did not change ---- */

/* The spec keys a point does not depend on (what the experiment is called,
 * the paper's numbers drawn beside it) and the two reuse compares itself:
 * the groups and the kernels, one by one. */
static bool reuse_free_key(const char *k) {
    return !strcmp(k, "name") || !strcmp(k, "description") || !strcmp(k, "reference") ||
           !strcmp(k, "pairs") || !strcmp(k, "kernels");
}

/* A kernel of the earlier spec by name, NULL when it had none. */
static json_t *old_kernel(json_t *ospec, const char *name) {
    size_t i;
    json_t *k;
    json_array_foreach(json_object_get(ospec, "kernels"), i, k)
        if (json_is_string(json_object_get(k, "name")) &&
            !strcmp(json_string_value(json_object_get(k, "name")), name))
            return k;
    return NULL;
}

int qos_reuse_plan(const qos_spec *s, json_t *old, const char *oldname, qos_reuse **out,
                   char *err, size_t errlen) {
    *out = NULL;
    json_t *ospec = json_object_get(old, "spec");
    json_t *opairs = json_object_get(ospec, "pairs"), *opts = json_object_get(old, "points");
    const char *schema = json_string_value(json_object_get(old, "schema"));
    const char *kind = json_string_value(json_object_get(old, "kind"));
    if (!json_is_object(old) || !schema || strcmp(schema, "schedlab-sweep-result/1"))
        return fail(err, errlen, oldname, "schema: not a sweep result (schedlab-sweep-result/1)");
    if (!kind || strcmp(kind, "qos"))
        return fail(err, errlen, oldname, "kind: not a QoS sweep's result");
    if (json_object_get(old, "shard"))
        return fail(err, errlen, oldname, "shard: one shard's result, not the whole sweep's "
                    "(merge the shards first)");
    if (!json_is_object(ospec) || !json_is_array(opairs) ||
        !json_is_array(json_object_get(ospec, "kernels")) || !json_is_array(opts))
        return fail(err, errlen, oldname, "spec, pairs, kernels or points: missing");
    /* what every point depends on but its group: the same, or nothing is
     * reusable (another template, scheme, goal or repeat is another sweep) */
    const char *key;
    json_t *v;
    json_object_foreach(s->norm, key, v)
        if (!reuse_free_key(key) && !json_equal(v, json_object_get(ospec, key)))
            return fail(err, errlen, oldname, "spec: its %s is not this sweep's (nothing of it "
                        "can be reused)", key);
    json_object_foreach(ospec, key, v)
        if (!reuse_free_key(key) && !json_object_get(s->norm, key))
            return fail(err, errlen, oldname, "spec: has %s, which this sweep has not (nothing "
                        "of it can be reused)", key);
    size_t nold = json_array_size(opairs);
    if (json_array_size(opts) != nold * s->nsch * s->ngoals)
        return fail(err, errlen, oldname, "points: %zu, where its %zu groups x %zu schemes x "
                    "%zu goals are %zu (not a whole result)", json_array_size(opts), nold,
                    s->nsch, s->ngoals, nold * s->nsch * s->ngoals);
    if (nold > QOS_MAX_PAIRS)
        return fail(err, errlen, oldname, "spec.pairs: more than %d groups", QOS_MAX_PAIRS);
    /* every point once, a (group, scheme, goal) of the sweep with its
     * numbers: what is taken goes into the result as it is */
    unsigned char *seen = calloc(nold * s->nsch * s->ngoals + 1, 1);
    if (!seen) return fail(err, errlen, "sweep", "out of memory");
    size_t at;
    json_t *pt;
    const char *sch[QOS_MAX_SCHEMES];
    for (size_t k = 0; k < s->nsch; k++) sch[k] = s->sch[k].name;
    json_array_foreach(opts, at, pt) {
        long long c = point_cell(pt, nold, sch, s->nsch, s->goal, s->ngoals);
        if (c < 0 || seen[c]++) {
            free(seen);
            return fail(err, errlen, oldname, "points[%zu]: %s", at,
                        c >= 0 ? "its group, scheme and goal a second time" : POINT_NOT_OURS);
        }
    }
    free(seen);
    qos_reuse *r = calloc(1, sizeof *r);
    if (!r) return fail(err, errlen, "sweep", "out of memory");
    json_t *kn = json_object_get(s->norm, "kernels");
    bool same[QOS_MAX_KERNELS];
    for (size_t i = 0; i < s->nk; i++) {
        json_t *o = old_kernel(ospec, s->k[i].name);
        same[i] = o && json_equal(o, json_array_get(kn, i));
    }
    json_t *npairs = json_object_get(s->norm, "pairs");
    for (size_t p = 0; p < s->npairs; p++) {
        r->from[p] = -1;
        bool unchanged = true;
        for (int x = 0; x < QOS_ROLES; x++)
            if (s->has[x]) unchanged = unchanged && same[s->pair[p][x]];
        for (size_t q = 0; unchanged && q < nold && r->from[p] < 0; q++)
            if (json_equal(json_array_get(opairs, q), json_array_get(npairs, p)))
                r->from[p] = (int64_t)q;
        if (r->from[p] >= 0) r->reused += s->nsch * s->ngoals;
        else r->to_run += s->nsch * s->ngoals;
    }
    r->old = json_incref(old);
    *out = r;
    return 0;
}

uint64_t qos_reuse_to_run(const qos_reuse *r) { return r->to_run; }
uint64_t qos_reuse_reused(const qos_reuse *r) { return r->reused; }

void qos_reuse_free(qos_reuse *r) {
    if (!r) return;
    json_decref(r->old);
    free(r);
}

/* The points of `pts` by group: order[] lists their indices grouped by
 * "pair" (0..ngroups-1, each group's in file order), group g's from
 * start[g] to start[g + 1]; the caller frees both. -1: out of memory. */
static int by_group(json_t *pts, size_t ngroups, size_t **order, size_t **start) {
    size_t n = json_array_size(pts);
    *order = calloc(n + 1, sizeof **order);
    *start = calloc(ngroups + 2, sizeof **start);
    if (!*order || !*start) return -1;
    size_t i;
    json_t *pt;
    json_array_foreach(pts, i, pt) (*start)[json_integer_value(json_object_get(pt, "pair")) + 2]++;
    for (size_t g = 2; g < ngroups + 2; g++) (*start)[g] += (*start)[g - 1];
    json_array_foreach(pts, i, pt) (*order)[(*start)[json_integer_value(json_object_get(pt, "pair")) + 1]++] = i;
    return 0;
}

/* The whole result: the run of the changed groups (sub: every kernel alone
 * and those groups' points) with the earlier result's points of the others,
 * in the order a whole run writes them, and summarised again. The points'
 * groups are in range: the earlier result's checked by qos_reuse_plan, the
 * run's its own. */
static int reuse_join(const qos_spec *s, const qos_reuse *r, json_t *sub) {
    json_t *opts = json_object_get(r->old, "points"), *spts = json_object_get(sub, "points");
    size_t nold = json_array_size(json_object_get(json_object_get(r->old, "spec"), "pairs"));
    size_t *oo = NULL, *os = NULL, *so = NULL, *ss = NULL;
    json_t *points = json_array();
    int rc = !points || by_group(opts, nold, &oo, &os) || by_group(spts, s->npairs, &so, &ss);
    for (size_t p = 0; p < s->npairs && !rc; p++) {
        bool again = r->from[p] < 0;
        size_t g = again ? p : (size_t)r->from[p];
        const size_t *order = again ? so : oo, *start = again ? ss : os;
        for (size_t k = start[g]; k < start[g + 1] && !rc; k++) {
            json_t *c = json_deep_copy(json_array_get(again ? spts : opts, order[k]));
            rc = !c || json_object_set_new(c, "pair", json_integer((json_int_t)p)) ||
                 json_array_append_new(points, c);
        }
    }
    free(oo);
    free(os);
    free(so);
    free(ss);
    if (rc || json_object_set_new(sub, "points", points)) {
        if (rc) json_decref(points);
        return -1;
    }
    return summarise(sub);
}

int qos_run_reuse(const qos_spec *s, const qos_reuse *r, int threads,
                  const struct sweep_ctl *ctl, json_t **result, qos_stats *st, char *err,
                  size_t errlen) {
    /* every kernel alone again (seconds: two simulations a kernel and
     * role), then the changed groups' points */
    if (run_units(s, 0, 1, r, threads, ctl, result, st, err, errlen)) return -1;
    if (reuse_join(s, r, *result)) {
        json_decref(*result);
        *result = NULL;
        return fail(err, errlen, "sweep", "out of memory");
    }
    return 0;
}
