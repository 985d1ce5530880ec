/* test_device.c -- a device's consistency check (simcore/device.h,
 * sim_device_validate) at each bound: from a valid device, one field set
 * to the last value its rule accepts passes, the first it refuses fails
 * with the message naming the field; the dependent rules (an L1 or an L2
 * needs the memory system, its ways and its latency; an explicit SM order
 * and a wave order list every SM once); the field table's typed access. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../simcore/device.h"

/* v100 with GPGPU-Sim's front end and its L1 and L2 on (as docs/memory.md's
 * scenarios give them) */
static sim_device base(void) {
    sim_device d = *sim_preset_find("v100");
    d.fetch_warps = 1;
    d.ibuffer = 2;
    d.l1_smem_kb = 128;
    d.l1_assoc = 4;
    d.latency_l1 = 28;
    d.l1_sectors = 4;
    d.l2_kb = 6144;
    d.l2_assoc = 16;
    d.latency_l2 = 160;
    return d;
}

static void set(sim_device *d, const char *field, double v) {
    for (size_t i = 0; i < sim_device_nfields; i++)
        if (!strcmp(sim_device_fields[i].field, field)) {
            sim_device_set_f64(d, &sim_device_fields[i], v);
            return;
        }
    fail_msg("no field %s", field);
}

/* field at `ok` passes; at `bad` fails with a message that starts `msg` */
static void bound(const char *field, double ok, double bad, const char *msg) {
    char err[512];
    sim_device d = base();
    set(&d, field, ok);
    if (sim_device_validate(&d, err, sizeof err))
        fail_msg("%s = %g: refused: %s", field, ok, err);
    d = base();
    set(&d, field, bad);
    if (!sim_device_validate(&d, err, sizeof err)) fail_msg("%s = %g: accepted", field, bad);
    if (strncmp(err, msg, strlen(msg))) fail_msg("%s = %g: \"%s\", not \"%s...\"", field, bad, err, msg);
}

