/* test_trace_fields.c -- the records' field lists (simcore/trace_fields.h,
 * issue 24 point 4) against what they drive: the columns a fresh database's
 * kernels and copies tables have (the migrations, written by hand, must
 * add a listed field's column), a store and load that
 * gives every listed field back, and the importers' range checks of every
 * field the list marks. A field added to a list without its migration, or
 * a migration without its list line, fails here. */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../db/db.h"
#include "../../importers/schedlab_trace.h"
#include "../../importers/trace_check.h"
#include "../../server/formats/trace_json.h"
#include "../../simcore/trace.h"
#include "test_db_util.h"

#define NAME_OF(col, member, kind, check, ...) #col,
static const char *const kernel_cols[] = {TRACE_KERNEL_FIELDS(NAME_OF, TF_NOSEP)};
static const char *const copy_cols[] = {TRACE_COPY_FIELDS(NAME_OF, TF_NOSEP)};

/* the columns of `table` in a fresh database are those of `want`, one
 * each (in any order: the lists are in the trace JSON's order, and every
 * statement names its columns) */
static void columns_are(db *d, const char *table, const char *const *want, size_t n) {
    char sql[96];
    snprintf(sql, sizeof sql, "SELECT name FROM pragma_table_info('%s') ORDER BY cid", table);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db_handle(d), sql, -1, &st, NULL), SQLITE_OK);
    size_t i = 0;
    bool seen[64] = {false};
    assert_true(n <= sizeof seen / sizeof *seen);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *c = (const char *)sqlite3_column_text(st, 0);
        size_t j = 0;
        while (j < n && strcmp(c, want[j]) != 0) j++;
        if (j == n) fail_msg("%s: column %s is in no field list (simcore/trace_fields.h)", table, c);
        if (seen[j]) fail_msg("%s: the field list names column %s twice", table, c);
        seen[j] = true;
        i++;
    }
    sqlite3_finalize(st);
    for (size_t j = 0; j < n; j++)
        if (!seen[j]) fail_msg("%s: no column %s, the field list has it (a migration missing?)",
                               table, want[j]);
    assert_int_equal(i, n);
}

static void test_columns(void **state) {
    (void)state;
    tdb t;
    assert_int_equal(tdb_open(&t, "fields"), 0);
    columns_are(t.d, "kernels", kernel_cols, sizeof kernel_cols / sizeof *kernel_cols);
    columns_are(t.d, "copies", copy_cols, sizeof copy_cols / sizeof *copy_cols);
    tdb_close(&t);
}

/* Each field a distinct value its kind stores as itself (by its position in
 * the list), so a field bound or read at another's column shows. */
static void set_str(trace *t, trace_str *v, int n) {
    char s[16];
    snprintf(s, sizeof s, "s%d", n);
    *v = trace_intern(t, s);
}
#define SET_TF_STR(t, v, n) set_str(t, &(v), n)
#define SET_TF_PRIO(t, v, n) (v) = -(n)
#define SET_TF_I32(t, v, n) (v) = 100 + (n)
#define SET_TF_I64(t, v, n) (v) = ((int64_t)1 << 40) + (n)
#define SET_TF_TIME(t, v, n) (v) = 1000 * (n) + 7
#define SET_TF_F64(t, v, n) (v) = 0.5 + (n)
#define SET_TF_BOOL(t, v, n) (v) = true
#define SET_KERNEL(col, member, kind, check, ...) SET_##kind(&t, k->member, n); n++;
#define SET_COPY(col, member, kind, check, ...) SET_##kind(&t, c->member, n); n++;

/* equal field by field; strings by their text (ids differ between traces) */
#define SAME_TF_STR(a, b, ta, tb) \
    assert_string_equal(or_none(trace_str_get(ta, a)), or_none(trace_str_get(tb, b)))
static const char *or_none(const char *s) { return s ? s : "(none)"; }
#define SAME_TF_F64(a, b, ta, tb) assert_true((a) == (b))
#define SAME_INT(a, b, ta, tb) assert_int_equal(a, b)
#define SAME_TF_PRIO SAME_INT
#define SAME_TF_I32 SAME_INT
#define SAME_TF_I64 SAME_INT
#define SAME_TF_TIME SAME_INT
#define SAME_TF_BOOL SAME_INT
#define SAME_KERNEL(col, member, kind, check, ...) \
    SAME_##kind(k->member, back.kernels.v[0].member, &t, &back);
