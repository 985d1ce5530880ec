// api.mjs -- every request the dashboard makes goes through here, so a
// failure always reaches the user as one readable line: the server's own
// {"error": "..."} text verbatim when it sent one.

export class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
  }
}

async function request(path, options = {}) {
  let res;
  try {
    res = await fetch(path, options);
  } catch (e) {
    if (e && e.name === 'AbortError') throw e;
    throw new ApiError(`Cannot reach the schedlab server (${path}): ${e.message}`, 0);
  }
  const text = await res.text();
  let body = null;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = null;
    }
  }
  if (!res.ok) {
    if (body && typeof body.error === 'string') throw new ApiError(body.error, res.status);
    throw new ApiError(`${path}: HTTP ${res.status} ${res.statusText}`.trim(), res.status);
  }
  if (body === null) throw new ApiError(`${path}: the server answered something that is not JSON`, res.status);
  return body;
}

export function getJSON(path, signal) {
  return request(path, { signal, headers: { Accept: 'application/json' } });
}

// body: a string or a File/Blob, sent as is (the server detects formats
// from the content, so nothing is re-encoded here).
export function postRaw(path, body, contentType, signal) {
  const headers = { Accept: 'application/json' };
  if (contentType) headers['Content-Type'] = contentType;
  return request(path, { method: 'POST', body, headers, signal });
}

const enc = encodeURIComponent;

// GET /api/capabilities never changes while a server runs: asked once.
let capabilities = null;

export const api = {
  experiments: (signal) => getJSON('/api/experiments', signal),
  experiment: (slug, signal) => getJSON(`/api/experiments/${enc(slug)}`, signal),
  run: (run, signal) => getJSON(`/api/runs/${enc(run)}`, signal),
  kernels: (run, signal) => getJSON(`/api/runs/${enc(run)}/kernels`, signal),
  copies: (run, signal) => getJSON(`/api/runs/${enc(run)}/copies`, signal),
  blocks(run, { from, to, max } = {}, signal) {
    const q = new URLSearchParams();
    if (from !== undefined && from !== null) q.set('from', String(from));
    if (to !== undefined && to !== null) q.set('to', String(to));
    if (max !== undefined && max !== null) q.set('max', String(max));
    const qs = q.toString();
    return getJSON(`/api/runs/${enc(run)}/blocks${qs ? `?${qs}` : ''}`, signal);
  },
  queueSeries: (run, signal) => getJSON(`/api/runs/${enc(run)}/queues`, signal),
  queuesAt: (run, at, signal) => getJSON(`/api/runs/${enc(run)}/queues?at=${enc(String(at))}`, signal),
  presets: (signal) => getJSON('/api/presets', signal),
  // formats, policies per table, presets, device fields (docs/api.md)
  capabilities() {
    if (!capabilities) {
      capabilities = getJSON('/api/capabilities').catch((e) => {
        capabilities = null;
        throw e;
      });
    }
    return capabilities;
  },
  replay: (run, device, signal) => getJSON(`/api/runs/${enc(run)}/replay${device ? `?device=${enc(device)}` : ''}`, signal),
  compare: (runs, signal) => getJSON(`/api/compare?runs=${runs.map(enc).join(',')}`, signal),
  createExperiment: (text, signal) => postRaw('/api/experiments', text, 'application/json', signal),
  importTrace(file, { format, name, experiment } = {}, signal) {
    const q = new URLSearchParams();
    if (format) q.set('format', format);
    if (name) q.set('name', name);
    if (experiment) q.set('experiment', experiment);
    const qs = q.toString();
    return postRaw(`/api/imports${qs ? `?${qs}` : ''}`, file, 'application/octet-stream', signal);
  },
  exportUrl: (run, format) => `/api/runs/${enc(run)}/export?format=${enc(format)}`,
};
