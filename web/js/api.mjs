// api.mjs -- every request the dashboard makes goes through here, so a
// failure always reaches the user as one readable line: the server's own
// {"error": "..."} text verbatim when it sent one.

import { loadChart } from './chartlib.mjs';

export class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
  }
}

// The token of a server started with --token (issue 16): asked for once
// when a write is refused with 401, kept for this tab only. A server with
// --read-token refuses reads too (docs/shared-machine.md: the pages stay
// open, a shared link needs the token): the same prompt then comes at the
// first refused read, and the kept token goes with every request (the
// write token is also good for reads).
const TOKEN_KEY = 'schedlab-token';
function savedToken() {
  try { return sessionStorage.getItem(TOKEN_KEY) || ''; } catch { return ''; }
}

// The prompt after a 401: in the page's words (the server's owner gave the
// token to the team), saying so when the token kept for this tab was the
// one refused; an empty answer forgets it. Answers the new token or ''.
function askToken(read = false) {
  const had = savedToken();
  const t = window.prompt(had
    ? 'The token kept for this tab was refused. Enter the token this schedlab server was started with (ask whoever runs it):'
    : `This schedlab server needs a token ${read ? 'to show its data' : 'for changes'}. Enter the token it was started with (ask whoever runs it); it is kept until you close this tab:`);
  try {
    if (t && t.trim()) sessionStorage.setItem(TOKEN_KEY, t.trim());
    else sessionStorage.removeItem(TOKEN_KEY);
  } catch { /* private mode: asked again next time */ }
  return t ? t.trim() : '';
}

const sleep = (ms, signal) => new Promise((ok, fail) => {
  const t = setTimeout(ok, ms);
  if (signal) signal.addEventListener('abort', () => { clearTimeout(t); fail(new DOMException('aborted', 'AbortError')); }, { once: true });
});

// Long work answers 202 {job}: poll GET /api/jobs/{id}, reporting progress
// (0..1) to onProgress, until the job has its result (or its error).
async function waitJob(job, onProgress, signal) {
  for (;;) {
    const j = await request(`/api/jobs/${encodeURIComponent(job)}`, { signal, headers: { Accept: 'application/json' } });
    // phase: what a running import does now ("parsing", "storing"; docs/api.md)
    if (onProgress) onProgress(typeof j.progress === 'number' ? j.progress : 0, j.state, j.phase || null);
    if (j.state === 'done') return j.result;
    if (j.state === 'failed' || j.state === 'aborted') throw new ApiError(j.error || `job ${job} ${j.state}`, j.status || 500);
    await sleep(400, signal);
  }
}

// A file of the API (a run's export) as a blob, sent with the token kept
// for this tab: a link cannot carry the token a server started with
// --read-token wants for it (docs/shared-machine.md). { blob, name }, the
// name from the answer's Content-Disposition.
export async function fetchFile(path) {
  const t = savedToken();
  let res;
  try {
    res = await fetch(path, t ? { headers: { Authorization: `Bearer ${t}` } } : {});
  } catch (e) {
    throw new ApiError(`Cannot reach the schedlab server (${path}): ${e.message}`, 0);
  }
  if (!res.ok) {
    let msg = '';
    try { msg = (await res.json()).error || ''; } catch { /* not JSON */ }
    throw new ApiError(msg || `${path}: HTTP ${res.status}`, res.status);
  }
  const m = /filename="?([^";]+)"?/.exec(res.headers.get('Content-Disposition') || '');
  return { blob: await res.blob(), name: m ? m[1] : 'schedlab-export.json' };
}

// Whether a token is kept for this tab (the server asked for one).
export const haveToken = () => !!savedToken();

// ask: false for a write the page makes on its own (the Tasks tab's bounds):
// a 401 is an error, not a token prompt.
// A read refused once the user declined to give a token is not asked again
// (a page makes several reads at once: one prompt, not one each).
let readDeclined = false;

