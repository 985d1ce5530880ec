-- copies.sql -- migration: copies one copy engine runs at once
-- (simcore/device.h copies_in_flight; 0 = one at a time, as every device
-- stored before this step; issue 28, docs/replay-fidelity.md).
ALTER TABLE devices ADD COLUMN copies_in_flight INTEGER NOT NULL DEFAULT 0;
