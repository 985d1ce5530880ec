/* schedlab_trace.c -- schedlab's own trace JSON, schedlab-trace/1, as
 * `schedlab export` and `simulate -o` write it (DESIGN §5;
 * docs/trace-format.md; the writer is server/formats/trace_json.c). The
 * file is the trace model itself: it is read as written -- not re-based,
 * no "origin_ns", "format" or "files" meta added (as_written) -- so a
 * trace exported and imported again is the same run. See
 * schedlab_trace.h. */
#include "schedlab_trace.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive.h"
#include "formats.h"
#include "trace_check.h"

#define TRACE_SCHEMA "schedlab-trace/1"

/* a JSON object naming "schedlab-trace/1" near its top */
static bool detect(const imp_file *f) {
    bool schema;
    return imp_archive_detect(f->data, f->len) == IMP_ARCHIVE_NONE &&
           imp_sniff_json_object(f->data, f->len, &schema) && schema;
}

/* ---- parsing ---------------------------------------------------------------------- */

/* Traces are machine-written: what is absent or null reads as unknown, and
 * a key a record does not have is passed over (a newer writer may add
 * some) and said in the import's warnings, once per array and key with how
 * many records had it and the first (importers.h, imp_warn): a misspelt
 * "frist_block" is then not silently an unknown first block. */
#define UNKNOWN_KEYS_TALLIED 16
typedef struct unknown_key {
    const char *array;       /* the record array's name: a static string */
    char key[48];            /* cut to fit; a cut key still tallies alone */
    size_t first, count;     /* the first record that had it, and how many */
} unknown_key;

typedef struct pctx {
    jr_ctx jr;
    trace *t;
    imp_ctx *cx;             /* progress and cancellation (may be NULL) */
    unknown_key unknown[UNKNOWN_KEYS_TALLIED];
    size_t nunknown;
    size_t unknown_untallied; /* records with keys past the tally's room */
} pctx;

/* "FILE: where[i].field: what"; i == (size_t)-1 leaves out the index. */
static int perr(pctx *p, const char *where, size_t i, const char *field, const char *what) {
    char a[JR_PATH_MAX], b[JR_PATH_MAX];
    const char *path = i == (size_t)-1 ? where : jr_index(a, where, i);
    if (field) path = jr_join(b, path, field);
    jr_fail(&p->jr, path, "%s", what);
    return -1;
}

/* Integer field: absent or null gives `unknown`. */
static int get_int(pctx *p, json_t *o, const char *where, size_t i, const char *field,
                   int64_t unknown, int64_t lo, int64_t hi, int64_t *out) {
    json_t *v = jr_opt(o, field);
    if (!v) { *out = unknown; return 0; }
    if (!json_is_integer(v)) return perr(p, where, i, field, "expected an integer or null");
    json_int_t x = json_integer_value(v);
    if (x < lo || x > hi) return perr(p, where, i, field, "out of range");
    *out = (int64_t)x;
    return 0;
}

static int get_i32(pctx *p, json_t *o, const char *where, size_t i, const char *field,
                   int32_t unknown, int32_t *out) {
    int64_t v = 0;
    if (get_int(p, o, where, i, field, unknown, INT32_MIN, INT32_MAX, &v)) return -1;
    *out = (int32_t)v;
    return 0;
}

static int get_time(pctx *p, json_t *o, const char *where, size_t i, const char *field,
                    int64_t *out) {
    return get_int(p, o, where, i, field, TRACE_NONE, INT64_MIN + 1, INT64_MAX, out);
}

static int get_str(pctx *p, json_t *o, const char *where, size_t i, const char *field,
                   trace_str *out) {
    json_t *v = jr_opt(o, field);
    if (!v) { *out = 0; return 0; }
    if (!json_is_string(v)) return perr(p, where, i, field, "expected a string or null");
    *out = trace_intern_n(p->t, json_string_value(v), json_string_length(v));
    return 0;
}

static int get_dim3(pctx *p, json_t *o, const char *where, size_t i, const char *field,
                    int32_t out[3]) {
    json_t *v = jr_opt(o, field);
    out[0] = out[1] = out[2] = 0;
    if (!v) return 0;
    if (!json_is_array(v) || json_array_size(v) != 3)
        return perr(p, where, i, field, "expected an array of 3 integers");
    for (size_t j = 0; j < 3; j++) {
        json_t *x = json_array_get(v, j);
        if (!json_is_integer(x) || json_integer_value(x) < 0 ||
            json_integer_value(x) > INT32_MAX)
            return perr(p, where, i, field, "expected an array of 3 non-negative integers");
        out[j] = (int32_t)json_integer_value(x);
    }
    return 0;
}

static json_t *get_array(pctx *p, json_t *root, const char *name, int *bad) {
    json_t *a = jr_opt(root, name);
    *bad = 0;
    if (!a) return NULL;
    if (!json_is_array(a)) { *bad = perr(p, name, (size_t)-1, NULL, "expected an array"); return NULL; }
    return a;
}

/* A priority: an integer, or "none" (or absent, or null) for none. */
static int get_prio(pctx *p, json_t *o, const char *where, size_t i, const char *field,
                    int32_t *out) {
    json_t *pr = jr_opt(o, field);
    if (!pr || (json_is_string(pr) && strcmp(json_string_value(pr), "none") == 0))
        *out = TRACE_PRIO_NONE;
    else if (json_is_integer(pr) && json_integer_value(pr) > INT32_MIN &&
             json_integer_value(pr) <= INT32_MAX)
        *out = (int32_t)json_integer_value(pr);
    else
        return perr(p, where, i, field, "expected an integer or \"none\"");
    return 0;
}

