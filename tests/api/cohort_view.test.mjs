// cohort_view.test.mjs -- issue 28, "the placement view of a replay draws
// them": a run simulated with cohorts ("cohorts": true, simcore/cohort.c)
// answers the timeline's reads as the block-by-block run of the same
// scenario does. One scenario is posted twice, cohorts off and on (the
// schedule is the same, test_cohort_props.c); then GET /blocks of windows
// holding at most `max` blocks is byte-identical, and so are its bins past
// `max` (the occupancy pyramid counts the cohorts' blocks in closed form),
// /occupancy of kernel sets, the tiles and the run's block count. Past
// `max` blocks a cohort run may list each wave of a cohort on an SM as one
// entry with its `count` and `stride`: the counts add up to the blocks the
// block run has in that window, each entry stands for the blocks it says.
// Then the replay of a kernel-level trace of 56 M blocks (cohort_trace.mjs)
// is drawn: bins over the whole run, counted waves in a middle window,
// blocks in a small one.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { getJson, startServer, postScenario } from './server.mjs';
import { cohortTrace, COHORT_KERNELS } from '../fixtures/cohort_trace.mjs';

const JSON_BODY = { 'Content-Type': 'application/json' };
let srv, plain, coh, all, summary;

// Kernels of one block time on a TX2 (2 SMs): waves repeat, cohorts are
// made; K2 has several block times, so its blocks are placed one by one
// (ordinary blocks among the cohorts); K4 starts while K3 runs.
function scenario(cohorts) {
  const k = (kernel, stream, at, blocks, threads, blockTime) =>
    ({ kernel, stream, at, blocks, threads, block_time: blockTime });
  return { schema: 'schedlab-scenario/1', name: `cohort view ${cohorts ? 'on' : 'off'}`, device: 'tx2',
    cohorts, streams: [{ name: 'S0' }, { name: 'S1' }],
    ops: [k('K0', 'S0', '0us', 12000, 64, '2us'), k('K1', 'S0', '1us', 1500, 256, '3us'),
      k('K2', 'S1', '2us', 700, 128, ['1us', '4us', '2500ns']), k('K3', 'S0', '3us', 2400, 1024, '5us'),
      k('K4', 'S1', '9000us', 900, 64, '7us')] };
}

before(async () => {
  srv = await startServer();
  plain = (await postScenario(srv.base, scenario(false))).runs[0].run;
  coh = (await postScenario(srv.base, scenario(true))).runs[0].run;
  const r = await getJson(`${srv.base}/api/runs/${plain}/blocks?max=200000`);
  assert.equal(r.body.mode, 'blocks');
  all = r.body.blocks;
  summary = (await getJson(`${srv.base}/api/runs/${plain}`)).body.summary;
});

after(async () => { await srv?.stop(); });

const text = async (run, q) => {
  const r = await fetch(`${srv.base}/api/runs/${run}/${q}`);
  assert.equal(r.status, 200, q);
  return r.text();
};

