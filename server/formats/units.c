/* units.c -- durations, sizes, bandwidths and frequencies with exact
 * integer scaling. See units.h. */
#include "units.h"

#include "../../importers/unit_table.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define NS_PER_S INT64_C(1000000000)

/* the unit names and scales: the one table the importers read too
 * (importers/unit_table.h) */

static const char *const kind_units[] = {
    "s, ms, us, ns or cycles", "B, KB, MB, GB or TB (KB = 1024 bytes)",
    "B/s, KB/s, MB/s, GB/s or TB/s (KB = 1024 bytes)", "Hz, kHz, MHz or GHz"};
static const char *const kind_whole[] = {
    "nanoseconds", "bytes", "bytes per second", "Hz"};

static int64_t pow10_i64(int e) {
    int64_t r = 1;
    while (e-- > 0)
        r *= 10;
    return r;
}

int units_scale_exact(int64_t mant, int64_t scale, int64_t div, int64_t *out, bool *inexact) {
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

/* What a duration past UNITS_MAX_DURATION (10^6 s) is told. */
#define TOO_LONG "is longer than this build accepts (1000000s)"
_Static_assert(UNITS_MAX_DURATION == INT64_C(1000000) * INT64_C(1000000000),
               "TOO_LONG names UNITS_MAX_DURATION in seconds");

/* units_parse; `dur_cap`: the caller refuses durations past
 * UNITS_MAX_DURATION, so a value too large for int64 says that limit too. */
static int parse_quantity(jr_ctx *c, json_t *v, const char *path, units_kind k, int64_t *out,
                          bool *cycles, bool dur_cap) {
    const char *too_large = dur_cap ? TOO_LONG : "is too large";
    if (cycles)
        *cycles = false;
    if (!json_is_string(v)) {
        if (!json_is_number(v))
            return jr_fail(c, path, "must be a number (%s) or a string with a unit, not %s",
                           kind_whole[k], jr_type_name(v));
        if (json_is_real(v)) {
            double d = json_real_value(v);
            if (isfinite(d) && d == floor(d) && fabs(d) >= 9.0e18) {
                /* 1e19 is whole: too large (or negative), not a fraction */
                if (d < 0)
                    return jr_fail(c, path, "%g must not be negative", d);
                return jr_fail(c, path, "%g %s", d, too_large);
            }
            if (!(isfinite(d) && d == floor(d))) {
                /* "at": 0.2 almost always means seconds */
                if (k == UNITS_DURATION && isfinite(d) && d > 0)
                    return jr_fail(c, path, "%g is not a whole number of nanoseconds (a bare "
                                   "number is ns; for seconds write \"%gs\")", d, d);
                return jr_fail(c, path, "%g is not a whole number of %s", d, kind_whole[k]);
            }
            *out = (int64_t)d;
        } else {
            *out = json_integer_value(v);
        }
        if (*out < 0)
            return jr_fail(c, path, "%" PRId64 " must not be negative", *out);
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
                return jr_fail(c, path, "\"%s\" has too many digits", str);
        }
        mant = mant * 10 + (*p - '0');
        if (point)
            frac++;
    }
    bool anydigit = p > str && !(p - str == 1 && *str == '.');
    /* "-1ms" is a number and a unit: say what is wrong with it, as for -5 */
    if (!anydigit && str[0] == '-' &&
        ((str[1] >= '0' && str[1] <= '9') || (str[1] == '.' && str[2] >= '0' && str[2] <= '9')))
        return jr_fail(c, path, "\"%s\" must not be negative", str);
    if (!anydigit)
        return jr_fail(c, path, "\"%s\" is not a quantity (write a number and a unit: %s)",
                       str, kind_units[k]);
    if (point && frac == 0)
        return jr_fail(c, path, "\"%s\": a decimal point needs digits after it", str);
    if (frac > 17)
        return jr_fail(c, path, "\"%s\" has too many digits", str);
    /* "1e3ns": an exponent is a JSON number's, not a quantity string's (its
     * unit would read "e3ns") */
    if ((*p == 'e' || *p == 'E') &&
        ((p[1] >= '0' && p[1] <= '9') ||
         ((p[1] == '-' || p[1] == '+') && p[2] >= '0' && p[2] <= '9')))
        return jr_fail(c, path, "\"%s\": a quantity string takes no exponent (write out its "
                       "digits, or give a plain number of %s)", str, kind_whole[k]);
    if (*p == ' ')
        p++;
    if (!*p)
        return jr_fail(c, path, "\"%s\" has no unit (%s)", str, kind_units[k]);

    int64_t scale = 0;
    if (k == UNITS_DURATION && (strcmp(p, "cycles") == 0 || strcmp(p, "cycle") == 0)) {
        if (!cycles)
            return jr_fail(c, path, "\"%s\": cycles are not accepted here (%s)", str,
                           "s, ms, us or ns");
        if (frac)
            return jr_fail(c, path, "\"%s\": give a whole number of cycles", str);
        *cycles = true;
        *out = mant;
        return 0;
    }
    if (k == UNITS_BANDWIDTH) {
        size_t ul = strlen(p);
        if (ul > 2 && strcmp(p + ul - 2, "/s") == 0) {
            char pre[16];
            if (ul - 2 < sizeof pre) {
                memcpy(pre, p, ul - 2);
                pre[ul - 2] = '\0';
                scale = imp_unit_scale(imp_size_units, pre);
            }
        }
    } else {
        scale = imp_unit_scale(k == UNITS_DURATION ? imp_time_units
                               : k == UNITS_SIZE   ? imp_size_units
                                                   : imp_freq_units, p);
    }
    if (!scale)
        return jr_fail(c, path, "\"%s\" has an unknown unit \"%s\" (%s)", str, p, kind_units[k]);
    bool inexact;
    if (units_scale_exact(mant, scale, pow10_i64(frac), out, &inexact)) {
        if (inexact)
            return jr_fail(c, path, "\"%s\" is not a whole number of %s", str, kind_whole[k]);
        return jr_fail(c, path, "\"%s\" %s", str, too_large);
    }
    return 0;
}

