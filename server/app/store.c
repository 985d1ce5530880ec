/* store.c -- the store layer: scenarios simulated into experiments,
 * imports, shipped scenarios seeded. See store.h. */
#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../importers/jsonr.h"
#include "../../importers/tmpfile.h"
#include "../../importers/trace_check.h"
#include "../../simcore/sim.h"
#include "../../db/versions.h"
#include "scenario.h"
#include "trace_json.h"


/* ---- the write lock ------------------------------------------------------------ */

static pthread_mutex_t write_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool writing;

static bool cancelled(const store_ctl *ctl) { return ctl && ctl->cancel && atomic_load(ctl->cancel); }
static void progress(const store_ctl *ctl, long long n) {
    if (ctl && ctl->done) atomic_fetch_add(ctl->done, n);
}

/* ---- an import's progress (issue 15): *done only ever grows ---------------------- */

static void import_at(const store_ctl *ctl, long long units) {
    if (!ctl || !ctl->done) return;
    long long cur = atomic_load(ctl->done);
    while (cur < units && !atomic_compare_exchange_weak(ctl->done, &cur, units)) {}
}

static void import_phase(const store_ctl *ctl, const char *phase) {
    if (ctl && ctl->phase) atomic_store(ctl->phase, phase);
}

/* imp_options.progress: the parse's fraction into the first units */
static void parse_progress(void *user, double f) {
    import_at(user, (long long)(f * STORE_IMPORT_PARSE));
}

/* imp_options.cancelled: the parse stops once the job is cancelled (a
 * DELETE of the job, or the server stopping): a big upload's parse took
 * its whole time (35 s for 630 MB of schedlab-trace) before the cancel
 * was seen at the store */
static bool parse_cancelled(void *user) { return cancelled(user); }

/* db_on_rows: the rows stored into the rest, short of the whole until the
 * commit */
static void rows_progress(void *user, long long done, long long total) {
    long long span = STORE_IMPORT_UNITS - STORE_IMPORT_PARSE - 1;
    import_at(user, STORE_IMPORT_PARSE + (total > 0 ? done * span / total : 0));
}

/* Take the write lock: at once, within lock_ms, or (lock_ms < 0) when it
 * comes, giving up if the work is cancelled meanwhile. */
