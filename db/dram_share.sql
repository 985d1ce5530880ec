-- dram_share.sql -- migration: which SMs DRAM is shared equally between
-- (simcore/device.h dram_share; 0 = the SMs with memory warps, as every
-- device stored before this step; issue 26, docs/memory.md).
ALTER TABLE devices ADD COLUMN dram_share INTEGER NOT NULL DEFAULT 0;
