/* csv.c -- RFC-4180 records and locale-free numbers; see csv.h. */
#include "csv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void imp_csv_init(imp_csv *r, const char *data, size_t len) {
    memset(r, 0, sizeof *r);
    r->data = data;
    r->len = len;
    r->line = 1;
    /* a UTF-8 byte order mark, which Windows tools (Excel's "CSV UTF-8",
     * PowerShell's Out-File) put before the first line, is no part of the
     * first field: "\xEF\xBB\xBFkernel" is no column name, and a '#' or
     * '"' after it would not be seen; a column in a message counts from
     * after it, as an editor shows the line */
    if (len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0) r->pos = r->line_start = 3;
}

void imp_csv_free(imp_csv *r) {
    free(r->f);
    free(r->buf);
    free(r->off);
    memset(r, 0, sizeof *r);
}

static int buf_put(imp_csv *r, char c) {
    if (r->blen + 1 > r->bcap) {
        size_t ncap = r->bcap ? r->bcap * 2 : 256;
        char *nb = realloc(r->buf, ncap);
        if (!nb) return -1;
        r->buf = nb;
        r->bcap = ncap;
    }
    r->buf[r->blen++] = c;
    return 0;
}

/* n bytes at once: fields are copied as runs between the characters that
 * end or escape them, not byte by byte (issue 9: the CSV reader was a fifth
 * of an nvprof import). */
static int buf_putn(imp_csv *r, const char *p, size_t n) {
    if (r->blen + n > r->bcap) {
        size_t ncap = r->bcap ? r->bcap : 256;
        while (ncap < r->blen + n) ncap *= 2;
        char *nb = realloc(r->buf, ncap);
        if (!nb) return -1;
        r->buf = nb;
        r->bcap = ncap;
    }
    memcpy(r->buf + r->blen, p, n);
    r->blen += n;
    return 0;
}

static int off_push(imp_csv *r, size_t off) {
    if (r->nf + 1 > r->offcap) {
        size_t ncap = r->offcap ? r->offcap * 2 : 32;
        size_t *no = realloc(r->off, ncap * sizeof *no);
        if (!no) return -1;
        r->off = no;
        r->offcap = ncap;
    }
    if (r->nf + 1 > r->fcap) {
        size_t ncap = r->fcap ? r->fcap * 2 : 32;
        imp_csv_field *nf = realloc(r->f, ncap * sizeof *nf);
        if (!nf) return -1;
        r->f = nf;
        r->fcap = ncap;
    }
    r->off[r->nf++] = off;
    return 0;
}

static void newline(imp_csv *r) {
    r->line++;
    r->line_start = r->pos;
}

int imp_csv_next(imp_csv *r, char *err, size_t errlen) {
    if (r->pos >= r->len) return 0;
    r->rec_line = r->line;
    r->nf = 0;
    r->blen = 0;
    const char *d = r->data;
    for (;;) {
        size_t start = r->blen;
        bool quoted = false;
        if (off_push(r, start) < 0) goto oom;
        if (r->pos < r->len && d[r->pos] == '"') {
            long qline = r->line;
            size_t qcol = r->pos - r->line_start + 1;
            quoted = true;
            r->pos++;
            for (;;) {
                if (r->pos >= r->len) {
                    snprintf(err, errlen, "%ld:%zu: quoted field never closed (missing '\"')",
                             qline, qcol);
                    return -1;
                }
                /* the plain run up to the next quote, newline or NUL */
                size_t e = r->pos;
                while (e < r->len && d[e] != '"' && d[e] != '\n' && d[e] != '\0') e++;
                if (e > r->pos) {
                    if (buf_putn(r, d + r->pos, e - r->pos) < 0) goto oom;
                    r->pos = e;
                    continue;
                }
                char c = d[r->pos];
                if (c == '"') {
                    if (r->pos + 1 < r->len && d[r->pos + 1] == '"') {
                        if (buf_put(r, '"') < 0) goto oom;
                        r->pos += 2;
                        continue;
                    }
                    r->pos++;
                    break;
                }
                if (c == '\0') goto nul;
                if (buf_put(r, c) < 0) goto oom;
                r->pos++;
                if (c == '\n') newline(r);
            }
        }
        /* Unquoted text, or stray text after a closing quote, runs to the
         * delimiter: real files do not have the latter, and keeping it is
         * kinder than rejecting a whole trace for it. */
        size_t e = r->pos;
        while (e < r->len && d[e] != ',' && d[e] != '\n' && d[e] != '\r' && d[e] != '\0') e++;
        if (e > r->pos) {
            if (buf_putn(r, d + r->pos, e - r->pos) < 0) goto oom;
            r->pos = e;
        }
        while (r->pos < r->len) {
            char c = d[r->pos];
            if (c == ',' || c == '\n') break;
            if (c == '\r' && r->pos + 1 < r->len && d[r->pos + 1] == '\n') break;
            if (c == '\r' && r->pos + 1 == r->len) break;
            if (c == '\0') goto nul;
            if (buf_put(r, c) < 0) goto oom;
            r->pos++;
        }
        if (buf_put(r, '\0') < 0) goto oom;
        r->f[r->nf - 1].quoted = quoted;
        r->f[r->nf - 1].len = r->blen - 1 - start;
        if (r->pos >= r->len) break;
        char c = d[r->pos];
        if (c == ',') { r->pos++; continue; }
        if (c == '\r') r->pos++;
        if (r->pos < r->len && d[r->pos] == '\n') r->pos++;
        newline(r);
        break;
    }
    for (size_t i = 0; i < r->nf; i++) r->f[i].s = r->buf + r->off[i];
    return 1;
nul:
    /* a NUL would silently cut the field (a kernel name) short */
    snprintf(err, errlen, "%ld:%zu: NUL byte in a field (not a text CSV file?)", r->line,
             r->pos - r->line_start + 1);
    return -1;
oom:
    snprintf(err, errlen, "%ld: out of memory reading the record", r->line);
    return -1;
}