/* A copy direction by its name (absent or null: the record's default). */
static int get_dir(pctx *p, json_t *o, const char *where, size_t i, const char *field,
                   int32_t *out) {
    json_t *d = jr_opt(o, field);
    if (!d) return 0;
    int dir = json_is_string(d) ? trace_copy_dir_parse(json_string_value(d)) : -1;
    if (dir < 0)
        return perr(p, where, i, field,
                    "expected \"h2d\", \"d2h\", \"d2d\", \"h2h\", \"p2p\", \"memset\", "
                    "\"other\", \"uvm_h2d\", \"uvm_d2h\" or \"uvm_d2d\"");
    *out = dir;
    return 0;
}

/* A non-negative number, or with fraction one in (0, 1] (a QoS goal,
 * ISCA'17); absent or null: the record's default. */
static int get_f64(pctx *p, json_t *o, const char *where, size_t i, const char *field,
                   bool fraction, double *out) {
    json_t *x = jr_opt(o, field);
    if (!x) return 0;
    if (!json_is_number(x) || !(json_number_value(x) >= 0) ||
        (fraction && !(json_number_value(x) > 0 && json_number_value(x) <= 1)))
        return perr(p, where, i, field, fraction ? "expected a number in (0, 1]"
                                                 : "expected a non-negative number");
    *out = json_number_value(x);
    return 0;
}

static int get_bool(pctx *p, json_t *o, const char *where, size_t i, const char *field,
                    bool *out) {
    json_t *x = jr_opt(o, field);
    if (!x) return 0;
    if (!json_is_boolean(x)) return perr(p, where, i, field, "expected true or false");
    *out = json_is_true(x);
    return 0;
}

/* One field of record r from object o by its jkind (simcore/trace_fields.h;
 * the writer is trace_json.c's TJ_FIELD): nonzero when it is not one. A
 * count is read as an int32 (an int32 member: the range check, trace_check.c,
 * refuses a negative one) or as a non-negative int64. */
#define TJ_GET(col, member, kind, check, json, jkind, when, sort) \
    if (TJG_##jkind(p, o, w, i, #json, &r->member, kind)) return -1;
#define TJG_TJ_STR(p, o, w, i, k, out, kind) get_str(p, o, w, i, k, out)
#define TJG_TJ_PRIO(p, o, w, i, k, out, kind) get_prio(p, o, w, i, k, out)
#define TJG_TJ_TIME(p, o, w, i, k, out, kind) get_time(p, o, w, i, k, out)
#define TJG_TJ_SIZE(p, o, w, i, k, out, kind) \
    get_int(p, o, w, i, k, TRACE_NONE, 0, INT64_MAX, out)
#define TJG_TJ_COUNT(p, o, w, i, k, out, kind) TJG_COUNT_##kind(p, o, w, i, k, out)
#define TJG_COUNT_TF_I32(p, o, w, i, k, out) get_i32(p, o, w, i, k, 0, out)
#define TJG_COUNT_TF_I64(p, o, w, i, k, out) get_int(p, o, w, i, k, 0, 0, INT64_MAX, out)
#define TJG_TJ_INT(p, o, w, i, k, out, kind) get_i32(p, o, w, i, k, -1, out)
#define TJG_TJ_INDEX(p, o, w, i, k, out, kind) get_i32(p, o, w, i, k, -1, out)
#define TJG_TJ_DIR(p, o, w, i, k, out, kind) get_dir(p, o, w, i, k, out)
#define TJG_TJ_DIM3(p, o, w, i, k, out, kind) get_dim3(p, o, w, i, k, out)
#define TJG_TJ_DIM3_REST(p, o, w, i, k, out, kind) 0
#define TJG_TJ_F64(p, o, w, i, k, out, kind) get_f64(p, o, w, i, k, false, out)
#define TJG_TJ_FRACTION(p, o, w, i, k, out, kind) get_f64(p, o, w, i, k, true, out)
#define TJG_TJ_BOOL(p, o, w, i, k, out, kind) get_bool(p, o, w, i, k, out)
#define TJG_TJ_DEVICE(p, o, w, i, k, out, kind) get_i32(p, o, w, i, k, 0, out)

/* A reference the reader checks as it reads (the list's check): a block's
 * kernel is one read before it. */
#define TJ_REF(col, member, kind, check, json, ...) TJR_##check(#json, r->member)
#define TJR_TF_CK_NONE(k, v)
#define TJR_TF_CK_TIME(k, v)
#define TJR_TF_CK_COUNT(k, v)
#define TJR_TF_CK_SM(k, v)
#define TJR_TF_CK_DEVICE(k, v)   /* against the devices, read last (trace_check.c) */
#define TJR_TF_CK_KERNEL(k, v)                            \
    if ((v) < 0 || (size_t)(v) >= p->t->kernels.n)        \
        return perr(p, w, i, k, "not the id of a kernel in this trace");

/* A kernel's or copy's "id" is its place in its array, as the writer
 * writes it: blocks name their kernel by that place, so an id that is not
 * it (an edited file, kernels reordered) would tie blocks to the wrong
 * kernels without a word. Absent or null: the place. */
/* The keys each record has (docs/trace-format.md), those of
 * trace_fields.h's lists by their JSON names (a dim3's three fields are one
 * key, listed thrice: harmless) and the ones the writer adds around them. */
#define TJ_KEY(col, member, kind, check, json, ...) #json,
static const char *const kernel_keys[] = { "id", TRACE_KERNEL_FIELDS(TJ_KEY, TF_NOSEP) NULL };
static const char *const copy_keys[] = { "id", TRACE_COPY_FIELDS(TJ_KEY, TF_NOSEP) NULL };
static const char *const block_keys[] = { TRACE_BLOCK_FIELDS(TJ_KEY, TF_NOSEP) "device", NULL };
#undef TJ_KEY
static const char *const pause_keys[] = { "block", "start", "end", NULL };
static const char *const cohort_keys[] = { "kernel", "sm", "index", "stride", "count", "per_wave",
                                           "start", "end", "period", "device", NULL };
static const char *const qevent_keys[] = { "t", "queue", "event", "item", NULL };
static const char *const warp_keys[] = { "sm", "subcore", "cycle", "warp", "kernel", NULL };
static const char *const wepoch_keys[] = { "kernel", "cycle", "cycles", "issues", NULL };
static const char *const job_keys[] = { "task", "job", "release", "start", "end", "deadline", NULL };
static const char *const host_call_keys[] = { "kernel", "copy", "sync", "stream", "process",
                                              "scope", "at", "issue", "end", "task", "blocking",
                                              NULL };

static void tally_unknown(pctx *p, const char *w, size_t i, const char *key) {
    for (size_t u = 0; u < p->nunknown; u++)
        if (strcmp(p->unknown[u].array, w) == 0 &&
            strncmp(p->unknown[u].key, key, sizeof p->unknown[u].key - 1) == 0) {
            p->unknown[u].count++;
            return;
        }
    if (p->nunknown == UNKNOWN_KEYS_TALLIED) {
        p->unknown_untallied++;
        return;
    }
    unknown_key *u = &p->unknown[p->nunknown++];
    u->array = w;
    snprintf(u->key, sizeof u->key, "%s", key);
    u->first = i;
    u->count = 1;
}

/* Each key of record o (of array w, place i) that `known` lacks, tallied. */
static void note_unknown_keys(pctx *p, json_t *o, const char *w, size_t i,
                              const char *const *known) {
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v) {
        const char *const *n = known;
        while (*n && strcmp(*n, k) != 0) n++;
        if (!*n) tally_unknown(p, w, i, k);
    }
}

