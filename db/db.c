/* db.c -- experiments and runs in SQLite: opening and migrating the
 * database, transactions, slugs, creating experiments. See db.h for the
 * contract and db_int.h for how the other db/ files divide the rest. */
#include "db_int.h"
#include "bpage.h"
#include "row_ranges.h"

#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The migration list: step i brings user_version from i to i + 1. A schema
 * change is a new step appended here, never an edit of an old one. */
static const char *const migrations[DB_SCHEMA_VERSION] = {
    db_schema_sql,
    db_sweep_sql,    /* db/sweep.sql: sweep results as experiments (issue 14) */
    db_fidelity_sql, /* db/fidelity.sql: fidelity reports of replays (issue 10) */
    db_pauses_sql,   /* db/pauses.sql: pauses of preempted blocks (issue 13) */
    db_warp_sql,     /* db/warp.sql: the warp-level model (issue 11) */
    db_qos_sql,      /* db/qos.sql: QoS goals and isolated IPCs of kernels (issue 12) */
    db_versions_sql, /* db/versions.sql: experiment versions, edit and re-run (issue 15) */
    db_pyramid_sql,  /* db/pyramid.sql: occupancy pyramids, covering window index (issue 9) */
    db_kpyramid_sql, /* db/kpyramid.sql: per-kernel occupancy pyramids (issue 9) */
    db_block_pages_sql, /* db/block_pages.sql: blocks in pages, then dbi_bpage_migrate (issue 9) */
    db_qpyramid_sql, /* db/qpyramid.sql: queue-length pyramids (issue 9) */
    db_row_ranges_sql, /* db/row_ranges.sql: kernels, copies as rowid ranges (issue 9) */
    db_spyramid_sql, /* db/spyramid.sql: per-lane pyramids of kernel-level traces (issue 9) */
    db_rorder_sql,   /* db/rorder.sql: sort orders of kernels, copies for paged tables */
    db_front_end_sql,/* db/front_end.sql: the warp model's front end, SM memory ports (issue 12) */
    db_mem_sql,      /* db/mem.sql: the warp model's memory system, functional units (issue 25) */
    db_cohorts_sql,  /* db/cohorts.sql: cohorts of identical blocks (issue 28) */
    db_copies_sql,   /* db/copies.sql: copies one copy engine runs at once (issue 28) */
    db_cohort_view_sql, /* db/cohort_view.sql: cohorts in windows and pyramids (issue 28) */
    db_l2_sql,       /* db/l2.sql: the warp model's L2 (issue 25) */
    db_mem_admission_sql, /* db/mem_admission.sql: memory queue admission (issue 25) */
    db_l1_sectors_sql, /* db/l1_sectors.sql: the L1's rate (issue 25) */
    db_ldst_queue_sql, /* db/ldst_queue.sql: the LD/ST queue of a sub-core (issue 25) */
    db_gpus_sql,     /* db/gpus.sql: the GPUs of a trace of several (DESIGN §5) */
    db_host_calls_sql, /* db/host_calls.sql: the host's calls of runs with held tasks */
    db_replay_kind_sql, /* db/replay_kind.sql: a several-GPU replay's experiment is a replay's */
    db_dram_share_sql, /* db/dram_share.sql: which SMs share DRAM (issue 26) */
};

/* ---- open, migrate, transactions ------------------------------------------ */

int db_user_version(db *d, int *version, char *err, size_t errlen) {
    sqlite3_stmt *st;
    if (prepare(d, "PRAGMA user_version", &st, err, errlen)) return -1;
    int rc = sqlite3_step(st);
    *version = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW) return sqlfail(d, "reading PRAGMA user_version", err, errlen);
    return 0;
}

