// shared_machine.test.mjs -- issue 16, "server: safe on a shared lab
// machine": one regression test (or more) per numbered item of the issue.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, readdirSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';

import { bin, repo, shippedSubset, tempDir } from './server.mjs';
import { JSON_BODY, RAW, json, raw, scenario, serve, waitJob } from './serve_opts.mjs';

const GT_HEAD = 'kernel,block,sm,start_ns,end_ns,stream,threads\n';
const noControl = (s) => !/[\u0000-\u001f\u007f]/.test(s);

async function count(base, source) {
  const { body } = await json(`${base}/api/experiments`);
  return body.experiments.filter((e) => !source || e.source === source).length;
}

// One server for the items that need no options of their own.
let srv;
before(async () => { srv = await serve(); });
after(async () => { assert.equal(await srv.stop(), 0); });

describe('1. any web page can write', () => {
  test('a no-cors text/plain POST, a form post and a foreign Origin are refused, nothing stored', async () => {
    const n = await count(srv.base);
    const body = JSON.stringify(scenario(4));
    const plain = await json(`${srv.base}/api/experiments`, { method: 'POST', body, headers: { 'Content-Type': 'text/plain' } });
    assert.equal(plain.status, 415);
    const form = await json(`${srv.base}/api/imports`, { method: 'POST', body: 'a', headers: { 'Content-Type': 'multipart/form-data; boundary=x' } });
    assert.equal(form.status, 415);
    const none = await json(`${srv.base}/api/imports`, { method: 'POST', body: Buffer.from('a') });
    assert.equal(none.status, 415);
    const foreign = await json(`${srv.base}/api/experiments`, { method: 'POST', body, headers: { ...JSON_BODY, Origin: 'http://evil.example' } });
    assert.equal(foreign.status, 403);
    assert.match(foreign.body.error, /cross-origin/);
    const site = await json(`${srv.base}/api/experiments`, { method: 'POST', body, headers: { ...JSON_BODY, 'Sec-Fetch-Site': 'cross-site' } });
    assert.equal(site.status, 403);
    assert.equal(await count(srv.base), n);
    const own = await json(`${srv.base}/api/experiments`, { method: 'POST', body, headers: { ...JSON_BODY, Origin: srv.base } });
    assert.equal(own.status, 201);
  });

  test('Host: evil.example (DNS rebinding) is refused, reads included; --allow-host names one', async () => {
    const evil = await raw(srv.port, 'GET /api/experiments HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n');
    assert.match(evil, /^HTTP\/1\.1 421 /);
    assert.match(evil, /"error"/);
    const ip = await raw(srv.port, `GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:${srv.port}\r\nConnection: close\r\n\r\n`);
    assert.match(ip, /^HTTP\/1\.1 200 /);
    const s2 = await serve(['--allow-host', 'lab.example,other.example']);
    try {
      const ok = await raw(s2.port, 'GET /api/health HTTP/1.1\r\nHost: lab.example:8080\r\nConnection: close\r\n\r\n');
      assert.match(ok, /^HTTP\/1\.1 200 /);
      const no = await raw(s2.port, 'GET /api/health HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n');
      assert.match(no, /^HTTP\/1\.1 421 /);
    } finally { await s2.stop(); }
  });

  test('--token / SCHEDLAB_TOKEN: writes need the bearer token, reads stay open', async () => {
    for (const [args, env] of [[['--token', 's3cret'], {}], [[], { SCHEDLAB_TOKEN: 's3cret' }]]) {
      const s = await serve(args, { env });
      try {
        const body = JSON.stringify(scenario(4));
        const no = await json(`${s.base}/api/experiments`, { method: 'POST', body, headers: JSON_BODY });
        assert.equal(no.status, 401);
        assert.equal(no.headers.get('www-authenticate'), 'Bearer');
        const wrong = await json(`${s.base}/api/experiments`, { method: 'POST', body, headers: { ...JSON_BODY, Authorization: 'Bearer s3cre' } });
        assert.equal(wrong.status, 401);
        const ok = await json(`${s.base}/api/experiments`, { method: 'POST', body, headers: { ...JSON_BODY, Authorization: 'Bearer s3cret' } });
        assert.equal(ok.status, 201);
        assert.equal((await json(`${s.base}/api/experiments/${ok.body.slug}`)).status, 200);
      } finally { await s.stop(); }
    }
  });
});

