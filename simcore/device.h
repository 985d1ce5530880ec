/* device.h -- the GPU device model: resources per SM, copy engines, clock,
 * and the block scheduler's SM tie-break order.
 *
 * A sim_device is a plain value (no pointers) so it can be copied freely,
 * embedded in a trace and overridden field by field from a scenario.
 * Unknown fields are 0 (an importer that only knows the SM count fills just
 * `name` and `sms`). */
#ifndef SIMCORE_DEVICE_H
#define SIMCORE_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#define SIM_MAX_SMS 256          /* H100 has 132; leaves room for what comes */
#define SIM_DEVICE_NAME_MAX 64
#define SIM_MAX_CARVEOUTS 16     /* CC 9.0 has 10 */

typedef enum sim_sm_order_kind {
    SIM_SM_ORDER_ASCENDING = 0,  /* 0, 1, 2, ... (Pascal, most-room §4.3) */
    SIM_SM_ORDER_EVENS_THEN_ODDS,/* 0, 2, ..., 1, 3, ... (Turing, most-room §4.3) */
    SIM_SM_ORDER_EXPLICIT        /* sm_order[] as given */
} sim_sm_order_kind;

typedef struct sim_device {
    char name[SIM_DEVICE_NAME_MAX];
    int32_t sms;
    int32_t threads_per_sm;
    int32_t max_threads_per_block;
    int32_t blocks_per_sm;
    int32_t warps_per_sm;
    int64_t regs_per_sm;
    int64_t max_regs_per_block;
    int64_t smem_per_sm;          /* bytes */
    int64_t max_smem_per_block;   /* bytes */
    int32_t warp_size;
    int32_t schedulers_per_sm;    /* sub-cores (warp schedulers) per SM */
    int32_t copy_engines;         /* 1: one CE for both directions; 2: h2d + d2h */
    double copy_bandwidth;        /* bytes per second */
    int64_t clock_hz;             /* SM clock; 0 = unknown ("cycles" units need it) */
    /* the warp-level model (exec_warp.c); 0 = unknown, then a program that
     * needs the value must give it (a kernel op's "latency") */
    double mem_bandwidth;         /* warp memory requests served per cycle, all SMs */
    double sm_mem_bandwidth;      /* ... that one SM's port passes per cycle; 0 = no limit */
    int32_t latency_alu;          /* cycles until a warp may issue after an ALU instruction */
    int32_t latency_sfu;          /* ... after a special-function-unit instruction */
    int32_t latency_shared;       /* ... after a shared-memory access */
    int32_t latency_mem;          /* ... after a global-memory access, unloaded */
    int32_t fetch_warps;          /* warps an SM's front end fetches for per cycle; 0 = not modelled */
    int32_t ibuffer;              /* instructions one fetch decodes into a warp's buffer */
    /* the memory system and functional units (exec_warp.c, docs/memory.md);
     * 0 = not modelled, today's behaviour */
    double fp32_rate;             /* fp32 warp instructions one sub-core starts per cycle */
    double dram_sectors;          /* 32-byte sectors DRAM serves per cycle, all SMs; > 0 turns
                                     the sectored memory system on */
    double sm_port_sectors;       /* sectors one SM's interconnect port passes per cycle */
    int32_t sm_mem_queue;         /* sectors an SM holds outstanding (MSHRs, write buffer) */
    int32_t l1_smem_kb;           /* KB of L1 + shared memory per SM; 0 = no L1 modelled */
    int32_t l1_assoc;             /* ways of a set of the L1 (128-byte lines, 4 sectors) */
    int32_t latency_l1;           /* cycles after a load that hits the L1 in every sector */
    int32_t l2_kb;                /* KB of L2, the whole GPU; 0 = no L2 modelled */
    int32_t l2_assoc;             /* ways of a set of the L2 (128-byte lines, 4 sectors) */
    int32_t latency_l2;           /* cycles after a load whose L1 misses all hit the L2 */
    int32_t uvm_page_kb;          /* KB a managed-memory fault migrates; 0 = not modelled */
    int32_t uvm_fault_latency;    /* cycles from a fault to its page, at least */
    int32_t sm_faults;            /* faults one SM has outstanding; 0 = no limit */
    int32_t copies_in_flight;     /* copies one copy engine runs at once; 0 = one (ce.h) */
    int32_t mem_admission;        /* who enters a full memory queue first: 0 the warp
                                     scheduler's pick, 1 the warps in arrival order */
    double l1_sectors;            /* sectors an SM's L1 serves per cycle, all its warps
                                     together; 0 = no limit */
    int32_t ldst_queue;           /* memory instructions a sub-core holds issued and not yet
                                     taken by its SM's L1; 0 = no limit */
    int32_t dram_share;           /* which SMs share DRAM equally: 0 those with memory warps,
                                     1 those with sectors waiting (exec_warp.c) */
    sim_sm_order_kind sm_order_kind;
    int16_t sm_order[SIM_MAX_SMS];/* the tie-break order, always filled for sms entries */
    /* The L1 / shared memory splits (carveouts) an SM can be configured
     * to, ascending, in KB, and the shared memory reserved per block that
     * uses any (carveout.h: H100-C1, measured). A preset field only: not in
     * SIM_DEVICE_FIELDS, so no scenario key, trace JSON or db column; a
     * device with none (every device but the h100 preset) has no such
     * rule. */
    int32_t nsmem_carveouts;
    int32_t smem_carveouts_kb[SIM_MAX_CARVEOUTS];
    int64_t smem_reserved_per_block; /* bytes */
    /* The order in which an idle GPU's SMs take a grid of fewer blocks than
     * it has SMs (H100-W1, sms.h, measured): a grid of n such blocks runs on
     * the first n SMs of this order, its blocks going to them in sm_order.
     * A preset field only, as the carveouts are; nwave_order 0 (every
     * device but the h100 preset): no such rule, most-room's tie-break is
     * sm_order alone. */
    int32_t nwave_order;
    int16_t wave_order[SIM_MAX_SMS];
    /* The greatest (numerically least) stream priority the device has,
     * cudaDeviceGetStreamPriorityRange's greatestPriority; its least is 0.
     * A stream priority outside [greatest_priority, 0] is clamped to the
     * nearer end, as CUDA clamps it (CUDA Runtime API,
     * cudaStreamCreateWithPriority): on the TX2 (-1; TX2 paper §4.2: "only
     * two priority values") -2 is -1 and 5 is 0. A preset field only, as
     * the carveouts are; 0 (every device but the presets that give it): the
     * range is unknown and priorities are taken as given (sim.h). */
    int32_t greatest_priority;
} sim_device;

