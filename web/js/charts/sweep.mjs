// sweep.mjs -- a schedulability sweep drawn like the GCAPS paper's Fig. 8:
// percentage of schedulable tasksets (y) against the swept parameter (x),
// one line with markers per analysis approach.

import { h } from '../dom.mjs';
import { colorAt } from '../colors.mjs';

const POINT_STYLES = ['circle', 'rect', 'triangle', 'rectRot', 'crossRot', 'star'];

// result: schedlab-sweep-result/1 (GET /api/experiments/{slug}/sweep)
export function sweepSeries(result) {
  const n = result.tasksets;
  return result.approaches.map((a) => ({
    approach: a,
    pct: (result.schedulable[a] || []).map((c) => Math.round((c / n) * 1000) / 10),
  }));
}

// The spec's "reference" (issue 30: the paper's or the authors' code's
// numbers per point, docs/rta.md), drawn dashed beside ours in the same
// colour: [{approach, pct}] for the approaches the sweep has.
export function referenceSeries(result) {
  const ref = result.spec && result.spec.reference && result.spec.reference.schedulable;
  if (!ref) return [];
  return result.approaches.filter((a) => Array.isArray(ref[a])).map((a) => ({ approach: a, pct: ref[a] }));
}

export function createSweepChart(host, result) {
  const Chart = window.Chart;
  const series = sweepSeries(result);
  const index = Object.fromEntries(series.map((s, i) => [s.approach, i]));
  const refs = referenceSeries(result).map((s) => ({
    label: `${s.approach} (reference)`, data: s.pct, borderColor: colorAt(index[s.approach]),
    backgroundColor: colorAt(index[s.approach]), borderDash: [6, 4], pointRadius: 2, borderWidth: 1.5,
    tension: 0, spanGaps: true, reference: true,
  }));
  const canvas = h('canvas', { role: 'img', 'aria-label': `schedulable tasksets (%) against ${result.x.label}` });
  const wrap = h('div', { class: 'chart-wrap', style: { height: '420px' } }, canvas);
  host.append(wrap);
  const chart = new Chart(canvas, {
    type: 'line',
    data: {
      labels: result.x.values.map(String),
      datasets: series.map((s, i) => ({
        label: s.approach, data: s.pct, borderColor: colorAt(i), backgroundColor: colorAt(i),
        pointStyle: POINT_STYLES[i % POINT_STYLES.length], pointRadius: 4, borderWidth: 2, tension: 0,
      })).concat(refs),
    },
    options: {
      animation: false, responsive: true, maintainAspectRatio: false,
      scales: {
        x: { title: { display: true, text: result.x.label } },
        y: { min: 0, max: 100, title: { display: true, text: 'schedulable tasksets (%)' } },
      },
      plugins: {
        legend: { position: 'top' },
        tooltip: { callbacks: { label: (c) => `${c.dataset.label}: ${c.parsed.y}%` } },
      },
    },
  });
  return {
    chart,
    destroy() {
      chart.destroy();
      wrap.remove();
    },
  };
}

// ---- the ISCA'17 QoS sweep (kind "qos"), drawn like the paper's Fig. 6(a)
// and 8(a): per QoS goal, one bar per scheme; the last group is the average
// over all goals. QoSreach is the share of (pair, goal) points whose goal
// is met; throughput is the non-QoS kernel's, normalised to its isolated
// IPC, over the points that meet the goal (null: none does, no bar).

const pct = (v) => (v === null || v === undefined ? null : Math.round(v * 1000) / 10);

// result: schedlab-sweep-result/1 with kind "qos"
export function qosSeries(result) {
  const labels = [...result.goals.map((g) => `${Math.round(g * 100)}%`), 'avg'];
  return {
    labels,
    reach: result.schemes.map((s) => ({ scheme: s, data: [...result.qosreach_by_goal[s].map(pct), pct(result.qosreach[s])] })),
    throughput: result.schemes.map((s) => ({ scheme: s, data: [...result.throughput_by_goal[s].map(pct), pct(result.throughput[s])] })),
  };
}

