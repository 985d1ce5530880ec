// hidden.mjs -- the series a Chart.js chart's legend hides, kept in the
// page's URL (DESIGN §6: a page's URL holds its whole view), a key a chart
// (docs/api.md "Share links": the sweeps' hide, hide_reach, …, the compare
// page's hide_response, …, the QoS tab's hide_qos1, …).

import { linkNote } from '../dom.mjs';
import { queryList, updateQuery } from '../router.mjs';

// The series a chart's legend hides (a click on a legend item, Chart.js's
// own toggle) in the page's URL: `key` lists them (docs/api.md "Share
// links"), hidden as the chart is drawn, written again (replaceState) after
// each click. A series is named by its label, or by keys[i] where the page
// gives one (the compare page's runs: the run's id, so that two runs of one
// label are two entries); a keyed chart still reads a label (the older
// links' form): the series of that label, all of them where several share
// it, and writes the keys at once. Answers a note naming the link's entries
// the chart has not (they are dropped from the URL), or null; quiet: they
// are dropped and no note said (the compare page opened from a comparison
// of other runs, whose hidden series it carried: views/compare.mjs).
export function legendInUrl(chart, query, key, quiet = false, keys = null) {
  const Chart = window.Chart;
  const sets = chart.data.datasets;
  const keyOf = (i) => (keys && keys[i] !== null && keys[i] !== undefined ? keys[i] : sets[i].label);
  const all = sets.map((_, i) => i);
  const asked = queryList(query, key) || [];
  const hide = new Set();
  const unknown = [];
  let older = false;
  for (const a of asked) {
    const byKey = all.filter((i) => keyOf(i) === a);
    const hits = byKey.length ? byKey : all.filter((i) => sets[i].label === a);
    if (!hits.length) unknown.push(a);
    else if (!byKey.length) older = true;
    hits.forEach((i) => hide.add(i));
  }
  hide.forEach((i) => chart.setDatasetVisibility(i, false));
  chart.update();
  const write = () => {
    const hidden = all.filter((i) => !chart.isDatasetVisible(i)).map(keyOf);
    updateQuery({ [key]: hidden.length ? hidden : null });
  };
  const toggle = Chart.defaults.plugins.legend.onClick;
  chart.options.plugins.legend.onClick = function onClick(e, item, legend) {
    toggle.call(this, e, item, legend);
    write();
  };
  chart.update();
  if (unknown.length || older) write();
  const named = all.map((i) => (keyOf(i) === sets[i].label ? sets[i].label : `${keyOf(i)}: ${sets[i].label}`));
  return unknown.length && !quiet
    ? `The link's ${key}= names ${unknown.map((l) => `"${l}"`).join(', ')}, not ${unknown.length === 1 ? 'a series' : 'series'} of this chart (${named.join(', ')}): ${unknown.length === 1 ? 'it is' : 'they are'} left out.`
    : null;
}

// legendInUrl, and its note (if any) above the chart, with the id `id`
// (a page of several charts has a note per chart); quiet and keys as
// legendInUrl's.
export function legendInUrlNoted(chart, query, key, id, quiet = false, keys = null) {
  const note = linkNote(legendInUrl(chart, query, key, quiet, keys), id);
  if (note) chart.canvas.closest('.chart-wrap').before(note);
}
