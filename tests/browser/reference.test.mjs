// The experiment page's "Reported beside simulated" card (a scenario's
// "reference" block, docs/scenario-format.md): every number the card shows
// is worked out here again from the API -- kernel times (first block to
// end) for a ratio row, the run's task summary for a MORT row -- and each
// verdict from the row's own rule; the reported numbers are the papers',
// which tests/api/scenario_reference.test.mjs checks against the tables.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServerAndBrowser, stopServerAndBrowser, ready, docShot, shot } from './harness.mjs';

let srv;
let br;
let page;
let experiments;

before(async () => {
  ({ srv, br, page, experiments } = await startServerAndBrowser());
});
after(() => stopServerAndBrowser(srv, br));

const find = (re) => {
  const e = experiments.find((x) => re.test(x.name));
  assert.ok(e, `seeded: ${re}`);
  return e;
};

async function open(e) {
  await page.goto(`${srv.base}/experiments/${e.slug}`);
  const st = await ready(page, 'experiment');
  const full = (await srv.api(`/api/experiments/${e.slug}`)).body;
  const runs = new Map(full.runs.map((r) => [r.name, r.run]));
  return { st, full, runs };
}

async function kernelTimes(run) {
  const ks = (await srv.api(`/api/runs/${run}/kernels`)).body.kernels;
  return Object.fromEntries(ks.map((k) => [k.name, k.end - k.first_block]));
}