describe('2. one small request holds the server for minutes', () => {
  test('a 208-byte scenario of 50 M blocks and 5000 variants are refused up front with 422 and the numbers', async () => {
    const t0 = Date.now();
    const big = JSON.stringify(scenario(50000000));
    const r = await json(`${srv.base}/api/experiments`, { method: 'POST', body: big, headers: JSON_BODY });
    assert.equal(r.status, 422);
    assert.equal(r.body.work.blocks, 50000000);
    assert.equal(r.body.budget.blocks, 20000000);
    assert.match(r.body.error, /blocks .*50000000 is over the limit of 20000000/);
    const many = await json(`${srv.base}/api/experiments`, { method: 'POST', body: JSON.stringify(scenario(1, { variants: 5000 })), headers: JSON_BODY });
    assert.equal(many.status, 422);
    assert.match(many.body.error, /variants: 5000 is over the limit of 64/);
    assert.ok(Date.now() - t0 < 10000, 'refused without simulating');
  });

  test('--budget ops: too many ops is 422', async () => {
    const s = await serve(['--budget', 'ops=100']);
    try {
      const sc = scenario(1);
      for (let i = 1; i <= 100; i++) sc.ops.push({ ...sc.ops[0], kernel: `K${i + 1}` });
      const r = await json(`${s.base}/api/experiments`, { method: 'POST', body: JSON.stringify(sc), headers: JSON_BODY });
      assert.equal(r.status, 422);
      assert.equal(r.body.work.ops, 101);
    } finally { await s.stop(); }
  });

  test('long work is a job (202, progress, result); health answers meanwhile; a concurrent POST never meets "database is locked"; past the queue 503', async () => {
    const s = await serve(['--budget', 'sync=1000,queue=2']);
    try {
      const started = performance.now();
      const r = await json(`${s.base}/api/experiments`, { method: 'POST', body: JSON.stringify(scenario(1500000, { variants: 1 })), headers: JSON_BODY });
      assert.equal(r.status, 202);
      assert.match(r.body.job, /^[a-z0-9]{16}$/);
      const small = await json(`${s.base}/api/experiments`, { method: 'POST', body: JSON.stringify(scenario(4)), headers: JSON_BODY });
      assert.ok([201, 202].includes(small.status), `${small.status} ${JSON.stringify(small.body)}`);
      const third = await json(`${s.base}/api/experiments`, { method: 'POST', body: JSON.stringify(scenario(3000)), headers: JSON_BODY });
      if (small.status === 202) {
        assert.equal(third.status, 503);
        assert.ok(Number(third.headers.get('retry-after')) > 0);
      }
      let worst = 0, seen = 0;
      for (;;) {
        const t0 = performance.now();
        const h = await fetch(`${s.base}/api/health`);
        worst = Math.max(worst, performance.now() - t0);
        assert.equal(h.status, 200);
        const j = (await json(`${s.base}/api/jobs/${r.body.job}`)).body;
        assert.ok(j.progress >= 0 && j.progress <= 1);
        if (j.state === 'running') seen++;
        if (!['queued', 'running'].includes(j.state)) {
          assert.equal(j.state, 'done', JSON.stringify(j));
          assert.equal(j.status, 201);
          assert.equal(j.result.runs.length, 2);
          break;
        }
        await new Promise((ok) => setTimeout(ok, 50));
      }
      // health is answered beside the job, not after it: a health that
      // waited for the job (its lock, its thread) takes about the job's
      // time; 250 ms is the bound, or a quarter of the job's time where the
      // machine is so loaded that the job itself took seconds more (a 491 ms
      // answer beside two other test runs on the 2 cores failed the bare 250)
      const took = performance.now() - started;
      assert.ok(seen > 0, 'the job was seen running: health was asked while it ran');
      assert.ok(worst < Math.max(250, took / 4),
        `health took ${worst.toFixed(0)} ms during a job of ${took.toFixed(0)} ms`);
      for (const x of [small, third]) if (x.status === 202) assert.equal((await waitJob(s.base, x.body.job)).state, 'done');
      assert.equal((await json(`${s.base}/api/jobs/zzzz`)).status, 404);
    } finally { await s.stop(); }
  });

  // docs/api.md: past the queue's length a write is 503 with Retry-After
  // (RFC 9110 §10.2.3: delay-seconds, a positive number here); one long job
  // fills a queue of 1, so the next write that needs a job is refused
  test('a full job queue: 503 with a Retry-After of some seconds', async () => {
    const s = await serve(['--budget', 'sync=1000,queue=1']);
    try {
      const r = await json(`${s.base}/api/experiments`, { method: 'POST', body: JSON.stringify(scenario(18000000)), headers: JSON_BODY });
      assert.equal(r.status, 202);
      const full = await json(`${s.base}/api/experiments`, { method: 'POST', body: JSON.stringify(scenario(3000)), headers: JSON_BODY });
      assert.equal(full.status, 503, JSON.stringify(full.body));
      assert.match(full.headers.get('retry-after') ?? '', /^[1-9][0-9]*$/);
      assert.match(full.body.error, /queue is full/);
      assert.equal((await json(`${s.base}/api/jobs/${r.body.job}`, { method: 'DELETE' })).status, 202);
    } finally { assert.equal(await s.stop(), 0); }
  });

  test('SIGTERM during a job: the job is rolled back, in-flight clients get answers, exit 0, no partial run', async () => {
    const dir = tempDir('h16-term');
    const s = await serve(['--budget', 'sync=1000'], { dir, keep: true });
    const before = await count(s.base);
    // 18 M blocks: more than the 5 s of grace a running job gets
    const r = await json(`${s.base}/api/experiments`, { method: 'POST', body: JSON.stringify(scenario(18000000, { name: 'h16 big' })), headers: JSON_BODY });
    assert.equal(r.status, 202);
    for (;;) {
      const j = (await json(`${s.base}/api/jobs/${r.body.job}`)).body;
      if (j.state === 'running' && j.done > 0) break;
      await new Promise((ok) => setTimeout(ok, 20));
    }
    const inflight = json(`${s.base}/api/experiments`, { method: 'POST', body: JSON.stringify(scenario(4)), headers: JSON_BODY });
    await new Promise((ok) => setTimeout(ok, 30));
    s.child.kill('SIGTERM');
    const answer = await inflight;
    assert.ok([201, 202, 503].includes(answer.status), `answered ${answer.status}`);
    assert.equal(await s.stop(), 0);
    const s2 = await serve([], { dir, db: s.db });
    try {
      const { body } = await json(`${s2.base}/api/experiments`);
      const big = body.experiments.filter((e) => e.name === 'h16 big');
      const expect = before + (answer.status === 201 ? 1 : 0) + big.length;
      assert.equal(body.experiments.length, expect);
      for (const e of body.experiments) if (e.source !== 'sweep') assert.ok(e.runs.length >= 1);
      // finished within the grace (all 18 M blocks) or rolled back: never partial
      for (const e of big) assert.equal((await json(`${s2.base}/api/runs/${e.runs[0].run}`)).body.summary.blocks, 18000000);
    } finally { await s2.stop(); }
  });
});