// A bar chart: one bar per series and label; series with `paper` set are
// the paper's numbers, drawn as outlines in their scheme's colour.
function bars(host, labels, series, yTitle, aria, { max, min, xTitle = 'QoS goal (share of the isolated IPC)', unit = '%' } = {}) {
  const Chart = window.Chart;
  const canvas = h('canvas', { role: 'img', 'aria-label': aria });
  const wrap = h('div', { class: 'chart-wrap', style: { height: '360px' } }, canvas);
  host.append(wrap);
  const chart = new Chart(canvas, {
    type: 'bar',
    data: {
      labels,
      datasets: series.map((s) => {
        const c = colorAt(s.color ?? 0);
        return s.paper
          ? { label: s.label, data: s.data, backgroundColor: 'transparent', borderColor: c, borderWidth: 2, reference: true }
          : { label: s.label, data: s.data, backgroundColor: c, borderColor: c };
      }),
    },
    options: {
      animation: false, responsive: true, maintainAspectRatio: false,
      scales: {
        x: { title: { display: true, text: xTitle } },
        y: { min, max, title: { display: true, text: yTitle } },
      },
      plugins: {
        legend: { position: 'top' },
        tooltip: { callbacks: { label: (c) => `${c.dataset.label}: ${c.parsed.y}${unit}` } },
      },
    },
  });
  return { chart, wrap };
}

// Ours (QoSreach over every point) beside the paper's per scheme, the
// paper's as outlines (issue 30; the spec's reference.qosreach).
export function createReachReference(host, result) {
  const Chart = window.Chart;
  const ref = result.spec.reference.qosreach;
  const canvas = h('canvas', { role: 'img', 'aria-label': 'QoSreach (%) per scheme: this sweep beside the paper' });
  const wrap = h('div', { class: 'chart-wrap', style: { height: '300px' } }, canvas);
  host.append(wrap);
  const chart = new Chart(canvas, {
    type: 'bar',
    data: {
      labels: result.schemes,
      datasets: [
        { label: 'this sweep', data: result.schemes.map((s) => pct(result.qosreach[s])), backgroundColor: colorAt(0), borderColor: colorAt(0) },
        { label: 'paper', data: result.schemes.map((s) => (typeof ref[s] === 'number' ? ref[s] : null)), backgroundColor: 'transparent', borderColor: colorAt(1), borderWidth: 2, borderDash: [6, 4], reference: true },
      ],
    },
    options: {
      animation: false, responsive: true, maintainAspectRatio: false,
      scales: { y: { min: 0, max: 100, title: { display: true, text: 'QoSreach (%)' } } },
      plugins: { legend: { position: 'top' }, tooltip: { callbacks: { label: (c) => `${c.dataset.label}: ${c.parsed.y}%` } } },
    },
  });
  return { chart, destroy() { chart.destroy(); wrap.remove(); } };
}

// ours, one series per scheme in the scheme's colour
const schemeSets = (sets) => sets.map((x, i) => ({ label: x.scheme, data: x.data, color: i }));

export function createQosCharts(reachHost, thrHost, result) {
  const s = qosSeries(result);
  const a = bars(reachHost, s.labels, schemeSets(s.reach), 'QoSreach (%)', 'QoSreach (%) per scheme against the QoS goal', { max: 100, min: 0 });
  const b = bars(thrHost, s.labels, schemeSets(s.throughput), 'non-QoS throughput (% of isolated)', 'normalised throughput of the non-QoS kernels per scheme against the QoS goal', { min: 0 });
  return {
    charts: [a.chart, b.chart],
    destroy() {
      a.chart.destroy();
      b.chart.destroy();
      a.wrap.remove();
      b.wrap.remove();
    },
  };
}

