/* test_pause_index.c -- the pauses of a window's blocks, by block
 * (server/app/pause_index.h), for GET /api/runs/{run}/blocks: a paused
 * block written as the trace JSON writes it plus "pauses": [[start, end],
 * ...] in the order they began, however the run's pauses interleave; a
 * block of the same index in another kernel, an unpaused block and a block
 * outside the window get none; a window without pauses gives no index. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../server/app/pause_index.h"
#include "test_db_util.h"

typedef tdb_exp fixture;

/* blk as pause_index_put_block writes it */
static char *put(const pause_index *idx, const trace_block *blk) {
    tj_buf b = {0};
    pause_index_put_block(idx, &b, blk);
    assert_false(b.oom);
    char *s = strdup(b.s);
    tj_buf_free(&b);
    return s;
}

/* blk as the trace JSON writes it, with `pauses` (NULL: none) added */
static char *want(const trace_block *blk, const char *pauses) {
    tj_buf b = {0};
    tj_put_block(&b, blk);
    assert_false(b.oom);
    assert_int_equal(b.s[b.len - 1], '}');
    char *s = malloc(b.len + 64);
    if (pauses) snprintf(s, b.len + 64, "%.*s,\"pauses\":%s}", (int)b.len - 1, b.s, pauses);
    else snprintf(s, b.len + 64, "%s", b.s);
    tj_buf_free(&b);
    return s;
}

static void expect_put(const pause_index *idx, const trace_block *blk, const char *pauses) {
    char *got = put(idx, blk), *w = want(blk, pauses);
    assert_string_equal(got, w);
    free(got);
    free(w);
}

static void test_pauses_by_block(void **state) {
    fixture *f = *state;
    trace t;
    trace_init(&t);
    trace_set_source(&t, "simulation");
    for (int k = 0; k < 3; k++) trace_add_kernel(&t)->threads = 64;
    /* kernel, index, sm, start, end */
    const trace_block blocks[] = {{0, 0, 0, 0, 10},  {0, 1, 1, 10, 50},  {1, 0, 0, 12, 60},
                                  {1, 1, 1, 70, 80}, {2, 0, 0, 90, 100}, {2, 1, 1, 100, 120}};
    for (int i = 0; i < 6; i++) *trace_add_block(&t) = blocks[i];
    /* as a simulation stores them, in the order they began, blocks
     * interleaved: block 0 once, block 1 twice, block 2 once between them,
     * block 5 (kernel 2's index 1) once */
    trace_add_pause(&t, 0, 2, 4);
    trace_add_pause(&t, 1, 20, 25);
    trace_add_pause(&t, 2, 22, 28);
    trace_add_pause(&t, 1, 30, 35);
    trace_add_pause(&t, 5, 105, 110);
    char slug[DB_SLUG_SIZE], err[256];
    tdb_exp_store(f, "p", &t, slug);
    trace_free(&t);

    pause_index *idx = NULL;
    assert_int_equal(pause_index_load(f->d, slug, 0, 200, &idx, err, sizeof err), 0);
    assert_non_null(idx);
    expect_put(idx, &blocks[0], "[[2,4]]");
    expect_put(idx, &blocks[1], "[[20,25],[30,35]]");
    expect_put(idx, &blocks[2], "[[22,28]]");
    expect_put(idx, &blocks[3], NULL);   /* index 1 as blocks 1 and 5, another kernel */
    expect_put(idx, &blocks[4], NULL);
    expect_put(idx, &blocks[5], "[[105,110]]");
    expect_put(NULL, &blocks[1], NULL);
    pause_index_free(idx);

    /* a window of block 0 and block 1 only ([0, 11): block 2 starts at 12) */
    assert_int_equal(pause_index_load(f->d, slug, 0, 11, &idx, err, sizeof err), 0);
    assert_non_null(idx);
    expect_put(idx, &blocks[1], "[[20,25],[30,35]]");
    expect_put(idx, &blocks[2], NULL);
    pause_index_free(idx);
    /* a window of blocks 3 and 4 alone: no pauses, no index */
    idx = (pause_index *)1;
    assert_int_equal(pause_index_load(f->d, slug, 70, 100, &idx, err, sizeof err), 0);
    assert_null(idx);
    /* no such run */
    assert_int_equal(pause_index_load(f->d, "nosuchrun0", 0, 100, &idx, err, sizeof err),
                     DB_NOT_FOUND);
    assert_null(idx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_pauses_by_block, tdb_exp_setup, tdb_exp_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
