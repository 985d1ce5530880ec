/* test_rorder.c -- a run's kernels and copies a page at a time in a
 * column's order (db/rorder.h): every sort column of both tables, both
 * directions, with and without a name filter, at offsets that cross the
 * stored pages of 1,024 ids, against a plain sort of the same rows here;
 * a few orders spelled out by hand (no value last either way, ties by
 * id, text by digit value); the orders stored once and deleted with the
 * experiment; the natural text order exactly; a P0 stream shown bare, a
 * damaged order page and a miscounted run as errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../db/db.h"
#include "../../db/rorder.h"
#include "../../db/versions.h"
#include "test_db_util.h"

#define NK 2500
#define NC 1300

/* The sort columns' numbers, as the API names them and as record_orders
 * stores them (rorder.h; docs/api.md): written out here, so a field list
 * (simcore/trace_fields.h) that renumbers one, which would read an old
 * database's stored orders as another column's, fails test_key_numbers. */
enum {
    ROR_K_NAME = 1, ROR_K_STREAM, ROR_K_PRIORITY, ROR_K_BLOCKS, ROR_K_ISSUE, ROR_K_FIRST_BLOCK,
    ROR_K_FULLY_DISPATCHED, ROR_K_END
};
enum { ROR_C_NAME = 1, ROR_C_STREAM, ROR_C_DIRECTION, ROR_C_BYTES, ROR_C_ISSUE, ROR_C_START,
       ROR_C_END };
static const char *const kernel_key_names[ROR_K_N] = {
    "id", "name", "stream", "priority", "blocks", "issue", "first_block", "fully_dispatched",
    "end", "response"};
static const char *const copy_key_names[ROR_C_N] = {
    "id", "name", "stream", "direction", "bytes", "issue", "start", "end"};

static void test_key_numbers(void **state) {
    (void)state;
    for (int i = 0; i < ROR_K_N; i++)
        assert_int_equal(ror_key_parse(ROR_KERNELS, kernel_key_names[i]), i);
    for (int i = 0; i < ROR_C_N; i++)
        assert_int_equal(ror_key_parse(ROR_COPIES, copy_key_names[i]), i);
    assert_int_equal(ror_key_parse(ROR_KERNELS, "threads"), -1);
    assert_int_equal(ror_key_parse(ROR_KERNELS, "stop"), -1);
    assert_int_equal(ror_key_parse(ROR_COPIES, "response"), -1);
    assert_int_equal(ror_key_parse(ROR_COPIES, "engine"), -1);
    char buf[256];
    assert_string_equal(ror_key_list(ROR_KERNELS, buf, sizeof buf),
                        "id, name, stream, priority, blocks, issue, first_block, "
                        "fully_dispatched, end, response");
    assert_string_equal(ror_key_list(ROR_COPIES, buf, sizeof buf),
                        "id, name, stream, direction, bytes, issue, start, end");
}

/* kernel i: names K0..K4 and K10 (none for every 11th), streams 1, 7, 13
 * in process P0 or P1, priorities none or 0..-2, no issue for every 6th */
static void build(trace *t) {
    trace_init(t);
    trace_set_source(t, "nvprof-csv");
    trace_set_name(t, "orders");
    for (int i = 0; i < NK; i++) {
        char name[16], stream[8];
        snprintf(name, sizeof name, "K%d", (i * 7) % 6 == 5 ? 10 : (i * 7) % 6);
        snprintf(stream, sizeof stream, "%d", i % 3 == 0 ? 1 : i % 3 == 1 ? 7 : 13);
        trace_kernel *k = trace_add_kernel(t);
        k->name = i % 11 ? trace_intern(t, name) : 0;
        k->stream = trace_intern(t, stream);
        k->process = trace_intern(t, i % 4 ? "P0" : "P1");
        k->priority = i % 2 ? TRACE_PRIO_NONE : -(i % 3);
        k->threads = 64;
        k->blocks = 1 + (i * 13) % 9;
        k->issue = i % 6 ? 1000 * i : TRACE_NONE;
        k->first_block = 1000 * i + (i * 17) % 23;
        k->fully_dispatched = i % 5 ? k->first_block + 1 : TRACE_NONE;
        k->end = k->first_block + 100 + (i * 31) % 400;
        k->grid[0] = k->blocks, k->grid[1] = 1, k->grid[2] = 1;
        k->block[0] = 64, k->block[1] = 1, k->block[2] = 1;
        k->regs = 32;
    }
    for (int i = 0; i < NC; i++) {
        trace_copy *c = trace_add_copy(t);
        c->name = trace_intern(t, i % 3 ? "[CUDA memcpy HtoD]" : "[CUDA memset]");
        c->stream = trace_intern(t, i % 2 ? "7" : "13");
        c->direction = i % 3 ? TRACE_COPY_H2D : i % 2 ? TRACE_COPY_D2H : TRACE_COPY_D2D;
        c->engine = 0;
        c->bytes = i % 7 ? 512 * ((i * 37) % 50) : TRACE_NONE;
        c->issue = 900 * i;
        c->start = 900 * i + 3;
        c->end = 900 * i + 50 + (i * 11) % 90;
    }
    assert_false(t->oom);
}

