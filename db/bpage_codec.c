/* bpage_codec.c -- the bytes of a block page (bpage.h): encode and a strict
 * decode. Pure (libc only) so the fuzz harness links it alone. */
#define BPAGE_CODEC_ONLY
#include "bpage.h"

#include "varint.h"

#define zz32 vi_zz32
#define unzz32 vi_unzz32
#define zz64(d) vi_zz((int64_t)(d))
#define unzz64(v) ((uint64_t)vi_unzz(v))
#define put vi_put

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

/* One varint of at most `bits` bits, strictly (varint.h) */
#define get vi_get_strict

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