static void test_bounds(void **state) {
    (void)state;
    char err[512];
    sim_device d = base();
    if (sim_device_validate(&d, err, sizeof err)) fail_msg("%s", err);
    bound("sms", SIM_MAX_SMS, SIM_MAX_SMS + 1, "device.sms: ");
    bound("sms", 1, 0, "device.sms: ");
    bound("threads_per_sm", 1024, 0, "device.threads_per_sm: ");
    bound("max_threads_per_block", 2048, 2049, "device.max_threads_per_block: ");
    bound("max_threads_per_block", 1, 0, "device.max_threads_per_block: ");
    bound("blocks_per_sm", 65535, 65536, "device.blocks_per_sm: ");
    bound("blocks_per_sm", 1, 0, "device.blocks_per_sm: ");
    bound("warp_size", 1, 0, "device.warp_size: ");
    bound("warps_per_sm", 1, 0, "device.warps_per_sm: ");
    bound("max_regs_per_block", 65536, 65537, "device.max_regs_per_block: ");
    bound("max_regs_per_block", 1, 0, "device.max_regs_per_block: ");
    bound("max_smem_per_block", 96 * 1024, 96 * 1024 + 1, "device.max_smem_per_block: ");
    bound("max_smem_per_block", 0, -1, "device.max_smem_per_block: ");
    bound("schedulers_per_sm", 1, 0, "device.schedulers_per_sm: ");
    bound("copy_engines", 2, 3, "device.copy_engines: ");
    bound("copy_engines", 1, 0, "device.copy_engines: ");
    bound("copy_bandwidth", 1, 0, "device.copy_bandwidth: ");
    bound("copy_bandwidth", 1, INFINITY, "device.copy_bandwidth: ");
    bound("clock_hz", 0, -1, "device.clock: ");
    bound("mem_bandwidth", 65536, 65537, "device.mem_bandwidth: ");
    bound("mem_bandwidth", 0.001, 0.0009, "device.mem_bandwidth: ");
    bound("sm_mem_bandwidth", 0, -0.5, "device.sm_mem_bandwidth: ");
    bound("latency_mem", 0, -1, "device.latency_mem: ");
    bound("latency_sfu", 0, -1, "device.latency_sfu: ");
    bound("fetch_warps", 64, 65, "device.fetch_warps: ");
    bound("ibuffer", 64, 65, "device.ibuffer: ");
    bound("ibuffer", 1, 0, "device.ibuffer: 0; with fetch_warps 1 the front end decodes");
    bound("fp32_rate", 64, 64.5, "device.fp32_rate: ");
    bound("dram_sectors", 0.001, 0.0009, "device.dram_sectors: ");
    bound("sm_port_sectors", 65536, 65537, "device.sm_port_sectors: ");
    bound("sm_mem_queue", 32, 31, "device.sm_mem_queue: with dram_sectors the memory system needs");
    bound("sm_mem_queue", 65536, 65537, "device.sm_mem_queue: ");
    bound("l1_assoc", 1, 0, "device.l1_assoc: with l1_smem_kb the L1 needs its ways");
    bound("latency_l1", 1, 0, "device.latency_l1: with l1_smem_kb the L1 needs its hit latency");
    bound("ldst_queue", 64, 65, "device.ldst_queue: ");
    bound("l2_assoc", 1, 0, "device.l2_assoc: with l2_kb the L2 needs its ways");
    bound("latency_l2", 1, 0, "device.latency_l2: with l2_kb the L2 needs its hit latency");
    bound("l2_assoc", 4096, 4097, "device.l2_assoc: ");
    bound("uvm_page_kb", 2048, 2049, "device.uvm_page_kb: ");
    bound("sm_faults", 1023, 1024, "device.sm_faults: ");
    bound("copies_in_flight", 64, 65, "device.copies_in_flight: ");
    bound("mem_admission", 1, 2, "device.mem_admission: ");
    bound("dram_share", 1, 2, "device.dram_share: ");

    /* an L2 of 64 KB holds 512 lines of 128 bytes: 512 ways at most */
    d = base();
    d.l2_kb = 64;
    d.l2_assoc = 512;
    if (sim_device_validate(&d, err, sizeof err)) fail_msg("%s", err);
    d.l2_assoc = 513;
    assert_int_equal(sim_device_validate(&d, err, sizeof err), -1);
    assert_string_equal(err, "device.l2_assoc: 513 ways need at least 65 KB of L2, not 64");

    /* what the memory system's parts need of it */
    d = base();
    d.dram_sectors = 0;
    assert_int_equal(sim_device_validate(&d, err, sizeof err), -1);
    assert_string_equal(err, "device.dram_sectors: with l1_smem_kb the L1 needs the memory "
                             "system (dram_sectors > 0)");
    d = base();
    d.l1_smem_kb = d.l1_sectors = d.ldst_queue = 0;
    d.dram_sectors = 0;
    assert_int_equal(sim_device_validate(&d, err, sizeof err), -1);
    assert_string_equal(err, "device.dram_sectors: with l2_kb the L2 needs the memory system "
                             "(dram_sectors > 0)");
    d = base();
    d.l1_smem_kb = 0;
    assert_int_equal(sim_device_validate(&d, err, sizeof err), -1);
    assert_string_equal(err, "device.l1_smem_kb: with l1_sectors the L1's rate needs an L1 "
                             "(l1_smem_kb > 0)");
    d = base();
    d.l1_sectors = 0;
    d.ldst_queue = 1;
    assert_int_equal(sim_device_validate(&d, err, sizeof err), -1);
    assert_string_equal(err, "device.ldst_queue: the queue waits for the L1's rate (l1_sectors > 0)");
    d = base();
    d.sm_port_sectors = 0;
    assert_int_equal(sim_device_validate(&d, err, sizeof err), -1);
    assert_non_null(strstr(err, "device.sm_port_sectors: with dram_sectors the memory system needs"));
}

