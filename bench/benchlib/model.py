"""A contention model of the swap-in fault, and the chart that puts it
beside the measurements and the seed's figures.

  bench/bench-model OUT BENCH_DIR...

Each BENCH_DIR is a `make bench` output (results.json) of one vCPU count.
Per stage, the model takes from the lowest-vCPU bench:
  S  time under si->lock per swapped page (lock_stat hold time, ns/page,
     debug kernel), the lock the series takes off the fault path, divided
     by lockdep's slowdown D: the debug kernel's median swap-in fault (the
     lock_stat run) over the fast kernel's (the refault runs).  Lockdep
     makes every instruction of a fault slower, holds included; dividing
     by D assumes it slows them all alike (without D, S exceeds the whole
     measured fault at stage 00)
  Z  the rest of a fault: the measured refault median at that vCPU count
     minus S
and predicts the median fault at 1..16 threads with exact mean value
analysis of a closed system: T threads, each alternating Z of private work
and S at one FIFO lock (the machine-repairman model).  It ignores CPU
overcommit (more vCPUs than host cores) and every other lock.

Writes OUT/model.json and OUT/model.svg (log-scale latency against threads:
measured medians with min-max bars, the model's curves, the seed's 15 us and
4 us at 8 threads).  Standard library only (xml.etree for the SVG).
"""
from __future__ import annotations

import json
import math
import os
import sys
import xml.etree.ElementTree as ET
from typing import Dict, List, Optional, Tuple

SEED = [(8, 15.0, 'seed: before the series'), (8, 4.0, 'seed: after the series')]
THREADS = [1, 2, 4, 8, 16]


def mva(s_us: float, z_us: float, threads: int) -> float:
    """Response time of one fault (Z + time at the lock) with THREADS
    threads: exact MVA, one queueing station (S) and one delay (Z)."""
    q = 0.0
    r = s_us
    for n in range(1, threads + 1):
        r = s_us * (1 + q)
        x = n / (z_us + r)
        q = x * r
    return z_us + r


def load(dirs: List[str]) -> Dict[str, Dict[int, dict]]:
    """stage -> vcpus -> the bench row (refault median, min, max, S)."""
    out: Dict[str, Dict[int, dict]] = {}
    for d in dirs:
        with open(os.path.join(d, 'results.json'), encoding='utf-8') as f:
            j = json.load(f)
        v = int(j['environment']['vcpus'])
        cores = j['environment'].get('host_cores')
        for row in j['stages']:
            out.setdefault(row['stage'], {})[v] = dict(row, host_cores=int(cores) if cores else None)
    return out


def predict(data: Dict[str, Dict[int, dict]]) -> Dict[str, dict]:
    res = {}
    for stage, per in sorted(data.items()):
        v0 = min(per)
        row = per[v0]
        lat = row.get('refault_median_us')
        hold = row.get('si_lock_hold_ns_per_page')
        if lat is None or hold is None:
            continue
        dbg = row.get('debug_fault_median_us')
        dil = dbg / lat if dbg and lat and dbg > lat else 1.0
        s = hold / 1000.0 / dil
        z = max(lat - s, 0.0)
        res[stage] = {'S_us': round(s, 3), 'Z_us': round(z, 3), 'lockdep_slowdown': round(dil, 3),
                      'S_debug_us': round(hold / 1000.0, 3), 'calibrated_at_vcpus': v0,
                      'predicted_us': {t: round(mva(s, z, t), 3) for t in THREADS},
                      # this machine: at most host_cores vCPUs run at once
                      # (one TCG thread per vCPU), so at most that many
                      # threads can queue at the lock, whatever the vCPUs
                      'host_cores': row.get('host_cores'),
                      'predicted_here_us': ({t: round(mva(s, z, min(t, row['host_cores'])), 3) for t in THREADS}
                                            if row.get('host_cores') else {}),
                      'measured_us': {v: {'median': r.get('refault_median_us'),
                                          'min': r.get('refault_median_us_min'),
                                          'max': r.get('refault_median_us_max')} for v, r in sorted(per.items())}}
    return res


# ---------------------------------------------------------------- SVG
W, H, L, R_, T_, B = 1000, 460, 70, 420, 40, 55
COLORS = ['#c0392b', '#2471a3', '#7d3c98', '#229954', '#b9770e', '#566573', '#17a589']