/* ---- the reference: the same rows sorted here, one comparison at a time ---- */

typedef struct ref_row {
    uint32_t id;
    bool null;
    int64_t v;
    const char *s;   /* text columns */
} ref_row;

static bool ref_desc;
static int ref_cmp(const void *pa, const void *pb) {
    const ref_row *a = pa, *b = pb;
    if (a->null != b->null) return a->null ? 1 : -1;
    if (!a->null) {
        int c = a->s ? ror_strcmp(a->s, b->s) : (a->v > b->v) - (a->v < b->v);
        if (c) return ref_desc ? -c : c;
    }
    return (a->id > b->id) - (a->id < b->id);
}

static char stream_text[NK][32];

/* the value of kernel i (or copy i) in column key */
static ref_row ref_value(const trace *t, bool copies, int key, uint32_t i) {
    ref_row r = {.id = i};
    int64_t v = TRACE_NONE;
    const char *s = NULL;
    if (!copies) {
        const trace_kernel *k = &t->kernels.v[i];
        switch (key) {
        case ROR_K_ID: v = i; break;
        case ROR_K_NAME: s = trace_str_get(t, k->name); break;
        case ROR_K_STREAM: {
            const char *p = trace_str_get(t, k->process), *sn = trace_str_get(t, k->stream);
            if (strcmp(p, "P0")) snprintf(stream_text[i], sizeof stream_text[i], "%s/%s", p, sn);
            else snprintf(stream_text[i], sizeof stream_text[i], "%s", sn);
            s = stream_text[i];
            break;
        }
        case ROR_K_PRIORITY: v = k->priority == TRACE_PRIO_NONE ? TRACE_NONE : k->priority; break;
        case ROR_K_BLOCKS: v = k->blocks; break;
        case ROR_K_ISSUE: v = k->issue; break;
        case ROR_K_FIRST_BLOCK: v = k->first_block; break;
        case ROR_K_FULLY_DISPATCHED: v = k->fully_dispatched; break;
        case ROR_K_END: v = k->end; break;
        case ROR_K_RESPONSE: v = k->end - (k->issue != TRACE_NONE ? k->issue : k->first_block); break;
        }
    } else {
        const trace_copy *c = &t->copies.v[i];
        switch (key) {
        case ROR_C_ID: v = i; break;
        case ROR_C_NAME: s = trace_str_get(t, c->name); break;
        case ROR_C_STREAM: s = trace_str_get(t, c->stream); break;
        case ROR_C_DIRECTION: s = trace_copy_dir_name(c->direction); break;
        case ROR_C_BYTES: v = c->bytes; break;
        case ROR_C_ISSUE: v = c->issue; break;
        case ROR_C_START: v = c->start; break;
        case ROR_C_END: v = c->end; break;
        }
    }
    bool text = key == 1 || key == 2 || (copies && key == ROR_C_DIRECTION);
    r.null = text ? s == NULL : v == TRACE_NONE;
    r.v = v;
    r.s = text ? s : NULL;
    return r;
}

/* The ids of the page, sorted here: *n of them, *total matching */
static uint32_t *ref_page(const trace *t, const ror_query *q, size_t *n, int64_t *total) {
    bool copies = q->kind == ROR_COPIES;
    size_t rows = copies ? t->copies.n : t->kernels.n, m = 0;
    ref_row *v = malloc(rows * sizeof *v);
    for (uint32_t i = 0; i < rows; i++) {
        trace_str nm = copies ? t->copies.v[i].name : t->kernels.v[i].name;
        const char *s = trace_str_get(t, nm);
        if (q->name && (!s || strcmp(s, q->name))) continue;
        v[m++] = ref_value(t, copies, q->key, i);
    }
    ref_desc = q->desc;
    qsort(v, m, sizeof *v, ref_cmp);
    *total = (int64_t)m;
    uint32_t *ids = malloc((q->limit + 1) * sizeof *ids);
    *n = 0;
    for (int64_t p = q->offset; p < (int64_t)m && p < q->offset + q->limit; p++) ids[(*n)++] = v[p].id;
    free(v);
    return ids;
}

