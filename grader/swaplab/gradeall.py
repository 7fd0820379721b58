"""grader/grade-all: grade every submission of a folder, each in isolation."""
from __future__ import annotations

import csv
import datetime
import json
import os
import re
import signal
import subprocess
import sys
import time
from typing import List

from . import report
from .checks import ROOT

HELP = """\
grader/grade-all --lab NN DIR [--timeout S] [--out OUT] [--only A,B]
Grades every submission patch in DIR (*.patch, *.diff) for lab NN, each in
isolation (its own grading commit and log folder) and under its own timeout
(default 1800 s); one broken submission never stops the batch.  Writes
OUT/summary.csv and OUT/summary.json (student, score, max, status, failing
checks) and keeps OUT/<student>/ (grade log, result.json, console logs).
The student is the file name without its extension.  --only passes a check
list to grader/grade (a quick triage pass; the scores then count those
checks only).  Exit: 0 when every submission was graded (whatever its
score), 3 on bad arguments, 130 when interrupted (the summary so far is
still written).
"""


class _Stop(Exception):
    pass


def _on_signal(signum, frame):
    raise _Stop(signal.Signals(signum).name)


def grade_one(f: str, lab: str, d: str, limit: int, only: List[str]) -> dict:
    who = os.path.basename(d)
    os.makedirs(d, exist_ok=True)
    res = os.path.join(d, 'result.json')
    if os.path.exists(res):
        os.unlink(res)
    cmd = [os.path.join(ROOT, 'grader', 'grade'), '--lab', lab, '--patch', f, *only,
           '--keep', os.path.join(d, 'work'), '--json', res]
    t0 = time.time()
    with open(os.path.join(d, 'grade.log'), 'wb') as log:
        p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                             start_new_session=True)
        timed_out = False
        try:
            rc = p.wait(limit)
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(p.pid, signal.SIGTERM)     # the grade writes its report, stops QEMU
            try:
                rc = p.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                rc = p.wait()
        except _Stop:
            os.killpg(p.pid, signal.SIGTERM)
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
            raise
    row = {'student': who, 'score': 0, 'max_score': 0, 'status': '', 'failed_checks': '',
           'seconds': round(time.time() - t0, 1), 'exit_code': rc, 'log': os.path.join(d, 'grade.log'),
           'report': res}
    g = None
    try:
        g = report.read_json(res)
    except (OSError, ValueError, KeyError) as e:
        row['status'] = f'grader error (exit {rc}): no readable report ({type(e).__name__})'
    if g is not None:
        row['score'], row['max_score'] = g.score, g.max_score
        row['failed_checks'] = ' '.join(r.id for r in g.records if r.verdict != 'PASS')
        if timed_out:
            row['status'] = f'timeout after {limit}s'
        elif g.status == 'rejected':
            row['status'] = f'rejected: {g.message}'[:160]
            row['failed_checks'] = 'hygiene'
        elif g.status == 'error':
            row['status'] = f'grader error (exit {rc}): {g.message}'[:160]
        elif g.status == 'interrupted':
            row['status'] = 'interrupted'
        else:
            row['status'] = 'pass' if g.passed else 'fail'
    elif timed_out:
        row['status'] = f'timeout after {limit}s'
    return row


def write_summary(out: str, rows: List[dict]) -> None:
    cols = ['student', 'score', 'max_score', 'status', 'failed_checks', 'seconds']
    with open(os.path.join(out, 'summary.csv'), 'w', encoding='utf-8', newline='') as f:
        w = csv.writer(f)
        w.writerow(['student', 'score', 'max', 'status', 'failed_checks', 'seconds'])
        for r in rows:
            w.writerow([r[c] for c in cols])
    with open(os.path.join(out, 'summary.json'), 'w', encoding='utf-8') as f:
        json.dump(rows, f, indent=1, ensure_ascii=False)
        f.write('\n')


def main(argv: List[str]) -> int:
    lab = folder = out = ''
    limit, only = 1800, []
    i = 0
    try:
        while i < len(argv):
            a = argv[i]
            if a in ('-h', '--help'):
                sys.stdout.write(HELP)
                return 0
            if a in ('--lab', '--timeout', '--out', '--only'):
                v = argv[i + 1]
                i += 2
                if a == '--lab':
                    lab = v
                elif a == '--timeout':
                    limit = int(v)
                elif a == '--out':
                    out = v
                else:
                    only = ['--only', v]
                continue
            if a.startswith('-'):
                raise ValueError(f"unknown option '{a}'")
            folder = a
            i += 1
    except (IndexError, ValueError) as e:
        print(f'error: grade-all: bad arguments: {e} (see --help)', file=sys.stderr)
        return 3
    if not re.fullmatch(r'0[1-6]', lab):
        print('error: grade-all: --lab must be 01..06', file=sys.stderr)
        return 3
    if not os.path.isdir(folder):
        print(f"error: grade-all: no such folder: {folder or 'nothing given'}", file=sys.stderr)
        return 3
    subs = sorted(os.path.join(folder, n) for n in os.listdir(folder)
                  if n.endswith(('.patch', '.diff')) and os.path.isfile(os.path.join(folder, n)))
    if not subs:
        print(f'error: grade-all: no *.patch or *.diff in {folder}', file=sys.stderr)
        return 3
    out = out or os.path.join(ROOT, 'out', 'grade-all',
                              f"lab{lab}-{datetime.datetime.now().strftime('%Y%m%d-%H%M%S')}")
    os.makedirs(out, exist_ok=True)
    print(f'==> grading {len(subs)} submissions for lab {lab}; results in {out}', file=sys.stderr, flush=True)
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, _on_signal)
    rows: List[dict] = []
    rc = 0
    try:
        for n, f in enumerate(subs, 1):
            who = re.sub(r'[^A-Za-z0-9._-]', '_', os.path.splitext(os.path.basename(f))[0])
            print(f'    [{n}/{len(subs)}] {who}', file=sys.stderr, flush=True)
            row = grade_one(os.path.abspath(f), lab, os.path.join(out, who), limit, only)
            rows.append(row)
            extra = f" ({row['failed_checks']})" if row['failed_checks'] else ''
            print(f"      {who:<20} {row['score']:>4}/{row['max_score']:<4} {row['status']}{extra}",
                  file=sys.stderr, flush=True)
    except _Stop:
        rc = 130
        print('grade-all: interrupted; writing the summary so far', file=sys.stderr)
    write_summary(out, rows)
    print()
    w = max([len(r['student']) for r in rows] + [7])
    print(f"{'STUDENT':<{w}}  {'SCORE':>9}  STATUS")
    for r in rows:
        print(f"{r['student']:<{w}}  {r['score']:>4}/{r['max_score']:<4}  {r['status']}")
    print()
    print(f"summary: {os.path.join(out, 'summary.csv')}, {os.path.join(out, 'summary.json')}")
    return rc
