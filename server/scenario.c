/* scenario.c -- schedlab-scenario/1 JSON into simulator configs (DESIGN §4).
 *
 * Parsing happens in two stages. The JSON is first read into device-free
 * "raw" values (durations remember whether they were given in cycles), then
 * every run (the base and each variant) is resolved against its own device:
 * cycles become nanoseconds with that device's clock and every kernel is
 * checked against that device's limits. A variant that swaps the device can
 * therefore make an op invalid, and the message says which variant. */
#include "scenario.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#define SCN_SCHEMA "schedlab-scenario/1"
#define NS_PER_S INT64_C(1000000000)
#define PATH_MAX_LEN 160

/* ---- raw (device-free) values ------------------------------------------ */

typedef struct scn_dur {
    int64_t v;               /* ns, or a cycle count when `cycles` */
    bool cycles;
} scn_dur;

typedef struct scn_rawop {
    sim_op_kind kind;
    const char *name;
    int32_t stream;
    scn_dur at;
    int64_t blocks;
    int32_t threads;
    int64_t smem;
    int32_t regs;
    scn_dur *block_time;
    size_t nblock_time;
    int64_t bytes;
    int32_t direction;
} scn_rawop;

enum {
    POL_PLACEMENT = 1u << 0,
    POL_LAUNCH = 1u << 1,
    POL_DISPATCH = 1u << 2
};

typedef struct scn_rawpolicy {
    int32_t placement;
    scn_dur launch_latency;
    scn_dur dispatch_latency;
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
    char **strs;             /* every string the configs point to */
    size_t nstrs, capstrs;
};

/* ---- errors -------------------------------------------------------------- */

typedef struct pctx {
    const char *file;
    char *err;
    size_t errlen;
    scn_scenario *s;
    const char *runpfx;      /* "" or `variants[1] ("fast"): ` while resolving runs */
} pctx;

static int fail(pctx *c, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The message quotes the user's own strings, which may hold control
 * characters; escape them so an error stays one printable line. */
static void one_line(char *msg, size_t cap)
{
    char tmp[1024];
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)msg; *p && o + 5 < sizeof tmp; p++) {
        if (*p >= 0x20 && *p != 0x7f) {
            tmp[o++] = (char)*p;
        } else {
            static const char hex[] = "0123456789abcdef";
            tmp[o++] = '\\';
            if (*p == '\n') tmp[o++] = 'n';
            else if (*p == '\t') tmp[o++] = 't';
            else if (*p == '\r') tmp[o++] = 'r';
            else { tmp[o++] = 'x'; tmp[o++] = hex[*p >> 4]; tmp[o++] = hex[*p & 15]; }
        }
    }
    tmp[o] = '\0';
    snprintf(msg, cap, "%s", tmp);
}

/* One line: "FILE: [variant: ]PATH: message". */
static int fail(pctx *c, const char *path, const char *fmt, ...)
{
    if (!c->err || c->errlen == 0)
        return -1;
    int n = snprintf(c->err, c->errlen, "%s: %s%s%s", c->file, c->runpfx,
                     path && *path ? path : "", path && *path ? ": " : "");
    if (n < 0 || (size_t)n >= c->errlen)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    one_line(c->err, c->errlen);
    return -1;
}

static int oom(pctx *c)
{
    return fail(c, "", "out of memory");
}

/* Paths are short ("variants[1].device.sm_order[3]"); a key long enough to
 * overflow is cut, which only shortens the message. */
static const char *join(char *buf, const char *base, const char *key)
{
    int n = snprintf(buf, PATH_MAX_LEN, "%s%s%s", base, *base ? "." : "", key);
    if (n < 0)
        buf[0] = '\0';
    return buf;
}

static const char *index_path(char *buf, const char *base, size_t i)
{
    int n = snprintf(buf, PATH_MAX_LEN, "%s[%zu]", base, i);
    if (n < 0)
        buf[0] = '\0';
    return buf;
}

static const char *type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    }
    return "a value";
}

/* Bytes the way a person writes them in a scenario: 96KB, 256MB. */
static const char *fmt_size(char *buf, size_t n, int64_t bytes)
{
    static const char *const names[] = {"TB", "GB", "MB", "KB"};
    static const int shifts[] = {40, 30, 20, 10};
    for (size_t i = 0; i < 4; i++) {
        int64_t unit = INT64_C(1) << shifts[i];
        if (bytes > 0 && bytes % unit == 0) {
            snprintf(buf, n, "%" PRId64 "%s", bytes / unit, names[i]);
            return buf;
        }
    }
    snprintf(buf, n, "%" PRId64 " bytes", bytes);
    return buf;
}

/* Nanoseconds in the largest unit that keeps them whole: 40us, 1s. */
static const char *fmt_ns(char *buf, size_t n, int64_t ns)
{
    static const char *const names[] = {"s", "ms", "us"};
    static const int64_t units[] = {NS_PER_S, 1000000, 1000};
    for (size_t i = 0; i < 3; i++) {
        if (ns != 0 && ns % units[i] == 0) {
            snprintf(buf, n, "%" PRId64 "%s", ns / units[i], names[i]);
            return buf;
        }
    }
    snprintf(buf, n, "%" PRId64 "ns", ns);
    return buf;
}

/* ---- did you mean -------------------------------------------------------- */

static size_t edit_distance(const char *a, const char *b)
{
    enum { MAXL = 64 };
    size_t la = strlen(a), lb = strlen(b);
    if (la > MAXL || lb > MAXL)
        return SIZE_MAX;
    size_t prev[MAXL + 1], cur[MAXL + 1];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            char ca = a[i - 1], cb = b[j - 1];
            if (ca >= 'A' && ca <= 'Z')
                ca = (char)(ca - 'A' + 'a');
            if (cb >= 'A' && cb <= 'Z')
                cb = (char)(cb - 'A' + 'a');
            size_t sub = prev[j - 1] + (ca == cb ? 0 : 1);
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
        memcpy(prev, cur, (lb + 1) * sizeof prev[0]);
    }
    return prev[lb];
}

/* The closest candidate if it is close enough to be a typo of `word`. */
static const char *suggest(const char *word, const char *const *cands, size_t n)
{
    const char *best = NULL;
    size_t bestd = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        size_t d = edit_distance(word, cands[i]);
        if (d < bestd) {
            bestd = d;
            best = cands[i];
        }
    }
    size_t len = strlen(word);
    size_t limit = len <= 3 ? 1 : len <= 6 ? 2 : 3;
    return bestd <= limit ? best : NULL;
}

static size_t count_list(const char *const *list)
{
    size_t n = 0;
    while (list[n])
        n++;
    return n;
}

