// hostile.test.mjs -- issue 31, "server: no one reader, slow client or JSON
// body can take the shared server down": one regression test (or more) per
// numbered point of the issue. Loopback only; every loop is bounded and every
// server stops by itself.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';

import { JSON_BODY, json, raw, rssKiB, serve as serveWith, waitJob } from './serve_opts.mjs';
import { bin, tempDir } from './server.mjs';

const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));
// no shipped scenarios to simulate at start: these servers start at once
const noScenarios = tempDir('h31-noscn');
const serve = (args = [], opts = {}) => serveWith(['--scenarios', noScenarios, ...args], opts);

// A run of `blocks` blocks (one kernel), simulated on the job queue.
async function bigRun(base, blocks) {
  const s = {
    schema: 'schedlab-scenario/1', name: `big ${blocks}`, device: 'tx2',
    streams: [{ name: 'S1' }],
    ops: [{ kernel: 'K1', stream: 'S1', at: 0, blocks, threads: 64, block_time: '1us' }],
  };
  const r = await json(`${base}/api/experiments`, { method: 'POST', body: JSON.stringify(s), headers: JSON_BODY });
  let exp = r.body.slug;
  if (r.status === 202) exp = (await waitJob(base, r.body.job, { timeout: 300000 })).result.slug;
  else assert.equal(r.status, 201, JSON.stringify(r.body));
  const e = await json(`${base}/api/experiments/${exp}`);
  return e.body.runs[0].run;
}

// A reader that sends its request and then reads nothing (its socket
// paused): the server's send buffer fills and the answer waits on it.
function slowReader(port, path, host = '127.0.0.1') {
  const s = net.connect({ port, host: '127.0.0.1', localAddress: host });
  s.on('error', () => {});
  s.once('data', () => s.pause());
  s.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
  return s;
}

describe('1. an export pins the whole run while its reader is slow', () => {
  let srv, run;
  const BLOCKS = 1000000;   // 1 M blocks: 32 MB of records loaded whole per reader before issue 31
  before(async () => {
    srv = await serve();
    run = await bigRun(srv.base, BLOCKS);
  });
  after(async () => { assert.equal(await srv.stop(), 0); });

  test('32 slow readers of a 1 M-block run keep the server under 100 MB RSS; the export is whole', async () => {
    const before0 = rssKiB(srv.pid);
    const readers = [];
    for (let i = 0; i < 32; i++) readers.push(slowReader(srv.port, `/api/runs/${run}/export${i % 2 ? '?format=chrome' : ''}`));
    let peak = 0;
    for (let i = 0; i < 20; i++) {   // 4 s: every reader's answer has begun and stalled
      await sleep(200);
      peak = Math.max(peak, rssKiB(srv.pid));
    }
    // a byte now and then from each: the server makes a page at a time
    for (let round = 0; round < 3; round++) {
      for (const s of readers) { s.resume(); s.pause(); }
      await sleep(300);
      peak = Math.max(peak, rssKiB(srv.pid));
    }
    const health = await json(`${srv.base}/api/health`);
    assert.equal(health.status, 200);
    for (const s of readers) s.destroy();
    console.log(`# 32 slow export readers of ${BLOCKS} blocks: RSS ${before0} KiB before, peak ${peak} KiB`);
    assert.ok(peak < 100 * 1024, `peak RSS ${peak} KiB >= 100 MB`);
    // one reader that reads it all gets every block, in order (once the
    // dropped readers' answers are released: until then the server may say
    // 503 with Retry-After, as past --answer-memory; a loaded machine takes
    // a moment to see 32 sockets close)
    const whole = async (path) => {
      for (let i = 0; ; i++) {
        const a = await fetch(`${srv.base}${path}`);
        if (a.status !== 503 || i === 50) {
          assert.equal(a.status, 200, path);
          return JSON.parse(await a.text());
        }
        await a.arrayBuffer();
        await sleep(200);
      }
    };
    const t = await whole(`/api/runs/${run}/export`);
    assert.equal(t.blocks.length, BLOCKS);
    assert.equal(t.blocks[BLOCKS - 1].index, BLOCKS - 1);
    const c = await whole(`/api/runs/${run}/export?format=chrome`);
    assert.equal(c.traceEvents.filter((e) => e.cat === 'block').length, BLOCKS);
  });

  test('past --answer-memory an answer is 503 with Retry-After, and served again once readers leave', async () => {
    const s2 = await serve(['--answer-memory', '1MiB']);
    try {
      const r2 = await bigRun(s2.base, 200000);   // 12 MB of text: more than the socket buffers hold
      const readers = [];
      for (let i = 0; i < 6; i++) readers.push(slowReader(s2.port, `/api/runs/${r2}/export`));
      await sleep(1000);
      const busy = await json(`${s2.base}/api/runs/${r2}/export`);
      assert.equal(busy.status, 503);
      assert.equal(busy.headers.get('retry-after'), '5');
      assert.match(busy.body.error, /--answer-memory/);
      for (const s of readers) s.destroy();
      let ok = 0;
      for (let i = 0; i < 50 && ok !== 200; i++) {
        await sleep(100);
        const a = await fetch(`${s2.base}/api/runs/${r2}/export`);
        ok = a.status;
        const txt = await a.text();
        if (ok !== 200 && i % 10 === 0) console.log(`# ${ok} ${txt}`);
      }
      assert.equal(ok, 200);
    } finally { await s2.stop(); }
  });
});

