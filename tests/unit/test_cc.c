/* test_cc.c -- compute capabilities and named GPUs (simcore/cc.h) against
 * their sources: rows of the CUDA C++ Programming Guide's "Technical
 * Specifications per Compute Capability" written out here, cross-checked
 * with what the drivers of the real traces reported (cc.c's header); a
 * minor the table lacks takes the closest lower one of its major; device
 * names as profilers write them matched to models by whole words, the
 * longest key winning; a traced device's missing limits filled from its
 * compute capability, a 48 KB per-block default raised to the opt-in
 * maximum and never past the SM's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "../../simcore/cc.h"

#define KB 1024

static void test_table_rows(void **state) {
    (void)state;
    /* major, minor: blocks, warps, threads per SM, regs per block, smem per
     * SM and per block (opt-in), schedulers */
    static const struct {
        int major, minor;
        int32_t blocks, warps, threads;
        int64_t regs_block, smem_sm, smem_block;
        int32_t sched;
    } want[] = {
        {3, 7, 16, 64, 2048, 65536, 112 * KB, 48 * KB, 4},  /* K80 */
        {6, 0, 32, 64, 2048, 65536, 64 * KB, 48 * KB, 2},   /* P100: 2 schedulers */
        {6, 2, 32, 64, 2048, 32768, 64 * KB, 48 * KB, 4},   /* TX2 (RTSS'17 §3.2) */
        {7, 0, 32, 64, 2048, 65536, 96 * KB, 96 * KB, 4},   /* V100 (nvprof: 96 KB, 32 blocks) */
        {7, 5, 16, 32, 1024, 65536, 64 * KB, 64 * KB, 4},   /* T4 (Nsight: 65536) */
        {8, 0, 32, 64, 2048, 65536, 164 * KB, 163 * KB, 4}, /* A100 (166912 = 163 KB) */
        {8, 6, 16, 48, 1536, 65536, 100 * KB, 99 * KB, 4},  /* RTX 3090 (101376 = 99 KB) */
        {8, 9, 24, 48, 1536, 65536, 100 * KB, 99 * KB, 4},  /* RTX 4060 Ti: 24 blocks */
        {9, 0, 32, 64, 2048, 65536, 228 * KB, 227 * KB, 4}, /* H100 (232448 = 227 KB) */
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        const sim_cc *c = sim_cc_find(want[i].major, want[i].minor);
        assert_non_null(c);
        assert_int_equal(c->major, want[i].major);
        assert_int_equal(c->minor, want[i].minor);
        assert_int_equal(c->blocks_per_sm, want[i].blocks);
        assert_int_equal(c->warps_per_sm, want[i].warps);
        assert_int_equal(c->threads_per_sm, want[i].threads);
        assert_int_equal(c->threads_per_sm, 32 * c->warps_per_sm);
        assert_int_equal(c->regs_per_block, want[i].regs_block);
        assert_int_equal(c->smem_per_sm, want[i].smem_sm);
        assert_int_equal(c->smem_per_block, want[i].smem_block);
        assert_int_equal(c->schedulers_per_sm, want[i].sched);
    }
    /* a minor the table lacks: the closest lower one of its major */
    assert_int_equal(sim_cc_find(7, 3)->minor, 2);
    assert_int_equal(sim_cc_find(8, 8)->minor, 7);
    assert_int_equal(sim_cc_find(9, 9)->minor, 0);
    assert_null(sim_cc_find(2, 0));    /* Fermi: not in the table */
    assert_null(sim_cc_find(13, 0));
    assert_null(sim_cc_find(3, -1));
    assert_int_equal(sim_cc_count(), 22);
    assert_ptr_equal(sim_cc_at(0), sim_cc_find(3, 0));
    assert_null(sim_cc_at(22));
}

