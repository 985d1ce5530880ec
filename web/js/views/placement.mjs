// views/placement.mjs -- "/runs/{run}?view=placement": which SM each block
// of each kernel started on, in block-index order (issue 30: the H100
// SM-order probe's finding is an order, which the timeline's lanes, sorted
// by SM, cannot show). Per kernel: a scatter of block index (x) against
// SM (y), and the SMs in the order the kernel's blocks took them, as text
// (the order the H100 recording reports, scenarios/h100-sm-order.json),
// with the device's sm_order (scenario-format.md) beside it.
//
// window.schedlab hooks: placement = {kernel name#occurrence: [SM of block
// 0, 1, …]}; placementCharts = the kernels' charts drawn so far.

import { h } from '../dom.mjs';
import { api } from '../api.mjs';
import { colorMap } from '../colors.mjs';
import { setExtra } from '../state.mjs';

const LIST = 64;            // SMs listed as text per kernel
// A chart per kernel: the GCAPS case study's 1,273 kernels made as many
// Chart.js charts before the tab showed (13 s on a 2-core Xeon, the page
// frozen). The first EAGER are drawn at once (the first screen); the
// others when their card comes near the viewport.
const EAGER = 8;

export function hasPlacement(c) {
  const n = c.run.summary?.blocks || 0;
  return n > 0 && n <= c.limits.window_max_default;   // the run view's whole-run limit
}

export async function placementTab(panel, c, route, ctx) {
  const all = c.blocks !== undefined ? { blocks: c.blocks } : await api.blocks(c.id, { max: c.limits.window_max_default }, ctx.signal);
  const blocks = all.blocks || [];
  const byKernel = new Map();
  for (const b of blocks) {
    if (!byKernel.has(b.kernel)) byKernel.set(b.kernel, []);
    byKernel.get(b.kernel).push(b);
  }
  const colors = colorMap(c.kernels.map((k) => k.name));
  const seen = new Map();
  const out = {};
  const order = c.run.device?.sm_order;
  panel.append(h('p', { class: 'lead', id: 'placement-lead' },
    'The SM each block started on, in block-index order: the order in which a kernel\'s blocks took the SMs. ',
    `The device's sm_order (the order its block scheduler tries SMs in): ${Array.isArray(order) ? order.join(', ') : order || 'not recorded'}.`));
  const charts = [];
  const Chart = window.Chart;
  const later = new Map();    // chart-wrap -> its chart's maker
  const near = typeof IntersectionObserver === 'function' ? new IntersectionObserver((entries) => {
    for (const e of entries) {
      const make = e.isIntersecting ? later.get(e.target) : null;
      if (!make) continue;
      later.delete(e.target);
      near.unobserve(e.target);
      make();
    }
  }, { rootMargin: '600px 0px' }) : null;
  const counted = () => setExtra('placementCharts', charts.length);
  for (const k of c.kernels) {
    const list = (byKernel.get(k.id) || []).slice().sort((a, b) => a.index - b.index);
    if (!list.length) continue;
    const n = (seen.get(k.name) || 0) + 1;
    seen.set(k.name, n);
    const key = n > 1 ? `${k.name}#${n}` : k.name;
    out[key] = list.map((b) => b.sm);
    const text = list.slice(0, LIST).map((b) => b.sm).join(', ') + (list.length > LIST ? `, … (${list.length} blocks)` : '');
    const card = h('section', { class: 'card placement-kernel', dataset: { kernel: key } },
      h('h2', null, key, h('span', { class: 'muted' }, ` · ${list.length} block${list.length > 1 ? 's' : ''}`)),
      h('p', { class: 'sm-order' }, h('span', { class: 'muted' }, 'SMs of blocks 0, 1, 2, …: '), text));
    panel.append(card);
    if (Chart && list.length > 1) {
      const canvas = h('canvas', { role: 'img', 'aria-label': `SM of each block of ${key}, by block index` });
      const wrap = h('div', { class: 'chart-wrap', style: { height: '220px' } }, canvas);
      card.append(wrap);
      const make = () => charts.push(new Chart(canvas, {
        type: 'scatter',
        data: { datasets: [{ label: key, data: list.map((b) => ({ x: b.index, y: b.sm })), backgroundColor: colors.get(k.name), pointRadius: list.length > 500 ? 1.5 : 3 }] },
        options: {
          animation: false, responsive: true, maintainAspectRatio: false, parsing: false,
          scales: { x: { title: { display: true, text: 'block index' } }, y: { title: { display: true, text: 'SM' }, min: 0 } },
          plugins: { legend: { display: false } },
        },
      }));
      if (near && charts.length + later.size >= EAGER) {
        later.set(wrap, () => {
          make();
          counted();
        });
        near.observe(wrap);
      } else make();
    }
  }
  setExtra('placement', out);
  counted();
  return {
    cleanup: () => {
      if (near) near.disconnect();
      charts.forEach((ch) => ch.destroy());
    },
  };
}