static int migrate(db *d, char *err, size_t errlen) {
    for (;;) {
        int v;
        if (db_user_version(d, &v, err, errlen)) return -1;
        if (v > DB_SCHEMA_VERSION) {
            seterr(err, errlen,
                   "%s: schema version %d is newer than this schedlab's (%d); use a newer "
                   "schedlab or another --db",
                   d->path, v, DB_SCHEMA_VERSION);
            return -1;
        }
        if (v == DB_SCHEMA_VERSION) return 0;
        /* IMMEDIATE takes the write lock first, so two processes opening a
         * fresh file cannot both run the same step: the second re-reads the
         * version once the first has committed. */
        if (exec(d, "BEGIN IMMEDIATE", err, errlen)) return -1;
        int now;
        if (db_user_version(d, &now, err, errlen)) goto fail;
        if (now == v) {
            char *msg = NULL;
            if (sqlite3_exec(d->h, migrations[v], NULL, NULL, &msg) != SQLITE_OK) {
                seterr(err, errlen, "%s: migration step %d: %s", d->path, v + 1,
                       msg ? msg : sqlite3_errmsg(d->h));
                sqlite3_free(msg);
                goto fail;
            }
            /* the step whose data SQL cannot convert (bpage.h) */
            if (migrations[v] == db_block_pages_sql && dbi_bpage_migrate(d, err, errlen))
                goto fail;
            if (migrations[v] == db_row_ranges_sql && dbi_row_ranges_migrate(d, err, errlen))
                goto fail;
            char sql[64];
            snprintf(sql, sizeof sql, "PRAGMA user_version = %d", v + 1);
            if (exec(d, sql, err, errlen)) goto fail;
        }
        if (exec(d, "COMMIT", err, errlen)) goto fail;
        continue;
    fail:
        exec(d, "ROLLBACK", NULL, 0);
        return -1;
    }
}

/* Why the database at `path` cannot be written here, into why; false when
 * nothing stops it. The file (when it exists) must be writable, and its
 * folder too: SQLite makes PATH-wal and PATH-shm beside it. access()
 * answers EROFS for a read-only mount, for root as for anyone. */
static bool write_problem(const char *path, char *why, size_t n) {
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(why, n, "it is a folder, not a database file");
        return true;
    }
    if (access(path, F_OK) == 0 && access(path, W_OK) != 0) {
        snprintf(why, n, "the file cannot be written (%s)", strerror(errno));
        return true;
    }
    char dir[PATH_MAX];
    const char *slash = strrchr(path, '/');
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == path) snprintf(dir, sizeof dir, "/");
    else snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    if (access(dir, W_OK | X_OK) != 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            snprintf(why, n, "its folder %s does not exist", dir);
        else
            snprintf(why, n, "its folder %s cannot be written (%s)", dir, strerror(errno));
        return true;
    }
    return false;
}

/* The message of a database `serve`, `import` or `replay --store` cannot
 * write. SQLite opens a file it may not write read-only
 * without a word, and reports a folder where it cannot make the -wal file
 * as "unable to open database file (No such file or directory)". */
static bool readonly_message(const char *path, char *err, size_t errlen) {
    char why[PATH_MAX + 96];
    if (!write_problem(path, why, sizeof why)) return false;
    seterr(err, errlen,
           "%s: the database cannot be written here: %s (serve, import and replay --store "
           "write to it, and to %s-wal and %s-shm beside it)",
           path, why, path, path);
    return true;
}

/* ---- writes refused (db_refuse_writes) ------------------------------------ */

static char refuse_why[512];
static atomic_bool refusing;

void db_refuse_writes(const char *why) {
    if (atomic_load(&refusing)) return;   /* the first reason stays */
    snprintf(refuse_why, sizeof refuse_why, "%s", why);
    atomic_store(&refusing, true);        /* after the text: readers see it whole */
}

static bool writes_refused(db *d, char *err, size_t errlen) {
    if (!atomic_load(&refusing)) return false;
    seterr(err, errlen, "%s: %s", d->path, refuse_why);
    return true;
}

bool db_error_full(const char *msg) {
    return msg && (strstr(msg, "database or disk is full") || strstr(msg, strerror(ENOSPC)));
}

/* ---- waiting for another process's lock ---------------------------------- */

static long long mono_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* when every wait gives up (CLOCK_MONOTONIC ms); LLONG_MAX: never early */
static _Atomic long long give_up_at = LLONG_MAX;

void db_give_up_waits_after(int ms) {
    long long at = mono_ms() + (ms > 0 ? ms : 0);
    if (at < atomic_load(&give_up_at)) atomic_store(&give_up_at, at);
}

