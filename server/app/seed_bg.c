/* seed_bg.c -- the shipped scenarios stored off the main thread. See seed_bg.h. */
#include "seed_bg.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../db/db.h"
#include "store.h"
#include "sweep_seed.h"

static pthread_t seed_thread;
static atomic_bool seed_running;
static bool seed_started;
static char *seed_db, *seed_dir, *seed_sweeps;

static void *seed_main(void *arg) {
    (void)arg;
    char err[1024];
    db *d;
    if (db_open(seed_db, &d, err, sizeof err)) {
        fprintf(stderr, "schedlab: warning: shipped scenarios not stored: %s\n", err);
    } else {
        int added = 0;
        int failed = store_seed(d, seed_dir, &added, err, sizeof err);
        if (failed < 0) fprintf(stderr, "schedlab: warning: %s\n", err);
        else if (failed) fprintf(stderr, "schedlab: warning: %d scenario(s) not stored; first: %s\n", failed, err);
        if (added) fprintf(stderr, "schedlab: stored %d shipped scenario(s) from %s\n", added, seed_dir);
        /* then the shipped sweeps (issue 30; sweep_seed.h), on 2 threads:
         * the server answers meanwhile */
        if (seed_sweeps) {
            failed = sweep_seed(d, seed_sweeps, 2, &added, err, sizeof err);
            if (failed) fprintf(stderr, "schedlab: warning: %d shipped sweep(s) not stored; first: %s\n", failed, err);
        }
        db_close(d);
    }
    atomic_store(&seed_running, false);
    return NULL;
}

int seedbg_start(const char *db_path, const char *scenarios_dir, const char *sweeps_dir,
                 char *err, size_t errlen) {
    seed_db = strdup(db_path);
    seed_dir = strdup(scenarios_dir);
    seed_sweeps = sweeps_dir ? strdup(sweeps_dir) : NULL;
    if (!seed_db || !seed_dir || (sweeps_dir && !seed_sweeps)) {
        snprintf(err, errlen, "seeding: out of memory");
        goto fail;
    }
    atomic_store(&seed_running, true);
    int rc = pthread_create(&seed_thread, NULL, seed_main, NULL);
    if (rc) {
        snprintf(err, errlen, "seeding: cannot start a thread: %s", strerror(rc));
        goto fail;
    }
    seed_started = true;
    return 0;
fail:
    atomic_store(&seed_running, false);
    free(seed_db);
    free(seed_dir);
    free(seed_sweeps);
    seed_db = seed_dir = seed_sweeps = NULL;
    return -1;
}

void seedbg_expect(void) { atomic_store(&seed_running, true); }

bool seedbg_pending(void) { return atomic_load(&seed_running); }

void seedbg_join(void) {
    if (!seed_started) return;
    pthread_join(seed_thread, NULL);
    seed_started = false;
    free(seed_db);
    free(seed_dir);
    free(seed_sweeps);
    seed_db = seed_dir = seed_sweeps = NULL;
}