/* ", "-separated list of candidates, for "(known: ...)" hints. */
static void list_names(char *buf, size_t n, const char *const *cands, size_t ncands,
                       const char *quote)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < ncands && used < n; i++) {
        int w = snprintf(buf + used, n - used, "%s%s%s%s", i ? ", " : "", quote, cands[i], quote);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

/* "unknown key" / "unknown value" with a hint: the nearest name when one is
 * close, else the full list. */
static int fail_unknown(pctx *c, const char *path, const char *what, const char *word,
                        const char *const *cands, size_t ncands)
{
    const char *near = suggest(word, cands, ncands);
    if (near)
        return fail(c, path, "unknown %s \"%s\" (did you mean \"%s\"?)", what, word, near);
    char list[512];
    list_names(list, sizeof list, cands, ncands, "");
    return fail(c, path, "unknown %s \"%s\" (known: %s)", what, word, list);
}

static int check_keys(pctx *c, json_t *obj, const char *path, const char *const *known)
{
    const char *key;
    json_t *val;
    size_t n = count_list(known);
    json_object_foreach(obj, key, val) {
        bool ok = false;
        for (size_t i = 0; i < n && !ok; i++)
            ok = strcmp(key, known[i]) == 0;
        if (!ok)
            return fail_unknown(c, path, "key", key, known, n);
    }
    return 0;
}

/* ---- owned strings ------------------------------------------------------- */

static char *own(pctx *c, const char *str)
{
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

/* ---- scalars ------------------------------------------------------------- */

static int need_object(pctx *c, json_t *v, const char *path)
{
    if (!json_is_object(v))
        return fail(c, path, "must be an object, not %s", type_name(v));
    return 0;
}

static int get_string(pctx *c, json_t *v, const char *path, const char **out)
{
    if (!json_is_string(v))
        return fail(c, path, "must be a string, not %s", type_name(v));
    *out = json_string_value(v);
    return 0;
}

static int get_name(pctx *c, json_t *v, const char *path, const char **out)
{
    if (get_string(c, v, path, out))
        return -1;
    if (!**out)
        return fail(c, path, "must not be empty");
    return 0;
}

/* A whole number given as a JSON number (1e9 counts; 1.5 does not). */
static int get_whole(pctx *c, json_t *v, const char *path, int64_t *out)
{
    if (json_is_integer(v)) {
        *out = json_integer_value(v);
        return 0;
    }
    if (json_is_real(v)) {
        double d = json_real_value(v);
        if (isfinite(d) && d == floor(d) && fabs(d) < 9.0e18) {
            *out = (int64_t)d;
            return 0;
        }
        return fail(c, path, "%g is not a whole number", d);
    }
    return fail(c, path, "must be a number, not %s", type_name(v));
}

static int get_count(pctx *c, json_t *v, const char *path, int64_t min, int64_t max,
                     int64_t *out)
{
    if (get_whole(c, v, path, out))
        return -1;
    if (*out < min)
        return fail(c, path, "%" PRId64 " must be at least %" PRId64, *out, min);
    if (*out > max)
        return fail(c, path, "%" PRId64 " is more than %" PRId64 ", the most this build accepts",
                    *out, max);
    return 0;
}

/* ---- quantities with units ----------------------------------------------- */

typedef enum qkind { Q_DURATION, Q_SIZE, Q_BANDWIDTH, Q_FREQUENCY } qkind;

typedef struct unit {
    const char *name;
    int64_t scale;
} unit;

static const unit dur_units[] = {
    {"s", NS_PER_S}, {"ms", 1000000}, {"us", 1000}, {"\xc2\xb5s", 1000}, {"ns", 1}, {NULL, 0}};
static const unit size_units[] = {
    {"B", 1}, {"KB", INT64_C(1) << 10}, {"KiB", INT64_C(1) << 10}, {"MB", INT64_C(1) << 20},
    {"MiB", INT64_C(1) << 20}, {"GB", INT64_C(1) << 30}, {"GiB", INT64_C(1) << 30},
    {"TB", INT64_C(1) << 40}, {"TiB", INT64_C(1) << 40}, {NULL, 0}};
static const unit freq_units[] = {
    {"Hz", 1}, {"kHz", 1000}, {"KHz", 1000}, {"MHz", 1000000}, {"GHz", NS_PER_S}, {NULL, 0}};

static const char *const qkind_units[] = {
    "s, ms, us, ns or cycles", "B, KB, MB, GB or TB (KB = 1024 bytes)",
    "B/s, KB/s, MB/s, GB/s or TB/s (KB = 1024 bytes)", "Hz, kHz, MHz or GHz"};
static const char *const qkind_whole[] = {
    "nanoseconds", "bytes", "bytes per second", "Hz"};

static int64_t pow10_i64(int e)
{
    int64_t r = 1;
    while (e-- > 0)
        r *= 10;
    return r;
}

/* mant * scale / div exactly; -1 when that is not whole (*inexact) or
 * does not fit in int64. */
static int scale_exact(int64_t mant, int64_t scale, int64_t div, int64_t *out, bool *inexact)
{
    *inexact = false;
    int64_t q = mant / div, r = mant % div;
    if (q != 0 && scale > INT64_MAX / q)
        return -1;
    int64_t hi = q * scale;
    int64_t g = div, t = scale;
    while (t) {
        int64_t tmp = g % t;
        g = t;
        t = tmp;
    }
    int64_t s2 = scale / g, d2 = div / g;
    /* gcd(s2, d2) = 1, so r * s2 / d2 is whole exactly when d2 divides r,
     * and (r / d2) * s2 < scale cannot overflow. */
    if (r % d2 != 0) {
        *inexact = true;
        return -1;
    }
    int64_t lo = (r / d2) * s2;
    if (hi > INT64_MAX - lo)
        return -1;
    *out = hi + lo;
    return 0;
}

/* Numbers are taken as ns / bytes / bytes per second / Hz; strings carry a
 * unit. Decimals are parsed as integers over a power of ten so "0.2s" is
 * exactly 200000000. `cycles` (durations only) is set when the value is a
 * cycle count to be converted with the run's device clock. */
static int parse_qty(pctx *c, json_t *v, const char *path, qkind k, int64_t *out,
                     bool *cycles)
{
    if (cycles)
        *cycles = false;
    if (!json_is_string(v)) {
        if (!json_is_number(v))
            return fail(c, path, "must be a number (%s) or a string with a unit, not %s",
                        qkind_whole[k], type_name(v));
        if (json_is_real(v)) {
            double d = json_real_value(v);
            if (!(isfinite(d) && d == floor(d) && fabs(d) < 9.0e18)) {
                /* "at": 0.2 almost always means seconds */
                if (k == Q_DURATION && isfinite(d) && d > 0)
                    return fail(c, path, "%g is not a whole number of nanoseconds (a bare "
                                "number is ns; for seconds write \"%gs\")", d, d);
                return fail(c, path, "%g is not a whole number of %s", d, qkind_whole[k]);
            }
            *out = (int64_t)d;
        } else {
            *out = json_integer_value(v);
        }
        if (*out < 0)
            return fail(c, path, "%" PRId64 " must not be negative", *out);
        return 0;
    }
    const char *str = json_string_value(v);
    const char *p = str;
    int64_t mant = 0;
    int digits = 0, frac = 0;
    bool point = false;
    for (; (*p >= '0' && *p <= '9') || (*p == '.' && !point); p++) {
        if (*p == '.') {
            point = true;
            continue;
        }
        if (digits == 0 && *p == '0' && !point) {
            /* leading zeros add nothing but must not count toward the limit */
        } else {
            if (++digits > 17)
                return fail(c, path, "\"%s\" has too many digits", str);
        }
        mant = mant * 10 + (*p - '0');
        if (point)
            frac++;
    }
    bool anydigit = p > str && !(p - str == 1 && *str == '.');
    if (!anydigit)
        return fail(c, path, "\"%s\" is not a quantity (write a number and a unit: %s)",
                    str, qkind_units[k]);
    if (point && frac == 0)
        return fail(c, path, "\"%s\": a decimal point needs digits after it", str);
    if (frac > 17)
        return fail(c, path, "\"%s\" has too many digits", str);
    if (*p == ' ')
        p++;
    if (!*p)
        return fail(c, path, "\"%s\" has no unit (%s)", str, qkind_units[k]);

    int64_t scale = 0;
    if (k == Q_DURATION && (strcmp(p, "cycles") == 0 || strcmp(p, "cycle") == 0)) {
        if (!cycles)
            return fail(c, path, "\"%s\": cycles are not accepted here (%s)", str,
                        "s, ms, us or ns");
        if (frac)
            return fail(c, path, "\"%s\": give a whole number of cycles", str);
        *cycles = true;
        *out = mant;
        return 0;
    }
    if (k == Q_BANDWIDTH) {
        size_t ul = strlen(p);
        if (ul > 2 && strcmp(p + ul - 2, "/s") == 0) {
            char pre[16];
            if (ul - 2 < sizeof pre) {
                memcpy(pre, p, ul - 2);
                pre[ul - 2] = '\0';
                for (const unit *u = size_units; u->name; u++)
                    if (strcmp(pre, u->name) == 0)
                        scale = u->scale;
            }
        }
    } else {
        const unit *table = k == Q_DURATION ? dur_units : k == Q_SIZE ? size_units : freq_units;
        for (const unit *u = table; u->name; u++)
            if (strcmp(p, u->name) == 0)
                scale = u->scale;
    }
    if (!scale)
        return fail(c, path, "\"%s\" has an unknown unit \"%s\" (%s)", str, p, qkind_units[k]);
    bool inexact;
    if (scale_exact(mant, scale, pow10_i64(frac), out, &inexact)) {
        if (inexact)
            return fail(c, path, "\"%s\" is not a whole number of %s", str, qkind_whole[k]);
        return fail(c, path, "\"%s\" is too large", str);
    }
    return 0;
}

/* Durations this large would overflow the simulator's clock once summed. */
#define SCN_MAX_DURATION (INT64_C(1000000) * NS_PER_S)

static int parse_dur(pctx *c, json_t *v, const char *path, scn_dur *out)
{
    if (parse_qty(c, v, path, Q_DURATION, &out->v, &out->cycles))
        return -1;
    if (out->v > SCN_MAX_DURATION)
        return fail(c, path, "%s is longer than this build accepts (1000000s)",
                    out->cycles ? "the cycle count" : "the duration");
    return 0;
}

/* Cycles -> ns with the run's clock, rounded to the nearest ns. */
static int resolve_dur(pctx *c, scn_dur d, const sim_device *dev, const char *path,
                       int64_t *ns)
{
    if (!d.cycles) {
        *ns = d.v;
        return 0;
    }
    if (dev->clock_hz <= 0)
        return fail(c, path, "%" PRId64 " cycles need the device's clock; set device.clock "
                    "(e.g. \"1300MHz\")", d.v);
    uint64_t hz = (uint64_t)dev->clock_hz, cyc = (uint64_t)d.v;
    uint64_t q = cyc / hz, r = cyc % hz;
    if (hz > UINT64_C(18000000000) || q > (uint64_t)(SCN_MAX_DURATION / NS_PER_S))
        return fail(c, path, "%" PRId64 " cycles at %" PRId64 " Hz is out of range", d.v,
                    dev->clock_hz);
    *ns = (int64_t)(q * (uint64_t)NS_PER_S + (r * (uint64_t)NS_PER_S + hz / 2) / hz);
    return 0;
}

/* ---- device -------------------------------------------------------------- */

static const char *const device_keys[] = {
    "preset", "name", "sms", "threads_per_sm", "max_threads_per_block", "blocks_per_sm",
    "warps_per_sm", "regs_per_sm", "max_regs_per_block", "smem_per_sm", "max_smem_per_block",
    "warp_size", "schedulers_per_sm", "copy_engines", "copy_bandwidth", "clock", "sm_order",
    NULL};

/* A device written out in full must give these; the rest have defaults. */
static const char *const device_required[] = {
    "sms", "threads_per_sm", "max_threads_per_block", "blocks_per_sm", "warps_per_sm",
    "regs_per_sm", "max_regs_per_block", "smem_per_sm", "max_smem_per_block", "warp_size",
    "copy_bandwidth", NULL};

static int find_preset(pctx *c, const char *name, const char *path, sim_device *out)
{
    const sim_device *p = sim_preset_find(name);
    if (p) {
        *out = *p;
        return 0;
    }
    size_t n = sim_preset_count();
    const char *names[64];
    if (n > 64)
        n = 64;
    for (size_t i = 0; i < n; i++)
        names[i] = sim_preset_at(i)->name;
    return fail_unknown(c, path, "preset", name, names, n);
}

static int parse_int32_field(pctx *c, json_t *v, const char *path, int32_t *out)
{
    int64_t x;
    if (get_count(c, v, path, 0, INT32_MAX, &x))
        return -1;
    *out = (int32_t)x;
    return 0;
}

static int parse_sm_order(pctx *c, json_t *v, const char *path, sim_device *dev,
                          bool *explicit_order)
{
    char p[PATH_MAX_LEN];
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        static const char *const kinds[] = {"ascending", "evens-then-odds"};
        if (strcmp(s, "ascending") == 0)
            dev->sm_order_kind = SIM_SM_ORDER_ASCENDING;
        else if (strcmp(s, "evens-then-odds") == 0)
            dev->sm_order_kind = SIM_SM_ORDER_EVENS_THEN_ODDS;
        else
            return fail_unknown(c, path, "order", s, kinds, 2);
        return 0;
    }
    if (!json_is_array(v))
        return fail(c, path, "must be \"ascending\", \"evens-then-odds\" or an array of SM "
                    "ids, not %s", type_name(v));
    size_t n = json_array_size(v);
    if (n > SIM_MAX_SMS)
        return fail(c, path, "lists %zu SMs; this build handles at most %d", n, SIM_MAX_SMS);
    for (size_t i = 0; i < n; i++) {
        int64_t id;
        if (get_count(c, json_array_get(v, i), index_path(p, path, i), 0, SIM_MAX_SMS - 1, &id))
            return -1;
        dev->sm_order[i] = (int16_t)id;
    }
    for (size_t i = n; i < SIM_MAX_SMS; i++)
        dev->sm_order[i] = 0;
    dev->sm_order_kind = SIM_SM_ORDER_EXPLICIT;
    *explicit_order = true;
    return 0;
}

/* `base` is where an object without "preset" starts from: the base run's
 * device for a variant, NULL at the top level (then every required field
 * must be given). */
static int parse_device(pctx *c, json_t *v, const char *path, const sim_device *base,
                        sim_device *out)
{
    char p[PATH_MAX_LEN];
    if (json_is_string(v))
        return find_preset(c, json_string_value(v), path, out);
    if (!json_is_object(v))
        return fail(c, path, "must be a preset name (such as \"tx2\") or an object, not %s",
                    type_name(v));
    if (check_keys(c, v, path, device_keys))
        return -1;

    json_t *preset = json_object_get(v, "preset");
    bool explicit_order = false;
    if (preset) {
        const char *pn = NULL;
        if (get_string(c, preset, join(p, path, "preset"), &pn) ||
            find_preset(c, pn, p, out))
            return -1;
    } else if (base) {
        *out = *base;
    } else {
        for (const char *const *k = device_required; *k; k++)
            if (!json_object_get(v, *k))
                return fail(c, path, "missing \"%s\" (a device without \"preset\" gives every "
                            "field; or start from a preset: {\"preset\": \"tx2\", ...})", *k);
        memset(out, 0, sizeof *out);
        snprintf(out->name, sizeof out->name, "custom");
        out->schedulers_per_sm = 4;
        out->copy_engines = 1;
        out->sm_order_kind = SIM_SM_ORDER_ASCENDING;
    }
    bool was_explicit = out->sm_order_kind == SIM_SM_ORDER_EXPLICIT;

    const char *key;
    json_t *val;
    json_object_foreach(v, key, val) {
        join(p, path, key);
        int64_t x;
        if (strcmp(key, "preset") == 0) {
            continue;
        } else if (strcmp(key, "name") == 0) {
            const char *nm = NULL;
            if (get_name(c, val, p, &nm))
                return -1;
            if (strlen(nm) >= sizeof out->name)
                return fail(c, p, "is longer than %zu characters", sizeof out->name - 1);
            snprintf(out->name, sizeof out->name, "%s", nm);
        } else if (strcmp(key, "sms") == 0) {
            if (get_count(c, val, p, 1, SIM_MAX_SMS, &x))
                return -1;
            out->sms = (int32_t)x;
        } else if (strcmp(key, "threads_per_sm") == 0) {
            if (parse_int32_field(c, val, p, &out->threads_per_sm))
                return -1;
        } else if (strcmp(key, "max_threads_per_block") == 0) {
            if (parse_int32_field(c, val, p, &out->max_threads_per_block))
                return -1;
        } else if (strcmp(key, "blocks_per_sm") == 0) {
            if (parse_int32_field(c, val, p, &out->blocks_per_sm))
                return -1;
        } else if (strcmp(key, "warps_per_sm") == 0) {
            if (parse_int32_field(c, val, p, &out->warps_per_sm))
                return -1;
        } else if (strcmp(key, "regs_per_sm") == 0) {
            if (get_count(c, val, p, 0, INT32_MAX, &out->regs_per_sm))
                return -1;
        } else if (strcmp(key, "max_regs_per_block") == 0) {
            if (get_count(c, val, p, 0, INT32_MAX, &out->max_regs_per_block))
                return -1;
        } else if (strcmp(key, "smem_per_sm") == 0) {
            if (parse_qty(c, val, p, Q_SIZE, &out->smem_per_sm, NULL))
                return -1;
        } else if (strcmp(key, "max_smem_per_block") == 0) {
            if (parse_qty(c, val, p, Q_SIZE, &out->max_smem_per_block, NULL))
                return -1;
        } else if (strcmp(key, "warp_size") == 0) {
            if (parse_int32_field(c, val, p, &out->warp_size))
                return -1;
        } else if (strcmp(key, "schedulers_per_sm") == 0) {
            if (parse_int32_field(c, val, p, &out->schedulers_per_sm))
                return -1;
        } else if (strcmp(key, "copy_engines") == 0) {
            if (parse_int32_field(c, val, p, &out->copy_engines))
                return -1;
        } else if (strcmp(key, "copy_bandwidth") == 0) {
            if (parse_qty(c, val, p, Q_BANDWIDTH, &x, NULL))
                return -1;
            out->copy_bandwidth = (double)x;
        } else if (strcmp(key, "clock") == 0) {
            if (parse_qty(c, val, p, Q_FREQUENCY, &out->clock_hz, NULL))
                return -1;
        } else if (strcmp(key, "sm_order") == 0) {
            if (parse_sm_order(c, val, p, out, &explicit_order))
                return -1;
        }
    }

    if (explicit_order) {
        json_t *ord = json_object_get(v, "sm_order");
        size_t n = json_array_size(ord);
        join(p, path, "sm_order");
        if (n != (size_t)out->sms)
            return fail(c, p, "lists %zu SMs but the device has %" PRId32, n, out->sms);
        bool seen[SIM_MAX_SMS] = {false};
        for (size_t i = 0; i < n; i++) {
            int16_t id = out->sm_order[i];
            char pi[PATH_MAX_LEN];
            if (id >= out->sms)
                return fail(c, index_path(pi, p, i), "%d is not an SM of this device (0..%d)",
                            id, out->sms - 1);
            if (seen[id])
                return fail(c, index_path(pi, p, i), "SM %d is listed twice", id);
            seen[id] = true;
        }
    } else if (was_explicit && json_object_get(v, "sms")) {
        return fail(c, join(p, path, "sms"), "the device's sm_order lists SMs explicitly; "
                    "give a new \"sm_order\" with the new SM count");
    } else {
        sim_device_fill_order(out);
    }

    /* sim_device_validate names fields as "device.X"; re-root them at
     * `path` so a variant's message says variants[i].device.X. */
    char msg[256];
    if (sim_device_validate(out, msg, sizeof msg)) {
        if (strncmp(msg, "device.", 7) == 0)
            return fail(c, "", "%s.%s", path, msg + 7);
        return fail(c, path, "%s", msg);
    }
    return 0;
}

/* ---- policy -------------------------------------------------------------- */

static const char *const policy_keys[] = {
    "placement", "launch_latency", "dispatch_latency", "warp", "contexts", "time_slice",
    "context_switch", "runlist_update", NULL};

/* Policy keys DESIGN §4 names whose models this build does not have yet:
 * only the value that means "model absent" is accepted, so a scenario never
 * silently runs with a policy it did not get. */
static int parse_fixed_choice(pctx *c, json_t *v, const char *path, const char *only)
{
    const char *s = NULL;
    if (get_string(c, v, path, &s))
        return -1;
    if (strcmp(s, only) != 0)
        return fail(c, path, "\"%s\" is not supported by this build (supported: \"%s\")", s,
                    only);
    return 0;
}

static int parse_zero_duration(pctx *c, json_t *v, const char *path)
{
    scn_dur d;
    if (parse_dur(c, v, path, &d))
        return -1;
    if (d.v != 0)
        return fail(c, path, "%s%" PRId64 "%s is not supported by this build (supported: 0)",
                    json_is_string(v) ? "\"" : "", d.v, json_is_string(v) ? "\"" : "");
    return 0;
}

static int parse_policy(pctx *c, json_t *v, const char *path, scn_rawpolicy *pol)
{
    char p[PATH_MAX_LEN];
    if (need_object(c, v, path) || check_keys(c, v, path, policy_keys))
        return -1;
    const char *key;
    json_t *val;
    json_object_foreach(v, key, val) {
        join(p, path, key);
        if (strcmp(key, "placement") == 0) {
            const char *s = NULL;
            if (get_string(c, val, p, &s))
                return -1;
            int32_t id = sim_placement_find(s);
            if (id < 0) {
                size_t n = sim_placement_count();
                const char *names[32];
                if (n > 32)
                    n = 32;
                for (size_t i = 0; i < n; i++)
                    names[i] = sim_placement_name((int32_t)i);
                return fail_unknown(c, p, "placement", s, names, n);
            }
            pol->placement = id;
            pol->given |= POL_PLACEMENT;
        } else if (strcmp(key, "launch_latency") == 0) {
            if (parse_dur(c, val, p, &pol->launch_latency))
                return -1;
            pol->given |= POL_LAUNCH;
        } else if (strcmp(key, "dispatch_latency") == 0) {
            if (parse_dur(c, val, p, &pol->dispatch_latency))
                return -1;
            pol->given |= POL_DISPATCH;
        } else if (strcmp(key, "warp") == 0) {
            if (parse_fixed_choice(c, val, p, "lrr"))
                return -1;
        } else if (strcmp(key, "contexts") == 0) {
            if (parse_fixed_choice(c, val, p, "shared"))
                return -1;
        } else {
            if (parse_zero_duration(c, val, p))
                return -1;
        }
    }
    return 0;
}

/* ---- streams ------------------------------------------------------------- */

static const char *const stream_keys[] = {"name", "process", "priority", NULL};

/* TX2 paper §4.2: cudaDeviceGetStreamPriorityRange gives -1 (high) and 0
 * (low); priority-none is its own value, which the simulator ranks with
 * low (rule A1). */
#define SCN_PRIO_HIGH (-1)
#define SCN_PRIO_LOW 0

static int parse_priority(pctx *c, json_t *v, const char *path, int32_t *out)
{
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
            return fail_unknown(c, path, "priority", s, names, 3);
        return 0;
    }
    if (!json_is_integer(v))
        return fail(c, path, "must be \"high\", \"low\", \"none\" or an integer, not %s",
                    type_name(v));
    json_int_t x = json_integer_value(v);
    if (x < -1000000 || x > 1000000)
        return fail(c, path, "%" JSON_INTEGER_FORMAT " is out of range (-1000000..1000000)", x);
    *out = (int32_t)x;
    return 0;
}

