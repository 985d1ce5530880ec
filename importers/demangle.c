/* demangle.c -- the subset of the Itanium C++ ABI mangling
 * (https://itanium-cxx-abi.github.io/cxx-abi/abi.html#mangling) that CUDA
 * kernel names use, printed the way GNU c++filt prints them:
 *
 *   nested names (N...E), std:: (St), template arguments (I...E) of types,
 *   integer literals (L<type><value>E) and packs (J...E), template
 *   parameters (T_, T0_), builtin types, pointers/references/cv-qualifiers,
 *   substitutions (S_, S0_, Sa/Sb/Ss/Si/So/Sd), the anonymous namespace
 *   (_GLOBAL__N_1), internal linkage (_ZL), Dp pack expansions of a
 *   parameter pack.
 *
 * Anything else (operators, constructors, lambdas, local names, function or
 * array types, expressions, clone suffixes) makes imp_demangle() return NULL
 * and the importer shows the raw name: a wrong display name would be worse
 * than an ugly one.
 *
 * Every string built here lives in a per-call arena freed before returning;
 * a byte budget and a depth limit keep hostile input (substitutions that
 * double at every step, deep pointer chains) cheap. */
#include "formats.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define DM_MAX_DEPTH 128
#define DM_BUDGET (1u << 20)

typedef struct dm_arg {
    const char *s;           /* display form; a pack is "a, b" */
} dm_arg;

typedef struct dm {
    const char *s;
    size_t n, p;
    int depth;
    bool fail;
    size_t spent;            /* bytes allocated so far */
    char **arena;
    size_t narena, arenacap;
    const char **subs;       /* substitution candidates, in order */
    size_t nsubs, subcap;
    dm_arg *targs;           /* the function's template arguments (T_ ...) */
    size_t ntargs;
} dm;

typedef struct dm_name_info {
    bool templated;          /* the name ends in template args: a return type follows */
    const char *cv;          /* member function qualifiers, "" if none */
} dm_name_info;

static void *dm_alloc(dm *d, size_t n) {
    if (d->fail) return NULL;
    d->spent += n;
    if (d->spent > DM_BUDGET) { d->fail = true; return NULL; }
    if (d->narena == d->arenacap) {
        size_t ncap = d->arenacap ? d->arenacap * 2 : 64;
        char **na = realloc(d->arena, ncap * sizeof *na);
        if (!na) { d->fail = true; return NULL; }
        d->arena = na;
        d->arenacap = ncap;
    }
    void *m = malloc(n ? n : 1);
    if (!m) { d->fail = true; return NULL; }
    d->arena[d->narena++] = m;
    return m;
}

/* Concatenate up to four strings (NULLs skipped) into a new arena string. */
static const char *cat4(dm *d, const char *a, const char *b, const char *c, const char *e) {
    const char *parts[4] = {a, b, c, e};
    size_t len[4], total = 0;
    for (int i = 0; i < 4; i++) {
        len[i] = parts[i] ? strlen(parts[i]) : 0;
        total += len[i];
    }
    char *out = dm_alloc(d, total + 1);
    if (!out) return NULL;
    size_t o = 0;
    for (int i = 0; i < 4; i++) {
        if (len[i]) memcpy(out + o, parts[i], len[i]);
        o += len[i];
    }
    out[o] = '\0';
    return out;
}

static const char *cat(dm *d, const char *a, const char *b) { return cat4(d, a, b, NULL, NULL); }

static const char *dup_n(dm *d, const char *s, size_t n) {
    char *out = dm_alloc(d, n + 1);
    if (!out) return NULL;
    memcpy(out, s, n);
    out[n] = '\0';
    return out;
}

static const char *fail(dm *d) {
    d->fail = true;
    return NULL;
}

static char peek(const dm *d) { return d->p < d->n ? d->s[d->p] : '\0'; }
static char peek2(const dm *d) { return d->p + 1 < d->n ? d->s[d->p + 1] : '\0'; }

