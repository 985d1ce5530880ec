/* presets.c -- named devices, each number with the place it comes from.
 *
 * The tables are static const data (simcore has no mutable globals), so the
 * tie-break orders are written out in full by the macros below; the unit
 * test checks that each equals what sim_device_fill_order derives.
 *
 * Sources, cited per field below:
 *   [TX2]   Amert et al., "GPU Scheduling on the NVIDIA TX2: Hidden Details
 *           Revealed", RTSS'17 (../shared/papers/tx2-gpu-scheduling-rules-rtss17.txt)
 *   [MR]    Gilman et al., most-room thread block placement, Table 2 and §4.3
 *           (../shared/papers/most-room-thread-block-placement.txt)
 *   [QAWS]  QoS-aware warp scheduling, Table Ia (GPGPU-Sim TITAN V setup)
 *   [ISCA]  fine-grained QoS quota sharing, ISCA'17, Table 1
 *   [GS]    GPGPU-Sim 4.x, configs/tested-cfgs/SM7_TITANV/gpgpusim.config
 *           (github.com/gpgpu-sim/gpgpu-sim_distribution), the configuration
 *           the QAWS paper ran (its Table Ia); [GS7], [GS75]: the same folder's
 *           SM7_QV100 (Volta) and SM75_RTX2060 (Turing) configs; [GS6]:
 *           configs/3.x-cfgs/SM6_GTX1080 (Pascal GP102), for the warp
 *           model's latencies, pipes and MSHRs
 *   [CCT]   NVIDIA CUDA C++ Programming Guide, table "Technical
 *           Specifications per Compute Capability"
 *   [PCIe]  PCI-SIG: PCIe 3.0 x16 = 8 GT/s x 16 lanes x 128b/130b = 15.75 GB/s,
 *           PCIe 5.0 x16 = 63.0 GB/s per direction
 *   [WP]    NVIDIA whitepapers: GeForce GTX 1080 (32 FP32 lanes per SM
 *           processing block, 320 GB/s), Tesla V100 / Volta (16 FP32 lanes
 *           per processing block, 900 GB/s), Turing (16 FP32 lanes per
 *           processing block; RTX 2080 Ti 616 GB/s)
 *   data sheets: NVIDIA Jetson TX2 / Xavier NX / Orin Nano module data
 *           sheets, GeForce GTX 1080 / RTX 2080 Ti / TITAN V product pages,
 *           Tesla V100 and H100 whitepapers. */
#include "device.h"

#include <string.h>

/* ascending runs b, b+1, ... */
#define A4(b) (b), (b) + 1, (b) + 2, (b) + 3
#define A8(b) A4(b), A4((b) + 4)
#define A16(b) A8(b), A8((b) + 8)
#define A32(b) A16(b), A16((b) + 16)
#define A64(b) A32(b), A32((b) + 32)
#define A128(b) A64(b), A64((b) + 64)
/* stride-two runs b, b+2, ... */
#define E4(b) (b), (b) + 2, (b) + 4, (b) + 6
#define E8(b) E4(b), E4((b) + 8)
#define E16(b) E8(b), E8((b) + 16)
#define E32(b) E16(b), E16((b) + 32)

#define KB 1024LL
#define GB 1e9

/* The warp model's memory system and pipes (docs/memory.md) on the three
 * GPUs of most-room Tables 1, 3 and 4: every field that all four of the
 * paper's kernels run with (their scenarios, most-room-table*-*.json, add
 * only what one kernel needs). A DRAM bandwidth in 32-byte sectors per SM
 * cycle is the data sheet's bytes per second / the preset's clock / 32.
 * What stays in a scenario: the L1 (its associativity is not published;
 * the scenarios assume one), the L2 (measured, not shipped for Table 1:
 * docs/memory.md) and unified memory (its fault latency is calibrated). */
