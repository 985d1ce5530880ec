/* pjson.c -- the pull JSON reader of pjson.h (RFC 8259). */
#include "pjson.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    ST_VALUE = 0,        /* a value must come (top level, after ':' or ',' in an array) */
    ST_VALUE_OR_CLOSE,   /* after '[' */
    ST_KEY,              /* after ',' in an object */
    ST_KEY_OR_CLOSE,     /* after '{' */
    ST_AFTER,            /* after a value: ',' or the container's close (or the end) */
    ST_DONE
};

void pj_init(pj_reader *r, const unsigned char *data, size_t len, pj_refill_fn refill,
             void *user) {
    memset(r, 0, sizeof *r);
    r->chunk = r->p = data;
    r->end = data ? data + len : NULL;
    r->refill = refill;
    r->user = user;
    r->state = ST_VALUE;
}

void pj_free(pj_reader *r) {
    free(r->str);
    r->str = NULL;
    r->len = r->cap = 0;
}

uint64_t pj_offset(const pj_reader *r) {
    return r->before + (uint64_t)(r->p - r->chunk);
}

pj_tok pj_fail(pj_reader *r, const char *fmt, ...) {
    if (!r->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->err, sizeof r->err, fmt, ap);
        va_end(ap);
        r->failed = true;
    }
    return PJ_ERROR;
}

/* Make at least one byte available: 1, 0 at the end of input, -1 on a
 * read error. */
static int fill(pj_reader *r) {
    if (r->p < r->end) return 1;
    while (!r->eof) {
        if (!r->refill) {
            r->eof = true;
            break;
        }
        const unsigned char *b = NULL;
        size_t n = 0;
        r->before += (uint64_t)(r->end - r->chunk);
        r->chunk = r->p = r->end = NULL;
        if (r->refill(r->user, &b, &n) < 0) {
            pj_fail(r, "read error");
            return -1;
        }
        if (n == 0) {
            r->eof = true;
            break;
        }
        r->chunk = r->p = b;
        r->end = b + n;
        return 1;
    }
    return 0;
}

/* The next byte, not consumed; -1 at the end (or after a read error). */
static inline int peek(pj_reader *r) {
    if (r->p < r->end) return *r->p;
    return fill(r) > 0 ? *r->p : -1;
}

static int skip_ws(pj_reader *r) {
    for (;;) {
        while (r->p < r->end) {
            unsigned char c = *r->p;
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return c;
            r->p++;
        }
        if (fill(r) <= 0) return -1;
    }
}

static int put(pj_reader *r, const void *s, size_t n) {
    if (r->len + n + 1 > r->cap) {
        if (r->len + n > PJ_MAX_STRING) {
            pj_fail(r, "byte %llu: a string or number longer than %u bytes",
                    (unsigned long long)pj_offset(r), PJ_MAX_STRING);
            return -1;
        }
        size_t nc = r->cap ? r->cap : 256;
        while (nc < r->len + n + 1) nc *= 2;
        char *ns = realloc(r->str, nc);
        if (!ns) {
            pj_fail(r, "out of memory");
            return -1;
        }
        r->str = ns;
        r->cap = nc;
    }
    memcpy(r->str + r->len, s, n);
    r->len += n;
    r->str[r->len] = '\0';
    return 0;
}

