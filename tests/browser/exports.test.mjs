// PNG of any chart, CSV of any table (issue 15): every card of the compare
// view that holds a chart has a PNG button and every card with a table a
// CSV button (web/js/exports.mjs adds those no view made itself); the files
// are named after the page and hold what the card shows.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { downloaded, startServer, startBrowser, ready } from './harness.mjs';

let srv;
let br;
let page;
let pascal;   // Most-room placement on Pascal (Gilman et al., §4.1)

before(async () => {
  srv = await startServer();
  br = await startBrowser();
  page = br.page;
  const { body } = await srv.api('/api/experiments');
  pascal = body.experiments.find((e) => /^Most-room placement on Pascal/.test(e.name));
  assert.ok(pascal, 'the shipped scenarios are seeded');
});

after(async () => {
  if (br) await br.close();
  if (srv) await srv.stop();
});

const runOf = (e, name) => e.runs.find((r) => r.name === name).run;

test('compare: every chart card exports a PNG and every table card a CSV, named after the page', async () => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${srv.base}/compare?runs=${runOf(pascal, 'most-room')},${runOf(pascal, 'round-robin')}`);
  await ready(page, 'compare');
  // the buttons arrive with the cards; give the observer a frame
  await page.waitForFunction(() => document.querySelector('#compare-kernels .export-csv'));
  const cards = await page.$$eval('.view .card', (cs) => cs.map((c) => ({
    id: c.id, canvas: !!c.querySelector('canvas'), table: !!c.querySelector('table'),
    png: c.querySelectorAll('.export-png').length, csv: c.querySelectorAll('.export-csv').length,
  })));
  const charts = cards.filter((c) => c.canvas), tables = cards.filter((c) => c.table);
  assert.deepEqual(charts.map((c) => c.id).sort(), ['compare-cdf', 'compare-chart', 'compare-timelines']);
  for (const c of charts) assert.equal(c.png, 1, JSON.stringify(c));
  assert.ok(tables.some((c) => c.id === 'compare-kernels'), JSON.stringify(cards));
  for (const c of tables) assert.equal(c.csv, 1, JSON.stringify(c));
  for (const c of cards.filter((x) => !x.canvas)) assert.equal(c.png, 0, JSON.stringify(c));

  // the per-kernel table as CSV: its header and one row per kernel shown
  let dl = page.waitForEvent('download');
  await page.click('#compare-kernels .export-csv');
  let file = await dl;
  assert.equal(file.suggestedFilename(), 'Compare_most-room_vs_round-robin-kernels.csv');
  const lines = (await downloaded(file)).toString('utf8').trimEnd().split('\r\n');
  const shown = await page.$$eval('#compare-kernels tbody tr', (rs) => rs.length);
  const heads = await page.$$eval('#compare-kernels thead tr', (trs) => trs.map((tr) =>
    [...tr.children].map((t) => t.textContent.replace(/\s+/g, ' ').trim())));
  assert.equal(lines.length, heads.length + shown);
  heads.forEach((row, i) => assert.equal(lines[i], row.map((x) => (/[",]/.test(x) ? `"${x.replace(/"/g, '""')}"` : x)).join(',')));
  assert.ok(lines[heads.length].includes(','), lines[heads.length]);
  assert.ok(shown >= 2, `${shown} kernels`);

  // the timelines as one PNG: the lanes composed where they lie
  dl = page.waitForEvent('download');
  await page.click('#compare-timelines .export-png');
  file = await dl;
  assert.equal(file.suggestedFilename(), 'Compare_most-room_vs_round-robin-blocks_on_one_time_axis.png');
  const png = await downloaded(file);
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const box = await page.$$eval('#compare-timelines canvas', (cs) => {
    const r = cs.filter((c) => c.offsetParent).map((c) => c.getBoundingClientRect());
    return { h: Math.max(...r.map((b) => b.bottom)) - Math.min(...r.map((b) => b.top)) };
  });
  // IHDR height: the composed lanes, at the canvases' resolution (≥ CSS px)
  assert.ok(png.readUInt32BE(20) >= Math.floor(box.h), `${png.readUInt32BE(20)} < ${box.h}`);
  assert.deepEqual(br.problems, []);
});

test('in a card\'s heading row the CSV button sits at the right beside the card\'s own button, on its line', async () => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${srv.base}/experiments/${pascal.slug}`);
  await ready(page, 'experiment');
  await page.waitForFunction(() => document.querySelector('.section-head .export-csv'));
  const box = await page.evaluate(() => {
    const head = document.querySelector('.section-head .export-csv').closest('.section-head');
    const r = (el) => { const b = el.getBoundingClientRect(); return { left: b.left, right: b.right, mid: (b.top + b.bottom) / 2 }; };
    return { head: r(head), h2: r(head.querySelector('h2')), csv: r(head.querySelector('.export-csv')), compare: r(head.querySelector('#compare-link')) };
  });
  // the title at the left; CSV then "Compare runs" at the right, 6-24 px apart
  assert.ok(box.csv.right <= box.compare.left, JSON.stringify(box));
  const gap = box.compare.left - box.csv.right;
  assert.ok(gap >= 6 && gap <= 24, `CSV ${gap} px from "Compare runs": ${JSON.stringify(box)}`);
  assert.ok(box.compare.right > box.head.right - 2, JSON.stringify(box));
  assert.ok(box.csv.left - box.h2.right > 200, `the CSV button is not pushed right: ${JSON.stringify(box)}`);
  // one line: the buttons' middles within 2 px of each other
  assert.ok(Math.abs(box.csv.mid - box.compare.mid) <= 2, JSON.stringify(box));
  assert.deepEqual(br.problems, []);
});
