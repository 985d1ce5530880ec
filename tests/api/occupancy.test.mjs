// occupancy.test.mjs -- issue 9 for issue 15's legend: GET
// /api/runs/{run}/occupancy?kernels= answers the per-SM occupancy bins of
// only the listed kernels from the per-kernel pyramid. Every bin is checked
// against the same bin computed here from the listed kernels' raw blocks,
// for a few kernels shown, all but a few (the server subtracts the hidden
// ones), none and all; errors are one line naming the place.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { HALF_E6, getJson, startServer, postScenario } from './server.mjs';

let srv, run, all, kernels, sms, summary;

// 16 kernels on 4 streams of an H100 (132 SMs), ~9 K blocks
function scenario() {
  const ops = [];
  for (let k = 0; k < 16; k++) {
    ops.push({ kernel: `K${k}`, stream: `S${k % 4}`, at: `${k * 11}us`, blocks: 300 + 47 * k,
      threads: 64 * (1 + (k % 8)), block_time: ['3us', '17us', '41us', '9us'] });
  }
  return { schema: 'schedlab-scenario/1', name: 'occupancy', device: 'h100',
    streams: [0, 1, 2, 3].map((i) => ({ name: `S${i}` })), ops };
}

before(async () => {
  srv = await startServer();
  run = (await postScenario(srv.base, scenario())).runs[0].run;
  all = (await getJson(`${srv.base}/api/runs/${run}/blocks?max=200000`)).body.blocks;
  kernels = (await getJson(`${srv.base}/api/runs/${run}/kernels`)).body.kernels;
  summary = (await getJson(`${srv.base}/api/runs/${run}`)).body.summary;
  sms = summary.sms;
  assert.equal(kernels.length, 16);
  assert.ok(all.length > 8000, `${all.length} blocks`);
});

after(async () => { await srv?.stop(); });

// per-SM thread-ns and block-ns over [lo, hi) of the blocks of `set`
function raw(set, lo, hi) {
  const thr = new Array(sms).fill(0), blk = new Array(sms).fill(0);
  for (const b of all) {
    if (!set.has(b.kernel)) continue;
    const ov = Math.min(b.end, hi) - Math.max(b.start, lo);
    if (ov <= 0) continue;
    blk[b.sm] += ov;
    thr[b.sm] += ov * kernels[b.kernel].threads;
  }
  return { thr, blk };
}

function checkBins(r, set, from, to) {
  assert.equal(r.mode, 'bins');
  assert.equal(r.from, from);
  assert.equal(r.to, to);
  assert.equal(r.sms, sms);
  const ts = [...new Set(r.bins.map((b) => b.t))].sort((a, b) => a - b);
  assert.equal(r.bins.length, ts.length * sms);
  const A = ts[0], B = ts.at(-1) + r.bin_ns;
  assert.equal(r.total, all.filter((b) => set.has(b.kernel) &&
    ((b.start < A && b.end > A) || (b.start >= A && b.start < B))).length);
  const cut = new Map(ts.map((t) => [t, raw(set, Math.max(t, from), Math.min(t + r.bin_ns, to))]));
  let busy = 0;
  for (const bin of r.bins) {
    const len = Math.min(bin.t + r.bin_ns, to) - Math.max(bin.t, from);
    const want = cut.get(bin.t);
    assert.ok(Math.abs(bin.blocks - want.blk[bin.sm] / len) <= HALF_E6, `sm ${bin.sm} t ${bin.t}: blocks ${bin.blocks} vs ${want.blk[bin.sm] / len}`);
    assert.ok(Math.abs(bin.threads - want.thr[bin.sm] / len) <= HALF_E6, `sm ${bin.sm} t ${bin.t}: threads ${bin.threads} vs ${want.thr[bin.sm] / len}`);
    busy += bin.blocks > 0;
  }
  return busy;
}

const occ = (q) => getJson(`${srv.base}/api/runs/${run}/occupancy?${q}`);

