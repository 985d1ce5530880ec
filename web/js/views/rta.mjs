// views/rta.mjs -- "Analyse a taskset": a schedlab-taskset/1 (or a scenario
// with tasks) pasted in, POST /api/rta, and each task's bound per analysis
// in a table (ms; "—" where the iteration passed the deadline). Shown under
// a sweep experiment, whose approaches are these analyses.

import { api } from '../api.mjs';
import { h, table, errorBox } from '../dom.mjs';
import { setExtra } from '../state.mjs';

// The paper's Example 2 (Table 2): unschedulable until GPU priorities are
// assigned (gcaps_suspend fails, gcaps_suspend_gprio passes).
const EXAMPLE = {
  schema: 'schedlab-taskset/1', cpus: 2, epsilon: '1ms', theta: '200us', time_slice: '1024us',
  tasks: [
    { name: 'tau1', cpu: 0, priority: 4, period: '80ms', cpu_segments: ['2ms', '4ms', '3ms'],
      gpu_segments: [{ misc: '2ms', exec: '4ms' }, { misc: '2ms', exec: '2ms' }] },
    { name: 'tau2', cpu: 0, priority: 3, period: '150ms', cpu_segments: ['40ms'] },
    { name: 'tau3', cpu: 1, priority: 2, period: '190ms', cpu_segments: ['4ms', '30ms'],
      gpu_segments: [{ misc: '5ms', exec: '80ms' }] },
    { name: 'tau4', cpu: 0, priority: 1, period: '200ms', cpu_segments: ['16ms', '2ms'],
      gpu_segments: [{ misc: '2ms', exec: '10ms' }] },
  ],
};

const ms = (ns) => (ns === null || ns === undefined ? '—' : `${+(ns / 1e6).toFixed(3)} ms`);

export function rtaCard() {
  const input = h('textarea', { rows: 10, id: 'rta-input', 'aria-label': 'taskset JSON' });
  input.value = JSON.stringify(EXAMPLE, null, 1);
  const out = h('div', { id: 'rta-result' });
  const run = async () => {
    out.replaceChildren(h('p', { class: 'muted' }, 'Analysing…'));
    try {
      const r = await api.rta(input.value);
      const names = Object.keys(r.analyses);
      const tasks = [...new Set(names.flatMap((a) => Object.keys(r.analyses[a].tasks)))];
      const cols = [{ label: 'task', cell: (t) => t },
        ...names.map((a) => ({ label: a, num: true, cell: (t) => ms(r.analyses[a].tasks[t]?.wcrt) }))];
      const verdict = h('tr', null, h('th', { scope: 'row' }, 'schedulable'),
        names.map((a) => h('td', { class: 'num' }, r.analyses[a].schedulable ? 'yes' : 'no')));
      const tbl = table(cols, tasks, { id: 'rta-table', class: 'list' });
      tbl.querySelector('tbody').append(verdict);
      out.replaceChildren(tbl);
      setExtra('rta', { tasks: tasks.length, analyses: names.length });
    } catch (e) {
      out.replaceChildren(errorBox(e && e.message ? e.message : String(e)));
      setExtra('rta', { error: true });
    }
  };
  return h('section', { class: 'card form', id: 'rta' },
    h('h2', null, 'Analyse a taskset'),
    h('p', { class: 'muted' }, 'schedlab-taskset/1 JSON (or a scenario with tasks): each task\'s response-time bound under every analysis.'),
    input, h('p', null, h('button', { type: 'button', class: 'button', id: 'rta-run', onclick: run }, 'Analyse')), out);
}