async function request(path, options = {}, onProgress = null, ask = true) {
  let res;
  const write = options.method && options.method !== 'GET';
  const sent = savedToken();
  const sendOptions = sent ? { ...options, headers: { ...options.headers, Authorization: `Bearer ${sent}` } } : options;
  try {
    res = await fetch(path, sendOptions);
  } catch (e) {
    if (e && e.name === 'AbortError') throw e;
    throw new ApiError(`Cannot reach the schedlab server (${path}): ${e.message}`, 0);
  }
  const text = await res.text();
  // a view draws what it fetched with window.Chart: the answer is handed
  // over once the library is in (chartlib.mjs; it loads beside the first
  // requests, and is nearly always in before their answers)
  if (typeof window !== 'undefined') await loadChart().catch(() => {});
  let body = null;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = null;
    }
  }
  if (res.status === 401 && write && ask && typeof window !== 'undefined' && window.prompt) {
    if (askToken()) return request(path, options, onProgress);
  }
  if (res.status === 401 && !write && typeof window !== 'undefined' && window.prompt) {
    // another read of the page may have asked already while this one was
    // on its way: then its token is tried without asking again
    if (savedToken() && savedToken() !== sent) return request(path, options, onProgress, ask);
    if (!readDeclined) {
      if (askToken(true)) return request(path, options, onProgress, ask);
      readDeclined = true;
    }
  }
  if (res.status === 202 && body && body.job) return waitJob(body.job, onProgress, options.signal);
  if (!res.ok) {
    if (body && typeof body.error === 'string') throw new ApiError(body.error, res.status);
    throw new ApiError(`${path}: HTTP ${res.status} ${res.statusText}`.trim(), res.status);
  }
  if (body === null) throw new ApiError(`${path}: the server answered something that is not JSON`, res.status);
  return body;
}

// ---- answers asked for ahead (issue 30) ----------------------------------
//
// A page opened from a link used to ask for its data only once its view's
// modules had all arrived and run: on the GCAPS case-study compare, 200-450
// ms of fetching modules, then the requests. preload.mjs now asks for a
// view's first answers (views.mjs `early`) while its modules are on their
// way: `askAhead(fn)` runs fn, and every GET it makes through `api` goes out
// at once and is kept by path; the view's own request for that path, when it
// comes, takes the answer in flight instead of asking again. What the view
// never asks for is dropped once it is drawn (`dropAhead`).
const ahead = new Map();   // path -> promise of the answer
const askedAhead = [];     // every path asked for ahead, in order
let collecting = false;

export function askAhead(fn) {
  collecting = true;
  try {
    fn();
  } finally {
    collecting = false;
  }
}

export function dropAhead() {
  ahead.clear();
}

// paths asked for ahead, and those not (yet) taken by a view (window.schedlab
// aheadAsked and aheadLeft once the first view is drawn, for the tests)
export function aheadAsked() {
  return [...askedAhead];
}

export function aheadLeft() {
  return [...ahead.keys()];
}

