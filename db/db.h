/* db.h -- the SQLite store of experiments and runs (DESIGN §1, §2).
 *
 * A run is one trace (simcore/trace.h) stored as rows; an experiment groups
 * runs (the variants of one scenario, or imports). Both are named by random
 * 10-character slugs [a-z0-9], never by row numbers.
 *
 * db/ knows SQLite and the trace model only: no JSON. Reads hand C values to
 * a callback; every string a callback receives is borrowed and valid only
 * during that call.
 *
 * Threads: a `db` is one SQLite connection opened with SQLITE_OPEN_NOMUTEX:
 * it must be used by one thread at a time, which the server's connection
 * pool guarantees (a worker takes a connection for one request and gives it
 * back). SQLite's own per-call mutex would cost ~8% of a bulk store for no
 * protection we need. WAL lets readers run beside the one writer; writers
 * wait up to DB_BUSY_TIMEOUT_MS for another connection's lock (within
 * `serve`, writers take the store's write lock first, server/app/store.h,
 * so this wait is for another process). SCHEDLAB_TEST_BUSY_MS=N (tests
 * only: tests/api/write_queue.test.mjs) makes that wait N ms, so a test can
 * hold the lock past it without waiting 30 s.
 *
 * Errors: functions return 0, DB_NOT_FOUND (-2) when the slug names nothing,
 * or -1 with one line in `err` naming the database file, the place (table,
 * `blocks[12]`) and the problem. A callback returning non-zero stops the read
 * and that value is returned. */
#ifndef DB_DB_H
#define DB_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../simcore/trace.h"

#define DB_SLUG_LEN 10
#define DB_SLUG_SIZE (DB_SLUG_LEN + 1)
#define DB_NOT_FOUND (-2)
/* a binned read's window is more than its pyramid holds (bins wider than
 * its coarsest level, or too many): the asker's error, HTTP 400 */
#define DB_TOO_WIDE (-6)
#define DB_NOT_A_DATABASE (-3)  /* db_open*: the path is a folder or another kind of file */
#define DB_BUSY_TIMEOUT_MS 30000
#define DB_SCHEMA_VERSION 27     /* the number of migration steps */

/* db/schema.sql, embedded by the Makefile (tools/embed.sh): migration v1. */
extern const char db_schema_sql[];
/* db/sweep.sql (see db/sweep.h): migration v2. */
extern const char db_sweep_sql[];
extern const char db_fidelity_sql[];
/* db/pauses.sql: migration v4, the pauses of preempted blocks (issue 13) */
extern const char db_pauses_sql[];
/* db/cohorts.sql: migration v17, cohorts of identical blocks (issue 28) */
extern const char db_cohorts_sql[];
/* db/cohort_view.sql: migration v19, cohorts in windows and pyramids (issue 28) */
extern const char db_cohort_view_sql[];
/* db/warp.sql: the warp-level model (issue 11). */
extern const char db_warp_sql[];
/* db/versions.sql: experiment versions (issue 15, db/versions.h). */
extern const char db_versions_sql[];
/* db/pyramid.sql: occupancy pyramids and the covering window index (issue 9,
 * db/pyramid.h). */
extern const char db_pyramid_sql[];
extern const char db_kpyramid_sql[];
extern const char db_block_pages_sql[];
/* db/qpyramid.sql: queue-length pyramids (issue 9, db/qpyramid.h). */
extern const char db_qpyramid_sql[];
/* db/row_ranges.sql: kernels and copies as per-run rowid ranges (issue 9,
 * db/row_ranges.h). */
extern const char db_row_ranges_sql[];
/* db/spyramid.sql (see db/spyramid.h): per-lane pyramids of kernel-level
 * traces (issue 9). */
extern const char db_spyramid_sql[];
/* db/rorder.sql (see db/rorder.h): stored sort orders of a run's kernels
 * and copies, for paged tables. */
extern const char db_rorder_sql[];
/* db/front_end.sql: the warp model's front end and SM memory ports. */
extern const char db_front_end_sql[];
/* db/mem.sql: the warp model's memory system and functional units. */
extern const char db_mem_sql[];
extern const char db_copies_sql[];
/* db/l2.sql: the warp model's L2 (issue 25). */
extern const char db_l2_sql[];
extern const char db_mem_admission_sql[];
/* db/l1_sectors.sql: the L1's rate (issue 25). */
extern const char db_l1_sectors_sql[];
/* db/ldst_queue.sql: the LD/ST queue of a sub-core (issue 25). */
extern const char db_ldst_queue_sql[];
/* db/gpus.sql: a device row per GPU of a trace of several, and each
 * kernel's and copy's GPU (DESIGN §5). */
