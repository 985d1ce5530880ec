/* jsonr.c -- paths, "did you mean", typed getters and one-line errors for
 * JSON inputs. See jsonr.h. */
#include "jsonr.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- messages ---------------------------------------------------------------- */

/* The message quotes the user's own strings, which may hold control
 * characters; escape them so an error stays one printable line. */
void jr_one_line(char *msg, size_t cap) {
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

int jr_fail(jr_ctx *c, const char *path, const char *fmt, ...) {
    if (!c->err || c->errlen == 0)
        return -1;
    int n = snprintf(c->err, c->errlen, "%s: %s%s%s", c->file, c->pfx ? c->pfx : "",
                     path && *path ? path : "", path && *path ? ": " : "");
    if (n < 0 || (size_t)n >= c->errlen)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    jr_one_line(c->err, c->errlen);
    return -1;
}

int jr_oom(jr_ctx *c) {
    return jr_fail(c, "", "out of memory");
}

/* ---- the parse memory budget (issue 31) ---------------------------------------- */

/* jansson's allocations are counted as they are made, so the live bytes of
 * the tree being built are known while it is built: a parse passing its
 * budget gets NULL from malloc, and jansson gives up at once. Counting is
 * per thread (a parse runs on one) and only between jr_budget_begin and
 * jr_budget_end. The blocks are plain malloc blocks (a json_dumps text is
 * freed with free() all over the server): their size is malloc's own
 * (malloc_usable_size), and a block freed during a parse is taken off it --
 * a parse frees only what it made (jansson's temporaries, the records
 * imp_trace_json_parse is done with). */
#ifdef __GLIBC__
#include <malloc.h>
#define JR_USABLE(p, n) malloc_usable_size(p)
#else
#define JR_USABLE(p, n) (n)
#endif

static _Thread_local struct {
    bool on;
    size_t live, peak, limit;
    bool over;             /* the budget refused an allocation */
    bool oom;              /* malloc itself failed */
} jr_mem;
static _Thread_local bool jr_last_over, jr_last_oom;

static void *jr_malloc(size_t n) {
    if (jr_mem.on && jr_mem.live + n + 16 > jr_mem.limit) {
        jr_mem.over = true;
        return NULL;
    }
    void *p = malloc(n);
    if (!p) {
        if (jr_mem.on) jr_mem.oom = true;
        return NULL;
    }
    if (jr_mem.on) {
        jr_mem.live += JR_USABLE(p, n) + 16;   /* with malloc's own header */
        if (jr_mem.live > jr_mem.peak) jr_mem.peak = jr_mem.live;
    }
    return p;
}

static void jr_free_fn(void *p) {
    if (!p) return;
#ifdef __GLIBC__
    if (jr_mem.on) {
        size_t c = malloc_usable_size(p) + 16;
        jr_mem.live = jr_mem.live > c ? jr_mem.live - c : 0;
    }
#endif
    free(p);
}

static pthread_once_t jr_once = PTHREAD_ONCE_INIT;
static void jr_install(void) { json_set_alloc_funcs(jr_malloc, jr_free_fn); }

void jr_alloc_init(void) { pthread_once(&jr_once, jr_install); }

/* Before main, so any program that links this file counts from its first
 * jansson call on. */
__attribute__((constructor)) static void jr_install_early(void) { jr_alloc_init(); }

void jr_budget_begin(size_t len) {
    jr_alloc_init();
    size_t limit = len > (JR_PARSE_MAX - JR_PARSE_FLOOR) / JR_PARSE_FACTOR
                       ? JR_PARSE_MAX
                       : len * JR_PARSE_FACTOR + JR_PARSE_FLOOR;
    jr_mem.on = true;
    jr_mem.live = jr_mem.peak = 0;
    jr_mem.limit = limit;
    jr_mem.over = jr_mem.oom = false;
    jr_last_over = jr_last_oom = false;
}

void jr_budget_end(void) {
    jr_last_over = jr_mem.over;
    jr_last_oom = jr_mem.oom;
    jr_mem.on = false;
}

size_t jr_budget_peak(void) { return jr_mem.peak; }
bool jr_over_budget(void) { return jr_last_over; }

/* "FILE: JSON: ..." for a parse the budget or malloc stopped; 0 if neither */
static int budget_fail(jr_ctx *c, size_t len) {
    if (jr_last_over)
        return jr_fail(c, "", "JSON: the document needs more than %zu MiB of memory to read "
                       "(%d times its %zu bytes plus %d MiB, at most %d MiB); refused",
                       jr_mem.limit >> 20, JR_PARSE_FACTOR, len, (int)(JR_PARSE_FLOOR >> 20),
                       (int)(JR_PARSE_MAX >> 20));
    if (jr_last_oom) return jr_fail(c, "", "JSON: out of memory reading the document");
    return 0;
}

json_t *jr_load_value(jr_ctx *c, const char *text, size_t len, size_t *used) {
    json_error_t jerr;
    json_t *v = json_loadb(text, len,
                           JSON_REJECT_DUPLICATES | JSON_DISABLE_EOF_CHECK | JSON_DECODE_ANY, &jerr);
    if (v) {
        *used = (size_t)jerr.position;
        return v;
    }
    *used = (size_t)jerr.position;
    if (jr_mem.over || jr_mem.oom) {
        jr_last_over = jr_mem.over;
        jr_last_oom = jr_mem.oom;
        budget_fail(c, len);
    } else if (c->err && c->errlen) {
        snprintf(c->err, c->errlen, "%s", jerr.text);
    }
    return NULL;
}

int jr_error_column(const json_error_t *e) { return e->column == 0 ? 1 : e->column; }

json_t *jr_load(jr_ctx *c, const char *text, size_t len) {
    json_error_t jerr;
    jr_budget_begin(len);
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    jr_budget_end();
    if (!root && budget_fail(c, len)) return NULL;
    if (!root && c->err && c->errlen) {
        if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
            /* jansson's own words quote the invisible U+FEFF: "expected near ''" */
            snprintf(c->err, c->errlen, "%s:1:1: JSON: the text begins with a byte order mark "
                     "(EF BB BF), which RFC 8259 \u00a78.1 says JSON text is not to be sent "
                     "with; save it as UTF-8 without one", c->file);
        else
            snprintf(c->err, c->errlen, "%s:%d:%d: JSON: %s", c->file, jerr.line,
                     jr_error_column(&jerr), jerr.text);
        jr_one_line(c->err, c->errlen);   /* jansson quotes the bad token, newlines and all */
    }
    return root;
}

/* ---- folders of JSON files ----------------------------------------------------- */

static int cmp_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void jr_free_names(char **names, size_t n) {
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

int jr_json_files(const char *dir, char ***names, size_t *n) {
    *names = NULL;
    *n = 0;
    DIR *dp = dir ? opendir(dir) : NULL;
    if (!dp) {
        if (!dir)
            errno = ENOENT;
        return -1;
    }
    char **v = NULL;
    size_t k = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(dp))) {
        size_t l = strlen(e->d_name);
        if (l < 6 || e->d_name[0] == '.' || strcmp(e->d_name + l - 5, ".json") != 0)
            continue;
        char **nv = k == cap ? realloc(v, (cap = cap ? cap * 2 : 16) * sizeof *v) : v;
        if (!nv || !(nv[k] = strdup(e->d_name))) {
            jr_free_names(nv ? nv : v, k);
            closedir(dp);
            errno = ENOMEM;
            return -1;
        }
        v = nv;
        k++;
    }
    closedir(dp);
    if (k)
        qsort(v, k, sizeof *v, cmp_name);   /* readdir's order is the file system's */
    *names = v;
    *n = k;
    return 0;
}

