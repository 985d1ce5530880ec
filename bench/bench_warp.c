/* bench_warp.c -- the warp-level model's speed: simulated warp instructions
 * per second on one core (issue 11: at least 50 M/s for a full
 * titanv-gpgpusim GPU under GTO with a mixed compute/memory workload).
 *
 * The workload: two kernels launched together on two streams, a compute
 * kernel (body: 16 alu, 1 mem) and a memory kernel (body: 2 alu, 1 mem),
 * each `blocks` blocks of `threads` threads running the body `repeat` times
 * per warp, with the device's latencies (ALU 4, memory 260 cycles at 4.25
 * requests per cycle). Warp issue recording is off unless --record.
 *
 * Usage: bench_warp [--sms N] [--threads T] [--blocks B] [--repeat R]
 *                   [--warps-per-sm W] [--policy gto|lrr|qaws] [--record]
 *                   [--mem none|fp32|dram|l1|l2|all] [--scoreboard]
 * --mem turns parts of the memory system on (issue 25: at least 20 M/s with
 * all of it): fp32 the sub-cores' fp32 pipes (the compute kernel's alu
 * instructions on them, 0.5 a cycle); dram the sectored memory system
 * (17 sectors a cycle: the Titan V's 652 GB/s at 1200 MHz, 1 a cycle per SM
 * port, 256 outstanding per SM), the memory kernel's loads each warp's own
 * 8 KB, the compute kernel's a stream; l1 that and a 96-KB 4-way L1 (128 KB
 * L1 + shared, QAWS Table I, less 32 KB of shared memory), hit latency 28;
 * l2 that and the TITAN V's 4.5-MB L2 (GPGPU-Sim SM7_TITANV: 24 ways, 160
 * cycles; the compute kernel's stream misses it, and so do the memory
 * kernel's 8 KB per warp, 40 MB in all: the row measures the lookups); all:
 * l2 and fp32.
 * --scoreboard gives both programs a scoreboard (program.dep; issue 25): the
 * compute kernel's alu instructions two chains (each reads the one 2 back),
 * its load independent; the memory kernel's first alu reads the last
 * repetition's load, its second the first, its load nothing pending.
 * --warps-per-sm lowers the device's resident warps per SM (64), so fewer
 * warps share each of the 4 sub-cores.
 *
 * Prints one JSON line:
 *   {"bench":"warp","policy":"gto","sms":80,"threads":256,"warps_per_subcore":16,
 *    "instructions":N,"cycles":c,"seconds":s,"cpu_seconds":c,
 *    "instr_per_s":x,"instr_per_cpu_s":y,"peak_rss_mb":m}
 * `seconds` is wall time of sim_run, `cpu_seconds` this process's CPU time
 * over it (a loaded machine shows in the gap); peak_rss_mb is the process's
 * peak, so run one size per process. Exit 1 if the run fails, 2 on bad
 * arguments. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "../simcore/sim.h"

int main(int argc, char **argv) {
    int32_t sms = 80, threads = 256, wpsm = 0;
    int64_t blocks = 2000, repeat = 50;
    const char *policy = "gto", *mem = "none";
    int record = 0, scoreboard = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--record") == 0) { record = 1; continue; }
        if (strcmp(a, "--scoreboard") == 0) { scoreboard = 1; continue; }
        if (!v) { fprintf(stderr, "bench_warp: %s needs a value\n", a); return 2; }
        if (strcmp(a, "--sms") == 0) sms = atoi(v);
        else if (strcmp(a, "--threads") == 0) threads = atoi(v);
        else if (strcmp(a, "--blocks") == 0) blocks = atoll(v);
        else if (strcmp(a, "--repeat") == 0) repeat = atoll(v);
        else if (strcmp(a, "--warps-per-sm") == 0) wpsm = atoi(v);
        else if (strcmp(a, "--policy") == 0) policy = v;
        else if (strcmp(a, "--mem") == 0) mem = v;
        else { fprintf(stderr, "bench_warp: unknown option %s\n", a); return 2; }
        i++;
    }
    static const sim_instr cbody[] = { { SIM_ICLASS_ALU, 16 }, { SIM_ICLASS_MEM, 1 } };
    static const sim_instr mbody[] = { { SIM_ICLASS_ALU, 2 }, { SIM_ICLASS_MEM, 1 } };
    bool fp32 = !strcmp(mem, "fp32") || !strcmp(mem, "all");
    bool l2 = !strcmp(mem, "l2") || !strcmp(mem, "all");
    bool l1 = !strcmp(mem, "l1") || l2;
    bool dram = !strcmp(mem, "dram") || l1;
    if (!fp32 && !dram && strcmp(mem, "none")) {
        fprintf(stderr, "bench_warp: --mem %s is not none, fp32, dram, l1, l2 or all\n", mem);
        return 2;
    }
    static const sim_access cacc[] = { { .fp32 = 1 }, { .sectors = 4, .scope = SIM_SCOPE_WARP } };
    static const sim_access macc[] = { { .fp32 = 0 },
                                       { .sectors = 4, .footprint = 8192, .scope = SIM_SCOPE_WARP } };
    sim_program cp = { .body = cbody, .nbody = 2, .repeat = repeat,
                       .access = fp32 || dram ? cacc : NULL };
    sim_program mp = { .body = mbody, .nbody = 2, .repeat = repeat,
                       .access = fp32 || dram ? macc : NULL };
    static const sim_dep cdep[] = { { .n = 1, .on = { 2 } }, { .n = 0 } };
    static const sim_dep mdep[] = { { .n = 1, .on = { 1 } }, { .n = 0 } };
    if (scoreboard) {
        cp.dep = cdep;
        mp.dep = mdep;
    }
    const sim_device *preset = sim_preset_find("titanv-gpgpusim");
    if (!preset) { fprintf(stderr, "bench_warp: no titanv-gpgpusim preset\n"); return 1; }
    sim_device d = *preset;
    d.sms = sms;
    if (wpsm > 0) d.warps_per_sm = wpsm;
    if (fp32) d.fp32_rate = 0.5;          /* 16 FP32 lanes per sub-core */
    if (dram) {
        d.dram_sectors = 652e9 / 1.2e9 / 32;
        d.sm_port_sectors = 1;
        d.sm_mem_queue = 256;
    }
    if (l1) {
        d.l1_smem_kb = 96;
        d.l1_assoc = 4;
        d.latency_l1 = 28;
    }
    if (l2) {
        d.l2_kb = 4608;
        d.l2_assoc = 24;
        d.latency_l2 = 160;
    }
    sim_device_fill_order(&d);
    sim_stream ss[2] = { { .name = "S1", .priority = SIM_PRIO_NONE },
                         { .name = "S2", .priority = SIM_PRIO_NONE } };
    sim_op ops[2] = {
        { .kind = SIM_OP_KERNEL, .name = "compute", .stream = 0, .blocks = blocks,
          .threads = threads, .program = &cp },
        { .kind = SIM_OP_KERNEL, .name = "memory", .stream = 1, .blocks = blocks,
          .threads = threads, .program = &mp },
    };
    sim_config cfg = { .name = "bench_warp", .device = d, .streams = ss, .nstreams = 2,
                       .ops = ops, .nops = 2 };
    cfg.policy.execution = sim_policy_find(SIM_TABLE_EXECUTION, "warp");
    cfg.policy.warp = sim_policy_find(SIM_TABLE_WARP, policy);
    if (cfg.policy.warp < 0) { fprintf(stderr, "bench_warp: unknown policy %s\n", policy); return 2; }
    cfg.policy.warp_issue_limit = record ? 0 : -1;
    trace t;
    trace_init(&t);
    char err[256];
    double w0 = now_s(), c0 = cpu_s();
    int rc = sim_run(&cfg, &t, err, sizeof err);
    double w1 = now_s(), c1 = cpu_s();
    if (rc != 0) {
        fprintf(stderr, "bench_warp: %s\n", err);
        trace_free(&t);
        return 1;
    }
    int64_t ins = 0, end = 0;
    for (size_t k = 0; k < t.kernels.n; k++) {
        ins += t.kernels.v[k].instructions;
        if (t.kernels.v[k].end > end) end = t.kernels.v[k].end;
    }
    int32_t wps = (threads + d.warp_size - 1) / d.warp_size;
    int32_t per_sm = d.threads_per_sm / (wps * d.warp_size);
    if (per_sm > d.blocks_per_sm) per_sm = d.blocks_per_sm;
    if (per_sm > d.warps_per_sm / wps) per_sm = d.warps_per_sm / wps;
    printf("{\"bench\":\"warp\",\"scoreboard\":%s,\"mem\":\"%s\",\"policy\":\"%s\",\"sms\":%d,\"threads\":%d,"
           "\"warps_per_subcore\":%d,\"instructions\":%lld,\"cycles\":%lld,\"seconds\":%.4f,"
           "\"cpu_seconds\":%.4f,\"instr_per_s\":%.0f,\"instr_per_cpu_s\":%.0f,"
           "\"recorded_issues\":%zu,\"peak_rss_mb\":%.1f}\n",
           scoreboard ? "true" : "false", mem, policy, (int)sms, (int)threads, (int)(per_sm * wps / d.schedulers_per_sm),
           (long long)ins, (long long)(end * d.clock_hz / 1000000000), w1 - w0, c1 - c0,
           (double)ins / (w1 - w0), (double)ins / (c1 - c0), t.warp_issues.n, peak_rss_mb());
    trace_free(&t);
    return 0;
}
