-- ldst_queue.sql -- migration: the memory instructions a sub-core holds
-- issued and not yet taken by its SM's L1 (simcore/device.h ldst_queue; 0 =
-- no limit, as every device stored before this step; issue 25,
-- docs/memory.md).
ALTER TABLE devices ADD COLUMN ldst_queue INTEGER NOT NULL DEFAULT 0;