static int lock_writes(const store_ctl *ctl, char *err, size_t errlen) {
    int ms = ctl ? ctl->lock_ms : -1;
    for (int waited = 0;; waited += 20) {
        if (pthread_mutex_trylock(&write_lock) == 0) {
            atomic_store(&writing, true);
            return 0;
        }
        if (cancelled(ctl)) {
            snprintf(err, errlen, "aborted: the server is stopping; nothing was stored");
            return STORE_ABORTED;
        }
        if (ms >= 0 && waited >= ms) {
            snprintf(err, errlen, "another write is under way");
            return STORE_BUSY;
        }
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

static void unlock_writes(void) {
    atomic_store(&writing, false);
    pthread_mutex_unlock(&write_lock);
}

bool store_writing(void) { return atomic_load(&writing); }

bool store_write_trylock(void) {
    if (pthread_mutex_trylock(&write_lock) != 0) return false;
    atomic_store(&writing, true);
    return true;
}

void store_write_unlock(void) { unlock_writes(); }

int store_write(db *d, const store_ctl *ctl, store_write_fn fn, void *arg, char *err,
                size_t errlen) {
    int rc = lock_writes(ctl, err, errlen);
    if (rc) return rc;
    if ((rc = db_begin(d, err, errlen)) == 0) {
        rc = fn(d, arg, err, errlen);
        if (rc == 0 && cancelled(ctl)) {
            snprintf(err, errlen, "aborted: the server is stopping; nothing was stored");
            rc = STORE_ABORTED;
        }
        if (rc == 0) rc = db_commit(d, err, errlen);
        if (rc) db_rollback(d);
    }
    unlock_writes();
    return rc;
}

/* ---- simulated blocks through a temporary file ----------------------------------- */

static FILE *spill_open(void) {
    int fd = imp_tmp_fd("blocks");   /* in TMPDIR, never named */
    if (fd < 0) return NULL;
    FILE *f = fdopen(fd, "w+b");
    if (!f) close(fd);
    return f;
}

/* One simulated run waiting to be stored: its trace without blocks and the
 * blocks in a temporary file (store.h store_spilled). */
typedef store_spilled sim_done;

typedef struct spill_sink {
    FILE *f;
    size_t n;
    const store_ctl *ctl;
    long long emitted;       /* blocks handed over, kept or dropped */
    long long counted;       /* blocks counted in the progress so far */
    char err[200];
} spill_sink;

static int spill_cancelled(spill_sink *s) {
    if (!cancelled(s->ctl)) return 0;
    snprintf(s->err, sizeof s->err, "aborted: the server is stopping; nothing was stored");
    return -1;
}

/* The progress counts the blocks simulated: those emitted, or those placed
 * (spill_placed) where that is more, as in a run of cohorts */
static void spill_count(spill_sink *s, long long simulated) {
    if (simulated <= s->counted) return;
    progress(s->ctl, simulated - s->counted);
    s->counted = simulated;
}

static int spill_emit(void *ctx, const trace_block *b, size_t n) {
    spill_sink *s = ctx;
    if (spill_cancelled(s)) return -1;
    s->emitted += (long long)n;
    if (s->ctl && s->ctl->drop_blocks) {   /* counted, not kept */
        spill_count(s, s->emitted);
        return 0;
    }
    if (fwrite(b, sizeof *b, n, s->f) != n) {
        snprintf(s->err, sizeof s->err, "cannot write simulated blocks to a temporary file: %s",
                 strerror(errno));
        return -1;
    }
    s->n += n;
    spill_count(s, s->emitted);
    return 0;
}

/* a run of cohorts emits few of the blocks it places (sim.h): its cancel
 * and its progress are asked and counted here */
static int spill_placed(void *ctx, int64_t placed) {
    spill_sink *s = ctx;
    if (spill_cancelled(s)) return -1;
    spill_count(s, (long long)placed);
    return 0;
}

/* Simulate run i of s into `out` (outside any transaction). */
static int simulate_run(const scn_scenario *s, size_t i, const char *file, const store_ctl *ctl,
                        sim_done *out, char *err, size_t errlen) {
    sim_config cfg;
    char why[400];
    trace_init(&out->t);
    out->nblocks = 0;
    if (scn_config(s, i, &cfg, why, sizeof why)) {
        snprintf(err, errlen, "%s: run \"%s\": %s", file, scn_run_name(s, i), why);
        return STORE_BAD_INPUT;
    }
    if (!(out->blocks = spill_open())) {
        snprintf(err, errlen, "cannot open a temporary file for simulated blocks: %s",
                 strerror(errno));
        return -1;
    }
    spill_sink ss = {.f = out->blocks, .ctl = ctl};
    sim_block_sink sink = {.ctx = &ss, .emit = spill_emit, .batch = 0, .placed = spill_placed};
    cfg.block_sink = &sink;
    if (sim_run(&cfg, &out->t, why, sizeof why)) {
        if (ss.err[0]) {
            snprintf(err, errlen, "%s", ss.err);
            return cancelled(ctl) ? STORE_ABORTED : -1;
        }
        snprintf(err, errlen, "%s: run \"%s\": %s", file, scn_run_name(s, i), why);
        return STORE_BAD_INPUT;
    }
    if (!out->t.name) trace_set_name(&out->t, scn_name(s));
    if (ctl && ctl->drop_blocks) trace_set_meta(&out->t, "blocks", "simulated, not stored");
    out->nblocks = ss.n;
    if (fflush(out->blocks) != 0 || fseek(out->blocks, 0, SEEK_SET) != 0) {
        snprintf(err, errlen, "cannot read back simulated blocks: %s", strerror(errno));
        return -1;
    }
    return 0;
}

/* Store a simulated run (inside the open transaction). */
static int store_done(db *d, sim_done *sd, const char *slug, const char *name,
                      const store_ctl *ctl, char run[DB_SLUG_SIZE], char *err, size_t errlen) {
    db_run_writer *w;
    int rc = db_run_begin(d, slug, name, run, &w, err, errlen);
    if (rc) return rc;
    db_run_kernels(w, &sd->t);   /* the pyramid takes each batch (db/pyramid.h) */
    trace_block *buf = malloc(SIM_SINK_BATCH * sizeof *buf);
    if (!buf) {
        db_run_abort(w);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    size_t left = sd->nblocks;
    while (left) {
        if (cancelled(ctl)) {
            db_run_abort(w);
            free(buf);
            snprintf(err, errlen, "aborted: the server is stopping; nothing was stored");
            return STORE_ABORTED;
        }
        size_t want = left < SIM_SINK_BATCH ? left : SIM_SINK_BATCH;
        if (fread(buf, sizeof *buf, want, sd->blocks) != want) {
            db_run_abort(w);
            free(buf);
            snprintf(err, errlen, "cannot read back simulated blocks: %s",
                     ferror(sd->blocks) ? strerror(errno) : "short file");
            return -1;
        }
        if (db_run_add_blocks(w, buf, want, err, errlen)) {
            db_run_abort(w);   /* already rolled back; abort frees the writer */
            free(buf);
            return -1;
        }
        left -= want;
        progress(ctl, (long long)want);
    }
    free(buf);
    return db_run_finish(w, &sd->t, err, errlen);
}

int store_spill(trace *t, store_spilled *s, char *err, size_t errlen) {
    memset(s, 0, sizeof *s);
    s->t = *t;
    trace_init(t);
    if (!(s->blocks = spill_open())) {
        snprintf(err, errlen, "cannot open a temporary file for the run's blocks: %s",
                 strerror(errno));
        return -1;
    }
    trace *r = &s->t;
    if (r->blocks.n && fwrite(r->blocks.v, sizeof *r->blocks.v, r->blocks.n, s->blocks) !=
                           r->blocks.n) {
        snprintf(err, errlen, "cannot write the run's blocks to a temporary file: %s",
                 strerror(errno));
        return -1;
    }
    s->nblocks = r->blocks.n;
    free(r->blocks.v);
    r->blocks.v = NULL;
    r->blocks.n = r->blocks.cap = 0;
    if (fflush(s->blocks) != 0 || fseek(s->blocks, 0, SEEK_SET) != 0) {
        snprintf(err, errlen, "cannot read back the run's blocks: %s", strerror(errno));
        return -1;
    }
    return 0;
}

int store_spilled_run(db *d, store_spilled *s, const char *experiment, const char *name,
                      const store_ctl *ctl, char run[DB_SLUG_SIZE], char *err, size_t errlen) {
    return store_done(d, s, experiment, name, ctl, run, err, errlen);
}

void store_spilled_free(store_spilled *s) {
    trace_free(&s->t);
    if (s->blocks) fclose(s->blocks);
    s->blocks = NULL;
    s->nblocks = 0;
}

static int exp_source(void *ctx, const db_experiment *e) {
    snprintf(ctx, 16, "%s", e->source ? e->source : "");
    return 0;
}

/* An experiment's kind and whether it keeps a scenario to edit and re-run
 * (a several-GPU replay's keeps none: a scenario per GPU, not stored). */
typedef struct exp_kind {
    char source[16];
    bool has_scenario;
} exp_kind;

static int exp_kind_of(void *ctx, const db_experiment *e) {
    exp_kind *k = ctx;
    snprintf(k->source, sizeof k->source, "%s", e->source ? e->source : "");
    k->has_scenario = e->scenario_json != NULL;
    return 0;
}

/* An import may add runs only to an experiment made by imports: a
 * simulated experiment is its scenario's runs, nothing else. 0, or the
 * error (STORE_FORBIDDEN, DB_NOT_FOUND, -1) in err. */
static int import_target(db *d, const char *experiment, char *err, size_t errlen) {
    char source[16] = "";
    int rc = db_get_experiment(d, experiment, exp_source, source, err, errlen);
    if (rc) return rc;
    if (strcmp(source, "import") != 0) {
        /* what it holds: a sweep's experiment has no runs at all */
        snprintf(err, errlen,
                 "experiment: \"%s\" holds %s; imports may only add to experiments made by "
                 "imports", experiment,
                 strcmp(source, "sweep") == 0 ? "a sweep's results" : "the runs of a scenario");
        return STORE_FORBIDDEN;
    }
    return 0;
}

/* `into` NULL: a new experiment; else the runs go into that scenario
 * experiment as its next version (issue 15), number in *version_out. */
static int scenario_into(db *d, const char *text, size_t len, const char *file,
                         const char *scenario_file, const char *into, const store_ctl *ctl,
                         char slug[DB_SLUG_SIZE], json_t **runs_out, int64_t *version_out,
                         char *err, size_t errlen) {
    scn_scenario *own = NULL;
    int64_t version = 1;
    if (runs_out) *runs_out = NULL;
    slug[0] = '\0';
    /* a POSTed scenario comes parsed (writes_admit_scenario): once is enough */
    const scn_scenario *s = ctl ? ctl->parsed : NULL;
    if (!s) {
        if (scn_parse(text, len, file, &own, err, errlen)) return STORE_BAD_INPUT;
        s = own;
    }
    size_t nruns = scn_run_count(s);
    json_t *runs = json_array();
    char *copy = malloc(len + 1);
    sim_done *done = calloc(nruns, sizeof *done);
    int rc = -1;
    bool locked = false;
    size_t nsim = 0;
    if (!runs || !copy || !done) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    memcpy(copy, text, len);
    copy[len] = '\0';
    /* every run simulated before any transaction opens */
    for (; nsim < nruns; nsim++)
        if ((rc = simulate_run(s, nsim, file, ctl, &done[nsim], err, errlen)) != 0) {
            nsim++;
            goto out;
        }
    if ((rc = lock_writes(ctl, err, errlen)) != 0) goto out;
    locked = true;
    rc = -1;
    if (db_begin(d, err, errlen)) goto out;
    if (scenario_file) {
        /* seeding: another server seeding the same file meanwhile wins */
        bool have = false;
        if (db_has_scenario_file(d, scenario_file, &have, err, errlen)) goto rollback;
        if (have) {
            db_rollback(d);
            rc = 0;
            goto out;
        }
    }
    if (into) {
        exp_kind k = {0};
        if ((rc = db_get_experiment(d, into, exp_kind_of, &k, err, errlen)) != 0) {
            if (rc == DB_NOT_FOUND) snprintf(err, errlen, "no experiment named \"%s\"", into);
            goto rollback;
        }
        if (strcmp(k.source, "scenario") != 0) {
            /* an import's runs are recorded, not simulated: nothing to re-run */
            snprintf(err, errlen, "experiment: \"%s\" is not a scenario experiment (%s); only "
                     "scenarios can be edited and re-run", into, k.source);
            rc = STORE_FORBIDDEN;
            goto rollback;
        }
        if (!k.has_scenario) {
            /* a several-GPU replay's runs: simulated, from no one scenario */
            snprintf(err, errlen, "experiment: \"%s\" keeps no scenario (a replay of several "
                     "GPUs, one scenario per GPU); only scenarios can be edited and re-run", into);
            rc = STORE_FORBIDDEN;
            goto rollback;
        }
        rc = -1;
        if (db_version_latest(d, into, &version, err, errlen)) goto rollback;
        version += 1;
        if (db_version_add(d, into, version, copy, err, errlen)) goto rollback;
        snprintf(slug, DB_SLUG_SIZE, "%s", into);
    } else if (db_create_experiment(d, scn_name(s), scn_description(s), "scenario", scenario_file,
                                    copy, slug, err, errlen)) {
        goto rollback;
    }
    for (size_t i = 0; i < nruns; i++) {
        char run[DB_SLUG_SIZE];
        if ((rc = store_done(d, &done[i], slug, scn_run_name(s, i), ctl, run, err, errlen)) != 0)
            goto rollback;
        rc = -1;
        if (into && db_run_set_version(d, run, version, err, errlen)) goto rollback;
        json_array_append_new(runs, json_pack("{s:s, s:o}", "run", run, "name",
                                              tj_string(scn_run_name(s, i))));
    }
    if (ctl && ctl->with_runs &&
        (rc = ctl->with_runs(d, slug, runs, ctl->with_runs_user, err, errlen)) != 0)
        goto rollback;
    rc = -1;
    if (cancelled(ctl)) {
        snprintf(err, errlen, "aborted: the server is stopping; nothing was stored");
        rc = STORE_ABORTED;
        goto rollback;
    }
    if (db_commit(d, err, errlen)) goto rollback;
    if (runs_out) {
        *runs_out = runs;
        runs = NULL;
    }
    if (version_out) *version_out = version;
    rc = 0;
    goto out;
rollback:
    db_rollback(d);
    slug[0] = '\0';
out:
    if (locked) unlock_writes();
    for (size_t i = 0; done && i < nsim; i++) {
        trace_free(&done[i].t);
        if (done[i].blocks) fclose(done[i].blocks);
    }
    free(done);
    json_decref(runs);
    free(copy);
    scn_free(own);
    return rc;
}

int store_scenario_ctl(db *d, const char *text, size_t len, const char *file,
                       const char *scenario_file, const store_ctl *ctl, char slug[DB_SLUG_SIZE],
                       json_t **runs_out, char *err, size_t errlen) {
    return scenario_into(d, text, len, file, scenario_file, NULL, ctl, slug, runs_out, NULL, err,
                         errlen);
}

int store_scenario_version(db *d, const char *experiment, const char *text, size_t len,
                           const store_ctl *ctl, json_t **runs_out, int64_t *version, char *err,
                           size_t errlen) {
    char slug[DB_SLUG_SIZE];
    return scenario_into(d, text, len, "scenario", NULL, experiment, ctl, slug, runs_out, version,
                         err, errlen);
}

/* A deletion the full disk stopped, said so a user can act: SQLite
 * records every change, a deletion too, in PATH-wal before the database
 * (WAL mode, db.c), and with no room for that file to grow nothing can be
 * deleted safely; the rows stay as they were (rolled back). Room comes
 * from elsewhere on that disk; a deletion then frees pages inside the
 * database for new runs, the file does not shrink (no auto_vacuum). */
static void delete_full(db *d, const char *experiment, char *err, size_t errlen) {
    const char *path = db_path(d), *slash = strrchr(path, '/');
    size_t pl = strlen(path);
    char why[300];   /* SQLite's words, without the path they begin with */
    snprintf(why, sizeof why, "%s",
             strncmp(err, path, pl) == 0 && err[pl] == ':' && err[pl + 1] == ' ' ? err + pl + 2
                                                                                 : err);
    char dir[PATH_MAX];
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == path) snprintf(dir, sizeof dir, "/");
    else snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    snprintf(err, errlen,
             "%s: experiment \"%s\" not deleted: the disk holding the database (its folder %s) "
             "is full (%s); SQLite writes even a deletion to %s-wal first and that file cannot "
             "grow; free space on that disk (files other than the database and its -wal and "
             "-shm), then delete again (nothing was changed)",
             path, experiment, dir, why, path);
}

int store_delete_experiment(db *d, const char *experiment, const store_ctl *ctl, int64_t *runs,
                            char *err, size_t errlen) {
    int rc = lock_writes(ctl, err, errlen);
    if (rc) return rc;
    if ((rc = db_begin(d, err, errlen)) == 0) {
        rc = db_delete_experiment(d, experiment, runs, err, errlen);
        if (rc == DB_NOT_FOUND) snprintf(err, errlen, "no experiment named \"%s\"", experiment);
        if (rc == 0) rc = db_commit(d, err, errlen);
        if (rc) db_rollback(d);
        if (rc == -1 && db_error_full(err)) delete_full(d, experiment, err, errlen);
    }
    unlock_writes();
    return rc;
}

int store_scenario(db *d, const char *text, size_t len, const char *file,
                   const char *scenario_file, char slug[DB_SLUG_SIZE], json_t **runs_out,
                   char *err, size_t errlen) {
    return store_scenario_ctl(d, text, len, file, scenario_file, NULL, slug, runs_out, err,
                              errlen);
}

/* ---- a streaming import (issue 9) ----------------------------------------------- */

/* The formats that stream (importers.h, imp_stream) hand over kernels and
 * copies (globaltimer-csv: its kernels, then its blocks, which go into the
 * block pages: db_run_add_blocks) in batches while they read, and each
 * batch goes into the run at once: the write lock and the transaction are
 * taken before the parse, the experiment and the run begin with the first
 * batch. Still one transaction:
 * a bad file rolls back everything, its message the importer's own.
 *
 * Two threads: the importer parses on the caller's thread while a store
 * thread writes the batches before it, so the import takes about as long
 * as the slower of the two rather than their sum. A batch is copied into
 * one of STREAM_SLOTS buffers (the importer reuses its own), which bounds
 * what waits between them. The connection is the store thread's from the
 * first batch until it is joined; rows name strings by the trace's ids
 * only, so the store thread never reads the string table the importer is
 * still growing (db.h, db_run_add_kernels).
 *
 * The range checks of issue 16 run on every batch and on the origin found
 * at the end (imp_stream.range_ok), but they name the first bad record of
 * the whole file: when one fails, the run is rolled back and the file is
 * imported again whole (import_whole), which names it as before. Only a
 * file schedlab refuses takes that path. */

/* Rows per batch: 8192 kernels hold 1.4 MB; larger batches measured no
 * faster (the INSERTs are bulk_rows() rows each whatever the batch). */
#define STREAM_ROWS 8192
/* Batches that may wait for the store thread */
#define STREAM_SLOTS 3
/* The page cache while a streaming import writes: PRAGMA cache_size units,
 * -KiB */
#define STREAM_CACHE_KIB (-4096)

typedef struct stream_slot {
    trace_kernel *k;
    trace_copy *c;
    trace_block *b;              /* globaltimer-csv's blocks, after all its kernels */
    size_t nk, nc, capk, capc, nb, capb;
    size_t nstrs;                /* the string table's size when it was taken */
} stream_slot;

typedef struct stream_ctx {
    db *d;
    const store_ctl *ctl;
    const imp_file *file;
    const char *experiment;      /* the one given; NULL: made at the first batch */
    const char *name;            /* the run's */
    char *run, *exp;             /* the caller's slugs */
    char *ename, *source;        /* the trace's name and source, for a new experiment */
    db_run_writer *w;            /* NULL until the first batch is stored */
    bool whole;                  /* a range check failed: import whole for its message */
    size_t nblocks;              /* blocks handed over so far */
    int cb_rc;                   /* the batch callback failed for the store, not the
                                    file: what the import's failure returns */

    pthread_t thread;
    bool started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    stream_slot slot[STREAM_SLOTS];
    size_t head, count;          /* the oldest full slot, how many are full */
    bool end;                    /* no more batches */
    bool failed;                 /* the store thread failed: rc, serr */
    int rc;
    char serr[1024];
} stream_ctx;

/* The store thread's part of one batch. */
static int store_slot(stream_ctx *c, const stream_slot *sl, char *err, size_t errlen) {
    if (cancelled(c->ctl)) {
        snprintf(err, errlen, "aborted: the server is stopping; nothing was stored");
        return STORE_ABORTED;
    }
    int rc;
    if (!c->w && !c->experiment) {
        char desc[512];
        snprintf(desc, sizeof desc, "Imported from %s (%s)", c->file->name,
                 c->source ? c->source : "unknown format");
        if ((rc = db_create_experiment(c->d, c->ename && *c->ename ? c->ename : c->name,
                                       c->ctl && c->ctl->description ? c->ctl->description : desc,
                                       "import", NULL, NULL, c->exp, err, errlen)))
            return rc;
        c->experiment = c->exp;
    }
    if (!c->w && (rc = db_run_begin(c->d, c->exp, c->name, c->run, &c->w, err, errlen)))
        return rc;
    /* the batch as a trace: its rows and how many strings there were */
    trace view;
    trace_init(&view);
    view.kernels.v = sl->k;
    view.kernels.n = view.kernels.cap = sl->nk;
    view.copies.v = sl->c;
    view.copies.n = view.copies.cap = sl->nc;
    view.strs.n = sl->nstrs;
    if (db_run_add_kernels(c->w, &view, err, errlen) || db_run_add_copies(c->w, &view, err, errlen) ||
        db_run_add_blocks(c->w, sl->b, sl->nb, err, errlen))
        return -1;
    return 0;
}

static void *store_main(void *arg) {
    stream_ctx *c = arg;
    pthread_mutex_lock(&c->mu);
    for (;;) {
        while (!c->count && !c->end) pthread_cond_wait(&c->cv, &c->mu);
        if (!c->count) break;
        stream_slot *sl = &c->slot[c->head];
        bool failed = c->failed;
        pthread_mutex_unlock(&c->mu);
        int rc = failed ? 0 : store_slot(c, sl, c->serr, sizeof c->serr);
        pthread_mutex_lock(&c->mu);
        if (rc) {
            c->failed = true;
            c->rc = rc;
        }
        c->head = (c->head + 1) % STREAM_SLOTS;
        c->count--;
        pthread_cond_broadcast(&c->cv);
    }
    pthread_mutex_unlock(&c->mu);
    return NULL;
}

static bool grow(void **v, size_t *cap, size_t n, size_t size) {
    if (n <= *cap) return true;
    void *g = realloc(*v, n * size);
    if (!g) return false;
    *v = g;
    *cap = n;
    return true;
}

/* imp_stream.batch, on the importer's thread: checked, copied into a free
 * slot, handed to the store thread (started with the first batch). */
static int stream_batch(void *user, const trace *t, size_t kernels, size_t copies, char *err,
                        size_t errlen) {
    stream_ctx *c = user;
    (void)copies;   /* the writer numbers the rows itself */
    /* blocks name kernels of earlier batches: checked against the run's
     * kernels so far, numbered as in the whole trace */
    trace rows = *t;
    rows.blocks.n = 0;
    if (imp_check_batch(&rows, c->file->name, err, errlen) ||
        imp_check_blocks(t->blocks.v, t->blocks.n, c->nblocks, kernels + t->kernels.n,
                         c->file->name, err, errlen)) {
        c->whole = true;
        return -1;
    }
    c->nblocks += t->blocks.n;
    if (!c->started) {
        /* fixed before the first batch (imp_import names a streamed trace
         * first); copied so the store thread reads nothing of t */
        c->ename = t->name ? strdup(t->name) : NULL;
        c->source = t->source ? strdup(t->source) : NULL;
        if ((t->name && !c->ename) || (t->source && !c->source) ||
            pthread_create(&c->thread, NULL, store_main, c) != 0) {
            snprintf(err, errlen, "%s: out of memory", c->file->name);
            c->cb_rc = -1;
            return -1;
        }
        c->started = true;
    }
    pthread_mutex_lock(&c->mu);
    while (c->count == STREAM_SLOTS && !c->failed) pthread_cond_wait(&c->cv, &c->mu);
    if (c->failed) {
        snprintf(err, errlen, "%s", c->serr);
        c->cb_rc = c->rc;
        pthread_mutex_unlock(&c->mu);
        return -1;
    }
    /* the slot after the full ones is the importer's alone until posted.
     * Found under the lock: the store thread moves head and count on
     * together as it finishes a slot, and the two read apart could name a
     * full slot it has still to store, or one past the free one. */
    stream_slot *sl = &c->slot[(c->head + c->count) % STREAM_SLOTS];
    pthread_mutex_unlock(&c->mu);
    if (!grow((void **)&sl->k, &sl->capk, t->kernels.n, sizeof *sl->k) ||
        !grow((void **)&sl->c, &sl->capc, t->copies.n, sizeof *sl->c) ||
        !grow((void **)&sl->b, &sl->capb, t->blocks.n, sizeof *sl->b)) {
        snprintf(err, errlen, "%s: out of memory", c->file->name);
        c->cb_rc = -1;
        return -1;
    }
    if (t->kernels.n) memcpy(sl->k, t->kernels.v, t->kernels.n * sizeof *sl->k);
    if (t->copies.n) memcpy(sl->c, t->copies.v, t->copies.n * sizeof *sl->c);
    if (t->blocks.n) memcpy(sl->b, t->blocks.v, t->blocks.n * sizeof *sl->b);
    sl->nk = t->kernels.n;
    sl->nc = t->copies.n;
    sl->nb = t->blocks.n;
    sl->nstrs = t->strs.n;
    pthread_mutex_lock(&c->mu);
    c->count++;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
    return 0;
}

/* Wait for the store thread to write what is queued; 0, or its failure
 * with the message in err. */
static int stream_join(stream_ctx *c, char *err, size_t errlen) {
    if (!c->started) return 0;
    pthread_mutex_lock(&c->mu);
    c->end = true;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
    pthread_join(c->thread, NULL);
    c->started = false;
    if (!c->failed) return 0;
    if (err) snprintf(err, errlen, "%s", c->serr);
    return c->rc;
}

static void stream_free(stream_ctx *c) {
    for (size_t i = 0; i < STREAM_SLOTS; i++) {
        free(c->slot[i].k);
        free(c->slot[i].c);
        free(c->slot[i].b);
    }
    free(c->ename);
    free(c->source);
    pthread_cond_destroy(&c->cv);
    pthread_mutex_destroy(&c->mu);
}

void store_warnings_free(store_warnings *w) {
    if (!w) return;
    free(w->lines);
    w->lines = NULL;
    w->total = 0;
}

json_t *store_warnings_json(const store_warnings *w) {
    json_t *a = json_array();
    if (!a || !w || !w->lines) return a;
    for (const char *p = w->lines; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        json_array_append_new(a, json_stringn(p, n));
        p += n + (nl ? 1 : 0);
    }
    return a;
}

/* The stored run's warnings into ctl->warnings, when asked for. */
static int keep_warnings(const store_ctl *ctl, const trace *t, char *err, size_t errlen) {
    if (!ctl || !ctl->warnings) return 0;
    store_warnings *w = ctl->warnings;
    const char *lines = trace_get_meta(t, IMP_WARNINGS_KEY);
    w->total = imp_warnings_total(t);
    w->lines = NULL;
    if (!lines || !*lines) return 0;
    /* a schedlab-trace import keeps its meta as written: hold it to the
     * contract (at most IMP_WARNINGS_SHOWN lines, a total no smaller) */
    long long n = 1;
    const char *end = lines;
    for (; *end; end++)
        if (*end == '\n' && n++ == IMP_WARNINGS_SHOWN) break;
    if (n > IMP_WARNINGS_SHOWN) n = IMP_WARNINGS_SHOWN;
    if (w->total < n) w->total = n;
    if (!(w->lines = strndup(lines, (size_t)(end - lines)))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

/* 1: imported; *whole set: do it again with import_whole. */
static int import_stream(db *d, const imp_file *file, size_t nfiles, imp_format fmt,
                         const char *experiment, const char *name, const store_ctl *ctl,
                         char run[DB_SLUG_SIZE], char exp[DB_SLUG_SIZE], bool *whole, char *err,
                         size_t errlen) {
    *whole = false;
    import_phase(ctl, "parsing");
    char rname[256];
    if (!name) {
        const char *base = strrchr(file->name, '/');
        snprintf(rname, sizeof rname, "%s", base ? base + 1 : file->name);
        name = rname;
    }
    trace t;
    trace_init(&t);
    stream_ctx c = {.d = d, .ctl = ctl, .file = file, .name = name, .run = run, .exp = exp};
    pthread_mutex_init(&c.mu, NULL);
    pthread_cond_init(&c.cv, NULL);
    int64_t cache = 0;
    int rc = lock_writes(ctl, err, errlen);
    if (rc) goto out;
    if ((rc = db_begin(d, err, errlen))) goto unlock;
    if (experiment) {
        if ((rc = import_target(d, experiment, err, errlen))) goto rollback;
        snprintf(exp, DB_SLUG_SIZE, "%s", experiment);
        c.experiment = exp;
    }
    /* the rows are appended to tables without secondary indexes (kernels,
     * copies): a few MB of page cache do, and memory stays flat */
    if ((rc = db_cache_size(d, STREAM_CACHE_KIB, &cache, err, errlen))) goto rollback;
    imp_stream st = {.batch = stream_batch, .user = &c, .mapped = ctl && ctl->files_mapped,
                     .rows = STREAM_ROWS};
    imp_options io = {.progress = ctl && ctl->done ? parse_progress : NULL, .user = (void *)ctl,
                      .stream = &st, .cancelled = ctl && ctl->cancel ? parse_cancelled : NULL};
    int irc = imp_import_opts(fmt, file, nfiles, &io, &t, err, errlen);
    if (irc) {
        /* the file's error first; the store's when the import stopped for it */
        stream_join(&c, NULL, 0);
        if (cancelled(ctl)) {
            /* stopped for it: no second reading for a message */
            snprintf(err, errlen, "aborted: the server is stopping; nothing was stored");
            rc = STORE_ABORTED;
            goto rollback;
        }
        /* a refusal the importer may name otherwise than whole: not when
         * the store stopped it (cb_rc: its own message, a cancel) */
        *whole = c.whole || (st.whole_message && !c.cb_rc);
        rc = c.cb_rc ? c.cb_rc : STORE_BAD_INPUT;
        goto rollback;
    }
    if ((rc = stream_join(&c, err, errlen))) goto rollback;
    /* the origin's range, then what the trace still holds (meta, device) */
    if (!c.w || !st.range_ok || imp_check_trace(&t, file->name, err, errlen)) {
        *whole = true;
        rc = STORE_BAD_INPUT;
        goto rollback;
    }
    import_at(ctl, STORE_IMPORT_PARSE);
    import_phase(ctl, "storing");
    if (cancelled(ctl)) {
        snprintf(err, errlen, "aborted: the server is stopping; nothing was stored");
        rc = STORE_ABORTED;
        goto rollback;
    }
    if ((rc = keep_warnings(ctl, &t, err, errlen))) goto rollback;
    if ((rc = db_run_shift_times(c.w, st.shift, err, errlen))) goto rollback;
    if (ctl && ctl->done) db_on_rows(d, rows_progress, (void *)ctl);
    rc = db_run_finish(c.w, &t, err, errlen);
    c.w = NULL;   /* finish frees it, whatever the result */
    db_on_rows(d, NULL, NULL);
    if (rc) goto rollback;
    if ((rc = db_commit(d, err, errlen))) goto rollback;
    import_at(ctl, STORE_IMPORT_UNITS);
    goto unlock;
rollback:
    if (ctl) store_warnings_free(ctl->warnings);
    db_run_abort(c.w);
    db_rollback(d);
    run[0] = '\0';
    if (!experiment) exp[0] = '\0';
unlock:
    if (cache) db_cache_size(d, cache, NULL, NULL, 0);
    unlock_writes();
out:
    stream_free(&c);
    trace_free(&t);
    return rc;
}

/* ---- an import parsed whole, then stored ------------------------------------------ */

static int import_whole(db *d, const imp_file *files, size_t nfiles, imp_format fmt,
                        const char *experiment, const char *name, const store_ctl *ctl,
                        char run[DB_SLUG_SIZE], char exp[DB_SLUG_SIZE], char *err,
                        size_t errlen);

int store_import_ctl(db *d, const imp_file *files, size_t nfiles, const char *format,
                     const char *experiment, const char *name, const store_ctl *ctl,
                     char run[DB_SLUG_SIZE], char exp[DB_SLUG_SIZE], char *err, size_t errlen) {
    run[0] = exp[0] = '\0';
    if (nfiles == 0) {
        snprintf(err, errlen, "import: no file given");
        return STORE_BAD_INPUT;
    }
    /* the format named, else detected */
    imp_format fmt = format ? imp_format_parse(format) : imp_detect(&files[0]);
    if (format && fmt == IMP_UNKNOWN) {
        char names[256];
        snprintf(err, errlen, "format: unknown format \"%s\" (formats: %s)", format,
                 imp_format_list(names, sizeof names));
        return STORE_BAD_INPUT;
    }
    /* several files: a multi-file format that streams (pytorch's ranks) */
    if (imp_can_stream(fmt) && (nfiles == 1 || imp_importer_get(fmt)->multi_file)) {
        bool whole;
        int rc = import_stream(d, files, nfiles, fmt, experiment, name, ctl, run, exp, &whole,
                               err, errlen);
        if (!whole) return rc;
    }
    return import_whole(d, files, nfiles, fmt, experiment, name, ctl, run, exp, err,
                        errlen);
}

static int import_whole(db *d, const imp_file *files, size_t nfiles, imp_format fmt,
                        const char *experiment, const char *name, const store_ctl *ctl,
                        char run[DB_SLUG_SIZE], char exp[DB_SLUG_SIZE], char *err,
                        size_t errlen) {
    import_phase(ctl, "parsing");
    trace t;
    trace_init(&t);
    int rc;
    bool locked = false;
    imp_options io = {.progress = ctl && ctl->done ? parse_progress : NULL,
                      .user = (void *)ctl,
                      .cancelled = ctl && ctl->cancel ? parse_cancelled : NULL};
    rc = imp_import_opts(fmt, files, nfiles, &io, &t, err, errlen) ? STORE_BAD_INPUT : 0;
    if (rc && cancelled(ctl)) {
        snprintf(err, errlen, "aborted: the server is stopping; nothing was stored");
        rc = STORE_ABORTED;
    }
    if (rc) goto out;
    /* every number in range before anything is stored (issue 16, item 3) */
    if (imp_check_trace(&t, files[0].name, err, errlen)) {
        rc = STORE_BAD_INPUT;
        goto out;
    }
    import_at(ctl, STORE_IMPORT_PARSE);
    import_phase(ctl, "storing");
    char rname[256];
    if (!name) {
        const char *base = strrchr(files[0].name, '/');
        snprintf(rname, sizeof rname, "%s", base ? base + 1 : files[0].name);
        name = rname;
    }
    if ((rc = lock_writes(ctl, err, errlen))) goto out;
    locked = true;
    if ((rc = db_begin(d, err, errlen))) goto out;
    if (experiment) {
        if ((rc = import_target(d, experiment, err, errlen))) goto rollback;
        snprintf(exp, DB_SLUG_SIZE, "%s", experiment);
    } else {
        char desc[512];
        snprintf(desc, sizeof desc, "Imported from %s (%s)", files[0].name,
                 t.source ? t.source : "unknown format");
        if ((rc = db_create_experiment(d, t.name && *t.name ? t.name : name,
                                       ctl && ctl->description ? ctl->description : desc,
                                       "import", NULL, NULL, exp, err, errlen)))
            goto rollback;
    }
    if (cancelled(ctl)) {
        snprintf(err, errlen, "aborted: the server is stopping; nothing was stored");
        rc = STORE_ABORTED;
        goto rollback;
    }
    if ((rc = keep_warnings(ctl, &t, err, errlen))) goto rollback;
    if (ctl && ctl->done) db_on_rows(d, rows_progress, (void *)ctl);
    rc = db_store_run(d, exp, name, &t, run, err, errlen);
    db_on_rows(d, NULL, NULL);
    if (rc) goto rollback;
    if ((rc = db_commit(d, err, errlen))) goto rollback;
    import_at(ctl, STORE_IMPORT_UNITS);
    goto out;
rollback:
    if (ctl) store_warnings_free(ctl->warnings);
    db_rollback(d);
    run[0] = '\0';
    if (!experiment) exp[0] = '\0';
out:
    if (locked) unlock_writes();
    trace_free(&t);
    return rc;
}

int store_import(db *d, const imp_file *files, size_t nfiles, const char *format,
                 const char *experiment, const char *name, char run[DB_SLUG_SIZE],
                 char exp[DB_SLUG_SIZE], char *err, size_t errlen) {
    return store_import_ctl(d, files, nfiles, format, experiment, name, NULL, run, exp, err,
                            errlen);
}

int store_seed(db *d, const char *dir, int *added, char *err, size_t errlen) {
    *added = 0;
    char **names;
    size_t n;
    if (jr_json_files(dir, &names, &n) != 0) {
        snprintf(err, errlen, "%s: cannot read the scenarios folder: %s", dir, strerror(errno));
        return -1;
    }
    int failed = 0;
    err[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        bool have;
        char why[512], path[PATH_MAX], slug[DB_SLUG_SIZE];
        if (db_has_scenario_file(d, names[i], &have, why, sizeof why) == 0 && have) continue;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        FILE *f = fopen(path, "rb");
        char *text = NULL;
        long len = -1;
        if (f && fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
            (text = malloc((size_t)len + 1)) && fread(text, 1, (size_t)len, f) == (size_t)len) {
            if (store_scenario(d, text, (size_t)len, path, names[i], slug, NULL, why,
                               sizeof why) == 0) {
                if (slug[0]) (*added)++;   /* "" when another process stored it first */
            }
            else if (failed++ == 0)
                snprintf(err, errlen, "%s", why);
        } else if (failed++ == 0) {
            snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
        }
        if (f) fclose(f);
        free(text);
    }
    jr_free_names(names, n);
    return failed;
}