describe('3. absurd values pass import', () => {
  test('globaltimer sm=2147483647 and sm=50000000 are refused with the line', async () => {
    for (const sm of ['2147483647', '50000000', '1024']) {
      const csv = `${GT_HEAD}K1,0,0,1000,2000,s1,256\nK1,1,${sm},1000,2000,s1,256\n`;
      const r = await json(`${srv.base}/api/imports?format=globaltimer-csv`, { method: 'POST', body: csv, headers: RAW });
      assert.equal(r.status, 400, sm);
      assert.match(r.body.error, /:3: column "sm": expected an integer in \[0, 1023\]/);
    }
  });

  test('a trace JSON with an SM or a time out of range names the place', async () => {
    const trace = (sm, end) => JSON.stringify({
      schema: 'schedlab-trace/1', name: 't', source: 'simulation',
      kernels: [{ id: 0, name: 'K', stream: 'S', issue: 0, first_block: 0, end, blocks: 1, threads: 32 }],
      blocks: [{ kernel: 0, index: 0, sm, start: 0, end }],
    });
    const a = await json(`${srv.base}/api/imports`, { method: 'POST', body: trace(5000, 10), headers: RAW });
    assert.equal(a.status, 400);
    assert.match(a.body.error, /sm/);
    const b = await json(`${srv.base}/api/imports`, { method: 'POST', body: trace(0, 2 ** 62 + 2 ** 40), headers: RAW });
    assert.equal(b.status, 400);
    assert.match(b.body.error, /end/);
    const ok = await json(`${srv.base}/api/imports`, { method: 'POST', body: trace(3, 10), headers: RAW });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    const bins = await json(`${srv.base}/api/runs/${ok.body.run}/blocks?max=0`);
    assert.equal(bins.status, 200);
  });
});