static int add_stream(pctx *c, const char *name, const char *process, int32_t prio,
                      size_t *cap)
{
    scn_scenario *s = c->s;
    if (s->nstreams == *cap) {
        size_t nc = *cap ? *cap * 2 : 8;
        sim_stream *v = realloc(s->streams, nc * sizeof *v);
        if (!v)
            return oom(c);
        s->streams = v;
        *cap = nc;
    }
    sim_stream *st = &s->streams[s->nstreams];
    st->name = own(c, name);
    st->process = own(c, process);
    st->priority = prio;
    if (!st->name || !st->process)
        return oom(c);
    s->nstreams++;
    return 0;
}

static int parse_streams(pctx *c, json_t *v, size_t *cap)
{
    char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
    if (!json_is_array(v))
        return fail(c, "streams", "must be an array, not %s", type_name(v));
    for (size_t i = 0; i < json_array_size(v); i++) {
        json_t *o = json_array_get(v, i);
        index_path(p, "streams", i);
        if (need_object(c, o, p) || check_keys(c, o, p, stream_keys))
            return -1;
        const char *name = NULL, *process = "P0";
        int32_t prio = SIM_PRIO_NONE;
        json_t *jn = json_object_get(o, "name");
        if (!jn)
            return fail(c, p, "missing \"name\"");
        if (get_name(c, jn, join(q, p, "name"), &name))
            return -1;
        json_t *jp = json_object_get(o, "process");
        if (jp && get_name(c, jp, join(q, p, "process"), &process))
            return -1;
        json_t *jr = json_object_get(o, "priority");
        if (jr && parse_priority(c, jr, join(q, p, "priority"), &prio))
            return -1;
        /* Named streams are unique so an op's "stream" names one; "null"
         * exists once per process (TX2 paper §4.1). */
        for (size_t j = 0; j < c->s->nstreams; j++) {
            const sim_stream *o2 = &c->s->streams[j];
            if (strcmp(o2->name, name) == 0 &&
                (strcmp(name, "null") != 0 || strcmp(o2->process, process) == 0))
                return fail(c, join(q, p, "name"), "\"%s\" is already streams[%zu]", name, j);
        }
        if (add_stream(c, name, process, prio, cap))
            return -1;
    }
    return 0;
}

