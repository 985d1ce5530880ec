// bench.test.mjs -- the parts of make bench's issue-9 rows (bench/issue9.mjs,
// docs/bench.md) that decide what a row reports, tested without timing
// anything: wrk's report read into exact numbers, the bench workload's
// scenario (the kernels bench_sim simulates, valid for `schedlab simulate`),
// and the nginx the bench starts serving the exact bytes it is given from a
// loopback port of its own. nginx is skipped with one line when it is not
// installed (tools/install-deps.sh installs it).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { bin, tempDir } from './server.mjs';
import { parseWrk, get, startNginx, have, median } from '../../bench/http.mjs';
import { benchScenario } from '../../bench/scenario.mjs';
import { gpusReplay, REPLAY_CASES, traceRows, tracesDir } from '../../bench/traces.mjs';

const WRK_OUT = `Running 5s test @ http://127.0.0.1:8080/api/runs/x/blocks?from=1&to=2
  2 threads and 64 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   563.12ms  201.05ms   1.18s    71.00%
    Req/Sec    56.10     20.33   110.00     68.00%
  Latency Distribution
     50%  540.50ms
     75%  700.00ms
     90%  850.25us
     99%    1.18s
  555 requests in 5.01s, 366.29MB read
  Socket errors: connect 0, read 3, write 0, timeout 2
  Non-2xx or 3xx responses: 4
Requests/sec:    110.78
Transfer/sec:     73.11MB
`;

test('a wrk report is read into exact numbers, latencies in ms', () => {
  const r = parseWrk(WRK_OUT);
  assert.deepEqual(r, {
    rps: 110.78, requests: 555, p50_ms: 540.5, p75_ms: 700, p90_ms: 0.85025, p99_ms: 1180,
    non2xx: 4, errors: 5, socket_errors: { connect: 0, read: 3, write: 0, timeout: 2 },
  });
});

test('a wrk run that finished no request has no latencies, and garbage is an error', () => {
  const none = WRK_OUT.replace('555 requests in', '0 requests in').replace(/^\s+\d+%\s+\S+$/gm, (l) => l.replace(/\S+$/, '0.00us'));
  const r = parseWrk(none);
  assert.equal(r.requests, 0);
  assert.equal(r.p50_ms, null);
  assert.equal(r.p99_ms, null);
  assert.throws(() => parseWrk('wrk: connection refused', 'http://x/'), /wrk http:\/\/x\/: cannot read its output/);
});

test('median of the repeats', () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.equal(median([]), null);
});

test('the bench scenario has bench_sim\'s shape and exactly the blocks asked for', () => {
  for (const n of [4096, 100000, 1000000, 16000000]) {
    const s = benchScenario(n);
    assert.equal(s.ops.length, 4096);
    assert.equal(s.streams.length, 64);
    assert.equal(s.ops.reduce((a, o) => a + o.blocks, 0), n);
    assert.ok(s.ops.every((o) => o.blocks >= 1 && o.at >= 0 && o.at <= 20000000 && o.block_time.length === 4));
  }
  // the generator is deterministic: the same count gives the same scenario
  assert.deepEqual(benchScenario(100000), benchScenario(100000));
  // bench_sim.c's first two kernels at 100 K blocks (its splitmix64, seed
  // 42, drawn in its order), as that C code computes them
  assert.deepEqual(benchScenario(100000).ops.slice(0, 2), [
    { kernel: 'K0', stream: 'S29', at: 15246482, blocks: 25, threads: 256, smem: 27449, regs: 28, block_time: [33011, 13967, 44579, 6674] },
    { kernel: 'K1', stream: 'S29', at: 14848971, blocks: 33, threads: 1024, smem: 0, regs: 36, block_time: [24258, 46155, 8420, 46772] },
  ]);
  assert.throws(() => benchScenario(100), /bench scenario: 100 is not a block count >= 4096/);
});

test('schedlab simulate runs the bench scenario and places every block', { skip: !existsSync(bin) && `${bin} is not built` }, () => {
  const dir = tempDir('bench');
  const file = join(dir, 'bench.json');
  writeFileSync(file, JSON.stringify(benchScenario(8192)));
  const r = spawnSync(bin, ['simulate', file], { encoding: 'utf8', maxBuffer: 1 << 26 });
  rmSync(dir, { recursive: true, force: true });
  assert.equal(r.status, 0, r.stderr);
  const t = JSON.parse(r.stdout);
  assert.equal(t.kernels.length, 4096);
  assert.equal(t.blocks.length, 8192);
  assert.equal(t.device.name, 'h100');
});