static bool eat(dm *d, char c) {
    if (peek(d) != c) return false;
    d->p++;
    return true;
}

static void add_sub(dm *d, const char *s) {
    if (d->fail || !s) return;
    if (d->nsubs == d->subcap) {
        size_t ncap = d->subcap ? d->subcap * 2 : 32;
        const char **ns = realloc(d->subs, ncap * sizeof *ns);
        if (!ns) { d->fail = true; return; }
        d->subs = ns;
        d->subcap = ncap;
    }
    d->subs[d->nsubs++] = s;
}

static const char *parse_type(dm *d);
static const char *parse_name(dm *d, bool top, dm_name_info *ni);
static const char *parse_encoding(dm *d, bool top);

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* <number> ::= [n] <decimal>; returns false on overflow or no digits. */
static bool parse_number(dm *d, bool *neg, unsigned long long *v) {
    *neg = eat(d, 'n');
    if (!is_digit(peek(d))) return false;
    unsigned long long x = 0;
    while (is_digit(peek(d))) {
        unsigned digit = (unsigned)(d->s[d->p++] - '0');
        if (x > (~0ULL - digit) / 10) return false;
        x = x * 10 + digit;
    }
    *v = x;
    return true;
}

/* <source-name> ::= <length> <identifier> */
static const char *parse_source_name(dm *d) {
    bool neg;
    unsigned long long len;
    if (!parse_number(d, &neg, &len) || neg || len == 0 || len > d->n - d->p) return fail(d);
    const char *id = d->s + d->p;
    d->p += (size_t)len;
    /* GCC and NVCC spell the anonymous namespace _GLOBAL__N_<n> */
    if (len >= 10 && strncmp(id, "_GLOBAL__N", 10) == 0) return "(anonymous namespace)";
    return dup_n(d, id, (size_t)len);
}

static const char *parse_unqualified(dm *d) {
    eat(d, 'L');             /* internal linkage (static __global__) prints the same */
    if (is_digit(peek(d))) return parse_source_name(d);
    /* operators, constructors/destructors, lambdas, unnamed types */
    return fail(d);
}

/* <seq-id> _ | _ | one of the std abbreviations */
static const char *parse_substitution(dm *d) {
    if (!eat(d, 'S')) return fail(d);
    char c = peek(d);
    static const struct { char c; const char *s; } abbrev[] = {
        {'a', "std::allocator"}, {'b', "std::basic_string"}, {'s', "std::string"},
        {'i', "std::istream"},   {'o', "std::ostream"},      {'d', "std::iostream"},
    };
    for (size_t i = 0; i < sizeof abbrev / sizeof abbrev[0]; i++)
        if (c == abbrev[i].c) {
            d->p++;
            return abbrev[i].s;
        }
    size_t idx = 0;
    if (c == '_') {
        d->p++;
    } else {
        size_t seq = 0;
        bool any = false;
        for (;;) {
            c = peek(d);
            unsigned v;
            if (is_digit(c)) v = (unsigned)(c - '0');
            else if (c >= 'A' && c <= 'Z') v = (unsigned)(c - 'A') + 10;
            else break;
            if (seq > (SIZE_MAX - v) / 36) return fail(d);
            seq = seq * 36 + v;
            any = true;
            d->p++;
        }
        if (!any || !eat(d, '_')) return fail(d);
        idx = seq + 1;
    }
    if (idx >= d->nsubs) return fail(d);
    return d->subs[idx];
}

/* T_ | T <n> _ */
static const char *parse_template_param(dm *d) {
    if (!eat(d, 'T')) return fail(d);
    size_t idx = 0;
    if (!eat(d, '_')) {
        bool neg;
        unsigned long long v;
        if (!parse_number(d, &neg, &v) || neg || !eat(d, '_') || v >= SIZE_MAX - 1) return fail(d);
        idx = (size_t)v + 1;
    }
    if (idx >= d->ntargs) return fail(d);
    return d->targs[idx].s;
}