// Peak RSS of pid while fn runs (sampled every 20 ms).
async function peakDuring(pid, fn) {
  let peak = rssKiB(pid), going = true;
  const sampler = (async () => { while (going) { peak = Math.max(peak, rssKiB(pid)); await sleep(20); } })();
  try { return { result: await fn(), peak: () => peak }; } finally { going = false; await sampler; }
}

describe('2. JSON bodies cost about 78 times their size', () => {
  let srv;
  before(async () => { srv = await serve(); });
  after(async () => { assert.equal(await srv.stop(), 0); });

  test('a 64 MiB [{},{},...] scenario is refused 413 by the parse budget with peak RSS under 1 GB', async () => {
    const n = Math.floor((64 * 1024 * 1024 - 2) / 3);
    const body = Buffer.alloc(n * 3 + 1);   // "[" + "{}," x (n - 1) + "{}]"
    body[0] = 0x5b;
    body.fill('{},', 1, 1 + (n - 1) * 3);
    body.write('{}]', 1 + (n - 1) * 3);
    assert.ok(body.length <= 64 * 1024 * 1024);
    const { result: r, peak } = await peakDuring(srv.pid, () => json(`${srv.base}/api/experiments`, { method: 'POST', body, headers: JSON_BODY }));
    console.log(`# 64 MiB [{},...] body: ${r.status}, peak RSS ${peak()} KiB`);
    assert.equal(r.status, 413);
    assert.match(r.body.error, /^scenario: JSON: the document needs more than 512 MiB of memory to read/);
    assert.ok(peak() < 1024 * 1024, `peak RSS ${peak()} KiB >= 1 GB`);
    assert.equal((await json(`${srv.base}/api/health`)).status, 200);
  });

  test('schedlab-trace: an unknown top-level key is refused with its name; a misplaced array still reads', async () => {
    const t = { schema: 'schedlab-trace/1', name: 'x', kernal: [] };
    const r = await json(`${srv.base}/api/imports?format=schedlab-trace`, { method: 'POST', body: JSON.stringify(t), headers: { 'Content-Type': 'application/json' } });
    assert.equal(r.status, 400);
    assert.match(r.body.error, /unknown top-level key "kernal" \(did you mean "kernels"\?\)/);
    // blocks before kernels (not the order the export writes) are kept and read at the end
    const ok = { blocks: [{ kernel: 0, index: 0, sm: 0, start: 0, end: 10 }], schema: 'schedlab-trace/1', name: 'y',
      kernels: [{ name: 'K', stream: 'S1', issue: 0, first_block: 0, fully_dispatched: 0, end: 10, blocks: 1 }] };
    const r2 = await json(`${srv.base}/api/imports?format=schedlab-trace`, { method: 'POST', body: JSON.stringify(ok), headers: { 'Content-Type': 'application/json' } });
    assert.ok([201, 202].includes(r2.status), JSON.stringify(r2.body));
  });

  test('re-importing a schedlab-trace export costs at most 3 times the file', async () => {
    const run = await bigRun(srv.base, 300000);
    const text = Buffer.from(await (await fetch(`${srv.base}/api/runs/${run}/export`)).arrayBuffer());
    await sleep(300);
    const base = rssKiB(srv.pid);
    const { result: r, peak } = await peakDuring(srv.pid, async () => {
      const p = await json(`${srv.base}/api/imports?format=schedlab-trace`, { method: 'POST', body: text, headers: { 'Content-Type': 'application/octet-stream' } });
      if (p.status === 202) return waitJob(srv.base, p.body.job, { timeout: 120000 });
      return p.body;
    });
    const grew = peak() - base;
    console.log(`# schedlab-trace import of ${text.length} bytes: RSS ${base} KiB before, peak ${peak()} KiB (+${grew} KiB, ${(grew * 1024 / text.length).toFixed(2)}x the file)`);
    assert.ok(r.state === undefined || r.state === 'done', JSON.stringify(r));
    assert.ok(grew * 1024 <= 3 * text.length, `grew ${grew} KiB for a ${text.length}-byte file`);
  });
});

