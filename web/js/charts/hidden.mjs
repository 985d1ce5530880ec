// hidden.mjs -- the series a Chart.js chart's legend hides, kept in the
// page's URL (DESIGN §6: a page's URL holds its whole view), a key a chart
// (docs/api.md "Share links": the sweeps' hide, hide_reach, …, the compare
// page's hide_response, …, the QoS tab's hide_qos1, …).

import { linkNote } from '../dom.mjs';
import { queryList, updateQuery } from '../router.mjs';

// The series a chart's legend hides (a click on a legend item, Chart.js's
// own toggle) in the page's URL: `key` lists their labels (docs/api.md
// "Share links"), hidden as the chart is drawn, written again
// (replaceState) after each click. Answers a note naming the link's labels
// the chart has not (they are dropped from the URL), or null; quiet: they
// are dropped and no note said (the compare page opened from a comparison
// of other runs, whose hidden series it carried: views/compare.mjs).
export function legendInUrl(chart, query, key, quiet = false) {
  const Chart = window.Chart;
  const sets = chart.data.datasets;
  const asked = queryList(query, key) || [];
  const unknown = asked.filter((l) => !sets.some((d) => d.label === l));
  sets.forEach((d, i) => {
    if (asked.includes(d.label)) chart.setDatasetVisibility(i, false);
  });
  chart.update();
  const write = () => {
    const hidden = sets.filter((d, i) => !chart.isDatasetVisible(i)).map((d) => d.label);
    updateQuery({ [key]: hidden.length ? hidden : null });
  };
  const toggle = Chart.defaults.plugins.legend.onClick;
  chart.options.plugins.legend.onClick = function onClick(e, item, legend) {
    toggle.call(this, e, item, legend);
    write();
  };
  chart.update();
  if (unknown.length) write();
  return unknown.length && !quiet
    ? `The link's ${key}= names ${unknown.map((l) => `"${l}"`).join(', ')}, not ${unknown.length === 1 ? 'a series' : 'series'} of this chart (${sets.map((d) => d.label).join(', ')}): ${unknown.length === 1 ? 'it is' : 'they are'} left out.`
    : null;
}

// legendInUrl, and its note (if any) above the chart, with the id `id`
// (a page of several charts has a note per chart); quiet as legendInUrl's.
export function legendInUrlNoted(chart, query, key, id, quiet = false) {
  const note = linkNote(legendInUrl(chart, query, key, quiet), id);
  if (note) chart.canvas.closest('.chart-wrap').before(note);
}