static int put_utf8(pj_reader *r, uint32_t cp) {
    unsigned char b[4];
    size_t n;
    if (cp < 0x80) { b[0] = (unsigned char)cp; n = 1; }
    else if (cp < 0x800) { b[0] = (unsigned char)(0xC0 | cp >> 6); b[1] = (unsigned char)(0x80 | (cp & 0x3F)); n = 2; }
    else if (cp < 0x10000) {
        b[0] = (unsigned char)(0xE0 | cp >> 12); b[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (unsigned char)(0x80 | (cp & 0x3F)); n = 3;
    } else {
        b[0] = (unsigned char)(0xF0 | cp >> 18); b[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
        b[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F)); b[3] = (unsigned char)(0x80 | (cp & 0x3F)); n = 4;
    }
    return put(r, b, n);
}

static int hex4(pj_reader *r, uint32_t *v) {
    *v = 0;
    for (int i = 0; i < 4; i++) {
        int c = peek(r);
        int d = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10
              : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
        if (d < 0) {
            pj_fail(r, "byte %llu: bad \\u escape", (unsigned long long)pj_offset(r));
            return -1;
        }
        r->p++;
        *v = *v << 4 | (uint32_t)d;
    }
    return 0;
}

/* A string; the opening quote is next. */
static int read_string(pj_reader *r) {
    r->p++;
    r->len = 0;
    if (put(r, "", 0) < 0) return -1;
    for (;;) {
        const unsigned char *s = r->p;
        while (r->p < r->end && *r->p != '"' && *r->p != '\\' && *r->p >= 0x20) r->p++;
        if (r->p > s && put(r, s, (size_t)(r->p - s)) < 0) return -1;
        int c = peek(r);
        if (c < 0) {
            pj_fail(r, "byte %llu: the input ends inside a string", (unsigned long long)pj_offset(r));
            return -1;
        }
        if (c == '"') {
            r->p++;
            return 0;
        }
        if (c < 0x20) {
            pj_fail(r, "byte %llu: a control character inside a string", (unsigned long long)pj_offset(r));
            return -1;
        }
        if (c != '\\') continue;                 /* the chunk ended: scan the next one */
        r->p++;                                   /* the backslash */
        c = peek(r);
        char one;
        switch (c) {
        case '"': one = '"'; break;
        case '\\': one = '\\'; break;
        case '/': one = '/'; break;
        case 'b': one = '\b'; break;
        case 'f': one = '\f'; break;
        case 'n': one = '\n'; break;
        case 'r': one = '\r'; break;
        case 't': one = '\t'; break;
        case 'u': {
            r->p++;
            uint32_t cp, lo;
            if (hex4(r, &cp) < 0) return -1;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                if (peek(r) != '\\') goto lone;
                r->p++;
                if (peek(r) != 'u') goto lone;
                r->p++;
                if (hex4(r, &lo) < 0) return -1;
                if (lo < 0xDC00 || lo > 0xDFFF) goto lone;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                goto lone;
            }
            if (put_utf8(r, cp) < 0) return -1;
            continue;
        }
        default:
            pj_fail(r, "byte %llu: bad escape in a string", (unsigned long long)pj_offset(r));
            return -1;
        }
        r->p++;
        if (put(r, &one, 1) < 0) return -1;
    }
lone:
    pj_fail(r, "byte %llu: a lone UTF-16 surrogate in a \\u escape", (unsigned long long)pj_offset(r));
    return -1;
}

static inline bool digit(int c) { return c >= '0' && c <= '9'; }