#define SAME_COPY(col, member, kind, check, ...) \
    SAME_##kind(c->member, back.copies.v[0].member, &t, &back);

static void test_round_trip(void **state) {
    (void)state;
    tdb db0;
    assert_int_equal(tdb_open(&db0, "fields"), 0);
    char exp[DB_SLUG_SIZE], slug[DB_SLUG_SIZE], err[256];
    assert_int_equal(db_create_experiment(db0.d, "e", NULL, "import", NULL, NULL, exp, err,
                                          sizeof err), 0);
    trace t;
    trace_init(&t);
    trace_kernel *k = trace_add_kernel(&t);
    int n = 1;
    TRACE_KERNEL_FIELDS(SET_KERNEL, TF_NOSEP)
    trace_copy *c = trace_add_copy(&t);
    TRACE_COPY_FIELDS(SET_COPY, TF_NOSEP)
    /* the run's device and, a trace of several GPUs, each GPU's (db/gpus.sql) */
    t.device = (sim_device){.name = "main", .sms = 3};
    t.has_device = true;
    sim_device gpu = {.name = "gpu0", .sms = 2};
    trace_add_device(&t, &gpu);
    snprintf(gpu.name, sizeof gpu.name, "gpu1");
    gpu.sms = 4;
    trace_add_device(&t, &gpu);
    assert_false(t.oom);
    assert_int_equal(db_store_run(db0.d, exp, "r", &t, slug, err, sizeof err), 0);
    trace back;
    trace_init(&back);
    assert_int_equal(db_load_run(db0.d, slug, DB_LOAD_ALL, &back, err, sizeof err), 0);
    assert_int_equal(back.kernels.n, 1);
    assert_int_equal(back.copies.n, 1);
    assert_true(back.has_device);
    assert_string_equal(back.device.name, "main");
    assert_int_equal(back.devices.n, 2);
    assert_string_equal(back.devices.v[0].name, "gpu0");
    assert_int_equal(back.devices.v[1].sms, 4);
    trace gpus;
    trace_init(&gpus);
    assert_int_equal(db_run_gpus(db0.d, slug, &gpus, err, sizeof err), 0);
    assert_int_equal(gpus.devices.n, 2);
    assert_string_equal(gpus.devices.v[1].name, "gpu1");
    trace_free(&gpus);
    k = &t.kernels.v[0];
    c = &t.copies.v[0];
    TRACE_KERNEL_FIELDS(SAME_KERNEL, TF_NOSEP)
    TRACE_COPY_FIELDS(SAME_COPY, TF_NOSEP)
    trace_free(&back);
    trace_free(&t);
    tdb_close(&db0);
}

/* The trace JSON's writer and reader (server/formats/trace_json.c,
 * importers/schedlab_trace.c) walk the lists too: a kernel with every field
 * set (a QoS kernel of a warp-level run: qos_goal in (0, 1], so no
 * ipc_shared), the same kernel as a QoS run's other kernel (ipc_shared, no
 * goal), a copy and a block come back field by field, and a field left at
 * its unknown value is left out. */