static void test_names(void **state) {
    (void)state;
    static const struct {
        const char *name, *key;
    } want[] = {
        {"Tesla V100-SXM2-16GB", "v100"},
        {"NVIDIA GeForce GTX 1080 Ti (0)", "gtx1080ti"},   /* not gtx1080 */
        {"GeForce GTX 1080", "gtx1080"},
        {"NVIDIA H100 80GB HBM3", "h100"},
        {"NVIDIA H100 PCIe", "h100pcie"},
        {"NVIDIA GeForce RTX 3090", "rtx3090"},
        {"Tesla T4", "t4"},
        {"NVIDIA A100-SXM4-40GB", "a100"},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        const sim_gpu_model *m = sim_gpu_model_for(want[i].name);
        if (!m || strcmp(m->key, want[i].key))
            fail_msg("\"%s\": %s, not %s", want[i].name, m ? m->key : "none", want[i].key);
    }
    const sim_gpu_model *h = sim_gpu_model_for("NVIDIA H100 PCIe");
    assert_int_equal(h->sms, 114);
    assert_int_equal(h->major, 9);
    /* whole words only: "A1000" is no A100, "T40" no T4, "xv100" no V100 */
    assert_null(sim_gpu_model_for("NVIDIA RTX A1000"));
    assert_null(sim_gpu_model_for("Tesla T40"));
    assert_null(sim_gpu_model_for("xv100"));
    assert_null(sim_gpu_model_for(NULL));
    assert_int_equal(sim_name_has_words("GeForce GTX-1080 Ti", "gtx1080ti"), 1);
    assert_int_equal(sim_name_has_words("GeForce GTX 1080 Ti", "gtx108"), 0);
    assert_int_equal(sim_name_has_words("GeForce GTX 1080 Ti", ""), 0);
    assert_int_equal(sim_name_has_words("geforce", "force"), 0);
}

static void test_complete(void **state) {
    (void)state;
    /* nvprof's device record: the SM count, 48 KB per block, the rest 0 */
    sim_device d;
    memset(&d, 0, sizeof d);
    d.sms = 80;
    d.max_smem_per_block = 48 * KB;
    const sim_cc *v = sim_cc_find(7, 0);
    assert_int_equal(sim_cc_complete(&d, v), 10);   /* nine fields filled, one raised */
    assert_int_equal(d.warp_size, 32);
    assert_int_equal(d.blocks_per_sm, 32);
    assert_int_equal(d.warps_per_sm, 64);
    assert_int_equal(d.threads_per_sm, 2048);
    assert_int_equal(d.max_threads_per_block, 1024);
    assert_int_equal(d.regs_per_sm, 65536);
    assert_int_equal(d.max_regs_per_block, 65536);
    assert_int_equal(d.smem_per_sm, 96 * KB);
    assert_int_equal(d.max_smem_per_block, 96 * KB);   /* raised to the opt-in maximum */
    assert_int_equal(d.schedulers_per_sm, 4);
    /* what a trace recorded stays; threads follow the recorded warps; a
     * per-block maximum is never past the SM's recorded shared memory */
    memset(&d, 0, sizeof d);
    d.warps_per_sm = 48;
    d.smem_per_sm = 64 * KB;
    d.blocks_per_sm = 16;
    assert_int_equal(sim_cc_complete(&d, sim_cc_find(9, 0)), 7);   /* the seven unrecorded */
    assert_int_equal(d.warps_per_sm, 48);
    assert_int_equal(d.threads_per_sm, 48 * 32);
    assert_int_equal(d.blocks_per_sm, 16);
    assert_int_equal(d.smem_per_sm, 64 * KB);
    assert_int_equal(d.max_smem_per_block, 64 * KB);
    /* a complete device: nothing set */
    assert_int_equal(sim_cc_complete(&d, sim_cc_find(9, 0)), 0);
    /* the P100's two schedulers a Pascal 6.0 SM has */
    memset(&d, 0, sizeof d);
    sim_cc_complete(&d, sim_cc_find(6, 0));
    assert_int_equal(d.schedulers_per_sm, 2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_rows),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_complete),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