static int take(pj_reader *r, int c) {
    unsigned char b = (unsigned char)c;
    r->p++;
    return put(r, &b, 1);
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static int read_number(pj_reader *r) {
    r->len = 0;
    if (put(r, "", 0) < 0) return -1;
    int c = peek(r);
    if (c == '-' && take(r, c) < 0) return -1;
    c = peek(r);
    if (!digit(c)) goto bad;
    if (c == '0') {
        if (take(r, c) < 0) return -1;
    } else {
        while (digit(c = peek(r)))
            if (take(r, c) < 0) return -1;
    }
    c = peek(r);
    if (c == '.') {
        if (take(r, c) < 0) return -1;
        if (!digit(peek(r))) goto bad;
        while (digit(c = peek(r)))
            if (take(r, c) < 0) return -1;
    }
    c = peek(r);
    if (c == 'e' || c == 'E') {
        if (take(r, c) < 0) return -1;
        c = peek(r);
        if ((c == '+' || c == '-') && take(r, c) < 0) return -1;
        if (!digit(peek(r))) goto bad;
        while (digit(c = peek(r)))
            if (take(r, c) < 0) return -1;
    }
    if (r->failed) return -1;
    return 0;
bad:
    pj_fail(r, "byte %llu: a malformed number", (unsigned long long)pj_offset(r));
    return -1;
}

static int literal(pj_reader *r, const char *word) {
    for (const char *w = word; *w; w++) {
        if (peek(r) != (unsigned char)*w) {
            pj_fail(r, "byte %llu: unexpected character (expected \"%s\")",
                    (unsigned long long)pj_offset(r), word);
            return -1;
        }
        r->p++;
    }
    return 0;
}

static pj_tok after_value(pj_reader *r, pj_tok t) {
    r->state = r->depth ? ST_AFTER : ST_DONE;
    return t;
}

static pj_tok unexpected(pj_reader *r, int c, const char *what) {
    if (c < 0) return pj_fail(r, "byte %llu: the input ends where %s should come",
                              (unsigned long long)pj_offset(r), what);
    if (c >= 0x20 && c < 0x7f)
        return pj_fail(r, "byte %llu: unexpected '%c' where %s should come",
                       (unsigned long long)pj_offset(r), c, what);
    /* a byte that is no printable character is named by its value (a
     * binary file, a gzip member's inflated garbage) */
    return pj_fail(r, "byte %llu: unexpected byte 0x%02x where %s should come",
                   (unsigned long long)pj_offset(r), (unsigned)c, what);
}

pj_tok pj_next(pj_reader *r) {
    if (r->failed) return PJ_ERROR;
    for (;;) {
        int c = skip_ws(r);
        if (r->failed) return PJ_ERROR;
        switch (r->state) {
        case ST_DONE:
            if (c < 0) return PJ_END;
            return unexpected(r, c, "the end of the input");
        case ST_AFTER: {
            uint8_t top = r->stack[r->depth - 1];
            if (c == ',') {
                r->p++;
                r->state = top == 'o' ? ST_KEY : ST_VALUE;
                continue;
            }
            if ((c == '}' && top == 'o') || (c == ']' && top == 'a')) {
                r->p++;
                r->depth--;
                return after_value(r, c == '}' ? PJ_OBJ_END : PJ_ARR_END);
            }
            return unexpected(r, c, top == 'o' ? "',' or '}'" : "',' or ']'");
        }
        case ST_KEY_OR_CLOSE:
            if (c == '}') {
                r->p++;
                r->depth--;
                return after_value(r, PJ_OBJ_END);
            }
            /* fall through */
        case ST_KEY:
            if (c != '"') return unexpected(r, c, "a key");
            if (read_string(r) < 0) return PJ_ERROR;
            if (skip_ws(r) != ':') return unexpected(r, peek(r), "':'");
            r->p++;
            r->state = ST_VALUE;
            return PJ_KEY;
        case ST_VALUE_OR_CLOSE:
            if (c == ']') {
                r->p++;
                r->depth--;
                return after_value(r, PJ_ARR_END);
            }
            /* fall through */
        case ST_VALUE:
        default:
            switch (c) {
            case '{':
            case '[':
                if (r->depth >= PJ_MAX_DEPTH)
                    return pj_fail(r, "byte %llu: nested deeper than %d levels",
                                   (unsigned long long)pj_offset(r), PJ_MAX_DEPTH);
                r->p++;
                r->stack[r->depth++] = c == '{' ? 'o' : 'a';
                r->state = c == '{' ? ST_KEY_OR_CLOSE : ST_VALUE_OR_CLOSE;
                return c == '{' ? PJ_OBJ : PJ_ARR;
            case '"':
                if (read_string(r) < 0) return PJ_ERROR;
                return after_value(r, PJ_STRING);
            case 't':
                if (literal(r, "true") < 0) return PJ_ERROR;
                return after_value(r, PJ_TRUE);
            case 'f':
                if (literal(r, "false") < 0) return PJ_ERROR;
                return after_value(r, PJ_FALSE);
            case 'n':
                if (literal(r, "null") < 0) return PJ_ERROR;
                return after_value(r, PJ_NULL);
            default:
                if (c == '-' || digit(c)) {
                    if (read_number(r) < 0) return PJ_ERROR;
                    return after_value(r, PJ_NUMBER);
                }
                return unexpected(r, c, "a value");
            }
        }
    }
}

int pj_skip(pj_reader *r, pj_tok t) {
    if (t == PJ_ERROR) return -1;
    if (t != PJ_OBJ && t != PJ_ARR) return 0;
    int depth = 1;
    while (depth > 0) {
        pj_tok n = pj_next(r);
        if (n == PJ_ERROR) return -1;
        if (n == PJ_END) {
            pj_fail(r, "the input ends inside a value");
            return -1;
        }
        if (n == PJ_OBJ || n == PJ_ARR) depth++;
        else if (n == PJ_OBJ_END || n == PJ_ARR_END) depth--;
    }
    return 0;
}