extern const char db_gpus_sql[];
/* db/host_calls.sql: the host's calls of a run whose CPU tasks can be held
 * (trace.h, trace_host_call). */
extern const char db_host_calls_sql[];
/* db/replay_kind.sql: the experiment of a several-GPU replay, stored as
 * "import" before, is a replay's ("scenario") as a one-GPU replay's. */
extern const char db_replay_kind_sql[];
/* db/dram_share.sql: which SMs share DRAM equally (issue 26). */
extern const char db_dram_share_sql[];
/* db/qos.sql: QoS goals and isolated IPCs of kernels (issue 12). */
extern const char db_qos_sql[];

typedef struct db db;
struct sqlite3;

/* Open (creating the file when missing) and migrate to DB_SCHEMA_VERSION.
 * A database written by a newer schedlab (user_version above ours) is an
 * error, never downgraded. Both opens answer DB_NOT_A_DATABASE, saying
 * which, for a path that is a folder or a file of another kind (not
 * starting with SQLite's header), -1 for every other failure. */
int db_open(const char *path, db **out, char *err, size_t errlen);
/* Open an existing database for reading only: never creates the file, never
 * migrates (another schema version is an error). For the read commands
 * (export, replay); writes through it fail. */
int db_open_readonly(const char *path, db **out, char *err, size_t errlen);
void db_close(db *d);                       /* NULL is fine */
/* Removes the database file at path and its -wal and -shm (one a command
 * made and left empty). */
void db_remove_files(const char *path);
/* Whether the database at path can be opened for writing, as db_open
 * would (its codes and messages), without keeping it: one db_open made
 * is removed again, so a long command that stores at its end can say at
 * its start that it cannot, and leave nothing when stopped meanwhile. */
int db_check_writable(const char *path, char *err, size_t errlen);
/* Every wait for another process's lock (DB_BUSY_TIMEOUT_MS), in every
 * connection, gives up `ms` from now at the latest, with SQLite's
 * "database is locked": `serve` stopping (SIGTERM) waits for its requests
 * and jobs for seconds, not for a lock some other process holds. */
void db_give_up_waits_after(int ms);
/* From now on every write transaction (db_begin) of every connection in
 * this process fails with "PATH: why": `serve` found the file corrupt
 * (PRAGMA quick_check), and writing on could spread the damage to pages
 * still whole. Reads go on: a lazily built pyramid or order is then made
 * for each read alone (db_set_build_gate), never stored. */
void db_refuse_writes(const char *why);
/* The lazy builds (a run's sort orders, its stream, copy, queue and
 * occupancy pyramids, built on the first read that needs them) write, and
 * a read must never wait for a write (docs/shared-machine.md). `serve`
 * passes its write lock here (server/app/store.h): enter() takes it only
 * when no other write holds it (true: taken), leave() gives it back. A
 * build whose lock is held, or whose database another process is writing
 * (SQLite's lock is not waited for), or that cannot write at all (a
 * read-only connection, writes refused), is made for this read alone in a
 * scratch copy of its tables in the connection's TEMP schema, by the same
 * code and so the same rows, and stored by a later read; db_drop_scratch
 * removes such copies. NULL, NULL (the default): no gate but SQLite's
 * lock. */
void db_set_build_gate(bool (*enter)(void), void (*leave)(void));
/* Drop the scratch tables a lazy build made on this connection for one
 * read (above); a pooled connection is handed back with none. */
void db_drop_scratch(db *d);
/* Whether an error message says the disk is full: SQLite's SQLITE_FULL
 * ("database or disk is full") or the system's ENOSPC ("No space left on
 * device", as dbi_errmsg and the temporary files word it). `serve` answers
 * such a failure 507 Insufficient Storage (docs/api.md). NULL: false. */
bool db_error_full(const char *msg);
const char *db_path(const db *d);
/* The connection, for tests and EXPLAIN QUERY PLAN; owned by d. */
struct sqlite3 *db_handle(db *d);
int db_user_version(db *d, int *version, char *err, size_t errlen);