/* The tally as warnings, after a whole read. */
static int say_unknown_keys(pctx *p) {
    for (size_t u = 0; u < p->nunknown; u++) {
        const unknown_key *x = &p->unknown[u];
        char first[JR_PATH_MAX];
        if (imp_warn(p->t, p->jr.file, "%s.%s: not a key schedlab-trace/1 has (docs/trace-format.md), "
                     "passed over in %zu record%s, the first %s", x->array, x->key, x->count,
                     x->count == 1 ? "" : "s", jr_index(first, x->array, x->first)) < 0)
            return -1;
    }
    if (p->unknown_untallied &&
        imp_warn(p->t, p->jr.file, "%zu more unknown keys passed over in records (only the "
                 "first %d keys are named)", p->unknown_untallied, UNKNOWN_KEYS_TALLIED) < 0)
        return -1;
    return 0;
}

static int check_id(pctx *p, json_t *o, const char *w, size_t i) {
    json_t *id = jr_opt(o, "id");
    if (!id || (json_is_integer(id) && json_integer_value(id) >= 0 &&
                (uint64_t)json_integer_value(id) == (uint64_t)i))
        return 0;
    char what[128];
    if (json_is_integer(id))
        snprintf(what, sizeof what, "%" JSON_INTEGER_FORMAT " is not the record's place in "
                 "\"%s\" (%zu); records are listed by id", json_integer_value(id), w, i);
    else
        snprintf(what, sizeof what, "expected %zu (the record's place in \"%s\") or null", i, w);
    return perr(p, w, i, "id", what);
}

static int parse_kernel(pctx *p, json_t *o, size_t i) {
    const char *w = "kernels";
    if (!json_is_object(o)) return perr(p, w, i, NULL, "expected an object");
    note_unknown_keys(p, o, w, i, kernel_keys);
    if (check_id(p, o, w, i)) return -1;
    trace_kernel *k = trace_add_kernel(p->t);
    if (!k) return perr(p, w, i, NULL, "out of memory");
    trace_kernel v = *k, *r = &v;
    TRACE_KERNEL_FIELDS(TJ_GET, TF_NOSEP)
    *k = v;
    return 0;
}

/* A block's or a cohort's "device" (DESIGN §5: on every block of a trace of
 * several GPUs) is its kernel's: absent (or null), or the same; any other
 * value, -1 included, is refused. A kernel whose own index is no GPU
 * (negative) is named at the kernel by the range check (trace_check.c),
 * not here at its first block. */
static int same_device(pctx *p, json_t *o, const char *w, size_t i, int32_t kernel) {
    if (!jr_opt(o, "device")) return 0;
    int32_t dev, own = p->t->kernels.v[kernel].device;
    if (get_i32(p, o, w, i, "device", 0, &dev)) return -1;
    if (own < 0 || dev == own) return 0;
    char what[96];
    snprintf(what, sizeof what, "%d is not its kernel's device (%d)", (int)dev, (int)own);
    return perr(p, w, i, "device", what);
}

static int parse_block(pctx *p, json_t *o, size_t i) {
    const char *w = "blocks";
    if (!json_is_object(o)) return perr(p, w, i, NULL, "expected an object");
    note_unknown_keys(p, o, w, i, block_keys);
    trace_block *r = trace_add_block(p->t);
    if (!r) return perr(p, w, i, NULL, "out of memory");
    TRACE_BLOCK_FIELDS(TJ_GET, TF_NOSEP)
    TRACE_BLOCK_FIELDS(TJ_REF, TF_NOSEP)
    return same_device(p, o, w, i, r->kernel);
}

