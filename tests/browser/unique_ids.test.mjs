// Every id on every page is unique, and every reference to an id resolves
// (HTML Living Standard §3.2.6.1: "The value must be unique amongst all the
// IDs in the element's tree"; WAI-ARIA 1.2 §6.2.3 ID reference lists: an
// aria-labelledby, aria-describedby, aria-controls or aria-owns names
// elements by id; HTML §4.10.4 a label's `for` names its control). A
// duplicate id sends a label, a #fragment or an aria reference to the first
// element of the name only: the /compare page's lanes each gave their legend
// id="legend", "legend-search", … (a two-run comparison had each twice).
// Each kind of page the router serves (web/js/router.mjs) is opened and its
// document checked: home, an experiment, a run on each of its tabs, /compare
// of 2 and 3 runs (and of two GCAPS runs, its tasks charts), /sweeps, a
// GCAPS sweep's and a QoS sweep's experiment, a run of more kernels than the
// view lists at once (its Kernels tab read a page of records at a time:
// record_pages.test.mjs), and the not-found page.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServerAndBrowser, stopServerAndBrowser, ready, nvprofCsv } from './harness.mjs';

let srv;
let br;
let page;
let experiments;

before(async () => {
  ({ srv, br, page, experiments } = await startServerAndBrowser());
});

after(() => stopServerAndBrowser(srv, br));

// The page's ids: those used more than once, and each reference that names
// no element or an id more than one element has ([attribute, value, name]).
function idProblems() {
  return page.evaluate(() => {
    const count = new Map();
    for (const e of document.querySelectorAll('[id]')) count.set(e.id, (count.get(e.id) || 0) + 1);
    const dup = [...count].filter(([, n]) => n > 1).map(([id, n]) => `${id} x${n}`);
    const bad = [];
    for (const attr of ['aria-labelledby', 'aria-describedby', 'aria-controls', 'aria-owns']) {
      for (const e of document.querySelectorAll(`[${attr}]`)) {
        for (const id of e.getAttribute(attr).split(/\s+/).filter(Boolean)) {
          if (count.get(id) !== 1) bad.push(`${attr}=${id} (${count.get(id) || 0} elements)`);
        }
      }
    }
    for (const e of document.querySelectorAll('label[for]')) {
      const id = e.getAttribute('for');
      if (count.get(id) !== 1) bad.push(`for=${id} (${count.get(id) || 0} elements)`);
    }
    return { ids: count.size, dup, bad };
  });
}