/* Group several writes into one transaction (e.g. an experiment and all its
 * runs); db_store_run nests inside it as a savepoint. */
int db_begin(db *d, char *err, size_t errlen);
int db_commit(db *d, char *err, size_t errlen);
void db_rollback(db *d);

/* A fresh slug from getrandom(2). */
int db_new_slug(char out[DB_SLUG_SIZE], char *err, size_t errlen);

/* ---- experiments ---------------------------------------------------------- */

typedef struct db_experiment {
    const char *slug, *name, *description;  /* description may be NULL */
    const char *source;                     /* "scenario" | "import" */
    const char *scenario_file;              /* NULL unless seeded from scenarios/ */
    const char *scenario_json;              /* NULL for imports */
    const char *created;                    /* "2026-11-21T23:40:00Z" */
} db_experiment;

typedef int (*db_experiment_cb)(void *ctx, const db_experiment *e);

/* `source` is "scenario" or "import"; description, scenario_file and
 * scenario_json may be NULL. Writes the new slug into `slug`. */
int db_create_experiment(db *d, const char *name, const char *description, const char *source,
                         const char *scenario_file, const char *scenario_json,
                         char slug[DB_SLUG_SIZE], char *err, size_t errlen);
/* Newest first. */
int db_list_experiments(db *d, db_experiment_cb cb, void *ctx, char *err, size_t errlen);
int db_get_experiment(db *d, const char *slug, db_experiment_cb cb, void *ctx, char *err,
                      size_t errlen);
/* *found = whether an experiment was seeded from this scenario file name. */
int db_has_scenario_file(db *d, const char *file, bool *found, char *err, size_t errlen);

/* ---- runs ------------------------------------------------------------------ */

typedef struct db_summary {
    int64_t kernels, blocks, copies, queue_events, warp_issues, jobs;
    int64_t t_min, t_max;        /* TRACE_NONE for an empty run */
    int32_t sms;                 /* device SMs, else highest block SM + 1, else 0 */
    int64_t max_block_dur;       /* longest block (ns) */
    /* runs with QoS goals (ISCA'17 quota policies; 0 elsewhere): kernels with
     * a goal, those that met it, and the mean over the non-QoS kernels of
     * ipc_shared / ipc_isolated (NaN when there is none) */
    int64_t qos_kernels, qos_met;
    double nonqos_throughput;
    /* the host's calls of a run whose CPU tasks can be held (db/host_calls.sql;
     * 0 elsewhere) */
    int64_t host_calls;
} db_summary;

typedef struct db_run {
    const char *slug, *experiment, *name, *source, *created;
    const char *trace_name;      /* may be NULL */
    int64_t origin;
    int64_t version;             /* the experiment's version it was simulated from (1: imports) */
    bool has_device;
    sim_device device;
    db_summary summary;
} db_run;

typedef int (*db_run_cb)(void *ctx, const db_run *r);
typedef int (*db_meta_cb)(void *ctx, const char *key, const char *value);

/* Store a whole trace as one new run of `experiment` in ONE transaction
 * (a savepoint inside db_begin): on any failure nothing of it remains.
 * Returns DB_NOT_FOUND when the experiment does not exist. The run is named
 * `name`, else the trace's name, else "run". It is db_run_begin followed by
 * db_run_finish(t), so both ways store the same rows. */
int db_store_run(db *d, const char *experiment, const char *name, const trace *t,
                 char slug[DB_SLUG_SIZE], char *err, size_t errlen);

/* Follow the rows db_store_run and db_run_finish write (issue 15: an import
 * job's store phase): fn(user, done, total) after each multi-row INSERT (for
 * blocks, each 4096 handed to their pages) and
 * once at the end of every table, done counting the trace's rows stored of
 * `total` (every table's rows; blocks streamed earlier by db_run_add_blocks
 * are not counted). Called on the storing thread, a few thousand times for
 * millions of rows. fn NULL stops it; a pooled connection should be given
 * back with it stopped. */
typedef void (*db_rows_fn)(void *user, long long done, long long total);
void db_on_rows(db *d, db_rows_fn fn, void *user);

