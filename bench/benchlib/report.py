"""bench/bench's report: read the runs' results (the METRIC lines vm/run
kept, through the core's parser), aggregate per stage, and write
results.md, results.json (json module) and plot.dat for gnuplot.

  bench/bench-report OUT KEY=VALUE... -- STAGE...
OUT/runs/STAGE-KIND-ROUND.results are the inputs; the KEY=VALUE pairs
describe the run (accel, vcpus, rounds, ws_mb, accesses_per_thread, pages,
...): numbers are kept as numbers."""
from __future__ import annotations

import json
import os
import sys
from typing import Dict, List, Optional

from swaplab.run import results_metrics


def _num(v: Optional[str]) -> Optional[float]:
    try:
        return float(v) if v is not None else None
    except ValueError:
        return None


def _stat(vals: List[float]):
    """(median, min, max) over rounds; None when no round measured."""
    v = sorted(x for x in vals if x is not None)
    if not v:
        return None, None, None
    return v[(len(v) - 1) // 2], v[0], v[-1]


def aggregate(out: str, stages: List[str], rounds: int) -> List[Dict]:
    rows = []
    for s in stages:
        def per_round(kind: str, key: str) -> List[Optional[float]]:
            return [_num((results_metrics(os.path.join(out, 'runs', f'{s}-{kind}-{r}.results')) or {}).get(key))
                    for r in range(1, rounds + 1)]
        pm, pmin, pmax = _stat(per_round('pressure', 'fault_median_us'))
        rm, rmin, rmax = _stat(per_round('refault', 'fault_median_us'))
        lock = results_metrics(os.path.join(out, 'runs', f'{s}-lockstat-1.results')) or {}
        rows.append({
            'stage': s,
            'median_fault_us': pm, 'median_fault_us_min': pmin, 'median_fault_us_max': pmax,
            'p99_fault_us': _stat(per_round('pressure', 'fault_p99_us'))[0],
            'swapins_per_s': _stat(per_round('pressure', 'swapins_per_s'))[0],
            'swapouts_per_s': _stat(per_round('pressure', 'swapouts_per_s'))[0],
            'refault_median_us': rm, 'refault_median_us_min': rmin, 'refault_median_us_max': rmax,
            'refault_p99_us': _stat(per_round('refault', 'fault_p99_us'))[0],
            'si_lock_acq_per_page': _num(lock.get('si_lock_acq_per_page')),
            'si_lock_contentions_per_page': _num(lock.get('si_lock_con_per_page')),
            'cluster_lock_acq_per_page': _num(lock.get('cluster_lock_acq_per_page')),
            'xa_lock_contentions': _num(lock.get('xa_lock_con')),
            'si_lock_hold_ns_per_page': _num(lock.get('si_lock_hold_ns_per_page')),
            'si_lock_wait_ns_per_page': _num(lock.get('si_lock_wait_ns_per_page')),
            'cluster_lock_hold_ns_per_page': _num(lock.get('cluster_lock_hold_ns_per_page')),
            'cluster_lock_wait_ns_per_page': _num(lock.get('cluster_lock_wait_ns_per_page')),
            'xa_lock_hold_ns_per_page': _num(lock.get('xa_lock_hold_ns_per_page')),
            'xa_lock_wait_ns_per_page': _num(lock.get('xa_lock_wait_ns_per_page')),
            # the same swap-in fault on the debug kernel (lock_stat's run):
            # how much lockdep slows a fault, to scale its hold times back
            'debug_fault_median_us': _num(lock.get('fault_median_us')),
        })
    return rows


def _f(v: Optional[float], nd: int = 1) -> str:
    if v is None:
        return '-'
    return f'{v:.{nd}f}' if nd else f'{v:.0f}'


def markdown(env: Dict, rows: List[Dict]) -> str:
    lines = [f"# swaplab bench: {env.get('date', '')} \u2014 {env['accel']}, {env['vcpus']} vCPUs, "
             f"{env['rounds']} rounds", '',
             f"Reproduce: `make bench VCPUS={env['vcpus']} ROUNDS={env['rounds']}` (pressure: {env['ws_mb']} MB "
             f"working set, memory.max {env['ws_mb'] // 2} MB, {env['accesses_per_thread']} accesses per thread; "
             f"refault and lock_stat: {env['pages']} pages).", '',
             '| stage | pressure median \u00b5s (min\u2013max) | pressure p99 \u00b5s | swap-ins/s | swap-outs/s | '
             'refault median \u00b5s (min\u2013max) | refault p99 \u00b5s | si->lock acq/page | '
             'si->lock contentions/page | cluster-lock acq/page | xa_lock contentions | '
             'si->lock hold / wait ns/page | cluster lock hold / wait ns/page | xa_lock hold / wait ns/page |',
             '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|']
    for r in rows:
        lines.append(
            f"| {r['stage']} | {_f(r['median_fault_us'])} ({_f(r['median_fault_us_min'])}\u2013"
            f"{_f(r['median_fault_us_max'])}) | {_f(r['p99_fault_us'])} | {_f(r['swapins_per_s'], 0)} | "
            f"{_f(r['swapouts_per_s'], 0)} | {_f(r['refault_median_us'])} ({_f(r['refault_median_us_min'])}\u2013"
            f"{_f(r['refault_median_us_max'])}) | {_f(r['refault_p99_us'])} | {_f(r['si_lock_acq_per_page'], 4)} | "
            f"{_f(r['si_lock_contentions_per_page'], 4)} | {_f(r['cluster_lock_acq_per_page'], 4)} | "
            f"{_f(r['xa_lock_contentions'], 0)} | "
            f"{_f(r.get('si_lock_hold_ns_per_page'), 0)} / {_f(r.get('si_lock_wait_ns_per_page'), 0)} | "
            f"{_f(r.get('cluster_lock_hold_ns_per_page'), 0)} / {_f(r.get('cluster_lock_wait_ns_per_page'), 0)} | "
            f"{_f(r.get('xa_lock_hold_ns_per_page'), 0)} / {_f(r.get('xa_lock_wait_ns_per_page'), 0)} |")
    lines += ['', 'Lock hold and wait times come from `/proc/lock_stat` on the debug kernel (lockdep makes '
              'every hold longer, so compare stages; do not quote them as production figures).']
    return '\n'.join(lines) + '\n'


def main(argv: List[str]) -> int:
    if len(argv) < 3 or '--' not in argv:
        print(__doc__, file=sys.stderr)
        return 3
    out = argv[0]
    i = argv.index('--')
    env: Dict = {}
    for kv in argv[1:i]:
        k, _, v = kv.partition('=')
        env[k] = int(v) if v.isdigit() else v
    stages = argv[i + 1:]
    rows = aggregate(out, stages, int(env['rounds']))
    with open(os.path.join(out, 'results.json'), 'w', encoding='utf-8') as f:
        json.dump({'environment': env, 'stages': rows}, f, indent=1, ensure_ascii=False)
        f.write('\n')
    with open(os.path.join(out, 'results.md'), 'w', encoding='utf-8') as f:
        f.write(markdown(env, rows))
    with open(os.path.join(out, 'plot.dat'), 'w', encoding='utf-8') as f:
        for r in rows:
            cols = [r[k] for k in ('median_fault_us', 'median_fault_us_min', 'median_fault_us_max',
                                   'refault_median_us', 'si_lock_acq_per_page')]
            f.write(r['stage'] + ''.join(f' {c:.4f}' if c is not None else ' NaN' for c in cols) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