bool imp_csv_peek_line(const imp_csv *r, const char **line, size_t *len) {
    if (r->pos >= r->len) return false;
    const char *s = r->data + r->pos;
    const char *nl = memchr(s, '\n', r->len - r->pos);
    size_t n = nl ? (size_t)(nl - s) : r->len - r->pos;
    if (n > 0 && s[n - 1] == '\r') n--;
    *line = s;
    *len = n;
    return true;
}

void imp_csv_skip_line(imp_csv *r) {
    if (r->pos >= r->len) return;
    const char *s = r->data + r->pos;
    const char *nl = memchr(s, '\n', r->len - r->pos);
    if (!nl) {
        r->pos = r->len;
        return;
    }
    r->pos += (size_t)(nl - s) + 1;
    newline(r);
}

static bool is_blank(char c) { return c == ' ' || c == '\t'; }

int imp_dec_scaled(const char *s, int64_t mult, int64_t *out) {
    if (!s || mult <= 0) return -1;
    while (is_blank(*s)) s++;
    bool neg = false;
    if (*s == '-' || *s == '+') neg = (*s++ == '-');
    /* 128-bit arithmetic keeps "12.250000" KB or 9 decimals of seconds
     * exact: value = ipart * mult + frac * mult / 10^k, rounded once. */
    unsigned __int128 ip = 0, fr = 0, pow10 = 1;
    const unsigned __int128 limit = (unsigned __int128)INT64_MAX + 1;
    int digits = 0, fdigits = 0;
    while (*s >= '0' && *s <= '9') {
        ip = ip * 10 + (unsigned)(*s++ - '0');
        if (ip > limit) return -1;
        digits++;
    }
    if (*s == '.') {
        s++;
        while (*s >= '0' && *s <= '9') {
            /* digits past the 30th cannot change an int64 result by more
             * than rounding; they are read and ignored */
            if (fdigits < 30) {
                fr = fr * 10 + (unsigned)(*s - '0');
                pow10 *= 10;
            }
            s++;
            fdigits++;
            digits++;
        }
    }
    if (digits == 0) return -1;
    while (is_blank(*s)) s++;
    if (*s) return -1;
    unsigned __int128 whole = ip * (unsigned __int128)mult;
    if (ip != 0 && whole / ip != (unsigned __int128)mult) return -1;
    /* fr < 10^30 and mult < 2^63 would overflow 128 bits: reduce the
     * fraction to 18 digits first (rounding), which is exact for any
     * multiplier this project uses (<= 10^9). */
    while (pow10 > (unsigned __int128)1000000000000000000ULL) {
        fr = (fr + 5) / 10;
        pow10 /= 10;
    }
    unsigned __int128 fpart = (fr * (unsigned __int128)mult + pow10 / 2) / pow10;
    unsigned __int128 v = whole + fpart;
    if (v > (neg ? limit : limit - 1)) return -1;
    *out = neg ? (v == limit ? INT64_MIN : -(int64_t)v) : (int64_t)v;
    return 0;
}

int imp_parse_int64(const char *s, int64_t *out) {
    if (!s) return -1;
    while (is_blank(*s)) s++;
    bool neg = false;
    if (*s == '-' || *s == '+') neg = (*s++ == '-');
    uint64_t v = 0;
    const uint64_t limit = (uint64_t)INT64_MAX + 1;
    int digits = 0;
    while (*s >= '0' && *s <= '9') {
        v = v * 10 + (uint64_t)(*s++ - '0');
        if (v > limit) return -1;
        digits++;
    }
    while (is_blank(*s)) s++;
    if (digits == 0 || *s) return -1;
    if (v > (neg ? limit : limit - 1)) return -1;
    *out = neg ? (v == limit ? INT64_MIN : -(int64_t)v) : (int64_t)v;
    return 0;
}

const char *imp_quote_value(char *dst, size_t dstlen, const char *s, size_t maxlen) {
    size_t n = 0;
    if (!s) s = "";
    if (maxlen + 4 > dstlen) maxlen = dstlen > 4 ? dstlen - 4 : 0;
    size_t i = 0;
    for (; s[i] && i < maxlen; i++) {
        unsigned char c = (unsigned char)s[i];
        dst[n++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
    }
    if (s[i] && dstlen >= 4) {
        memcpy(dst + n, "...", 3);
        n += 3;
    }
    dst[n < dstlen ? n : dstlen - 1] = '\0';
    return dst;
}