describe('a cohort run answers as its block-by-block run', () => {
  test('the same summary; the cohort run keeps far fewer records', async () => {
    const s = (await getJson(`${srv.base}/api/runs/${coh}`)).body.summary;
    assert.equal(s.blocks, summary.blocks);
    assert.equal(s.blocks, 12000 + 1500 + 700 + 2400 + 900);
    assert.equal(s.t_min, summary.t_min);
    assert.equal(s.t_max, summary.t_max);
    const trace = (await getJson(`${srv.base}/api/runs/${coh}/export?format=trace`)).body;
    assert.ok(trace.cohorts.length > 0 && trace.cohorts.length < 200, `${trace.cohorts.length} cohorts`);
    assert.ok(trace.blocks.length < s.blocks / 4, `${trace.blocks.length} blocks placed one by one`);
  });

  test('/blocks: byte-identical under max, bins alike past it, counted waves that add up', async () => {
    const span = summary.t_max - summary.t_min;
    let same = 0, listed = 0, counted = 0;
    for (const [a, b, max, abs] of [[0, 1, 200000], [0, 1, 20000], [0, 0.01, 20000], [0.3, 0.31, 500],
      [0.1, 0.6, 50], [0.5, 0.52, 2000], [0.05, 0.9, 300], [0.99, 1, 1000], [0.2, 0.2001, 20],
      [0, 0.4, 20000], [0.4, 0.9, 100], [0, 100e3, 1000, true], [50e3, 300e3, 2000, true]]) {
      // (abs: a and b in ns: K0's waves of 32 blocks an SM)
      const from = abs ? a : summary.t_min + Math.floor(a * span);
      const to = abs ? b : summary.t_min + Math.ceil(b * span) + 1;
      const q = `blocks?from=${from}&to=${to}&max=${max}`;
      const [p, c] = [await text(plain, q), await text(coh, q)];
      const pj = JSON.parse(p), cj = JSON.parse(c);
      if (pj.mode === 'blocks' || cj.mode === 'bins') {
        assert.equal(c, p, `${q}: the cohort run's answer differs`);
        same++;
        listed += pj.mode === 'blocks';
        continue;
      }
      // past max blocks: the cohorts' waves counted, at most max entries
      counted++;
      assert.equal(cj.mode, 'blocks');
      assert.ok(cj.blocks.length <= max);
      const inside = all.filter((x) => x.start < to && x.end > from);
      assert.equal(cj.total, inside.length, q);
      assert.equal(cj.blocks.reduce((n, x) => n + (x.count || 1), 0), inside.length, q);
      assert.ok(cj.blocks.some((x) => x.count > 1), q);
      // each entry: count blocks of its kernel, indices index + i * stride,
      // on its SM from start to end, as the block run has them
      const key = (x) => `${x.kernel}:${x.index}`;
      const byKey = new Map(inside.map((x) => [key(x), x]));
      for (const e of cj.blocks) {
        for (let i = 0; i < (e.count || 1); i++) {
          const x = byKey.get(`${e.kernel}:${e.index + i * (e.stride || 1)}`);
          assert.ok(x, `${q}: ${JSON.stringify(e)} block ${i}`);
          assert.deepEqual([x.sm, x.start, x.end], [e.sm, e.start, e.end]);
        }
      }
      for (let i = 1; i < cj.blocks.length; i++) assert.ok(cj.blocks[i - 1].start <= cj.blocks[i].start);
    }
    assert.ok(listed >= 4 && counted >= 2, `${listed} listed, ${counted} counted, ${same} alike`);
  });

  test('occupancy pyramids: tiles, /occupancy of kernel sets and bins at several zooms are the same', async () => {
    const info = JSON.parse(await text(plain, 'tiles'));
    const cinfo = JSON.parse(await text(coh, 'tiles'));
    delete info.run;
    delete cinfo.run;
    assert.deepEqual(cinfo, info);
    for (let z = info.z0; z <= info.ztop; z += 2) {
      const k0 = Math.floor(info.t_min / 2 ** z / 64), k1 = Math.floor(info.t_max / 2 ** z / 64);
      for (let i = k0; i <= Math.min(k1, k0 + 6); i++) {
        const strip = (s) => s.replace(/^\{"run":"[a-z0-9]+"/, '{"run":""');
        assert.equal(strip(await text(coh, `tiles/${z}/${i}`)), strip(await text(plain, `tiles/${z}/${i}`)), `tile ${z}/${i}`);
      }
    }
    const span = summary.t_max - summary.t_min;
    for (const [a, b, max] of [[0, 1, 2000], [0, 1, 40], [0.2, 0.5, 600], [0.33, 0.34, 20000]]) {
      const from = summary.t_min + Math.floor(a * span), to = summary.t_min + Math.ceil(b * span) + 1;
      for (const k of ['0-4', '2', '0,3', '1-4', '']) {
        const q = `occupancy?from=${from}&to=${to}&max=${max}&kernels=${k}`;
        assert.equal(await text(coh, q), await text(plain, q), q);
      }
    }
  });

  test('the Chrome export has the cohorts\' waves as slices with args.count', async () => {
    const ch = (await getJson(`${srv.base}/api/runs/${coh}/export?format=chrome`)).body;
    const slices = ch.traceEvents.filter((e) => e.ph === 'X' && e.pid === 1);
    assert.equal(slices.reduce((n, e) => n + (e.args.count || 1), 0), summary.blocks);
    assert.ok(slices.some((e) => e.args.count > 1));
    assert.ok(slices.length < summary.blocks / 2, `${slices.length} slices`);
  });
});

describe('the replay of a kernel-level trace of 56 M blocks', () => {
  let run;
  const total = COHORT_KERNELS.reduce((n, [, b]) => n + b, 0);
  before(async () => {
    const imp = await getJson(`${srv.base}/api/imports?name=cohort-kernels.json`,
      { method: 'POST', headers: { 'Content-Type': 'application/octet-stream' }, body: JSON.stringify(cohortTrace()) });
    assert.equal(imp.status, 201, JSON.stringify(imp.body));
    let r = await getJson(`${srv.base}/api/runs/${imp.body.run}/replay`, { method: 'POST', headers: JSON_BODY, body: '{}' });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    for (;;) {
      const j = (await getJson(`${srv.base}${r.body.url}`)).body;
      if (j.state === 'done') { r = j.result; break; }
      assert.ok(['queued', 'running'].includes(j.state), JSON.stringify(j));
      await new Promise((ok) => setTimeout(ok, 100));
    }
    run = r.runs[0].run;
  });

  test('its blocks are counted, binned, counted by wave and listed, by zoom', async () => {
    const s = (await getJson(`${srv.base}/api/runs/${run}`)).body.summary;
    assert.equal(s.blocks, total);
    // the whole run: occupancy bins of every block (8 of 256 threads fill an SM)
    const whole = (await getJson(`${srv.base}/api/runs/${run}/blocks`)).body;
    assert.equal(whole.mode, 'bins');
    assert.equal(whole.total, total);
    const busy = whole.bins.filter((b) => b.t > 2e6 && b.t < 30e6);
    assert.ok(busy.length > 0 && busy.every((b) => b.blocks === 8 && b.threads === 2048), JSON.stringify(busy[0]));
    // 300 µs of fill: 149,520 blocks, one entry per wave and SM
    const mid = (await getJson(`${srv.base}/api/runs/${run}/blocks?from=1000&to=300000`)).body;
    assert.equal(mid.mode, 'blocks');
    assert.ok(mid.blocks.length <= 20000);
    assert.equal(mid.blocks.reduce((n, x) => n + (x.count || 1), 0), mid.total);
    assert.ok(mid.total > 100000);
    assert.deepEqual(mid.blocks[0], { kernel: 0, index: 0, sm: 0, start: mid.blocks[0].start, end: mid.blocks[0].end, count: 8, stride: 6 });
    // a few waves: every block
    const small = (await getJson(`${srv.base}/api/runs/${run}/blocks?from=1000&to=2000`)).body;
    assert.equal(small.mode, 'blocks');
    assert.equal(small.total, small.blocks.length);
    assert.ok(small.blocks.every((x) => x.count === undefined));
    assert.deepEqual(small.blocks.slice(0, 48).map((x) => x.index), [...Array(48).keys()]);
  });
});