describe('3. declared streams cost quadratic CPU outside the work budget', () => {
  let srv;
  before(async () => { srv = await serve(); });
  after(async () => { assert.equal(await srv.stop(), 0); });

  test('60,000 declared streams and one op are refused up front (422, streams named), in well under a second', async () => {
    const streams = [];
    for (let i = 0; i < 60000; i++) streams.push({ name: `S${i}`, process: `P${i % 100}`, priority: i });
    const s = { schema: 'schedlab-scenario/1', name: 'streams', device: 'tx2', streams,
      ops: [{ kernel: 'K', stream: 'S59999', at: 0, blocks: 1, threads: 32, block_time: '1us' }] };
    const body = JSON.stringify(s);
    // warm the connection, then time the refusal alone
    await json(`${srv.base}/api/health`);
    const t0 = performance.now();
    const r = await json(`${srv.base}/api/experiments`, { method: 'POST', body, headers: JSON_BODY });
    const ms = performance.now() - t0;
    console.log(`# 60,000 streams (${body.length} bytes): ${r.status} in ${ms.toFixed(1)} ms`);
    assert.equal(r.status, 422);
    assert.match(r.body.error, /streams: 60000 is over the limit of 4096/);
    assert.equal(r.body.work.streams, 60000);
    // the issue's target is 100 ms on a quiet machine; a generous bound for a shared one
    assert.ok(ms < 2000, `${ms} ms`);
  });

  test('--budget streams/processes: the limits are the server\'s; a scenario within them runs', async () => {
    const s2 = await serve(['--budget', 'streams=3,processes=1']);
    try {
      const mk = (n, procs) => ({ schema: 'schedlab-scenario/1', name: 'few', device: 'tx2',
        streams: Array.from({ length: n }, (_, i) => ({ name: `S${i}`, process: `P${i % procs}` })),
        ops: [{ kernel: 'K', stream: 'S0', at: 0, blocks: 1, threads: 32, block_time: '1us' }] });
      const ok = await json(`${s2.base}/api/experiments`, { method: 'POST', body: JSON.stringify(mk(3, 1)), headers: JSON_BODY });
      assert.equal(ok.status, 201, JSON.stringify(ok.body));
      const two = await json(`${s2.base}/api/experiments`, { method: 'POST', body: JSON.stringify(mk(2, 2)), headers: JSON_BODY });
      assert.equal(two.status, 422);
      assert.match(two.body.error, /processes: 2 is over the limit of 1/);
      const dup = await json(`${s2.base}/api/experiments`, { method: 'POST',
        body: JSON.stringify({ ...mk(2, 1), streams: [{ name: 'S0' }, { name: 'S0' }] }), headers: JSON_BODY });
      assert.equal(dup.status, 400);
      assert.match(dup.body.error, /streams\[1\]\.name: "S0" is already streams\[0\]/);
    } finally { await s2.stop(); }
  });
});

