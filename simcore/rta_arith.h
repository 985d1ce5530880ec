/* rta_arith.h -- the integer arithmetic the response-time analyses share
 * (rta.c, rta_lock.c). Internal to simcore; pure C11 + the GCC/Clang
 * overflow builtins.
 *
 * The bounds only grow; a sum that would overflow is as good as "past every
 * deadline", so it saturates instead of wrapping into a small number. */
#ifndef SIMCORE_RTA_ARITH_H
#define SIMCORE_RTA_ARITH_H

#include <stdint.h>

static inline int64_t rta_sat_add(int64_t a, int64_t b) {
    int64_t r;
    return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}

static inline int64_t rta_sat_mul(int64_t a, int64_t b) {
    int64_t r;
    return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

/* ceil(x / t) for t > 0; a non-positive window holds no job (a negative
 * jitter can only come from a task that cannot meet its own deadline). */
static inline int64_t rta_ceil_div(int64_t x, int64_t t) {
    if (x <= 0)
        return 0;
    return x / t + (x % t != 0);
}

#endif