test('most-room Table 1, memory-intensive: each slowdown from the run\'s kernels, judged within a factor 1.5', async () => {
  const { st, full, runs } = await open(find(/^most-room Table 1: memory-intensive/));
  const t = await kernelTimes(runs.get('default'));
  const want = [
    ['A, concurrent-isolated over serial', t['A-isolated'] / t['A-serial'], 1.0],
    ['A, concurrent-colocated over serial', t['A-colocated'] / t['A-serial'], 1.01],
    ['B, concurrent-isolated over serial', t['B-isolated'] / t['B-serial'], 22.4],
    ['B, concurrent-colocated over serial', t['B-colocated'] / t['B-serial'], 96.1],
  ];
  assert.equal(st.reference.length, want.length);
  want.forEach(([label, model, reported], i) => {
    const r = st.reference[i];
    assert.equal(r.label, label);
    assert.deepEqual(r.runs, ['default']);
    assert.equal(r.reported, reported);
    assert.ok(Math.abs(r.model - model) < 1e-12, `${label}: ${r.model} against ${model}`);
    assert.equal(r.ok, model / reported <= 1.5 && model / reported >= 1 / 1.5, label);
  });
  assert.equal(full.scenario.reference.rows.length, 4);
  // the table says the same, and the hint counts the agreeing rows
  const cells = await page.$$eval('#reference-table tbody tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  assert.equal(cells[3][2], '96.1×');
  assert.equal(cells[3][3], `${(t['B-colocated'] / t['B-serial']).toFixed(1)}×`);
  const agree = want.filter(([, m, r]) => m / r <= 1.5 && m / r >= 1 / 1.5).length;
  assert.match(await page.locator('#reference .hint').textContent(), new RegExp(`${agree} of 4 rows with a rule agree`));
  await page.setViewportSize({ width: 1100, height: 900 });
  await shot(page.locator('#reference'), docShot('img/reference-table1.png'));   // the README's picture
  await page.setViewportSize({ width: 1280, height: 900 });
  assert.deepEqual(br.problems, []);
});

test('QAWS Fig. 4a: K1 and K2 under QAWS over LRR\'s, across two runs, judged by direction', async () => {
  const { st, full, runs } = await open(find(/^QAWS Fig\. 4a: pc pair/));
  const rows = full.scenario.reference.rows;
  assert.equal(st.reference.length, rows.length);
  for (const [i, row] of rows.entries()) {
    const [a, b] = row.ratio;
    const ta = (await kernelTimes(runs.get(a.run)))[a.kernel], tb = (await kernelTimes(runs.get(b.run)))[b.kernel];
    const r = st.reference[i];
    assert.deepEqual(r.runs, [a.run, b.run]);
    assert.equal(b.run, 'lrr');
    assert.ok(Math.abs(r.model - ta / tb) < 1e-12);
    assert.equal(r.ok, ta / tb < row.below);
  }
  // the run column links both runs
  const links = await page.$$eval('#reference-table tbody tr:first-child td:nth-child(2) a', (as) => as.map((a) => a.textContent));
  assert.deepEqual(links, [rows[0].ratio[0].run, 'lrr']);
  assert.deepEqual(br.problems, []);
});

test('GCAPS Table 5: each task\'s MORT in each policy\'s run, and their mean absolute difference', async () => {
  const { st, full, runs } = await open(find(/^GCAPS case study with execution-time variation/));
  const rows = full.scenario.reference.rows;
  assert.equal(rows.length, 20);
  let sum = 0;
  for (const [i, row] of rows.entries()) {
    const meta = (await srv.api(`/api/runs/${runs.get(row.run)}`)).body.meta;
    const max = Number(/max=(\d+)/.exec(meta[`task:${row.mort}`])[1]);
    const r = st.reference[i];
    assert.deepEqual(r.runs, [row.run]);
    assert.ok(Math.abs(r.model - max / 1e6) < 1e-9, `${row.label}`);
    assert.equal(r.ok, null, 'Table 5 gives no tolerance per cell');
    sum += Math.abs(max / 1e6 - row.reported);
  }
  assert.match(await page.locator('#reference .hint').textContent(),
    new RegExp(`Mean absolute MORT difference: ${(sum / 20).toFixed(2)} ms over 20 rows`));
  assert.deepEqual(br.problems, []);
});

test('most-room §4.1 and §5.1: the SM of each block, from the runs\' blocks, the same or not', async () => {
  for (const [re, kernel] of [[/^Most-room placement on Pascal/, 'Y'], [/^Most-room on Turing, concurrent-colocated/, 'B']]) {
    const { st, full, runs } = await open(find(re));
    const rows = full.scenario.reference.rows;
    assert.equal(st.reference.length, rows.length);
    for (const [i, row] of rows.entries()) {
      const run = runs.get(row.run || full.runs[0].name);
      const ks = (await srv.api(`/api/runs/${run}/kernels`)).body.kernels;
      const id = ks.find((k) => k.name === kernel).id;
      const blocks = (await srv.api(`/api/runs/${run}/blocks?max=100000`)).body.blocks.filter((b) => b.kernel === id);
      const sms = [];
      for (const b of blocks) sms[b.index] = b.sm;
      const r = st.reference[i];
      assert.deepEqual(r.model, sms, row.label);
      assert.equal(r.ok, JSON.stringify(sms) === JSON.stringify(row.reported), row.label);
    }
  }
  assert.deepEqual(br.problems, []);
});

test('a pasted scenario\'s start and end rows: each kernel\'s first block and end in ms, judged within_ms', async () => {
  // the shipped TX2 Fig. 5 scenario pasted with a row of each time kind: the
  // card's numbers must be the kernels' own, each verdict the row's rule
  const scn = JSON.parse(JSON.stringify((await srv.api(`/api/experiments/${find(/^TX2 NULL stream/).slug}`)).body.scenario));
  scn.name = 'reference: start and end rows';
  scn.reference = {
    source: 'a check of this test',
    rows: [
      { label: 'K2 starts when K1 ends', start: 'K2', reported: 2000, within_ms: 0 },
      { label: 'K6 ends', end: 'K6', reported: 7000, within_ms: 0.5 },
      { label: 'K1 starts', start: 'K1', reported: 100 },
    ],
  };
  const made = await srv.api('/api/experiments', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(scn) });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const e = (await srv.api('/api/experiments')).body.experiments.find((x) => x.name === scn.name);
  const { st, runs } = await open(e);
  const ks = (await srv.api(`/api/runs/${runs.get('default')}/kernels`)).body.kernels;
  const k = (n) => ks.find((x) => x.name === n);
  const want = [k('K2').first_block / 1e6, k('K6').end / 1e6, k('K1').first_block / 1e6];
  assert.deepEqual(st.reference.map((r) => r.model), want);
  assert.deepEqual(st.reference.map((r) => r.ok), [want[0] === 2000, Math.abs(want[1] - 7000) <= 0.5, null]);
  const cells = await page.$$eval('#reference-table tbody tr td:nth-child(5)', (tds) => tds.map((td) => td.textContent));
  assert.equal(cells[2], `${want[2] - 100 >= 0 ? '+' : '−'}${Math.abs(want[2] - 100).toFixed(2)} ms`);
  assert.deepEqual(br.problems, []);
});

test('an experiment whose scenario has no reference shows no such card', async () => {
  await open(find(/^TX2 basic rules/));
  assert.equal(await page.locator('#reference').count(), 0);
  assert.equal(await page.evaluate(() => window.schedlab.reference ?? null), null);
});
