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

// Every rewrite of the page's own URL (a view key changed: zoom window,
// hidden kernels, a search, a sort, …) goes through replaceUrl, so the
// history entry always holds the view as it is now (Back and Forward land
// on it so) and a page that remembers its URL hears of each rewrite:
// listen(url) after each (the run page's tab links, views/run.mjs: a page
// cannot read the URL it leaves on popstate, location is the next one's).
const rewriteListeners = new Set();
export function onRewrite(listen) {
  rewriteListeners.add(listen);
  return () => rewriteListeners.delete(listen);
}

// Same page, new state: replaceState so the back button is not flooded
// with every wheel step, and no re-render.
export function replaceUrl(url) {
  if (url === location.pathname + location.search) return;
  history.replaceState(null, '', url);
  for (const listen of rewriteListeners) listen(url);
}

// Same page, new state (zoom window, hidden kernels): replaceUrl.
export function replaceQuery(obj) {
  replaceUrl(location.pathname + buildQuery(obj));
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
  replaceUrl(`${location.pathname}${search ? `?${search}` : ''}`);
}