/* The named stream, or (for "null") the NULL stream of `process`, added on
 * first use. */
static int resolve_stream(pctx *c, const char *name, const char *process, const char *path,
                          size_t ndeclared, size_t *cap, int32_t *out)
{
    scn_scenario *s = c->s;
    bool is_null = strcmp(name, "null") == 0;
    const char *proc = process ? process : "P0";
    for (size_t j = 0; j < s->nstreams; j++) {
        const sim_stream *st = &s->streams[j];
        if (strcmp(st->name, name) != 0)
            continue;
        if (is_null && strcmp(st->process, proc) != 0)
            continue;
        if (!is_null && process && strcmp(st->process, process) != 0)
            return fail(c, path, "stream \"%s\" belongs to process \"%s\", not \"%s\"", name,
                        st->process, process);
        *out = (int32_t)j;
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
    return fail(c, path, "no stream named \"%s\" (streams: %s)", name,
                ndeclared ? list : "none declared; only \"null\"");
}

/* ---- ops ----------------------------------------------------------------- */

static const char *const op_keys[] = {
    "kernel", "copy", "sync", "stream", "process", "at", "blocks", "threads", "smem", "regs",
    "block_time", "program", "bytes", "direction", NULL};
static const char *const kernel_keys[] = {
    "kernel", "stream", "process", "at", "blocks", "threads", "smem", "regs", "block_time",
    "program", NULL};
static const char *const copy_keys[] = {
    "copy", "stream", "process", "at", "bytes", "direction", NULL};
static const char *const sync_keys[] = {"sync", "stream", "process", "at", NULL};

/* At most this many blocks over all kernels: the simulator keeps every block
 * in the trace, and a request body must not make the server allocate
 * without bound. */
static int parse_op(pctx *c, json_t *o, size_t i, size_t ndeclared, size_t *cap,
                    int64_t *total_blocks, scn_rawop *op)
{
    char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
    index_path(p, "ops", i);
    if (need_object(c, o, p) || check_keys(c, o, p, op_keys))
        return -1;
    static const char *const kinds[] = {"kernel", "copy", "sync"};
    int kind = -1;
    for (int k = 0; k < 3; k++) {
        if (!json_object_get(o, kinds[k]))
            continue;
        if (kind >= 0)
            return fail(c, p, "has both \"%s\" and \"%s\"; an op is one of them", kinds[kind],
                        kinds[k]);
        kind = k;
    }
    if (kind < 0)
        return fail(c, p, "needs \"kernel\", \"copy\" or \"sync\" with the op's name, "
                    "e.g. {\"kernel\": \"K1\", ...}");
    const char *const *allowed = kind == 0 ? kernel_keys : kind == 1 ? copy_keys : sync_keys;
    const char *key;
    json_t *val;
    json_object_foreach(o, key, val) {
        bool ok = false;
        for (const char *const *a = allowed; *a && !ok; a++)
            ok = strcmp(*a, key) == 0;
        if (!ok) {
            char list[256];
            list_names(list, sizeof list, allowed, count_list(allowed), "");
            return fail(c, p, "\"%s\" does not apply to a %s (a %s takes: %s)", key,
                        kinds[kind], kinds[kind], list);
        }
    }

    memset(op, 0, sizeof *op);
    op->kind = kind == 0 ? SIM_OP_KERNEL : kind == 1 ? SIM_OP_COPY : SIM_OP_SYNC;
    const char *name = NULL;
    if (get_name(c, json_object_get(o, kinds[kind]), join(q, p, kinds[kind]), &name))
        return -1;
    if (!(op->name = own(c, name)))
        return oom(c);

    const char *stream = "null", *process = NULL;
    json_t *js = json_object_get(o, "stream"), *jp = json_object_get(o, "process");
    if (js && get_name(c, js, join(q, p, "stream"), &stream))
        return -1;
    if (jp && get_name(c, jp, join(q, p, "process"), &process))
        return -1;
    if (resolve_stream(c, stream, process, join(q, p, "stream"), ndeclared, cap, &op->stream))
        return -1;
    json_t *ja = json_object_get(o, "at");
    if (ja && parse_dur(c, ja, join(q, p, "at"), &op->at))
        return -1;

    if (op->kind == SIM_OP_KERNEL) {
        if (json_object_get(o, "program"))
            return fail(c, join(q, p, "program"), "warp-level programs are not supported by "
                        "this build; give \"block_time\"");
        static const char *const need[] = {"blocks", "threads", "block_time"};
        for (int k = 0; k < 3; k++)
            if (!json_object_get(o, need[k]))
                return fail(c, p, "kernel \"%s\" is missing \"%s\"", name, need[k]);
        int64_t x;
        if (get_count(c, json_object_get(o, "blocks"), join(q, p, "blocks"), 1, INT32_MAX,
                      &op->blocks))
            return -1;
        if (op->blocks > SCN_MAX_TOTAL_BLOCKS - *total_blocks)
            return fail(c, q, "the scenario's kernels would have more than %" PRId64
                        " blocks in all, the most this build simulates",
                        (int64_t)SCN_MAX_TOTAL_BLOCKS);
        *total_blocks += op->blocks;
        if (get_count(c, json_object_get(o, "threads"), join(q, p, "threads"), 1, INT32_MAX, &x))
            return -1;
        op->threads = (int32_t)x;
        json_t *jm = json_object_get(o, "smem");
        op->smem = 0;
        if (jm && parse_qty(c, jm, join(q, p, "smem"), Q_SIZE, &op->smem, NULL))
            return -1;
        json_t *jr = json_object_get(o, "regs");
        if (jr) {
            if (get_count(c, jr, join(q, p, "regs"), 0, INT32_MAX, &x))
                return -1;
            /* CUDA's per-thread limit on every architecture since Kepler
             * (TX2 paper §3.2, "Register resources"). */
            if (x > 255)
                return fail(c, q, "%" PRId64 " is more than 255 registers per thread", x);
            op->regs = (int32_t)x;
        }
        json_t *jb = json_object_get(o, "block_time");
        join(q, p, "block_time");
        if (json_is_array(jb)) {
            size_t n = json_array_size(jb);
            if (n == 0)
                return fail(c, q, "must not be an empty array");
            op->block_time = calloc(n, sizeof *op->block_time);
            if (!op->block_time)
                return oom(c);
            op->nblock_time = n;
            for (size_t k = 0; k < n; k++) {
                char r[PATH_MAX_LEN];
                if (parse_dur(c, json_array_get(jb, k), index_path(r, q, k), &op->block_time[k]))
                    return -1;
            }
        } else {
            op->block_time = calloc(1, sizeof *op->block_time);
            if (!op->block_time)
                return oom(c);
            op->nblock_time = 1;
            if (parse_dur(c, jb, q, &op->block_time[0]))
                return -1;
        }
    } else if (op->kind == SIM_OP_COPY) {
        json_t *jb = json_object_get(o, "bytes"), *jd = json_object_get(o, "direction");
        if (!jb)
            return fail(c, p, "copy \"%s\" is missing \"bytes\"", name);
        if (!jd)
            return fail(c, p, "copy \"%s\" is missing \"direction\" (h2d, d2h or d2d)", name);
        if (parse_qty(c, jb, join(q, p, "bytes"), Q_SIZE, &op->bytes, NULL))
            return -1;
        const char *dir = NULL;
        if (get_string(c, jd, join(q, p, "direction"), &dir))
            return -1;
        static const char *const dirs[] = {"h2d", "d2h", "d2d"};
        static const int32_t dirv[] = {TRACE_COPY_H2D, TRACE_COPY_D2H, TRACE_COPY_D2D};
        int found = -1;
        for (int k = 0; k < 3; k++)
            if (strcmp(dir, dirs[k]) == 0)
                found = k;
        if (found < 0)
            return fail_unknown(c, q, "direction", dir, dirs, 3);
        op->direction = dirv[found];
    }
    return 0;
}

/* ---- variants and run names ---------------------------------------------- */

static const char *const variant_keys[] = {"name", "policy", "device", NULL};

/* Run 0's name says what the variants change, valued as the base has it:
 * with a variant "round-robin" that sets policy.placement the base run is
 * "most-room"; with one that sets device it is the base device's name. */
static int name_base_run(pctx *c)
{
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
#define ADD_PART(...)                                                                \
    do {                                                                             \
        int w_ = snprintf(name + used, sizeof name - used, "%s", used ? ", " : ""); \
        if (w_ > 0 && (size_t)w_ < sizeof name - used)                               \
            used += (size_t)w_;                                                      \
        w_ = snprintf(name + used, sizeof name - used, __VA_ARGS__);                \
        if (w_ > 0 && (size_t)w_ < sizeof name - used)                               \
            used += (size_t)w_;                                                      \
    } while (0)
    if (given & POL_PLACEMENT)
        ADD_PART("%s", sim_placement_name(b->placement));
    if (given & POL_LAUNCH) {
        if (b->launch_latency.cycles)
            ADD_PART("launch_latency %" PRId64 " cycles", b->launch_latency.v);
        else
            ADD_PART("launch_latency %s", fmt_ns(tmp, sizeof tmp, b->launch_latency.v));
    }
    if (given & POL_DISPATCH) {
        if (b->dispatch_latency.cycles)
            ADD_PART("dispatch_latency %" PRId64 " cycles", b->dispatch_latency.v);
        else
            ADD_PART("dispatch_latency %s", fmt_ns(tmp, sizeof tmp, b->dispatch_latency.v));
    }
    if (device)
        ADD_PART("%s", d->name);
#undef ADD_PART
    bool clash = used == 0;
    for (size_t r = 1; r < s->nruns && !clash; r++)
        clash = strcmp(s->runs[r].name, name) == 0;
    s->runs[0].name = own(c, clash ? "default" : name);
    if (!s->runs[0].name)
        return oom(c);
    return 0;
}

static int parse_variants(pctx *c, json_t *v)
{
    char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
    scn_scenario *s = c->s;
    if (!json_is_array(v))
        return fail(c, "variants", "must be an array, not %s", type_name(v));
    for (size_t i = 0; i < json_array_size(v); i++) {
        json_t *o = json_array_get(v, i);
        scn_run *run = &s->runs[i + 1];
        index_path(p, "variants", i);
        if (need_object(c, o, p) || check_keys(c, o, p, variant_keys))
            return -1;
        json_t *jn = json_object_get(o, "name");
        const char *name = NULL;
        if (!jn)
            return fail(c, p, "missing \"name\"");
        if (get_name(c, jn, join(q, p, "name"), &name))
            return -1;
        if (strcmp(name, "default") == 0)
            return fail(c, q, "\"default\" is kept for the base run; choose another name");
        for (size_t j = 1; j <= i; j++)
            if (strcmp(s->runs[j].name, name) == 0)
                return fail(c, q, "\"%s\" is already variants[%zu]", name, j - 1);
        if (!(run->name = own(c, name)))
            return oom(c);
        json_t *jp = json_object_get(o, "policy"), *jd = json_object_get(o, "device");
        if (!jp && !jd)
            return fail(c, p, "changes nothing; give \"policy\" and/or \"device\"");
        run->raw = s->runs[0].raw;
        run->raw.given = 0;
        run->device = s->runs[0].device;
        if (jp && parse_policy(c, jp, join(q, p, "policy"), &run->raw))
            return -1;
        if (jd) {
            if (parse_device(c, jd, join(q, p, "device"), &s->runs[0].device, &run->device))
                return -1;
            run->device_given = true;
        }
    }
    return 0;
}

/* ---- resolving a run against its device ---------------------------------- */

static int check_kernel(pctx *c, const sim_op *op, const sim_device *d, const char *p)
{
    char q[PATH_MAX_LEN], a[32], b[32];
    if (d->max_threads_per_block > 0 && op->threads > d->max_threads_per_block)
        return fail(c, join(q, p, "threads"), "%" PRId32 " is more than the device's "
                    "max_threads_per_block (%" PRId32 ")", op->threads, d->max_threads_per_block);
    if (op->threads > d->threads_per_sm)
        return fail(c, join(q, p, "threads"), "%" PRId32 " is more than the device's "
                    "threads_per_sm (%" PRId32 ")", op->threads, d->threads_per_sm);
    if (d->warp_size > 0) {
        int64_t warps = (op->threads + d->warp_size - 1) / d->warp_size;
        if (d->warps_per_sm > 0 && warps > d->warps_per_sm)
            return fail(c, join(q, p, "threads"), "a block of %" PRId32 " threads needs %" PRId64
                        " warps but an SM has %" PRId32 " (warps_per_sm)", op->threads, warps,
                        d->warps_per_sm);
    }
    /* most-room §4.2: a block larger than any SM can never be placed. */
    if (op->smem > d->smem_per_sm)
        return fail(c, join(q, p, "smem"), "a block needs %s but an SM has %s",
                    fmt_size(a, sizeof a, op->smem), fmt_size(b, sizeof b, d->smem_per_sm));
    if (d->max_smem_per_block > 0 && op->smem > d->max_smem_per_block)
        return fail(c, join(q, p, "smem"), "a block needs %s but the device allows %s per "
                    "block (max_smem_per_block)", fmt_size(a, sizeof a, op->smem),
                    fmt_size(b, sizeof b, d->max_smem_per_block));
    int64_t regs = (int64_t)op->regs * op->threads;
    if (regs > d->regs_per_sm)
        return fail(c, join(q, p, "regs"), "a block needs %" PRId64 " registers (%" PRId32
                    " threads x %" PRId32 ") but an SM has %" PRId64, regs, op->threads, op->regs,
                    d->regs_per_sm);
    if (d->max_regs_per_block > 0 && regs > d->max_regs_per_block)
        return fail(c, join(q, p, "regs"), "a block needs %" PRId64 " registers (%" PRId32
                    " threads x %" PRId32 ") but the device allows %" PRId64
                    " per block (max_regs_per_block)", regs, op->threads, op->regs,
                    d->max_regs_per_block);
    return 0;
}

static int64_t sat_add(int64_t a, int64_t b)
{
    return a > INT64_MAX - b ? INT64_MAX : a + b;
}

static int64_t sat_mul(int64_t a, int64_t b)
{
    return (b != 0 && a > INT64_MAX / b) ? INT64_MAX : a * b;
}

/* Everything the simulator could ever wait for, added up, must stay far from
 * int64 overflow (TRACE_NONE is INT64_MIN; times are int64_t ns). */
#define SCN_MAX_MAKESPAN (INT64_MAX / 4)

static int build_run(pctx *c, size_t r)
{
    scn_scenario *s = c->s;
    scn_run *run = &s->runs[r];
    const sim_device *d = &run->device;
    char p[PATH_MAX_LEN], q[PATH_MAX_LEN];

    if (resolve_dur(c, run->raw.launch_latency, d, "policy.launch_latency",
                    &run->policy.launch_latency) ||
        resolve_dur(c, run->raw.dispatch_latency, d, "policy.dispatch_latency",
                    &run->policy.dispatch_latency))
        return -1;
    run->policy.placement = run->raw.placement;

    size_t ntimes = 0;
    for (size_t i = 0; i < s->nops; i++)
        ntimes += s->rawops[i].nblock_time;
    run->ops = calloc(s->nops ? s->nops : 1, sizeof *run->ops);
    run->times = calloc(ntimes ? ntimes : 1, sizeof *run->times);
    if (!run->ops || !run->times)
        return oom(c);

    int64_t makespan = 0;
    size_t t = 0;
    for (size_t i = 0; i < s->nops; i++) {
        const scn_rawop *ro = &s->rawops[i];
        sim_op *op = &run->ops[i];
        index_path(p, "ops", i);
        op->kind = ro->kind;
        op->name = ro->name;
        op->stream = ro->stream;
        if (resolve_dur(c, ro->at, d, join(q, p, "at"), &op->at))
            return -1;
        makespan = sat_add(makespan, op->at);
        op->direction = ro->direction;
        if (ro->kind == SIM_OP_KERNEL) {
            op->blocks = ro->blocks;
            op->threads = ro->threads;
            op->smem = ro->smem;
            op->regs = ro->regs;
            op->block_time = &run->times[t];
            op->nblock_time = ro->nblock_time;
            int64_t longest = 0;
            for (size_t k = 0; k < ro->nblock_time; k++) {
                char b[PATH_MAX_LEN];
                join(q, p, "block_time");
                if (ro->nblock_time > 1)
                    index_path(b, q, k);
                else
                    snprintf(b, sizeof b, "%s", q);
                if (resolve_dur(c, ro->block_time[k], d, b, &run->times[t + k]))
                    return -1;
                if (run->times[t + k] > longest)
                    longest = run->times[t + k];
            }
            t += ro->nblock_time;
            if (check_kernel(c, op, d, p))
                return -1;
            makespan = sat_add(makespan, sat_mul(ro->blocks,
                               sat_add(longest, run->policy.dispatch_latency)));
        } else if (ro->kind == SIM_OP_COPY) {
            op->bytes = ro->bytes;
            if (d->copy_engines < 1)
                return fail(c, p, "a copy needs a copy engine but the device has "
                            "copy_engines = %" PRId32, d->copy_engines);
            if (!(d->copy_bandwidth > 0))
                return fail(c, p, "a copy needs the device's copy_bandwidth; set "
                            "device.copy_bandwidth (e.g. \"12GB/s\")");
            double ns = (double)ro->bytes / d->copy_bandwidth * 1e9;
            makespan = ns >= 4.0e18 ? INT64_MAX : sat_add(makespan, (int64_t)ns);
        }
        makespan = sat_add(makespan, run->policy.launch_latency);
    }
    if (makespan > SCN_MAX_MAKESPAN)
        return fail(c, "ops", "the scenario could run longer than this build can count "
                    "(about 73 years of simulated time)");
    return 0;
}

/* ---- top level ----------------------------------------------------------- */

static const char *const top_keys[] = {
    "schema", "name", "description", "device", "policy", "streams", "ops", "variants", "seed",
    NULL};

static const char *base_name_of(const char *file, char *buf, size_t n)
{
    const char *b = strrchr(file, '/');
    b = b ? b + 1 : file;
    snprintf(buf, n, "%s", b);
    size_t l = strlen(buf);
    if (l > 5 && strcmp(buf + l - 5, ".json") == 0)
        buf[l - 5] = '\0';
    return buf;
}

static int parse_root(pctx *c, json_t *root)
{
    scn_scenario *s = c->s;
    if (!json_is_object(root))
        return fail(c, "", "a scenario is a JSON object, not %s", type_name(root));
    if (check_keys(c, root, "", top_keys))
        return -1;

    json_t *v = json_object_get(root, "schema");
    const char *str = NULL;
    if (!v)
        return fail(c, "schema", "missing (write \"schema\": \"" SCN_SCHEMA "\")");
    if (get_string(c, v, "schema", &str))
        return -1;
    if (strcmp(str, SCN_SCHEMA) != 0)
        return fail(c, "schema", "\"%s\" is not supported (this build reads \"" SCN_SCHEMA
                    "\")", str);

    char buf[256];
    v = json_object_get(root, "name");
    if (v) {
        if (get_name(c, v, "name", &str))
            return -1;
    } else {
        str = base_name_of(c->file, buf, sizeof buf);
    }
    if (!(s->name = own(c, str)))
        return oom(c);
    v = json_object_get(root, "description");
    str = "";
    if (v && get_string(c, v, "description", &str))
        return -1;
    if (!(s->description = own(c, str)))
        return oom(c);
    v = json_object_get(root, "seed");
    if (v) {
        int64_t seed;
        if (get_count(c, v, "seed", 0, INT64_MAX, &seed))
            return -1;
        s->seed = (uint64_t)seed;
    }

    json_t *jv = json_object_get(root, "variants");
    size_t nvar = json_is_array(jv) ? json_array_size(jv) : 0;
    s->runs = calloc(1 + nvar, sizeof *s->runs);
    if (!s->runs)
        return oom(c);
    s->nruns = 1 + nvar;

    v = json_object_get(root, "device");
    if (!v)
        return fail(c, "device", "missing (a preset name such as \"tx2\", or an object)");
    if (parse_device(c, v, "device", NULL, &s->runs[0].device))
        return -1;

    scn_rawpolicy *pol = &s->runs[0].raw;
    pol->placement = sim_placement_find("most-room");
    if (pol->placement < 0)
        return fail(c, "policy.placement", "this build has no \"most-room\" placement");
    v = json_object_get(root, "policy");
    if (v && parse_policy(c, v, "policy", pol))
        return -1;

    size_t cap = 0;
    v = json_object_get(root, "streams");
    if (v && parse_streams(c, v, &cap))
        return -1;
    size_t ndeclared = s->nstreams;

    v = json_object_get(root, "ops");
    if (!v)
        return fail(c, "ops", "missing (the kernels, copies and syncs to run)");
    if (!json_is_array(v))
        return fail(c, "ops", "must be an array, not %s", type_name(v));
    if (json_array_size(v) == 0)
        return fail(c, "ops", "is empty; give at least one kernel or copy");
    s->rawops = calloc(json_array_size(v), sizeof *s->rawops);
    if (!s->rawops)
        return oom(c);
    int64_t total_blocks = 0;
    for (size_t i = 0; i < json_array_size(v); i++) {
        int rc = parse_op(c, json_array_get(v, i), i, ndeclared, &cap, &total_blocks,
                          &s->rawops[i]);
        s->nops = i + 1;   /* so scn_free releases a half-parsed op's arrays */
        if (rc)
            return -1;
    }

    if (jv && parse_variants(c, jv))
        return -1;
    if (name_base_run(c))
        return -1;

    for (size_t r = 0; r < s->nruns; r++) {
        char pfx[PATH_MAX_LEN + 80];
        scn_run *run = &s->runs[r];
        if (r == 0)
            pfx[0] = '\0';
        else
            snprintf(pfx, sizeof pfx, "variants[%zu] (\"%s\"): ", r - 1, run->name);
        c->runpfx = pfx;
        int rc = build_run(c, r);
        c->runpfx = "";
        if (rc)
            return -1;
        if (s->nruns == 1) {
            run->label = s->name;
        } else {
            snprintf(buf, sizeof buf, "%s [%s]", s->name, run->name);
            if (!(run->label = own(c, buf)))
                return oom(c);
        }
    }
    return 0;
}

int scn_parse(const char *text, size_t len, const char *file, scn_scenario **out, char *err,
              size_t errlen)
{
    *out = NULL;
    if (err && errlen)
        err[0] = '\0';
    if (!file)
        file = "scenario";
    json_error_t jerr;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        if (err && errlen) {
            snprintf(err, errlen, "%s:%d:%d: JSON: %s", file, jerr.line, jerr.column, jerr.text);
            one_line(err, errlen);   /* jansson quotes the bad token, newlines and all */
        }
        return -1;
    }
    scn_scenario *s = calloc(1, sizeof *s);
    if (!s) {
        json_decref(root);
        if (err && errlen)
            snprintf(err, errlen, "%s: out of memory", file);
        return -1;
    }
    pctx c = {file, err, errlen, s, ""};
    int rc = parse_root(&c, root);
    json_decref(root);
    if (rc) {
        scn_free(s);
        return -1;
    }
    *out = s;
    return 0;
}