static const char *builtin(char c) {
    switch (c) {
    case 'v': return "void";
    case 'w': return "wchar_t";
    case 'b': return "bool";
    case 'c': return "char";
    case 'a': return "signed char";
    case 'h': return "unsigned char";
    case 's': return "short";
    case 't': return "unsigned short";
    case 'i': return "int";
    case 'j': return "unsigned int";
    case 'l': return "long";
    case 'm': return "unsigned long";
    case 'x': return "long long";
    case 'y': return "unsigned long long";
    case 'n': return "__int128";
    case 'o': return "unsigned __int128";
    case 'f': return "float";
    case 'd': return "double";
    case 'e': return "long double";
    case 'g': return "__float128";
    case 'z': return "...";
    default: return NULL;
    }
}

static const char *builtin_d(char c) {
    switch (c) {
    case 'h': return "half";
    case 'n': return "decltype(nullptr)";
    case 'i': return "char32_t";
    case 's': return "char16_t";
    case 'u': return "char8_t";
    default: return NULL;
    }
}

/* <template-arg> list; `set` makes them the T_ table (the function's own). */
static const char *parse_template_args(dm *d, bool set) {
    if (!eat(d, 'I')) return fail(d);
    dm_arg *args = NULL;
    size_t nargs = 0, cap = 0;
    const char *out = "<";
    while (!d->fail && peek(d) != 'E') {
        if (d->p >= d->n) goto bad;
        const char *a = NULL;
        char c = peek(d);
        if (c == 'L') {
            d->p++;
            if (peek(d) == '_' && peek2(d) == 'Z') {
                d->p += 2;
                a = parse_encoding(d, false);
            } else {
                const char *ty;
                char tc = peek(d);
                bool is_builtin = builtin(tc) != NULL;
                if (is_builtin) {
                    ty = builtin(tc);
                    d->p++;
                } else {
                    ty = parse_type(d);
                }
                bool neg;
                unsigned long long v;
                if (!ty || !parse_number(d, &neg, &v)) goto bad;
                char num[32];
                size_t k = sizeof num;
                num[--k] = '\0';
                do {
                    num[--k] = (char)('0' + v % 10);
                    v /= 10;
                } while (v);
                if (neg) num[--k] = '-';
                const char *n = num + k;
                if (is_builtin && tc == 'b' && (strcmp(n, "0") == 0 || strcmp(n, "1") == 0))
                    a = n[0] == '1' ? "true" : "false";
                else if (is_builtin && tc == 'i') a = dup_n(d, n, strlen(n));
                else if (is_builtin && tc == 'j') a = cat(d, n, "u");
                else if (is_builtin && tc == 'l') a = cat(d, n, "l");
                else if (is_builtin && tc == 'm') a = cat(d, n, "ul");
                else if (is_builtin && tc == 'x') a = cat(d, n, "ll");
                else if (is_builtin && tc == 'y') a = cat(d, n, "ull");
                else a = cat4(d, "(", ty, ")", n);
            }
            if (!eat(d, 'E')) goto bad;
        } else if (c == 'J') {
            d->p++;
            const char *pack = "";
            bool first = true;
            while (!d->fail && peek(d) != 'E') {
                if (d->p >= d->n) goto bad;
                const char *e = parse_type(d);
                pack = first ? e : cat4(d, pack, ", ", e, NULL);
                first = false;
            }
            if (!eat(d, 'E')) goto bad;
            a = pack;
        } else {
            a = parse_type(d);
        }
        if (d->fail || !a) goto bad;
        if (nargs == cap) {
            cap = cap ? cap * 2 : 8;
            dm_arg *na = realloc(args, cap * sizeof *na);
            if (!na) goto bad;
            args = na;
        }
        args[nargs++].s = a;
        out = cat4(d, out, nargs > 1 ? ", " : "", a, NULL);
    }
    if (d->fail || !eat(d, 'E')) goto bad;
    /* libiberty keeps C++03's "> >" */
    size_t ol = strlen(out);
    out = cat(d, out, ol > 0 && out[ol - 1] == '>' ? " >" : ">");
    if (set) {
        /* the table must outlive this call: copy it into the arena */
        dm_arg *kept = dm_alloc(d, (nargs ? nargs : 1) * sizeof *kept);
        if (kept && nargs) memcpy(kept, args, nargs * sizeof *kept);
        d->targs = kept;
        d->ntargs = kept ? nargs : 0;
    }
    free(args);
    return out;
bad:
    free(args);
    return fail(d);
}