static void store(tdb *t, trace *tr, char exp[DB_SLUG_SIZE], char run[DB_SLUG_SIZE]) {
    char err[256];
    if (db_create_experiment(t->d, "x", NULL, "import", NULL, NULL, exp, err, sizeof err))
        fail_msg("%s", err);
    if (db_store_run(t->d, exp, "orders", tr, run, err, sizeof err)) fail_msg("%s", err);
}

/* One page from the db against the reference, and the records' own fields */
static void check_page(db *d, const char *run, const trace *tr, const ror_query *q) {
    trace out;
    trace_init(&out);
    int64_t *ids, total;
    size_t n, wn;
    int64_t wtotal;
    char err[256];
    if (db_rorder_page(d, run, q, &out, &ids, &n, &total, err, sizeof err)) fail_msg("%s", err);
    uint32_t *want = ref_page(tr, q, &wn, &wtotal);
    if (total != wtotal || n != wn)
        fail_msg("kind %d key %d desc %d name %s offset %lld: total %lld, %zu rows; want %lld, %zu",
                 q->kind, q->key, q->desc, q->name ? q->name : "-", (long long)q->offset,
                 (long long)total, n, (long long)wtotal, wn);
    for (size_t i = 0; i < n; i++) {
        if (ids[i] != want[i])
            fail_msg("kind %d key %d desc %d name %s offset %lld: row %zu is id %lld, want %u",
                     q->kind, q->key, q->desc, q->name ? q->name : "-", (long long)q->offset, i,
                     (long long)ids[i], want[i]);
        /* the record is the row of that id */
        if (q->kind == ROR_KERNELS) {
            assert_int_equal(out.kernels.v[i].end, tr->kernels.v[ids[i]].end);
            assert_string_equal(trace_str_get(&out, out.kernels.v[i].stream),
                                trace_str_get(tr, tr->kernels.v[ids[i]].stream));
        } else {
            assert_int_equal(out.copies.v[i].end, tr->copies.v[ids[i]].end);
        }
    }
    free(want);
    free(ids);
    trace_free(&out);
}

static void test_every_order_matches(void **state) {
    (void)state;
    tdb t;
    assert_int_equal(tdb_open(&t, "rorder"), 0);
    trace tr, other;
    build(&tr);
    build(&other);
    char exp[DB_SLUG_SIZE], run[DB_SLUG_SIZE], exp2[DB_SLUG_SIZE], run2[DB_SLUG_SIZE];
    /* a run before it: its rowids do not start at 1 */
    store(&t, &other, exp2, run2);
    store(&t, &tr, exp, run);
    static const int64_t offsets[] = {0, 1000, 1020, 2400, 2499, 2500, 9000};
    static const char *const names[] = {NULL, "K2", "K10", "nope"};
    for (int kind = 0; kind < 2; kind++) {
        int nkeys = kind ? ROR_C_N : ROR_K_N;
        for (int key = 0; key < nkeys; key++)
            for (int desc = 0; desc < 2; desc++)
                for (size_t o = 0; o < sizeof offsets / sizeof *offsets; o++)
                    for (size_t nm = 0; nm < (kind ? 1 : 4); nm++) {
                        ror_query q = {.kind = kind, .key = key, .desc = desc, .name = names[nm],
                                       .offset = offsets[o], .limit = o == 1 ? 1000 : 37};
                        check_page(t.d, run, &tr, &q);
                    }
        ror_query q = {.kind = kind, .key = 1, .name = kind ? "[CUDA memset]" : "K4", .limit = 50};
        check_page(t.d, run, &tr, &q);
    }
    trace_free(&tr);
    trace_free(&other);
    tdb_close(&t);
}

