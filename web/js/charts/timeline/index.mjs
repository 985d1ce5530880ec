// charts/timeline/index.mjs -- the block timeline of a run, drawn as in the
// TX2 paper's Fig. 3 (§3.1): one lane per SM, each block a rectangle from
// its start to its end whose height is its share of the SM's threads,
// concurrent blocks stacked, labelled "Kk:j", arrows under the axis at
// kernel launch times. Copies get a "CE" lane under the SMs; a run whose
// CPU tasks can be held (d.hostCalls) a lane per task under those, with
// each sync or blocking copy its task waited in (host.mjs). Traces
// without blocks (nvprof) show kernels as bars per stream instead. Past
// the API's block limit the server sends per-SM occupancy bins, drawn as a
// heat strip per SM.
//
// Chart.js draws the axes; a plugin paints everything else straight on the
// canvas, and wheel zoom / drag pan / hover are handled here so no zoom
// plugin is needed. The caller owns the data and the URL: this module only
// reports window changes (onWindow), picked times (onPick) and the set of
// hidden kernels (onHidden, from the legend of legend.mjs).
//
// Keyboard (issue 15): the canvas is focusable; + and − zoom around the
// middle, ← and → pan by a fifth of the window, Home shows the whole run.
// Colours of lanes, grid and text come from the page's CSS variables, so
// the dark theme (prefers-color-scheme) applies to the canvas too.
//
// The parts: layout.mjs (lanes, bar geometry, x mapping, hit testing:
// pure), state.mjs (what changes, and the only code that changes it),
// draw.mjs (the canvas layers), tip.mjs (the tooltip's lines), host.mjs
// (the CPU tasks' waits). This module
// wires them to Chart.js, the legend and the pointer and keys.

import { h, clear } from '../../dom.mjs';
import { formatTick, unitFor } from '../../format.mjs';
import { chartTheme } from '../../colors.mjs';
import { createLegend } from '../legend.mjs';
import { clampWindow, wheelWindow, dragWindow, keyWindow } from '../window.mjs';
import { laneModel, laneHeight, copyColor, known, hitAt, binAt, nextHit, pickTime } from './layout.mjs';
import * as S from './state.mjs';
import { drawLanes, drawData, drawMarkers } from './draw.mjs';
import { tipLines } from './tip.mjs';
import { WAIT_KINDS, waitKinds } from './host.mjs';

