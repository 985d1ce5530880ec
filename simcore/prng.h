/* prng.h -- a pure, counter-based pseudo-random draw for execution-time
 * variation (issue 27): the value of a (seed, task, job, segment, field)
 * is a function of those alone (SplitMix64's finaliser, Steele, Lea and
 * Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014),
 * so a run is reproducible whatever order the simulator draws in, and no
 * state is kept. Normal variates by Box-Muller, truncated by redrawing. */
#ifndef SIMCORE_PRNG_H
#define SIMCORE_PRNG_H

#include <math.h>
#include <stdint.h>

#include "sim.h"

static inline uint64_t prng_mix(uint64_t z) {
    z += UINT64_C(0x9E3779B97F4A7C15);
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static inline uint64_t prng_key(uint64_t seed, uint64_t task, uint64_t job, uint64_t seg,
                                uint64_t field) {
    return prng_mix(prng_mix(prng_mix(prng_mix(seed ^ task) ^ job) ^ seg) ^ field);
}

/* (0, 1): 53 random bits, never 0 */
static inline double prng_unit(uint64_t x) {
    return ((double)(x >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

/* The time of one job's segment field: `wcet` when d has no variation. */
static inline int64_t prng_draw(const sim_dist *d, int64_t wcet, uint64_t key) {
    if (!d || d->kind == SIM_DIST_NONE) return wcet;
    int64_t lo = d->min, hi = d->max;
    if (hi <= lo) return hi;
    if (d->kind == SIM_DIST_UNIFORM) {
        uint64_t span = (uint64_t)(hi - lo) + 1;
        return lo + (int64_t)(prng_mix(key) % span);
    }
    for (uint64_t k = 0; k < 64; k++) {
        double u1 = prng_unit(prng_mix(key + 2 * k)), u2 = prng_unit(prng_mix(key + 2 * k + 1));
        double z = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
        double v = (double)d->mean + z * (double)d->sd;
        if (v >= (double)lo && v <= (double)hi) return (int64_t)llround(v);
    }
    /* 64 draws outside [min, max] (a window far in a tail): its nearer end */
    return d->mean < lo ? lo : d->mean > hi ? hi : d->mean;
}

#endif