/* Every numeric field of sim_device, declared once (as Redis declares its
 * configuration in one static_configs[] table). Scenario parsing, the trace
 * JSON reader and writer, the database's devices table and /api/presets all
 * walk this list, so a new device field is one line here (plus its column in
 * a db migration). `name` and `sm_order` are not numbers and are handled
 * where they are read.
 *
 *   X(field, type, kind, key, required, doc)
 *     field    the struct member, and the column of the devices table
 *     type     its C type: int32_t, int64_t or double
 *     kind     how scenarios write it: SIM_DF_COUNT (a plain integer),
 *              SIM_DF_SIZE (bytes, "48KiB"), SIM_DF_BANDWIDTH (bytes per
 *              second, "25.6GB/s"), SIM_DF_FREQUENCY (Hz, "1.3GHz"),
 *              SIM_DF_CYCLES (a latency: an integer or "400cycles"),
 *              SIM_DF_RATE (a non-negative number per cycle),
 *              SIM_DF_OPTION (a plain integer, 0 = not modelled). The warp
 *              model's fields (the last three kinds) are 0 when unknown and
 *              are then left out of trace JSON (sim_device_field_unset), so
 *              the traces of block-time runs read as before they existed.
 *     key      the JSON key (scenario, trace JSON, /api/presets)
 *     required a device written out in full, without "preset", must give it
 *     doc      one line for the docs and the dashboard */