/* How long a wait for another connection's lock lasts: DB_BUSY_TIMEOUT_MS,
 * or SCHEDLAB_TEST_BUSY_MS (tests only, db.h) when set to a positive number. */
static long long busy_limit_ms(void) {
    static _Atomic long long limit;   /* 0: not read yet */
    long long l = atomic_load(&limit);
    if (l) return l;
    const char *env = getenv("SCHEDLAB_TEST_BUSY_MS");
    char *end = NULL;
    l = env && *env ? strtoll(env, &end, 10) : 0;
    if (l <= 0 || (end && *end)) l = DB_BUSY_TIMEOUT_MS;
    atomic_store(&limit, l);
    return l;
}

/* SQLite's busy handler: wait busy_limit_ms() in steps of 10 ms, as
 * sqlite3_busy_timeout did, but give up at give_up_at (a stopping server;
 * sqlite3_busy_timeout held a request, and the process, for the whole 30 s) */
static int busy_wait(void *arg, int count) {
    db *d = arg;
    if (d->no_wait) return 0;
    long long now = mono_ms();
    if (count == 0) d->wait_since_ms = now;
    if (now - d->wait_since_ms >= busy_limit_ms() || now >= atomic_load(&give_up_at)) return 0;
    struct timespec ts = {0, 10 * 1000 * 1000};
    nanosleep(&ts, NULL);
    return 1;
}

/* Whether path names a folder, which SQLite reads as "disk I/O error" (or
 * "unable to open database file"): said as what it is. Only stat(): this
 * process may hold the database open on other connections (the server's),
 * and closing any descriptor of the file would drop their POSIX locks
 * (sqlite.org/howtocorrupt.html §2.2), so a file's header is left to SQLite
 * (not_a_database_file). */
static bool a_folder(const char *path, char *err, size_t errlen) {
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) return false;
    seterr(err, errlen, "%s: a folder, not a database file (--db or SCHEDLAB_DB names the "
           "database file)", path);
    return true;
}

/* After a failed first statement: a file that is no database (SQLite's
 * header "SQLite format 3\0" missing, fileformat2.html §1.3.1) said as
 * such, where SQLite said "file is not a database" under "reading PRAGMA
 * user_version" or the migration. */
static bool not_a_database_file(db *d, const char *path, char *err, size_t errlen) {
    if ((sqlite3_extended_errcode(d->h) & 0xff) != SQLITE_NOTADB) return false;
    seterr(err, errlen, "%s: not a database: the file does not start with \"SQLite format 3\" "
           "(--db or SCHEDLAB_DB names the database file)", path);
    return true;
}