static const char *parse_cv(dm *d) {
    bool r = eat(d, 'r'), v = eat(d, 'V'), k = eat(d, 'K');
    return cat4(d, k ? " const" : "", v ? " volatile" : "", r ? " __restrict" : "", NULL);
}

/* N [<CV>] [<ref>] <prefix> <unqualified-name> E */
static const char *parse_nested(dm *d, bool top, dm_name_info *ni) {
    if (!eat(d, 'N')) return fail(d);
    const char *cv = parse_cv(d);
    const char *ref = "";
    if (eat(d, 'R')) ref = " &";
    else if (eat(d, 'O')) ref = " &&";
    ni->cv = cat(d, cv, ref);
    const char *cur = NULL;
    ni->templated = false;
    while (!d->fail && peek(d) != 'E') {
        if (d->p >= d->n) return fail(d);
        char c = peek(d);
        if (c == 'S' && peek2(d) == 't' && !cur) {
            d->p += 2;
            cur = "std";
            continue;
        }
        if (c == 'S' && !cur) {
            cur = parse_substitution(d);
            ni->templated = false;
            continue;
        }
        if (c == 'I') {
            if (!cur) return fail(d);
            const char *args = parse_template_args(d, top);
            cur = cat(d, cur, args);
            ni->templated = true;
        } else if (c == 'T') {
            if (cur) return fail(d);
            cur = parse_template_param(d);
            ni->templated = false;
        } else {
            const char *u = parse_unqualified(d);
            cur = cur ? cat4(d, cur, "::", u, NULL) : u;
            ni->templated = false;
        }
        /* every prefix is a candidate; the whole name only as a type,
         * which parse_type adds itself */
        if (peek(d) != 'E') add_sub(d, cur);
    }
    if (!cur || !eat(d, 'E')) return fail(d);
    return cur;
}

static const char *parse_name(dm *d, bool top, dm_name_info *ni) {
    ni->templated = false;
    ni->cv = "";
    char c = peek(d);
    if (c == 'N') return parse_nested(d, top, ni);
    const char *nm;
    if (c == 'S' && peek2(d) == 't') {
        d->p += 2;
        nm = cat(d, "std::", parse_unqualified(d));
    } else if (c == 'S') {
        nm = parse_substitution(d);
        if (peek(d) != 'I') return fail(d);   /* a bare substitution is no name */
        const char *args = parse_template_args(d, top);
        ni->templated = true;
        return cat(d, nm, args);
    } else {
        nm = parse_unqualified(d);
    }
    if (peek(d) == 'I') {
        add_sub(d, nm);                       /* <unscoped-template-name> */
        const char *args = parse_template_args(d, top);
        ni->templated = true;
        return cat(d, nm, args);
    }
    return nm;
}