static void test_json_round_trip(void **state) {
    (void)state;
    trace t;
    trace_init(&t);
    trace_kernel *k = trace_add_kernel(&t);
    int n = 1;
    TRACE_KERNEL_FIELDS(SET_KERNEL, TF_NOSEP)
    k->qos_goal = 0.25, k->ipc_shared = 0;
    /* a trace of two GPUs (DESIGN §5), so that each record's is written */
    sim_device gpu = {.name = "gpu", .sms = 2};
    assert_int_equal(trace_add_device(&t, &gpu), 0);
    gpu.sms = 4;
    assert_int_equal(trace_add_device(&t, &gpu), 1);
    k->device = 1;
    trace_kernel other = *k;
    other.qos_goal = 0, other.qos_met = false, other.ipc_shared = 0.75;
    *trace_add_kernel(&t) = other;
    trace_copy *c = trace_add_copy(&t);
    TRACE_COPY_FIELDS(SET_COPY, TF_NOSEP)
    c->direction = TRACE_COPY_D2H;
    c->device = 1;
    *trace_add_block(&t) = (trace_block){1, 7, 3, 100, 200};
    trace_add_kernel(&t);   /* every field unknown */
    assert_false(t.oom);
    tj_buf b = {0};
    assert_int_equal(tj_write_trace(&t, &b), 0);
    trace back;
    trace_init(&back);
    char err[256];
    if (imp_trace_json_parse(b.s, b.len, "f", &back, err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(back.kernels.n, 3);
    for (size_t j = 0; j < 3; j++) {
        k = &t.kernels.v[j];
        trace_kernel *kb = &back.kernels.v[j];
#define SAME_KERNEL_J(col, member, kind, check, ...) SAME_##kind(k->member, kb->member, &t, &back);
        TRACE_KERNEL_FIELDS(SAME_KERNEL_J, TF_NOSEP)
    }
    c = &t.copies.v[0];
    TRACE_COPY_FIELDS(SAME_COPY, TF_NOSEP)
    assert_memory_equal(&t.blocks.v[0], &back.blocks.v[0], sizeof(trace_block));
    assert_int_equal(back.devices.n, 2);
    assert_int_equal(back.devices.v[0].sms, 2);
    assert_int_equal(back.devices.v[1].sms, 4);
    /* the block says its kernel's GPU */
    assert_non_null(strstr(b.s, "\"sm\":3,\"start\":100,\"end\":200,\"device\":1}"));
    /* the unknown kernel: its counts null, its dims, warp and QoS fields
     * and raw_name not there */
    const char *last = strstr(b.s, "{\"id\":2,");
    assert_non_null(last);
    assert_non_null(
        strstr(last, "\"blocks\":null,\"threads\":null,\"smem\":null,\"regs\":null,\"device\":0}"));
    assert_null(strstr(last, "raw_name"));
    tj_buf_free(&b);
    trace_free(&back);
    trace_free(&t);
}

/* Every field the list marks checked fails the check with a bad value, and
 * the message names it. */
static void check_fails(trace *t, const char *what) {
    char err[256];
    assert_int_equal(imp_check_trace(t, "f", err, sizeof err), -1);
    if (!strstr(err, what)) fail_msg("check of %s: \"%s\" does not name it", what, err);
}
#define BAD_TF_CK_NONE(rec, member, name)
#define BAD_TF_CK_SM(rec, member, name)
#define BAD_TF_CK_KERNEL(rec, member, name)
/* a GPU the trace does not list (it lists none: only 0 is one) */
#define BAD_TF_CK_DEVICE(rec, member, name) \
    { __typeof__(rec->member) keep = rec->member; rec->member = 1; \
      check_fails(&t, name); rec->member = keep; }
#define BAD_TF_CK_TIME(rec, member, name) \
    { __typeof__(rec->member) keep = rec->member; rec->member = IMP_MAX_TIME; \
      check_fails(&t, name); rec->member = keep; }
#define BAD_TF_CK_COUNT(rec, member, name) \
    { __typeof__(rec->member) keep = rec->member; rec->member = -1; \
      check_fails(&t, name); rec->member = keep; }
#define BAD_KERNEL(col, member, kind, check, ...) BAD_##check(k, member, "kernels[0]." #member)
#define BAD_COPY(col, member, kind, check, ...) BAD_##check(c, member, "copies[0]." #member)
#define BAD_BLOCK(col, member, kind, check, ...) BAD_##check(b, member, "blocks[0]." #member)

static void test_checks(void **state) {
    (void)state;
    trace t;
    trace_init(&t);
    trace_kernel *k = trace_add_kernel(&t);
    k->threads = 32, k->blocks = 1, k->smem = 0, k->regs = 8;
    trace_copy *c = trace_add_copy(&t);
    c->bytes = 8;
    trace_block *b = trace_add_block(&t);
    *b = (trace_block){0, 0, 0, 10, 20};
    char err[256];
    assert_int_equal(imp_check_trace(&t, "f", err, sizeof err), 0);
    TRACE_KERNEL_FIELDS(BAD_KERNEL, TF_NOSEP)
    TRACE_COPY_FIELDS(BAD_COPY, TF_NOSEP)
    TRACE_BLOCK_FIELDS(BAD_BLOCK, TF_NOSEP)
    b->sm = -1;
    check_fails(&t, "blocks[0].sm");
    b->sm = 0, b->kernel = 1;
    check_fails(&t, "blocks[0].kernel");
    trace_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_columns),
        cmocka_unit_test(test_json_round_trip),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_checks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