static int open_mode(const char *path, bool readonly, db **out, char *err, size_t errlen) {
    *out = NULL;
    if (a_folder(path, err, errlen)) return DB_NOT_A_DATABASE;
    db *d = calloc(1, sizeof *d);
    if (!d || !(d->path = strdup(path))) {
        free(d);
        seterr(err, errlen, "%s: out of memory", path);
        return -1;
    }
    int rc = sqlite3_open_v2(path, &d->h,
                             (readonly ? SQLITE_OPEN_READONLY
                                       : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) |
                                 SQLITE_OPEN_NOMUTEX,
                             NULL);
    if (rc != SQLITE_OK) {
        if (readonly || !readonly_message(path, err, errlen)) {
            char m[300] = "";
            if (d->h) dbi_errmsg(d, m, sizeof m);
            seterr(err, errlen, "%s: cannot open the database: %s", path,
                   d->h ? (readonly ? sqlite3_errmsg(d->h) : m) : sqlite3_errstr(rc));
        }
        db_close(d);
        return -1;
    }
    if (!readonly && sqlite3_db_readonly(d->h, "main") == 1) {
        /* opened read-only in place of read-write: writes would fail one
         * by one later ("attempt to write a readonly database") */
        if (!readonly_message(path, err, errlen))
            seterr(err, errlen, "%s: the database cannot be written here (SQLite opened it "
                   "read-only); serve and import write to it", path);
        db_close(d);
        return -1;
    }
    sqlite3_extended_result_codes(d->h, 1);
    sqlite3_busy_handler(d->h, busy_wait, d);
    if (readonly) {
        /* no migration: a database of another schema version is refused */
        int v;
        if (db_user_version(d, &v, err, errlen)) {
            if (not_a_database_file(d, path, err, errlen)) {
                db_close(d);
                return DB_NOT_A_DATABASE;
            }
            /* a WAL database read where its -shm cannot be made: SQLite says
             * only "unable to open database file" (issue 31) */
            int prim = sqlite3_extended_errcode(d->h) & 0xff;
            unsigned char hdr[20] = {0};
            FILE *f = prim == SQLITE_CANTOPEN || prim == SQLITE_READONLY ? fopen(path, "rb") : NULL;
            if (f) {
                if (fread(hdr, 1, sizeof hdr, f) == sizeof hdr && hdr[18] == 2 && hdr[19] == 2)
                    seterr(err, errlen, "%s: a WAL-mode database that cannot be read here: "
                           "SQLite must create %s-shm (and read %s-wal) beside it even to "
                           "read, and cannot in that folder; run this as a user who can write "
                           "there, or copy the database (with its -wal file) elsewhere",
                           path, path, path);
                fclose(f);
            }
            db_close(d);
            return -1;
        }
        if (v != DB_SCHEMA_VERSION) {
            seterr(err, errlen, "%s: schema version %d, this schedlab reads %d%s", path, v,
                   DB_SCHEMA_VERSION,
                   v < DB_SCHEMA_VERSION ? " (open it once with `schedlab serve` or `import` to migrate it)"
                                         : "; use a newer schedlab");
            db_close(d);
            return -1;
        }
        *out = d;
        return 0;
    }
    /* WAL: the dashboard reads while an import writes. synchronous=NORMAL is
     * durable across application crashes in WAL mode and makes the per-run
     * commit cheap. The 64 MiB page cache keeps a million-block insert in
     * memory until the commit. Temporary files (statement journals,
     * sorts) stay SQLite's default, files: kept in memory they grew with
     * a transaction's size (a replay storing two runs of 1.3 M cohort
     * records held 177 MB of them at once, its peak 407 MB against 227). */
    /* Two servers started together on a new file: switching it to WAL
     * meets the other's lock as an immediate SQLITE_BUSY (the busy handler
     * does not cover journal_mode), and so may the migration's BEGIN
     * IMMEDIATE; each is retried until DB_BUSY_TIMEOUT_MS (issue 16). */
    for (int waited = 0;; waited += 50) {
        if (exec(d, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;"
                    "PRAGMA cache_size=-65536;",
                 err, errlen) == 0 &&
            migrate(d, err, errlen) == 0)
            break;
        bool busy = err && (strstr(err, "database is locked") || strstr(err, "database is busy") ||
                            strstr(err, "database table is locked"));
        if (!busy || waited >= busy_limit_ms() || mono_ms() >= atomic_load(&give_up_at)) {
            if (not_a_database_file(d, path, err, errlen)) {
                db_close(d);
                return DB_NOT_A_DATABASE;
            }
            int prim = sqlite3_extended_errcode(d->h) & 0xff;
            if (prim == SQLITE_CANTOPEN || prim == SQLITE_READONLY)
                readonly_message(path, err, errlen);
            db_close(d);
            return -1;
        }
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    *out = d;
    return 0;
}

int db_open(const char *path, db **out, char *err, size_t errlen) {
    return open_mode(path, false, out, err, errlen);
}

int db_open_readonly(const char *path, db **out, char *err, size_t errlen) {
    return open_mode(path, true, out, err, errlen);
}

void db_close(db *d) {
    if (!d) return;
    for (int w = 0; w < DB_NBULK; w++)
        for (int m = 0; m < 2; m++) sqlite3_finalize(d->bulk[w][m]);
    sqlite3_finalize(d->dev_insert);
    sqlite3_finalize(d->dev_select);
    for (int q = 0; q < DBI_NCACHED; q++) sqlite3_finalize(d->cached[q]);
    sqlite3_close_v2(d->h);
    free(d->path);
    free(d);
}

void db_remove_files(const char *path) {
    char side[PATH_MAX];
    unlink(path);
    if (snprintf(side, sizeof side, "%s-wal", path) < (int)sizeof side) unlink(side);
    if (snprintf(side, sizeof side, "%s-shm", path) < (int)sizeof side) unlink(side);
}

int db_check_writable(const char *path, char *err, size_t errlen) {
    struct stat st;
    bool made = stat(path, &st) != 0 && errno == ENOENT;
    db *d;
    int rc = db_open(path, &d, err, errlen);
    if (rc) return rc;
    db_close(d);
    if (made) db_remove_files(path);
    return 0;
}

const char *db_path(const db *d) { return d->path; }
struct sqlite3 *db_handle(db *d) { return d->h; }

/* ---- lazy builds ---------------------------------------------------------- */

typedef bool (*gate_enter_fn)(void);
typedef void (*gate_leave_fn)(void);
static _Atomic(gate_enter_fn) gate_enter;
static _Atomic(gate_leave_fn) gate_leave;

void db_set_build_gate(bool (*enter)(void), void (*leave)(void)) {
    atomic_store(&gate_leave, leave);
    atomic_store(&gate_enter, enter);
}

static bool in_list(const char *const *tables, const char *t) {
    for (size_t i = 0; tables && tables[i]; i++)
        if (!strcmp(tables[i], t)) return true;
    return false;
}

/* Drop the scratch tables in `tables` (NULL: all). A cached read left
 * stepping would keep its table locked: they are reset first. */
static int drop_scratch(db *d, const char *const *tables, char *err, size_t errlen) {
    if (!d->nscratch) return 0;
    for (int q = 0; q < DBI_NCACHED; q++)
        if (d->cached[q]) sqlite3_reset(d->cached[q]);
    size_t keep = 0;
    int rc = 0;
    for (size_t i = 0; i < d->nscratch; i++) {
        const char *t = d->scratch[i];
        if (tables && !in_list(tables, t)) {
            d->scratch[keep++] = t;
            continue;
        }
        char sql[128];
        snprintf(sql, sizeof sql, "DROP TABLE IF EXISTS temp.\"%s\"", t);
        if (!rc && exec(d, sql, err, errlen)) rc = -1;
        if (rc) d->scratch[keep++] = t;   /* still there: tried again next time */
    }
    d->nscratch = keep;
    return rc;
}

void db_drop_scratch(db *d) {
    if (d) drop_scratch(d, NULL, NULL, 0);
}

/* A TEMP copy of main's table t, empty, with its indexes (sqlite_schema
 * keeps each CREATE as "CREATE TABLE name ..." / "CREATE [UNIQUE] INDEX
 * name ON ...", the SQLite file format's normal form). */
static int make_scratch(db *d, const char *t, char *err, size_t errlen) {
    sqlite3_stmt *st;
    if (prepare(d, "SELECT type, name, sql FROM main.sqlite_schema WHERE tbl_name = ?1 AND "
                   "sql IS NOT NULL AND type IN ('table', 'index') ORDER BY type = 'index'",
                &st, err, errlen))
        return -1;
    sqlite3_bind_text(st, 1, t, -1, SQLITE_STATIC);
    int rc, made = 0;
    char *sql = NULL;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *type = col_s(st, 0), *name = col_s(st, 1), *def = col_s(st, 2);
        bool table = !strcmp(type, "table");
        const char *pre = table ? "CREATE TABLE " : NULL;
        const char *on = table ? NULL : strstr(def, " ON ");
        if (table ? strncmp(def, pre, strlen(pre)) : !on) {
            seterr(err, errlen, "%s: %s: cannot copy its definition for a read: %.80s", d->path,
                   name, def);
            rc = -1;
            break;
        }
        sql = table ? sqlite3_mprintf("CREATE TEMP TABLE %s", def + strlen(pre))
                    : sqlite3_mprintf("CREATE %sINDEX temp.\"%w\"%s",
                                      strncmp(def, "CREATE UNIQUE ", 14) ? "" : "UNIQUE ", name,
                                      on);
        if (!sql || exec(d, sql, err, errlen)) {
            if (!sql) seterr(err, errlen, "%s: %s: out of memory", d->path, name);
            rc = -1;
            break;
        }
        sqlite3_free(sql);
        sql = NULL;
        made += table;
    }
    sqlite3_free(sql);
    if (rc != -1 && rc != SQLITE_DONE) rc = sqlfail(d, "sqlite_schema", err, errlen);
    else if (rc == SQLITE_DONE && !made) {
        seterr(err, errlen, "%s: no table %s to build into", d->path, t);
        rc = -1;
    } else if (rc == SQLITE_DONE) {
        rc = 0;
    }
    sqlite3_finalize(st);
    return rc;
}

