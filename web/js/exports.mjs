// exports.mjs -- "PNG of any chart, CSV of any table" (issue 15) for the
// cards no view gave its own buttons. The run view exports its timeline,
// queues and virtualised tables itself (it knows their rows beyond what is
// on screen); every other card of every view — compare's lanes, response
// chart and CDFs, the sweep charts and tables, the experiment's run list —
// gets its buttons here, added as the view draws them. A card's PNG is all
// of its canvases composed where they lie on the page (a timeline is a
// canvas plus an overlay); its CSV is the table's cells as shown. Files are
// named after the page (experiment, or experiment and run), with the same
// character rule as the server's export names.

import { fetchFile, haveToken } from './api.mjs';
import { h } from './dom.mjs';
import { setExtra } from './state.mjs';

// A name made safe as a file name: letters, digits, . _ - only (the rule of
// the server's export names, server/api.c export_name); '' when none is left.
export function safeName(x) {
  return x.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 58).replace(/^[_.-]+|[_.-]+$/g, '');
}

function cleanName(x) {
  return safeName(x) || 'schedlab';
}

function stem() {
  return cleanName(document.title.replace(/\s*·\s*schedlab\s*$/, ''));
}

function slug(card, i) {
  const title = card.querySelector('h2, h3');
  return title ? cleanName(title.textContent.toLowerCase()) : `chart-${i + 1}`;
}

export function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
  setExtra('downloaded', name);
}

// A link that downloads a file of the API (a run's export), attrs its other
// attributes. Plain, so that a large export streams to the disk; where a
// token is kept for this tab (the server wants one for reads, which a link
// cannot send) the click fetches the file with it and saves that instead,
// and a refusal is shown beside the link.
export function apiFileLink(url, label, attrs = {}) {
  const a = h('a', {
    ...attrs, href: url, download: true,
    onclick: (ev) => {
      if (!haveToken()) return;
      ev.preventDefault();
      a.parentNode?.querySelector('.export-error')?.remove();
      fetchFile(url).then(({ blob, name }) => download(blob, name)).catch((e) => {
        a.after(h('span', { class: 'error export-error', role: 'alert' }, ` ${e.message}`));
      });
    },
  }, label);
  return a;
}

// Every visible canvas of the card, drawn at its place on the page, on the
// card's background, at the canvases' own resolution.
export function cardPng(card) {
  const canvases = [...card.querySelectorAll('canvas')].filter((c) => c.width > 0 && c.height > 0 && c.offsetParent);
  if (!canvases.length) return Promise.resolve(null);
  const box = canvases.map((c) => c.getBoundingClientRect());
  const left = Math.min(...box.map((b) => b.left)), top = Math.min(...box.map((b) => b.top));
  const right = Math.max(...box.map((b) => b.right)), bottom = Math.max(...box.map((b) => b.bottom));
  const scale = Math.max(...canvases.map((c, i) => c.width / Math.max(1, box[i].width)));
  const out = document.createElement('canvas');
  out.width = Math.max(1, Math.round((right - left) * scale));
  out.height = Math.max(1, Math.round((bottom - top) * scale));
  const g = out.getContext('2d');
  g.fillStyle = getComputedStyle(card).backgroundColor || '#fff';
  g.fillRect(0, 0, out.width, out.height);
  canvases.forEach((c, i) => g.drawImage(c, (box[i].left - left) * scale, (box[i].top - top) * scale,
    box[i].width * scale, box[i].height * scale));
  return new Promise((resolve) => out.toBlob(resolve, 'image/png'));
}

// The table as shown: its header rows, then each row's cells (RFC 4180
// quoting; a cell spanning columns is written once).
export function tableCsv(table) {
  const q = (s) => (/[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
  const line = (cells) => cells.map((c) => q(c.textContent.replace(/\s+/g, ' ').trim())).join(',');
  const rows = [];
  for (const tr of table.querySelectorAll('thead tr')) rows.push(line([...tr.children]));
  for (const tr of table.querySelectorAll('tbody tr')) rows.push(line([...tr.children]));
  return `${rows.join('\r\n')}\r\n`;
}

function button(cls, label, title, onclick) {
  return h('button', { type: 'button', class: `${cls} export-auto`, title, onclick }, label);
}

// Add the missing buttons to the cards under root (idempotent).
export function addExports(root) {
  const cards = [...root.querySelectorAll('.card')];
  cards.forEach((card, i) => {
    if (card.closest('[data-no-export]')) return;
    const head = card.querySelector('h2, h3');
    if (!head) return;
    const bar = () => {
      let b = card.querySelector(':scope > .export-bar');
      if (!b) {
        b = h('div', { class: 'export-bar' });
        head.after(b);
      }
      return b;
    };
    if (card.querySelector('canvas') && !card.querySelector('.export-png')) {
      bar().append(button('export-png', 'PNG', 'save this chart as PNG', async () => {
        const blob = await cardPng(card);
        if (blob) download(blob, `${stem()}-${slug(card, i)}.png`);
      }));
    }
    const table = card.querySelector('table');
    if (table && !card.querySelector('.export-csv')) {
      bar().append(button('export-csv', 'CSV', 'save this table as CSV', () => {
        download(new Blob([tableCsv(table)], { type: 'text/csv' }), `${stem()}-${slug(card, i)}.csv`);
      }));
    }
  });
}

// Keep adding them while the view draws (cards arrive after its promise).
export function watchExports(root) {
  let pending = false;
  const run = () => { pending = false; addExports(root); };
  const obs = new MutationObserver(() => {
    if (!pending) { pending = true; requestAnimationFrame(run); }
  });
  obs.observe(root, { childList: true, subtree: true });
  addExports(root);
  return () => obs.disconnect();
}