/* Storing a run whose blocks arrive in batches (sim_block_sink), so that no
 * more than a batch of them is ever in memory:
 *
 *   db_run_begin        opens the savepoint and inserts the runs row; writes
 *                       the new slug into `slug` (it names a run only once
 *                       db_run_finish has succeeded)
 *   db_run_add_blocks   stores blocks as the run's next blocks (seq continues
 *                       across calls), a page of 256 at a time (bpage.h: the
 *                       last partial page at finish); the array is only read
 *                       during the call
 *   db_run_finish       stores the rest of trace t (device, meta, strings,
 *                       kernels, copies, queue events, warp issues, jobs, and
 *                       t's own blocks after the streamed ones), fills the
 *                       summary over every block and releases the savepoint
 *   db_run_abort        rolls the run back
 *
 * All or nothing, as db_store_run: when add_blocks or finish fails, the run
 * is rolled back at once (err names the row by its index in the whole run,
 * `blocks[1048580]`) and later calls fail. finish and abort free the writer,
 * whatever the result; every writer ends with exactly one of them. While a
 * writer is open its connection writes nothing else (the savepoint would
 * take it in), and one connection has at most one writer open.
 * db_run_begin returns DB_NOT_FOUND when the experiment does not exist. */
typedef struct db_run_writer db_run_writer;

int db_run_begin(db *d, const char *experiment, const char *name, char slug[DB_SLUG_SIZE],
                 db_run_writer **w, char *err, size_t errlen);
int db_run_add_blocks(db_run_writer *w, const trace_block *b, size_t n, char *err,
                      size_t errlen);
/* The trace whose kernels the streamed blocks name (read at each
 * db_run_add_blocks; its kernels may still grow, as a simulation's do): the
 * occupancy pyramid (pyramid.h) then takes each batch as it comes. Without
 * it db_run_finish reads the streamed blocks back to build the pyramid. */
void db_run_kernels(db_run_writer *w, const trace *t);
/* Kernels and copies in batches too (issue 9: a streaming import, importers.h
 * imp_stream): t's kernels (copies) are stored as the run's next ones, ids
 * continuing from the batches before; those t holds at db_run_finish follow
 * them. Their string ids are t's: every batch and finish must come from the
 * one trace whose string table only grows; of t, add_kernels/_copies read
 * only those rows and the table's size (strs.n), so a batch may be a copy
 * of the rows beside that size while another thread grows the table
 * (server/app/store.c). db_run_shift_times adds delta to
 * every time of the kernels and copies stored so far (an origin found after
 * they were stored: imp_stream.shift). All three fail the run as
 * add_blocks does. */
int db_run_add_kernels(db_run_writer *w, const trace *t, char *err, size_t errlen);
int db_run_add_copies(db_run_writer *w, const trace *t, char *err, size_t errlen);
int db_run_shift_times(db_run_writer *w, int64_t delta, char *err, size_t errlen);
/* Set the connection's page cache (PRAGMA cache_size units: pages, or KiB
 * when negative); the setting it had goes to *old (may be NULL). A
 * streaming import appends to tables without secondary indexes and needs
 * few pages: a small cache keeps its memory the same whatever the file's
 * size (issue 9). */
int db_cache_size(db *d, int64_t set, int64_t *old, char *err, size_t errlen);
int db_run_finish(db_run_writer *w, const trace *t, char *err, size_t errlen);
void db_run_abort(db_run_writer *w);          /* NULL is fine */

/* Runs of one experiment in the order they were stored. */
int db_list_runs(db *d, const char *experiment, db_run_cb cb, void *ctx, char *err,
                 size_t errlen);
int db_get_run(db *d, const char *run, db_run_cb cb, void *ctx, char *err, size_t errlen);
int db_run_meta(db *d, const char *run, db_meta_cb cb, void *ctx, char *err, size_t errlen);
/* A trace of several GPUs' devices (DESIGN §5), appended to t->devices;
 * none for a run of one. 0, DB_NOT_FOUND or -1. */
int db_run_gpus(db *d, const char *run, trace *t, char *err, size_t errlen);
int db_count_runs(db *d, int64_t *n, char *err, size_t errlen);

