// The <link rel="modulepreload"> list of web/index.html against the
// dashboard's real import graph (issue 15: every view's first paint without
// a module waterfall). Walks the static imports from /js/main.mjs the way
// the browser resolves them, so a module added, renamed or dropped without
// touching index.html fails here instead of quietly costing a round trip.
// Pure node: no browser, no server.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const WEB = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web');

// The specifiers of `import ... from '...'` / `import '...'` statements and
// of dynamic `import('...')` calls in a module's text.
function importsOf(text) {
  const out = [];
  // static imports start a line (the dashboard's style); their bindings may
  // span lines; "import" inside comments is skipped by the ^ anchor
  const re = /^import\s+(?:[^;'"]*?\s*from\s*)?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm;
  for (let m; (m = re.exec(text));) out.push(m[1] || m[2]);
  return out;
}

// Every module reachable from `entry` (a URL path like /js/main.mjs).
function reachable(entry) {
  const seen = new Set();
  const pending = [entry];
  while (pending.length) {
    const url = pending.pop();
    if (seen.has(url)) continue;
    seen.add(url);
    const text = fs.readFileSync(path.join(WEB, url), 'utf8');
    for (const spec of importsOf(text)) {
      assert.ok(spec.startsWith('.'), `${url}: import "${spec}" is not a relative path`);
      pending.push(new URL(spec, `http://x${url}`).pathname);
    }
  }
  return seen;
}

function preloads() {
  const html = fs.readFileSync(path.join(WEB, 'index.html'), 'utf8');
  return [...html.matchAll(/<link\s+rel="modulepreload"\s+href="([^"]+)"/g)].map((m) => m[1]);
}

test('the import walker finds the imports it must (no silent empty graph)', () => {
  assert.deepEqual(importsOf("import { a } from './a.mjs';\nimport './b.mjs';\nconst c = import('../c.mjs');"),
    ['./a.mjs', './b.mjs', '../c.mjs']);
  const all = reachable('/js/main.mjs');
  for (const m of ['/js/views/compare.mjs', '/js/charts/compare.mjs', '/js/views/experiment.mjs', '/js/editor.mjs',
    '/js/charts/timeline.mjs', '/js/views/run.mjs']) assert.ok(all.has(m), `${m} not reached from main.mjs`);
});

test('index.html preloads exactly the modules main.mjs imports, each once', () => {
  const list = preloads();
  assert.equal(new Set(list).size, list.length, `a module is preloaded twice: ${list.join(' ')}`);
  const want = [...reachable('/js/main.mjs')].filter((u) => u !== '/js/main.mjs').sort();
  assert.deepEqual([...list].sort(), want);
  for (const u of list) assert.ok(fs.existsSync(path.join(WEB, u)), `${u} preloaded but not in web/`);
});

test('main.mjs itself is the page\'s module script, not a preload', () => {
  const html = fs.readFileSync(path.join(WEB, 'index.html'), 'utf8');
  assert.match(html, /<script type="module" src="\/js\/main\.mjs"><\/script>/);
  assert.ok(!preloads().includes('/js/main.mjs'));
});
