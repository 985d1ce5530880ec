// rta_corrected.test.mjs -- issue 27: each shipped counterexample scenario
// (scenarios/gcaps-counterexample-{a,b,c,d,e}.json, docs/rta.md) has a task
// whose simulated MORT passes its printed bound and stays within the
// corrected one. The MORTs are the hand derivations in each scenario's
// description (and in tests/unit/test_contexts_xcheck.c); the printed
// bounds are the lemmas as printed, worked out there too.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';

import { cli, repo } from './server.mjs';

const MS = 1000000;
const cases = [
  // file, approach, task, MORT by hand, printed bound by hand
  ['a', 'tsg_rr_suspend', 'rt', 23.78 * MS, 22.48 * MS],
  ['b', 'gcaps_suspend', 'tau', 11.98 * MS, 11 * MS],
  ['c', 'gcaps_suspend', 'v', 15.5 * MS, 6 * MS],
  ['d', 'gcaps_busy', 'c', 17 * MS, 6 * MS],
  ['e', 'gcaps_suspend', 'tau', 14.4 * MS, 6 * MS],
];

function run(args) {
  const r = cli(args);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

for (const [x, approach, task, mort, printed] of cases) {
  test(`counterexample ${x.toUpperCase()}: ${task}'s MORT breaks the printed ${approach} bound, not the corrected one`, () => {
    const file = join(repo, `scenarios/gcaps-counterexample-${x}.json`);
    const t = run(['simulate', file]);
    const max = Number(/max=(\d+)/.exec(t.meta[`task:${task}`])[1]);
    assert.ok(Math.abs(max - mort) < 1000, `MORT ${max} ns, by hand ${mort}`);
    const r = run(['rta', file]);
    assert.equal(r.by_semantics.printed[approach].wcrt[task], printed);
    assert.ok(max > r.by_semantics.printed[approach].wcrt[task]);
    const corrected = r.by_semantics.corrected[approach].wcrt[task];
    assert.ok(corrected !== null && max <= corrected, `corrected bound ${corrected} < MORT ${max}`);
  });
}