/* What db_load_run reads besides name, source, origin, device and meta. */
enum {
    DB_LOAD_KERNELS = 1u << 0,
    DB_LOAD_BLOCKS = 1u << 1,
    DB_LOAD_COPIES = 1u << 2,
    DB_LOAD_QUEUE_EVENTS = 1u << 3,
    DB_LOAD_WARP_ISSUES = 1u << 4,
    DB_LOAD_JOBS = 1u << 5,
    DB_LOAD_ALL = 0x3f,
    /* the pauses of preempted blocks without the blocks (DB_LOAD_BLOCKS loads
     * both): a caller that reads the blocks by db_read_blocks (issue 31);
     * a cohort run's cohorts (issue 28) come with either */
    DB_LOAD_PAUSES = 1u << 6,
    /* the host's calls (db/host_calls.sql) without the kernels and copies
     * they name by index (the two together load them too): GET
     * /api/runs/{run}/host_calls */
    DB_LOAD_HOST_CALLS = 1u << 7
};

/* Rebuild a stored run into `out` (trace_init'ed, empty; the caller owns it
 * and must trace_free it, also after a failure). Records keep their stored
 * order. */
int db_load_run(db *d, const char *run, unsigned parts, trace *out, char *err, size_t errlen);

/* Blocks of run `run` from number `seq` (a multiple of 256, BPAGE_BLOCKS) on,
 * at most `max` (at least 256; whole pages are read, so max is best a
 * multiple of 256) into out, in stored order; *n = 0 past the last one.
 * A run read this way, a batch at a time on whatever pooled connection,
 * costs a batch of memory however many blocks it has (issue 31: an export
 * read page by page as its client consumes it). */
int db_read_blocks(db *d, const char *run, int64_t seq, trace_block *out, size_t max,
                   size_t *n, char *err, size_t errlen);

/* ---- windows, bins, queues ---------------------------------------------- */

typedef int (*db_block_cb)(void *ctx, const trace_block *b);

/* Blocks with start < to && end > from, by start time (then seq), merged
 * from the run's block pages that a range of block_pages_start selects
 * (db/bpage.h). */
int db_blocks_window(db *d, const char *run, int64_t from, int64_t to, db_block_cb cb,
                     void *ctx, char *err, size_t errlen);
int db_blocks_count(db *d, const char *run, int64_t from, int64_t to, int64_t *n, char *err,
                    size_t errlen);
/* The pauses (trace.h, trace_pause) of the blocks db_blocks_window gives
 * for the same window, each with its block's kernel and index, in the order
 * they begin per block: cb(ctx, kernel, index, start, end). */
typedef int (*db_pause_cb)(void *ctx, int32_t kernel, int32_t index, int64_t start, int64_t end);
int db_pauses_window(db *d, const char *run, int64_t from, int64_t to, db_pause_cb cb, void *ctx,
                     char *err, size_t errlen);
/* The SQL that selects a window's block pages (bpage_window_sql: ?1 run
 * id, ?2 the lowest page start, ?3 to, ?4 from - max_block_dur, ?5 from),
 * so a test can check its query plan. */
const char *db_blocks_window_sql(void);

/* Time-averaged occupancy of each SM over `nbins` bins of [from, to): bin i
 * covers [from + i*bin_ns, min(to, from + (i+1)*bin_ns)). threads[sm*nbins+i]
 * and blocks[sm*nbins+i] (caller-allocated, nsms*nbins each) receive the
 * mean number of resident threads / blocks. Blocks on SMs outside 0..nsms-1
 * are left out. */
int db_block_bins(db *d, const char *run, int64_t from, int64_t to, int64_t bin_ns,
                  size_t nbins, int32_t nsms, double *threads, double *blocks, char *err,
                  size_t errlen);

/* Every queue's content at time `at` (events at `at` included), items head
 * first; queues in order of first appearance, empty queues included. */
typedef int (*db_queue_state_cb)(void *ctx, const char *queue, const char *const *items,
                                 size_t n);
int db_queue_state(db *d, const char *run, int64_t at, db_queue_state_cb cb, void *ctx,
                   char *err, size_t errlen);

/* Each queue's length over time as a step function: length len[i] from t[i]
 * until t[i+1]; one point per distinct time. */
typedef int (*db_queue_series_cb)(void *ctx, const char *queue, const int64_t *t,
                                  const int64_t *len, size_t n);
int db_queue_series(db *d, const char *run, db_queue_series_cb cb, void *ctx, char *err,
                    size_t errlen);

#endif
