-- Migration (issue 12): fine-grained QoS by quota sharing (ISCA'17).
--
-- Per kernel of a run with QoS goals (simcore/quota.h; 0 elsewhere): the
-- op's qos_goal (0 = not a QoS kernel), the IPC the kernel reaches alone on
-- the device, a non-QoS kernel's IPC over the cycles it shared with the QoS
-- kernels, and whether a QoS kernel met its goal (0/1).
ALTER TABLE kernels ADD COLUMN qos_goal REAL NOT NULL DEFAULT 0;
ALTER TABLE kernels ADD COLUMN ipc_isolated REAL NOT NULL DEFAULT 0;
ALTER TABLE kernels ADD COLUMN ipc_shared REAL NOT NULL DEFAULT 0;
ALTER TABLE kernels ADD COLUMN qos_met INTEGER NOT NULL DEFAULT 0;

-- The run's QoS summary (db_summary; 0 / NULL for runs without goals): how
-- many kernels had a goal, how many met it, and the mean over non-QoS
-- kernels of ipc_shared / ipc_isolated (the paper's Fig. 8 measure).
ALTER TABLE runs ADD COLUMN n_qos INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN n_qos_met INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN nonqos_throughput REAL;