#define SIM_DEVICE_FIELDS(X) \
    X(sms,                   int32_t, SIM_DF_COUNT,     "sms",                   1, "streaming multiprocessors (SMs)") \
    X(threads_per_sm,        int32_t, SIM_DF_COUNT,     "threads_per_sm",        1, "resident threads per SM") \
    X(max_threads_per_block, int32_t, SIM_DF_COUNT,     "max_threads_per_block", 1, "threads per block at most") \
    X(blocks_per_sm,         int32_t, SIM_DF_COUNT,     "blocks_per_sm",         1, "resident blocks per SM") \
    X(warps_per_sm,          int32_t, SIM_DF_COUNT,     "warps_per_sm",          1, "resident warps per SM") \
    X(regs_per_sm,           int64_t, SIM_DF_COUNT,     "regs_per_sm",           1, "32-bit registers per SM") \
    X(max_regs_per_block,    int64_t, SIM_DF_COUNT,     "max_regs_per_block",    1, "registers per block at most") \
    X(smem_per_sm,           int64_t, SIM_DF_SIZE,      "smem_per_sm",           1, "shared memory per SM, bytes") \
    X(max_smem_per_block,    int64_t, SIM_DF_SIZE,      "max_smem_per_block",    1, "shared memory per block at most, bytes") \
    X(warp_size,             int32_t, SIM_DF_COUNT,     "warp_size",             1, "threads per warp") \
    X(schedulers_per_sm,     int32_t, SIM_DF_COUNT,     "schedulers_per_sm",     0, "warp schedulers (sub-cores) per SM; default 4") \
    X(copy_engines,          int32_t, SIM_DF_COUNT,     "copy_engines",          0, "copy engines: 1 for both directions, 2 for h2d + d2h; default 1") \
    X(copy_bandwidth,        double,  SIM_DF_BANDWIDTH, "copy_bandwidth",        1, "bytes per second of one copy engine") \
    X(clock_hz,              int64_t, SIM_DF_FREQUENCY, "clock",                 0, "SM clock in Hz; 0 = unknown (\"cycles\" units need it)") \
    X(mem_bandwidth,         double,  SIM_DF_RATE,      "mem_bandwidth",         0, "warp memory requests (128-byte accesses) the memory system serves per cycle, all SMs together; 0 = unknown") \
    X(sm_mem_bandwidth,      double,  SIM_DF_RATE,      "sm_mem_bandwidth",      0, "warp memory requests one SM's port to the memory system passes per cycle (GPGPU-Sim: a 32-byte flit a cycle into each SM); 0 = no limit but mem_bandwidth") \
    X(latency_alu,           int32_t, SIM_DF_CYCLES,    "latency_alu",           0, "cycles after an ALU instruction before the warp issues again; 0 = unknown") \
    X(latency_sfu,           int32_t, SIM_DF_CYCLES,    "latency_sfu",           0, "cycles after a special-function (SFU) instruction; 0 = unknown") \
    X(latency_shared,        int32_t, SIM_DF_CYCLES,    "latency_shared",        0, "cycles after a shared-memory access; 0 = unknown") \
    X(latency_mem,           int32_t, SIM_DF_CYCLES,    "latency_mem",           0, "cycles after a global-memory access with the memory system idle; 0 = unknown") \
    X(fetch_warps,           int32_t, SIM_DF_OPTION,    "fetch_warps",           0, "warps whose next instructions an SM's front end fetches and decodes per cycle (GPGPU-Sim: 1); 0 = not modelled, a warp's next instruction is always decoded") \
    X(ibuffer,               int32_t, SIM_DF_OPTION,    "ibuffer",               0, "instructions one fetch decodes into a warp's instruction buffer, which it refills only when empty (GPGPU-Sim: 2); read with fetch_warps") \
    X(fp32_rate,             double,  SIM_DF_RATE,      "fp32_rate",             0, "fp32 warp instructions (\"fu\": \"fp32\") one sub-core starts per cycle (GPGPU-Sim SM75: initiation interval 2, so 0.5); 0 = not modelled") \
    X(dram_sectors,          double,  SIM_DF_RATE,      "dram_sectors",          0, "32-byte sectors DRAM serves per cycle, all SMs together, shared equally by the SMs that use it; > 0 turns the sectored memory system on (mem ops' access, store); 0 = not modelled") \
    X(sm_port_sectors,       double,  SIM_DF_RATE,      "sm_port_sectors",       0, "sectors one SM's interconnect port passes per cycle (GPGPU-Sim: a 40-byte flit, one sector, a cycle); read with dram_sectors") \
    X(sm_mem_queue,          int32_t, SIM_DF_OPTION,    "sm_mem_queue",          0, "sectors an SM holds outstanding (MSHRs and write buffer; GPGPU-Sim SM75: 256 MSHRs); a mem op that finds no room stalls its warp; read with dram_sectors") \
    X(l1_smem_kb,            int32_t, SIM_DF_OPTION,    "l1_smem_kb",            0, "KB of unified L1 + shared memory per SM (Turing 96, Volta 128); the L1 is what the run's shared memory leaves (sectored, 128-byte lines, LRU); 0 = no L1 modelled; read with dram_sectors") \
    X(l1_assoc,              int32_t, SIM_DF_OPTION,    "l1_assoc",              0, "ways of each L1 set; read with l1_smem_kb") \
    X(latency_l1,            int32_t, SIM_DF_CYCLES,    "latency_l1",            0, "cycles after a load whose sectors all hit the L1 (GPGPU-Sim SM75: 20); read with l1_smem_kb") \
    X(l2_kb,                 int32_t, SIM_DF_OPTION,    "l2_kb",                 0, "KB of L2 for the whole GPU (sectored, 128-byte lines, LRU; write-back, a store allocates its sectors without a read): a sector that hits it passes the SM's port without taking DRAM's share, a dirty line evicted is written back to DRAM; 0 = no L2 modelled; read with dram_sectors") \
    X(l2_assoc,              int32_t, SIM_DF_OPTION,    "l2_assoc",              0, "ways of each L2 set; read with l2_kb") \
    X(latency_l2,            int32_t, SIM_DF_CYCLES,    "latency_l2",            0, "cycles after a load whose L1 misses all hit the L2 (GPGPU-Sim: -gpgpu_l2_rop_latency 160); read with l2_kb") \
    X(uvm_page_kb,           int32_t, SIM_DF_OPTION,    "uvm_page_kb",           0, "KB of managed (unified) memory one page fault migrates over the copy link, at copy_bandwidth, one page at a time per GPU; 0 = managed memory not modelled; read with dram_sectors") \
    X(uvm_fault_latency,     int32_t, SIM_DF_CYCLES,    "uvm_fault_latency",     0, "cycles from a page fault to its page on the GPU, at least (the fault's round trip through the driver); read with uvm_page_kb") \
    X(sm_faults,             int32_t, SIM_DF_OPTION,    "sm_faults",             0, "page faults one SM has outstanding (its TLB's misses); 0 = no limit; read with uvm_page_kb") \
    X(copies_in_flight,      int32_t, SIM_DF_OPTION,    "copies_in_flight",      0, "copies one copy engine runs at once, each for its own duration (a replay's measured one): copies from pageable memory are staged by the driver through pinned buffers, so copies of one direction on different streams overlap; 0 = one at a time (TX2 paper 2.2)") \
    X(mem_admission,         int32_t, SIM_DF_OPTION,    "mem_admission",         0, "which warp a sub-core's full memory queue takes next: 0 = the one the warp scheduler picks first (under GTO its greedy warp), 1 = the waiting warps in the order they came (measured on an H200: docs/most-room-h100.md); read with dram_sectors") \
    X(l1_sectors,            double,  SIM_DF_RATE,      "l1_sectors",            0, "32-byte sectors an SM's L1 serves per cycle, hits and misses, all its warps together, while each warp access takes one 128-byte line a cycle (measured on an H200: docs/most-room-h100.md); 0 = no limit; read with l1_smem_kb") \
    X(ldst_queue,            int32_t, SIM_DF_OPTION,    "ldst_queue",            0, "memory instructions one sub-core holds issued but not yet taken by its SM's L1 (GPGPU-Sim SM7_TITANV: 2 operand collectors and the ID_OC and OC_EX pipeline registers, 4); while all are held the sub-core issues nothing; 0 = no limit; read with l1_sectors") \
    X(dram_share,            int32_t, SIM_DF_OPTION,    "dram_share",            0, "which SMs DRAM is shared equally between: 0 = those with resident warps of kernels that have mem instructions, 1 = those with sectors waiting in their queues when a request joins, so an SM with none takes no share (GPGPU-Sim's crossbar grants round robin among the inputs that hold a packet, iSLIP); an SM's share is split between its sub-cores with memory warps either way; read with dram_sectors")

