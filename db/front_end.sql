-- front_end.sql -- migration: the warp-level model's front end and the
-- SMs' memory ports (simcore/device.h fetch_warps, ibuffer,
-- sm_mem_bandwidth; 0 = not modelled, as every device stored before this
-- step). GPGPU-Sim fetches and decodes for one warp per SM and cycle, two
-- instructions into that warp's buffer, and its interconnect delivers one
-- 32-byte flit a cycle into each SM; the isca17-gpgpusim preset models
-- both (exec_warp.c, docs/qos.md).
ALTER TABLE devices ADD COLUMN fetch_warps INTEGER NOT NULL DEFAULT 0;
ALTER TABLE devices ADD COLUMN ibuffer INTEGER NOT NULL DEFAULT 0;
ALTER TABLE devices ADD COLUMN sm_mem_bandwidth REAL NOT NULL DEFAULT 0;