/* While a build writes its scratch tables, a write to any other table
 * (one missing from its list) is refused, never made without the lock. */
static int temp_only(void *arg, int op, const char *a, const char *b, const char *dbname,
                     const char *trigger) {
    (void)arg, (void)a, (void)b, (void)trigger;
    bool write = op == SQLITE_INSERT || op == SQLITE_UPDATE || op == SQLITE_DELETE;
    return write && dbname && strcmp(dbname, "temp") ? SQLITE_DENY : SQLITE_OK;
}

/* build into TEMP copies of tables, for this read alone */
static int build_scratch(db *d, const char *const *tables, dbi_look_fn look, dbi_build_fn build,
                         void *ctx, char *err, size_t errlen) {
    size_t n = 0;
    while (tables && tables[n]) n++;
    if (!n || n > DBI_SCRATCH_MAX - d->nscratch) {
        seterr(err, errlen, "%s: a build for one read: %zu tables to copy", d->path, n);
        return -1;
    }
    /* deferred: main is read from one snapshot, only TEMP is written */
    if (exec(d, "BEGIN", err, errlen)) return -1;
    int rc = 0;
    size_t had = d->nscratch;
    for (size_t i = 0; i < n && !rc; i++) {
        rc = make_scratch(d, tables[i], err, errlen);
        if (!rc) d->scratch[d->nscratch++] = tables[i];
    }
    bool has = false;
    if (!rc) {
        sqlite3_set_authorizer(d->h, temp_only, NULL);
        d->no_wait = true;
        rc = build(d, ctx, err, errlen);
        d->no_wait = false;
        sqlite3_set_authorizer(d->h, NULL, NULL);
    }
    if (!rc) rc = exec(d, "COMMIT", err, errlen);
    if (rc) {
        exec(d, "ROLLBACK", NULL, 0);
        d->nscratch = had;   /* the rollback took the new tables back */
        return rc;
    }
    return look(d, ctx, &has, err, errlen);
}

