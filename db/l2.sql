-- l2.sql -- migration: the warp-level model's L2 (simcore/device.h l2_kb,
-- l2_assoc, latency_l2; 0 = no L2, as every device stored before this
-- step; issue 25, docs/memory.md).
ALTER TABLE devices ADD COLUMN l2_kb INTEGER NOT NULL DEFAULT 0;
ALTER TABLE devices ADD COLUMN l2_assoc INTEGER NOT NULL DEFAULT 0;
ALTER TABLE devices ADD COLUMN latency_l2 INTEGER NOT NULL DEFAULT 0;
