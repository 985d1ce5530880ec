// sweep_reference.test.mjs -- a sweep spec's "reference" (the paper's or
// the authors' code's numbers, docs/api.md "Sweeps started from the page")
// is drawn beside the series of ours it names (web/js/charts/sweep.mjs
// referenceSeries, views/sweep.mjs): a name the sweep does not compute (a
// typo such as "gcaps_suspend_gpiro") was stored and never drawn, without a
// word. It is refused with its place, as every other bad spec value is.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { cli, repo, tempDir, writeIn } from './server.mjs';

const spec = (f) => JSON.parse(readFileSync(join(repo, 'sweeps', f), 'utf8'));

test('schedulability: a reference for an approach the sweep does not compute is refused, naming it', () => {
  const dir = tempDir('sweep-ref');
  const s = spec('gcaps-fig8a-tasks.json');
  s.tasksets = 2;
  const ok = cli(['sweep', writeIn(dir, 'ok.json', s), '--shard', '0/1', '--progress', '0']);
  assert.equal(ok.code, 0, ok.stderr);   // the shipped reference: every name one of ours
  s.reference.schedulable.gcaps_suspend_gpiro = s.reference.schedulable.gcaps_suspend_gprio;
  const typo = cli(['sweep', writeIn(dir, 'typo.json', s), '--shard', '0/1', '--progress', '0']);
  assert.equal(typo.code, 2);
  assert.match(typo.stderr, /typo\.json: reference\.schedulable\.gcaps_suspend_gpiro: not one this sweep computes \(it computes: tsg_rr_busy, .*gcaps_suspend_gprio.*\)/);
  // a spec that computes fewer approaches: a reference for another is refused too
  const t = spec('gcaps-fig8a-tasks.json');
  t.tasksets = 2;
  t.approaches = ['gcaps_busy', 'gcaps_suspend'];
  t.reference.schedulable = { gcaps_busy: t.reference.schedulable.gcaps_busy_gprio, tsg_rr_busy: t.reference.schedulable.tsg_rr_busy };
  const few = cli(['sweep', writeIn(dir, 'few.json', t), '--shard', '0/1', '--progress', '0']);
  assert.equal(few.code, 2);
  assert.match(few.stderr, /reference\.schedulable\.tsg_rr_busy: not one this sweep computes \(it computes: gcaps_busy, gcaps_suspend\)/);
});

test('QoS: a reference for a scheme the sweep does not run is refused, naming it', () => {
  const dir = tempDir('sweep-ref-qos');
  const s = spec('isca17-qosreach-reduced.json');
  s.template = join(repo, 'sweeps', s.template);
  s.kernels = join(repo, 'sweeps', s.kernels);
  s.reference.qosreach.rolover = 88.4;
  const r = cli(['sweep', writeIn(dir, 'q.json', s), '--shard', '0/1', '--progress', '0', '--threads', '1']);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /q\.json: reference\.qosreach\.rolover: not one this sweep computes \(it computes: naive, history, elastic, rollover, rollover-time, spart\)/);
});