#define WARP_MODEL(alu, sfu, shared, mem, fp32, dram, mshrs)                   \
    .latency_alu = (alu), .latency_sfu = (sfu), .latency_shared = (shared),   \
    .latency_mem = (mem), .fp32_rate = (fp32), .dram_sectors = (dram),        \
    .sm_mem_queue = (mshrs),                                                  \
    .sm_port_sectors = 1 /* GPGPU-Sim: one 32-byte sector (a 40-byte flit) */ \
                         /* a cycle into each SM                          */

/* [ISCA] Table 1: the GPGPU-Sim setup that isca17-gpgpusim is and that
 * §4.6's 56-SM device keeps ("Other simulation parameters are the same as
 * the ones in Table 1"); each device adds its name, SM count, schedulers and
 * SM order. */
#define ISCA17_TABLE1                                                          \
    .threads_per_sm = 2048,        /* [ISCA] Table 1: Threads 2048 */          \
    .max_threads_per_block = 1024, /* [CCT] 5.x-6.x */                         \
    .blocks_per_sm = 32,           /* [ISCA] Table 1: TB Limit 32 */           \
    .warps_per_sm = 64,            /* [ISCA] Table 1: 2048 threads / 32 */     \
    .regs_per_sm = 65536,          /* [ISCA] Table 1: 256KB = 65536 x 4 B */   \
    .max_regs_per_block = 65536,   /* [CCT] 5.x-6.x */                         \
    .smem_per_sm = 96 * KB,        /* [ISCA] Table 1: Shared Memory 96KB */    \
    .max_smem_per_block = 48 * KB, /* [CCT] 5.x-6.x */                         \
    .warp_size = 32,                                                           \
    .copy_engines = 2,             /* not modelled by the paper; discrete */   \
    .copy_bandwidth = 15.75 * GB,  /* [PCIe] 3.0 x16 (not in the paper) */     \
    .clock_hz = 1216000000,        /* [ISCA] Table 1: Core Freq. 1216MHz */    \
    /* [ISCA] Table 1: 4 memory controllers at 7 GHz (GDDR5 data rate);     */ \
    /* assuming a 64-bit channel per controller (the GTX 980's 256-bit      */ \
    /* bus) = 224 GB/s = 184 bytes per 1216-MHz cycle = 1.44 128-byte       */ \
    /* warp requests per cycle                                              */ \
    .mem_bandwidth = 1.44,                                                     \
    /* the paper gives no latencies: GPGPU-Sim's own ([GS], SM7_TITANV)    */ \
    .latency_alu = 4,                                                          \
    .latency_sfu = 100,                                                        \
    .latency_shared = 20,                                                      \
    .latency_mem = 260,                                                        \
    /* [GS] shader_core_ctx::fetch / decode: one warp per SM and cycle      */ \
    /* (gpgpu_inst_fetch_throughput 1), two instructions into its buffer    */ \
    /* (shd_warp_t::IBUFFER_SIZE 2), refilled when empty                    */ \
    .fetch_warps = 1,                                                          \
    .ibuffer = 2,                                                              \
    /* [GS] config_fermi_islip.icnt: flit_size 32, output_speedup 1: one    */ \
    /* 32-byte flit a cycle into each SM, a 128-byte reply and its 8-byte   */ \
    /* header (READ_PACKET_SIZE) in 5                                       */ \
    .sm_mem_bandwidth = 0.2,                                                   \
    .sm_order_kind = SIM_SM_ORDER_ASCENDING

typedef struct preset {
    sim_device dev;
    const char *source;
} preset;

