/* sqlite_util.h -- what the two SQLite-based importers (nvprof_sqlite.c,
 * nsys_sqlite.c) share: opening an upload's bytes as a read-only database
 * without a file on disk, asking which tables and columns a profiler version
 * wrote, reading the CUPTI activity rows into trace records with messages
 * that name the file, the table, the row and the column, and the format
 * sniffer imp_sqlite_kind (formats.h).
 *
 * Profilers append columns and drop empty tables from one release to the
 * next, so every query is built from what PRAGMA table_info says is there
 * (profiler-trace-formats.md §5 items 11 and 17), never from a fixed column
 * position.
 *
 * Memory: an imp_sql borrows the imp_file bytes (they must outlive it) and
 * owns its sqlite3 handle until imp_sql_close(). Errors go to the caller's
 * err buffer given at imp_sql_open(); every function that fails has written
 * exactly one line there. */
#ifndef IMPORTERS_SQLITE_UTIL_H
#define IMPORTERS_SQLITE_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "formats.h"
#include "importers.h"

typedef struct imp_sql {
    imp_ctx *cx;             /* the import's progress and batch sinks (may be NULL); set after imp_sql_open */
    sqlite3 *db;
    const char *file;        /* name for messages */
    char *err;
    size_t errlen;
    /* progress (issue 15): activity rows read by imp_sql_read_kernels and
     * imp_sql_read_copies, of the count(*) imp_sql_count_rows added up */
    int64_t rows_done, rows_total;
    const imp_file *f;       /* the bytes it reads (dropped behind a streaming import) */
    /* the row order the activity queries ask for: NULL, the table's
     * ("k.rowid"); a streaming import's second pass sets IMP_SQL_BY_START */
    const char *order;
} imp_sql;

#define IMP_SQL_BY_START "k.\"start\", k.rowid"
/* The ORDER BY of an activity query. */
#define IMP_SQL_ORDER(s) ((s)->order ? (s)->order : "k.rowid")

/* A column a query wants: `present` is set by imp_sql_columns(). */
typedef struct imp_sql_col {
    const char *name;        /* NULL: a placeholder always selected as NULL */
    bool required;           /* absent -> error naming table and column */
    bool present;
} imp_sql_col;

/* True when the bytes start with the SQLite 3 file header. */
bool imp_sql_is_sqlite(const unsigned char *data, size_t len);

/* Open `f` read-only in memory. 0, or -1 with err filled (not SQLite, or
 * SQLite that cannot be read). On failure nothing needs closing. */
int imp_sql_open(imp_sql *s, const imp_file *f, char *err, size_t errlen);
void imp_sql_close(imp_sql *s);

/* 1 when `table` is an ordinary table (views and virtual tables do not
 * count: a crafted file must not make us run its SQL), 0 when not, -1 on a
 * read error (err filled). */
int imp_sql_has_table(imp_sql *s, const char *table);

/* Mark which of cols[] exist in `table` and append to `sel` (capacity
 * selcap, already NUL-terminated) one select-list item per column:
 * alias."name" when present, NULL when absent, each preceded by ", ".
 * -1 with err filled when a required column is missing. */
int imp_sql_columns(imp_sql *s, const char *table, const char *alias,
                    imp_sql_col *cols, size_t n, char *sel, size_t selcap);

/* After imp_sql_columns on an activity table: a kernel table without
 * gridX, gridY or gridZ is refused (-1, err naming table and column), and
 * a memcpy table without copyKind and srcKind or dstKind (no copy has a
 * direction); each other launch, stream, device, context or copy-kind
 * column it lacks is an
 * import warning on t naming table, column and what was assumed
 * (docs/trace-format.md). Real exports have them all. */
int imp_sql_absent_cols(imp_sql *s, trace *t, const char *table, const imp_sql_col *cols,
                        size_t n);

/* 1 when `table` exists and has every one of the NULL-terminated column
 * names (at most 16), 0 otherwise, -1 on a read error. */
int imp_sql_table_has(imp_sql *s, const char *table, const char *const *cols);

/* Prepare `sql`; on failure err says which table could not be read. */
int imp_sql_prepare(imp_sql *s, const char *table, const char *sql, sqlite3_stmt **st);

