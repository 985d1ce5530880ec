#!/usr/bin/env python3
"""gcaps_xcheck.py -- `schedlab rta` against the GCAPS authors' released analysis.

Draws tasksets with the authors' own generator (analysis/taskset_gen.py of
rtenlab/gcaps-super-repo), at the settings of the six Fig. 8 experiments
(experiments.py -e 1..6, one experiment and one x value drawn per taskset),
runs their ten tests (experiments.select_policy) and `schedlab rta` with
"semantics": "released-code" on the same taskset, and counts the tasksets
where the two verdicts differ, per analysis and per experiment.

    python3 tools/gcaps_xcheck.py ANALYSIS_DIR [N [SEED [SCHEDLAB]]]

ANALYSIS_DIR is a checkout's analysis/ folder (git clone
https://github.com/rtenlab/gcaps-super-repo); its code needs numpy and
termcolor (Debian: python3-numpy python3-termcolor). N tasksets (default
1000), SEED for the choice of experiment and x (their generator reseeds
itself from time.process_time(), so runs differ anyway), SCHEDLAB the
binary (default ./schedlab). Prints one line per analysis; exits 1 when
some verdict differs. docs/rta.md ("Every verdict, against the released
code") gives the counts. Not part of `make test`: the authors' code is not
in this repository.
"""
import json
import random
import subprocess
import sys
from collections import Counter


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__.strip().split('\n\n')[2])
    sys.path.insert(0, sys.argv[1])
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    binary = sys.argv[4] if len(sys.argv) > 4 else './schedlab'
    import numpy as np
    from taskset_gen import taskset_generation, Params
    from experiments import select_policy

    # experiments.policy_type's ids, by the names `schedlab rta` prints
    names = {0: 'mpcp_suspend', 1: 'mpcp_busy', 2: 'fmlp_suspend', 3: 'fmlp_busy',
             7: 'gcaps_suspend', 8: 'gcaps_busy', 9: 'gcaps_suspend_gprio',
             10: 'gcaps_busy_gprio', 12: 'tsg_rr_suspend', 13: 'tsg_rr_busy'}
    rng = random.Random(seed)
    differ = {a: Counter() for a in names.values()}
    for _ in range(n):
        # one of expr1's six sweeps (experiments.py), at one of its x values
        params, e, num, be = Params(), rng.randint(1, 6), -1, 0
        if e == 1:
            params.range_num_tasks_per_cpu[0] = params.range_num_tasks_per_cpu[1]
            be = rng.choice(list(np.arange(0, 0.9, 0.1)))
        elif e == 2:
            num = int(rng.choice(list(np.arange(2, 20 + 1, 2))))
        elif e == 3:
            x = rng.choice(list(np.arange(0, 1 + 0.1, 0.1)))
            params.range_ratio_g_to_c = [x, x]
        elif e == 4:
            x = rng.choice(list(np.arange(0.1, 1 + 0.1, 0.1)))
            params.range_util_per_cpu = [x, x]
        elif e == 5:
            params.ncpu = rng.randint(1, 9)
        else:
            x = rng.choice(list(np.arange(0.1, 1 + 0.1, 0.1)))
            params.range_ratio_of_gpu_tasks = [x, x]
        tasks = taskset_generation(params, 1, num, be)
        # the taskset format has segments only: the totals are their sums
        # (the generator rounds G and each segment apart, 0.01 ms each)
        for t in tasks:
            t.C_hi = sum(c.C_hi for c in t.ces)
            t.Gm_hi = sum(g.Gm_hi for g in t.ges)
            t.Ge_hi = sum(g.Ge_hi for g in t.ges)
            t.G_hi = t.Gm_hi + t.Ge_hi
            for g in t.ges:
                g.G_hi = g.Gm_hi + g.Ge_hi
        want = {names[p]: bool(select_policy(tasks, p)) for p in names}

        def ns(ms):
            return '%dns' % round(ms * 1e6)
        ts = {'schema': 'schedlab-taskset/1', 'cpus': params.ncpu, 'epsilon': '1ms',
              'theta': '200us', 'time_slice': '1ms', 'semantics': 'released-code', 'tasks': []}
        for t in tasks:
            d = {'name': 't%d' % len(ts['tasks']), 'cpu': t.cpu, 'period': ns(t.T),
                 'cpu_segments': [ns(c.C_hi) for c in t.ces]}
            if t.prio == -1:
                d['best_effort'] = True
            else:
                d['priority'] = t.prio
            if t.ges:
                d['gpu_segments'] = [{'misc': ns(g.Gm_hi), 'exec': ns(g.Ge_hi)} for g in t.ges]
            ts['tasks'].append(d)
        r = subprocess.run([binary, 'rta', '/dev/stdin'], input=json.dumps(ts),
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit('schedlab rta: ' + r.stderr.strip())
        got = json.loads(r.stdout)['analyses']
        for a, w in want.items():
            if got[a]['schedulable'] != w:
                differ[a][e] += 1
    bad = 0
    print('%d tasksets (released generator, experiments 1-6), verdicts that differ:' % n)
    for a in names.values():
        k = sum(differ[a].values())
        bad += k
        by = ', '.join('-e %d: %d' % (e, c) for e, c in sorted(differ[a].items()))
        print('  %-20s %5d%s' % (a, k, ' (' + by + ')' if by else ''))
    sys.exit(1 if bad else 0)


if __name__ == '__main__':
    main()
