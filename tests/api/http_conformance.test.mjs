// http_conformance.test.mjs -- what RFC 9110 / RFC 9112 say of the framing
// and the request target, checked on a raw socket (fetch hides the headers
// and the connection): a 304's Content-Length, refusals decided from the
// headers alone, a missing Host, the absolute-form target.
import assert from 'node:assert/strict';
import net from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { repo } from './server.mjs';
import { json, serve } from './serve_opts.mjs';

let srv;
before(async () => { srv = await serve(['--web', join(repo, 'web')]); });
after(async () => { assert.equal(await srv.stop(), 0); });

// Send `data` on a new connection; resolves with every byte that came back,
// whether the server closed the connection (`closed`), and how long until
// the first byte and until the close (`ms`, `closeMs`) or `wait` ms passed.
function exchange(port, data, wait = 3000) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const s = net.connect(port, '127.0.0.1');
    let out = Buffer.alloc(0), first = null, closed = false, closeMs = null;
    const done = () => {
      clearTimeout(timer);
      s.destroy();
      resolve({ text: out.toString('latin1'), closed, ms: first, closeMs });
    };
    const timer = setTimeout(done, wait);
    s.on('data', (d) => {
      if (first === null) first = Date.now() - t0;
      out = Buffer.concat([out, d]);
    });
    s.on('end', () => { closed = true; closeMs = Date.now() - t0; done(); });
    s.on('error', () => done());
    s.write(data);
  });
}

// The header section of the first answer in `text`: {status, headers (lower-case names -> list)}
function head(text) {
  const end = text.indexOf('\r\n\r\n');
  assert.ok(end > 0, `no complete header section in ${JSON.stringify(text.slice(0, 300))}`);
  const [line, ...fields] = text.slice(0, end).split('\r\n');
  const headers = {};
  for (const f of fields) {
    const i = f.indexOf(':');
    const k = f.slice(0, i).toLowerCase();
    (headers[k] = headers[k] || []).push(f.slice(i + 1).trim());
  }
  return { status: Number(line.split(' ')[1]), line, headers, rest: text.slice(end + 4) };
}

async function someRun() {
  const { body } = await json(`${srv.base}/api/experiments`);
  for (const e of body.experiments) for (const r of e.runs) if (r.source === 'simulation') return r.run;
  throw new Error('the seed database has no simulated run');
}

