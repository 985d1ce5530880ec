// views/run/tabs.mjs -- the run view's tabs, in the order the tab bar shows
// them: a tab is one module and one line here. Each is listed on the runs
// that carry its data (when(c); absent = every run; needs(c) then says
// what data, for a link that names the tab on a run without it) and drawn by
// render(panel, c, route, ctx), c being the run view's cache (run, kernels,
// names, limits; views/run.mjs loadRun). render may answer {drawn (blocks
// drawn, for window.schedlab), cleanup}. run.mjs keeps only the frame:
// the header, the tab bar and the panel it hands over.

import { formatCount } from '../../format.mjs';
import { timelineTab } from './timeline.mjs';
import { kernelsTab } from './kernels.mjs';
import { queuesTab } from './queues.mjs';
import { summaryTab } from '../summary.mjs';
import { warpsTab, hasWarps } from '../warps.mjs';
import { qosTab, hasQos } from '../qos.mjs';
import { tasksTab, hasTasks } from '../tasks.mjs';
import { placementTab, hasPlacement } from '../placement.mjs';

export const TABS = [
  // blocks per SM over time (TX2 paper Fig. 2-4), copies per copy engine
  { name: 'timeline', label: 'Timeline', render: timelineTab },
  { name: 'kernels', label: 'Kernels', render: kernelsTab },
  // stream, EE and CE queues over time (TX2 paper §3.2)
  { name: 'queues', label: 'Queues', render: queuesTab },
  { name: 'summary', label: 'Summary', render: (panel, c, route, ctx) => summaryTab(panel, c, ctx) },
  // the paper-specific tabs (issue 30), on the runs that carry their data:
  // QAWS Fig. 3: issue slots per sub-core, cycle by cycle
  { name: 'warps', label: 'Warps', when: hasWarps, needs: () => 'warp issue slots, which a run simulated with the warp-level model records', render: warpsTab },
  // ISCA'17 §4: each QoS kernel's IPC against its goal
  { name: 'qos', label: 'QoS', when: hasQos, needs: () => 'kernels with QoS goals (the ISCA\'17 quota schemes)', render: qosTab },
  // GCAPS §6: real-time tasks' jobs against their deadlines and bounds
  { name: 'tasks', label: 'Tasks', when: hasTasks, needs: () => 'real-time tasks and their jobs (a GCAPS taskset)', render: tasksTab },
  // the order blocks took the SMs (the H100 SM-order probe; most-room)
  {
    name: 'placement', label: 'SM order', when: hasPlacement, render: placementTab,
    needs: (c) => `blocks, at most ${formatCount(c.limits.window_max_default)} of them (this run has ${formatCount(c.run.summary?.blocks || 0)})`,
  },
];