int dbi_build_once(db *d, const char *sp, const char *const *tables, dbi_look_fn look,
                   dbi_build_fn build, void *ctx, char *err, size_t errlen) {
    /* copies made for an earlier read would hide the stored tables */
    if (drop_scratch(d, tables, err, errlen)) return -1;
    bool has;
    int rc = look(d, ctx, &has, err, errlen);
    if (rc || has) return rc;
    bool own = sqlite3_get_autocommit(d->h);
    char sql[160];
    if (!own) {
        /* within the caller's write transaction: its lock is ours */
        snprintf(sql, sizeof sql, "SAVEPOINT %s", sp);
        if (exec(d, sql, err, errlen)) return -1;
    } else {
        /* never wait: for the gate, for another connection's lock */
        gate_enter_fn enter = atomic_load(&gate_enter);
        gate_leave_fn leave = atomic_load(&gate_leave);
        if (atomic_load(&refusing) || sqlite3_db_readonly(d->h, "main") == 1 ||
            (enter && !enter()))
            return build_scratch(d, tables, look, build, ctx, err, errlen);
        d->no_wait = true;
        rc = exec(d, "BEGIN IMMEDIATE", err, errlen);
        d->no_wait = false;
        if (rc) {
            bool busy = (sqlite3_extended_errcode(d->h) & 0xff) == SQLITE_BUSY;
            if (enter && leave) leave();
            return busy ? build_scratch(d, tables, look, build, ctx, err, errlen) : -1;
        }
        rc = look(d, ctx, &has, err, errlen);
        if (!rc && !has) rc = build(d, ctx, err, errlen);
        if (!rc && exec(d, "COMMIT", err, errlen)) rc = -1;
        if (rc) exec(d, "ROLLBACK", NULL, 0);
        if (enter && leave) leave();
        return rc ? rc : look(d, ctx, &has, err, errlen);
    }
    rc = look(d, ctx, &has, err, errlen);
    if (!rc && !has) rc = build(d, ctx, err, errlen);
    if (rc) {
        snprintf(sql, sizeof sql, "ROLLBACK TO %s; RELEASE %s", sp, sp);
        exec(d, sql, NULL, 0);
        return rc;
    }
    snprintf(sql, sizeof sql, "RELEASE %s", sp);
    if (exec(d, sql, err, errlen)) return -1;
    return look(d, ctx, &has, err, errlen);
}

