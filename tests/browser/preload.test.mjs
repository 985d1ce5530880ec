// The module lists of the dashboard against its real import graph (issue
// 15: every view's first paint without a module waterfall; issue 30: a page
// fetches only its own view's modules). web/index.html preloads what
// main.mjs and preload.mjs import statically; web/js/views.mjs lists, per
// page, the module that draws it and everything that module imports, which
// preload.mjs asks for at once. This walks the imports the way the browser
// resolves them, so a module added, renamed or dropped without touching a
// list fails here instead of quietly costing a round trip.
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
  const all = reachable('/js/views/compare.mjs');
  for (const m of ['/js/views/compare.mjs', '/js/charts/compare.mjs', '/js/views/tasks_compare.mjs',
    '/js/charts/timeline.mjs', '/js/charts/timeline/draw.mjs']) assert.ok(all.has(m), `${m} not reached from compare.mjs`);
  // main.mjs reaches no view statically: each is imported when shown
  for (const m of reachable('/js/main.mjs')) assert.ok(!m.startsWith('/js/views/'), `main.mjs imports ${m} statically`);
});

test('views.mjs lists, for every page, exactly the modules its view reaches', async () => {
  const { VIEWS } = await import('../../web/js/views.mjs');
  const { ROUTES } = await import('../../web/js/router.mjs');
  assert.deepEqual(Object.keys(VIEWS).sort(), ROUTES.map((r) => r.name).sort());
  const seen = new Set();
  for (const [name, v] of Object.entries(VIEWS)) {
    const urls = v.modules.map((m) => `/js/${m}`);
    assert.equal(new Set(urls).size, urls.length, `${name}: a module listed twice`);
    assert.deepEqual([...urls].sort(), [...reachable(urls[0])].sort(), `${name}: views.mjs's list is not ${urls[0]}'s import graph`);
    urls.forEach((u) => seen.add(u));
  }
  // every module of web/js is some page's, main.mjs's or preload.mjs's
  const core = new Set([...reachable('/js/main.mjs'), ...reachable('/js/preload.mjs')]);
  const files = fs.readdirSync(path.join(WEB, 'js'), { recursive: true }).filter((f) => f.endsWith('.mjs')).map((f) => `/js/${f}`);
  for (const f of files) assert.ok(seen.has(f) || core.has(f), `${f} is imported by no page`);
});

test('index.html preloads exactly the modules main.mjs and preload.mjs import statically, each once', () => {
  const list = preloads();
  assert.equal(new Set(list).size, list.length, `a module is preloaded twice: ${list.join(' ')}`);
  const want = [...new Set([...reachable('/js/main.mjs'), ...reachable('/js/preload.mjs')])]
    .filter((u) => u !== '/js/main.mjs' && u !== '/js/preload.mjs').sort();
  assert.deepEqual([...list].sort(), want);
  for (const u of list) assert.ok(fs.existsSync(path.join(WEB, u)), `${u} preloaded but not in web/`);
});

test('main.mjs is the page\'s module script and preload.mjs its first, async script, neither a preload', () => {
  const html = fs.readFileSync(path.join(WEB, 'index.html'), 'utf8');
  assert.match(html, /<script type="module" src="\/js\/main\.mjs"><\/script>/);
  const first = /<script\b[^>]*>/.exec(html)[0];
  assert.equal(first, '<script type="module" async src="/js/preload.mjs">', 'preload.mjs is not the first script of the page');
  assert.ok(!preloads().includes('/js/main.mjs') && !preloads().includes('/js/preload.mjs'));
});
