#!/usr/bin/env python3
"""kineto_counts.py FILE... -- an independent count of a PyTorch profiler
(libkineto) job, read from the raw JSON with Python's json module and
decimal arithmetic: it shares no code with schedlab's importer
(importers/pytorch_json.c), so tests/unit/test_imp_pytorch.c checks the
importer against it.

One line per fact, "KEY VALUE..." (times in ns from the job's origin, the
earliest GPU event start or launch-call start, as schedlab re-bases):
  kernels LANE STREAM N / copies LANE STREAM N / memsets LANE STREAM N
  comm N              kernels named nccl* (after an optional "void ")
  nolaunch N          GPU events with no runtime/driver call of their correlation
  origin NS           absolute ns of the origin
  sum_start / sum_end / sum_issue NS   over kernels, copies and memsets
  sum_blocks / sum_threads / sum_bytes N
  names N BYTES       distinct kernel names, and the UTF-8 bytes of every
                      kernel's name added up
  first NAME          the name of the earliest kernel (ties: file order)
LANE is "rankR gpuD" (distributedInfo.rank) or "gpuD".
"""
import collections
import decimal
import gzip
import json
import sys

CATS = {'kernel': 'kernels', 'Kernel': 'kernels', 'gpu_memcpy': 'copies', 'Memcpy': 'copies',
        'gpu_memset': 'memsets', 'Memset': 'memsets'}
CALLS = {'cuda_runtime', 'Runtime', 'cuda_driver'}


def ns(us, base):
    q = (decimal.Decimal(us) * 1000).quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP)
    return base + int(q)


def load(path):
    with open(path, 'rb') as f:
        raw = f.read()
    if raw[:2] == b'\x1f\x8b':
        raw = gzip.decompress(raw)
    return json.loads(raw, parse_float=decimal.Decimal)


def main(paths):
    counts = collections.Counter()
    events = []          # (start, end, issue or None, kind, name, blocks, threads, bytes, order)
    comm = nolaunch = 0
    order = 0
    for path in paths:
        d = load(path)
        base = int(d.get('baseTimeNanoseconds', 0))
        rank = (d.get('distributedInfo') or {}).get('rank')
        calls = {}
        for e in d['traceEvents']:
            a = e.get('args') or {}
            if e.get('cat') in CALLS and e.get('ph') == 'X' and 'correlation' in a:
                t = ns(e['ts'], base)
                c = a['correlation']
                calls[c] = min(t, calls.get(c, t))
        for e in d['traceEvents']:
            kind = CATS.get(e.get('cat'))
            if not kind or e.get('ph') != 'X':
                continue
            a = e.get('args') or {}
            lane = ('rank%d ' % rank if rank is not None else '') + 'gpu%d' % a['device']
            counts[(kind, lane, a['stream'])] += 1
            start = ns(e['ts'], base)
            end = start + int((decimal.Decimal(e['dur']) * 1000).quantize(1, rounding=decimal.ROUND_HALF_UP))
            issue = calls.get(a.get('correlation'))
            if issue is None:
                nolaunch += 1
            name = e['name']
            g, b = a.get('grid', [0, 0, 0]), a.get('block', [0, 0, 0])
            if kind == 'kernels':
                n2 = name[5:] if name.startswith('void ') else name
                comm += n2.startswith('nccl')
            events.append((start, end, issue, kind, name, g[0] * g[1] * g[2],
                           b[0] * b[1] * b[2] if kind == 'kernels' else 0,
                           a.get('bytes', 0) if kind != 'kernels' else 0, order))
            order += 1
    origin = min([e[0] for e in events] + [e[2] for e in events if e[2] is not None])
    for (kind, lane, stream), n in sorted(counts.items()):
        print(kind, lane, stream, n)
    print('comm', comm)
    print('nolaunch', nolaunch)
    print('origin', origin)
    print('sum_start', sum(e[0] - origin for e in events))
    print('sum_end', sum(e[1] - origin for e in events))
    print('sum_issue', sum(e[2] - origin for e in events if e[2] is not None))
    print('sum_blocks', sum(e[5] for e in events))
    print('sum_threads', sum(e[6] for e in events))
    print('sum_bytes', sum(e[7] for e in events))
    kn = [e[4] for e in events if e[3] == 'kernels']
    print('names', len(set(kn)), sum(len(n.encode('utf-8')) for n in kn))
    ks = sorted((e for e in events if e[3] == 'kernels'), key=lambda e: (e[0], e[8]))
    print('first', ks[0][4])


if __name__ == '__main__':
    main(sys.argv[1:])
