// cli_io.test.mjs -- what the command line writes, and what it leaves behind
// when it fails (docs/cli.md "Exit status and errors": 0 success, 2 bad
// input with one line on stderr, 1 anything else; bad input never leaves
// half a result behind).
import assert from 'node:assert/strict';
import { closeSync, existsSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';

import { cli, fixture, repo, tempDir } from './server.mjs';

const CASE_STUDY = join(repo, 'scenarios/gcaps-case-study.json');

let dir;
before(() => { dir = tempDir('cli-io'); });

// stdout on a full disk: every command whose answer is its stdout (rta's
// analysis, import's run id, --version, --help) exited 0 with nothing
// written; the answer is the command's result, so losing it is a failure
// named as a failed -o is ("stdout: write failed: ...", exit 1)
test('an answer that cannot be written to stdout exits 1 naming stdout', { skip: !existsSync('/dev/full') && 'no /dev/full' }, () => {
  const full = openSync('/dev/full', 'w');
  try {
    for (const args of [['rta', CASE_STUDY], ['--version'], ['rta', '--help'], ['simulate', '--help'],
      ['import', fixture('nvprof.csv'), '--db', join(dir, 'full.db')]]) {
      const r = cli(args, { stdio: ['ignore', full, 'pipe'] });
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stderr.split('\n').filter(Boolean).pop(),
        'schedlab: stdout: write failed: No space left on device', args.join(' '));
    }
  } finally {
    closeSync(full);
  }
  // a reader that stops early is not a failure of ours: the same answers to a pipe
  const ok = cli(['rta', CASE_STUDY]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(JSON.parse(ok.stdout).schema, 'schedlab-rta/1');
});
