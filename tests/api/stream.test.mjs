// stream.test.mjs -- large responses are built as they are sent (issue 9):
// GET /api/runs/{run}/export of a run of 200 K blocks comes as a chunked
// body (no Content-Length) and is byte for byte what `schedlab export` of the
// same run writes, which is what `schedlab simulate` of its scenario writes
// apart from the stored-run meta; `schedlab simulate` streams the same bytes
// to a file and to stdout.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { cli, getJson, startServer, tempDir } from './server.mjs';

const BLOCKS = 200000;
const scenario = {
  schema: 'schedlab-scenario/1',
  name: 'stream test',
  description: 'enough blocks that the export is many chunks',
  device: 'tx2',
  streams: [{ name: 'S1' }, { name: 'S2' }],
  ops: [
    { kernel: 'K1', stream: 'S1', at: 0, blocks: BLOCKS / 2, threads: 256, block_time: '1us' },
    { kernel: 'K "2"\n', stream: 'S2', at: 0, blocks: BLOCKS / 2, threads: 128, block_time: '3us' },
  ],
};

let srv;
let run;
let dir;

before(async () => {
  srv = await startServer();
  dir = tempDir('stream');
  let r = await getJson(`${srv.base}/api/experiments`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(scenario),
  });
  if (r.status === 202) {
    const url = `${srv.base}${r.body.url}`;
    for (;;) {
      const j = await getJson(url);
      if (j.body.state !== 'queued' && j.body.state !== 'running') {
        r = { status: j.body.status, body: j.body.result };
        break;
      }
      await new Promise((ok) => setTimeout(ok, 100));
    }
  }
  assert.equal(r.status, 201, JSON.stringify(r.body));
  run = r.body.runs[0].run;
});

after(async () => {
  assert.equal(await srv.stop(), 0);
});

// The raw response: headers and body bytes, and how many chunks came.
function raw(url) {
  return new Promise((ok, bad) => {
    http.get(url, (res) => {
      const parts = [];
      res.on('data', (d) => parts.push(d));
      res.on('end', () => ok({ status: res.statusCode, headers: res.headers, body: Buffer.concat(parts), reads: parts.length }));
      res.on('error', bad);
    }).on('error', bad);
  });
}

test('a large export is chunked, valid and equal to the CLI export byte for byte', async () => {
  const r = await raw(`${srv.base}/api/runs/${run}/export`);
  assert.equal(r.status, 200);
  assert.equal(r.headers['transfer-encoding'], 'chunked');
  assert.equal(r.headers['content-length'], undefined);
  assert.equal(r.headers['content-type'], 'application/json');
  // named after experiment and run (issue 15, docs/api.md)
  assert.equal(r.headers['content-disposition'], 'attachment; filename="stream_test-default.trace.json"');
  assert.ok(r.body.length > 10 << 20, `${r.body.length} bytes`);
  const t = JSON.parse(r.body.toString('utf8'));
  assert.equal(t.blocks.length, BLOCKS);
  assert.equal(t.kernels[1].name, 'K "2"\n');
  assert.deepEqual(t.blocks[0], { kernel: 0, index: 0, sm: 0, start: 0, end: 1000 });

  const out = join(dir, 'cli.json');
  const c = cli(['export', run, '--db', srv.db, '-o', out]);
  assert.equal(c.code, 0, c.stderr);
  const want = readFileSync(out);
  assert.equal(r.body.length, want.length);
  assert.ok(r.body.equals(want), 'HTTP and CLI exports differ');
  // a second request gives the same bytes (nothing is left over between them)
  const again = await raw(`${srv.base}/api/runs/${run}/export?format=trace`);
  assert.ok(again.body.equals(want));
});

test('the Chrome export streams too, the same bytes as the CLI writes', async () => {
  const r = await raw(`${srv.base}/api/runs/${run}/export?format=chrome`);
  assert.equal(r.status, 200);
  assert.equal(r.headers['transfer-encoding'], 'chunked');
  assert.equal(r.headers['content-disposition'], 'attachment; filename="stream_test-default.chrome.json"');
  const out = join(dir, 'cli.chrome.json');
  const c = cli(['export', run, '--db', srv.db, '--format', 'chrome', '-o', out]);
  assert.equal(c.code, 0, c.stderr);
  const want = readFileSync(out);
  assert.ok(r.body.equals(want), `HTTP ${r.body.length} bytes and CLI ${want.length} bytes differ`);
  const ev = JSON.parse(want.toString('utf8')).traceEvents;
  assert.equal(ev.filter((e) => e.cat === 'block').length, BLOCKS);
  assert.equal(ev.filter((e) => e.cat === 'kernel').length, 2);
});

test('schedlab simulate streams the same trace to a file and to stdout', () => {
  const scn = join(dir, 'scn.json');
  writeFileSync(scn, JSON.stringify(scenario));
  const out = join(dir, 'sim.json');
  const a = cli(['simulate', scn, '-o', out]);
  assert.equal(a.code, 0, a.stderr);
  const b = cli(['simulate', scn], { encoding: 'buffer', maxBuffer: 1 << 30 });
  assert.equal(b.code, 0);
  const file = readFileSync(out);
  assert.ok(file.equals(b.stdout), 'file and stdout differ');
  const t = JSON.parse(file.toString('utf8'));
  assert.equal(t.blocks.length, BLOCKS);
  assert.equal(t.blocks.at(-1).kernel, 1);
  // the simulated blocks are the stored run's blocks, in the same order
  const exp = JSON.parse(readFileSync(join(dir, 'cli.json'), 'utf8'));
  assert.deepEqual(t.blocks.slice(0, 1000), exp.blocks.slice(0, 1000));
  assert.deepEqual(t.blocks.slice(-1000), exp.blocks.slice(-1000));
});

test('simulate to an unwritable path: one line naming it, exit 1', () => {
  const scn = join(dir, 'scn.json');
  const r = cli(['simulate', scn, '-o', join(dir, 'no/such/dir/out.json')]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /out\.json: cannot write: No such file or directory\n$/);
});