// A connection from `local` that sends `head` a byte at a time, one byte
// every `every` ms; resolves with what the server sent back once it closed.
function trickle(port, local, head, every) {
  return new Promise((resolve) => {
    const s = net.connect({ port, host: '127.0.0.1', localAddress: local });
    let out = '', i = 0, timer = null, closed = false;
    const end = () => { if (closed) return; closed = true; clearInterval(timer); s.destroy(); resolve({ out, sent: i }); };
    s.on('connect', () => { timer = setInterval(() => { if (i < head.length) s.write(head[i++]); }, every); });
    s.on('data', (d) => { out += d.toString('latin1'); });
    s.on('close', end);
    s.on('error', end);
    s.ref();
  });
}

describe('4. no header or body deadline', () => {
  test('256 trickling connections from 127.0.0.2-5: health answers within 100 ms, a normal request succeeds, the tricklers get 408', async () => {
    const srv = await serve(['--header-timeout', '3']);
    try {
      const head = `GET /api/experiments HTTP/1.1\r\nHost: 127.0.0.1:${srv.port}\r\nX-Padding: ${'a'.repeat(200)}\r\n\r\n`;
      const slow = [];
      for (let a = 2; a <= 5; a++) for (let i = 0; i < 64; i++) slow.push(trickle(srv.port, `127.0.0.${a}`, head, 500));
      await sleep(1500);
      const lat = [];
      for (let i = 0; i < 10; i++) {
        const t0 = performance.now();
        const h = await fetch(`${srv.base}/api/health`);
        await h.text();
        lat.push(performance.now() - t0);
        assert.equal(h.status, 200);
      }
      const page = await fetch(`${srv.base}/`, { headers: { Accept: 'text/html' } });
      assert.equal(page.status, 200);
      const list = await json(`${srv.base}/api/experiments`);
      assert.equal(list.status, 200);
      lat.sort((x, y) => x - y);
      console.log(`# health beside 256 tricklers: median ${lat[5].toFixed(1)} ms, worst ${lat[9].toFixed(1)} ms`);
      assert.ok(lat[5] < 100, `median health latency ${lat[5]} ms`);
      const res = await Promise.all(slow);
      const timedOut = res.filter((r) => /^HTTP\/1\.1 408 /.test(r.out)).length;
      console.log(`# of 256 tricklers: ${timedOut} answered 408 (header deadline 3 s), the rest refused at accept`);
      assert.ok(timedOut >= 200, `${timedOut} of 256 got 408`);
      assert.ok(res.every((r) => r.sent < head.length), 'a trickler finished its headers');
    } finally { await srv.stop(); }
  });

  // a scenario of n one-block kernels, as a POST body
  const scenarioBody = (name, n = 1) => JSON.stringify({ schema: 'schedlab-scenario/1', name, device: 'tx2', streams: [{ name: 'S1' }],
    ops: Array.from({ length: n }, (_, k) => ({ kernel: `K${k}`, stream: 'S1', at: 0, blocks: 1, threads: 32, block_time: '1us' })) });
  // a raw connection that has sent a POST of body's headers (the body is
  // the caller's to send): {s, out() the bytes answered so far, closed}
  async function postHeaders(port, body) {
    const s = net.connect({ port, host: '127.0.0.1' });
    let out = '';
    s.on('data', (d) => { out += d; });
    s.on('error', () => {});
    const closed = new Promise((ok) => s.on('close', ok));
    await new Promise((ok) => s.once('connect', ok));
    s.write(`POST /api/experiments HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`);
    return { s, out: () => out, closed };
  }
  // body from byte `from` on, 10 bytes a second, until the server closes
  // c; the seconds that took
  async function trickleBody(c, body, from) {
    let i = from;
    const t = setInterval(() => { if (i < body.length) c.s.write(body[i++]); }, 100);
    const t0 = performance.now();
    await c.closed;
    clearInterval(t);
    return (performance.now() - t0) / 1000;
  }

  test('a body trickling under --min-body-rate is 408 and closed; writes work meanwhile', async () => {
    const srv = await serve(['--header-timeout', '2', '--min-body-rate', '200']);
    try {
      const body = scenarioBody('x');
      const c = await postHeaders(srv.port, body);
      const secs = await trickleBody(c, body, 0);
      const out = c.out();
      assert.match(out, /^HTTP\/1\.1 408 /);
      assert.match(out, /under the 200 bytes\/s/);
      // the fields every answer carries (docs/api.md): the watchdog writes
      // this one itself, and it lacked them
      // (Date as RFC 9110's IMF-fixdate, "Sun, 06 Nov 1994 08:49:37 GMT")
      for (const f of [/\r\nDate: (Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d\d:\d\d:\d\d GMT\r\n/,
        /\r\nContent-Security-Policy: default-src 'self'/,
        /\r\nX-Frame-Options: DENY\r\n/, /\r\nX-Content-Type-Options: nosniff\r\n/,
        /\r\nReferrer-Policy: same-origin\r\n/, /\r\nCross-Origin-Resource-Policy: same-origin\r\n/,
        /\r\nCache-Control: no-store\r\n/])
        assert.match(out.slice(0, out.indexOf('\r\n\r\n') + 2), f);
      assert.ok(secs < 6, `closed after ${secs} s`);
      const ok = await json(`${srv.base}/api/experiments`, { method: 'POST', body, headers: JSON_BODY });
      assert.equal(ok.status, 201, JSON.stringify(ok.body));
    } finally { await srv.stop(); }
  });

  test('a body that starts fast and then trickles is 408 once its average since the headers falls under the rate', async () => {
    // "1024 B/s averaged" (docs/api.md "Limits per connection"): the bytes
    // so far against the time since the headers, not the bytes alone --
    // 300 bytes at once and then 10 a second fall under 200 B/s after
    // about 1.6 s, though they are past 200 bytes from the start
    const srv = await serve(['--header-timeout', '1', '--min-body-rate', '200']);
    try {
      const body = scenarioBody('x'.repeat(400));
      const c = await postHeaders(srv.port, body);
      c.s.write(body.slice(0, 300));
      const secs = await trickleBody(c, body, 300);
      assert.match(c.out(), /^HTTP\/1\.1 408 /, c.out().slice(0, 300));
      assert.match(c.out(), /under the 200 bytes\/s/);
      assert.ok(secs > 1 && secs < 5, `closed after ${secs} s`);
    } finally { await srv.stop(); }
  });

  test('a body arriving in small pieces well above the rate is read whole: the rate counts every byte so far', async () => {
    // 100 bytes every 100 ms (1000 B/s against --min-body-rate 200) for
    // about 3 s, past --header-timeout 1: the average is the body's bytes
    // so far over the time since the headers (docs/api.md "Limits per
    // connection"), not the last piece's
    const srv = await serve(['--header-timeout', '1', '--min-body-rate', '200']);
    try {
      const body = scenarioBody('pieces', 30);
      assert.ok(body.length > 2500, `${body.length} bytes`);
      const c = await postHeaders(srv.port, body);
      let i = 0;
      const t = setInterval(() => { if (i < body.length) { c.s.write(body.slice(i, i + 100)); i += 100; } }, 100);
      await c.closed;
      clearInterval(t);
      assert.match(c.out(), /^HTTP\/1\.1 201 /, c.out().slice(0, 300));
    } finally { await srv.stop(); }
  });

  test('a body that starts late but within --header-timeout is read: the rate counts only after the deadline', async () => {
    // docs/api.md "Limits per connection": a body slower than
    // --min-body-rate "averaged once that time has passed" is 408 -- a client
    // that waits after its headers (for a 100 Continue, or to read its
    // file) and then sends the body whole is within the rule
    const srv = await serve(['--header-timeout', '3', '--min-body-rate', '200']);
    try {
      const body = scenarioBody('late');
      const c = await postHeaders(srv.port, body);
      await sleep(1200);   // no body byte for 6 of the watchdog's 200-ms ticks
      assert.equal(c.out(), '', 'answered before the body came');
      c.s.write(body);
      await c.closed;
      assert.match(c.out(), /^HTTP\/1\.1 201 /, c.out().slice(0, 300));
    } finally { await srv.stop(); }
  });

  test('a kept-alive connection idle past --header-timeout is not answered 408: its next request is served; a new connection that sends nothing still is', async () => {
    // A 408 written on an idle kept-alive connection is read by a client
    // that sends its next request at that moment as the answer to it: the
    // browser upload test's GET of /api/experiments got "408 request
    // headers not complete within 10 s", Node's event loop held past the
    // deadline between two requests (RFC 9112 §9.6: an idle connection is
    // closed, not answered). docs/api.md "Limits per connection".
    const srv = await serve(['--header-timeout', '1']);
    try {
      const s = net.connect({ port: srv.port, host: '127.0.0.1' });
      s.on('error', () => {});
      let out = '';
      s.on('data', (d) => { out += d; });
      const ask = `GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:${srv.port}\r\n\r\n`;
      // each answer's status (an answer follows the last one's body directly)
      const answers = () => [...out.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => m[1]);
      await new Promise((ok) => s.once('connect', ok));
      s.write(ask);
      for (let i = 0; i < 100 && answers().length < 1; i++) await sleep(20);
      assert.deepEqual(answers(), ['200']);
      await sleep(2500);   // idle 2.5 header deadlines
      assert.deepEqual(answers(), ['200'], `the idle connection was answered: ${out.slice(-300)}`);
      assert.equal(s.destroyed || s.readyState !== 'open', false, 'the idle connection was closed before idle_s');
      s.write(ask);
      for (let i = 0; i < 100 && answers().length < 2; i++) await sleep(20);
      assert.deepEqual(answers(), ['200', '200']);
      s.destroy();
      // a new connection's first request keeps its deadline: 408 and closed
      const q = net.connect({ port: srv.port, host: '127.0.0.1' });
      q.on('error', () => {});
      let qout = '';
      q.on('data', (d) => { qout += d; });
      await new Promise((ok) => q.on('close', ok));
      assert.match(qout, /^HTTP\/1\.1 408 /);
      assert.match(qout, /request headers not complete within 1 s/);
    } finally { await srv.stop(); }
  });

  test('one address holds at most 64 connections; another still gets in', async () => {
    const srv = await serve();
    try {
      const socks = [];
      for (let i = 0; i < 80; i++) {
        const s = net.connect({ port: srv.port, host: '127.0.0.1', localAddress: '127.0.0.6' });
        s.on('error', () => {});
        socks.push(s);
      }
      await sleep(1000);
      const open = socks.filter((s) => !s.destroyed && s.readyState === 'open').length;
      for (const s of socks) s.destroy();
      assert.ok(open <= 64, `${open} of 80 open`);
      assert.equal((await fetch(`${srv.base}/api/health`)).status, 200);
    } finally { await srv.stop(); }
  });
});

describe('5. deleting the database under a running server splits it in two', () => {
  for (const how of ['removed', 'replaced']) {
    test(`the file ${how}: health unhealthy, writes and reads 503 naming it, no second database made`, async () => {
      const { existsSync, renameSync, rmSync, writeFileSync, statSync } = await import('node:fs');
      const srv = await serve([], { keep: true });
      try {
        const body = JSON.stringify({ schema: 'schedlab-scenario/1', name: 'x', device: 'tx2', streams: [{ name: 'S1' }],
          ops: [{ kernel: 'K', stream: 'S1', at: 0, blocks: 1, threads: 32, block_time: '1us' }] });
        assert.equal((await json(`${srv.base}/api/experiments`, { method: 'POST', body, headers: JSON_BODY })).status, 201);
        if (how === 'removed') {
          rmSync(srv.db);
          rmSync(`${srv.db}-wal`, { force: true });
          rmSync(`${srv.db}-shm`, { force: true });
        } else {
          writeFileSync(`${srv.db}.new`, '');
          renameSync(`${srv.db}.new`, srv.db);
        }
        const h = await json(`${srv.base}/api/health`);
        assert.equal(h.status, 503);
        assert.equal(h.body.status, 'unhealthy');
        assert.match(h.body.error, new RegExp(`database file test\\.db was ${how} under the running server`));
        for (let i = 0; i < 12; i++) {
          const w = await json(`${srv.base}/api/experiments`, { method: 'POST', body, headers: JSON_BODY });
          assert.equal(w.status, 503);
          assert.match(w.body.error, new RegExp(`was ${how}`));
          const r = await json(`${srv.base}/api/experiments`);
          assert.equal(r.status, 503);
        }
        if (how === 'removed') assert.equal(existsSync(srv.db), false, 'a second database was created');
        else assert.equal(statSync(srv.db).size, 0, 'the replacement file was written to');
      } finally { await srv.stop(); const { rmSync } = await import('node:fs'); rmSync(srv.dir, { recursive: true, force: true }); }
    });
  }
});

describe('6. tokens on a shared machine', () => {
  test('--token on the command line warns (it is in /proc/PID/cmdline); SCHEDLAB_TOKEN does not', async () => {
    const a = await serve(['--token', 'sekrit']);
    try {
      const { readFileSync } = await import('node:fs');
      assert.match(readFileSync(`/proc/${a.pid}/cmdline`, 'latin1'), /sekrit/);   // why it warns
      assert.match(a.stderr(), /warning: --token on the command line can be read by every local user/);
    } finally { await a.stop(); }
    const b = await serve([], { env: { SCHEDLAB_TOKEN: 'sekrit' } });
    try {
      assert.doesNotMatch(b.stderr(), /--token on the command line/);
      const w = await json(`${b.base}/api/experiments`, { method: 'POST', body: '{}', headers: JSON_BODY });
      assert.equal(w.status, 401);
    } finally { await b.stop(); }
  });

  test('--token-file: the first line is the token; a file others can read warns', async () => {
    const { writeFileSync: wf, chmodSync: cm } = await import('node:fs');
    const dir = tempDir('h31-tok');
    const f = `${dir}/token`;
    wf(f, 'from-file\n');
    cm(f, 0o644);
    const s = await serve(['--token-file', f]);
    try {
      assert.match(s.stderr(), /--token-file .*token can be read by other users/);
      const no = await json(`${s.base}/api/experiments`, { method: 'POST', body: '{}', headers: JSON_BODY });
      assert.equal(no.status, 401);
      const yes = await json(`${s.base}/api/experiments`, { method: 'POST', body: '{}', headers: { ...JSON_BODY, Authorization: 'Bearer from-file' } });
      assert.equal(yes.status, 400);   // past the token: the scenario itself is wrong
    } finally { await s.stop(); }
  });

  test('no token on a machine with other login users warns; with none it does not', async () => {
    const { writeFileSync: wf } = await import('node:fs');
    const dir = tempDir('h31-pw');
    wf(`${dir}/others`, 'root:x:0:0::/root:/bin/bash\nalice:x:1001:1001::/home/alice:/bin/bash\nsvc:x:1002:1002::/:/usr/sbin/nologin\n');
    wf(`${dir}/none`, 'root:x:0:0::/root:/bin/bash\nsvc:x:1002:1002::/:/usr/sbin/nologin\nnobody:x:65534:65534::/:/bin/sh\n');
    const a = await serve([], { env: { SCHEDLAB_PASSWD: `${dir}/others`, SCHEDLAB_TOKEN: '' } });
    try { assert.match(a.stderr(), /warning: serving without a token on a machine with 1 other login user/); } finally { await a.stop(); }
    const b = await serve([], { env: { SCHEDLAB_PASSWD: `${dir}/none`, SCHEDLAB_TOKEN: '' } });
    try { assert.doesNotMatch(b.stderr(), /without a token/); } finally { await b.stop(); }
  });

  test('--read-token: API reads need it (or the write token); /api/health and pages stay open', async () => {
    const s = await serve([], { env: { SCHEDLAB_READ_TOKEN: 'reader', SCHEDLAB_TOKEN: 'writer' } });
    try {
      assert.equal((await fetch(`${s.base}/api/experiments`)).status, 401);
      assert.equal((await fetch(`${s.base}/api/experiments`, { headers: { Authorization: 'Bearer reader' } })).status, 200);
      assert.equal((await fetch(`${s.base}/api/experiments`, { headers: { Authorization: 'Bearer writer' } })).status, 200);
      assert.equal((await fetch(`${s.base}/api/experiments`, { headers: { Authorization: 'Bearer nope' } })).status, 401);
      assert.equal((await fetch(`${s.base}/api/health`)).status, 200);
      assert.equal((await fetch(`${s.base}/`, { headers: { Accept: 'text/html' } })).status, 200);
      const w = await json(`${s.base}/api/experiments`, { method: 'POST', body: '{}', headers: { ...JSON_BODY, Authorization: 'Bearer reader' } });
      assert.equal(w.status, 401);   // the read token does not write
    } finally { await s.stop(); }
  });
});

describe('7. duplicate Content-Length and malformed Transfer-Encoding', () => {
  let srv;
  before(async () => { srv = await serve(); });
  after(async () => { assert.equal(await srv.stop(), 0); });
  const smuggled = 'GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';

  test('two Content-Length headers: 400, closed, the bytes after never read as a request', async () => {
    const body = '{}' + smuggled;
    const out = await raw(srv.port, `POST /api/experiments HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    assert.match(out, /^HTTP\/1\.1 400 /);
    assert.match(out, /one Content-Length header, not 2/);
    assert.match(out, /Connection: close/i);
    assert.equal((out.match(/HTTP\/1\.1 /g) || []).length, 1, out);
  });

  test('"Transfer-Encoding : chunked" (a space before the colon): 400 and closed', async () => {
    const out = await raw(srv.port, `POST /api/experiments HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 5\r\nTransfer-Encoding : chunked\r\n\r\n0\r\n\r\n${smuggled}`);
    assert.match(out, /^HTTP\/1\.1 400 /);
    assert.match(out, /header name \\"Transfer-Encoding \\" is malformed/);
    assert.equal((out.match(/HTTP\/1\.1 /g) || []).length, 1, out);
  });

  test('two Transfer-Encoding headers: 400', async () => {
    const out = await raw(srv.port, `POST /api/experiments HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`);
    assert.match(out, /^HTTP\/1\.1 400 /);
    assert.match(out, /one Transfer-Encoding header, not 2/);
  });
});

describe('8. messages that name the real cause', () => {
  test('a bad top-level origin is reported at "origin", not "origin[0].value"', async () => {
    const { writeFileSync: wf } = await import('node:fs');
    const { spawnSync } = await import('node:child_process');
    const dir = tempDir('h31-msg');
    wf(`${dir}/t.json`, JSON.stringify({ schema: 'schedlab-trace/1', origin: 9e18 }));
    const r = spawnSync(bin, ['import', '--db', `${dir}/x.db`, '--format', 'schedlab-trace', `${dir}/t.json`], { encoding: 'utf8' });
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /t\.json: origin: 9000000000000000000 ns is out of range/);
    assert.doesNotMatch(r.stderr, /origin\[0\]/);
  });

  test('export of a WAL database whose folder the reader cannot write names WAL and -shm', async (t) => {
    const { spawnSync } = await import('node:child_process');
    const { chmodSync, existsSync } = await import('node:fs');
    if (process.getuid() !== 0 || !existsSync('/usr/bin/setpriv')) { t.skip('needs root and setpriv to read as another user'); return; }
    const exe = bin;
    const dir = tempDir('h31-rowal');
    chmodSync(dir, 0o755);
    const scn = `${dir}/s.json`;
    (await import('node:fs')).writeFileSync(scn, JSON.stringify({ schema: 'schedlab-scenario/1', name: 'x', device: 'tx2', streams: [{ name: 'S1' }],
      ops: [{ kernel: 'K', stream: 'S1', at: 0, blocks: 1, threads: 32, block_time: '1us' }] }));
    const tr = `${dir}/t.json`;
    assert.equal(spawnSync(exe, ['simulate', scn, '-o', tr]).status, 0);
    const imp = spawnSync(exe, ['import', '--db', `${dir}/w.db`, tr], { encoding: 'utf8' });
    assert.equal(imp.status, 0, imp.stderr);
    chmodSync(`${dir}/w.db`, 0o644);
    const r = spawnSync('/usr/bin/setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', exe, 'export', imp.stdout.trim(), '--db', `${dir}/w.db`, '-o', '/dev/null'], { encoding: 'utf8' });
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /a WAL-mode database that cannot be read here: SQLite must create .*w\.db-shm/);
  });
});
