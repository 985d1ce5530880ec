-- mem_admission.sql -- migration: the order in which a full memory queue
-- takes waiting warps (simcore/device.h mem_admission; 0 = the warp
-- scheduler's pick, as every device stored before this step; issue 25,
-- docs/most-room-h100.md).
ALTER TABLE devices ADD COLUMN mem_admission INTEGER NOT NULL DEFAULT 0;
