// The dashboard's units against the one C table (issue 24): web/js/format.mjs
// names times (s, ms, µs, ns) and byte sizes (B, KB, MB, GB, TB, binary
// prefixes) in what it shows; every name it uses must be one that the
// inputs accept (importers/unit_table.c, read by the scenarios' quantities,
// server/formats/units.c, and nvprof's CSV header) with the same scale, so
// that "1.5 ms" or "256 MB" read off the page and typed into a scenario
// means what the page meant. The units are taken from format.mjs by its
// behaviour (unitFor, formatBytes), the scales from the C source itself.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { unitFor, formatBytes } from '../../web/js/format.mjs';

const C_TABLE = fileURLToPath(new URL('../../importers/unit_table.c', import.meta.url));

// "const imp_unit imp_time_units[] = { {"s", NS_PER_S}, ... {NULL, 0}};"
// -> Map(name -> scale); C string escapes (\xc2\xb5 for µ) decoded as UTF-8,
// scales evaluated for the three forms the file uses (N, INT64_C(N) << K,
// the file's own #defines).
function cTable(src, table) {
  const defines = new Map();
  for (const m of src.matchAll(/^#define\s+(\w+)\s+INT64_C\((\d+)\)\s*$/gm)) defines.set(m[1], BigInt(m[2]));
  const body = src.match(new RegExp(`const imp_unit ${table}\\[\\] = \\{([\\s\\S]*?)\\};`));
  assert.ok(body, `${table} not found in importers/unit_table.c`);
  const map = new Map();
  for (const m of body[1].matchAll(/\{"((?:[^"\\]|\\.)*)",\s*([^}]*)\}/g)) {
    const bytes = [];
    for (let i = 0; i < m[1].length; i++) {
      if (m[1][i] === '\\' && m[1][i + 1] === 'x') {
        bytes.push(parseInt(m[1].slice(i + 2, i + 4), 16));
        i += 3;
      } else {
        bytes.push(m[1].charCodeAt(i));
      }
    }
    const name = Buffer.from(bytes).toString('utf8');
    const e = m[2].trim();
    let v;
    let k;
    if ((k = e.match(/^INT64_C\((\d+)\)\s*<<\s*(\d+)$/))) v = BigInt(k[1]) << BigInt(k[2]);
    else if (/^\d+$/.test(e)) v = BigInt(e);
    else if (defines.has(e)) v = defines.get(e);
    else assert.fail(`${table}: cannot read the scale of "${name}": ${e}`);
    map.set(name, Number(v));
  }
  assert.ok(map.size > 0, `${table}: no entries read`);
  return map;
}

const src = readFileSync(C_TABLE, 'utf8');

test('the C table reader reads what the C table says (a check of this test)', () => {
  const time = cTable(src, 'imp_time_units');
  assert.equal(time.get('s'), 1e9);
  assert.equal(time.get('µs'), 1e3);
  const size = cTable(src, 'imp_size_units');
  assert.equal(size.get('KiB'), 1024);
  assert.equal(size.get('TB'), 2 ** 40);
});

test('every time unit the dashboard shows is one the inputs accept, with the same scale', () => {
  const time = cTable(src, 'imp_time_units');
  const shown = new Map();
  for (let e = 0; e <= 12; e++) {
    const u = unitFor(10 ** e);
    shown.set(u.name, u.ns);
  }
  assert.ok(shown.size >= 4, `format.mjs shows ${[...shown.keys()].join(', ')}`);
  for (const [name, ns] of shown) {
    assert.ok(time.has(name), `format.mjs shows "${name}", which importers/unit_table.c does not know`);
    assert.equal(ns, time.get(name), `"${name}": format.mjs ${ns} ns, the C table ${time.get(name)} ns`);
  }
});

test('every byte unit the dashboard shows is one the inputs accept, with the same scale', () => {
  const size = cTable(src, 'imp_size_units');
  let seen = 0;
  for (let i = 0; i <= 4; i++) {
    const m = formatBytes(1024 ** i).match(/^1 (\S+)$/);
    assert.ok(m, `formatBytes(1024^${i}) = "${formatBytes(1024 ** i)}"`);
    assert.ok(size.has(m[1]), `format.mjs shows "${m[1]}", which importers/unit_table.c does not know`);
    assert.equal(size.get(m[1]), 1024 ** i, `"${m[1]}": format.mjs 1024^${i} bytes, the C table ${size.get(m[1])}`);
    seen++;
  }
  assert.equal(seen, 5);
});
