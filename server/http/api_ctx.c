/* api_ctx.c -- the server's context: the database connections (a small
 * pool), the job queue and the work budget, opened by api_init and handed
 * to every handler as `app`. See api_ctx.h. */
#include "api_ctx.h"

#include "../app/store.h"

#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* Whether the path still names the database file opened at start. A file
 * removed or replaced under a running server would otherwise split it in
 * two: pooled connections keep the old inode, new ones create and migrate a
 * fresh file at the path (issue 31). false with the reason in why. */
bool api_db_same_file(api_ctx *a, char *why, size_t n) {
    struct stat st;
    if (stat(a->db_path, &st) != 0) {
        snprintf(why, n, "the database file %s was removed under the running server (%s); "
                 "nothing is read or written until schedlab serve is restarted, so that no "
                 "second database is made", a->db_name, strerror(errno));
        return false;
    }
    if (st.st_dev != a->db_dev || st.st_ino != a->db_ino) {
        snprintf(why, n, "the database file %s was replaced under the running server (another "
                 "file is at its path now); nothing is read or written until schedlab serve is "
                 "restarted, so that no second database is used", a->db_name);
        return false;
    }
    return true;
}

/* PRAGMA quick_check once at start, in a thread of its own on its own
 * connection: a corrupt database is reported by /api/health instead of
 * "ok" once the check is done ("checking": true until then). It reads every
 * page, a second per 100 MB here, so the port no longer waits for it (a
 * researcher's database of gigabytes kept the port shut for a minute); a
 * stop meanwhile interrupts it (api_free). Not at all with serve
 * --no-check (api_config.no_check): "checking" is false from the start. */
static void *check_main(void *arg) {
    api_ctx *a = arg;
    char msg[sizeof a->health] = "";
    db *d;
    char err[200];   /* with the prefix, within health[256] */
    if (db_open_readonly(a->db_path, &d, err, sizeof err)) {
        snprintf(msg, sizeof msg, "quick_check failed: %s", err);
    } else {
        pthread_mutex_lock(&a->mu);
        a->check_db = d;
        bool stopped = a->stopping;   /* api_free came first: no check, no verdict */
        pthread_mutex_unlock(&a->mu);
        sqlite3_stmt *st;
        if (stopped) {
            msg[0] = '\0';
        } else if (sqlite3_prepare_v2(db_handle(d), "PRAGMA quick_check(1)", -1, &st, NULL) != SQLITE_OK) {
            snprintf(msg, sizeof msg, "quick_check failed: %s", sqlite3_errmsg(db_handle(d)));
        } else {
            int rc = sqlite3_step(st);
            const char *v = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
            if (rc == SQLITE_INTERRUPT) msg[0] = '\0';   /* stopped: no verdict */
            else if (!v) snprintf(msg, sizeof msg, "quick_check failed: %s", sqlite3_errmsg(db_handle(d)));
            else if (strcmp(v, "ok") != 0) {
                snprintf(msg, sizeof msg, "database corrupt: %s", v);
                /* no more writes into it: reads (and exports) go on */
                char why[300];
                snprintf(why, sizeof why, "the database is corrupt (PRAGMA quick_check: %.120s); "
                         "writes are refused so as not to spread the damage: export what you "
                         "need, then restore a backup", v);
                for (char *c = why; *c; c++) if (*c == '\n') *c = ' ';
                db_refuse_writes(why);
            }
            sqlite3_finalize(st);
        }
        pthread_mutex_lock(&a->mu);
        a->check_db = NULL;
        pthread_mutex_unlock(&a->mu);
        db_close(d);
    }
    pthread_mutex_lock(&a->mu);
    memcpy(a->health, msg, sizeof a->health);
    a->checking = false;
    pthread_mutex_unlock(&a->mu);
    return NULL;
}

bool api_health(api_ctx *a, char *msg, size_t n) {
    pthread_mutex_lock(&a->mu);
    bool checking = a->checking;
    snprintf(msg, n, "%s", a->health);
    pthread_mutex_unlock(&a->mu);
    return checking;
}

job_queue *api_jobs(api_ctx *a) { return a->jobs; }
const budget *api_budget(api_ctx *a) { return &a->budget; }
void api_stop_jobs(api_ctx *a, int grace_ms) { jobs_stop(a->jobs, grace_ms); }

/* ---- context and connection pool ------------------------------------------------ */

