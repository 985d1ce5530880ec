/* cli_progress.c -- a long command's progress on stderr (cli_progress.h). */
#include "cli_progress.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct progress {
    char what[64], unit[32];
    uint64_t total;
    double every;
    atomic_llong *done;
    _Atomic(const char *) *phase;
    const char *timed;
    pthread_mutex_t mu;
    pthread_cond_t cv;   /* signalled by progress_stop */
    bool stop;
    pthread_t tid;
};

static double mono(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void progress_duration(double d, char *buf, size_t len) {
    long s = d < 0 ? 0 : (long)(d + 0.5);
    if (s >= 3600 - 30) {
        long m = (s + 30) / 60;   /* to the minute */
        snprintf(buf, len, "%ld h %ld min", m / 60, m % 60);
    } else if (s >= 60)
        snprintf(buf, len, "%ld min %ld s", s / 60, s % 60);
    else
        snprintf(buf, len, "%ld s", s);
}

/* n with thousands separated by commas, as the docs write counts */
static void grouped(uint64_t n, char *buf, size_t len) {
    char raw[32];
    int k = snprintf(raw, sizeof raw, "%llu", (unsigned long long)n);
    size_t o = 0;
    for (int i = 0; i < k && o + 2 < len; i++) {
        if (i > 0 && (k - i) % 3 == 0) buf[o++] = ',';
        buf[o++] = raw[i];
    }
    buf[o] = '\0';
}

static void report(progress *p, double t0, double since, uint64_t at_since) {
    uint64_t done = (uint64_t)atomic_load_explicit(p->done, memory_order_relaxed);
    const char *phase = p->phase ? atomic_load(p->phase) : NULL;
    double now = mono();
    char el[32], d[32], tot[32];
    progress_duration(now - t0, el, sizeof el);
    grouped(done, d, sizeof d);
    grouped(p->total, tot, sizeof tot);
    int pct = p->total ? (int)(100.0 * (double)done / (double)p->total) : 0;
    if (p->timed && (!phase || strcmp(phase, p->timed))) {
        /* nothing counted yet: say what runs */
        fprintf(stderr, "schedlab: %s: %s of %s %s in %s (%s first)\n", p->what, d, tot, p->unit,
                el, phase ? phase : "starting");
        return;
    }
    double rate = now > since && done > at_since ? (double)(done - at_since) / (now - since) : 0;
    if (rate > 0 && done < p->total) {
        char left[32];
        progress_duration((double)(p->total - done) / rate, left, sizeof left);
        fprintf(stderr, "schedlab: %s: %s of %s %s (%d %%) in %s, %.*f %s/s: about %s left\n",
                p->what, d, tot, p->unit, pct, el, rate >= 100 ? 0 : rate >= 10 ? 1 : 2, rate,
                p->unit, left);
    } else {
        fprintf(stderr, "schedlab: %s: %s of %s %s (%d %%) in %s\n", p->what, d, tot, p->unit, pct,
                el);
    }
}

static void *run(void *arg) {
    progress *p = arg;
    double t0 = mono(), since = t0, next = t0 + p->every;
    uint64_t at_since = 0;
    bool timing = p->timed == NULL;
    pthread_mutex_lock(&p->mu);
    while (!p->stop) {
        double now = mono();
        /* the rate counts from the timed phase's start */
        if (!timing && p->phase) {
            const char *ph = atomic_load(p->phase);
            if (ph && !strcmp(ph, p->timed)) {
                timing = true;
                since = now;
                at_since = (uint64_t)atomic_load_explicit(p->done, memory_order_relaxed);
            }
        }
        if (now >= next) {
            report(p, t0, since, at_since);
            next = now + p->every;
        }
        /* wake at the next report, or sooner to see the timed phase begin */
        double wait = next - now;
        if (!timing && wait > 0.25) wait = 0.25;
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        double t = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 + (wait > 0 ? wait : 0);
        ts.tv_sec = (time_t)t;
        ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
        pthread_cond_timedwait(&p->cv, &p->mu, &ts);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

progress *progress_start(const char *what, const char *unit, uint64_t total, double every,
                         atomic_llong *done, _Atomic(const char *) *phase, const char *timed) {
    if (!(every > 0) || !done) return NULL;
    progress *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    *p = (progress){.total = total, .every = every, .done = done, .phase = phase, .timed = timed};
    snprintf(p->what, sizeof p->what, "%s", what);
    snprintf(p->unit, sizeof p->unit, "%s", unit);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, &ca);
    pthread_condattr_destroy(&ca);
    if (pthread_create(&p->tid, NULL, run, p) != 0) {
        pthread_cond_destroy(&p->cv);
        pthread_mutex_destroy(&p->mu);
        free(p);
        return NULL;
    }
    return p;
}

void progress_stop(progress *p) {
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    p->stop = true;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
    pthread_join(p->tid, NULL);
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    free(p);
}
