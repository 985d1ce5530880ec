/* fuzz_units.c -- libFuzzer harness for the quantities with units
 * (server/formats/units.c): every duration, size, bandwidth and clock of a
 * scenario, a task set and a sweep spec, from POST bodies, goes through it.
 * The first byte picks the kind and whether cycles are taken, the next
 * eight a device clock; the rest is the value, as a JSON string and, when
 * it reads as one, as a JSON number. Every value is accepted as a
 * non-negative quantity, or refused with one line naming the place; an
 * accepted duration in ns reads back the same from units_fmt_ns's text,
 * and units_scale_exact is exact or says why not. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../server/formats/units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

static void one_line(const char *err) {
    if (strncmp(err, "fuzz.json: q: ", 14) != 0 || strchr(err, '\n')) abort();
}

static void check(json_t *v, units_kind k, bool take_cycles, int64_t clock) {
    char err[512] = "";
    jr_ctx c = {.file = "fuzz.json", .err = err, .errlen = sizeof err, .pfx = ""};
    int64_t x = -1;
    bool cyc = false;
    if (units_parse(&c, v, "q", k, &x, take_cycles ? &cyc : NULL) == 0) {
        if (x < 0 || (cyc && (!take_cycles || k != UNITS_DURATION))) abort();
    } else {
        one_line(err);
    }
    if (k != UNITS_DURATION) return;
    units_dur d;
    err[0] = '\0';
    if (units_parse_dur(&c, v, "q", &d) != 0) {
        one_line(err);
        return;
    }
    if (d.v < 0 || d.v > UNITS_MAX_DURATION) abort();
    if (!d.cycles) {
        /* the text a run's name shows (units_fmt_ns) is the same quantity */
        char buf[64];
        json_t *s = json_string(units_fmt_ns(buf, sizeof buf, d.v));
        units_dur back;
        if (!s || units_parse_dur(&c, s, "q", &back) != 0 || back.v != d.v || back.cycles)
            abort();
        json_decref(s);
    }
    sim_device dev;
    memset(&dev, 0, sizeof dev);
    dev.clock_hz = clock;
    int64_t ns = -1;
    err[0] = '\0';
    if (units_resolve(&c, d, &dev, "q", &ns) == 0) {
        if (ns < 0 || ns > UNITS_MAX_DURATION + INT64_C(1000000000)) abort();
        if (!d.cycles && ns != d.v) abort();
    } else {
        one_line(err);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len) {
    if (len < 9) return 0;
    units_kind k = (units_kind)(data[0] % 4);
    bool take_cycles = data[0] & 4;
    int64_t clock;
    memcpy(&clock, data + 1, sizeof clock);
    if (data[0] & 8) clock %= INT64_C(20000000000);   /* most often a plausible clock */
    data += 9;
    len -= 9;

    /* the value as a string (any bytes: jansson keeps them as given) */
    json_t *s = json_stringn_nocheck((const char *)data, len);
    if (s) {
        check(s, k, take_cycles, clock);
        json_decref(s);
    }
    /* and as a JSON number, where it reads as one */
    json_t *n = json_loadb((const char *)data, len, JSON_DECODE_ANY, NULL);
    if (n) {
        check(n, k, take_cycles, clock);
        json_decref(n);
    }

    /* exact scaling: mant * scale / 10^e, checked against 128-bit arithmetic */
    if (len >= 17) {
        int64_t mant, scale;
        memcpy(&mant, data, 8);
        memcpy(&scale, data + 8, 8);
        if (mant < 0) mant = -(mant + 1);
        if (scale <= 0) scale = scale == INT64_MIN ? 1 : (scale == 0 ? 1 : -scale);
        int64_t div = 1;
        for (int e = data[16] % 19; e > 0; e--) div *= 10;
        int64_t out;
        bool inexact;
        __int128 num = (__int128)mant * scale;
        if (units_scale_exact(mant, scale, div, &out, &inexact) == 0) {
            if ((__int128)out * div != num) abort();
        } else if (inexact ? num % div == 0 : num / div <= INT64_MAX) {
            /* refused as a fraction that is whole, or as too large when it fits
             * (one both too large and a fraction may be called either) */
            abort();
        }
    }
    return 0;
}