describe('4. /blocks with extreme windows', () => {
  test('from=INT64_MIN&to=INT64_MAX is a 400, not an overflow; max has a ceiling', async () => {
    const { body } = await json(`${srv.base}/api/experiments`);
    const run = body.experiments.find((e) => e.runs.length).runs[0].run;
    const r = await json(`${srv.base}/api/runs/${run}/blocks?from=-9223372036854775808&to=9223372036854775807`);
    assert.equal(r.status, 400);
    assert.match(r.body.error, /^from: .*out of range/);
    const big = await json(`${srv.base}/api/runs/${run}/blocks?from=-4611686018427387000&to=4611686018427387000&max=0`);
    assert.equal(big.status, 200);
    assert.equal(big.body.mode, 'bins');
    const m = await json(`${srv.base}/api/runs/${run}/blocks?max=100000000`);
    assert.equal(m.status, 400);
    assert.match(m.body.error, /^max: /);
    assert.equal((await json(`${srv.base}/api/health`)).status, 200);
  });
});

describe('5. memory per request', () => {
  test('--max-upload is enforced while reading, chunked too; a declared oversize body at once', async () => {
    const s = await serve(['--max-upload', '1MiB']);
    try {
      const chunked = await raw(s.port, `POST /api/imports HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n` +
        `${(1 << 20).toString(16)}\r\n${'x'.repeat(1 << 20)}\r\n${(4096).toString(16)}\r\n${'y'.repeat(4096)}\r\n0\r\n\r\n`);
      assert.match(chunked, /^HTTP\/1\.1 413 /);
      const declared = await raw(s.port, 'POST /api/imports HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\nContent-Length: 2000000\r\n\r\n', 2000);
      assert.match(declared, /^HTTP\/1\.1 413 /);
      const scn = await raw(s.port, 'POST /api/experiments HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 70000000\r\n\r\n', 2000);
      assert.match(scn, /^HTTP\/1\.1 413 /);
    } finally { await s.stop(); }
  });

  test('a 2 MiB upload (past the in-memory part, so through a temporary file) imports', async () => {
    let csv = GT_HEAD;
    for (let i = 0; i < 100000; i++) csv += `K${i % 7},${i},${i % 4},${1000 + i},${2000 + i},s1,256\n`;
    assert.ok(csv.length > 2 * 1024 * 1024);
    const r = await json(`${srv.base}/api/imports?format=globaltimer-csv&name=big.csv`, { method: 'POST', body: csv, headers: RAW });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal((await json(`${srv.base}/api/runs/${r.body.run}`)).body.summary.blocks, 100000);
  });

  test('a tar.gz bomb is refused by ratio before expanding (kilobytes in, 16 MiB at most)', async () => {
    const member = 64 << 20;
    const hdr = Buffer.alloc(512);
    hdr.write('results/bomb.json', 0);
    hdr.write('0000644\0', 100); hdr.write('0000000\0', 108); hdr.write('0000000\0', 116);
    hdr.write(`${member.toString(8).padStart(11, '0')}\0`, 124);
    hdr.write('00000000000\0', 136); hdr.write('        ', 148); hdr.write('0', 156); hdr.write('ustar\0', 257); hdr.write('00', 263);
    let sum = 0;
    for (const b of hdr) sum += b;
    hdr.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
    const tgz = gzipSync(Buffer.concat([hdr, Buffer.alloc(member, 0x20), Buffer.alloc(1024)]), { level: 9 });
    assert.ok(tgz.length < 200000);
    const r = await json(`${srv.base}/api/imports?format=examiner-json`, { method: 'POST', body: tgz, headers: RAW });
    assert.equal(r.status, 400);
    assert.match(r.body.error, /expands to more than 16 MiB/);
  });
});

