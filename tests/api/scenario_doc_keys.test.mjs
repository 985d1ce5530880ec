// scenario_doc_keys.test.mjs -- docs/scenario-format.md says of its tables
// "Every key below is the whole list: any other key is an error": so each
// object's keys, as the reader lists them when it refuses an unknown one
// ('unknown key "zz…" (known: …)', server/formats/scenario.c's scn_key
// tables, device_json.c, scenario_tasks.c, scenario_reference.c), are
// exactly the keys of that object's table in the document, plus the few
// the document gives in its prose beside the table (each named here, and
// asserted to be written in that section). A key added to a reader without
// its row, or a row without its key, fails here.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { cli, repo, tempDir, writeIn } from './server.mjs';

const doc = readFileSync(join(repo, 'docs/scenario-format.md'), 'utf8');

// The text of the section under `heading` (a "## " or "### " line), up to
// the next heading of its level or above.
function section(heading) {
  const lines = doc.split('\n');
  const i = lines.findIndex((l) => l === heading);
  assert.ok(i >= 0, `docs/scenario-format.md: no heading ${heading}`);
  const level = heading.indexOf(' ');
  let j = i + 1;
  while (j < lines.length && !(/^#+ /.test(lines[j]) && lines[j].indexOf(' ') <= level)) j++;
  return lines.slice(i + 1, j).join('\n');
}

// Every `name` in the first column of the tables of `text` whose header
// row starts with `header` (each table's rows up to its end).
function tableKeys(text, header) {
  const keys = new Set();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].startsWith(header)) continue;
    for (let j = i + 2; j < lines.length && lines[j].startsWith('|'); j++) {
      const first = lines[j].split('|')[1];
      for (const m of first.matchAll(/`([a-z_0-9]+)`/g)) keys.add(m[1]);
    }
  }
  assert.ok(keys.size > 0, `no table "${header}"`);
  return keys;
}

// The keys the reader lists for the object a far-off key was put in.
function known(scn) {
  const f = writeIn(tempDir('doc-keys'), 's.json', scn);
  const r = cli(['simulate', f, '-o', '/dev/null']);
  assert.equal(r.code, 2, r.stderr);
  const m = /unknown key "zzzzzzzzzzzzzz" \(known: ([^)]*)\)\n$/.exec(r.stderr);
  assert.ok(m, r.stderr);
  return new Set(m[1].split(', '));
}

const Z = 'zzzzzzzzzzzzzz';
const K = { kernel: 'K', blocks: 1, threads: 32, block_time: '1ms' };
const base = (more) => ({ schema: 'schedlab-scenario/1', device: 'tx2', ops: [K], ...more });
const tasks = (task, seg) => ({
  schema: 'schedlab-scenario/1', device: 'xavier-nx',
  tasks: [{ name: 't', priority: 5, period: '10ms', segments: [seg ?? { cpu: '1ms' }], ...task }],
});

// [object, scenario with the far key in it, section, table header, keys the
// section gives in prose]
const cases = [
  ['top level', base({ [Z]: 1 }), '## Top level', '| key |', []],
  ['device', base({ device: { preset: 'tx2', [Z]: 1 } }), '## Device', '| field |', ['preset']],
  ['policy', base({ policy: { [Z]: 1 } }), '## Policy', '| key |', []],
  ['a stream', base({ streams: [{ name: 'S', [Z]: 1 }] }), '## Streams', '| key |', []],
  ['an op', base({ ops: [{ ...K, [Z]: 1 }] }), '## Ops', '| key |', ['scope']],
  ['a program', base({ ops: [{ ...K, block_time: undefined, program: { body: [{ op: 'alu' }], [Z]: 1 } }] }),
    '## Warp-level timing', '| `program` key |', []],
  ['a task', tasks({ [Z]: 1 }), '## Real-time tasks', '| task key |', []],
  ['a reference row', base({ reference: { source: 's', rows: [{ label: 'l', [Z]: 1 }] } }),
    '## Reference', '| row key |', []],
];

for (const [what, scn, heading, header, prose] of cases) {
  test(`${what}: the reader's keys are the document's`, () => {
    const text = section(heading);
    const documented = tableKeys(text, header);
    for (const k of prose) {
      assert.ok(text.includes(`\`${k}\``) || text.includes(`"${k}"`), `${heading} does not describe ${k}`);
      documented.add(k);
    }
    const read = known(JSON.parse(JSON.stringify(scn)));
    assert.deepEqual([...read].filter((k) => !documented.has(k)), [], `${what}: read, not in ${heading}`);
    assert.deepEqual([...documented].filter((k) => !read.has(k)), [], `${what}: in ${heading}, not read`);
  });
}

// A real-time task's GPU segment's ops take fewer keys than an op of
// "ops" (scenario_tasks.c); the document says which, in its prose, and
// says they are all.
test('a GPU segment\'s kernel and copy: the keys the document names', () => {
  const text = section('## Real-time tasks');
  const kernel = known(tasks({}, { gpu: { misc: '1ms', ops: [{ ...K, [Z]: 1 }] } }));
  const copy = known(tasks({}, { gpu: { misc: '1ms', ops: [{ copy: 'C', bytes: 1, direction: 'h2d', [Z]: 1 }] } }));
  const m = /`ops` are kernels and copies as in\s+\[Ops\]\(#ops\) with only these keys: ([^;]*);/.exec(text);
  assert.ok(m, 'the GPU segment\'s ops: no list of their keys');
  const listed = new Set([...m[1].matchAll(/`([a-z_0-9]+)`/g)].map((x) => x[1]));
  for (const k of ['h2d', 'd2h', 'd2d', 'program']) listed.delete(k);   // values, and the one refused
  assert.deepEqual([...listed].sort(), [...kernel, ...copy].sort());
});