// ---- ISCA'17's other figures, from the same result: Fig. 7 (QoSreach per
// QoS kernel and pair class), Fig. 8's lead over Spart per goal, Fig. 9
// (how far met goals are overshot) and Fig. 5 (misses by how far). The
// paper's numbers are drawn, outlined, beside ours where its text gives one (the
// figures' bars are not in the text); each is the paper's over its whole
// sweep (900 pair points, 600 trio points), whatever this sweep's size.
//
// ISCA'17, for a sweep of pairs (0), trios with one QoS kernel (1) or two (2):
export const PAPER_FIGS = {
  // §4.2, Fig. 7: "for C+C kernels, Spart and Rollover meet QoS goals in all cases"
  byClass: { 0: { 'C+C': { rollover: 100, spart: 100 } } },
  // §4.3, Fig. 8: "In two-kernel sharing, the average improvement is 15.9%.
  // This number increases to 19.9% and 20.5% in three-kernel sharing with
  // one (Figure 8b) and two (Figure 8c) QoS kernels"; "the largest
  // improvement of 75.5% in Figure 8b occurs in the 95% category"
  gain: { 0: { avg: 15.9 }, 1: { avg: 19.9, 0.95: 75.5 }, 2: { avg: 20.5 } },
  // §4.4, Fig. 9: "Spart exceeds the given goal by 11.6% on average ...
  // Rollover only exceeds the goal by 2.8%"; §3.4.2, Fig. 5: History's
  // "successful cases (186 cases) ... overshoot by 1.3% on average"
  overshoot: { 0: { rollover: 2.8, spart: 11.6, history: 1.3 } },
};

const round1 = (v) => (v === null || v === undefined || !Number.isFinite(v) ? null : Math.round(v * 10) / 10);

// Fig. 7: the share of each QoS kernel's points met (a trio with two QoS
// kernels counts for both), then of each pair class's (QoS kernel first).
export function classSeries(result, trio = 0) {
  const isQos = (p, n) => p.qos === n || p.qos2 === n;
  const qos = result.kernels.map((k) => k.name).filter((n) => result.pairs.some((p) => isQos(p, n)));
  const classes = [...new Set(result.pairs.map((p) => p.classes))].sort();
  const groups = [...qos.map((n) => ({ label: n, in: (p) => isQos(p, n) })),
    ...classes.map((c) => ({ label: c, in: (p) => p.classes === c }))];
  const share = (scheme, g) => {
    const pts = result.points.filter((p) => p.scheme === scheme && g.in(result.pairs[p.pair]));
    return pts.length ? pct(pts.filter((p) => p.qos_met).length / pts.length) : null;
  };
  const paper = PAPER_FIGS.byClass[trio] || {};
  return {
    labels: groups.map((g) => g.label),
    ours: result.schemes.map((s) => ({ scheme: s, data: groups.map((g) => share(s, g)) })),
    paper: result.schemes.filter((s) => groups.some((g) => paper[g.label] && paper[g.label][s] !== undefined))
      .map((s) => ({ scheme: s, data: groups.map((g) => (paper[g.label] ? paper[g.label][s] ?? null : null)) })),
  };
}

// Fig. 8 as §4.3 reads it: each scheme's non-QoS throughput over Spart's,
// in %, per goal (over the points each meets, as Fig. 8 draws them), then
// averaged two ways, since the paper does not say which its "average
// improvement" is (docs/qos.md, "How Fig. 8's average is read"): pooled
// over every met point, and the mean of the per-goal bars over the goals
// both have one. null: no Spart in the sweep.
export function gainSeries(result, trio = 0) {
  if (!result.schemes.includes('spart')) return null;
  const sp = result.throughput_by_goal.spart;
  const labels = [...result.goals.map((g) => `${Math.round(g * 100)}%`), 'avg (pooled)', 'avg (mean of goals)'];
  const gain = (a, b) => (a === null || a === undefined || !(b > 0) ? null : round1((a / b - 1) * 100));
  const mean = (xs) => xs.reduce((x, y) => x + y, 0) / xs.length;
  const ours = result.schemes.filter((s) => s !== 'spart').map((s) => {
    const by = result.throughput_by_goal[s];
    const both = result.goals.map((_, i) => i).filter((i) => by[i] !== null && sp[i] !== null);
    return {
      scheme: s,
      data: [...result.goals.map((_, i) => gain(by[i], sp[i])), gain(result.throughput[s], result.throughput.spart),
        both.length ? gain(mean(both.map((i) => by[i])), mean(both.map((i) => sp[i]))) : null],
    };
  });
  const p = PAPER_FIGS.gain[trio];
  const paper = p && result.schemes.includes('rollover')
    ? [{ scheme: 'rollover', data: [...result.goals.map((g) => p[g] ?? null), p.avg, p.avg] }] : [];
  return { labels, ours, paper };
}

