/* test_warp_appendix_b.c -- most-room Appendix B: Table 3 (Pascal, 5 SMs,
 * scenarios/most-room-table3-*) and Table 4 (Volta V100, 80 SMs,
 * most-room-table4-*), the four rows of Table 1 on those GPUs, from their
 * files through scn_parse_file and sim_run (issue 25: "Tables 3-4 shipped
 * and reported beside the paper's, asserted for direction").
 *
 * Each row runs three phases (serial, concurrent-colocated, concurrent-
 * isolated) and is checked against the paper's execution times:
 *   - the placements of §5.1 on this GPU (ascending SM order, [MR] §4.3);
 *   - for B, the paper's order: serial <= isolated < colocated (every row of
 *     Tables 3 and 4 has it; isolated is equal to serial in Table 3's L1 and
 *     compute rows, so the order asserted there is <=);
 *   - for A, a small slowdown (at most 1.10x) wherever the paper's is small
 *     (at most 1.10x).
 * Both slowdowns are printed next to the paper's; docs/memory.md has the
 * tables. Scenarios are found under $SCHEDLAB_ROOT/scenarios, or
 * ./scenarios. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_sanitizer.h"
#include "test_scn_util.h"

static int64_t exec_time(const trace *t, const char *name) {
    const trace_kernel *k = kern(t, name);
    return k->end - k->first_block;
}

/* A row of Table 3 or 4: the paper's execution times in ms (Appendix B). */
typedef struct paper_row {
    const char *file;
    const char *what;
    double a_serial, b_serial, a_iso, b_iso, a_coloc, b_coloc;
} paper_row;

static const paper_row table3[] = {
    { "most-room-table3-l1.json", "L1-cache-dependent", 63, 45, 63, 45, 94, 94 },
    { "most-room-table3-compute.json", "compute-intensive", 780, 415, 780, 415, 895, 915 },
    { "most-room-table3-memory.json", "memory-intensive", 1233, 49, 1233, 274, 1270, 1270 },
    { "most-room-table3-transfer.json", "transfer-bound", 1588, 239, 1680, 523, 1689, 1686 },
};

static const paper_row table4[] = {
    { "most-room-table4-l1.json", "L1-cache-dependent", 85, 51, 84, 55, 104, 104 },
    { "most-room-table4-compute.json", "compute-intensive", 869, 333, 870, 480, 871, 986 },
    { "most-room-table4-memory.json", "memory-intensive", 2458, 34, 2459, 622, 2492, 710 },
    { "most-room-table4-transfer.json", "transfer-bound", 3156, 121, 3194, 1113, 3295, 1325 },
};

static double x(int64_t a, int64_t b) {
    return (double)a / (double)b;
}

/* One row: simulate, check the placements (B's last-launched SM is the
 * empty one, `last`; ascending order elsewhere), print, assert direction. */
static void row(const paper_row *p, int32_t last) {
    trace t;
    scn_simulate(p->file, "default", &t);
    int64_t as = exec_time(&t, "A-serial"), bs = exec_time(&t, "B-serial");
    int64_t ai = exec_time(&t, "A-isolated"), bi = exec_time(&t, "B-isolated");
    int64_t ac = exec_time(&t, "A-colocated"), bc = exec_time(&t, "B-colocated");
    int32_t kb = (int32_t)(kern(&t, "B-colocated") - t.kernels.v);
    int32_t ki = (int32_t)(kern(&t, "B-isolated") - t.kernels.v);
    int32_t ks = (int32_t)(kern(&t, "B-serial") - t.kernels.v);
    int32_t ka[3] = { (int32_t)(kern(&t, "A-serial") - t.kernels.v),
                      (int32_t)(kern(&t, "A-colocated") - t.kernels.v),
                      (int32_t)(kern(&t, "A-isolated") - t.kernels.v) };
    for (size_t i = 0; i < t.blocks.n; i++) {
        const trace_block *b = &t.blocks.v[i];
        /* §5.1 on this GPU: A's blocks one per SM, 0 .. last - 1; colocated
         * B on the empty SM, then in the tie-break order 0, 1, ... ([MR]
         * §4.3: ascending on Pascal; the v100 preset's order); isolated B
         * all on the empty SM; serial B one per SM from 0 */
        if (b->kernel == ka[0] || b->kernel == ka[1] || b->kernel == ka[2])
            assert_int_equal(b->sm, b->index);
        if (b->kernel == kb) assert_int_equal(b->sm, b->index == 0 ? last : b->index - 1);
        if (b->kernel == ki) assert_int_equal(b->sm, last);
        if (b->kernel == ks) assert_int_equal(b->sm, b->index);
    }
    /* the phases do not overlap */
    assert_true(kern(&t, "B-serial")->end < kern(&t, "A-colocated")->issue);
    assert_true(kern(&t, "B-colocated")->end < kern(&t, "A-isolated")->issue);
    assert_true(kern(&t, "A-colocated")->end < kern(&t, "A-isolated")->issue);
    trace_free(&t);

    double pai = p->a_iso / p->a_serial, pbi = p->b_iso / p->b_serial;
    double pac = p->a_coloc / p->a_serial, pbc = p->b_coloc / p->b_serial;
    double mai = x(ai, as), mbi = x(bi, bs), mac = x(ac, as), mbc = x(bc, bs);
    printf("  %-20s B isolated  paper %6.2fx model %6.2fx | B colocated paper %6.2fx model %6.2fx\n",
           p->what, pbi, mbi, pbc, mbc);
    printf("  %-20s A isolated  paper %6.2fx model %6.2fx | A colocated paper %6.2fx model %6.2fx\n",
           "", pai, mai, pac, mac);
    /* B: the paper's order, serial <= isolated < colocated (2% for noise:
     * the paper's coefficient of variation was under 3%) */
    assert_true(pbi >= 0.98 && pbi < pbc);     /* the table read right */
    assert_true(mbi >= 0.98);
    assert_true(mbi < mbc);
    /* A: small where the paper's is small */
    if (pai <= 1.10) assert_true(mai <= 1.10);
    if (pac <= 1.10) assert_true(mac <= 1.10);
}

/* Table 3: Pascal, the paper's 5-SM GPU (pascal-gilman); A on SMs 0-3, B's
 * four blocks isolated on SM 4 */
static void test_table3(void **state) {
    (void)state;
    printf("  most-room Table 3 (Pascal, 5 SMs)\n");
    for (size_t i = 0; i < sizeof table3 / sizeof table3[0]; i++) row(&table3[i], 4);
}

/* Table 4: Volta V100, 80 SMs; A on SMs 0-78, B's eight blocks isolated on
 * SM 79. Under the sanitizers (test_sanitizer.h) the L1 row is left out:
 * it is four fifths of the table's time (A's 79 blocks re-reading through
 * the L1), Table 3's L1 row runs the same code (and test_h200_mostroom's
 * L1 model on 132 SMs), and the other three rows run the 80 SMs' code
 * (more sub-cores than one word of a bitmap). */
static void test_table4(void **state) {
    (void)state;
    printf("  most-room Table 4 (Volta V100, 80 SMs)\n");
    for (size_t i = 0; i < sizeof table4 / sizeof table4[0]; i++) {
        if (TEST_UNDER_ASAN && strstr(table4[i].file, "-l1")) {
            printf("  %-20s (left out under the sanitizers: the plain run checks it)\n", table4[i].what);
            continue;
        }
        row(&table4[i], 79);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table3),
        cmocka_unit_test(test_table4),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
