// import_upload_memory.test.mjs -- POST /api/imports in bounded memory
// (issue 9). An upload body past 1 MiB is written to an unlinked temporary
// file as it arrives and mapped once complete (server/http/http.c); a streaming
// import (nvprof-csv, globaltimer-csv) drops the pages it has read behind
// itself, so the server's peak RSS does not rise by the upload's size:
// importing 75 MB of block rows raises VmHWM by far less than 75 MB (the
// whole-file import of the same file peaked over 300 MB). And an upload cut
// off half way leaves no temporary file behind: none in TMPDIR, no open
// descriptor on one.
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readlinkSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';

import { tempDir } from './server.mjs';
import { RAW, json, serve, waitJob } from './serve_opts.mjs';

// kernels x blocks rows, each kernel's blocks 13 ns apart, kernels 100 us apart
function globaltimerCsv(kernels, blocks) {
  const out = ['kernel,block,sm,start_ns,end_ns,stream,threads'];
  const t0 = 1700000000000;
  for (let k = 0; k < kernels; k++) {
    const base = t0 + k * 100000;
    for (let b = 0; b < blocks; b++) {
      const s = base + b * 13;
      out.push(`K${k},${b},${(b * 7 + k) % 80},${s},${s + 500 + (b % 9) * 100},s${k % 4},256`);
    }
  }
  return out.join('\n') + '\n';
}

function status(pid, key) {
  const m = new RegExp(`${key}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : 0;
}

// descriptors of `pid` open on files in `dir` (an O_TMPFILE body shows as
// "DIR/#123 (deleted)")
function openIn(pid, dir) {
  const out = [];
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const l = readlinkSync(`/proc/${pid}/fd/${fd}`);
      if (l.startsWith(dir + '/')) out.push(l);
    } catch { /* closed meanwhile */ }
  }
  return out;
}

test('a 75 MB upload imports without raising the server peak RSS by its size', async (t) => {
  const dir = tempDir('upload-mem');
  const tmp = join(dir, 'tmp');
  mkdirSync(tmp);
  const small = Buffer.from(globaltimerCsv(50, 1000));
  const big = Buffer.from(globaltimerCsv(1600, 1000));
  // every upload a job, as large uploads are (budget sync_bytes)
  const srv = await serve(['--budget', 'sync_bytes=1000'], { env: { TMPDIR: tmp } });
  try {
    const imp = async (body, name) => {
      const r = await json(`${srv.base}/api/imports?format=globaltimer-csv&name=${name}`,
        { method: 'POST', body, headers: RAW });
      assert.equal(r.status, 202, JSON.stringify(r.body));
      const j = await waitJob(srv.base, r.body.job);
      assert.equal(j.state, 'done', JSON.stringify(j));
      return j.result.run;
    };
    await imp(small, 'small.csv');   // the server's own working set first
    const before = status(srv.pid, 'VmHWM');
    const run = await imp(big, 'big.csv');
    const after = status(srv.pid, 'VmHWM');
    const grew = after - before;
    t.diagnostic(`VmHWM ${before} -> ${after} KiB for a ${big.length >> 10} KiB upload`);
    assert.ok(grew < 32 * 1024,
      `peak RSS rose by ${grew} KiB importing a ${big.length >> 10} KiB upload (from ${before} KiB)`);
    // every block of the upload is in the run
    const r = await json(`${srv.base}/api/runs/${run}`);
    assert.equal(r.status, 200);
    const s = JSON.stringify(r.body);
    assert.match(s, /"n_blocks":1600000|"blocks":1600000/, s.slice(0, 400));
    assert.deepEqual(openIn(srv.pid, tmp), [], 'a body file left open');
    assert.deepEqual(readdirSync(tmp), []);
  } finally {
    await srv.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an upload cut off half way leaves no temporary file', async () => {
  const dir = tempDir('upload-abort');
  const tmp = join(dir, 'tmp');
  mkdirSync(tmp);
  const srv = await serve([], { env: { TMPDIR: tmp } });
  try {
    const total = 16 << 20;
    const sock = net.connect(srv.port, '127.0.0.1');
    await new Promise((ok) => sock.on('connect', ok));
    sock.write(`POST /api/imports?format=globaltimer-csv HTTP/1.1\r\nHost: 127.0.0.1\r\n`
      + `Content-Type: application/octet-stream\r\nContent-Length: ${total}\r\n\r\n`);
    const chunk = Buffer.alloc(1 << 20, 'K0,0,1,100,200\n');
    for (let i = 0; i < 4; i++) await new Promise((ok) => sock.write(chunk, ok));
    // past 1 MiB the body is in a temporary file: open while the upload runs
    let open = [];
    for (let i = 0; i < 100 && open.length === 0; i++) {
      open = openIn(srv.pid, tmp);
      if (!open.length) await new Promise((ok) => setTimeout(ok, 20));
    }
    assert.equal(open.length, 1, 'the body goes to one file in TMPDIR while it arrives');
    assert.match(open[0], /deleted/, `the body file has no name: ${open[0]}`);
    sock.destroy();
    // the server notices the cut connection and frees the body
    let left = open;
    for (let i = 0; i < 200 && left.length; i++) {
      await new Promise((ok) => setTimeout(ok, 25));
      left = openIn(srv.pid, tmp);
    }
    assert.deepEqual(left, [], 'the cut-off body file is still open');
    assert.deepEqual(readdirSync(tmp), []);
    // and nothing was imported
    const runs = await json(`${srv.base}/api/runs`);
    if (runs.status === 200) assert.equal(JSON.stringify(runs.body).includes('"run"'), false);
  } finally {
    await srv.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