describe('6. two servers started together on a new database', () => {
  // (seven of the shipped scenarios and the shipped GCAPS sweeps: the race
  // is the same with all 57 and every sweep, which the seed database's
  // first start stores; a sweep of any kind is stored by the same code,
  // server/app/sweep_seed.c, and the QoS one alone would cost each of the
  // six servers 3 CPU-s of simulation)
  test('both start, the shipped scenarios are stored once (3 rounds)', async () => {
    const some = shippedSubset(undefined, { sweeps: readdirSync(join(repo, 'sweeps')).filter((f) => /^gcaps-fig8.*\.json$/.test(f)) });
    for (let round = 0; round < 3; round++) {
      const dir = tempDir('h16-race');
      const db = join(dir, 'race.db');
      const args = ['--scenarios', some.dir];
      const [a, b] = await Promise.all([serve(args, { dir, db, keep: true }), serve(args, { dir, db, keep: true })]);
      try {
        assert.equal((await json(`${a.base}/api/health`)).status, 200);
        assert.equal((await json(`${b.base}/api/health`)).status, 200);
        // seeding has finished once health answers: both saw the same file
        assert.equal(await count(a.base, 'scenario'), some.names.length);
        assert.equal(await count(b.base, 'scenario'), some.names.length);
        // and the shipped sweeps, seeded after them, once each too
        const sw = (await json(`${a.base}/api/experiments`)).body.experiments
          .filter((e) => e.source === 'sweep').map((e) => e.name);
        assert.ok(sw.length > 0, 'the shipped sweeps are seeded');
        assert.equal(new Set(sw).size, sw.length, `a sweep stored twice: ${sw.join(', ')}`);
        assert.doesNotMatch(a.stderr() + b.stderr(), /locked/);
      } finally { await a.stop(); await b.stop(); }
    }
  });
});

describe('7. anyone may add runs to any experiment', () => {
  test('imports may add only to experiments made by imports (409 otherwise)', async () => {
    const { body } = await json(`${srv.base}/api/experiments`);
    const shippedExp = body.experiments.find((e) => e.source === 'scenario').slug;
    const csv = `${GT_HEAD}K1,0,0,1000,2000,s1,256\n`;
    const r = await json(`${srv.base}/api/imports?format=globaltimer-csv&experiment=${shippedExp}`, { method: 'POST', body: csv, headers: RAW });
    assert.equal(r.status, 409);
    assert.match(r.body.error, /imports may only add to experiments made by imports/);
    const first = await json(`${srv.base}/api/imports?format=globaltimer-csv`, { method: 'POST', body: csv, headers: RAW });
    assert.equal(first.status, 201);
    const second = await json(`${srv.base}/api/imports?format=globaltimer-csv&experiment=${first.body.experiment}`, { method: 'POST', body: csv, headers: RAW });
    assert.equal(second.status, 201);
  });
});