// The answer `p` for a caller with an abort signal: a signal that fires
// rejects it with an AbortError, as fetch does (the request itself, shared,
// goes on).
function abortable(p, signal) {
  if (!signal) return p;
  const abortError = () => new DOMException('The operation was aborted.', 'AbortError');
  if (signal.aborted) return Promise.reject(abortError());
  return new Promise((ok, no) => {
    const onAbort = () => no(abortError());
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(ok, no).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

export function getJSON(path, signal) {
  if (collecting) {
    if (!ahead.has(path)) {
      askedAhead.push(path);
      const p = request(path, { headers: { Accept: 'application/json' } });
      p.catch(() => {});   // (a failure reaches the view that takes it)
      ahead.set(path, p);
    }
    return ahead.get(path);
  }
  const early = ahead.get(path);
  if (early) {
    ahead.delete(path);
    return abortable(early, signal);
  }
  return request(path, { signal, headers: { Accept: 'application/json' } });
}

// body: a string or a File/Blob, sent as is (the server detects formats
// from the content, so nothing is re-encoded here).
// onProgress(fraction, state) is called while the server works on it as a job.
export function postRaw(path, body, contentType, signal, onProgress = null) {
  const headers = { Accept: 'application/json' };
  if (contentType) headers['Content-Type'] = contentType;
  return request(path, { method: 'POST', body, headers, signal }, onProgress);
}

// A trace upload through XHR rather than fetch, since only XHR reports
// upload progress (issue 15): onSend(0..1) while the body goes out, then,
// when the server imports it as a job (202), onJob(0..1, state) as
// request() does. Resolves to the 201 body ({run, experiment, format}).
// onSend(0..1) as the body goes out, then onSent() once all of it has:
// from then on the server may store it (an import under sync_bytes answers
// only when stored), so the page no longer offers to cancel it. An abort of
// `signal` before that drops the connection mid-body, and the server keeps
// nothing of a body it did not get whole.
function xhrPost(path, body, onSend, signal, onSent) {
  return new Promise((resolve, reject) => {
    const x = new XMLHttpRequest();
    const aborted = () => reject(new DOMException('aborted', 'AbortError'));
    if (signal?.aborted) return aborted();
    x.open('POST', path);
    x.setRequestHeader('Content-Type', 'application/octet-stream');
    x.setRequestHeader('Accept', 'application/json');
    if (savedToken()) x.setRequestHeader('Authorization', `Bearer ${savedToken()}`);
    x.upload.addEventListener('progress', (ev) => {
      if (ev.lengthComputable && onSend) onSend(ev.loaded / ev.total);
    });
    x.upload.addEventListener('load', () => {
      if (onSent) onSent();
    });
    x.addEventListener('load', () => {
      if (onSend) onSend(1);
      let b = null;
      try { b = JSON.parse(x.responseText); } catch { b = null; }
      resolve({ status: x.status, body: b });
    });
    x.addEventListener('error', () => reject(new ApiError(`Cannot reach the schedlab server (${path})`, 0)));
    x.addEventListener('abort', aborted);
    if (signal) signal.addEventListener('abort', () => x.abort(), { once: true });
    x.send(body);
  });
}

// POST /api/imports of one file: onSend(fraction) for the transfer, then
// onJob(fraction, state, phase) while the server imports it as a job.
// `signal` cancels: before the body has gone out whole, the transfer is
// dropped (AbortError); while the job runs, DELETE /api/jobs/{id} asks the
// server to stop, and the job's own end is the answer -- the import's
// result when it finished first, else the job's error (409 "cancelled;
// nothing was stored", docs/api.md). onSent() once the body is out.
export async function importWithProgress(file, { format, experiment, name } = {}, onSend = null, onJob = null, signal = undefined, onSent = null) {
  const q = new URLSearchParams();
  if (format) q.set('format', format);
  if (experiment) q.set('experiment', experiment);
  if (name) q.set('name', name);
  const path = `/api/imports${q.toString() ? `?${q}` : ''}`;
  let res = await xhrPost(path, file, onSend, signal, onSent);
  if (res.status === 401 && typeof window !== 'undefined' && window.prompt) {
    if (askToken()) res = await xhrPost(path, file, onSend, signal, onSent);
  }
  if (res.status === 202 && res.body && res.body.job) {
    const job = res.body.job;
    try {
      return await waitJob(job, onJob, signal);
    } catch (e) {
      if (!signal?.aborted) throw e;
      await request(`/api/jobs/${encodeURIComponent(job)}`, { method: 'DELETE', headers: { Accept: 'application/json' } }, null, false);
      return waitJob(job, onJob);
    }
  }
  if (res.status >= 200 && res.status < 300 && res.body) return res.body;
  throw new ApiError(res.body && typeof res.body.error === 'string' ? res.body.error : `${path}: HTTP ${res.status}`, res.status);
}

// DELETE (issue 15: an experiment); the token prompt as for any write.
export function deleteJSON(path, signal) {
  return request(path, { method: 'DELETE', signal, headers: { Accept: 'application/json' } });
}

const enc = encodeURIComponent;

// "?k=v&…" of the arguments given, in their order (null and undefined left
// out); '' when none is.
function query(args) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(args)) if (v !== undefined && v !== null) q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

// GET /api/capabilities never changes while a server runs: asked once.
let capabilities = null;

export const api = {
  experiments: (signal) => getJSON('/api/experiments', signal),
  experiment: (slug, signal) => getJSON(`/api/experiments/${enc(slug)}`, signal),
  // the same without the scenario text, for pages after the name and runs
  // (a 4,096-kernel scenario is ~600 KB to parse and send, issue 15)
  experimentBrief: (slug, signal) => getJSON(`/api/experiments/${enc(slug)}?scenario=0`, signal),
  run: (run, signal) => getJSON(`/api/runs/${enc(run)}`, signal),
  kernels: (run, signal) => getJSON(`/api/runs/${enc(run)}/kernels`, signal),
  // a kernel-level run's window (issue 9): {mode: "kernels", kernels} when it
  // holds at most max, else {mode: "bins", names, lanes} per-stream busy bins;
  // without from/to every kernel of a run of at most max
  kernelsWindow: (run, { from, to, max }, signal) => getJSON(`/api/runs/${enc(run)}/kernels${query({ max, from, to })}`, signal),
  // per-stream busy bins of the kernel names listed ("0-3,7": indices into
  // the bins answer's names), for the legend
  streams(run, { from, to, max, names }, signal) {
    const q = new URLSearchParams({ from: String(from), to: String(to), max: String(max), names });
    return getJSON(`/api/runs/${enc(run)}/streams?${q}`, signal);
  },
  copies: (run, signal) => getJSON(`/api/runs/${enc(run)}/copies`, signal),
  // a page of a run's kernels or copies (kind), in a column's order, maybe
  // of one name only: {total, offset, limit, sort, order, kernels | copies}
  recordsPage(run, kind, { offset, limit, sort, order, name }, signal) {
    const q = new URLSearchParams({ offset: String(offset), limit: String(limit) });
    if (sort) q.set('sort', sort);
    if (order) q.set('order', order);
    if (name) q.set('name', name);
    return getJSON(`/api/runs/${enc(run)}/${kind}?${q}`, signal);
  },
  // a run's copies by window (issue 9: a big nvprof trace is mostly copies):
  // {mode: "copies", copies} when the window holds at most max, else
  // {mode: "bins", lanes} per copy engine; without from/to every copy of a
  // run of at most max
  copiesWindow: (run, { from, to, max }, signal) => getJSON(`/api/runs/${enc(run)}/copies${query({ max, from, to })}`, signal),
  blocks: (run, { from, to, max } = {}, signal) => getJSON(`/api/runs/${enc(run)}/blocks${query({ from, to, max })}`, signal),
  // occupancy bins of the kernels listed ("3-7,12"): what /blocks' bins
  // would be with every other kernel hidden (issue 9, for the legend)
  occupancy(run, { from, to, max, kernels }, signal) {
    const q = new URLSearchParams({ from: String(from), to: String(to), max: String(max), kernels });
    return getJSON(`/api/runs/${enc(run)}/occupancy?${q}`, signal);
  },
  queueSeries: (run, signal) => getJSON(`/api/runs/${enc(run)}/queues`, signal),
  // a window's queue lengths as power-of-two bins (issue 9: the queue pyramid)
  queueBins: (run, from, to, bins, signal) => getJSON(`/api/runs/${enc(run)}/queues?from=${from}&to=${to}&bins=${bins}`, signal),
  queuesAt: (run, at, signal) => getJSON(`/api/runs/${enc(run)}/queues?at=${enc(String(at))}`, signal),
  presets: (signal) => getJSON('/api/presets', signal),
  // formats, policies per table, presets, device fields (docs/api.md)
  capabilities() {
    if (!capabilities) {
      if (collecting) askedAhead.push('/api/capabilities');
      // (its own memo: asked for ahead by preload.mjs, it is kept here,
      // not in the ahead map)
      capabilities = request('/api/capabilities', { headers: { Accept: 'application/json' } }).catch((e) => {
        capabilities = null;
        throw e;
      });
    }
    return capabilities;
  },
  // the request limits (window and /warps max, runs per compare): the
  // server's own numbers, never typed again here (issue 24)
  limits: () => api.capabilities().then((c) => c.limits),
  health: (signal) => getJSON('/api/health', signal),
  summary: (run, signal) => getJSON(`/api/runs/${enc(run)}/summary`, signal),
  jobs: (run, signal) => getJSON(`/api/runs/${enc(run)}/jobs`, signal),
  // the host's calls of a run whose CPU tasks can be held (its summary's
  // host_calls): {host_calls: [each op's call, the syncs' call and return]}
  hostCalls: (run, signal) => getJSON(`/api/runs/${enc(run)}/host_calls`, signal),
  // a run's warp issue slots (issue 30): {from, to, max} as given, each optional
  warps: (run, { from, to, max } = {}, signal) => getJSON(`/api/runs/${enc(run)}/warps${query({ max, from, to })}`, signal),
  // POST /api/rta: every analysis' bound of a taskset or scenario (text);
  // ask: false where the page asks on its own, so a 401 never prompts
  rta: (text, signal, { ask = true } = {}) => request('/api/rta', {
    method: 'POST', body: text, signal, headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
  }, null, ask),
  replay: (run, device, signal) => getJSON(`/api/runs/${enc(run)}/replay${device ? `?device=${enc(device)}` : ''}`, signal),
  // POST /api/runs/{run}/replay: a job that simulates the replay under every
  // placement policy and stores fidelity reports; device '' = as the server
  // picks it (the trace's own device, or the preset its name names)
  replayRun: (run, device, signal, onProgress) => postRaw(`/api/runs/${enc(run)}/replay`,
    JSON.stringify(device ? { device } : {}), 'application/json', signal, onProgress),
  fidelity: (run, signal) => getJSON(`/api/runs/${enc(run)}/fidelity`, signal),
  compare: (runs, signal) => getJSON(`/api/compare?runs=${runs.map(enc).join(',')}`, signal),
  createExperiment: (text, signal, onProgress) => postRaw('/api/experiments', text, 'application/json', signal, onProgress),
  // edit and re-run (issue 15): the edited scenario as the next version
  newVersion: (slug, text, signal, onProgress) => postRaw(`/api/experiments/${enc(slug)}/versions`, text, 'application/json', signal, onProgress),
  deleteExperiment: (slug, signal) => deleteJSON(`/api/experiments/${enc(slug)}`, signal),
  importTrace(file, { format, name, experiment } = {}, signal, onProgress) {
    const q = new URLSearchParams();
    if (format) q.set('format', format);
    if (name) q.set('name', name);
    if (experiment) q.set('experiment', experiment);
    const qs = q.toString();
    return postRaw(`/api/imports${qs ? `?${qs}` : ''}`, file, 'application/octet-stream', signal, onProgress);
  },
  exportUrl: (run, format) => `/api/runs/${enc(run)}/export?format=${enc(format)}`,
  // sweeps from the page (issue 30): the shipped specs, one's text, a sweep
  // started as a job (the 202 {job} answered, not waited for, so that the
  // page can cancel it), the job's state, and its cancel
  sweepSpecs: (signal) => getJSON('/api/sweeps/specs', signal),
  sweepSpec: (file, signal) => getJSON(`/api/sweeps/specs/${enc(file)}`, signal),
  sweepResult: (slug, signal) => getJSON(`/api/experiments/${enc(slug)}/sweep`, signal),
  startSweep: ({ text = null, spec = null } = {}, signal) => startJob(`/api/sweeps${spec ? `?spec=${enc(spec)}` : ''}`, text, signal),
  job: (id, signal) => getJSON(`/api/jobs/${enc(id)}`, signal),
  cancelJob: (id, signal) => deleteJSON(`/api/jobs/${enc(id)}`, signal),
};

// POST that answers 202 {job}: the job's id, not its end (api.startSweep).
async function startJob(path, body, signal) {
  const headers = { Accept: 'application/json', 'Content-Type': 'application/json' };
  if (savedToken()) headers.Authorization = `Bearer ${savedToken()}`;
  let res;
  try {
    res = await fetch(path, { method: 'POST', body: body || undefined, headers, signal });
  } catch (e) {
    if (e && e.name === 'AbortError') throw e;
    throw new ApiError(`Cannot reach the schedlab server (${path}): ${e.message}`, 0);
  }
  let b = null;
  try { b = await res.json(); } catch { b = null; }
  if (res.status === 401 && typeof window !== 'undefined' && window.prompt && askToken()) return startJob(path, body, signal);
  if (res.status === 202 && b && b.job) return b;
  throw new ApiError(b && typeof b.error === 'string' ? b.error : `${path}: HTTP ${res.status}`, res.status);
}