/* Step; returns SQLITE_ROW, SQLITE_DONE, or -1 with err filled. */
int imp_sql_step(imp_sql *s, const char *table, sqlite3_stmt *st);

/* Integer value of column i of the current row: 0 with *v set, 1 when NULL
 * (*v = 0), -1 when the value is text, real or blob (err names table, row,
 * column and what was found). A real with an exact integer value counts as
 * an integer. */
int imp_sql_int(imp_sql *s, sqlite3_stmt *st, int i, const char *table, int64_t row,
                const char *col, int64_t *v);

/* As imp_sql_int, but NULL is an error too, and the value must lie in
 * [lo, hi]. */
int imp_sql_int_range(imp_sql *s, sqlite3_stmt *st, int i, const char *table, int64_t row,
                      const char *col, int64_t lo, int64_t hi, int64_t *v);

/* The first row's first column of a one-value query, as text copied into
 * buf (empty when no row or NULL). 0, or -1 with err filled. */
int imp_sql_text1(imp_sql *s, const char *table, const char *sql, char *buf, size_t buflen);

/* Fill err with "FILE: table TABLE: <message>" (table may be NULL: "FILE:
 * <message>") and return -1. */
int imp_sql_fail(imp_sql *s, const char *table, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* CUPTI memory kinds as nvprof numbers them (CUpti_ActivityMemoryKind,
 * profiler-trace-formats.md §2.4); nsys numbers the same kinds one lower. */
enum {
    IMP_SQL_MEM_UNKNOWN = 0, IMP_SQL_MEM_PAGEABLE, IMP_SQL_MEM_PINNED, IMP_SQL_MEM_DEVICE,
    IMP_SQL_MEM_ARRAY, IMP_SQL_MEM_MANAGED, IMP_SQL_MEM_DEVICE_STATIC, IMP_SQL_MEM_MANAGED_STATIC
};

/* A copy's direction (trace_copy_dir) from the CUPTI copy kind (0..10 as
 * CUpti_ActivityMemcpyKind, 11..13 the nsys unified-memory kinds), falling
 * back to the memory kinds (IMP_SQL_MEM_*) when the copy kind is unknown. */
int imp_sql_copy_direction(int64_t copy_kind, int src_mem, int dst_mem);

/* The nvprof CSV spelling of a copy kind: "[CUDA memcpy HtoD]" ... so the
 * same program imported from CSV or SQLite shows the same names. */
const char *imp_sql_copy_name(int64_t copy_kind);

/* Stable sort of the kernels by first_block and of the copies by start
 * (records keep their table order on ties). -1 when out of memory. */
int imp_sql_sort_kernels(trace *t);
int imp_sql_sort_copies(trace *t);

/* Display names are demangled once per distinct raw string: v[raw id] holds
 * the display id. Owned by the importer; free(v) when done. */
typedef struct imp_sql_name_cache {
    trace_str *v;
    size_t cap;
} imp_sql_name_cache;

/* Lookups the row readers make for every record -- the API call that
 * launched it, its stream's priority -- are answered from sorted arrays
 * loaded once, not by SQL joins: a join against a million-row RUNTIME table
 * costs more than the whole rest of the import. */
typedef struct imp_sql_keyed {
    int64_t k[3];
    int64_t v;
} imp_sql_keyed;

typedef struct imp_sql_map {
    imp_sql_keyed *v;
    size_t n, cap;
    size_t hint;             /* where the last lookup ended (a guess for the next) */
} imp_sql_map;

/* Append the rows of `sql` (selecting k0, k1, k2, v; a row with a
 * non-integer is left out) to m. 0, or -1 with err filled. */
int imp_sql_map_load(imp_sql *s, imp_sql_map *m, const char *table, const char *sql);
/* Sort by (k0, k1, k2, v); call once after loading. */
void imp_sql_map_sort(imp_sql_map *m);
/* The entry with the smallest (k[nkeys..2], v) among those whose first
 * nkeys keys equal key[]: its v in *v and true, or false. */
bool imp_sql_map_find(imp_sql_map *m, const int64_t *key, int nkeys, int64_t *v);
void imp_sql_map_free(imp_sql_map *m);

/* How many records ran on each device, by CUDA ordinal (deviceId; a row
 * with one outside 0..IMP_MAX_GPUS-1 is refused, formats.h), so every
 * GPU counts, however many. */
typedef struct imp_sql_devs {
    size_t n[IMP_MAX_GPUS];
    bool used;               /* a record named its device */
} imp_sql_devs;

/* One activity table being read, for the row reader and its messages. */
typedef struct imp_sql_src {
    const char *table;       /* "CUPTI_ACTIVITY_KIND_KERNEL" ... */
    const char *name_col;    /* kernel name column: "name", "demangledName" */
    const char *strings;     /* the string table it points into ... */
    const char *strings_id;  /* ... by this column */
    bool name_is_display;    /* NAMEID is demangled already (nsys), not raw (nvprof) */
    const int *mem_map;      /* source memory-kind number -> IMP_SQL_MEM_*, 64 entries; NULL: as is */
    const int *copy_map;     /* source copy-kind number -> CUPTI copy kind, 64 entries; NULL: as is */
    imp_sql_map *api;        /* (correlationId, pid, rank * 2 + part) -> API call start
                                (part 0) and end (part 1); rank 0 RUNTIME, 1 DRIVER */
    imp_sql_map *prio;       /* (contextId, streamId, pid) -> stream priority */
    bool api_by_pid;         /* the maps hold real pids; else pid keys are 0 */
    bool prio_by_pid;
    size_t skipped;          /* rows without valid timestamps (left out) */
    size_t kept;             /* records made (handed over, when streaming) */
    sqlite3_stmt *api_q;     /* streaming: the launch time from temp.api (imp_sql_api_temp)
                                rather than the api map */
    imp_sql_devs kernel_devs, copy_devs;
} imp_sql_src;

/* Kernel queries select exactly these columns, in this order; a column the
 * table lacks is selected as NULL. */
enum {
    IMP_SQL_K_ROWID, IMP_SQL_K_START, IMP_SQL_K_END, IMP_SQL_K_DEVICE, IMP_SQL_K_CONTEXT,
    IMP_SQL_K_STREAM, IMP_SQL_K_GRIDX, IMP_SQL_K_GRIDY, IMP_SQL_K_GRIDZ, IMP_SQL_K_BLOCKX,
    IMP_SQL_K_BLOCKY, IMP_SQL_K_BLOCKZ, IMP_SQL_K_REGS, IMP_SQL_K_SSMEM, IMP_SQL_K_DSMEM,
    IMP_SQL_K_NAMEID,        /* the kernel's name: an id into src->strings */
    IMP_SQL_K_RAWID,         /* its mangled name's id where kept apart (nsys), or NULL */
    IMP_SQL_K_CORR,          /* correlationId, or NULL */
    IMP_SQL_K_PID,           /* process id, or NULL */
    IMP_SQL_K_GREEN,         /* green context id, or NULL */
    IMP_SQL_K_NCOLS
};

/* Copy and memset queries: the same idea. KIND is the copy kind (NULL for
 * memsets); SRCMEM/DSTMEM the memory kinds (a memset's kind in SRCMEM). */
enum {
    IMP_SQL_C_ROWID, IMP_SQL_C_START, IMP_SQL_C_END, IMP_SQL_C_DEVICE, IMP_SQL_C_CONTEXT,
    IMP_SQL_C_STREAM, IMP_SQL_C_BYTES, IMP_SQL_C_KIND, IMP_SQL_C_SRCMEM, IMP_SQL_C_DSTMEM,
    IMP_SQL_C_CORR, IMP_SQL_C_PID, IMP_SQL_C_GREEN, IMP_SQL_C_NCOLS
};

/* Add count(*) of `table` to s->rows_total, the estimate the progress of
 * the row readers below is measured against (rows they skip or a join
 * leaves out only make the estimate high). 0, or -1 with err filled. */
int imp_sql_count_rows(imp_sql *s, const char *table);

/* Step `st` (laid out as above) to the end, appending one trace record per
 * row with valid timestamps. 0, or -1 with err naming table, row, column. */
int imp_sql_read_kernels(imp_sql *s, trace *t, sqlite3_stmt *st, imp_sql_src *src,
                         imp_sql_name_cache *names);
int imp_sql_read_copies(imp_sql *s, trace *t, sqlite3_stmt *st, imp_sql_src *src,
                        bool memset);

/* ---- streaming (issue 9; importers.h imp_stream) ----------------------------
 *
 * Streamed, an import reads each activity table ordered by start (SQLite
 * sorts, spilling to temporary files rather than memory) and merges the
 * tables -- ties to the earlier table, then rowid: the order the stable
 * sort of imp_sql_finish gives -- handing the records over in batches. The
 * launch times come from an indexed temporary table (temp.api) rather than
 * the api map, so memory holds neither the rows nor the API calls. The
 * device and the skipped rows are counted as the rows go by. Two things
 * differ from the whole-file import, neither visible in the run: strings
 * are interned in start order (other ids, the same texts), and a bad row
 * found first is the earliest by start, not by rowid -- so a streamed
 * import that fails sets imp_stream.whole_message and the caller imports
 * the file again whole for the message (importers.c). */

/* Temporary objects go to files (SQLite's page cache, a few MB, in memory):
 * call before the first imp_sql_api_temp. 0, or -1 with err filled. */
int imp_sql_stream_begin(imp_sql *s);
/* As imp_sql_map_load, into temp.api (keyed as the map is sorted);
 * imp_sql_api_index then prepares *q, the lookup src->api_q takes (NULL
 * when no table was loaded). */
int imp_sql_api_temp(imp_sql *s, const char *table, const char *sql);
int imp_sql_api_index(imp_sql *s, sqlite3_stmt **q);
/* The rows: st[i] reads tables[i] ordered by IMP_SQL_BY_START;
 * every record is appended to t and handed over with imp_stream_rows. For
 * copies memset[i] says whether tables[i] holds memsets. */
int imp_sql_stream_kernels(imp_sql *s, trace *t, sqlite3_stmt **st, const char *const *tables,
                           size_t n, imp_sql_src *src, imp_sql_name_cache *names);
int imp_sql_stream_copies(imp_sql *s, trace *t, sqlite3_stmt **st, const char *const *tables,
                          const bool *memset, size_t n, imp_sql_src *src);
/* imp_sql_finish after streaming: `kept` records were made and handed
 * over, so nothing is left to sort. */
int imp_sql_finish_stream(imp_sql *s, trace *t, const char *source, size_t skipped,
                          size_t kept);

/* The device the timeline is about: the one most kernels ran on (most
 * copies when there are no kernels; the smaller id on a tie). 1 with *id
 * set, 0 when no record named a device. */
int imp_sql_main_device(const imp_sql_src *src, int64_t *id);

/* Last step of an import: refuse a trace with nothing in it, sort kernels
 * and copies by start, set the source and the "skipped_records" meta.
 * 0, or -1 with err filled. */
int imp_sql_finish(imp_sql *s, trace *t, const char *source, size_t skipped);

/* Fill t->device from the row of a device table (DEVICE, TARGET_INFO_GPU,
 * TARGET_INFO_CUDA_GPU) whose `key_col` equals dev_id, looking each field up
 * under the names the profiler versions used. The device name is column
 * "name": text, or (strings != NULL) an id into strings(str_id, value).
 * Sets has_device when the row gives the SM count. 0 (also when there is no
 * such table or row), or -1 with err filled. */
int imp_sql_device(imp_sql *s, trace *t, const char *table, const char *key_col,
                   int64_t dev_id, const char *strings, const char *str_id);

/* The GPUs of a trace of several (DESIGN §5): a kernel's or copy's
 * `device` is its deviceId (0 when NULL or absent), and the row readers
 * grow t->devices to the largest one as they go (imp_devices_reserve), so
 * a trace whose records all ran on ordinal 0 has none. Call after
 * imp_sql_device: fills each entry 0..devices.n-1 from the row of `table`
 * for that ordinal, as imp_sql_device reads t->device (but neither
 * has_device nor the meta), and an ordinal the table does not list gets a
 * copy of t->device, the meta key "devices_unlisted" naming them ("2, 5").
 * 0, or -1 with err filled (the entries then as they were). */
int imp_sql_devices(imp_sql *s, trace *t, const char *table, const char *key_col,
                    const char *strings, const char *str_id);

#endif