/* A preempted block's pause (trace.h): the block it belongs to is one of
 * this trace's, and the interval lies within that block's span. */
static int parse_pause(pctx *p, json_t *o, size_t i) {
    const char *w = "pauses";
    if (!json_is_object(o)) return perr(p, w, i, NULL, "expected an object");
    note_unknown_keys(p, o, w, i, pause_keys);
    int64_t blk = 0, s = 0, e = 0;
    if (get_int(p, o, w, i, "block", -1, 0, INT64_MAX, &blk) || get_time(p, o, w, i, "start", &s) ||
        get_time(p, o, w, i, "end", &e))
        return -1;
    if (blk < 0 || (size_t)blk >= p->t->blocks.n)
        return perr(p, w, i, "block", "not the index of a block in this trace");
    if (s == TRACE_NONE || e == TRACE_NONE) return perr(p, w, i, s == TRACE_NONE ? "start" : "end",
                                                          "missing: a pause has a start and an end");
    if (e < s) return perr(p, w, i, "end", "before its start");
    const trace_block *b = &p->t->blocks.v[blk];
    if ((b->start != TRACE_NONE && s < b->start) || (b->end != TRACE_NONE && e > b->end))
        return perr(p, w, i, NULL, "outside its block's start..end");
    if (!trace_add_pause(p->t, blk, s, e)) return perr(p, w, i, NULL, "out of memory");
    return 0;
}

/* A cohort (trace.h; issue 28): its kernel is one of this trace's, its
 * numbers those a cohort run writes. */
static int parse_cohort(pctx *p, json_t *o, size_t i) {
    const char *w = "cohorts";
    if (!json_is_object(o)) return perr(p, w, i, NULL, "expected an object");
    note_unknown_keys(p, o, w, i, cohort_keys);
    trace_cohort v;
    if (get_i32(p, o, w, i, "kernel", -1, &v.kernel) || get_i32(p, o, w, i, "sm", -1, &v.sm) ||
        get_i32(p, o, w, i, "index", -1, &v.index) ||
        get_i32(p, o, w, i, "stride", -1, &v.stride) ||
        get_int(p, o, w, i, "count", 0, 0, INT64_MAX, &v.count) ||
        get_int(p, o, w, i, "per_wave", 0, 0, INT64_MAX, &v.per_wave) ||
        get_time(p, o, w, i, "start", &v.start) || get_time(p, o, w, i, "end", &v.end) ||
        get_int(p, o, w, i, "period", 0, 0, INT64_MAX, &v.period))
        return -1;
    if (v.kernel < 0 || (size_t)v.kernel >= p->t->kernels.n)
        return perr(p, w, i, "kernel", "not the id of a kernel in this trace");
    if (same_device(p, o, w, i, v.kernel)) return -1;
    if (v.count < 1) return perr(p, w, i, "count", "a cohort has at least one block");
    if (v.per_wave < 1 || v.per_wave > v.count)
        return perr(p, w, i, "per_wave", "outside 1..count");
    if (v.start == TRACE_NONE || v.end == TRACE_NONE || v.end < v.start)
        return perr(p, w, i, "end", "a cohort has a start and an end, not before it");
    if (v.index < 0 || v.stride < 0 || (double)v.index + (double)(v.count - 1) * v.stride > INT32_MAX)
        return perr(p, w, i, "stride", "its blocks' indices leave 0..2147483647");
    if ((double)v.end + (double)((v.count - 1) / v.per_wave) * (double)v.period > 1e18)
        return perr(p, w, i, "period", "its last wave ends past the time limit");
    trace_cohort *c = trace_add_cohort(p->t);
    if (!c) return perr(p, w, i, NULL, "out of memory");
    *c = v;
    return 0;
}

static int parse_copy(pctx *p, json_t *o, size_t i) {
    const char *w = "copies";
    if (!json_is_object(o)) return perr(p, w, i, NULL, "expected an object");
    note_unknown_keys(p, o, w, i, copy_keys);
    if (check_id(p, o, w, i)) return -1;
    trace_copy *c = trace_add_copy(p->t);
    if (!c) return perr(p, w, i, NULL, "out of memory");
    trace_copy v = *c, *r = &v;
    TRACE_COPY_FIELDS(TJ_GET, TF_NOSEP)
    *c = v;
    return 0;
}

static int parse_qevent(pctx *p, json_t *o, size_t i) {
    const char *w = "queue_events";
    if (!json_is_object(o)) return perr(p, w, i, NULL, "expected an object");
    note_unknown_keys(p, o, w, i, qevent_keys);
    int64_t t = 0;
    trace_str q = 0, item = 0;
    if (get_int(p, o, w, i, "t", TRACE_NONE, INT64_MIN + 1, INT64_MAX, &t) ||
        get_str(p, o, w, i, "queue", &q) || get_str(p, o, w, i, "item", &item))
        return -1;
    if (t == TRACE_NONE) return perr(p, w, i, "t", "missing: every queue event has a time");
    if (!q) return perr(p, w, i, "queue", "missing: expected a queue name");
    json_t *e = json_object_get(o, "event");
    const char *es = json_is_string(e) ? json_string_value(e) : "";
    trace_queue_op op;
    if (strcmp(es, "enqueue") == 0) op = TRACE_ENQUEUE;
    else if (strcmp(es, "dequeue") == 0) op = TRACE_DEQUEUE;
    else return perr(p, w, i, "event", "expected \"enqueue\" or \"dequeue\"");
    if (!trace_add_queue_event(p->t, t, q, item, op)) return perr(p, w, i, NULL, "out of memory");
    return 0;
}

