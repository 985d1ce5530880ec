// tools/slowest-files.mjs -- a node:test reporter (make suites): one line at
// the end naming the slowest test files, each with the sum of its top-level
// tests' times, as tools/run-units.sh names the slowest unit tests. The
// files run SUITE_JOBS at a time, so the longest should start first
// (Makefile, SLOW_SUITES): this line says which they are.
import { relative } from 'node:path';

export default async function* slowestFiles(source) {
  const per = new Map();
  for await (const ev of source) {
    if ((ev.type === 'test:pass' || ev.type === 'test:fail') && ev.data.nesting === 0 && ev.data.file) {
      const ms = ev.data.details?.duration_ms ?? 0;
      per.set(ev.data.file, (per.get(ev.data.file) ?? 0) + ms);
    }
  }
  const top = [...per].sort((a, b) => b[1] - a[1]).slice(0, 10);
  yield `-- slowest files: ${top.map(([f, ms]) => `${relative(process.cwd(), f)} ${(ms / 1000).toFixed(1)} s`).join(', ')}\n`;
}