test('no page has an id twice, and every id reference names exactly one element', async () => {
  const find = (re) => {
    const e = experiments.find((x) => re.test(x.name));
    assert.ok(e, `seeded: ${re}`);
    return e;
  };
  const fig3 = find(/^TX2 basic rules \(/);
  const pascal = find(/^Most-room placement on Pascal/);
  const qaws = find(/^QAWS Fig\. 3/);
  const quota = find(/^ISCA'17 quota sharing/);
  const gcaps = find(/^GCAPS case study \(/);
  // (the variation study: two runs, the compare's task charts)
  const gcapsVar = find(/^GCAPS case study with execution-time variation/);
  assert.ok(gcapsVar.runs.length >= 2);
  const probe = find(/^H100 SM order probe/);
  const fig8a = find(/^GCAPS Fig\. 8\(a\)/);
  const qosSweep = find(/^ISCA'17 QoSreach, reduced/);
  const table1 = find(/^most-room Table 1: memory-intensive/);
  // a run of more kernels than the view lists at once (21,000 > 20,000):
  // its Kernels tab is read a page of records at a time
  const rows = [];
  for (let i = 0; i < 21000; i++) {
    rows.push(`${1000 + 20 * i},${1 + ((7 * i) % 13)},1,1,1,128,1,1,32,0,0,,,"GeForce GTX 1080 Ti (0)","1","${7 + (i % 3)}","${['gemm_a', 'axpy_b'][i % 2]}"`);
  }
  const big = await srv.importNvprof('ids-big.csv', nvprofCsv(rows));

  const run = fig3.runs[0].run;
  const ids = (e, n) => e.runs.slice(0, n).map((r) => r.run).join(',');
  const pages = [
    ['/', 'experiments'], [`/experiments/${fig3.slug}`, 'experiment'], [`/experiments/${table1.slug}`, 'experiment'],
    [`/runs/${run}?view=timeline`, 'timeline'], [`/runs/${run}?view=kernels`, 'kernels'],
    [`/runs/${run}?view=queues`, 'queues'], [`/runs/${run}?view=summary`, 'summary'],
    [`/runs/${qaws.runs[0].run}?view=warps`, 'warps'], [`/runs/${quota.runs[0].run}?view=qos`, 'qos'],
    [`/runs/${gcaps.runs[0].run}?view=tasks`, 'tasks'], [`/runs/${probe.runs[0].run}?view=placement`, 'placement'],
    [`/runs/${big}?view=kernels`, 'kernels'], [`/runs/${big}?view=timeline`, 'timeline'],
    [`/compare?runs=${ids(pascal, 2)}`, 'compare'], [`/compare?runs=${ids(pascal, 2)},${run}`, 'compare'],
    [`/compare?runs=${ids(quota, 2)}`, 'compare'], [`/compare?runs=${ids(gcapsVar, 2)}`, 'compare'],
    [`/compare?runs=${big},${big}`, 'compare'],
    ['/sweeps', 'sweeps'], [`/experiments/${fig8a.slug}`, 'sweep'], [`/experiments/${qosSweep.slug}`, 'sweep'],
    // a tab the run has not: the message and the run's tabs as links
    [`/runs/${run}?view=qos`, 'error'], ['/nowhere', 'notfound'],
    // links the pages cannot show as asked: each says so in a note (two
    // notes on a page must not share an id either)
    [`/runs/${run}?view=timeline&from=abc&k=zz&at=nope`, 'timeline', 'note'], [`/runs/${run}?view=kernels&sort=nope&csort=nope&order=up`, 'kernels', 'note'],
    [`/runs/${run}?view=queues&from=5&to=1`, 'queues', 'note'],
    [`/runs/${big}?view=kernels&page=two&sort=colour&order=up&name=nope`, 'kernels', 'note'],
    [`/runs/${qaws.runs[0].run}?view=warps&c0=abc&fold=zz`, 'warps', 'note'], [`/runs/${quota.runs[0].run}?view=qos&hide_qos1=nobody&hide_nonqos=nobody`, 'qos', 'note'],
    [`/runs/${gcaps.runs[0].run}?view=tasks&from=abc`, 'tasks', 'note'],
    [`/compare?runs=${ids(pascal, 2)}&from=abc&k=zz&sort=nope&order=up&hide_response=nobody&hide_cdf=nobody`, 'compare', 'note'],
    [`/compare?runs=${ids(quota, 2)}&hide_qos=nobody`, 'compare', 'note'], [`/compare?runs=${ids(gcapsVar, 2)}&hide_tasks=nobody`, 'compare', 'note'],
    [`/compare?runs=${run},nope`, 'compare'], [`/compare?runs=${Array(9).fill(run).join(',')}`, 'compare'], [`/compare?runs=${run}`, 'compare'],
    [`/experiments/${fig3.slug}?runs=nope`, 'experiment', 'note'], [`/experiments/${fig8a.slug}?hide=nobody`, 'sweep', 'note'],
    [`/experiments/${qosSweep.slug}?sort=nope&q=x&hide_reach=nobody&hide_throughput=nobody`, 'sweep', 'note'], ['/sweeps?spec=nope', 'sweeps', 'note'],
  ];
  const found = {};
  for (const [p, view, note] of pages) {
    await page.goto(srv.base + p);
    await ready(page, view);
    if (note) assert.ok(await page.locator('.link-note').count() >= 1, `${p}: a note says what of the link is not shown`);
    const r = await idProblems();
    assert.ok(r.ids > 0, `${p}: the page has ids`);
    if (r.dup.length || r.bad.length) found[p] = [...r.dup, ...r.bad];
  }
  assert.deepEqual(found, {}, JSON.stringify(found, null, 1));
  assert.deepEqual(br.problems.filter((x) => !/status of 404/.test(x)), []);
});

// A share link's note (dom.mjs linkNote) had the id `link-note` unless its
// caller changed it afterwards: two notes on one page, each made without
// thought of the other, would have shared it. Now the caller names it, and
// a note asked for without an id is refused; each page's notes are checked
// above (the QoS sweep: its Points card's note beside a note per chart).
test('a link note is made with its own id, never a shared default', async () => {
  await page.goto(`${srv.base}/`);
  const r = await page.evaluate(async () => {
    const { linkNote } = await import('/js/dom.mjs');
    let refused = null;
    try { linkNote('The link\'s sort=nope is not a column.'); } catch (e) { refused = e.message; }
    const a = linkNote('The link\'s window is not a time range.', 'link-note');
    const b = linkNote('The link\'s sort=nope is not a column.', 'kernels-link-note');
    return { refused, ids: [a.id, b.id], cls: [a.className, b.className], none: linkNote(null, 'x') };
  });
  assert.equal(r.refused, 'linkNote: the note needs its own id');
  assert.deepEqual(r.ids, ['link-note', 'kernels-link-note']);
  assert.deepEqual(r.cls, ['link-note', 'link-note']);   // the CSS's class, on both
  assert.equal(r.none, null);
});