/* Scenarios are small; anything past this is not a scenario. */
#define SCN_MAX_FILE (64u << 20)

int scn_parse_file(const char *path, scn_scenario **out, char *err, size_t errlen)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    size_t cap = 65536, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (len < cap)
            break;
        if (cap >= SCN_MAX_FILE) {
            free(buf);
            fclose(f);
            snprintf(err, errlen, "%s: larger than %u MB; not a scenario", path,
                     SCN_MAX_FILE >> 20);
            return -1;
        }
        char *nb = realloc(buf, cap * 2);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    if (!buf) {
        fclose(f);
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    if (ferror(f)) {
        int e = errno;
        free(buf);
        fclose(f);
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(e));
        return -1;
    }
    fclose(f);
    int rc = scn_parse(buf, len, path, out, err, errlen);
    free(buf);
    return rc;
}

void scn_free(scn_scenario *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nops; i++)
        free(s->rawops[i].block_time);
    free(s->rawops);
    for (size_t r = 0; r < s->nruns; r++) {
        free(s->runs[r].ops);
        free(s->runs[r].times);
    }
    free(s->runs);
    free(s->streams);
    for (size_t i = 0; i < s->nstrs; i++)
        free(s->strs[i]);
    free(s->strs);
    free(s);
}

const char *scn_name(const scn_scenario *s)
{
    return s->name;
}

const char *scn_description(const scn_scenario *s)
{
    return s->description;
}

size_t scn_run_count(const scn_scenario *s)
{
    return s->nruns;
}

const char *scn_run_name(const scn_scenario *s, size_t run)
{
    return run < s->nruns ? s->runs[run].name : NULL;
}

int scn_find_run(const scn_scenario *s, const char *name)
{
    for (size_t r = 0; r < s->nruns; r++)
        if (strcmp(s->runs[r].name, name) == 0)
            return (int)r;
    return -1;
}

int scn_config(const scn_scenario *s, size_t run, sim_config *out, char *err, size_t errlen)
{
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
    return 0;
}
