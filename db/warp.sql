-- Migration (issue 11): the warp-level execution model.
--
-- The device fields of the warp model (simcore/device.h SIM_DEVICE_FIELDS;
-- 0 = unknown), each kernel's warp instructions and IPC (0 for runs without
-- warps), and the issue slots each kernel used per epoch of cycles, which a
-- warp-level run records for its whole length (warp_issues stop at the
-- run's limit). Like warp_issues, warp_epochs has no foreign key (see
-- schema.sql): it is written only for the run just inserted.
ALTER TABLE devices ADD COLUMN mem_bandwidth REAL NOT NULL DEFAULT 0;
ALTER TABLE devices ADD COLUMN latency_alu INTEGER NOT NULL DEFAULT 0;
ALTER TABLE devices ADD COLUMN latency_sfu INTEGER NOT NULL DEFAULT 0;
ALTER TABLE devices ADD COLUMN latency_shared INTEGER NOT NULL DEFAULT 0;
ALTER TABLE devices ADD COLUMN latency_mem INTEGER NOT NULL DEFAULT 0;

ALTER TABLE kernels ADD COLUMN instructions INTEGER NOT NULL DEFAULT 0;
ALTER TABLE kernels ADD COLUMN ipc REAL NOT NULL DEFAULT 0;

CREATE TABLE warp_epochs (
    run     INTEGER NOT NULL,
    seq     INTEGER NOT NULL,
    kernel  INTEGER NOT NULL,
    cycle   INTEGER NOT NULL,   -- the epoch's first cycle
    cycles  INTEGER NOT NULL,   -- its length
    issues  INTEGER NOT NULL,   -- issue slots the kernel used in it, all SMs
    PRIMARY KEY (run, seq)
) WITHOUT ROWID;