describe('8. libmicrohttpd 0.9.75 oddities', () => {
  test('Transfer-Encoding: xchunked is 501; Content-Length + chunked is 400 and closes (no smuggled request); 1000 query parameters answered', async () => {
    const x = await raw(srv.port, 'POST /api/experiments HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: xchunked\r\n\r\n{}');
    assert.match(x, /^HTTP\/1\.1 501 /);
    const both = await raw(srv.port, 'POST /api/experiments HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
      'Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    assert.match(both, /^HTTP\/1\.1 400 /);
    assert.equal(both.split('HTTP/1.1 ').length - 1, 1, 'the leftover bytes never run as a second request');
    // answered whole: 1000 repeats of /compare's one argument are read
    // and the repeat named (before arguments were checked against the
    // route: 1000 others to /api/health, 200)
    const q = Array.from({ length: 1000 }, (_, i) => `runs=${i}`).join('&');
    const many = await raw(srv.port, `GET /api/compare?${q} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    assert.match(many, /^HTTP\/1\.1 400 /);
    assert.match(many, /runs: given more than once/);
  });
});

describe('9. errors that quote input escape control characters', () => {
  const bad = '{"schema": "schedlab-trace/1", "name": "\\q{arp_issue\n\n", "kernels": []}';
  test('the trace JSON reader: HTTP error without control characters, CLI error one line', async () => {
    const r = await json(`${srv.base}/api/imports?format=schedlab-trace`, { method: 'POST', body: bad, headers: RAW });
    assert.equal(r.status, 400);
    assert.ok(noControl(r.body.error), JSON.stringify(r.body.error));
    const dir = tempDir('h16-cli');
    const f = join(dir, 'crash\n.json');
    writeFileSync(f, bad);
    const c = spawnSync(bin, ['import', f, '--db', join(dir, 'x.db'), '--format', 'schedlab-trace'], { encoding: 'utf8' });
    assert.equal(c.status, 2);
    assert.equal(c.stderr.split('\n').length, 2, JSON.stringify(c.stderr));
    assert.ok(noControl(c.stderr.trimEnd()));
  });

  test('scenario and taskset JSON errors, and names quoted back, too', async () => {
    for (const path of ['/api/experiments', '/api/rta']) {
      const r = await json(`${srv.base}${path}`, { method: 'POST', body: '{"name": "a\\q\n\u0001"}', headers: JSON_BODY });
      assert.equal(r.status, 400);
      assert.ok(noControl(r.body.error), JSON.stringify(r.body.error));
    }
    const r = await json(`${srv.base}/api/runs/a%0Ab%01`);
    assert.equal(r.status, 404);
    assert.ok(noControl(r.body.error), JSON.stringify(r.body.error));
  });
});

describe('10. headers, paths, health, NUL, body limits', () => {
  test('CSP, X-Frame-Options, Referrer-Policy, nosniff, CORP on pages, files, API answers and errors', async () => {
    for (const p of ['/', '/js/main.mjs', '/api/health', '/api/nope', '/no-such-file.js']) {
      const r = await fetch(`${srv.base}${p}`);
      await r.arrayBuffer();
      const csp = r.headers.get('content-security-policy') || '';
      assert.match(csp, /script-src 'self'(;|$)/, p);
      assert.match(csp, /frame-ancestors 'none'/, p);
      assert.equal(r.headers.get('x-frame-options'), 'DENY', p);
      // the rest of docs/shared-machine.md's list, as it gives them
      assert.equal(r.headers.get('referrer-policy'), 'same-origin', p);
      assert.equal(r.headers.get('x-content-type-options'), 'nosniff', p);
      assert.equal(r.headers.get('cross-origin-resource-policy'), 'same-origin', p);
    }
  });

  test('/api/health names no path; a corrupt database reports unhealthy', async () => {
    const h = await json(`${srv.base}/api/health`);
    assert.equal(h.body.db, 'test.db');
    assert.equal(typeof h.body.checking, 'boolean');
    const dir = tempDir('h16-corrupt');
    const s = await serve([], { dir, keep: true });
    const db = s.db;
    assert.equal(await s.stop(), 0);
    // the last pages hold run rows, not the schema: the file still opens
    const pages = Math.floor(statSync(db).size / 4096);
    const fd = openSync(db, 'r+');
    for (let page = pages - 12; page < pages - 1; page++) writeSync(fd, Buffer.alloc(4096, 0xa5), 0, 4096, page * 4096);
    closeSync(fd);
    const s2 = await serve(['--scenarios', dir], { dir, db });
    try {
      // the check of the start runs beside the open port: "checking" until
      // its verdict
      let r;
      for (const t0 = Date.now(); ; await new Promise((ok) => setTimeout(ok, 50))) {
        r = await json(`${s2.base}/api/health`);
        if (r.body.checking !== true) break;
        assert.equal(r.status, 200);
        assert.ok(Date.now() - t0 < 60000, 'the database check ends');
      }
      assert.equal(r.status, 503);
      assert.equal(r.body.status, 'unhealthy');
      assert.ok(!JSON.stringify(r.body).includes(dir), 'no filesystem path in the answer');
    } finally { await s2.stop(); }
  });

  // docs/shared-machine.md: no answer shows a filesystem path. The window
  // routes' 404 for an unknown run carried the database's path ("/tmp/…/
  // test.db: no run named …"); found by auditing every route's errors.
  test('an unknown run\'s 404 names the run, not the database\'s path, on every run route', async () => {
    for (const p of ['blocks', 'blocks?max=0', 'blocks?from=0&to=10', 'tiles', 'tiles/30/0', 'occupancy',
      'occupancy?kernels=0', 'streams', 'kernels?from=0&to=10', 'copies?from=0&to=10', 'queues', 'export',
      'fidelity']) {
      const r = await json(`${srv.base}/api/runs/nosuchrun1/${p}`);
      assert.equal(r.status, 404, p);
      assert.equal(r.body.error, 'no run named "nosuchrun1"', p);
      assert.ok(!JSON.stringify(r.body).includes(srv.dir), `${p}: no filesystem path in the answer`);
    }
  });

  test('a NUL byte in a CSV kernel name is refused with the place, not cut short', async () => {
    const csv = `${GT_HEAD}K1\u0000evil,0,0,1000,2000,s1,256\n`;
    const r = await json(`${srv.base}/api/imports?format=globaltimer-csv`, { method: 'POST', body: csv, headers: RAW });
    assert.equal(r.status, 400);
    assert.match(r.body.error, /2:3: NUL byte/);
    const name = await json(`${srv.base}/api/imports?format=globaltimer-csv&name=a%00b`, { method: 'POST', body: `${GT_HEAD}K,0,0,1,2,s,32\n`, headers: RAW });
    assert.equal(name.status, 400);
  });
});