test('the bench\'s nginx serves the exact bytes it is given, then stops', { skip: !have('nginx') && 'nginx is not installed (tools/install-deps.sh installs nginx-light)' }, async () => {
  const body = Buffer.from(`{"mode":"blocks","blocks":[${'1,'.repeat(50000)}1]}`);
  const ng = await startNginx({ 'a.json': body });
  let stopped = false;
  try {
    const r = await get(ng.url('a.json'));
    assert.equal(r.status, 200);
    assert.equal(Buffer.compare(r.body, body), 0);
    assert.equal((await get(ng.url('missing.json'))).status, 404);
    await ng.stop();
    stopped = true;
    await assert.rejects(get(ng.url('a.json')), /ECONNREFUSED/);
  } finally {
    if (!stopped) await ng.stop();
  }
});

// The rows of the real traces: found where the tests find them (README: by
// default shared/traces in the folder above the checkout; make bench used
// to pass no SCHEDLAB_TRACES, and both rows were left out without a word),
// each skipped with one line naming the file where it is not there.
test('the cohort and replay rows find the real traces as the tests do, and say when they skip', () => {
  assert.equal(tracesDir({}, '/x/lab/schedlab'), '/x/lab/shared/traces');
  assert.equal(tracesDir({ SCHEDLAB_TRACES: '/t' }, '/x/lab/schedlab'), '/t');
  const work = tempDir('bench-traces');
  const calls = [];
  const fake = {
    bin: 'build/bench', schedlab: 'schedlab', work,
    run: (cmd, args) => {
      calls.push([cmd, ...args]);
      if (cmd.endsWith('bench_cohort')) return `bench_cohort: skipped: ${args[0]}/x.sqlite not found (give the traces folder)\n`;
      return 'r0\n';
    },
    timedRun: (cmd, args) => { calls.push([cmd, ...args]); return { seconds: 1, cpu_seconds: 1, rss_mb: 10 }; },
  };
  const none = traceRows({ ...fake, traces: join(work, 'none') });
  assert.deepEqual(none.cohort, []);
  assert.deepEqual(none.replay, []);
  assert.equal(none.skipped.length, 1 + REPLAY_CASES.length);
  assert.match(none.skipped[0], /^bench_cohort: skipped: /);
  for (const [i, [, file]] of REPLAY_CASES.entries()) assert.ok(none.skipped[1 + i].includes(join(work, 'none', file)), none.skipped[1 + i]);
  assert.deepEqual(calls.map((c) => c[0]), ['build/bench/bench_cohort'], 'nothing imported without its trace');

  calls.length = 0;
  for (const [, file] of REPLAY_CASES) writeFileSync(join(work, file), '');
  const some = traceRows({ ...fake, traces: work });
  assert.deepEqual(some.replay.map((r) => `${r.trace}: ${r.case}`), REPLAY_CASES.flatMap(([t, , cases]) => cases.map((c) => `${t}: replay ${c[0]}`)));
  assert.ok(calls.some((c) => c.join(' ') === `schedlab replay r0 --db ${join(work, 'replay.db')} -o ${join(work, 'replay.json')}`));
});

// The replay row of several GPUs (bench/traces.mjs gpusReplay): each repeat
// on a fresh database, this build and the base one taking turns, min and
// median of what /usr/bin/time measured (faked here: what is checked is
// the row's arithmetic and its order of runs, not a speed).
test('the multi-GPU replay row runs each build in turn on a fresh database, min and median', () => {
  const work = tempDir('bench-gpus');
  const calls = [];
  const times = { new: [3, 1, 2], base: [9, 8, 7] };
  const fake = {
    schedlab: 'new', work, quick: true, env: { BENCH_BASE_SCHEDLAB: 'base' },
    run: (cmd, args) => {
      calls.push([cmd, ...args]);
      assert.equal(existsSync(join(work, 'gpus4.db')), false, 'a fresh database for every repeat');
      writeFileSync(join(work, 'gpus4.db'), '');
      return 'r1\n';
    },
    timedRun: (cmd, args) => {
      calls.push([cmd, ...args]);
      const s = times[cmd].shift();
      return { seconds: s, cpu_seconds: s / 2, rss_mb: 10 * s };
    },
  };
  const rows = gpusReplay(fake);
  assert.deepEqual(calls.filter((c) => c[1] === 'replay').map((c) => c[0]), ['new', 'base', 'new', 'base', 'new', 'base']);
  assert.ok(calls.every((c) => c[1] !== 'replay' || c.slice(2).join(' ') === `r1 --db ${join(work, 'gpus4.db')} --store -o /dev/null`));
  assert.deepEqual(rows.map((r) => [r.trace, r.repeat, r.seconds, r.seconds_median, r.cpu_seconds, r.peak_rss_mb_median]),
    [['4 GPUs x 0.5 M blocks', 3, 1, 2, 0.5, 20], ['4 GPUs x 0.5 M blocks (base)', 3, 7, 8, 3.5, 80]]);
  assert.equal(existsSync(join(work, 'gpus4.json')), false, 'the generated trace removed');
});
