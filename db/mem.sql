-- mem.sql -- migration: the warp-level model's memory system and functional
-- units (simcore/device.h fp32_rate, dram_sectors, sm_port_sectors,
-- sm_mem_queue; 0 = not modelled, as every device stored before this step;
-- docs/memory.md).
ALTER TABLE devices ADD COLUMN fp32_rate REAL NOT NULL DEFAULT 0;
ALTER TABLE devices ADD COLUMN dram_sectors REAL NOT NULL DEFAULT 0;
ALTER TABLE devices ADD COLUMN sm_port_sectors REAL NOT NULL DEFAULT 0;
ALTER TABLE devices ADD COLUMN sm_mem_queue INTEGER NOT NULL DEFAULT 0;
-- the L1 (l1_smem_kb, l1_assoc, latency_l1; 0 = no L1)
ALTER TABLE devices ADD COLUMN l1_smem_kb INTEGER NOT NULL DEFAULT 0;
ALTER TABLE devices ADD COLUMN l1_assoc INTEGER NOT NULL DEFAULT 0;
ALTER TABLE devices ADD COLUMN latency_l1 INTEGER NOT NULL DEFAULT 0;
-- unified memory (uvm_page_kb, uvm_fault_latency, sm_faults; 0 = not modelled)
ALTER TABLE devices ADD COLUMN uvm_page_kb INTEGER NOT NULL DEFAULT 0;
ALTER TABLE devices ADD COLUMN uvm_fault_latency INTEGER NOT NULL DEFAULT 0;
ALTER TABLE devices ADD COLUMN sm_faults INTEGER NOT NULL DEFAULT 0;
