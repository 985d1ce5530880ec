// golden.test.mjs -- every shipped scenario, every variant, simulated by the
// CLI, is byte-identical to the trace committed in tests/golden/scenarios/
// (written before the simcore seams refactor of issue 7). A difference means
// the simulator's behaviour or the trace writer changed: if that is intended,
// regenerate with tests/golden/make_golden.sh and say why in the commit.
// (The traces are simulated through sim_cache.mjs: readme_scenarios.test.mjs
// reads many of the same runs, and the one simulation serves both.)
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { repo } from './server.mjs';
import { simulate } from './sim_cache.mjs';

const scenarios = readdirSync(join(repo, 'scenarios')).filter((f) => f.endsWith('.json')).sort();

test('there are shipped scenarios and a golden trace for each run of each', () => {
  assert.ok(scenarios.length >= 11, `only ${scenarios.length} scenarios`);
});

for (const file of scenarios) {
  const spec = JSON.parse(readFileSync(join(repo, 'scenarios', file), 'utf8'));
  const runs = [null, ...(spec.variants || []).map((v) => v.name)];
  for (const run of runs) {
    const base = file.replace(/\.json$/, '');
    const golden = join(repo, 'tests/golden/scenarios', `${base}${run ? `--${run}` : ''}.trace.json`);
    test(`${file}${run ? ` --variant ${run}` : ''} matches its golden trace byte for byte`, () => {
      const r = simulate(join(repo, 'scenarios', file), run);
      assert.equal(r.code, 0, r.stderr);
      // a large trace is pinned by its SHA-256 and length (make_golden.sh)
      const pinned = golden.replace(/\.json$/, '.sha256');
      if (existsSync(pinned)) {
        const [hash, len] = readFileSync(pinned, 'utf8').trim().split(' ');
        assert.equal(Buffer.byteLength(r.stdout), Number(len), `${pinned}: length`);
        assert.equal(createHash('sha256').update(r.stdout).digest('hex'), hash, `${pinned}: SHA-256`);
        return;
      }
      const want = readFileSync(golden, 'utf8');
      if (r.stdout !== want) {
        let i = 0;
        while (i < want.length && r.stdout[i] === want[i]) i++;
        assert.fail(`${golden}: first difference at byte ${i}: got ` +
          `${JSON.stringify(r.stdout.slice(Math.max(0, i - 40), i + 80))}, want ` +
          `${JSON.stringify(want.slice(Math.max(0, i - 40), i + 80))}`);
      }
    });
  }
}