describe('GET /api/runs/{run}/occupancy', () => {
  test('bins of the listed kernels equal their raw blocks, at several windows and zooms', async () => {
    const span = summary.t_max - summary.t_min;
    const sets = [['3', [3]], ['0-2,9', [0, 1, 2, 9]], ['0-4,6-15', [0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]]];
    for (const [spec, ids] of sets) {
      const set = new Set(ids);
      for (const [f, w, max] of [[0, 1, 2000], [0.1, 0.5, 300], [0.37, 0.05, 4000]]) {
        const from = summary.t_min + Math.round(span * f) + (f ? 7 : 0);
        const to = f ? from + Math.round(span * w) + 3 : summary.t_max;
        const r = await occ(`from=${from}&to=${to}&max=${max}&kernels=${spec}`);
        assert.equal(r.status, 200, JSON.stringify(r.body));
        checkBins(r.body, set, from, to);
      }
    }
  });

  test('hiding one kernel empties exactly the bins it alone made busy', async () => {
    const allIds = new Set(kernels.map((_, i) => i));
    const q = `from=${summary.t_min}&to=${summary.t_max}&max=20000`;
    const full = (await occ(q)).body;
    const busyAll = checkBins(full, allIds, summary.t_min, summary.t_max);
    // the /blocks bins of the same window are the same numbers
    const q2 = `from=${summary.t_min}&to=${summary.t_max}&max=2000`;
    const blocks = (await getJson(`${srv.base}/api/runs/${run}/blocks?${q2}`)).body;
    const full2 = (await occ(q2)).body;
    assert.equal(blocks.mode, 'bins');
    assert.deepEqual(full2.bins, blocks.bins);
    const noK15 = new Set([...allIds].filter((k) => k !== 15));
    const r = (await occ(`${q}&kernels=0-14`)).body;
    const busy = checkBins(r, noK15, summary.t_min, summary.t_max);
    assert.ok(busy < busyAll, `hiding K15 empties bins: ${busy} < ${busyAll}`);
    // none: every bin empty
    const none = (await occ(`${q}&kernels=`)).body;
    assert.equal(none.total, 0);
    assert.ok(none.bins.every((b) => b.threads === 0 && b.blocks === 0));
  });

  test('ETag names the set however it is spelled; If-None-Match -> 304', async () => {
    const q = `from=${summary.t_min}&to=${summary.t_max}&max=3000`;
    const a = await fetch(`${srv.base}/api/runs/${run}/occupancy?${q}&kernels=1-3,5`);
    const b = await fetch(`${srv.base}/api/runs/${run}/occupancy?${q}&kernels=1,2,3,5`);
    const c = await fetch(`${srv.base}/api/runs/${run}/occupancy?${q}&kernels=1-3`);
    assert.equal(a.status, 200);
    assert.match(a.headers.get('cache-control'), /immutable/);
    assert.equal(a.headers.get('etag'), b.headers.get('etag'));
    assert.notEqual(a.headers.get('etag'), c.headers.get('etag'));
    assert.equal(await a.text(), await b.text());
    const again = await fetch(`${srv.base}/api/runs/${run}/occupancy?${q}&kernels=1-3,5`,
      { headers: { 'if-none-match': a.headers.get('etag') } });
    assert.equal(again.status, 304);
  });

  // docs/api.md: "defaults: the whole run, max 20000, every kernel"; a
  // `from` given alone runs to the run's end, or one ns past it when it is
  // there already; the ETag names the window and max as well as the set
  test('defaults: the whole run, max 20000, every kernel; from alone runs to the end', async () => {
    const def = await fetch(`${srv.base}/api/runs/${run}/occupancy`);
    assert.equal(def.status, 200);
    const d = await def.json();
    assert.equal(d.from, summary.t_min);
    assert.equal(d.to, summary.t_max);
    const q = `from=${summary.t_min}&to=${summary.t_max}&max=20000`;
    const given = await fetch(`${srv.base}/api/runs/${run}/occupancy?${q}&kernels=0-15`);
    assert.deepEqual(d, await given.json());
    assert.equal(def.headers.get('etag'), given.headers.get('etag'));
    const other = await fetch(`${srv.base}/api/runs/${run}/occupancy?from=${summary.t_min}&to=${summary.t_max}&max=19999`);
    assert.notEqual(other.headers.get('etag'), def.headers.get('etag'), 'max is part of the ETag');
    const mid = Math.round((summary.t_min + summary.t_max) / 2);
    const tail = (await occ(`from=${mid}`)).body;
    assert.equal(tail.to, summary.t_max);
    checkBins(tail, new Set(kernels.map((_, i) => i)), mid, summary.t_max);
    const end = await occ(`from=${summary.t_max}`);
    assert.equal(end.status, 200, JSON.stringify(end.body));
    assert.equal(end.body.to, summary.t_max + 1);
    const at = await occ(`from=${mid}&to=${mid}`);
    assert.equal(at.status, 400);
    assert.equal(at.body.error, `to: ${mid} is not after from (${mid})`);
  });

  // A GPU of two SMs (tx2) with 20,000 short blocks from 50 us on: its
  // window does not start at 0, and its finest level has thousands of bins
  // an SM, so the cap shows (docs/api.md: "at least 1 and at most 2000 bins
  // per SM"), on /blocks' bins and on these alike
  test('a run that starts late defaults to its own start; at most 2000 bins an SM however large max', async () => {
    const late = (await postScenario(srv.base, { schema: 'schedlab-scenario/1', name: 'late', device: 'tx2',
      streams: [{ name: 'S1' }], ops: [{ kernel: 'K', stream: 'S1', at: '50us', blocks: 20000, threads: 1024,
        block_time: ['1us', '2us', '3us'] }] })).runs[0].run;
    const info = (await getJson(`${srv.base}/api/runs/${late}/tiles`)).body;
    assert.ok(info.t_min >= 50000, `t_min ${info.t_min}`);
    assert.ok((info.t_max - info.t_min) / 2 ** info.z0 > 8000, `finest level ${info.z0}: too coarse to show the cap`);
    const d = (await getJson(`${srv.base}/api/runs/${late}/occupancy`)).body;
    assert.equal(d.from, info.t_min);
    assert.equal(d.to, info.t_max);
    for (const path of ['occupancy?max=200000', 'blocks?max=19999']) {
      const r = (await getJson(`${srv.base}/api/runs/${late}/${path}`)).body;
      assert.equal(r.mode, 'bins', path);
      assert.deepEqual([r.from, r.to], [info.t_min, info.t_max], path);
      assert.equal(r.sms, 2);
      const per = r.bins.length / r.sms;
      assert.ok(per <= 2000 && per > 1000, `${path}: ${per} bins an SM`);
    }
    // /blocks' window as /occupancy's (docs/api.md): from alone at the
    // run's end runs one ns past it; from = to is refused
    const end = await getJson(`${srv.base}/api/runs/${late}/blocks?from=${info.t_max}`);
    assert.equal(end.status, 200, JSON.stringify(end.body));
    assert.deepEqual([end.body.from, end.body.to], [info.t_max, info.t_max + 1]);
    const at = await getJson(`${srv.base}/api/runs/${late}/blocks?from=${info.t_max}&to=${info.t_max}`);
    assert.equal(at.status, 400);
    assert.equal(at.body.error, `to: ${info.t_max} is not after from (${info.t_max})`);
  });

  test('errors: one line naming the place', async () => {
    for (const [q, status, msg] of [
      ['kernels=3-x', 400, 'kernels: "3-x" at character 1: expected a kernel id after \'-\''],
      ['kernels=a', 400, 'kernels: "a" at character 1: expected a kernel id'],
      ['kernels=1;2', 400, 'kernels: ";2" at character 2: expected \',\' between ids'],
      ['kernels=7-3', 400, 'kernels: range 7-3 at character 1 runs backwards'],
      ['kernels=0,16', 400, 'kernels: 16 is not a kernel of the run (ids 0..15)'],
      ['max=0', 400, 'max: 0 is out of range (1..200000)'],
      ['from=10&to=5', 400, 'to: 5 is not after from (10)'],
    ]) {
      const r = await occ(q);
      assert.equal(r.status, status, q);
      assert.equal(r.body.error, msg, q);
      assert.ok(!r.body.error.includes('\n'));
    }
    const r = await getJson(`${srv.base}/api/runs/nosuchrun0/occupancy?kernels=1`);
    assert.equal(r.status, 404);
    assert.match(r.body.error, /no run named "nosuchrun0"/);
  });
});
