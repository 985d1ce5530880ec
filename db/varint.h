/* varint.h -- the one varint codec of db/ (issue 24, point 5): every blob
 * the store writes (block pages, bpage.h; the occupancy pyramid's tiles,
 * pyramid.sql; the queue, stream and copy pyramids' bin series,
 * qpyramid.sql and spyramid.sql) is unsigned LEB128 varints, some of them
 * zigzag-mapped differences. The stored bytes are the format: these
 * functions write exactly what the four hand-written codecs before them
 * wrote, so existing databases keep reading.
 *
 * Pure (libc only) and header-only: the block-page codec links it into the
 * fuzz harness alone (bpage_codec.c). */
#ifndef DB_VARINT_H
#define DB_VARINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* ---- zigzag: small magnitudes of either sign as small unsigned numbers ---- */

static inline uint64_t vi_zz(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)-(int64_t)((uint64_t)v >> 63); }
static inline int64_t vi_unzz(uint64_t u) { return (int64_t)((u >> 1) ^ (uint64_t)-(int64_t)(u & 1)); }
/* the 32-bit mapping (block pages' kernel, index and SM differences) */
static inline uint32_t vi_zz32(uint32_t d) { return (d << 1) ^ (uint32_t)-(int32_t)(d >> 31); }
static inline uint32_t vi_unzz32(uint32_t v) { return (v >> 1) ^ (uint32_t)-(int32_t)(v & 1); }

/* ---- writing ---------------------------------------------------------------- */

/* v as LEB128 at o (at most 10 bytes); the byte after it */
static inline uint8_t *vi_put(uint8_t *o, uint64_t v) {
    while (v >= 0x80) {
        *o++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *o++ = (uint8_t)v;
    return o;
}

/* A growable blob; oom set (and later puts dropped) when it cannot grow. */
typedef struct vi_buf {
    uint8_t *p;
    size_t n, cap;
    bool oom;
} vi_buf;

static inline void vi_buf_put(vi_buf *b, uint64_t v) {
    if (b->cap - b->n < 10) {
        size_t cap = b->cap ? b->cap * 2 : 4096;
        uint8_t *p = b->oom ? NULL : realloc(b->p, cap);
        if (!p) { b->oom = true; return; }
        b->p = p;
        b->cap = cap;
    }
    b->n = (size_t)(vi_put(b->p + b->n, v) - b->p);
}

/* ---- reading ---------------------------------------------------------------- */

/* The lax read (the pyramids' blobs, written by this process): at most 10
 * bytes; false at the end of the blob or past 64 bits' worth of bytes. */
static inline bool vi_get(const uint8_t **p, const uint8_t *end, uint64_t *v) {
    uint64_t r = 0;
    for (int shift = 0; *p < end && shift < 64; shift += 7) {
        uint8_t c = *(*p)++;
        r |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) { *v = r; return true; }
    }
    return false;
}

/* The strict read (block pages, which the fuzz harness feeds anything): a
 * value that fits in `bits` bits in at most as many bytes as that takes,
 * and one encoding per value (no zero continuation byte last). */
static inline int vi_get_strict(const uint8_t **pp, const uint8_t *end, int bits, uint64_t *v) {
    const uint8_t *p = *pp;
    uint64_t r = 0;
    for (int shift = 0; shift < bits; shift += 7) {
        if (p == end) return -1;
        uint8_t c = *p++;
        if (shift + 7 > bits && (c & 0x7f) >> (bits - shift)) return -1;   /* too wide */
        r |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) {
            if (c == 0 && shift) return -1;   /* over-long */
            *pp = p;
            *v = r;
            return 0;
        }
    }
    return -1;   /* a continuation past the width */
}

/* ---- series: nv values a bin, each a zigzag'd difference from the same
 * value of the bin before (0 before the first). Runs of unchanged bins, the
 * common case, cost a byte a value. The queue, stream and copy pyramids'
 * blobs. ---------------------------------------------------------------------- */

/* n values (whole bins of nv) at out, which holds 10 bytes a value; the
 * bytes written */
static inline size_t vi_series_put(uint8_t *out, const int64_t *v, size_t n, size_t nv) {
    uint8_t *o = out;
    for (size_t i = 0; i < n; i++) o = vi_put(o, vi_zz((int64_t)((uint64_t)v[i] - (uint64_t)(i >= nv ? v[i - nv] : 0))));
    return (size_t)(o - out);
}

/* The blob back into v (at most cap bins of nv values; decoding stops after
 * `stop` bins): the number of bins, or -1 when the blob is damaged (a
 * truncated varint, more than cap bins, a partial bin). */
static inline int64_t vi_series_get(const uint8_t *p, size_t len, int64_t *v, size_t cap,
                                    size_t stop, size_t nv) {
    size_t i = 0, at = 0;   /* offsets, not pointers: SQLite's empty blob is NULL */
    while (at < len && i < nv * stop) {
        const uint8_t *q = p + at;
        uint64_t u;
        if (!vi_get(&q, p + len, &u)) return -1;
        at = (size_t)(q - p);
        if (i >= nv * cap) return -1;
        v[i] = (int64_t)((uint64_t)vi_unzz(u) + (uint64_t)(i >= nv ? v[i - nv] : 0));
        i++;
    }
    return i % nv ? -1 : (int64_t)(i / nv);
}

#endif