def svg(res: Dict[str, dict], title: str) -> ET.ElementTree:
    ys = [v for r in res.values() for v in r['predicted_us'].values()]
    ys += [m[k] for r in res.values() for m in r['measured_us'].values() for k in ('min', 'max') if m.get(k)]
    ys += [y for _, y, _ in SEED]
    lo, hi = math.log10(max(min(ys) / 1.5, 0.1)), math.log10(max(ys) * 1.5)

    def px(t: float) -> float:
        return L + (math.log2(t) / math.log2(16)) * (W - L - R_)

    def py(y: float) -> float:
        return T_ + (hi - math.log10(y)) / (hi - lo) * (H - T_ - B)

    root = ET.Element('svg', xmlns='http://www.w3.org/2000/svg', width=str(W), height=str(H),
                      viewBox=f'0 0 {W} {H}', **{'font-family': 'sans-serif', 'font-size': '12'})
    ET.SubElement(root, 'rect', x='0', y='0', width=str(W), height=str(H), fill='white')
    ET.SubElement(root, 'text', x=str(W / 2), y='22', **{'text-anchor': 'middle', 'font-size': '14'}).text = title
    ET.SubElement(root, 'rect', x=str(L), y=str(T_), width=str(W - L - R_), height=str(H - T_ - B),
                  fill='none', stroke='#444')
    for t in THREADS:
        ET.SubElement(root, 'line', x1=str(px(t)), x2=str(px(t)), y1=str(H - B), y2=str(H - B + 5), stroke='#444')
        ET.SubElement(root, 'text', x=str(px(t)), y=str(H - B + 18), **{'text-anchor': 'middle'}).text = str(t)
    ET.SubElement(root, 'text', x=str((L + W - R_) / 2), y=str(H - 12),
                  **{'text-anchor': 'middle'}).text = 'threads faulting (one per vCPU)'
    for e in range(math.floor(lo), math.ceil(hi) + 1):
        for m in (1, 2, 5):
            y = m * 10 ** e
            if lo <= math.log10(y) <= hi:
                ET.SubElement(root, 'line', x1=str(L), x2=str(W - R_), y1=str(py(y)), y2=str(py(y)),
                              stroke='#ddd')
                ET.SubElement(root, 'text', x=str(L - 6), y=str(py(y) + 4),
                              **{'text-anchor': 'end'}).text = f'{y:g}'
    ET.SubElement(root, 'text', x='16', y=str((T_ + H - B) / 2), transform=f'rotate(-90 16 {(T_ + H - B) / 2})',
                  **{'text-anchor': 'middle'}).text = 'median swap-in fault (us, log scale)'
    legend: List[Tuple[str, str, str]] = []
    for i, (stage, r) in enumerate(sorted(res.items())):
        c = COLORS[i % len(COLORS)]
        pts = ' '.join(f'{px(t):.1f},{py(v):.1f}' for t, v in sorted(r['predicted_us'].items()))
        ET.SubElement(root, 'polyline', points=pts, fill='none', stroke=c, **{'stroke-dasharray': '6 4'})
        if r.get('predicted_here_us'):
            pts = ' '.join(f'{px(t):.1f},{py(v):.1f}' for t, v in sorted(r['predicted_here_us'].items()))
            ET.SubElement(root, 'polyline', points=pts, fill='none', stroke=c, **{'stroke-dasharray': '1 3',
                                                                                   'stroke-width': '2'})
        for v, m in r['measured_us'].items():
            if not m.get('median'):
                continue
            if m.get('min') and m.get('max'):
                ET.SubElement(root, 'line', x1=str(px(v)), x2=str(px(v)), y1=str(py(m['min'])),
                              y2=str(py(m['max'])), stroke=c)
            ET.SubElement(root, 'circle', cx=str(px(v)), cy=str(py(m['median'])), r='4', fill=c)
        legend.append((c, 'circle', f'stage {stage}: measured (min-max)'))
        legend.append((c, 'dash', f"stage {stage}: model (S {r['S_us']:g} us)"))
        if r.get('predicted_here_us'):
            legend.append((c, 'dot', f"stage {stage}: model, {r['host_cores']} threads at once (here)"))
    for t, y, name in SEED:
        ET.SubElement(root, 'rect', x=str(px(t) - 5), y=str(py(y) - 5), width='10', height='10',
                      fill='none', stroke='black', **{'stroke-width': '2'})
        legend.append(('black', 'square', f'{name} ({y:g} us, 8 threads, pmem)'))
    for k, (c, kind, text) in enumerate(legend):
        y = T_ + 12 + 20 * k
        x = W - R_ + 14
        if kind == 'circle':
            ET.SubElement(root, 'circle', cx=str(x + 8), cy=str(y - 4), r='4', fill=c)
        elif kind in ('dash', 'dot'):
            ET.SubElement(root, 'line', x1=str(x), x2=str(x + 16), y1=str(y - 4), y2=str(y - 4), stroke=c,
                          **({'stroke-dasharray': '6 4'} if kind == 'dash' else
                             {'stroke-dasharray': '1 3', 'stroke-width': '2'}))
        else:
            ET.SubElement(root, 'rect', x=str(x + 3), y=str(y - 9), width='10', height='10', fill='none',
                          stroke=c, **{'stroke-width': '2'})
        ET.SubElement(root, 'text', x=str(x + 22), y=str(y)).text = text
    ET.indent(root)
    return ET.ElementTree(root)


def main(argv: List[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 3
    out, dirs = argv[0], argv[1:]
    os.makedirs(out, exist_ok=True)
    res = predict(load(dirs))
    if not res:
        print('bench-model: no stage has both a refault median and a lock hold time', file=sys.stderr)
        return 1
    with open(os.path.join(out, 'model.json'), 'w', encoding='utf-8') as f:
        json.dump(res, f, indent=1)
        f.write('\n')
    svg(res, 'swap-in fault latency: measured, modelled, and the 2016 series').write(
        os.path.join(out, 'model.svg'), encoding='unicode', xml_declaration=False)
    print(f"{'stage':<6} {'S dbg':>7} {'D':>5} {'S us':>7} {'Z us':>7}  " +
          '  '.join(f'T={t:<3}' for t in THREADS) + '   measured')
    for st, r in sorted(res.items()):
        meas = ', '.join(f"{v}: {m['median']}" for v, m in r['measured_us'].items())
        print(f"{st:<6} {r['S_debug_us']:>7.2f} {r['lockdep_slowdown']:>5.2f} {r['S_us']:>7.3f} {r['Z_us']:>7.2f}  " +
              '  '.join(f"{r['predicted_us'][t]:<5.1f}" for t in THREADS) + f'   {meas}')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