// Fig. 9: the met points' mean attained / goal - 1, per scheme, in %.
export function overshootSeries(result, trio = 0) {
  const p = PAPER_FIGS.overshoot[trio] || {};
  return {
    labels: result.schemes,
    ours: result.schemes.map((s) => (result.overshoot && typeof result.overshoot[s] === 'number' ? round1(result.overshoot[s] * 100) : null)),
    paper: result.schemes.map((s) => p[s] ?? null),
  };
}

// Fig. 5: each scheme's misses by their shortfall 1 - attained / goal.
export function missSeries(result) {
  const b = result.shortfall_bins.map((x) => Math.round(x * 100));
  const labels = [`≤ ${b[0]} %`, ...b.slice(1).map((x, i) => `${b[i]}–${x} %`), `> ${b[b.length - 1]} %`];
  return { labels, ours: result.schemes.map((s) => ({ scheme: s, data: result.misses[s] })) };
}

// The four figures' charts into their hosts (gain, overshoot, misses: none
// where the host is missing); the paper's series after ours, in the same
// scheme's colour.
export function createQosFigures(hosts, result, trio = 0) {
  const color = Object.fromEntries(result.schemes.map((s, i) => [s, i]));
  const sets = (ours, paper) => [...ours.map((x) => ({ label: x.scheme, data: x.data, color: color[x.scheme] })),
    ...paper.map((x) => ({ label: `${x.scheme} (paper)`, data: x.data, color: color[x.scheme], paper: true }))];
  const made = [];
  const cls = classSeries(result, trio);
  made.push(bars(hosts.byClass, cls.labels, sets(cls.ours, cls.paper), 'QoSreach (%)',
    'QoSreach (%) per scheme for each QoS kernel and pair class', { max: 100, min: 0, xTitle: 'QoS kernel, then pair class (QoS kernel first)' }));
  const gain = gainSeries(result, trio);
  if (gain && hosts.gain) {
    made.push(bars(hosts.gain, gain.labels, sets(gain.ours, gain.paper), 'non-QoS throughput over Spart\'s (%)',
      'non-QoS throughput of each scheme over Spart\'s (%) against the QoS goal'));
  }
  if (hosts.overshoot) {
    const ov = overshootSeries(result, trio);
    const ovSets = [{ label: 'this sweep', data: ov.ours, color: 0 }];
    if (ov.paper.some((x) => x !== null)) ovSets.push({ label: 'paper', data: ov.paper, color: 1, paper: true });
    made.push(bars(hosts.overshoot, ov.labels, ovSets, 'overshoot of met goals (%)',
      'mean overshoot (%) of the met QoS goals per scheme', { min: 0, xTitle: 'scheme' }));
  }
  if (hosts.misses) {
    const ms = missSeries(result);
    made.push(bars(hosts.misses, ms.labels, sets(ms.ours, []), 'missed points',
      'points missed per scheme by how far they fall short of the goal', { min: 0, xTitle: 'shortfall, 1 − attained / goal', unit: '' }));
  }
  return {
    charts: made.map((m) => m.chart),
    destroy() {
      for (const m of made) {
        m.chart.destroy();
        m.wrap.remove();
      }
    },
  };
}