/* pages spelled out: no value last both ways, ties by id, names by digits */
static void test_by_hand(void **state) {
    (void)state;
    tdb t;
    assert_int_equal(tdb_open(&t, "rorder-hand"), 0);
    trace tr;
    trace_init(&tr);
    trace_set_source(&tr, "nvprof-csv");
    /* id: name, priority, end */
    static const char *const nm[] = {"K10", "K2", NULL, "K2", "k1"};
    static const int32_t prio[] = {TRACE_PRIO_NONE, -1, 0, -1, TRACE_PRIO_NONE};
    for (int i = 0; i < 5; i++) {
        trace_kernel *k = trace_add_kernel(&tr);
        k->name = trace_intern(&tr, nm[i]);
        k->priority = prio[i];
        k->threads = 32, k->blocks = 1, k->regs = 8;
        k->first_block = 10 * i;
        k->end = 10 * i + 5;
    }
    char exp[DB_SLUG_SIZE], run[DB_SLUG_SIZE];
    store(&t, &tr, exp, run);
    struct { int key; bool desc; const char *name; int64_t want[5]; size_t n; int64_t total; } cases[] = {
        {ROR_K_PRIORITY, false, NULL, {1, 3, 2, 0, 4}, 5, 5},
        {ROR_K_PRIORITY, true, NULL, {2, 1, 3, 0, 4}, 5, 5},
        /* "K2" < "K10" < "k1" ('K' < 'k'), no name last */
        {ROR_K_NAME, false, NULL, {1, 3, 0, 4, 2}, 5, 5},
        {ROR_K_NAME, true, NULL, {4, 0, 1, 3, 2}, 5, 5},
        {ROR_K_END, true, "K2", {3, 1}, 2, 2},
        {ROR_K_ID, true, NULL, {4, 3, 2, 1, 0}, 5, 5},
        {ROR_K_ID, false, "k1", {4}, 1, 1},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        ror_query q = {.kind = ROR_KERNELS, .key = cases[c].key, .desc = cases[c].desc,
                       .name = cases[c].name, .limit = 10};
        trace out;
        trace_init(&out);
        int64_t *ids, total;
        size_t n;
        char err[256];
        if (db_rorder_page(t.d, run, &q, &out, &ids, &n, &total, err, sizeof err)) fail_msg("%s", err);
        assert_int_equal(total, cases[c].total);
        assert_int_equal(n, cases[c].n);
        for (size_t i = 0; i < n; i++) assert_int_equal(ids[i], cases[c].want[i]);
        free(ids);
        trace_free(&out);
    }
    /* stored: one page row per order asked for (6), none for the id order unfiltered */
    assert_int_equal(tdb_scalar(t.d, "SELECT count(*) FROM record_orders"), 6);
    assert_int_equal(tdb_scalar(t.d, "SELECT count(DISTINCT variant) FROM record_orders"), 6);
    /* an unknown run */
    ror_query q = {.kind = ROR_KERNELS, .limit = 1};
    trace out;
    trace_init(&out);
    int64_t *ids, total;
    size_t n;
    char err[256];
    assert_int_equal(db_rorder_page(t.d, "nosuchrun0", &q, &out, &ids, &n, &total, err, sizeof err),
                     DB_NOT_FOUND);
    trace_free(&out);
    /* deleted with the experiment */
    int64_t runs;
    assert_int_equal(db_delete_experiment(t.d, exp, &runs, err, sizeof err), 0);
    assert_int_equal(tdb_scalar(t.d, "SELECT count(*) FROM record_orders"), 0);
    trace_free(&tr);
    tdb_close(&t);
}

/* a page of 1,000 rows spanning two stored pages of a 2,500-row order */
static void test_stored_pages(void **state) {
    (void)state;
    tdb t;
    assert_int_equal(tdb_open(&t, "rorder-pages"), 0);
    trace tr;
    build(&tr);
    char exp[DB_SLUG_SIZE], run[DB_SLUG_SIZE];
    store(&t, &tr, exp, run);
    ror_query q = {.kind = ROR_KERNELS, .key = ROR_K_END, .desc = true, .offset = 1000, .limit = 1000};
    check_page(t.d, run, &tr, &q);
    /* 2,500 ids: pages of 1,024, 1,024 and 452, 4 bytes each */
    assert_int_equal(tdb_scalar(t.d, "SELECT count(*) FROM record_orders"), 3);
    assert_int_equal(tdb_scalar(t.d, "SELECT sum(length(ids)) FROM record_orders"), 4 * NK);
    /* asked again: nothing more stored */
    check_page(t.d, run, &tr, &q);
    assert_int_equal(tdb_scalar(t.d, "SELECT count(*) FROM record_orders"), 3);
    trace_free(&tr);
    tdb_close(&t);
}