static const preset presets[] = {
    {
        .dev = {
            .name = "tx2",
            .sms = 2,                      /* [TX2] §2.1: two SMs */
            .threads_per_sm = 2048,        /* [TX2] §3.2 R2 */
            .max_threads_per_block = 1024, /* [TX2] §3.2 R2 */
            .blocks_per_sm = 32,           /* [CCT] compute capability 6.2 */
            .warps_per_sm = 64,            /* [CCT] compute capability 6.2 */
            .regs_per_sm = 65536,          /* [TX2] §3.2 register resources */
            .max_regs_per_block = 32768,   /* [TX2] §3.2 register resources */
            .smem_per_sm = 64 * KB,        /* [TX2] §3.2 R3 */
            .max_smem_per_block = 48 * KB, /* [TX2] §3.2 R3 */
            .warp_size = 32,               /* [TX2] §2.2 */
            .schedulers_per_sm = 4,        /* [TX2] §2.2: four warp schedulers per SM */
            .copy_engines = 1,             /* [TX2] §2.2: the TX2 has only one CE */
            .copy_bandwidth = 59.7 * GB,   /* Jetson TX2 data sheet: 128-bit LPDDR4, 59.7 GB/s */
            .clock_hz = 1300000000,        /* [TX2] §2.1: 1.3-GHz cores */
            .sm_order_kind = SIM_SM_ORDER_ASCENDING, /* Pascal: [MR] §4.3 */
            .sm_order = { 0, 1 },
            .greatest_priority = -1,       /* [TX2] §4.2: priorities -1 and 0 only */
        },
        .source = "Amert et al., RTSS'17 (TX2 paper) §2.1-§4.2; blocks/warps per SM: CUDA "
                  "Programming Guide, compute capability 6.2; copy bandwidth: Jetson TX2 "
                  "data sheet (59.7 GB/s LPDDR4)",
    },
    {
        .dev = {
            .name = "pascal-gilman",
            .sms = 5,                      /* [MR] Table 2, GeForce GTX 1080 row */
            .threads_per_sm = 2048,        /* [MR] Table 2 */
            .max_threads_per_block = 1024, /* [MR] Table 2 */
            .blocks_per_sm = 32,           /* [MR] Table 2 */
            .warps_per_sm = 64,            /* [MR] Table 2 */
            .regs_per_sm = 65536,          /* [CCT] 6.0 */
            .max_regs_per_block = 65536,   /* [CCT] 6.0 */
            .smem_per_sm = 64 * KB,        /* [CCT] 6.0 (the CC Table 2 gives) */
            .max_smem_per_block = 48 * KB, /* [CCT] 6.0 */
            .warp_size = 32,
            .schedulers_per_sm = 4,        /* GTX 1080 whitepaper: 4 warp schedulers per SM */
            .copy_engines = 2,             /* discrete GPU: one engine per direction */
            .copy_bandwidth = 15.75 * GB,  /* [PCIe] 3.0 x16 */
            .clock_hz = 1733000000,        /* GTX 1080 product page: 1733 MHz boost */
            /* [GS6]: ALU 4 (ptx_opcode_latency_fp), memory 220 (rop_latency 120
             * + dram_latency 100), 128 L1 MSHRs (dl1 64:128:6,...,A:128:8);
             * SFU 100 and shared 20 as on Turing ([GS75]: the Pascal config
             * gives neither); fp32 1 a cycle ([WP]: 32 FP32 lanes per
             * processing block; [GS6] initiation 1); 320 GB/s ([WP]) */
            WARP_MODEL(4, 100, 20, 220, 1, 5.77, 128),
            .sm_order_kind = SIM_SM_ORDER_ASCENDING, /* [MR] §4.3: 0, 1, 2, 3, 4 */
            .sm_order = { A4(0), 4 },
        },
        .source = "Gilman et al. (most-room paper) Table 2, GTX 1080 row: 5 SMs, 2048 threads/SM, "
                  "1024/block, 32 blocks/SM, 64 warps/SM; §4.3 ascending order; registers and "
                  "shared memory: CUDA Programming Guide, compute capability 6.0; PCIe 3.0 x16; "
                  "warp model: GPGPU-Sim 3.x SM6_GTX1080 config (ALU 4, memory 120 + 100 "
                  "cycles, 128 L1 MSHRs), 32 FP32 lanes per sub-core and 320 GB/s (GTX 1080 "
                  "whitepaper)",
    },
    {
        .dev = {
            .name = "v100",
            .sms = 80,                     /* [MR] Table 2, Tesla V100 row */
            .threads_per_sm = 2048,        /* [MR] Table 2 */
            .max_threads_per_block = 1024, /* [MR] Table 2 */
            .blocks_per_sm = 32,           /* [MR] Table 2 */
            .warps_per_sm = 64,            /* [MR] Table 2 */
            .regs_per_sm = 65536,          /* [CCT] 7.0 */
            .max_regs_per_block = 65536,   /* [CCT] 7.0 */
            .smem_per_sm = 96 * KB,        /* [CCT] 7.0 */
            .max_smem_per_block = 96 * KB, /* [CCT] 7.0 (opt-in maximum) */
            .warp_size = 32,
            .schedulers_per_sm = 4,        /* Volta whitepaper: 4 processing blocks per SM */
            .copy_engines = 2,
            .copy_bandwidth = 15.75 * GB,  /* [PCIe] 3.0 x16 (V100 PCIe) */
            .clock_hz = 1530000000,        /* Volta whitepaper: V100 SXM2 boost 1530 MHz */
            /* [GS7]: ALU 4, SFU 100, shared 20, memory 260 (gpgpu_l2_rop_latency
             * 160 + dram_latency 100), fp32 0.5 a cycle (initiation 2; [WP]:
             * 16 FP32 lanes per processing block); 256 L1 MSHRs (A:256 in
             * the config's earlier versions, A:512 in its current one);
             * 900 GB/s ([WP]) */
            WARP_MODEL(4, 100, 20, 260, 0.5, 18.38, 256),
            /* [MR] §4.3 reports no order for Volta; ascending as on Pascal */
            .sm_order_kind = SIM_SM_ORDER_ASCENDING,
            .sm_order = { A64(0), A16(64) },
        },
        .source = "Gilman et al. (most-room paper) Table 2, Tesla V100 row: 80 SMs, 2048 "
                  "threads/SM, 1024/block, 32 blocks/SM, 64 warps/SM; registers and shared "
                  "memory: CUDA Programming Guide, compute capability 7.0; clock: Volta "
                  "whitepaper; PCIe 3.0 x16; warp model: GPGPU-Sim SM7_QV100 config (ALU 4, "
                  "SFU 100, shared 20, memory 160 + 100 cycles, fp32 initiation 2, 256 L1 "
                  "MSHRs), 900 GB/s (Volta whitepaper)",
    },
    {
        .dev = {
            .name = "rtx2080ti",
            .sms = 68,                     /* [MR] Table 2, RTX 2080 Ti row */
            .threads_per_sm = 1024,        /* [MR] Table 2 */
            .max_threads_per_block = 1024, /* [MR] Table 2 */
            .blocks_per_sm = 16,           /* [MR] Table 2 */
            .warps_per_sm = 32,            /* [MR] Table 2 */
            .regs_per_sm = 65536,          /* [CCT] 7.5 */
            .max_regs_per_block = 65536,   /* [CCT] 7.5 */
            .smem_per_sm = 64 * KB,        /* [CCT] 7.5 */
            .max_smem_per_block = 64 * KB, /* [CCT] 7.5 (opt-in maximum) */
            .warp_size = 32,
            .schedulers_per_sm = 4,        /* Turing whitepaper: 4 processing blocks per SM */
            .copy_engines = 2,
            .copy_bandwidth = 15.75 * GB,  /* [PCIe] 3.0 x16 */
            .clock_hz = 1545000000,        /* RTX 2080 Ti product page: 1545 MHz boost */
            /* [GS75]: ALU 4, SFU 100, shared 20, memory 260 (gpgpu_l2_rop_latency
             * 160 + dram_latency 100), fp32 0.5 a cycle (initiation 2; [WP]:
             * 16 FP32 lanes per processing block), 256 L1 MSHRs (dl1
             * ...,A:256:8); 616 GB/s ([WP]) */
            WARP_MODEL(4, 100, 20, 260, 0.5, 12.46, 256),
            .sm_order_kind = SIM_SM_ORDER_EVENS_THEN_ODDS, /* [MR] §4.3 */
            .sm_order = { E32(0), 64, 66, E32(1), 65, 67 },
        },
        .source = "Gilman et al. (most-room paper) Table 2, RTX 2080 Ti row: 68 SMs, 1024 "
                  "threads/SM, 1024/block, 16 blocks/SM, 32 warps/SM; §4.3 evens-then-odds "
                  "order; registers and shared memory: CUDA Programming Guide, compute "
                  "capability 7.5; PCIe 3.0 x16; warp model: GPGPU-Sim SM75_RTX2060 config "
                  "(ALU 4, SFU 100, shared 20, memory 160 + 100 cycles, fp32 initiation 2, "
                  "256 L1 MSHRs), 616 GB/s (RTX 2080 Ti product page)",
    },
    {
        .dev = {
            .name = "titanv-gpgpusim",
            .sms = 80,                     /* [QAWS] Table Ia: 40 clusters x 2 SMs */
            .threads_per_sm = 2048,        /* GPGPU-Sim SM7_TITANV config: shader_core_pipeline 2048:32 */
            .max_threads_per_block = 1024, /* [CCT] 7.0 */
            .blocks_per_sm = 32,           /* SM7_TITANV config: gpgpu_shader_cta 32 */
            .warps_per_sm = 64,            /* SM7_TITANV config: 2048 threads / 32 */
            .regs_per_sm = 65536,          /* SM7_TITANV config: gpgpu_shader_registers */
            .max_regs_per_block = 65536,   /* SM7_TITANV config: gpgpu_registers_per_block */
            .smem_per_sm = 96 * KB,        /* SM7_TITANV config: gpgpu_shmem_size 98304 */
            .max_smem_per_block = 64 * KB, /* SM7_TITANV config: gpgpu_shmem_per_block 65536 */
            .warp_size = 32,
            .schedulers_per_sm = 4,        /* [QAWS] Table Ia */
            .copy_engines = 2,
            .copy_bandwidth = 15.75 * GB,  /* [PCIe] 3.0 x16 (TITAN V) */
            .clock_hz = 1200000000,        /* SM7_TITANV config: gpgpu_clock_domains 1200 MHz */
            /* [GS] 24 channels (gpgpu_n_mem 24) x 16-byte bus (gpgpu_dram_buswidth)
             * x 2 (dram_data_command_freq_ratio, HBM is DDR) x 850 MHz DRAM clock
             * = 652.8 GB/s (the TITAN V's data-sheet figure) = 544 bytes per
             * 1200-MHz core cycle = 4.25 128-byte warp requests per cycle */
            .mem_bandwidth = 4.25,
            .latency_alu = 4,              /* [GS] ptx_opcode_latency_int / _fp: 4 */
            .latency_sfu = 100,            /* [GS] ptx_opcode_latency_sfu 100 */
            .latency_shared = 20,          /* [GS] gpgpu_smem_latency 20 */
            .latency_mem = 260,            /* [GS] gpgpu_l2_rop_latency 160 + dram_latency 100 */
            .sm_order_kind = SIM_SM_ORDER_ASCENDING,
            .sm_order = { A64(0), A16(64) },
        },
        .source = "QAWS paper Table Ia (GPGPU-Sim TITAN V: 80 SMs, 4 schedulers/SM) and "
                  "GPGPU-Sim's SM7_TITANV gpgpusim.config (2048 threads, 32 CTAs, 65536 "
                  "registers, 96KB shared memory/SM, 64KB/block, 1200 MHz; latencies ALU 4, SFU 100, shared "
                  "20, memory 160 + 100 cycles; 24 x 16-byte HBM2 channels at 850 MHz DDR = "
                  "652.8 GB/s = 4.25 128-byte requests per cycle); PCIe 3.0 x16",
    },
    {
        .dev = {
            .name = "isca17-gpgpusim",
            .sms = 16,                     /* [ISCA] Table 1: # of SMs 16 */
            .schedulers_per_sm = 4,        /* [ISCA] Table 1: Warp Scheduler 4 */
            ISCA17_TABLE1,
            .sm_order = { A16(0) },
        },
        .source = "Fine-grained QoS quota sharing, ISCA'17, Table 1 (GPGPU-Sim: 16 SMs, 1216 "
                  "MHz, 256KB registers, 96KB shared memory, 2048 threads, 32 TBs, 4 warp "
                  "schedulers; 4 memory controllers at 7 GHz, taken as 64-bit each: 224 GB/s = 1.44 "
                  "128-byte requests per cycle); GPGPU-Sim's front end (one warp fetched per SM "
                  "and cycle, 2 instructions into its buffer) and interconnect (one 32-byte flit a "
                  "cycle into each SM: 0.2 replies of 128 + 8 bytes); latencies: GPGPU-Sim's "
                  "SM7_TITANV config; "
                  "per-block limits: CUDA Programming Guide; copies: PCIe 3.0 x16 (not "
                  "modelled by the paper)",
    },
    {
        /* [ISCA] §4.6 "Scalability with Number of SMs" (Figs. 12-13): "we
         * simulate a GPU with 56 SMs, each SM having two warp schedulers.
         * Other simulation parameters are the same as the ones in Table 1."
         * So isca17-gpgpusim with those two fields changed; the memory
         * system (Table 1: 4 memory controllers) and the SM's front end and
         * port are the same. */
        .dev = {
            .name = "isca17-gpgpusim-56",
            .sms = 56,                     /* [ISCA] §4.6: 56 SMs */
            .schedulers_per_sm = 2,        /* [ISCA] §4.6: "each SM having two warp schedulers" */
            ISCA17_TABLE1,
            .sm_order = { A32(0), A16(32), A8(48) },
        },
        .source = "Fine-grained QoS quota sharing, ISCA'17, §4.6 (Figs. 12-13): 56 SMs with "
                  "two warp schedulers each, every other parameter as Table 1 "
                  "(isca17-gpgpusim: 1216 MHz, 256KB registers, 96KB shared memory, 2048 "
                  "threads, 32 TBs per SM; 4 memory controllers at 7 GHz = 1.44 128-byte "
                  "requests per cycle; GPGPU-Sim's front end and interconnect; GPGPU-Sim's "
                  "latencies)",
    },
    {
        .dev = {
            .name = "xavier-nx",
            .sms = 6,                      /* Xavier NX data sheet: 384-core Volta GPU = 6 x 64 */
            .threads_per_sm = 2048,        /* [CCT] 7.2 */
            .max_threads_per_block = 1024, /* [CCT] 7.2 */
            .blocks_per_sm = 32,           /* [CCT] 7.2 */
            .warps_per_sm = 64,            /* [CCT] 7.2 */
            .regs_per_sm = 65536,          /* [CCT] 7.2 */
            .max_regs_per_block = 65536,   /* [CCT] 7.2 */
            .smem_per_sm = 96 * KB,        /* [CCT] 7.2 */
            .max_smem_per_block = 96 * KB, /* [CCT] 7.2 (opt-in maximum) */
            .warp_size = 32,
            .schedulers_per_sm = 4,        /* Volta SM: 4 processing blocks */
            .copy_engines = 1,             /* integrated GPU, as the TX2 ([TX2] §2.2) */
            .copy_bandwidth = 59.7 * GB,   /* Xavier NX data sheet: 128-bit LPDDR4x, 59.7 GB/s */
            .clock_hz = 1100000000,        /* Xavier NX data sheet: GPU max 1100 MHz */
            .sm_order_kind = SIM_SM_ORDER_ASCENDING,
            .sm_order = { A4(0), 4, 5 },
        },
        .source = "Jetson Xavier NX data sheet (384-core Volta GPU = 6 SMs, 1100 MHz, 59.7 GB/s "
                  "LPDDR4x); limits: CUDA Programming Guide, compute capability 7.2; one copy "
                  "engine as on the TX2 (RTSS'17 §2.2)",
    },
    {
        .dev = {
            .name = "orin-nano",
            .sms = 8,                      /* Orin Nano 8GB data sheet: 1024-core Ampere = 8 x 128 */
            .threads_per_sm = 1536,        /* [CCT] 8.7 */
            .max_threads_per_block = 1024, /* [CCT] 8.7 */
            .blocks_per_sm = 16,           /* [CCT] 8.7 */
            .warps_per_sm = 48,            /* [CCT] 8.7 */
            .regs_per_sm = 65536,          /* [CCT] 8.7 */
            .max_regs_per_block = 65536,   /* [CCT] 8.7 */
            .smem_per_sm = 164 * KB,       /* [CCT] 8.7 */
            .max_smem_per_block = 163 * KB,/* [CCT] 8.7 (opt-in maximum) */
            .warp_size = 32,
            .schedulers_per_sm = 4,        /* Ampere SM: 4 processing blocks */
            .copy_engines = 1,             /* integrated GPU, as the TX2 ([TX2] §2.2) */
            .copy_bandwidth = 68 * GB,     /* Orin Nano 8GB data sheet: 128-bit LPDDR5, 68 GB/s */
            .clock_hz = 625000000,         /* Orin Nano 8GB data sheet: GPU max 625 MHz */
            .sm_order_kind = SIM_SM_ORDER_ASCENDING,
            .sm_order = { A8(0) },
        },
        .source = "Jetson Orin Nano 8GB data sheet (1024-core Ampere GPU = 8 SMs, 625 MHz, "
                  "68 GB/s LPDDR5); limits: CUDA Programming Guide, compute capability 8.7; one "
                  "copy engine as on the TX2 (RTSS'17 §2.2)",
    },
    {
        .dev = {
            .name = "h100",
            .sms = 132,                    /* H100 whitepaper: H100 SXM5 has 132 SMs */
            .threads_per_sm = 2048,        /* [CCT] 9.0 */
            .max_threads_per_block = 1024, /* [CCT] 9.0 */
            .blocks_per_sm = 32,           /* [CCT] 9.0 */
            .warps_per_sm = 64,            /* [CCT] 9.0 */
            .regs_per_sm = 65536,          /* [CCT] 9.0 */
            .max_regs_per_block = 65536,   /* [CCT] 9.0 */
            .smem_per_sm = 228 * KB,       /* [CCT] 9.0 */
            .max_smem_per_block = 227 * KB,/* [CCT] 9.0 (opt-in maximum) */
            .warp_size = 32,
            .schedulers_per_sm = 4,        /* H100 whitepaper: 4 processing blocks per SM */
            .copy_engines = 2,
            /* measured: pinned cudaMemcpyAsync of 256 MiB, h2d 55.16-55.25 GB/s,
             * d2h 55.11-55.17 GB/s (tests/fixtures/h100/probe.txt) */
            .copy_bandwidth = 55.2 * GB,
            .clock_hz = 1980000000,        /* H100 SXM5 data sheet: 1980 MHz max boost */
            /* measured: cudaDeviceGetStreamPriorityRange "least 0 greatest -5"
             * (tests/fixtures/h100/probe.txt; the H200 the same,
             * tests/fixtures/h200/probe.txt): six levels, others clamped */
            .greatest_priority = -5,
            /* measured: the SMs that blocks 0..131 of a kernel with one block
             * per SM (132 x 1024 threads, 200KB shared memory) start on, on an
             * idle H100 SXM5, identical in 10 runs over two machine sessions
             * (tests/fixtures/h100/h100-sm-order-r*.csv): SMs 124-131 first,
             * then pairs (TPCs) striding by 16. Used as most-room's tie-break
             * order (most-room paper §4.3: the order in which empty SMs are
             * filled). Kernels with 2 blocks per SM start in another order
             * there (README, "H100 recordings"). */
            .sm_order_kind = SIM_SM_ORDER_EXPLICIT,
            .sm_order = { 124, 125, 126, 127, 128, 129, 130, 131, 0, 1, 16, 17, 32, 33, 48, 49,
                          2, 3, 18, 19, 34, 35, 50, 51, 64, 65, 78, 79, 92, 93, 106, 107,
                          4, 5, 20, 21, 36, 37, 52, 53, 66, 67, 80, 81, 94, 95, 108, 109,
                          6, 7, 22, 23, 38, 39, 54, 55, 68, 69, 82, 83, 96, 97, 110, 111,
                          8, 9, 24, 25, 40, 41, 56, 57, 70, 71, 84, 85, 98, 99, 112, 113,
                          10, 11, 26, 27, 42, 43, 58, 59, 72, 73, 86, 87, 100, 101, 114, 115,
                          12, 13, 28, 29, 44, 45, 60, 61, 74, 75, 88, 89, 102, 103, 116, 117,
                          120, 121, 14, 15, 30, 31, 46, 47, 62, 63, 76, 77, 90, 91, 104, 105,
                          118, 119, 122, 123 },
            /* CUDA Programming Guide, compute capability 9.0: "the shared
             * memory capacity can be set to 0, 8, 16, 32, 64, 100, 132, 164,
             * 196 or 228 KB" and 1 KB of shared memory is reserved per block
             * (measured too: reservedSharedMemoryPerBlock 1024,
             * tests/fixtures/h100/probe.txt). How an SM picks one: H100-C1
             * (carveout.h, measured: tests/fixtures/h100/h100-smem-carveout-r1.csv
             * and c1-*.csv). */
            .nsmem_carveouts = 10,
            .smem_carveouts_kb = { 0, 8, 16, 32, 64, 100, 132, 164, 196, 228 },
            .smem_reserved_per_block = KB,
            /* measured (H100-W1, sms.h): the SMs a grid of n < 132 blocks
             * runs on are the first n of this order, on an idle H200 in 23
             * runs of 44, 66, 88 and 110 blocks (tests/fixtures/h200/tp-*.csv,
             * so-b-*.csv): the TPCs 124/125 .. 130/131 whole, then the first
             * SM of every other TPC (pairs 2i, 2i + 1: the even SMs 0-122),
             * then the second ones (the odd SMs 1-123): one SM per TPC
             * first, the evens-then-odds order the most-room paper found on
             * Turing (§4.3). Past 110 blocks (odd SMs past 79) the order is
             * read from that structure, not measured. */
            .nwave_order = 132,
            .wave_order = { 124, 125, 126, 127, 128, 129, 130, 131, 0, 2, 4, 6, 8, 10, 12, 14,
                            16, 18, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 42, 44, 46,
                            48, 50, 52, 54, 56, 58, 60, 62, 64, 66, 68, 70, 72, 74, 76, 78,
                            80, 82, 84, 86, 88, 90, 92, 94, 96, 98, 100, 102, 104, 106, 108, 110,
                            112, 114, 116, 118, 120, 122, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19,
                            21, 23, 25, 27, 29, 31, 33, 35, 37, 39, 41, 43, 45, 47, 49, 51,
                            53, 55, 57, 59, 61, 63, 65, 67, 69, 71, 73, 75, 77, 79, 81, 83,
                            85, 87, 89, 91, 93, 95, 97, 99, 101, 103, 105, 107, 109, 111, 113, 115,
                            117, 119, 121, 123 },
        },
        .source = "NVIDIA H100 Tensor Core GPU whitepaper / data sheet (H100 SXM5: 132 SMs, "
                  "1980 MHz); limits: CUDA Programming Guide, compute capability 9.0 (2048 "
                  "threads, 32 blocks, 64 warps, 65536 registers, 228KB shared memory per SM); "
                  "SM order and copy bandwidth measured on an H100 80GB HBM3 (driver "
                  "580.159.04, CUDA 13.0) with tools/recorder's schedlab-play: "
                  "tests/fixtures/h100/h100-sm-order-r1.csv, tests/fixtures/h100/probe.txt",
    },
};

#define NPRESETS (sizeof presets / sizeof presets[0])

size_t sim_preset_count(void) {
    return NPRESETS;
}

const sim_device *sim_preset_at(size_t i) {
    return i < NPRESETS ? &presets[i].dev : NULL;
}

const char *sim_preset_source(size_t i) {
    return i < NPRESETS ? presets[i].source : NULL;
}

const sim_device *sim_preset_find(const char *name) {
    if (!name) return NULL;
    for (size_t i = 0; i < NPRESETS; i++)
        if (strcmp(presets[i].dev.name, name) == 0) return &presets[i].dev;
    return NULL;
}