int units_parse(jr_ctx *c, json_t *v, const char *path, units_kind k, int64_t *out,
                bool *cycles) {
    return parse_quantity(c, v, path, k, out, cycles, false);
}

int units_parse_dur(jr_ctx *c, json_t *v, const char *path, units_dur *out) {
    if (parse_quantity(c, v, path, UNITS_DURATION, &out->v, &out->cycles, true))
        return -1;
    if (out->v > UNITS_MAX_DURATION)
        return jr_fail(c, path, "%s " TOO_LONG,
                       out->cycles ? "the cycle count" : "the duration");
    return 0;
}

int units_resolve(jr_ctx *c, units_dur d, const sim_device *dev, const char *path, int64_t *ns) {
    if (!d.cycles) {
        *ns = d.v;
        return 0;
    }
    if (dev->clock_hz <= 0)
        return jr_fail(c, path, "%" PRId64 " cycles need the device's clock; set device.clock "
                       "(e.g. \"1300MHz\")", d.v);
    uint64_t hz = (uint64_t)dev->clock_hz, cyc = (uint64_t)d.v;
    uint64_t q = cyc / hz, r = cyc % hz;
    if (hz > UINT64_C(18000000000) || q > (uint64_t)(UNITS_MAX_DURATION / NS_PER_S))
        return jr_fail(c, path, "%" PRId64 " cycles at %" PRId64 " Hz is out of range", d.v,
                       dev->clock_hz);
    *ns = (int64_t)(q * (uint64_t)NS_PER_S + (r * (uint64_t)NS_PER_S + hz / 2) / hz);
    return 0;
}

const char *units_fmt_ns(char *buf, size_t n, int64_t ns) {
    static const char *const names[] = {"s", "ms", "us"};
    static const int64_t unit_ns[] = {NS_PER_S, 1000000, 1000};
    for (size_t i = 0; i < 3; i++) {
        if (ns != 0 && ns % unit_ns[i] == 0) {
            snprintf(buf, n, "%" PRId64 "%s", ns / unit_ns[i], names[i]);
            return buf;
        }
    }
    snprintf(buf, n, "%" PRId64 "ns", ns);
    return buf;
}
