// rta_corrected.test.mjs -- issue 27: each shipped counterexample scenario
// (scenarios/gcaps-counterexample-{a,...,h}.json, docs/rta.md) has a task
// whose simulated MORT passes its printed bound and stays within the
// corrected one. The MORTs are the hand derivations in each scenario's
// description (and in tests/unit/test_contexts_xcheck.c); the printed
// bounds are the lemmas as printed, worked out there too. F, G and H broke
// the corrected analysis as it was before K7, K8 and K9 (the safety runs
// found them); `before` is that bound, worked out by hand in their
// descriptions, which the MORT must pass too.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';

import { cli, repo } from './server.mjs';

const MS = 1000000;
const cases = [
  // file, approach, task, MORT by hand, printed bound by hand[, variant,
  // corrected bound before the correction by hand]
  ['a', 'tsg_rr_suspend', 'rt', 23.78 * MS, 22.48 * MS],
  ['b', 'gcaps_suspend', 'tau', 11.96 * MS, 11 * MS],
  ['c', 'gcaps_suspend', 'v', 15.5 * MS, 6 * MS],
  ['d', 'gcaps_busy', 'c', 17 * MS, 6 * MS],
  ['e', 'gcaps_suspend', 'tau', 14.4 * MS, 6 * MS],
  ['f', 'gcaps_suspend', 'tau', 5900000, 4100000, null, 5100000],
  ['g', 'fmlp_busy', 'c', 6.2 * MS, 6 * MS, null, 6 * MS],
  ['g', 'mpcp_busy', 'c', 6.2 * MS, 6 * MS, 'mpcp', 6 * MS],
  ['h', 'fmlp_suspend', 'l', 10.9 * MS, 1 * MS, null, 1 * MS],
];

function run(args) {
  const r = cli(args);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

for (const [x, approach, task, mort, printed, variant, before] of cases) {
  test(`counterexample ${x.toUpperCase()}: ${task}'s MORT breaks the printed ${approach} bound, not the corrected one`, () => {
    const file = join(repo, `scenarios/gcaps-counterexample-${x}.json`);
    const t = run(['simulate', file, ...(variant ? ['--variant', variant] : [])]);
    const max = Number(/max=(\d+)/.exec(t.meta[`task:${task}`])[1]);
    assert.ok(Math.abs(max - mort) < 1000, `MORT ${max} ns, by hand ${mort}`);
    if (before !== undefined) assert.ok(max > before, `MORT ${max} within the bound before the correction, ${before}`);
    const r = run(['rta', file]);
    assert.equal(r.by_semantics.printed[approach].wcrt[task], printed);
    assert.ok(max > r.by_semantics.printed[approach].wcrt[task]);
    const corrected = r.by_semantics.corrected[approach].wcrt[task];
    assert.ok(corrected !== null && max <= corrected, `corrected bound ${corrected} < MORT ${max}`);
  });
}
