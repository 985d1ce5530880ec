// views/runtabs.mjs -- the run view's paper-specific tabs (issue 30), each in
// its own module: a tab is listed on the runs that carry its data (when)
// and drawn by render(panel, c, route, ctx), c being the run view's cache
// (run, kernels, names; views/run.mjs loadRun). run.mjs lists them after
// its own tabs and hands the panel over; nothing else of run.mjs changes.

import { warpsTab, hasWarps } from './warps.mjs';
import { qosTab, hasQos } from './qos.mjs';
import { tasksTab, hasTasks } from './tasks.mjs';
import { placementTab, hasPlacement } from './placement.mjs';

export const EXTRA_TABS = [
  // QAWS Fig. 3: issue slots per sub-core, cycle by cycle
  { name: 'warps', label: 'Warps', when: hasWarps, render: warpsTab },
  // ISCA'17 §4: each QoS kernel's IPC against its goal
  { name: 'qos', label: 'QoS', when: hasQos, render: qosTab },
  // GCAPS §6: real-time tasks' jobs against their deadlines and bounds
  { name: 'tasks', label: 'Tasks', when: hasTasks, render: tasksTab },
  // the order blocks took the SMs (the H100 SM-order probe; most-room)
  { name: 'placement', label: 'SM order', when: hasPlacement, render: placementTab },
];