static void test_orders(void **state) {
    (void)state;
    char err[512];
    sim_device d = *sim_preset_find("tx2");
    d.sms = 4;
    d.sm_order_kind = SIM_SM_ORDER_EXPLICIT;
    const int16_t ok[4] = {2, 0, 3, 1};
    memcpy(d.sm_order, ok, sizeof ok);
    assert_int_equal(sim_device_validate(&d, err, sizeof err), 0);
    d.sm_order[3] = 4;
    assert_int_equal(sim_device_validate(&d, err, sizeof err), -1);
    assert_string_equal(err, "device.sm_order[3]: SM 4 is outside 0..3");
    d.sm_order[3] = 2;
    assert_int_equal(sim_device_validate(&d, err, sizeof err), -1);
    assert_string_equal(err, "device.sm_order[3]: SM 2 appears twice; the order must list every "
                             "SM once");
    d.sm_order[3] = -1;
    assert_int_equal(sim_device_validate(&d, err, sizeof err), -1);
    assert_string_equal(err, "device.sm_order[3]: SM -1 is outside 0..3");
    /* a wave order (H100-W1): every SM once, as many as the device has */
    d = *sim_preset_find("h100");
    assert_int_equal(sim_device_validate(&d, err, sizeof err), 0);
    d.wave_order[5] = d.wave_order[6];
    assert_int_equal(sim_device_validate(&d, err, sizeof err), -1);
    assert_non_null(strstr(err, "device.wave_order[6]: SM "));
    d = *sim_preset_find("h100");
    d.wave_order[131] = 132;
    assert_int_equal(sim_device_validate(&d, err, sizeof err), -1);
    assert_string_equal(err, "device.wave_order[131]: SM 132 is outside 0..131 or listed twice");
    d = *sim_preset_find("h100");
    d.nwave_order = 131;
    assert_int_equal(sim_device_validate(&d, err, sizeof err), -1);
    assert_string_equal(err, "device.wave_order: lists 131 SMs but the device has 132");
    d = *sim_preset_find("tx2");
    d.sm_order_kind = (sim_sm_order_kind)7;
    assert_int_equal(sim_device_validate(&d, err, sizeof err), -1);
    assert_string_equal(err, "device.sm_order: unknown order kind 7");
    /* the derived orders (most-room §4.3): ascending; evens then odds */
    d = *sim_preset_find("tx2");
    d.sms = 5;
    d.sm_order_kind = SIM_SM_ORDER_EVENS_THEN_ODDS;
    sim_device_fill_order(&d);
    const int16_t eo[5] = {0, 2, 4, 1, 3};
    assert_memory_equal(d.sm_order, eo, sizeof eo);
    assert_int_equal(d.sm_order[5], 0);
    d.sm_order_kind = SIM_SM_ORDER_ASCENDING;
    d.sms = 3;
    sim_device_fill_order(&d);
    const int16_t as[4] = {0, 1, 2, 0};
    assert_memory_equal(d.sm_order, as, sizeof as);
}

/* the field table's typed access: an int32, an int64 and a double field */
static void test_fields(void **state) {
    (void)state;
    sim_device d = *sim_preset_find("v100");
    const sim_device_field *sms = sim_device_field_by_key("sms"),
                           *smem = sim_device_field_by_key("smem_per_sm"),
                           *fp = sim_device_field_by_key("fp32_rate");
    assert_non_null(sms);
    assert_non_null(smem);
    assert_non_null(fp);
    assert_null(sim_device_field_by_key("nope"));
    assert_null(sim_device_field_by_key(NULL));
    assert_int_equal(sim_device_get_i64(&d, sms), 80);
    assert_int_equal(sim_device_get_i64(&d, smem), 96 * 1024);
    assert_true(sim_device_get_f64(&d, fp) == 0.5);
    assert_int_equal(sim_device_get_i64(&d, fp), 0);   /* 0.5 truncated */
    sim_device_set_i64(&d, sms, 7);
    assert_int_equal(d.sms, 7);
    sim_device_set_i64(&d, smem, (int64_t)1 << 40);
    assert_int_equal(d.smem_per_sm, (int64_t)1 << 40);
    sim_device_set_f64(&d, fp, 2.25);
    assert_true(d.fp32_rate == 2.25);
    sim_device_set_f64(&d, sms, 9.9);
    assert_int_equal(d.sms, 9);
    sim_device_set_i64(&d, fp, 3);
    assert_true(d.fp32_rate == 3.0);
    /* unset: a cycle count, a rate or an option at 0 (a size is never unset) */
    d.fp32_rate = 0;
    assert_true(sim_device_field_unset(&d, fp));
    d.smem_per_sm = 0;
    assert_false(sim_device_field_unset(&d, smem));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_orders),
        cmocka_unit_test(test_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