/* ---- paths ------------------------------------------------------------------- */

/* (Both are called for every key and every array entry a reader visits --
 * a program body of 4,588 entries, parsed once per sweep point -- so they
 * copy instead of formatting: snprintf took a quarter of a scenario's
 * parse. Cut as snprintf cuts, at JR_PATH_MAX - 1 bytes.) */
static size_t put(char buf[JR_PATH_MAX], size_t at, const char *s, size_t n) {
    if (at + n > JR_PATH_MAX - 1)
        n = JR_PATH_MAX - 1 - at;
    memmove(buf + at, s, n);   /* (base may lie in buf) */
    return at + n;
}

const char *jr_join(char buf[JR_PATH_MAX], const char *base, const char *key) {
    size_t n = 0;
    if (buf != base)
        n = put(buf, 0, base, strlen(base));
    else
        n = strlen(buf);
    if (*base)
        n = put(buf, n, ".", 1);
    n = put(buf, n, key, strlen(key));
    buf[n] = '\0';
    return buf;
}

const char *jr_index(char buf[JR_PATH_MAX], const char *base, size_t i) {
    char d[24];
    size_t k = sizeof d;
    d[--k] = ']';
    do
        d[--k] = (char)('0' + i % 10);
    while ((i /= 10) != 0);
    d[--k] = '[';
    size_t n = buf != base ? put(buf, 0, base, strlen(base)) : strlen(buf);
    n = put(buf, n, d + k, sizeof d - k);
    buf[n] = '\0';
    return buf;
}

