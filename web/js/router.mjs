// router.mjs -- the URL is the whole view state (DESIGN §6): this module
// turns a location into {name, params, query} and back, and moves between
// pages with history.pushState so links a teammate sends open the same view.

// Each page with an example URL: the server must answer every page URL
// with the app shell (server/http.c is_page), which
// tests/api/page_routes.test.mjs checks with these examples; main.mjs has
// a view for each name (the same test).
export const ROUTES = [
  { name: 'experiments', re: /^\/$/, example: '/' },
  { name: 'experiment', re: /^\/experiments\/([^/]+)\/?$/, keys: ['slug'], example: '/experiments/abcdefghij' },
  { name: 'run', re: /^\/runs\/([^/]+)\/?$/, keys: ['run'], example: '/runs/abcdefghij/' },
  { name: 'compare', re: /^\/compare\/?$/, example: '/compare' },
  { name: 'sweeps', re: /^\/sweeps\/?$/, example: '/sweeps' },
];

// Raw query values, split on "," for lists. Each list item is encoded on
// its own (see buildQuery), so a kernel name holding a comma survives.
export function parseQuery(search) {
  const out = new Map();
  const s = search.startsWith('?') ? search.slice(1) : search;
  if (!s) return out;
  for (const part of s.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    const key = decodeURIComponent((eq < 0 ? part : part.slice(0, eq)).replace(/\+/g, ' '));
    const raw = eq < 0 ? '' : part.slice(eq + 1);
    out.set(key, raw);
  }
  return out;
}

function decodeItem(raw) {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

export function queryString(query, key) {
  const raw = query.get(key);
  return raw === undefined ? null : decodeItem(raw);
}

export function queryList(query, key) {
  const raw = query.get(key);
  if (raw === undefined || raw === '') return null;
  return raw.split(',').map(decodeItem);
}

// A list of ids ("runs=a,b"): queryList without empty items, so that a
// link with a doubled or trailing comma ("a,,b", typed or pasted) names the
// runs it lists; GET /api/compare refuses an empty id (docs/api.md).
export function queryIds(query, key) {
  const list = queryList(query, key);
  return list ? list.filter((id) => id !== '') : null;
}

// Integer query values (ns times); null when absent or not an integer.
export function queryInt(query, key) {
  const s = queryString(query, key);
  if (s === null || !/^-?\d+$/.test(s.trim())) return null;
  const v = Number(s);
  return Number.isSafeInteger(v) ? v : null;
}

export function encodeItem(s) {
  return encodeURIComponent(String(s)).replace(/,/g, '%2C');
}

// obj: key -> string | number | array (list) | null/undefined (left out).
export function buildQuery(obj) {
  const parts = [];
  for (const [k, v] of Object.entries(obj)) {
    if (v === null || v === undefined) continue;
    const val = Array.isArray(v) ? v.map(encodeItem).join(',') : encodeItem(v);
    parts.push(`${encodeURIComponent(k)}=${val}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

export function matchRoute(pathname, search) {
  const query = parseQuery(search || '');
  for (const r of ROUTES) {
    const m = r.re.exec(pathname);
    if (!m) continue;
    const params = {};
    (r.keys || []).forEach((k, i) => {
      params[k] = decodeItem(m[i + 1]);
    });
    return { name: r.name, params, query, path: pathname };
  }
  return { name: 'notfound', params: {}, query, path: pathname };
}

let onChange = () => {};

// Called once by main.mjs: handler(route) runs for every page change.
export function startRouter(handler) {
  onChange = handler;
  window.addEventListener('popstate', () => onChange(currentRoute()));
  document.addEventListener('click', (ev) => {
    if (ev.defaultPrevented || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
    const a = ev.target.closest && ev.target.closest('a[href]');
    if (!a || a.target || a.hasAttribute('download')) return;
    if (a.getAttribute('href').startsWith('#')) return;   // in-page (the skip link)
    const url = new URL(a.href, location.href);
    if (url.origin !== location.origin || url.pathname.startsWith('/api/')) return;
    ev.preventDefault();
    navigate(url.pathname + url.search);
  });
  onChange(currentRoute());
}

export function currentRoute() {
  return matchRoute(location.pathname, location.search);
}

export function navigate(url) {
  if (url !== location.pathname + location.search) history.pushState(null, '', url);
  onChange(currentRoute());
}

// Same page, new state (zoom window, hidden kernels): replaceState so the
// back button is not flooded with every wheel step, and no re-render.
export function replaceQuery(obj) {
  const url = location.pathname + buildQuery(obj);
  if (url !== location.pathname + location.search) history.replaceState(null, '', url);
}

// Same page, some keys changed (null/undefined: removed), the others kept as
// they are (raw, already encoded, in their order): a table's sort and
// filter beside whatever else the page's URL holds. replaceState, as
// replaceQuery.
export function updateQuery(obj) {
  const kept = location.search.slice(1).split('&')
    .filter((p) => p && !Object.hasOwn(obj, decodeItem(p.split('=')[0])));
  const mine = buildQuery(obj).slice(1);
  const search = [...kept, ...(mine ? [mine] : [])].join('&');
  const url = `${location.pathname}${search ? `?${search}` : ''}`;
  if (url !== location.pathname + location.search) history.replaceState(null, '', url);
}