static int parse_warp(pctx *p, json_t *o, size_t i) {
    const char *w = "warp_issues";
    if (!json_is_object(o)) return perr(p, w, i, NULL, "expected an object");
    note_unknown_keys(p, o, w, i, warp_keys);
    trace_warp_issue v;
    if (get_i32(p, o, w, i, "sm", 0, &v.sm) || get_i32(p, o, w, i, "subcore", 0, &v.subcore) ||
        get_i32(p, o, w, i, "warp", 0, &v.warp) || get_i32(p, o, w, i, "kernel", 0, &v.kernel) ||
        get_int(p, o, w, i, "cycle", 0, INT64_MIN + 1, INT64_MAX, &v.cycle))
        return -1;
    trace_warp_issue *x = trace_add_warp_issue(p->t);
    if (!x) return perr(p, w, i, NULL, "out of memory");
    *x = v;
    return 0;
}

static int parse_wepoch(pctx *p, json_t *o, size_t i) {
    const char *w = "warp_epochs";
    if (!json_is_object(o)) return perr(p, w, i, NULL, "expected an object");
    note_unknown_keys(p, o, w, i, wepoch_keys);
    trace_warp_epoch v;
    memset(&v, 0, sizeof v);
    if (get_i32(p, o, w, i, "kernel", 0, &v.kernel) ||
        get_int(p, o, w, i, "cycle", 0, 0, INT64_MAX, &v.cycle) ||
        get_int(p, o, w, i, "cycles", 0, 0, INT64_MAX, &v.cycles) ||
        get_int(p, o, w, i, "issues", 0, 0, INT64_MAX, &v.issues))
        return -1;
    trace_warp_epoch *x = trace_add_warp_epoch(p->t);
    if (!x) return perr(p, w, i, NULL, "out of memory");
    *x = v;
    return 0;
}

static int parse_job(pctx *p, json_t *o, size_t i) {
    const char *w = "jobs";
    if (!json_is_object(o)) return perr(p, w, i, NULL, "expected an object");
    note_unknown_keys(p, o, w, i, job_keys);
    trace_job *j = trace_add_job(p->t);
    if (!j) return perr(p, w, i, NULL, "out of memory");
    trace_job v = *j;
    if (get_str(p, o, w, i, "task", &v.task) ||
        get_int(p, o, w, i, "job", 0, INT64_MIN + 1, INT64_MAX, &v.job) ||
        get_time(p, o, w, i, "release", &v.release) || get_time(p, o, w, i, "start", &v.start) ||
        get_time(p, o, w, i, "end", &v.end) || get_time(p, o, w, i, "deadline", &v.deadline))
        return -1;
    p->t->jobs.v[i] = v;
    return 0;
}

/* One of the host's calls (trace.h's trace_host_call): a kernel or a copy of
 * this trace by its index, or a sync by its name, stream and process. */
static int parse_host_call(pctx *p, json_t *o, size_t i) {
    const char *w = "host_calls";
    if (!json_is_object(o)) return perr(p, w, i, NULL, "expected an object");
    note_unknown_keys(p, o, w, i, host_call_keys);
    trace_host_call v;
    memset(&v, 0, sizeof v);
    v.record = -1;
    json_t *kj = jr_opt(o, "kernel"), *cj = jr_opt(o, "copy"), *sj = jr_opt(o, "sync");
    if ((kj != NULL) + (cj != NULL) + (sj != NULL) != 1)
        return perr(p, w, i, NULL, "expected one of \"kernel\", \"copy\" (a record's id) and "
                                   "\"sync\" (its name)");
    if (kj || cj) {
        const char *f = kj ? "kernel" : "copy";
        size_t n = kj ? p->t->kernels.n : p->t->copies.n;
        if (get_i32(p, o, w, i, f, -1, &v.record)) return -1;
        if (v.record < 0 || (size_t)v.record >= n)
            return perr(p, w, i, f, kj ? "not the id of a kernel in this trace"
                                       : "not the id of a copy in this trace");
        v.kind = kj ? TRACE_CALL_KERNEL : TRACE_CALL_COPY;
        v.issue = v.end = TRACE_NONE;
    } else {
        if (!json_is_string(sj)) return perr(p, w, i, "sync", "expected the sync's name");
        if (get_str(p, o, w, i, "sync", &v.name) || get_str(p, o, w, i, "stream", &v.stream) ||
            get_str(p, o, w, i, "process", &v.process) ||
            get_time(p, o, w, i, "issue", &v.issue) || get_time(p, o, w, i, "end", &v.end))
            return -1;
        if (!v.stream) return perr(p, w, i, "stream", "missing: a sync names its stream");
        json_t *sc = jr_opt(o, "scope");
        const char *scs = json_is_string(sc) ? json_string_value(sc) : sc ? "" : "stream";
        if (strcmp(scs, "stream") == 0) v.kind = TRACE_CALL_SYNC;
        else if (strcmp(scs, "device") == 0) v.kind = TRACE_CALL_DEVICE_SYNC;
        else return perr(p, w, i, "scope", "expected \"stream\" or \"device\"");
        if (v.end != TRACE_NONE && v.issue != TRACE_NONE && v.end < v.issue)
            return perr(p, w, i, "end", "before its issue");
    }
    if (get_time(p, o, w, i, "at", &v.at) || get_str(p, o, w, i, "task", &v.task) ||
        get_bool(p, o, w, i, "blocking", &v.blocking))
        return -1;
    if (v.blocking && v.kind != TRACE_CALL_COPY)
        return perr(p, w, i, "blocking", "only a copy blocks its task (TX2 paper §2.3: a kernel "
                                         "launch is asynchronous; a sync blocks by what it is)");
    trace_host_call *c = trace_add_host_call(p->t);
    if (!c) return perr(p, w, i, NULL, "out of memory");
    *c = v;
    return 0;
}

