// views/run/queues.mjs -- the run view's Queues tab: queue lengths over
// time (charts/queues.mjs) in the timeline's window, and what each queue
// holds at the time clicked.

import { api } from '../../api.mjs';
import { h } from '../../dom.mjs';
import { timeFormat } from '../../format.mjs';
import { createQueueChart } from '../../charts/queues.mjs';
import { setExtra } from '../../state.mjs';
import { hiddenFromQuery, pngButton, extentOf, queuePanel, urlAt, urlWindow, linkNote, writeState } from './shared.mjs';

// Queue lengths in the window the timeline shows (from/to of the URL),
// zoomed and panned like it; the window goes back into the URL.
export async function queuesTab(panel, c, route, ctx) {
  const s = c.run.summary || {};
  if (!(s.queue_events > 0)) {
    panel.append(h('p', { class: 'empty' }, `This run has no queue events (a ${c.run.source} trace does not record queues).`));
    return {};
  }
  const resp = await api.queueSeries(c.id, ctx.signal);
  const extent = extentOf(c);
  const w0 = urlWindow(route, extent);
  const hidden = hiddenFromQuery(route.query, c.names);
  const linkAt = urlAt(route, extent);
  let { at } = linkAt;
  const host = h('div', { class: 'card' });
  const windowText = h('span', { class: 'window-text', id: 'window-text' });
  let chart = null;
  const reset = h('button', { type: 'button', id: 'reset-zoom', onclick: () => { chart.setWindow(extent.min, extent.max); moved(); } }, 'Reset zoom');
  panel.append(h('div', { class: 'toolbar' }, reset, windowText,
    h('span', { class: 'hint' }, 'Queue lengths over time (TX2 paper §3.2: stream, EE and CE queues). Wheel or +/−: zoom · drag or ←/→: pan · click: what each queue holds.'),
    h('span', { class: 'tab-spacer' }), pngButton(c, 'queues', () => chart)), ...[linkNote([w0.note, hidden.note, linkAt.note].filter(Boolean).join(' '), 'link-note'), host].filter(Boolean));
  const fmt = () => timeFormat(chart ? chart.window().to - chart.window().from : w0.to - w0.from).format;
  const qp = queuePanel(c, ctx, fmt);
  panel.append(qp.el);
  const show = () => {
    const w = chart.window();
    const f = timeFormat(w.to - w.from).format;
    windowText.textContent = `${f(w.from)} – ${f(w.to)}`;
    setExtra('queuesWindow', w);
  };
  function moved() {
    show();
    writeState('queues', chart.window(), extent, hidden, c.names, at);
  }
  chart = createQueueChart(host, {
    series: resp.queues || [], tMin: extent.min, tMax: extent.max, window: { from: w0.from, to: w0.to }, at,
    onWindow: moved,
    fetchBins: (from, to, n) => api.queueBins(c.id, from, to, n, ctx.signal),
    onDrawn: (d) => setExtra('queuesDrawn', d),
    onPick(t) {
      at = t;
      writeState('queues', chart.window(), extent, hidden, c.names, at);
      qp.show(t);
    },
  });
  show();
  // (a link's window that could not be shown as asked: the URL says what is)
  if (w0.note || hidden.note || linkAt.note) writeState('queues', chart.window(), extent, hidden, c.names, at);
  setExtra('window', chart.window());
  await chart.drawn();
  await qp.show(at);
  return { cleanup: () => chart.destroy() };
}