static const char *parse_type(dm *d) {
    if (d->fail) return NULL;
    if (++d->depth > DM_MAX_DEPTH) return fail(d);
    const char *t = NULL;
    char c = peek(d);
    const char *b = builtin(c);
    if (b) {
        d->p++;
        t = b;
    } else if (c == 'D' && builtin_d(peek2(d))) {
        t = builtin_d(peek2(d));
        d->p += 2;
    } else if (c == 'D' && peek2(d) == 'F' ) {
        /* DF16_ etc.: _FloatN */
        d->p += 2;
        bool neg;
        unsigned long long bits;
        if (!parse_number(d, &neg, &bits) || neg || bits > 256 || !eat(d, '_')) return fail(d);
        char num[8];
        size_t k = sizeof num;
        num[--k] = '\0';
        do {
            num[--k] = (char)('0' + bits % 10);
            bits /= 10;
        } while (bits);
        t = cat(d, "_Float", num + k);
    } else if (c == 'D' && peek2(d) == 'p') {
        /* Dp T_: the expansion of a parameter pack prints its elements */
        d->p += 2;
        if (peek(d) != 'T') return fail(d);
        t = parse_type(d);
        add_sub(d, t);
    } else if (c == 'r' || c == 'V' || c == 'K') {
        const char *cv = parse_cv(d);
        const char *inner = parse_type(d);
        t = cat(d, inner, cv);
        add_sub(d, t);
    } else if (c == 'P' || c == 'R' || c == 'O') {
        d->p++;
        const char *inner = parse_type(d);
        t = cat(d, inner, c == 'P' ? "*" : c == 'R' ? "&" : "&&");
        add_sub(d, t);
    } else if (c == 'u') {
        d->p++;
        t = parse_source_name(d);
        add_sub(d, t);
    } else if (c == 'T') {
        t = parse_template_param(d);
        add_sub(d, t);
        if (peek(d) == 'I') {
            t = cat(d, t, parse_template_args(d, false));
            add_sub(d, t);
        }
    } else if (c == 'S' && peek2(d) != 't') {
        t = parse_substitution(d);
        if (peek(d) == 'I') {
            t = cat(d, t, parse_template_args(d, false));
            add_sub(d, t);
        }
    } else if (c == 'N' || c == 'S' || is_digit(c) || c == 'L') {
        dm_name_info ni;
        t = parse_name(d, false, &ni);
        add_sub(d, t);
    } else {
        /* function, array, pointer-to-member, vector, decltype types */
        t = fail(d);
    }
    d->depth--;
    return d->fail ? NULL : t;
}

/* <encoding> ::= <name> [<bare-function-type>] */
static const char *parse_encoding(dm *d, bool top) {
    if (++d->depth > DM_MAX_DEPTH) return fail(d);
    dm_name_info ni;
    const char *nm = parse_name(d, top, &ni);
    if (d->fail) return NULL;
    if (d->p >= d->n || peek(d) == 'E') {
        d->depth--;
        return nm;           /* a variable */
    }
    const char *ret = NULL;
    if (ni.templated) ret = parse_type(d);
    const char *params = "";
    size_t count = 0;
    bool only_void = false;
    while (!d->fail && d->p < d->n && peek(d) != 'E') {
        const char *p = parse_type(d);
        if (!p) return fail(d);
        only_void = count == 0 && strcmp(p, "void") == 0;
        if (*p) params = cat4(d, params, *params ? ", " : "", p, NULL);
        count++;
    }
    if (d->fail) return NULL;
    if (count == 1 && only_void) params = "";
    d->depth--;
    const char *sig = cat4(d, nm, "(", params, ")");
    sig = cat(d, sig, ni.cv);
    return ret ? cat4(d, ret, " ", sig, NULL) : sig;
}

const char *imp_demangle(const char *name, char *buf, size_t buflen) {
    if (!name || !buf || buflen == 0 || strncmp(name, "_Z", 2) != 0) return NULL;
    dm d;
    memset(&d, 0, sizeof d);
    d.s = name + 2;
    d.n = strlen(d.s);
    const char *out = parse_encoding(&d, true);
    const char *result = NULL;
    if (out && !d.fail && d.p == d.n) {
        size_t len = strlen(out);
        if (len < buflen) {
            memcpy(buf, out, len + 1);
            result = buf;
        }
    }
    for (size_t i = 0; i < d.narena; i++) free(d.arena[i]);
    free(d.arena);
    free(d.subs);
    return result;
}