export function createTimeline(host, d) {
  // d: {mode: 'blocks'|'streams', kernels, copies, blocks|null, bins|null,
  //     sms, threadsPerSm, colors, extent:{min,max}, window:{from,to},
  //     hostCalls (GET /host_calls' list, or none), hidden:Set, at,
  //     search (the legend's search text), onSearch(text),
  //     legendIds (the prefix of the legend's ids, legend.mjs; '' when absent),
  //     onWindow(from,to), onPick(t), onHidden(Set),
  //     onLegend({rows, rendered}), onTip(lines of the tooltip shown)}
  const Chart = window.Chart;
  const model = laneModel(d);
  const st = S.createState(d, model, chartTheme());
  const nLanes = model.lanes.length;
  const clamp = (from, to) => clampWindow(d.extent, from, to);
  const markWidth = new Map();   // draw.mjs drawMarkers' cache of label widths

  const legendHost = h('div', { class: 'legend-host' });
  const canvas = h('canvas', {
    role: 'img', tabindex: '0', 'aria-label': 'block timeline (keys: + and − zoom, arrows pan, Home shows all)',
  });
  const tip = h('div', { class: 'tooltip', hidden: true });
  const wrap = h('div', { class: 'chart-wrap timeline-wrap', style: { height: `${Math.round(model.span * laneHeight(nLanes)) + 110}px` } }, canvas, tip);
  host.append(legendHost, wrap);

  // Copy directions have fixed colours; they sit beside the search box, and
  // so do the kinds of wait the CPU tasks have (none: no entry).
  const copyDirs = d.copyDirs || [...new Set(d.copies.filter((c) => known(c.start)).map((c) => c.direction))];
  const waits = waitKinds(model.host.waits);
  const swatch = (color, text) => h('span', { class: 'legend-static' },
    h('span', { class: 'swatch', style: { background: color } }), text);
  const legend = createLegend(legendHost, {
    names: [...d.colors.keys()], colors: d.colors, hidden: st.hidden,
    kernels: d.kernelTotal ?? (d.kernels || []).length,
    search: d.search, onSearch: d.onSearch, ids: d.legendIds || '',
    onChange(set) {
      S.setHidden(st, set);
      redraw();
      if (d.onHidden) d.onHidden(st.hidden);
    },
    onStats: d.onLegend,
    extras: copyDirs.length || waits.length ? [
      copyDirs.length ? h('span', { class: 'legend-copies' }, copyDirs.map((dir) => swatch(copyColor(dir), `copy ${dir ?? ''}`))) : null,
      waits.length ? h('span', { class: 'legend-copies legend-waits' }, waits.map((k) => swatch(WAIT_KINDS[k].color, WAIT_KINDS[k].legend))) : null,
    ].filter(Boolean) : null,
  });

  // Per-kernel block counts of the loaded data, and the occupancy note.
  // (occupancy to occupancy, the usual zoom step on a big run, changes
  // neither: nothing in the legend is rebuilt)
  function renderLegend() {
    const note = st.bins ? 'sm' : st.sbins ? 'stream' : null;
    if (st.legendNote !== note) {
      S.setLegendNote(st, note);
      legend.setNote(st.bins ? h('span', null, h('span', { class: 'heat-scale', 'aria-hidden': 'true' }),
        ' SM occupancy (time-averaged threads / threads per SM); zoom in to see blocks')
        : st.sbins ? h('span', null, h('span', { class: 'heat-scale', 'aria-hidden': 'true' }),
          ' stream busy (time-averaged running kernels of the shown names, 1 and more darkest); zoom in to see kernels')
          : null);
    }
    if (st.bins || st.sbins) {
      legend.setCounts(null);
      return;
    }
    if (d.mode !== 'blocks') return;
    const counts = new Map();
    // (a cohort's wave, issue 28: one bar, `count` blocks)
    for (const b of st.blockBars) counts.set(b.name, (counts.get(b.name) || 0) + (b.info.block.count || 1));
    legend.setCounts(counts);
  }

  function xTicks(value, index, ticks) {
    const unit = unitFor(Math.max(Math.abs(st.win.from), Math.abs(st.win.to)) || 1);
    const step = ticks.length > 1 ? ticks[1].value - ticks[0].value : 0;
    return formatTick(value, unit, step);
  }

  const drawPlugin = {
    id: 'schedlabTimeline',
    beforeDatasetsDraw(chart) {
      drawLanes(chart, model, st.theme);
    },
    afterDatasetsDraw(chart) {
      const out = S.emptyPaint();
      drawData(chart, st, model, d.threadsPerSm, out);
      S.painted(st, out);
    },
    afterDraw(chart) {
      drawMarkers(chart, st, d.colors, markWidth, st.paint);
    },
  };

  const { theme } = st;
  const chart = new Chart(canvas, {
    type: 'scatter',
    data: { datasets: [] },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      events: [],
      layout: { padding: { top: 6, right: 18 } },
      scales: {
        x: {
          type: 'linear', min: st.win.from, max: st.win.to,
          title: { display: true, text: 'time since trace start', color: theme.ink },
          ticks: { padding: 32, callback: xTicks, color: theme.ink, maxRotation: 0, includeBounds: false },
          grid: { color: theme.grid, drawTicks: false },
          border: { color: theme.axis },
        },
        y: {
          type: 'linear', min: 0, max: model.span, reverse: true,
          afterBuildTicks: (scale) => {
            scale.ticks = model.lanes.map((l) => ({ value: l.pos + l.size / 2 }));
          },
          ticks: {
            autoSkip: nLanes > 40,
            color: theme.ink,
            font: { weight: '600' },
            callback: (v) => model.lanes.find((l) => v >= l.pos && v < l.pos + l.size)?.label ?? '',
          },
          grid: { display: false },
          border: { color: theme.axis },
        },
      },
      plugins: { legend: { display: false }, tooltip: { enabled: false } },
    },
    plugins: [drawPlugin],
  });

  function setData(data) {
    S.setData(st, d, model, data);
    renderLegend();
  }

  function redraw() {
    // what the tooltip described may have moved or gone (a bin of another
    // size after a zoom): it is shown again by the next hover or key
    if (st.win.from !== st.tipWindow.from || st.win.to !== st.tipWindow.to) tip.hidden = true;
    chart.options.scales.x.min = st.win.from;
    chart.options.scales.x.max = st.win.to;
    chart.update('none');
  }

  // A window the user moved to: drawn and reported (unless it is the same).
  function moveTo(nw) {
    if (nw.from === st.win.from && nw.to === st.win.to) return;
    S.setWindow(st, nw);
    redraw();
    d.onWindow(st.win.from, st.win.to);
  }

  // ---- interaction --------------------------------------------------------
  function inArea(ev) {
    const r = canvas.getBoundingClientRect();
    const x = ev.clientX - r.left;
    const y = ev.clientY - r.top;
    const a = chart.chartArea;
    return { x, y, inside: x >= a.left && x <= a.right && y >= a.top && y <= a.bottom };
  }

  function onWheel(ev) {
    const p = inArea(ev);
    if (!p.inside) return;
    ev.preventDefault();
    moveTo(wheelWindow(d.extent, st.win, chart.scales.x.getValueForPixel(p.x), ev.deltaY));
  }

  function onDown(ev) {
    if (ev.button !== 0) return;
    const p = inArea(ev);
    if (!p.inside) return;
    S.startDrag(st, p.x);
    canvas.setPointerCapture(ev.pointerId);
  }
  function onMove(ev) {
    const p = inArea(ev);
    const drag = st.drag;
    if (drag) {
      const dx = p.x - drag.x;
      if (Math.abs(dx) > 3) S.dragMoved(st);
      if (drag.moved) {
        const a = chart.chartArea;
        moveTo(dragWindow(d.extent, drag, dx, a.right - a.left));
        tip.hidden = true;
        canvas.style.cursor = 'grabbing';
        return;
      }
    }
    hover(p);
  }
  function onUp(ev) {
    if (!st.drag) return;
    const p = inArea(ev);
    const wasClick = !st.drag.moved;
    S.endDrag(st);
    canvas.style.cursor = '';
    if (wasClick && p.inside && d.onPick) d.onPick(Math.round(chart.scales.x.getValueForPixel(p.x)));
  }
  function onLeave() {
    tip.hidden = true;
  }

  function hover(p) {
    let hit = hitAt(st.paint.hits, p);
    if (!hit && p.inside) hit = binAt(model, st, chart.scales.x.getValueForPixel(p.x), chart.scales.y.getValueForPixel(p.y));
    if (!hit) {
      tip.hidden = true;
      canvas.style.cursor = '';
      return;
    }
    canvas.style.cursor = 'crosshair';
    clear(tip);
    const lines = tipLines(hit, st, model);
    tip.append(h('div', { class: 'tip-title' }, lines[0][0]));
    const dl = h('dl', null);
    for (const [k, v] of lines.slice(1)) dl.append(h('dt', null, k), h('dd', null, v));
    tip.append(dl);
    tip.hidden = false;
    S.tipShown(st);
    // the tooltip's width is capped in CSS (names wrap), so it fits beside
    // the pointer on one side or the other
    const w = wrap.clientWidth;
    const left = p.x + 14 + tip.offsetWidth > w ? p.x - 14 - tip.offsetWidth : p.x + 14;
    tip.style.left = `${Math.max(0, left)}px`;
    tip.style.top = `${Math.max(0, Math.min(p.y - 10, wrap.clientHeight - tip.offsetHeight))}px`;
    if (d.onTip) d.onTip(lines);
  }

  function onKey(ev) {
    const nw = keyWindow(d.extent, st.win, ev.key);
    if (nw) {
      ev.preventDefault();
      moveTo(nw);
    } else if (ev.key === '.' || ev.key === ',') {
      // issue 30: the keyboard selects the next / previous block, kernel or
      // copy drawn (left to right, top down) and shows its tooltip
      ev.preventDefault();
      const r = nextHit(st.paint.hits, chart.chartArea, st.selected, ev.key === '.' ? 1 : -1);
      if (!r) return;
      S.select(st, r);
      hover({ x: Math.max(chart.chartArea.left, Math.min(chart.chartArea.right, (r.x0 + r.x1) / 2)), y: (r.y0 + r.y1) / 2, inside: true });
      if (d.onSelect) d.onSelect(r);
    } else if (ev.key === 'Enter' && st.selected && d.onPick) {
      // ... and Enter asks what every queue held when it started
      ev.preventDefault();
      const t = pickTime(st.selected.info);
      if (t !== null) d.onPick(t);
    }
  }

  canvas.addEventListener('wheel', onWheel, { passive: false });
  canvas.addEventListener('pointerdown', onDown);
  canvas.addEventListener('pointermove', onMove);
  canvas.addEventListener('pointerup', onUp);
  canvas.addEventListener('pointerleave', onLeave);
  canvas.addEventListener('keydown', onKey);

  renderLegend();
  // A theme switch (prefers-color-scheme) repaints with the new colours.
  const dark = window.matchMedia ? window.matchMedia('(prefers-color-scheme: dark)') : null;
  const onScheme = () => {
    S.setTheme(st, chartTheme());
    const o = chart.options.scales;
    o.x.title.color = st.theme.ink;
    o.x.ticks.color = st.theme.ink;
    o.x.grid.color = st.theme.grid;
    o.x.border.color = st.theme.axis;
    o.y.ticks.color = st.theme.ink;
    o.y.border.color = st.theme.axis;
    chart.update('none');
  };
  if (dark) dark.addEventListener('change', onScheme);

  return {
    // the number of block rectangles drawn by the last paint
    drawnBlocks: () => st.paint.blocks,
    // a kernel-level run's last paint: kernel bars and busy bins drawn
    drawnStreams: () => ({ kernels: st.paint.kernels, bins: st.paint.bins }),
    // the copies' last paint: copy bars and copy bins (bins with copy-ns) drawn
    drawnCopies: () => ({ copies: st.paint.copyBars, bins: st.paint.copyBins }),
    // the CPU tasks' waits of the last paint: [{task, kind, label, start, end}]
    drawnWaits: () => st.paint.waits,
    window: () => ({ ...st.win }),
    // data (optional, as setData's): the new window's own answer, when the
    // caller already has it (a prefetch), so the step is one redraw with
    // it instead of the old data stretched first (issue 9's zoom step)
    setWindow(from, to, data) {
      S.setWindow(st, clamp(from, to));
      if (data) setData(data);
      redraw();
    },
    setHidden(set) {
      S.setHidden(st, set);
      legend.setHidden(st.hidden);
      redraw();
    },
    // the legend's search text, set from outside (no onSearch)
    setSearch(text) {
      legend.setSearch(text);
    },
    // lane labels, top down
    lanes: () => model.lanes.map((l) => l.label),
    // the window setWindow(from, to) would show (clamped to the run, whole ns)
    clamp,
    canvas,
    // the chart as a PNG (canvas.toBlob), for the export button
    png: () => new Promise((resolve) => canvas.toBlob(resolve, 'image/png')),
    setAt(t) {
      S.setAt(st, t);
      redraw();
    },
    // Data for the current window after a refetch: blocks or bins.
    setData(data) {
      setData(data);
      redraw();
    },
    destroy() {
      if (dark) dark.removeEventListener('change', onScheme);
      chart.destroy();
      wrap.remove();
      legend.destroy();
      legendHost.remove();
    },
  };
}
