-- gpus.sql -- migration: a trace of several GPUs (DESIGN §5, trace.h's
-- `devices`) keeps a device row per GPU beside the run's own device, and
-- each kernel and copy the index of its GPU. `gpu` is -1 for the run's
-- device (every row before this step) and the GPU's index in the trace's
-- devices otherwise. SQLite cannot change a primary key, so the table is
-- made again with the columns it has at this step (later device fields are
-- added to `devices` as before).
CREATE TABLE devices_gpus (
    run                   INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    gpu                   INTEGER NOT NULL DEFAULT -1,
    name                  TEXT NOT NULL,
    sms                   INTEGER NOT NULL,
    threads_per_sm        INTEGER NOT NULL,
    max_threads_per_block INTEGER NOT NULL,
    blocks_per_sm         INTEGER NOT NULL,
    warps_per_sm          INTEGER NOT NULL,
    regs_per_sm           INTEGER NOT NULL,
    max_regs_per_block    INTEGER NOT NULL,
    smem_per_sm           INTEGER NOT NULL,
    max_smem_per_block    INTEGER NOT NULL,
    warp_size             INTEGER NOT NULL,
    schedulers_per_sm     INTEGER NOT NULL,
    copy_engines          INTEGER NOT NULL,
    copy_bandwidth        REAL NOT NULL,
    clock_hz              INTEGER NOT NULL,
    sm_order_kind         INTEGER NOT NULL,
    sm_order              TEXT NOT NULL,
    mem_bandwidth         REAL NOT NULL DEFAULT 0,
    latency_alu           INTEGER NOT NULL DEFAULT 0,
    latency_sfu           INTEGER NOT NULL DEFAULT 0,
    latency_shared        INTEGER NOT NULL DEFAULT 0,
    latency_mem           INTEGER NOT NULL DEFAULT 0,
    fetch_warps           INTEGER NOT NULL DEFAULT 0,
    ibuffer               INTEGER NOT NULL DEFAULT 0,
    sm_mem_bandwidth      REAL NOT NULL DEFAULT 0,
    fp32_rate             REAL NOT NULL DEFAULT 0,
    dram_sectors          REAL NOT NULL DEFAULT 0,
    sm_port_sectors       REAL NOT NULL DEFAULT 0,
    sm_mem_queue          INTEGER NOT NULL DEFAULT 0,
    l1_smem_kb            INTEGER NOT NULL DEFAULT 0,
    l1_assoc              INTEGER NOT NULL DEFAULT 0,
    latency_l1            INTEGER NOT NULL DEFAULT 0,
    uvm_page_kb           INTEGER NOT NULL DEFAULT 0,
    uvm_fault_latency     INTEGER NOT NULL DEFAULT 0,
    sm_faults             INTEGER NOT NULL DEFAULT 0,
    copies_in_flight      INTEGER NOT NULL DEFAULT 0,
    l2_kb                 INTEGER NOT NULL DEFAULT 0,
    l2_assoc              INTEGER NOT NULL DEFAULT 0,
    latency_l2            INTEGER NOT NULL DEFAULT 0,
    mem_admission         INTEGER NOT NULL DEFAULT 0,
    l1_sectors            REAL NOT NULL DEFAULT 0,
    ldst_queue            INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (run, gpu)
);
INSERT INTO devices_gpus (run, name,
    sms, threads_per_sm, max_threads_per_block, blocks_per_sm, warps_per_sm,
    regs_per_sm, max_regs_per_block, smem_per_sm, max_smem_per_block,
    warp_size, schedulers_per_sm, copy_engines, copy_bandwidth, clock_hz,
    sm_order_kind, sm_order, mem_bandwidth, latency_alu, latency_sfu,
    latency_shared, latency_mem, fetch_warps, ibuffer, sm_mem_bandwidth,
    fp32_rate, dram_sectors, sm_port_sectors, sm_mem_queue, l1_smem_kb,
    l1_assoc, latency_l1, uvm_page_kb, uvm_fault_latency, sm_faults,
    copies_in_flight, l2_kb, l2_assoc, latency_l2, mem_admission,
    l1_sectors, ldst_queue)
SELECT * FROM devices;   -- its columns in that order, as the steps before made them
DROP TABLE devices;
ALTER TABLE devices_gpus RENAME TO devices;
ALTER TABLE kernels ADD COLUMN device INTEGER NOT NULL DEFAULT 0;
ALTER TABLE copies ADD COLUMN device INTEGER NOT NULL DEFAULT 0;