describe('304 Not Modified (RFC 9110 8.6, 15.4.5)', () => {
  // a 304 may carry Content-Length only when it is what the 200 would have
  // carried; libmicrohttpd 0.9.75 wrote "Content-Length: 0" into every one
  test('a revalidated /blocks window: Content-Length is the 200\'s, no body, the connection goes on', async () => {
    const run = await someRun();
    const path = `/api/runs/${run}/blocks?from=0&to=1000000000`;
    const ok = await fetch(`${srv.base}${path}`);
    assert.equal(ok.status, 200);
    const etag = ok.headers.get('etag');
    const len200 = (await ok.arrayBuffer()).byteLength;
    assert.ok(etag && len200 > 0);
    // the 304, then a second request on the same connection
    const r = await exchange(srv.port,
      `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nIf-None-Match: ${etag}\r\n\r\n` +
      'GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    const h = head(r.text);
    assert.equal(h.status, 304, h.line);
    assert.deepEqual(h.headers['content-length'], [String(len200)]);
    assert.equal(h.headers['transfer-encoding'], undefined);
    assert.deepEqual(h.headers.etag, [etag]);
    // nothing between the 304's header section and the next answer
    assert.match(h.rest, /^HTTP\/1\.1 200 /, JSON.stringify(h.rest.slice(0, 80)));
  });

  test('a tag fresh before the answer is built: neither Content-Length nor Transfer-Encoding, and no body', async () => {
    // a window never asked for since the start: the handler sees the tag
    // fresh and builds nothing, so the 200's length is not known here
    const run = await someRun();
    const path = `/api/runs/${run}/blocks?from=0&to=1000000001`;
    const first = await fetch(`${srv.base}${path}`);
    const etag = first.headers.get('etag');
    await first.arrayBuffer();
    const other = `/api/runs/${run}/blocks?from=0&to=1000000001&max=19999`;
    const tag2 = etag.replace('.20000.', '.19999.');
    assert.notEqual(tag2, etag);
    const r = await exchange(srv.port,
      `GET ${other} HTTP/1.1\r\nHost: 127.0.0.1\r\nIf-None-Match: ${tag2}\r\n\r\n` +
      'GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    const h = head(r.text);
    assert.equal(h.status, 304, h.line);
    assert.equal(h.headers['content-length'], undefined, 'a Content-Length other than the 200\'s');
    assert.equal(h.headers['transfer-encoding'], undefined, 'chunked: 0.9.75 then sends a last chunk');
    // its end is the close, and nothing follows the header section
    assert.deepEqual(h.headers.connection, ['close']);
    assert.equal(h.rest, '');
    assert.ok(r.closed);
  });

  test('a page revalidated with If-Modified-Since: Content-Length is the file\'s', async () => {
    const ok = await fetch(`${srv.base}/`);
    const modified = ok.headers.get('last-modified');
    const len200 = (await ok.arrayBuffer()).byteLength;
    const r = await exchange(srv.port,
      `GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nIf-Modified-Since: ${modified}\r\n\r\n` +
      'GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    const h = head(r.text);
    assert.equal(h.status, 304, h.line);
    assert.deepEqual(h.headers['content-length'], [String(len200)]);
    assert.match(h.rest, /^HTTP\/1\.1 200 /);
  });
});

describe('a write refused from its headers is answered before its body is read', () => {
  // the refusal waited for the whole body (read and dropped), so a client
  // without the token that sent its headers and then its body slowly, or
  // not at all, held a connection and its thread; with Expect:
  // 100-continue the server even asked for the body it was going to refuse
  let tok;
  before(async () => { tok = await serve([], { env: { SCHEDLAB_TOKEN: 's3cret' } }); });
  after(async () => { await tok.stop(); });

  const big = 'Content-Length: 100000000\r\n';
  for (const [what, request, status] of [
    ['no token', `POST /api/imports HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\n${big}\r\n`, 401],
    ['a wrong token', `POST /api/imports HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer nope\r\nContent-Type: application/octet-stream\r\n${big}\r\n`, 401],
    ['no token, Expect: 100-continue', `POST /api/imports HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\nExpect: 100-continue\r\n${big}\r\n`, 401],
    ['a foreign Origin', `POST /api/experiments HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://evil.example\r\nAuthorization: Bearer s3cret\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n`, 403],
    ['a Content-Type not JSON', `POST /api/experiments HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer s3cret\r\nContent-Type: text/plain\r\nContent-Length: 1000000\r\n\r\n`, 415],
  ]) {
    test(`${what}: ${status} at once, no body sent, the connection closed`, async () => {
      const r = await exchange(tok.port, request, 3000);
      assert.ok(r.ms !== null, `no answer within 3 s: ${JSON.stringify(r.text)}`);
      const h = head(r.text);
      // the final answer first: no "100 Continue" for a body that is refused
      assert.equal(h.status, status, h.line);
      assert.ok(r.ms < 1000, `answered after ${r.ms} ms`);
      assert.deepEqual(h.headers.connection, ['close']);
      assert.ok(r.closed && r.closeMs < 1000, `closed: ${r.closed} after ${r.closeMs} ms`);
    });
  }

  test('a client that sent its small body before reading gets the refusal, not a reset', async () => {
    for (let i = 0; i < 20; i++) {
      const r = await fetch(`${tok.base}/api/experiments`, {
        method: 'POST', body: JSON.stringify({ name: 'x'.repeat(60000) }), headers: { 'Content-Type': 'application/json' },
      });
      assert.equal(r.status, 401);
      assert.match((await r.json()).error, /needs a token for writes/);
    }
  });
});

describe('the drain after a refusal holds no one else up', () => {
  // what a refused client sends on is read and dropped for up to 2 s after
  // the answer; that drain ran in libmicrohttpd's one accepting thread, so a
  // client that kept sending held every new connection back for those 2 s
  test('while a refused client trickles on after the close, /api/health answers at once', async () => {
    const s = net.connect({ port: srv.port, host: '127.0.0.1', allowHalfOpen: true });
    s.on('error', () => {});
    let answered = '';
    s.on('data', (d) => { answered += d.toString('latin1'); });
    s.write('POST /api/imports HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\n' +
      'Content-Length: 8589934592\r\n\r\n');
    const iv = setInterval(() => s.write('x'.repeat(100)), 50);
    try {
      const t0 = Date.now();
      while (!answered && Date.now() - t0 < 3000) await new Promise((ok) => setTimeout(ok, 10));
      assert.match(answered, /^HTTP\/1\.1 413 /);
      await new Promise((ok) => setTimeout(ok, 300));   // the drain is under way
      // on a new connection (fetch's pool may hold one already accepted)
      const r = await exchange(srv.port, 'GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
      assert.equal(head(r.text).status, 200);
      assert.ok(r.ms < 500, `/api/health answered after ${r.ms} ms`);
    } finally { clearInterval(iv); s.destroy(); }
  });
});

describe('a refused body\'s client reads the refusal, not a reset', () => {
  // A refusal at the headers leaves what the client sent of its body unread
  // in the socket; a close then would send a reset that discards the answer
  // before the client reads it. The server shuts its side for writing and
  // reads and drops the rest first (server/http/conn_guard.h cg_linger).
  test('4 MB of an over-cap body sent before reading: the 413 arrives, five times of five', async () => {
    let got = 0;
    for (let k = 0; k < 5; k++) {
      const out = await new Promise((done) => {
        const s = net.connect({ port: srv.port, host: '127.0.0.1' });
        let text = '';
        s.on('data', (d) => { text += d; });
        s.on('error', () => {});
        s.on('close', () => done(text));
        s.on('connect', () => {
          s.write('POST /api/experiments HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
            'Content-Length: 1000000000\r\n\r\n');
          s.write(Buffer.alloc(4 << 20, 0x20), () => s.end());
        });
      });
      if (/^HTTP\/1\.1 413 /.test(out)) got++;
    }
    assert.equal(got, 5);
  });
});

describe('Host (RFC 9112 3.2)', () => {
  // a missing Host is a malformed request (400), not a misdirected one:
  // 421 stays for a Host naming another server (DNS rebinding, issue 16)
  test('an HTTP/1.1 request without Host, or with two, is 400; an HTTP/1.0 one without Host too', async () => {
    for (const request of [
      'GET /api/health HTTP/1.1\r\nConnection: close\r\n\r\n',
      'GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n',
      'GET /api/health HTTP/1.0\r\n\r\n',
      'POST /api/experiments HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
    ]) {
      const h = head((await exchange(srv.port, request)).text);
      assert.equal(h.status, 400, `${JSON.stringify(request)}: ${h.line}`);
      assert.match(h.rest, /Host header/);
    }
  });

  test('a Host naming another server is still 421', async () => {
    const h = head((await exchange(srv.port, 'GET /api/health HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n')).text);
    assert.equal(h.status, 421, h.line);
  });
});

describe('the absolute-form target (RFC 9112 3.2.2)', () => {
  // "a server MUST accept the absolute-form in requests"; its authority,
  // not the Host header, names the server
  const get = (target, host, version = '1.1') =>
    `GET ${target} HTTP/${version}\r\n${host === null ? '' : `Host: ${host}\r\n`}Connection: close\r\n\r\n`;

  test('http://ADDRESS:PORT/api/health is routed as /api/health', async () => {
    const h = head((await exchange(srv.port, get(`http://127.0.0.1:${srv.port}/api/health`, `127.0.0.1:${srv.port}`))).text);
    assert.equal(h.status, 200, h.line);
    assert.equal(JSON.parse(h.rest).status, 'ok');
  });

  test('its query is read; scheme and host in any case; no path is /', async () => {
    const { body } = await json(`${srv.base}/api/experiments`);
    const slug = body.experiments[0].slug;
    const h = head((await exchange(srv.port, get(`HTTP://LocalHost:${srv.port}/api/experiments/${slug}?scenario=0`, '127.0.0.1'))).text);
    assert.equal(h.status, 200, h.line);
    const e = JSON.parse(h.rest);
    assert.equal(e.slug, slug);
    assert.ok(!('scenario' in e), '?scenario=0 was not read');
    const root = head((await exchange(srv.port, get('http://127.0.0.1', '127.0.0.1'))).text);
    assert.equal(root.status, 200, root.line);
    assert.match(root.headers['content-type'][0], /^text\/html/);
  });

  test('the authority decides, not Host: another server\'s is 421, ours with any Host is answered', async () => {
    const evil = head((await exchange(srv.port, get('http://evil.example/api/health', '127.0.0.1'))).text);
    assert.equal(evil.status, 421, evil.line);
    assert.match(evil.rest, /the request target's host \\"evil\.example\\" is not a name this server answers to/);
    const ours = head((await exchange(srv.port, get(`http://127.0.0.1:${srv.port}/api/health`, 'evil.example'))).text);
    assert.equal(ours.status, 200, ours.line);
    // HTTP/1.0 had no Host: the authority is enough
    const old = head((await exchange(srv.port, get('http://127.0.0.1/api/health', null, '1.0'))).text);
    assert.equal(old.status, 200, old.line);
  });

  test('a user in the authority, another scheme, or a target that is no path is 400', async () => {
    for (const target of ['http://u@127.0.0.1/api/health', 'ftp://127.0.0.1/api/health', 'api/health', 'http:///api/health']) {
      const h = head((await exchange(srv.port, get(target, '127.0.0.1'))).text);
      assert.equal(h.status, 400, `${target}: ${h.line}`);
      assert.match(h.rest, /request target/);
    }
  });
});

describe('HEAD (RFC 9110 9.3.2, 8.6)', () => {
  // HEAD has the GET's header fields; a Content-Length only when it is the
  // GET's: a streamed export (chunked) said "Content-Length: 0"
  async function fields(path, method) {
    const r = await exchange(srv.port, `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    const h = head(r.text);
    delete h.headers.date;
    return h;
  }

  test('every API route and page: the GET\'s status and fields, no body', async () => {
    const run = await someRun();
    const { body } = await json(`${srv.base}/api/experiments`);
    for (const path of ['/api/health', '/api/experiments', `/api/experiments/${body.experiments[0].slug}`,
      `/api/runs/${run}`, `/api/runs/${run}/blocks`, `/api/runs/${run}/kernels`, '/api/capabilities',
      '/api/presets', '/api/runs/nosuchrun', `/api/runs/${run}/export`, `/api/runs/${run}/export?format=chrome`, '/']) {
      const g = await fields(path, 'GET'), h = await fields(path, 'HEAD');
      assert.equal(h.status, g.status, path);
      assert.equal(h.rest, '', `${path}: HEAD sent a body`);
      const gl = g.headers['content-length'], hl = h.headers['content-length'];
      if (gl) assert.deepEqual(hl, gl, `${path}: Content-Length`);
      else assert.equal(hl, undefined, `${path}: HEAD has Content-Length ${hl}, the GET none`);
      // the rest as the GET's; chunked framing is the GET body's own
      for (const k of Object.keys(g.headers)) {
        if (k === 'transfer-encoding' || k === 'content-length') continue;
        assert.deepEqual(h.headers[k], g.headers[k], `${path}: ${k}`);
      }
    }
  });

  test('after a HEAD of a streamed answer nothing but the next answer comes', async () => {
    const run = await someRun();
    const r = await exchange(srv.port, `HEAD /api/runs/${run}/export HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n` +
      'GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    const h = head(r.text);
    assert.equal(h.status, 200);
    // either the connection closes after the HEAD (no length to give) or
    // the next answer follows at once; never a chunk of the export
    assert.ok(h.rest === '' || h.rest.startsWith('HTTP/1.1 200 '), JSON.stringify(h.rest.slice(0, 80)));
  });
});

describe('a chunked upload past --max-upload (RFC 9110 15.5.14)', () => {
  // a body without Content-Length has no size to refuse from the headers:
  // the server read and dropped it up to twice the cap and only then
  // answered 413 (or, for a client that sent on, cut the connection with
  // no answer at all), so any client could make it read 2x the limit
  const CAP = 1 << 20;
  let cap;
  before(async () => { cap = await serve(['--max-upload', String(CAP)]); });
  after(async () => { await cap.stop(); });

  const headers = 'POST /api/imports?format=globaltimer-csv&name=cap.csv HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
    'Content-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n';

  // Send the headers, then 16 KiB chunks (each once the last is written; past
  // the cap 5 ms apart, time for an answer to come) up to 3x the cap; resolves
  // with what came back and how much of the body had been written when its
  // first byte came
  function sendOn(request = headers, limit = CAP) {
    return new Promise((resolve) => {
      const s = net.connect(cap.port, '127.0.0.1');
      let out = Buffer.alloc(0), sent = 0, sentAtAnswer = null, stopped = false;
      const chunk = `${(16384).toString(16)}\r\n${'x'.repeat(16384)}\r\n`;
      const finish = () => {
        if (stopped) return;
        stopped = true;
        clearTimeout(timer);
        s.destroy();
        resolve({ text: out.toString('latin1'), sent, sentAtAnswer });
      };
      const timer = setTimeout(finish, 10000);
      s.on('data', (d) => {
        if (sentAtAnswer === null) sentAtAnswer = sent;
        out = Buffer.concat([out, d]);
        if (out.includes('\r\n\r\n') && out.toString('latin1').includes('}')) finish();
      });
      s.on('end', finish);
      s.on('error', finish);
      const next = () => {
        if (stopped || sentAtAnswer !== null) return;
        if (sent >= 3 * limit) return;
        s.write(chunk, () => {
          sent += 16384;
          if (sent > limit) setTimeout(next, 5); else next();
        });
      };
      s.write(request, next);
    });
  }

  test('the 413 comes once the cap is passed, before 1.2x the cap is sent, and the connection closes', async () => {
    const r = await sendOn();
    assert.ok(r.sentAtAnswer !== null,
      `no answer after ${r.sent} bytes (${(r.sent / CAP).toFixed(2)}x the cap): ${JSON.stringify(r.text.slice(0, 200))}`);
    assert.ok(r.sentAtAnswer <= 1.2 * CAP,
      `the answer came after ${r.sentAtAnswer} bytes, ${(r.sentAtAnswer / CAP).toFixed(2)}x the cap`);
    const h = head(r.text);
    assert.equal(h.status, 413, h.line);
    assert.deepEqual(h.headers.connection, ['close']);
    assert.deepEqual(h.headers['content-type'], ['application/json']);
    assert.deepEqual(h.headers['x-frame-options'], ['DENY']);
    assert.equal(Number(h.headers['content-length'][0]), Buffer.byteLength(h.rest));
    assert.match(JSON.parse(h.rest).error, /over the 1 MiB limit/);
    // the server goes on answering
    assert.equal((await fetch(`${cap.base}/api/health`)).status, 200);
  });

  test('a GET\'s chunked body past the 64 MiB JSON cap: 413 as soon, not read to twice the cap', async () => {
    const JSON_CAP = 64 << 20;
    const r = await sendOn('GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n', JSON_CAP);
    assert.ok(r.sentAtAnswer !== null && r.sentAtAnswer <= 1.2 * JSON_CAP,
      `answered after ${r.sentAtAnswer} bytes, ${r.sent} sent: ${JSON.stringify(r.text.slice(0, 200))}`);
    assert.equal(head(r.text).status, 413, r.text.slice(0, 80));
  });

  test('a body of exactly the cap is imported; one byte more is 413', async () => {
    // a globaltimer CSV padded to CAP bytes by its last kernel's name
    let csv = 'kernel,block,sm,start_ns,end_ns,stream,threads\n';
    for (let i = 0; csv.length < CAP - 200; i++) csv += `K${i % 7},${i},${i % 4},${1000 + i},${2000 + i},s1,256\n`;
    const tail = (name) => `${name},0,0,1,2,s1,256\n`;
    csv += tail('P'.repeat(CAP - csv.length - tail('').length));
    assert.equal(Buffer.byteLength(csv), CAP);
    const post = (body) => exchange(cap.port, headers.replace('HTTP/1.1\r\n', 'HTTP/1.1\r\nConnection: close\r\n') +
      `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`, 20000);
    const at = head((await post(csv)).text);
    assert.equal(at.status, 201, `${at.line} ${at.rest.slice(0, 300)}`);
    const over = head((await post(`${csv}\n`)).text);
    assert.equal(over.status, 413, over.line);
  });
});

describe('a cap under 1 MiB is named in bytes', () => {
  // the 413's message printed the cap as whole MiB: "--max-upload 100000"
  // said "over the 0 MiB limit"; a cap in whole KiB but not whole MiB
  // (102400, 100 KiB) is named in bytes too
  let small;
  before(async () => { small = await serve(['--max-upload', '102400']); });
  after(async () => { await small.stop(); });

  test('a Content-Length past it, and a chunked body past it, say "102400 bytes"', async () => {
    const byLength = head((await exchange(small.port,
      'POST /api/imports?format=globaltimer-csv&name=x.csv HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
      'Content-Type: application/octet-stream\r\nContent-Length: 200000\r\n\r\n')).text);
    assert.equal(byLength.status, 413, byLength.line);
    assert.match(JSON.parse(byLength.rest).error, /is over the 102400 bytes limit/);
    const chunk = 'x'.repeat(60000);
    const body = `${chunk.length.toString(16)}\r\n${chunk}\r\n`.repeat(3);
    const chunked = head((await exchange(small.port,
      'POST /api/imports?format=globaltimer-csv&name=x.csv HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
      `Content-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n${body}`)).text);
    assert.equal(chunked.status, 413, chunked.line);
    assert.match(JSON.parse(chunked.rest).error, /over the 102400 bytes limit/);
  });
});