typedef enum sim_device_kind {
    SIM_DF_COUNT = 0,
    SIM_DF_SIZE,
    SIM_DF_BANDWIDTH,
    SIM_DF_FREQUENCY,
    SIM_DF_CYCLES,
    SIM_DF_RATE,
    SIM_DF_OPTION
} sim_device_kind;

typedef enum sim_device_type { SIM_DT_I32 = 0, SIM_DT_I64, SIM_DT_F64 } sim_device_type;

/* One row of SIM_DEVICE_FIELDS as data, for code that loops over fields. */
typedef struct sim_device_field {
    const char *field;       /* struct member and db column */
    const char *key;         /* JSON key */
    sim_device_type type;
    sim_device_kind kind;
    int required;
    const char *doc;
    size_t offset;           /* offsetof(sim_device, field) */
} sim_device_field;

extern const sim_device_field sim_device_fields[];
extern const size_t sim_device_nfields;

/* The field whose JSON key is `key`; NULL when none is. */
const sim_device_field *sim_device_field_by_key(const char *key);

/* Read / write a field as a number (integers convert exactly; a double field
 * reads as its value rounded toward zero through the _i64 accessor). */
int64_t sim_device_get_i64(const sim_device *d, const sim_device_field *f);
double sim_device_get_f64(const sim_device *d, const sim_device_field *f);
void sim_device_set_i64(sim_device *d, const sim_device_field *f, int64_t v);
void sim_device_set_f64(sim_device *d, const sim_device_field *f, double v);

/* A warp-model field (kind SIM_DF_CYCLES, SIM_DF_RATE or SIM_DF_OPTION)
 * that is 0: unknown or not modelled, and left out where devices are
 * written as JSON. */
int sim_device_field_unset(const sim_device *d, const sim_device_field *f);

/* Fill dev->sm_order[] from sm_order_kind (no-op for SIM_SM_ORDER_EXPLICIT). */
void sim_device_fill_order(sim_device *dev);

/* Check that a device is internally consistent (every limit positive, the
 * explicit order a permutation of 0..sms-1, ...). Returns 0, or -1 with a
 * message naming the field. */
int sim_device_validate(const sim_device *dev, char *err, size_t errlen);

/* Presets (presets.c): each one cites where its numbers come from. */
size_t sim_preset_count(void);
const sim_device *sim_preset_at(size_t i);
const char *sim_preset_source(size_t i);   /* citation text for the dashboard */
const sim_device *sim_preset_find(const char *name);  /* NULL if unknown */

#endif
