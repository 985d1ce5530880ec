// read_token_cache.test.mjs -- with --read-token the API's answers are the
// token holders' alone, so the ones cached for long ("public, max-age=…,
// immutable": a run's windows; "public, max-age=60": presets, capabilities)
// say "private": "public" lets a shared cache (a proxy in front of serve)
// keep an answer to a request with Authorization and give it to anyone
// (RFC 9111 3.5). Without a read token they stay public.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { serve } from './serve_opts.mjs';

async function cacheControls(base, headers) {
  const exps = await (await fetch(`${base}/api/experiments`, { headers })).json();
  const run = exps.experiments.find((e) => e.runs.length).runs[0].run;
  const out = {};
  for (const path of [`/api/runs/${run}/blocks`, `/api/runs/${run}/occupancy`, '/api/presets', '/api/capabilities']) {
    const r = await fetch(`${base}${path}`, { headers });
    assert.equal(r.status, 200, path);
    await r.arrayBuffer();
    out[path.replace(run, 'RUN')] = r.headers.get('cache-control');
  }
  return out;
}

test('--read-token: long-cached API answers are private, not public', async () => {
  const s = await serve([], { env: { SCHEDLAB_READ_TOKEN: 'reader', SCHEDLAB_TOKEN: '' } });
  try {
    const cc = await cacheControls(s.base, { Authorization: 'Bearer reader' });
    assert.deepEqual(cc, {
      '/api/runs/RUN/blocks': 'private, max-age=31536000, immutable',
      '/api/runs/RUN/occupancy': 'private, max-age=31536000, immutable',
      '/api/presets': 'private, max-age=60',
      '/api/capabilities': 'private, max-age=60',
    });
    // the dashboard's files stay open and public as before
    const v = await fetch(`${s.base}/vendor/chart.umd.min.js`);
    if (v.status === 200) assert.equal(v.headers.get('cache-control'), 'public, max-age=86400');
    await v.arrayBuffer();
  } finally { await s.stop(); }
});

test('without a read token they stay public', async () => {
  const s = await serve([], { env: { SCHEDLAB_READ_TOKEN: '', SCHEDLAB_TOKEN: '' } });
  try {
    const cc = await cacheControls(s.base, {});
    assert.equal(cc['/api/runs/RUN/blocks'], 'public, max-age=31536000, immutable');
    assert.equal(cc['/api/presets'], 'public, max-age=60');
  } finally { await s.stop(); }
});
