#!/usr/bin/env python3
"""summary_ref.py FILE... -- the run summary of GET /api/runs/{run}/summary
(simcore/summary.h) computed independently from the raw PyTorch profiler
JSON, with Python's json module and decimal arithmetic, for
docs/pytorch.md and tests/api/pytorch.test.mjs. Prints JSON:
  devices: {LANE: {window_ns, busy_ns, compute_ns, communication_ns, copy_ns,
                   idle_ns, communication_overlapped_ns}}
  streams: {"LANE/STREAM": {... without the overlap}}
  kernels: [[name, count, total_ns, p50_ns, p95_ns]] by total, descending
  launch_delay: {count, min_ns, p50_ns, p95_ns, p99_ns, max_ns}
  communication: {total_ns, overlapped_ns}
Unions are computed on the set of (start, end) pairs by a boundary sweep
(+1 at a start, -1 at an end), not by merging sorted intervals as
summary.c does; percentiles are nearest-rank (ceil(p/100 n)-th smallest).
"""
import decimal
import gzip
import json
import math
import sys
from collections import defaultdict

KINDS = {'kernel': 'k', 'Kernel': 'k', 'gpu_memcpy': 'c', 'Memcpy': 'c', 'gpu_memset': 'c', 'Memset': 'c'}
CALLS = {'cuda_runtime', 'Runtime', 'cuda_driver'}


def ns(us):
    return int((decimal.Decimal(us) * 1000).quantize(1, rounding=decimal.ROUND_HALF_UP))


def covered(ivs):
    """Length of the union of [s, e) intervals, by a sweep over boundaries."""
    ev = sorted([(s, 1) for s, e in ivs if e > s] + [(e, -1) for s, e in ivs if e > s])
    depth, last, total = 0, None, 0
    for t, d in ev:
        if depth > 0:
            total += t - last
        depth += d
        last = t
    return total


def both(a, b):
    """Length covered by a union of a and by a union of b at once."""
    ev = sorted([(s, 0, 1) for s, e in a if e > s] + [(e, 0, -1) for s, e in a if e > s] +
                [(s, 1, 1) for s, e in b if e > s] + [(e, 1, -1) for s, e in b if e > s])
    depth, last, total = [0, 0], None, 0
    for t, w, d in ev:
        if depth[0] > 0 and depth[1] > 0:
            total += t - last
        depth[w] += d
        last = t
    return total


def pct(v, p):
    v = sorted(v)
    return v[max(1, math.ceil(p * len(v) / 100)) - 1]


def main(paths):
    recs = []          # (lane, stream, class, start, end)
    delays = []
    names = defaultdict(list)
    for path in paths:
        raw = open(path, 'rb').read()
        if raw[:2] == b'\x1f\x8b':
            raw = gzip.decompress(raw)
        d = json.loads(raw, parse_float=decimal.Decimal)
        base = int(d.get('baseTimeNanoseconds', 0))
        rank = (d.get('distributedInfo') or {}).get('rank')
        calls = {}
        for e in d['traceEvents']:
            a = e.get('args') or {}
            if e.get('cat') in CALLS and e.get('ph') == 'X' and 'correlation' in a:
                calls[a['correlation']] = min(base + ns(e['ts']), calls.get(a['correlation'], 1 << 70))
        for e in d['traceEvents']:
            k = KINDS.get(e.get('cat'))
            if not k or e.get('ph') != 'X':
                continue
            a = e['args']
            lane = ('rank%d ' % rank if rank is not None else '') + 'gpu%d' % a['device']
            s = base + ns(e['ts'])
            t = s + ns(e['dur'])
            n = e['name']
            cls = 'copy' if k == 'c' else ('comm' if (n[5:] if n.startswith('void ') else n).startswith('nccl') else 'compute')
            recs.append((lane, str(a['stream']), cls, s, t))
            if k == 'k':
                names[n].append(t - s)
                if a.get('correlation') in calls:
                    delays.append(s - calls[a['correlation']])

    def lane_numbers(rs, window):
        return {'window_ns': window, 'busy_ns': covered([(s, e) for _, _, _, s, e in rs]),
                'compute_ns': covered([(s, e) for _, _, c, s, e in rs if c == 'compute']),
                'communication_ns': covered([(s, e) for _, _, c, s, e in rs if c == 'comm']),
                'copy_ns': covered([(s, e) for _, _, c, s, e in rs if c == 'copy'])}

    out = {'devices': {}, 'streams': {}}
    total_comm = total_over = 0
    for lane in sorted({r[0] for r in recs}):
        rs = [r for r in recs if r[0] == lane]
        window = max(r[4] for r in rs) - min(r[3] for r in rs)
        dv = lane_numbers(rs, window)
        dv['idle_ns'] = window - dv['busy_ns']
        dv['communication_overlapped_ns'] = both([(s, e) for _, _, c, s, e in rs if c == 'comm'],
                                                 [(s, e) for _, _, c, s, e in rs if c == 'compute'])
        total_comm += dv['communication_ns']
        total_over += dv['communication_overlapped_ns']
        out['devices'][lane] = dv
        for stream in sorted({r[1] for r in rs}):
            sv = lane_numbers([r for r in rs if r[1] == stream], window)
            sv['idle_ns'] = window - sv['busy_ns']
            out['streams'][lane + '/' + stream] = sv
    ks = sorted(([n, len(v), sum(v), pct(v, 50), pct(v, 95)] for n, v in names.items()),
                key=lambda x: -x[2])
    out['kernel_time_ns'] = sum(sum(v) for v in names.values())
    out['kernels'] = ks
    out['launch_delay'] = {'count': len(delays), 'min_ns': min(delays), 'p50_ns': pct(delays, 50),
                           'p95_ns': pct(delays, 95), 'p99_ns': pct(delays, 99), 'max_ns': max(delays)}
    out['communication'] = {'total_ns': total_comm, 'overlapped_ns': total_over}
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == '__main__':
    main(sys.argv[1:])
