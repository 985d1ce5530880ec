/* bench_util.h -- clocks and memory for the bench drivers, so every table
 * row is measured the same way. Header-only: each driver is one file. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <sys/resource.h>
#include <time.h>

static inline double clock_s(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* wall time, and this process's CPU time (tells a busy machine from slow code) */
static inline double now_s(void) { return clock_s(CLOCK_MONOTONIC); }
static inline double cpu_s(void) { return clock_s(CLOCK_PROCESS_CPUTIME_ID); }

/* The process's peak resident set, MB (Linux reports ru_maxrss in KB). */
static inline double peak_rss_mb(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0;
}

#endif