static void test_strcmp(void **state) {
    (void)state;
    assert_int_equal(ror_strcmp("K2", "K10"), -1);
    assert_int_equal(ror_strcmp("K10", "K2"), 1);
    assert_int_equal(ror_strcmp("7", "13"), -1);
    assert_int_equal(ror_strcmp("abc", "abc"), 0);
    assert_int_equal(ror_strcmp("abc", "abc1"), -1);
    /* equal by value: told apart bytewise, so the order is total */
    assert_int_equal(ror_strcmp("a01", "a1"), -1);
    assert_int_equal(ror_strcmp("a1", "a01"), 1);
    assert_int_equal(ror_strcmp("a1b", "a01c"), -1);
    assert_int_equal(ror_strcmp("x9y", "x10"), -1);
    assert_int_equal(ror_strcmp("B", "a"), -1);
}

/* A kernel's stream as the table shows it, "process/stream" but in P0
 * (rorder.c read_rows): a P0 stream "Z" sorts after P1's "P1/1", not
 * before it as "P0/Z" would. A row count the run's row does not hold and
 * a stored order page cut short are errors naming them. A key list cut at
 * a whole name. */
static void test_shown_and_damaged(void **state) {
    (void)state;
    tdb t;
    assert_int_equal(tdb_open(&t, "rorder-shown"), 0);
    trace tr;
    trace_init(&tr);
    trace_set_source(&tr, "nvprof-csv");
    static const char *const proc[] = {"P0", "P1", "P0"}, *const stream[] = {"Z", "1", "A"};
    for (int i = 0; i < 3; i++) {
        trace_kernel *k = trace_add_kernel(&tr);
        k->name = trace_intern(&tr, "K");
        k->process = trace_intern(&tr, proc[i]);
        k->stream = trace_intern(&tr, stream[i]);
        k->threads = 32, k->blocks = 1, k->regs = 8;
        k->first_block = 10 * i;
        k->end = 10 * i + 5;
    }
    char exp[DB_SLUG_SIZE], run[DB_SLUG_SIZE], err[256], want[256];
    store(&t, &tr, exp, run);
    ror_query q = {.kind = ROR_KERNELS, .key = ROR_K_STREAM, .limit = 10};
    trace out;
    trace_init(&out);
    int64_t *ids, total;
    size_t n;
    if (db_rorder_page(t.d, run, &q, &out, &ids, &n, &total, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(n, 3);
    assert_int_equal(ids[0], 2);   /* "A" */
    assert_int_equal(ids[1], 1);   /* "P1/1" */
    assert_int_equal(ids[2], 0);   /* "Z" */
    free(ids);
    trace_free(&out);

    /* the stored order cut to two ids: reading its third is an error */
    int64_t id = tdb_scalar(t.d, "SELECT id FROM runs");
    assert_int_equal(sqlite3_exec(db_handle(t.d), "UPDATE record_orders SET ids = substr(ids, 1, 8)",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    trace_init(&out);
    assert_int_equal(db_rorder_page(t.d, run, &q, &out, &ids, &n, &total, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: record_orders: page 0 of an order of run %lld is short",
             t.path, (long long)id);
    assert_string_equal(err, want);
    assert_null(ids);
    trace_free(&out);

    /* the run's row counting more kernels than it holds, for an order not
     * stored yet */
    assert_int_equal(sqlite3_exec(db_handle(t.d), "UPDATE runs SET n_kernels = 5", NULL, NULL,
                                  NULL),
                     SQLITE_OK);
    q.key = ROR_K_END;
    trace_init(&out);
    assert_int_equal(db_rorder_page(t.d, run, &q, &out, &ids, &n, &total, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: run %lld holds 3 kernels, not the 5 its row says", t.path,
             (long long)id);
    assert_string_equal(err, want);
    trace_free(&out);

    /* "id, name" is 8 bytes; ", stream" would pass the 12 */
    char buf[64];
    memset(buf, 'x', sizeof buf);
    assert_string_equal(ror_key_list(ROR_KERNELS, buf, 12), "id, name");
    for (size_t i = 12; i < sizeof buf; i++) assert_int_equal(buf[i], 'x');
    trace_free(&tr);
    tdb_close(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_key_numbers),
        cmocka_unit_test(test_strcmp),
        cmocka_unit_test(test_by_hand),
        cmocka_unit_test(test_stored_pages),
        cmocka_unit_test(test_every_order_matches),
        cmocka_unit_test(test_shown_and_damaged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