int imp_trace_json_device(jr_ctx *c, json_t *o, const char *path, sim_device *d) {
    char p[JR_PATH_MAX];
    memset(d, 0, sizeof *d);
    if (!json_is_object(o)) return jr_fail(c, path, "expected an object");
    json_t *name = jr_opt(o, "name");
    if (name) {
        if (!json_is_string(name)) return jr_fail(c, jr_join(p, path, "name"), "expected a string");
        snprintf(d->name, sizeof d->name, "%s", json_string_value(name));
    }
    /* every numeric field of simcore's table (device.h); unknown stays 0 */
    for (size_t i = 0; i < sim_device_nfields; i++) {
        const sim_device_field *f = &sim_device_fields[i];
        json_t *v = jr_opt(o, f->key);
        if (!v) continue;
        jr_join(p, path, f->key);
        if (f->type == SIM_DT_F64) {
            if (!json_is_number(v) || json_number_value(v) < 0)
                return jr_fail(c, p, "expected a non-negative number%s",
                               f->kind == SIM_DF_BANDWIDTH ? " (bytes/s)" : "");
            sim_device_set_f64(d, f, json_number_value(v));
        } else {
            json_int_t max = f->type == SIM_DT_I32 ? INT32_MAX : INT64_MAX;
            if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > max)
                return jr_fail(c, p, "expected a non-negative integer");
            sim_device_set_i64(d, f, (int64_t)json_integer_value(v));
        }
    }
    if (d->sms > SIM_MAX_SMS)
        return jr_fail(c, jr_join(p, path, "sms"), "%d is more than %d", (int)d->sms, SIM_MAX_SMS);
    json_t *ord = json_object_get(o, "sm_order");
    jr_join(p, path, "sm_order");
    if (json_is_array(ord)) {
        if ((int32_t)json_array_size(ord) != d->sms)
            return jr_fail(c, p, "has %zu entries for %d SMs", json_array_size(ord), (int)d->sms);
        d->sm_order_kind = SIM_SM_ORDER_EXPLICIT;
        for (size_t i = 0; i < json_array_size(ord); i++) {
            json_t *x = json_array_get(ord, i);
            char pi[JR_PATH_MAX];
            if (!json_is_integer(x) || json_integer_value(x) < 0 ||
                json_integer_value(x) >= d->sms)
                return jr_fail(c, jr_index(pi, p, i), "expected an SM id below %d", (int)d->sms);
            d->sm_order[i] = (int16_t)json_integer_value(x);
        }
    } else {
        const char *s = json_is_string(ord) ? json_string_value(ord) : "ascending";
        if (ord && !json_is_null(ord) && !json_is_string(ord)) s = "";
        if (strcmp(s, "ascending") == 0) d->sm_order_kind = SIM_SM_ORDER_ASCENDING;
        else if (strcmp(s, "evens-then-odds") == 0) d->sm_order_kind = SIM_SM_ORDER_EVENS_THEN_ODDS;
        else return jr_fail(c, p, "expected \"ascending\", \"evens-then-odds\" or an array");
        sim_device_fill_order(d);
    }
    return 0;
}

/* ---- schedlab-trace/1 read record by record (issue 31) ----------------------------

   The whole text as one jansson tree cost some 13 times the file (a 136 MB
   export took 1.76 GB to import). The reader walks the top-level object
   itself and hands jansson one value at a time: the small members (schema,
   name, device, meta, ...) whole, each record of a records array alone,
   parsed into the trace and freed before the next. Memory is then the trace
   being built (its arrays grow by doubling: at most twice the records, some
   32-150 bytes each against 55-400 bytes of text) plus one record's tree.
   An array that comes before the one it refers to (blocks before kernels,
   pauses before blocks, anything before a valid "schema") is kept as a tree
   until the end, within jsonr.h's parse budget, and read then: such files
   are still read, at the old cost. */

static const char *const top_keys[] = {
    "schema", "name", "source", "origin", "device", "devices", "meta",
    "kernels", "blocks", "copies", "queue_events", "warp_issues", "warp_epochs", "jobs",
    "pauses", "cohorts", "host_calls", NULL,
};
/* the first of the record arrays, those the others refer to, and how many */
enum { TOP_ARRAYS = 7, TOP_KERNELS = 7, TOP_BLOCKS = 8, TOP_COPIES = 9, TOP_PAUSES = 14,
       TOP_COHORTS = 15, TOP_HOST_CALLS = 16, TOP_N = 17 };

static size_t skip_ws(const char *s, size_t i, size_t n) {
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++;
    return i;
}

/* "FILE:LINE:COL: JSON: what" for the byte at off */
static int syntax_err(pctx *p, const char *text, size_t off, const char *what) {
    int line = 1, col = 1;
    for (size_t k = 0; k < off; k++) {
        if (text[k] == '\n') { line++; col = 1; }
        else col++;
    }
    if (p->jr.err && p->jr.errlen) {
        char w[200];   /* `what` may be jansson's text in the same buffer */
        snprintf(w, sizeof w, "%s", what);
        snprintf(p->jr.err, p->jr.errlen, "%s:%d:%d: JSON: %s", p->jr.file, line, col, w);
        jr_one_line(p->jr.err, p->jr.errlen);
    }
    return -1;
}

