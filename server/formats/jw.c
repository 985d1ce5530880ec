/* jw.c -- the JSON writer of the hot paths. See jw.h. */
#include "jw.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define JW_DEFAULT_CHUNK ((size_t)1 << 16)

void jw_init(jw_buf *w) { memset(w, 0, sizeof *w); }

void jw_init_sink(jw_buf *w, jw_sink_fn sink, void *ctx, size_t chunk) {
    memset(w, 0, sizeof *w);
    w->sink = sink;
    w->sink_ctx = ctx;
    w->chunk = chunk ? chunk : JW_DEFAULT_CHUNK;
}

int jw_file_sink(void *ctx, const char *p, size_t n) {
    return fwrite(p, 1, n, (FILE *)ctx) == n ? 0 : -1;
}

int jw_fd_sink(void *ctx, const char *p, size_t n) {
    int fd = *(int *)ctx;
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

void jw_free(jw_buf *w) {
    free(w->s);
    memset(w, 0, sizeof *w);
}

char *jw_take(jw_buf *w, size_t *len) {
    char *s = NULL;
    if (!w->oom) {
        if (!w->s) {              /* nothing written: an empty text */
            s = malloc(1);
            if (s) s[0] = '\0';
        } else {
            s = w->s;
            if (w->head) memmove(s, s + w->head, w->len - w->head + 1);
            w->len -= w->head;
        }
        if (len) *len = s ? w->len : 0;
        if (s == w->s) w->s = NULL;
    }
    jw_free(w);
    return s;
}

static int flush(jw_buf *w) {
    if (w->oom) return -1;
    if (!w->sink || !w->len) return 0;
    if (w->sink(w->sink_ctx, w->s, w->len) != 0) {
        w->oom = true;
        return -1;
    }
    w->flushed += w->len;
    w->len = 0;
    w->s[0] = '\0';
    return 0;
}

int jw_flush(jw_buf *w) { return flush(w); }

int jw_finish(jw_buf *w) {
    if (flush(w)) return -1;
    return w->depth ? -1 : 0;
}

size_t jw_pending(const jw_buf *w) { return w->oom ? 0 : w->len - w->head; }

size_t jw_read(jw_buf *w, char *dst, size_t max) {
    size_t n = jw_pending(w);
    if (n > max) n = max;
    if (!n) return 0;
    memcpy(dst, w->s + w->head, n);
    w->head += n;
    w->flushed += n;
    if (w->head == w->len) {       /* drained: start over at the front */
        w->head = w->len = 0;
        w->s[0] = '\0';
    }
    return n;
}

/* Room for `more` bytes and the NUL. In push mode the buffer is handed on
 * first when it would pass the chunk, so it stays about chunk-sized. */
static bool reserve(jw_buf *w, size_t more) {
    if (w->oom) return false;
    if (w->len + more + 1 <= w->cap) return true;
    if (w->sink && w->len && w->len + more > w->chunk) {
        if (flush(w)) return false;
        if (w->len + more + 1 <= w->cap) return true;
    }
    /* pull mode: reclaim what was read before growing */
    if (w->head) {
        memmove(w->s, w->s + w->head, w->len - w->head);
        w->len -= w->head;
        w->head = 0;
        if (w->len + more + 1 <= w->cap) return true;
    }
    size_t nc = w->cap ? w->cap : (w->sink ? w->chunk + 1 : 4096);
    while (nc < w->len + more + 1) {
        if (nc > SIZE_MAX / 2) { w->oom = true; return false; }
        nc *= 2;
    }
    char *ns = realloc(w->s, nc);
    if (!ns) { w->oom = true; return false; }
    w->s = ns;
    w->cap = nc;
    return true;
}

void jw_putn(jw_buf *w, const char *p, size_t n) {
    if (!reserve(w, n)) return;
    memcpy(w->s + w->len, p, n);
    w->len += n;
    w->s[w->len] = '\0';
}

void jw_puts(jw_buf *w, const char *s) { jw_putn(w, s, strlen(s)); }

void jw_putc(jw_buf *w, char c) {
    if (!reserve(w, 1)) return;
    w->s[w->len++] = c;
    w->s[w->len] = '\0';
}

/* ---- integers ------------------------------------------------------------------ */

static const char digits2[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

size_t jw_fmt_u64(char *buf, uint64_t v) {
    char tmp[20];
    size_t i = sizeof tmp;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        tmp[--i] = digits2[r * 2 + 1];
        tmp[--i] = digits2[r * 2];
    }
    if (v >= 10) {
        tmp[--i] = digits2[v * 2 + 1];
        tmp[--i] = digits2[v * 2];
    } else {
        tmp[--i] = (char)('0' + v);
    }
    size_t n = sizeof tmp - i;
    memcpy(buf, tmp + i, n);
    return n;
}

size_t jw_fmt_i64(char *buf, int64_t v) {
    if (v >= 0) return jw_fmt_u64(buf, (uint64_t)v);
    buf[0] = '-';
    /* the magnitude in unsigned arithmetic: INT64_MIN has no positive twin */
    return 1 + jw_fmt_u64(buf + 1, (uint64_t)0 - (uint64_t)v);
}

void jw_u64_raw(jw_buf *w, uint64_t v) {
    if (!reserve(w, 20)) return;
    w->len += jw_fmt_u64(w->s + w->len, v);
    w->s[w->len] = '\0';
}

void jw_i64_raw(jw_buf *w, int64_t v) {
    if (!reserve(w, 21)) return;
    w->len += jw_fmt_i64(w->s + w->len, v);
    w->s[w->len] = '\0';
}

/* ---- strings ------------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s (within n bytes), 0 if it is not one. */
static size_t utf8_seq(const unsigned char *s, size_t n) {
    unsigned c = s[0];
    if (c < 0x80) return 1;
    size_t k;
    unsigned min;
    if (c >= 0xc2 && c <= 0xdf) { k = 2; min = 0x80; }
    else if ((c & 0xf0) == 0xe0) { k = 3; min = 0x800; }
    else if (c >= 0xf0 && c <= 0xf4) { k = 4; min = 0x10000; }
    else return 0;
    if (k > n) return 0;
    unsigned cp = c & (0x3f >> (k - 1));
    for (size_t i = 1; i < k; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
    return k;
}

void jw_strn_raw(jw_buf *w, const char *str, size_t n) {
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = (const unsigned char *)str, *e = s + n;
    jw_putc(w, '"');
    while (s < e) {
        size_t run = 0;
        /* plain ASCII in one go */
        while (s + run < e && s[run] >= 0x20 && s[run] < 0x80 && s[run] != '"' && s[run] != '\\')
            run++;
        if (run) { jw_putn(w, (const char *)s, run); s += run; continue; }
        unsigned c = *s;
        if (c == '"') { jw_putn(w, "\\\"", 2); s++; }
        else if (c == '\\') { jw_putn(w, "\\\\", 2); s++; }
        else if (c == '\n') { jw_putn(w, "\\n", 2); s++; }
        else if (c == '\t') { jw_putn(w, "\\t", 2); s++; }
        else if (c == '\r') { jw_putn(w, "\\r", 2); s++; }
        else if (c < 0x20) {
            char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            jw_putn(w, u, 6);
            s++;
        } else {
            size_t k = utf8_seq(s, (size_t)(e - s));
            if (k) { jw_putn(w, (const char *)s, k); s += k; }
            else { jw_putn(w, "\xef\xbf\xbd", 3); s++; }   /* U+FFFD */
        }
    }
    jw_putc(w, '"');
}

void jw_str_raw(jw_buf *w, const char *s) {
    if (!s) jw_putn(w, "null", 4);
    else jw_strn_raw(w, s, strlen(s));
}

/* ---- structure ------------------------------------------------------------------ */

/* Before a value: the comma when the container already holds one. */
static void value_prefix(jw_buf *w) {
    if (w->after_key) { w->after_key = false; return; }
    if (!w->depth) return;
    if (w->has[w->depth - 1] & 1) jw_putc(w, ',');
    else w->has[w->depth - 1] |= 1;
}

static void open_container(jw_buf *w, char c) {
    value_prefix(w);
    if (w->depth >= JW_MAX_DEPTH) { w->oom = true; return; }
    w->has[w->depth++] = 0;
    jw_putc(w, c);
}

/* has[d]: bit 0, the container holds a value (the next one needs a comma);
 * bit 1, it is an object (jw_end closes it with '}'). */
void jw_obj(jw_buf *w) {
    open_container(w, '{');
    if (!w->oom) w->has[w->depth - 1] = 2;
}

void jw_arr(jw_buf *w) { open_container(w, '['); }

void jw_end(jw_buf *w) {
    if (!w->depth) { w->oom = true; return; }
    uint8_t h = w->has[--w->depth];
    w->after_key = false;
    jw_putc(w, (h & 2) ? '}' : ']');
}

void jw_keyn(jw_buf *w, const char *k, size_t n) {
    value_prefix(w);
    jw_strn_raw(w, k, n);
    jw_putc(w, ':');
    w->after_key = true;
}

void jw_key(jw_buf *w, const char *k) { jw_keyn(w, k, strlen(k)); }

void jw_i64(jw_buf *w, int64_t v) { value_prefix(w); jw_i64_raw(w, v); }
void jw_u64(jw_buf *w, uint64_t v) { value_prefix(w); jw_u64_raw(w, v); }
void jw_bool(jw_buf *w, bool v) { value_prefix(w); if (v) jw_putn(w, "true", 4); else jw_putn(w, "false", 5); }
void jw_null(jw_buf *w) { value_prefix(w); jw_putn(w, "null", 4); }
void jw_str(jw_buf *w, const char *s) { value_prefix(w); jw_str_raw(w, s); }
void jw_strn(jw_buf *w, const char *s, size_t n) { value_prefix(w); jw_strn_raw(w, s, n); }
void jw_raw(jw_buf *w, const char *json) { value_prefix(w); jw_puts(w, json); }
void jw_rawn(jw_buf *w, const char *json, size_t n) { value_prefix(w); jw_putn(w, json, n); }

void jw_f64(jw_buf *w, double v) {
    value_prefix(w);
    if (!isfinite(v)) { jw_putn(w, "null", 4); return; }
    char tmp[40];
    int n = snprintf(tmp, sizeof tmp, "%.17g", v);
    jw_putn(w, tmp, (size_t)n);
}

void jw_f64_prec(jw_buf *w, double v, int prec) {
    value_prefix(w);
    if (!isfinite(v)) { jw_putn(w, "null", 4); return; }
    if (prec < 1) prec = 17;
    if (prec > 30) prec = 30;
    char tmp[64];
    int n = snprintf(tmp, sizeof tmp, "%.*g", prec, v);
    if (n < 0 || (size_t)n >= sizeof tmp - 3) { jw_putn(w, "null", 4); return; }
    /* as jansson's jsonp_dtostr: a real always reads back as a real */
    if (!strchr(tmp, '.') && !strchr(tmp, 'e')) {
        tmp[n++] = '.';
        tmp[n++] = '0';
        tmp[n] = '\0';
    }
    char *e = strchr(tmp, 'e');
    if (e) {   /* "1e+20" -> "1e20", "1e-05" -> "1e-5" */
        char *p = e + 1, *q = p;
        if (*q == '-') { q++; p++; }
        else if (*q == '+') q++;
        while (*q == '0' && q[1]) q++;
        memmove(p, q, strlen(q) + 1);
        n = (int)strlen(tmp);
    }
    jw_putn(w, tmp, (size_t)n);
}

void jw_kv_i64(jw_buf *w, const char *k, int64_t v) { jw_key(w, k); jw_i64(w, v); }
void jw_kv_u64(jw_buf *w, const char *k, uint64_t v) { jw_key(w, k); jw_u64(w, v); }
void jw_kv_f64(jw_buf *w, const char *k, double v) { jw_key(w, k); jw_f64(w, v); }
void jw_kv_bool(jw_buf *w, const char *k, bool v) { jw_key(w, k); jw_bool(w, v); }
void jw_kv_null(jw_buf *w, const char *k) { jw_key(w, k); jw_null(w); }
void jw_kv_str(jw_buf *w, const char *k, const char *s) { jw_key(w, k); jw_str(w, s); }
void jw_kv_raw(jw_buf *w, const char *k, const char *json) { jw_key(w, k); jw_raw(w, json); }
