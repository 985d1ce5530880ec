/* bpage_codec.c -- the bytes of a block page (bpage.h): encode and a strict
 * decode. Pure (libc only) so the fuzz harness links it alone. */
#define BPAGE_CODEC_ONLY
#include "bpage.h"

/* zigzag: small magnitudes of either sign become small unsigned numbers */
static inline uint32_t zz32(uint32_t d) { return (d << 1) ^ (uint32_t)-(int32_t)(d >> 31); }
static inline uint64_t zz64(uint64_t d) { return (d << 1) ^ (uint64_t)-(int64_t)(d >> 63); }
static inline uint32_t unzz32(uint32_t v) { return (v >> 1) ^ (uint32_t)-(int32_t)(v & 1); }
static inline uint64_t unzz64(uint64_t v) { return (v >> 1) ^ (uint64_t)-(int64_t)(v & 1); }

static inline uint8_t *put(uint8_t *o, uint64_t v) {
    while (v >= 0x80) {
        *o++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *o++ = (uint8_t)v;
    return o;
}

size_t bpage_encode(const trace_block *b, size_t n, uint8_t *out) {
    uint8_t *o = out;
    uint32_t pk = 0, pi = 0;
    uint64_t ps = 0;
    for (size_t i = 0; i < n; i++) {
        /* unsigned arithmetic: wraps instead of overflowing, and the decoder
         * wraps back */
        uint32_t k = (uint32_t)b[i].kernel, x = (uint32_t)b[i].index;
        uint64_t s = (uint64_t)b[i].start, e = (uint64_t)b[i].end;
        o = put(o, zz32(k - pk));
        o = put(o, zz32(x - pi));
        o = put(o, zz32((uint32_t)b[i].sm));
        o = put(o, zz64(s - ps));
        o = put(o, zz64(e - s));
        pk = k, pi = x, ps = s;
    }
    return (size_t)(o - out);
}

/* One varint of at most `bytes` bytes whose value fits in `bits` bits; the
 * last byte must not be a zero continuation (one encoding per value). */
static inline int get(const uint8_t **pp, const uint8_t *end, int bits, uint64_t *v) {
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

int bpage_decode(const uint8_t *p, size_t len, size_t n, trace_block *out) {
    if (!p) return len == 0 && n == 0 ? 0 : -1;   /* SQLite's empty blob is NULL */
    const uint8_t *end = p + len;
    uint32_t pk = 0, pi = 0;
    uint64_t ps = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t k, x, sm, ds, de;
        if (get(&p, end, 32, &k) || get(&p, end, 32, &x) || get(&p, end, 32, &sm) ||
            get(&p, end, 64, &ds) || get(&p, end, 64, &de))
            return -1;
        pk += unzz32((uint32_t)k);
        pi += unzz32((uint32_t)x);
        ps += unzz64(ds);
        out[i] = (trace_block){
            .kernel = (int32_t)pk,
            .index = (int32_t)pi,
            .sm = (int32_t)unzz32((uint32_t)sm),
            .start = (int64_t)ps,
            .end = (int64_t)(ps + unzz64(de)),
        };
    }
    return p == end ? 0 : -1;
}