/* ---- keys and names ---------------------------------------------------------- */

const char *jr_type_name(const json_t *v) {
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

static size_t edit_distance(const char *a, const char *b) {
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

void jr_near_init(jr_near *n, const char *word) {
    n->word = word;
    n->best = NULL;
    n->d = SIZE_MAX;
    n->tie = false;
}

void jr_near_add(jr_near *n, const char *cand) {
    if (!cand)
        return;
    size_t d = edit_distance(n->word, cand);
    if (d < n->d) {
        n->d = d;
        n->best = cand;
        n->tie = false;
    } else if (d == n->d && d != SIZE_MAX) {
        n->tie = true;
    }
}

/* best, when it is near enough for a typo of the word: a word all of
 * whose letters are changed is no typo of it ("C" is not "A" mistyped) */
static const char *near_pick(const jr_near *n) {
    size_t len = strlen(n->word);
    size_t limit = len <= 3 ? 1 : len <= 6 ? 2 : 3;
    return n->d <= limit && n->d < len ? n->best : NULL;
}

const char *jr_near_get(const jr_near *n) {
    /* of two of the scenario's names as near, neither is the one meant
     * ("K3" beside K1 and K2, "S4" beside S1, S2, S3) */
    return n->tie ? NULL : near_pick(n);
}

const char *jr_suggest(const char *word, const char *const *cands, size_t n) {
    jr_near near;
    jr_near_init(&near, word);
    for (size_t i = 0; i < n; i++)
        jr_near_add(&near, cands[i]);
    return near_pick(&near);   /* a fixed vocabulary: the first of a tie */
}

size_t jr_count(const char *const *list) {
    size_t n = 0;
    while (list[n])
        n++;
    return n;
}

void jr_list_names(char *buf, size_t n, const char *const *cands, size_t ncands,
                   const char *quote) {
    static const char more[] = ", \u2026";   /* ", ..." (one character) */
    size_t used = 0;
    if (n == 0)
        return;
    buf[0] = '\0';
    for (size_t i = 0; i < ncands; i++) {
        /* a name fits whole, with room left for the mark of the ones after
         * it, or the list ends at the one before: never half a name */
        size_t w = (i ? 2 : 0) + 2 * strlen(quote) + strlen(cands[i]);
        size_t after = i + 1 < ncands ? sizeof more - 1 : 0;
        if (used + w + after >= n) {
            if (used + sizeof more <= n)
                memcpy(buf + used, i ? more : more + 2, sizeof more - (i ? 0 : 2));
            return;
        }
        snprintf(buf + used, n - used, "%s%s%s%s", i ? ", " : "", quote, cands[i], quote);
        used += w;
    }
}

int jr_fail_unknown(jr_ctx *c, const char *path, const char *what, const char *word,
                    const char *const *cands, size_t ncands) {
    const char *near = jr_suggest(word, cands, ncands);
    if (near)
        return jr_fail(c, path, "unknown %s \"%s\" (did you mean \"%s\"?)", what, word, near);
    char list[800];   /* a device's 41 keys: 620 bytes */
    jr_list_names(list, sizeof list, cands, ncands, "");
    return jr_fail(c, path, "unknown %s \"%s\" (known: %s)", what, word, list);
}

int jr_check_keys(jr_ctx *c, json_t *obj, const char *path, const char *const *known) {
    const char *key;
    json_t *val;
    size_t n = jr_count(known);
    json_object_foreach(obj, key, val) {
        bool ok = false;
        for (size_t i = 0; i < n && !ok; i++)
            ok = strcmp(key, known[i]) == 0;
        if (!ok)
            return jr_fail_unknown(c, path, "key", key, known, n);
    }
    return 0;
}

/* ---- typed getters ------------------------------------------------------------- */

json_t *jr_opt(json_t *obj, const char *key) {
    json_t *v = json_object_get(obj, key);
    return v && !json_is_null(v) ? v : NULL;
}

int jr_need_object(jr_ctx *c, json_t *v, const char *path) {
    if (!json_is_object(v))
        return jr_fail(c, path, "must be an object, not %s", jr_type_name(v));
    return 0;
}

int jr_need_array(jr_ctx *c, json_t *v, const char *path) {
    if (!json_is_array(v))
        return jr_fail(c, path, "must be an array, not %s", jr_type_name(v));
    return 0;
}

int jr_get_string(jr_ctx *c, json_t *v, const char *path, const char **out) {
    if (!json_is_string(v))
        return jr_fail(c, path, "must be a string, not %s", jr_type_name(v));
    *out = json_string_value(v);
    return 0;
}

int jr_get_name(jr_ctx *c, json_t *v, const char *path, const char **out) {
    if (jr_get_string(c, v, path, out))
        return -1;
    if (!**out)
        return jr_fail(c, path, "must not be empty");
    return 0;
}

int jr_get_whole(jr_ctx *c, json_t *v, const char *path, int64_t *out) {
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
        /* 1e20 is whole: what is wrong with it is its size */
        if (isfinite(d) && d == floor(d))
            return jr_fail(c, path, "%g is %s than this build reads (%s9e18)", d,
                           d > 0 ? "larger" : "smaller", d > 0 ? "" : "-");
        return jr_fail(c, path, "%g is not a whole number", d);
    }
    return jr_fail(c, path, "must be a number, not %s", jr_type_name(v));
}

int jr_get_count(jr_ctx *c, json_t *v, const char *path, int64_t min, int64_t max,
                 int64_t *out) {
    /* a whole number past int64 is past the range too: say which bound */
    double d = json_is_real(v) ? json_real_value(v) : 0;
    if (isfinite(d) && d == floor(d) && fabs(d) >= 9.0e18) {
        if (d < 0) return jr_fail(c, path, "%g must be at least %" PRId64, d, min);
        return jr_fail(c, path, "%g is more than %" PRId64 ", the most this build accepts", d, max);
    }
    if (jr_get_whole(c, v, path, out))
        return -1;
    if (*out < min)
        return jr_fail(c, path, "%" PRId64 " must be at least %" PRId64, *out, min);
    if (*out > max)
        return jr_fail(c, path, "%" PRId64 " is more than %" PRId64 ", the most this build accepts",
                       *out, max);
    return 0;
}

char *jr_dumps_line(const json_t *j, size_t flags) {
    char *t = json_dumps(j, flags);
    if (!t) return NULL;
    size_t n = strlen(t);
    char *full = realloc(t, n + 2);
    if (!full) {
        free(t);
        return NULL;
    }
    full[n] = '\n';
    full[n + 1] = '\0';
    return full;
}

const char *jr_path_name(const char *path) { return strcmp(path, "-") == 0 ? "stdin" : path; }

char *jr_read_file(const char *path, size_t max, const char *what, size_t *len, char *err,
                   size_t errlen) {
    bool in = strcmp(path, "-") == 0;
    FILE *f = in ? stdin : fopen(path, "rb");
    const char *name = jr_path_name(path);
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    /* room for max + 1 bytes at most: a file of max bytes is read whole,
     * one of more is refused when its byte max + 1 is read */
    size_t cap = max < (1 << 16) ? max + 1 : 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    const char *why = NULL;
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n > max) {
            why = "too large";
            break;
        }
        if (n < cap) break;                 /* end of file, or an error below */
        size_t nc = cap > max / 2 ? max + 1 : cap * 2;
        char *nb = realloc(buf, nc + 1);
        if (!nb) break;
        buf = nb;
        cap = nc;
    }
    int read_err = ferror(f) ? errno : 0;
    if (!in) fclose(f);
    if (why) {
        snprintf(err, errlen, "%s: larger than %zu MB; not a %s", name, max >> 20, what);
    } else if (!buf || n == cap) {
        snprintf(err, errlen, "%s: out of memory", name);
        why = "oom";
    } else if (read_err) {
        snprintf(err, errlen, "%s: cannot read: %s", name, strerror(read_err));
        why = "read";
    }
    if (why) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}
