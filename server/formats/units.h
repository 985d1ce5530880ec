/* units.h -- quantities with units in JSON inputs (DESIGN §4): durations
 * ("1.5ms", "13cycles" against a device clock), sizes ("48KiB", "48KB"),
 * bandwidths ("25.6GB/s") and frequencies ("1.3GHz").
 *
 * A bare JSON number is taken as ns / bytes / bytes per second / Hz. A
 * string is a decimal and a unit, optionally one space apart. Decimals are
 * read as an integer over a power of ten and scaled exactly, so "0.2s" is
 * 200000000 and "1.5ns" is an error, never a rounding. Binary prefixes:
 * KB = KiB = 1024 (B, KB, MB, GB, TB and the KiB forms); "/s" after a size
 * unit for bandwidths; s, ms, us (also µs), ns and cycles for durations;
 * Hz, kHz, MHz, GHz for frequencies.
 *
 * Errors go through the caller's jr_ctx (jsonr.h) at the given path. */
#ifndef SERVER_UNITS_H
#define SERVER_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "../../simcore/device.h"
#include "../../importers/jsonr.h"

typedef enum units_kind {
    UNITS_DURATION = 0,   /* ns (or cycles, see units_dur) */
    UNITS_SIZE,           /* bytes */
    UNITS_BANDWIDTH,      /* bytes per second */
    UNITS_FREQUENCY       /* Hz */
} units_kind;

/* A duration as written: cycles are kept as a count until a device with a
 * clock is known (units_resolve). */
typedef struct units_dur {
    int64_t v;            /* ns, or a cycle count when `cycles` */
    bool cycles;
} units_dur;

/* Durations this large would overflow the simulator's clock once summed. */
#define UNITS_MAX_DURATION (INT64_C(1000000) * INT64_C(1000000000))

/* A non-negative quantity of kind k into *out. `cycles` is only for
 * durations: NULL refuses "12cycles"; else it is set when *out is a cycle
 * count. */
int units_parse(jr_ctx *c, json_t *v, const char *path, units_kind k, int64_t *out,
                bool *cycles);

/* A duration of at most UNITS_MAX_DURATION (ns or cycles). */
int units_parse_dur(jr_ctx *c, json_t *v, const char *path, units_dur *out);

/* A duration in ns with the device's clock: cycles are rounded to the
 * nearest ns; an error when the device has no clock. */
int units_resolve(jr_ctx *c, units_dur d, const sim_device *dev, const char *path, int64_t *ns);

/* mant * scale / div exactly into *out; -1 when that is not whole
 * (*inexact set) or does not fit in int64 (*inexact clear). */
int units_scale_exact(int64_t mant, int64_t scale, int64_t div, int64_t *out, bool *inexact);

/* ns in the largest unit that keeps them whole: "40us", "1s", "7ns". */
const char *units_fmt_ns(char *buf, size_t n, int64_t ns);

#endif