/* One value at text[*pos]; *pos moves past it. NULL with the message set. */
static json_t *load_at(pctx *p, const char *text, size_t len, size_t *pos) {
    size_t used = 0;
    json_t *v = jr_load_value(&p->jr, text + *pos, len - *pos, &used);
    if (!v) {
        if (!jr_over_budget() && !(p->jr.err && strstr(p->jr.err, "out of memory reading")))
            syntax_err(p, text, *pos + used, p->jr.err && p->jr.errlen ? p->jr.err : "invalid JSON");
        return NULL;
    }
    *pos += used;
    return v;
}

typedef int (*rec_parse)(pctx *, json_t *, size_t);

/* The records of the array at text[*pos] ('[' there), one tree at a time. */
static int stream_array(pctx *p, const char *text, size_t len, size_t *pos, rec_parse parse) {
    size_t i = 0, at = skip_ws(text, *pos + 1, len);
    if (at < len && text[at] == ']') {
        *pos = at + 1;
        return 0;
    }
    for (;;) {
        /* bytes read; a cancelled import stops here */
        if (!imp_progress_at(p->cx, (double)at, (double)len)) return jr_fail(&p->jr, "", IMP_CANCELLED);
        json_t *v = load_at(p, text, len, &at);
        if (!v) return -1;
        int bad = parse(p, v, i++);
        json_decref(v);
        if (bad) return -1;
        at = skip_ws(text, at, len);
        if (at < len && text[at] == ',') { at = skip_ws(text, at + 1, len); continue; }
        if (at < len && text[at] == ']') break;
        return syntax_err(p, text, at, "',' or ']' expected");
    }
    *pos = at + 1;
    return 0;
}