int api_init(const api_config *cfg, api_ctx **out, char *err, size_t errlen) {
    *out = NULL;
    api_ctx *a = calloc(1, sizeof *a);
    if (!a) { snprintf(err, errlen, "out of memory"); return -1; }
    a->db_path = strdup(cfg->db_path);
    a->scenarios_dir = cfg->scenarios_dir ? strdup(cfg->scenarios_dir) : NULL;
    a->version = strdup(cfg->version ? cfg->version : "dev");
    pthread_mutex_init(&a->mu, NULL);
    if (cfg->budget) a->budget = *cfg->budget;
    else budget_default(&a->budget);
    if (a->db_path) {
        const char *slash = strrchr(a->db_path, '/');
        a->db_name = slash ? slash + 1 : a->db_path;
    }
    /* a read's lazy build takes the write lock only when it is free
     * (docs/shared-machine.md: readers never wait) */
    db_set_build_gate(store_write_trylock, store_write_unlock);
    db *d;
    if (!a->db_path || !a->version || db_open(a->db_path, &d, err, errlen)) {
        if (!a->db_path || !a->version) snprintf(err, errlen, "out of memory");
        api_free(a);
        return -1;
    }
    a->pool[a->npool++] = d;
    struct stat st;
    if (stat(a->db_path, &st) != 0) {
        snprintf(err, errlen, "%s: %s", a->db_path, strerror(errno));
        api_free(a);
        return -1;
    }
    a->db_dev = st.st_dev;
    a->db_ino = st.st_ino;
    if (!cfg->no_check) {
        a->checking = true;
        if (pthread_create(&a->check_thr, NULL, check_main, a) != 0) {
            snprintf(err, errlen, "cannot start the database check: %s", strerror(errno));
            api_free(a);
            return -1;
        }
        a->check_started = true;
    }
    if (jobs_start((unsigned)a->budget.workers, (size_t)a->budget.queue, &a->jobs, err, errlen)) {
        api_free(a);
        return -1;
    }
    *out = a;
    return 0;
}

void api_free(api_ctx *a) {
    if (!a) return;
    if (a->check_started) {
        /* sqlite3_interrupt stops only a statement already running: the
         * prepare and the first step clear it on an idle connection (SQLite's
         * vdbeapi.c), so one sent while the check thread opened its
         * connection or prepared was lost and the stop waited for the whole
         * check. Sent again until the check has ended. */
        for (;;) {
            pthread_mutex_lock(&a->mu);
            a->stopping = true;
            bool running = a->checking;
            if (running && a->check_db) sqlite3_interrupt(db_handle(a->check_db));
            pthread_mutex_unlock(&a->mu);
            if (!running) break;
            struct timespec ts = {0, 5 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
        pthread_join(a->check_thr, NULL);
    }
    jobs_free(a->jobs);
    for (size_t i = 0; i < a->npool; i++) db_close(a->pool[i]);
    pthread_mutex_destroy(&a->mu);
    free(a->db_path);
    free(a->scenarios_dir);
    free(a->version);
    free(a);
}

int api_db_get(api_ctx *a, db **out, char *err, size_t errlen) {
    *out = NULL;
    if (!api_db_same_file(a, err, errlen)) return 503;
    pthread_mutex_lock(&a->mu);
    db *d = a->npool ? a->pool[--a->npool] : NULL;
    pthread_mutex_unlock(&a->mu);
    if (!d && db_open(a->db_path, &d, err, errlen)) return 500;
    *out = d;
    return 0;
}

db *api_db_acquire(api_ctx *a, http_response *res) {
    db *d;
    char err[512];
    int status = api_db_get(a, &d, err, sizeof err);
    if (status == 503) res->retry_after = 0;
    if (status) http_set_error(res, status, "%s", err);
    return d;
}

void api_db_release(api_ctx *a, db *d) {
    if (!d) return;
    db_rollback(d);   /* a handler never leaves a transaction open */
    db_drop_scratch(d);   /* nor a lazy build's copies made for its read alone */
    /* A big request grew this connection's page cache: give it back, so the
     * server's memory returns after it (the OS page cache still holds the
     * file). Small caches are kept for the next request. */
    int cur = 0, hi = 0;
    if (sqlite3_db_status(db_handle(d), SQLITE_DBSTATUS_CACHE_USED, &cur, &hi, 0) == SQLITE_OK &&
        cur > (512 << 10))
        sqlite3_db_release_memory(db_handle(d));
    pthread_mutex_lock(&a->mu);
    if (a->npool < POOL_MAX) {
        a->pool[a->npool++] = d;
        d = NULL;
    }
    pthread_mutex_unlock(&a->mu);
    db_close(d);
}


void api_idle(void *app) {
    api_ctx *a = app;
    pthread_mutex_lock(&a->mu);   /* a pooled connection is no request's while here */
    for (size_t i = 0; i < a->npool; i++) sqlite3_db_release_memory(db_handle(a->pool[i]));
    pthread_mutex_unlock(&a->mu);
}

bool api_db_ok(api_ctx *a, http_response *res) {
    char why[400];
    if (api_db_same_file(a, why, sizeof why)) return true;
    http_set_error(res, 503, "%s", why);
    return false;
}
