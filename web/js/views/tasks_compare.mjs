// views/tasks_compare.mjs -- the compare page for runs of real-time tasks
// (issue 30; the GCAPS case study's four policies): tasks compared, not
// blocks. Per task and run the MORT, the mean and the response-time bound of
// the run's own analysis (GET /api/compare's `tasks`, docs/api.md), drawn
// side by side with the bound a MORT exceeds marked, and the table of
// compare.mjs's tasksCard. Nothing of the runs' blocks is fetched: the
// page is the API's one answer (a few KB) and each run's summary.
//
// window.schedlab hook: compareTasks = {runs, tasks, exceeded: [[task, run index]]}.

import { h } from '../dom.mjs';
import { colorAt } from '../colors.mjs';
import { setExtra } from '../state.mjs';
import { tasksCard, runKeys } from './compare.mjs';
import { DASH_NOTE, taskScales } from './tasks.mjs';
import { legendInUrlNoted } from '../charts/hidden.mjs';

const MISS = '#d92d20';
const POINTS = ['triangle', 'rectRot', 'circle', 'rect', 'star', 'crossRot'];

// query: the page's URL query (the chart's hidden series: hide_tasks, each
// run's by its id: ID.mort, ID.mean, ID.bound, runKeys's ID~N for a run
// listed again; the red crosses "bound exceeded" by that label);
// carried: hide_tasks came from a comparison of other runs (legendInUrl's quiet)
export async function tasksCompare(root, data, runs, labels, query, carried = false) {
  const tasks = data.tasks;
  const exceeded = [];
  tasks.forEach((t) => runs.forEach((r, i) => {
    const b = t.bound?.[i];
    const m = t.max_response?.[i];
    if (b !== null && b !== undefined && m !== null && m !== undefined && m > b) exceeded.push([t.task, i]);
  }));
  const card = h('section', { class: 'card', id: 'compare-task-chart' }, h('h2', null, 'Tasks, run by run'),
    h('p', { class: 'muted' }, 'Per task: each run\'s maximum observed response time (MORT, GCAPS Table 5, the larger mark), its mean (the small mark) and the response-time bound of the analysis the run was simulated under (a line; ✕ in red where the MORT exceeds it). Open a run\'s Tasks tab for its jobs over time and every analysis\'s bound:'),
    h('ul', { class: 'run-key' }, runs.map((r, i) => h('li', null,
      h('span', { class: 'swatch', style: { background: colorAt(i) } }),
      h('a', { href: `/runs/${encodeURIComponent(r.run)}?view=tasks` }, labels[i])))));
  root.append(card);
  const Chart = window.Chart;
  const canvas = h('canvas', { role: 'img', 'aria-label': 'MORT, mean and bound per task and run' });
  card.append(h('div', { class: 'chart-wrap', style: { height: '380px' } }, canvas));
  const ms = (v) => (v === null || v === undefined ? null : v / 1e6);
  const n = runs.length;
  const off = (i) => (i - (n - 1) / 2) * (0.7 / Math.max(n, 1));
  const datasets = [];
  runs.forEach((r, i) => {
    const col = colorAt(i);
    const name = r.name || r.run;
    datasets.push({ label: `${name}: MORT`, showLine: false, pointStyle: POINTS[i % POINTS.length], pointRadius: 7, backgroundColor: col, borderColor: col,
      data: tasks.map((t, k) => ({ x: k + off(i), y: ms(t.max_response?.[i]) })) });
    datasets.push({ label: `${name}: mean`, showLine: false, pointStyle: POINTS[i % POINTS.length], pointRadius: 3, backgroundColor: col, borderColor: col,
      data: tasks.map((t, k) => ({ x: k + off(i), y: ms(t.mean_response?.[i]) })) });
    datasets.push({ label: `${name}: bound`, showLine: false, pointStyle: 'line', pointRadius: 9, pointBorderWidth: 3,
      borderColor: tasks.map((t) => (exceeded.some(([x, j]) => x === t.task && j === i) ? MISS : col)), backgroundColor: col,
      data: tasks.map((t, k) => ({ x: k + off(i), y: ms(t.bound?.[i]) })) });
  });
  datasets.push({ label: 'bound exceeded', showLine: false, pointStyle: 'crossRot', pointRadius: 8, borderWidth: 3, borderColor: MISS, backgroundColor: MISS,
    data: exceeded.map(([task, i]) => {
      const k = tasks.findIndex((t) => t.task === task);
      return { x: k + off(i), y: ms(tasks[k].max_response[i]) };
    }) });
  const chart = new Chart(canvas, {
    type: 'scatter',
    data: { datasets },
    options: {
      animation: false, responsive: true, maintainAspectRatio: false,
      scales: taskScales(tasks.map((t) => t.task)),
      plugins: { legend: { position: 'top', labels: { usePointStyle: true, filter: (item) => !/: mean$/.test(item.text) } } },
    },
  });
  const ids = runKeys(runs.map((r) => r.run));
  const keys = [...ids.flatMap((id) => [`${id}.mort`, `${id}.mean`, `${id}.bound`]), null];
  legendInUrlNoted(chart, query, 'hide_tasks', 'compare-task-chart-link-note', carried, keys);
  root.append(tasksCard(tasks, runs), h('p', { class: 'muted', id: 'bound-note' }, DASH_NOTE));
  setExtra('compareTasks', { runs: runs.map((r) => r.run), tasks: tasks.map((t) => t.task), exceeded });
  setExtra('timelines', 0);
  return { destroy: () => chart.destroy() };
}