static int parse_cx(imp_ctx *cx, const char *text, size_t len, const char *file, trace *out,
                    char *err, size_t errlen) {
    static const rec_parse parsers[TOP_N - TOP_ARRAYS] = {
        parse_kernel, parse_block, parse_copy, parse_qevent, parse_warp,
        parse_wepoch, parse_job, parse_pause, parse_cohort, parse_host_call,
    };
    pctx p = {.jr = {.file = file, .err = err, .errlen = errlen, .pfx = ""}, .t = out, .cx = cx};
    int rc = -1;
    bool seen[TOP_N] = {false}, read[TOP_N] = {false}, schema_ok = false;
    jr_budget_begin(len);
    json_t *root = json_object();   /* the small members and any array kept whole */
    if (!root) { jr_budget_end(); return jr_oom(&p.jr); }
    /* past a UTF-8 byte order mark, as detection (detect.c) and RFC 8259
     * §8.1 allow: a trace saved again by a Windows tool has one */
    size_t pos = skip_ws(text, len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0, len);
    if (pos >= len || text[pos] != '{') {
        json_t *v = load_at(&p, text, len, &pos);
        if (v) jr_fail(&p.jr, "", "expected a JSON object (schedlab-trace/1)");
        json_decref(v);
        goto done;
    }
    pos = skip_ws(text, pos + 1, len);
    if (pos < len && text[pos] == '}') pos++;
    else for (;;) {
        if (pos >= len || text[pos] != '"') { syntax_err(&p, text, pos, "string or '}' expected"); goto done; }
        size_t kpos = pos;   /* the key's place, for a duplicate */
        json_t *kj = load_at(&p, text, len, &pos);
        if (!kj) goto done;
        char key[64];
        snprintf(key, sizeof key, "%s", json_string_value(kj));
        bool key_cut = strlen(json_string_value(kj)) >= sizeof key;
        json_decref(kj);
        pos = skip_ws(text, pos, len);
        if (pos >= len || text[pos] != ':') { syntax_err(&p, text, pos, "':' expected"); goto done; }
        pos = skip_ws(text, pos + 1, len);
        int k = -1;
        for (int j = 0; j < TOP_N && !key_cut; j++)
            if (strcmp(key, top_keys[j]) == 0) k = j;
        if (k < 0 && !key_cut && (strcmp(key, "displayTimeUnit") == 0 ||
                                  strcmp(key, "traceEvents") == 0 || strcmp(key, "otherData") == 0)) {
            /* `export --format chrome` names "schedlab-trace/1" in its
             * otherData (server/formats/trace_json.c), which detection
             * finds: that file is for viewing in Perfetto, not a trace this
             * importer reads, and the unknown key alone said nothing of it */
            jr_fail(&p.jr, "", "a Chrome/Perfetto trace (\"%s\") as `schedlab export --format chrome` "
                    "writes it for viewing, not a trace to import: import the run's "
                    "schedlab-trace/1 export (`schedlab export RUN`, the dashboard's \"trace JSON\")",
                    key);
            goto done;
        }
        if (k < 0) {
            /* every key is known (issue 31): a misspelt "kernel" would
             * otherwise import an empty run */
            jr_fail_unknown(&p.jr, "", "top-level key", key, top_keys, TOP_N);
            goto done;
        }
        if (seen[k]) {
            char what[96];
            snprintf(what, sizeof what, "duplicate object key \"%s\"", key);
            syntax_err(&p, text, kpos, what);
            goto done;
        }
        seen[k] = true;
        int a = k - TOP_ARRAYS;
        bool stream = a >= 0 && pos < len && text[pos] == '[' && schema_ok &&
                      (k != TOP_BLOCKS || read[TOP_KERNELS]) &&
                      (k != TOP_PAUSES || read[TOP_BLOCKS]) &&
                      (k != TOP_COHORTS || read[TOP_KERNELS]) &&
                      (k != TOP_HOST_CALLS || (read[TOP_KERNELS] && read[TOP_COPIES]));
        if (stream) {
            if (stream_array(&p, text, len, &pos, parsers[a])) goto done;
            read[k] = true;
        } else {
            json_t *v = load_at(&p, text, len, &pos);
            if (!v) goto done;
            if (json_object_set_new(root, key, v)) { jr_oom(&p.jr); goto done; }
            if (k == 0)
                schema_ok = json_is_string(v) && strcmp(json_string_value(v), TRACE_SCHEMA) == 0;
        }
        pos = skip_ws(text, pos, len);
        if (pos < len && text[pos] == ',') { pos = skip_ws(text, pos + 1, len); continue; }
        if (pos < len && text[pos] == '}') { pos++; break; }
        syntax_err(&p, text, pos, "',' or '}' expected");
        goto done;
    }
    pos = skip_ws(text, pos, len);
    if (pos < len) { syntax_err(&p, text, pos, "end of file expected"); goto done; }

    json_t *schema = json_object_get(root, "schema");
    if (!json_is_string(schema) || strcmp(json_string_value(schema), TRACE_SCHEMA) != 0) {
        jr_fail(&p.jr, "schema", "expected \"" TRACE_SCHEMA "\"");
        goto done;
    }
    json_t *v = json_object_get(root, "name");
    if (v && !json_is_null(v) && !json_is_string(v)) { perr(&p, "name", (size_t)-1, NULL, "expected a string"); goto done; }
    trace_set_name(out, json_string_value(v));
    v = json_object_get(root, "source");
    if (v && !json_is_null(v) && !json_is_string(v)) { perr(&p, "source", (size_t)-1, NULL, "expected a string"); goto done; }
    trace_set_source(out, json_string_value(v));
    v = json_object_get(root, "origin");
    if (v && !json_is_null(v)) {
        if (!json_is_integer(v)) { perr(&p, "origin", (size_t)-1, NULL, "expected an integer (ns)"); goto done; }
        out->origin = (int64_t)json_integer_value(v);
    }
    v = jr_opt(root, "device");
    if (v) {
        if (imp_trace_json_device(&p.jr, v, "device", &out->device)) goto done;
        out->has_device = true;
    }
    v = jr_opt(root, "devices");
    if (v) {
        /* a trace of several GPUs (DESIGN §5): each as "device" is */
        if (!json_is_array(v)) { perr(&p, "devices", (size_t)-1, NULL, "expected an array of devices"); goto done; }
        if (json_array_size(v) > IMP_MAX_GPUS) {
            char what[64];
            snprintf(what, sizeof what, "more GPUs than schedlab keeps (%d)", IMP_MAX_GPUS);
            perr(&p, "devices", (size_t)-1, NULL, what);
            goto done;
        }
        for (size_t i = 0; i < json_array_size(v); i++) {
            char path[JR_PATH_MAX];
            sim_device d;
            if (imp_trace_json_device(&p.jr, json_array_get(v, i), jr_index(path, "devices", i), &d))
                goto done;
            if (trace_add_device(out, &d) < 0) { jr_oom(&p.jr); goto done; }
        }
    }
    v = json_object_get(root, "meta");
    if (v && !json_is_null(v)) {
        if (!json_is_object(v)) { perr(&p, "meta", (size_t)-1, NULL, "expected an object"); goto done; }
        const char *mk;
        json_t *mv;
        json_object_foreach(v, mk, mv) {
            if (!json_is_string(mv)) { perr(&p, "meta", (size_t)-1, mk, "expected a string"); goto done; }
            trace_set_meta(out, mk, json_string_value(mv));
        }
    }
    /* the arrays kept whole, in the order they refer to each other */
    for (int k = TOP_ARRAYS; k < TOP_N; k++) {
        if (read[k]) continue;
        int bad;
        json_t *arr = get_array(&p, root, top_keys[k], &bad);
        if (bad) goto done;
        if (k == TOP_BLOCKS && arr && trace_reserve_blocks(out, json_array_size(arr)))
            { perr(&p, "blocks", (size_t)-1, NULL, "out of memory"); goto done; }
        for (size_t i = 0; arr && i < json_array_size(arr); i++) {
            if (!imp_progress_at(cx, (double)len, (double)len)) {
                jr_fail(&p.jr, "", IMP_CANCELLED);
                goto done;
            }
            if (parsers[k - TOP_ARRAYS](&p, json_array_get(arr, i), i)) goto done;
        }
    }
    if (say_unknown_keys(&p) < 0 || out->oom) { jr_oom(&p.jr); goto done; }
    rc = 0;
done:
    json_decref(root);
    jr_budget_end();
    return rc;
}

int imp_trace_json_parse(const char *text, size_t len, const char *file, trace *out, char *err,
                   size_t errlen) {
    return parse_cx(NULL, text, len, file, out, err, errlen);
}

/* ---- the descriptor --------------------------------------------------------------- */

static int read_trace(imp_ctx *cx, const imp_file *files, size_t nfiles, trace *out, char *err,
                      size_t errlen) {
    (void)nfiles;   /* one: the format is not multi_file */
    return parse_cx(cx, (const char *)files[0].data, files[0].len,
                    files[0].name ? files[0].name : "input", out, err, errlen);
}

const imp_importer imp_schedlab_trace_format = {
    .name = "schedlab-trace",
    .hint = "schedlab's own trace JSON (schedlab export)",
    .detect = detect,
    .read = read_trace,
    .as_written = true,
};
