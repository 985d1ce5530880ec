-- l1_sectors.sql -- migration: the rate of an SM's L1 (simcore/device.h
-- l1_sectors; 0 = no limit, as every device stored before this step; issue
-- 25, docs/most-room-h100.md).
ALTER TABLE devices ADD COLUMN l1_sectors REAL NOT NULL DEFAULT 0;