int db_begin(db *d, char *err, size_t errlen) {
    if (writes_refused(d, err, errlen)) return -1;
    /* a write goes to the stored tables, never to a read's copies */
    if (drop_scratch(d, NULL, err, errlen)) return -1;
    return exec(d, "BEGIN IMMEDIATE", err, errlen);
}
int db_commit(db *d, char *err, size_t errlen) { return exec(d, "COMMIT", err, errlen); }
void db_rollback(db *d) {
    if (!sqlite3_get_autocommit(d->h)) exec(d, "ROLLBACK", NULL, 0);
}

int db_new_slug(char out[DB_SLUG_SIZE], char *err, size_t errlen) {
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    size_t n = 0;
    while (n < DB_SLUG_LEN) {
        unsigned char buf[32];
        ssize_t got = getrandom(buf, sizeof buf, 0);
        if (got < 0) {
            if (errno == EINTR) continue;
            seterr(err, errlen, "getrandom: %s", strerror(errno));
            return -1;
        }
        for (ssize_t i = 0; i < got && n < DB_SLUG_LEN; i++)
            if (buf[i] < 252) out[n++] = alphabet[buf[i] % 36];  /* 252 = 7*36: unbiased */
    }
    out[DB_SLUG_LEN] = '\0';
    return 0;
}

/* Run an INSERT whose ?1 is a fresh slug; a slug collision (1 in 36^10 per
 * pair) just draws again. */
int dbi_insert_with_slug(db *d, sqlite3_stmt *st, char slug[DB_SLUG_SIZE], const char *what,
                         char *err, size_t errlen) {
    for (int tries = 0; tries < 8; tries++) {
        if (db_new_slug(slug, err, errlen)) return -1;
        sqlite3_bind_text(st, 1, slug, -1, SQLITE_TRANSIENT);
        int rc = sqlite3_step(st);
        sqlite3_reset(st);
        if (rc == SQLITE_DONE) return 0;
        if (rc != SQLITE_CONSTRAINT_UNIQUE) return sqlfail(d, what, err, errlen);
    }
    seterr(err, errlen, "%s: %s: no unused slug after 8 draws", d->path, what);
    return -1;
}

int dbi_lookup_id(db *d, const char *table, const char *slug, int64_t *id, char *err,
                  size_t errlen) {
    char sql[96];
    snprintf(sql, sizeof sql, "SELECT id FROM %s WHERE slug = ?1", table);
    sqlite3_stmt *st;
    if (prepare(d, sql, &st, err, errlen)) return -1;
    bind_s(st, 1, slug);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) *id = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (rc == SQLITE_ROW) return 0;
    if (rc == SQLITE_DONE) {
        seterr(err, errlen, "%s: no %s named \"%s\"", d->path,
               strcmp(table, "runs") == 0 ? "run" : "experiment", slug);
        return DB_NOT_FOUND;
    }
    return sqlfail(d, table, err, errlen);
}

/* ---- experiments ------------------------------------------------------------ */

int db_create_experiment(db *d, const char *name, const char *description, const char *source,
                         const char *scenario_file, const char *scenario_json,
                         char slug[DB_SLUG_SIZE], char *err, size_t errlen) {
    sqlite3_stmt *st;
    if (prepare(d,
                "INSERT INTO experiments(slug, name, description, source, scenario_file, "
                "scenario_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                &st, err, errlen))
        return -1;
    bind_s(st, 2, name ? name : "");
    bind_s(st, 3, description);
    bind_s(st, 4, source);
    bind_s(st, 5, scenario_file);
    bind_s(st, 6, scenario_json);
    int rc = dbi_insert_with_slug(d, st, slug, "experiments", err, errlen);
    sqlite3_finalize(st);
    return rc;
}

