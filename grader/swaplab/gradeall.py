"""grader/grade-all: grade every submission of a folder, each in isolation."""
from __future__ import annotations

import csv
import datetime
import hashlib
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from html import escape
from typing import List

from . import procs, report
from .checks import ROOT

HELP = """\
grader/grade-all --lab NN DIR [--timeout S] [--out OUT] [--only A,B] [--resume]
Grades every submission patch in DIR (*.patch, *.diff) for lab NN, each in
isolation (its own grading commit and log folder) and under its own timeout
(default 1800 s); one broken submission never stops the batch.  Writes
OUT/summary.csv and OUT/summary.json (student, score, max, status, failing
checks) and keeps OUT/<student>/ (grade log, result.json, console logs).
The student is the file name without its extension.  --only passes a check
list to grader/grade (a quick triage pass; the scores then count those
checks only).  --resume (with the --out of an earlier run) keeps the rows of
submissions already graded to the end, unchanged since.  summary.csv has a
column per check (points earned), review flags, the kit commit, the lab
start and the submission's hash, and the hours the student gave (the
hand-in's "Hours:" line, make handin HOURS=; empty when absent or not
over 0 and at most 200); summary.html is the class as a sortable
table, each failed check with its reason and excerpt.  Exit: 0 when every submission was graded (whatever its
score), 3 on bad arguments, 130 when interrupted (the summary so far is
still written).
"""

HELP_JOBS = """
In parallel (a cluster, several machines, GNU parallel):
grader/grade-all --lab NN DIR --emit-jobs JOBS [--timeout S] [--only A,B]
  writes JOBS/jobs/<student>.sh, one self-contained command per submission
  (it runs grader/grade as the serial run does, same limit, into
  JOBS/results/<student>/), JOBS/jobs.txt (one command a line) and
  JOBS/slurm.sbatch (an array job: task i runs line i+1 of jobs.txt).
  The paths are absolute: emit where every node sees the same files, with
  the kit set up on each node (make setup).
grader/grade-all --merge JOBS
  writes JOBS/results/summary.csv, .json and .html from the result
  folders, with the serial run's code (the same bytes for the same
  results); a submission whose job left nothing is a row "not graded".
  Exit: 0, 1 when some job left nothing (the summary is still written),
  3 on bad arguments.
"""
HELP = HELP + HELP_JOBS


class _Stop(Exception):
    pass


def _on_signal(signum, frame):
    raise _Stop(signal.Signals(signum).name)


def grade_one(f: str, lab: str, d: str, limit: int, only: List[str]) -> dict:
    """Grade submission F into folder D; its summary row."""
    return row_of(d, run_grade(f, lab, d, limit, only))


def run_grade(f: str, lab: str, d: str, limit: int, only: List[str]) -> dict:
    """grader/grade on F under LIMIT seconds, its report and log in D;
    what the row needs besides the report, also written to D/job.json (so
    that --merge can make the row where the grade ran elsewhere)."""
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
        finally:
            # the grade stops its own processes; what outlives it (it was
            # killed, or something escaped its groups) was reparented to
            # grade-all, the subreaper: the whole tree of this submission
            # is gone before the next one starts
            procs.stop_descendants()
    job = {'student': os.path.basename(d), 'patch': f, 'patch_sha256': _sha256(f), 'exit_code': rc,
           'timed_out': timed_out, 'limit': limit, 'seconds': round(time.time() - t0, 1)}
    with open(os.path.join(d, 'job.json'), 'w', encoding='utf-8') as fh:
        json.dump(job, fh, indent=1)
        fh.write('\n')
    return job


def row_of(d: str, job: dict) -> dict:
    """The summary row of the grade in folder D (its result.json), JOB
    being what run_grade returned (or wrote to D/job.json)."""
    who, res = os.path.basename(d), os.path.join(d, 'result.json')
    rc, timed_out, limit = job['exit_code'], job['timed_out'], job['limit']
    row = {'student': who, 'score': 0, 'max_score': 0, 'status': '', 'failed_checks': '', 'capped_by': '',
           'latency_ratio': '',
           'seconds': job['seconds'], 'exit_code': rc, 'log': os.path.join(d, 'grade.log'),
           'report': res, 'checks': {}, 'review': [], 'kit_commit': '', 'lab_start': '', 'submission': '',
           'patch_sha256': job['patch_sha256']}
    # the hours the hand-in says the lab took (make handin HOURS=): shown, never trusted
    row['hours'], row['hours_note'] = read_hours(job['patch']) if job.get('patch') else ('', '')
    g = None
    try:
        g = report.read_json(res)
    except (OSError, ValueError, KeyError) as e:
        row['status'] = f'grader error (exit {rc}): no readable report ({type(e).__name__})'
    if g is not None:
        row['score'], row['max_score'] = g.score, g.max_score
        row['checks'] = {r.id: {'points': r.points, 'score': r.score, 'verdict': r.verdict, 'reason': r.reason,
                                'role': r.role, 'cap': r.cap, 'excerpt': r.excerpt} for r in g.records}
        row['capped_by'] = ' '.join(c['check'] for c in g.scoring.get('capped_by', []))
        lat = next((r for r in g.records if r.id == 'latency' and r.counted), None)
        row['latency_ratio'] = lat.metrics.get('ratio', '') if lat else ''
        row['review'] = list(g.review)
        row['kit_commit'] = g.context.get('kit_commit', '')
        row['lab_start'] = g.context.get('lab_start', '')
        row['submission'] = g.context.get('submission', '')
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


HOURS_MAX = 200.0
_HOURS = re.compile(r'(?:[0-9]{1,3}(?:\.[0-9]{1,2})?|\.[0-9]{1,2})')


def parse_hours(text: str):
    """The hours of an "Hours: V" value as scripts/handin writes it: a
    number over 0 and at most HOURS_MAX, at most three digits and two
    decimals; None for anything else (the value is the student's: it is
    shown, never trusted for anything)."""
    if not isinstance(text, str) or not _HOURS.fullmatch(text):
        return None
    v = float(text)
    return v if 0 < v <= HOURS_MAX else None


def fmt_hours(v) -> str:
    """Hours as the summary writes them (6.5, 12, 0.25); '' when absent."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return ''
    return f'{v:.2f}'.rstrip('0').rstrip('.')


def read_hours(path: str) -> tuple:
    """(hours or '', note) of the hand-in PATH: the "Hours: V" line of its
    header (scripts/handin: the lines before the first blank line, which
    git apply and the grader skip).  At most 4 KiB and 12 lines are read;
    a line that is there but holds no valid hours gives '' and a note
    quoting at most 40 characters of it."""
    try:
        with open(path, 'rb') as f:
            head = f.read(4096)
    except OSError:
        return '', ''
    for raw in head.split(b'\n')[:12]:
        line = raw.decode('utf-8', 'replace').rstrip('\r')
        if not line.strip() or line.startswith(('diff ', '--- ', '+++ ', '@@')):
            break
        if line.startswith('Hours:'):
            text = line[len('Hours:'):].strip()
            v = parse_hours(text)
            if v is None:
                shown = ''.join(c if c.isprintable() else '?' for c in text[:40])
                return '', f'ignored Hours: {shown!r}: not a number of hours over 0 and at most {HOURS_MAX:g}'
            return float(fmt_hours(v)), ''
    return '', ''


def _sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, 'rb') as f:
        for b in iter(lambda: f.read(1 << 20), b''):
            h.update(b)
    return h.hexdigest()


def previous(summary: str, who: str, f: str) -> dict:
    """The row of an earlier run of the same submission (same patch bytes),
    if it was graded to the end (--resume)."""
    try:
        with open(summary, encoding='utf-8') as fh:
            rows = json.load(fh)
    except (OSError, ValueError):
        return None
    for r in rows:
        if r.get('student') == who and r.get('patch_sha256') == _sha256(f) and \
                not str(r.get('status', '')).startswith(('interrupted', 'grader error', 'timeout')):
            return r
    return None


def write_summary(out: str, rows: List[dict]) -> None:
    """summary.csv (one column per check: the points earned on the lab's
    own checks, the verdict of a gate; the gates that capped the score, the
    latency ratio, the hours the student gave), summary.json (everything, the checks' verdicts and
    reasons too) and summary.html."""
    ids: List[str] = []
    for r in rows:
        for cid in r.get('checks', {}):
            if cid not in ids:
                ids.append(cid)
    with open(os.path.join(out, 'summary.csv'), 'w', encoding='utf-8', newline='') as f:
        w = csv.writer(f)
        w.writerow(['student', 'score', 'max', 'status', 'failed_checks', 'capped_by', 'latency_ratio',
                    'seconds', 'hours', *ids, 'review', 'kit_commit', 'lab_start', 'submission'])
        for r in rows:
            per = [_cell(r['checks'][c]) if c in r.get('checks', {}) else '' for c in ids]
            w.writerow([r['student'], report._pts(r['score']), report._pts(r['max_score']), r['status'],
                        r['failed_checks'],
                        r.get('capped_by', ''), r.get('latency_ratio', ''), r['seconds'],
                        fmt_hours(r.get('hours', '')), *per, '; '.join(r.get('review', [])), r.get('kit_commit', ''), r.get('lab_start', ''),
                        r.get('submission', '')])
    with open(os.path.join(out, 'summary.json'), 'w', encoding='utf-8') as f:
        json.dump(rows, f, indent=1, ensure_ascii=False)
        f.write('\n')
    write_html(out, rows, ids)


def _cell(k: dict) -> str:
    """A check's CSV cell: the points earned on a lab's own check, the
    verdict of a gate (or of a check not counted)."""
    if k.get('role') in ('gate', 'off'):
        return k['verdict']
    return report._pts(k['score'])


def write_html(out: str, rows: List[dict], ids: List[str]) -> None:
    """summary.html: the class as a table (click a heading to sort), each
    student linked to the grade log, each failed check's cell showing its
    reason and excerpt."""
    e = escape
    head = ''.join(f'<th>{e(c)}</th>' for c in ['student', 'score', 'status', *ids, 'review', 'seconds', 'hours'])
    body = []
    for r in rows:
        cells = [f'<td><a href="{e(os.path.relpath(r["log"], out))}">{e(r["student"])}</a></td>',
                 f'<td data-v="{r["score"]}">{report._pts(r["score"])}/{report._pts(r["max_score"])}</td>', f'<td>{e(r["status"])}</td>']
        for c in ids:
            k = r.get('checks', {}).get(c)
            if k is None:
                cells.append('<td></td>')
                continue
            cls = 'pass' if k['verdict'] == 'PASS' else 'fail'
            detail = '' if k['verdict'] == 'PASS' else \
                f'<details><summary>{e(k["verdict"])}</summary><p>{e(k["reason"])}</p><pre>{e(k["excerpt"])}</pre></details>'
            shown = f'gate&le;{report._pts(k["cap"])}' if k.get('role') == 'gate' else \
                e(_cell(k)) if k.get('role') == 'off' else f'{report._pts(k["score"])}/{report._pts(k["points"])}'
            cells.append(f'<td class="{cls}" data-v="{k["score"]}">{shown}{detail}</td>')
        cells.append(f'<td>{e("; ".join(r.get("review", [])))}</td>')
        cells.append(f'<td data-v="{r["seconds"]}">{r["seconds"]}</td>')
        h = e(fmt_hours(r.get('hours', '')))
        cells.append(f'<td data-v="{h}">{h}</td>')
        body.append('<tr>' + ''.join(cells) + '</tr>')
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>swaplab grade-all: {e(os.path.basename(out))}</title>
<style>body{{font-family:sans-serif}} table{{border-collapse:collapse}} td,th{{border:1px solid #ccc;padding:3px 6px;
vertical-align:top}} th{{cursor:pointer;background:#eee}} .pass{{background:#e6f4e6}} .fail{{background:#fbe4e4}}
pre{{max-width:60em;white-space:pre-wrap;font-size:small}}</style></head><body>
<h1>swaplab grade-all: {e(os.path.basename(out))}</h1>
<p>{len(rows)} submissions. Click a column heading to sort; click a verdict for its reason and excerpt.</p>
<table id="t"><thead><tr>{head}</tr></thead><tbody>
{chr(10).join(body)}
</tbody></table>
<script>
document.querySelectorAll('#t th').forEach(function (th, i) {{
  th.addEventListener('click', function () {{
    var tb = document.querySelector('#t tbody'), rows = Array.from(tb.rows), asc = th.dataset.asc !== '1';
    th.dataset.asc = asc ? '1' : '0';
    rows.sort(function (a, b) {{
      var x = a.cells[i].dataset.v || a.cells[i].textContent, y = b.cells[i].dataset.v || b.cells[i].textContent;
      var nx = parseFloat(x), ny = parseFloat(y);
      var c = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
      return asc ? c : -c;
    }});
    rows.forEach(function (r) {{ tb.appendChild(r); }});
  }});
}});
</script></body></html>
"""
    with open(os.path.join(out, 'summary.html'), 'w', encoding='utf-8') as f:
        f.write(page)


def main(argv: List[str]) -> int:
    if any(a in ('--emit-jobs', '--merge', '--run-job') for a in argv):
        return main_jobs(argv)
    lab = folder = out = ''
    limit, only, resume = 1800, [], False
    i = 0
    try:
        while i < len(argv):
            a = argv[i]
            if a in ('-h', '--help'):
                sys.stdout.write(HELP)
                return 0
            if a == '--resume':
                resume = True
                i += 1
                continue
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
    # a grade's orphans come back here (a grade killed at its time limit)
    procs.set_subreaper()
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, _on_signal)
    rows: List[dict] = []
    rc = 0
    try:
        for n, f in enumerate(subs, 1):
            who = re.sub(r'[^A-Za-z0-9._-]', '_', os.path.splitext(os.path.basename(f))[0])
            print(f'    [{n}/{len(subs)}] {who}', file=sys.stderr, flush=True)
            row = previous(os.path.join(out, 'summary.json'), who, f) if resume else None
            if row is not None:
                print(f'      {who}: already graded (--resume)', file=sys.stderr)
                row['hours'], row['hours_note'] = read_hours(f)     # (a row of a kit before hours)
            else:
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


# ---------------------------------------------------------------- in parallel
def _submissions(folder: str) -> List[str]:
    """The submissions of FOLDER, in the serial run's order."""
    return sorted(os.path.join(folder, n) for n in os.listdir(folder)
                  if n.endswith(('.patch', '.diff')) and os.path.isfile(os.path.join(folder, n)))


def _who(f: str) -> str:
    """The student of submission F (its folder's name), as the serial run names it."""
    return re.sub(r'[^A-Za-z0-9._-]', '_', os.path.splitext(os.path.basename(f))[0])


def emit_jobs(lab: str, subs: List[str], jobs: str, limit: int, only: List[str]) -> None:
    """JOBS/jobs/<student>.sh for each of SUBS, JOBS/jobs.txt, JOBS/slurm.sbatch."""
    jobs = os.path.abspath(jobs)
    for sub in ('jobs', 'results', 'logs'):
        os.makedirs(os.path.join(jobs, sub), exist_ok=True)
    ga = os.path.join(ROOT, 'grader', 'grade-all')
    lines = []
    for n, f in enumerate(subs, 1):
        who = _who(f)
        cmd = [ga, '--lab', lab, '--run-job', os.path.abspath(f), '--out', os.path.join(jobs, 'results', who),
               '--timeout', str(limit), *only]
        script = os.path.join(jobs, 'jobs', f'{who}.sh')
        with open(script, 'w', encoding='utf-8') as fh:
            fh.write(f'#!/bin/sh\n# swaplab grade-all job {n} of {len(subs)}: {who}, lab {lab} (grade-all --emit-jobs);\n'
                     f'# when every job has run: grader/grade-all --merge {shlex.quote(jobs)}\n'
                     f'exec {shlex.join(cmd)}\n')
        os.chmod(script, 0o755)
        lines.append(shlex.quote(script))
    with open(os.path.join(jobs, 'jobs.txt'), 'w', encoding='utf-8') as fh:
        fh.write(''.join(f'{x}\n' for x in lines))
    q = shlex.quote(os.path.join(jobs, 'jobs.txt'))
    minutes = -(-(limit + 300) // 60)
    with open(os.path.join(jobs, 'slurm.sbatch'), 'w', encoding='utf-8') as fh:
        fh.write(f"""#!/bin/bash
# swaplab grade-all, lab {lab}: a Slurm array, one task per submission
# (grade-all --emit-jobs): sbatch {shlex.quote(os.path.join(jobs, 'slurm.sbatch'))}
# then, when every task has ended: grader/grade-all --merge {shlex.quote(jobs)}
# A grade wants 2 CPUs and 4 GB (README, Gradescope settings); the time is
# the grade's limit ({limit} s) and 5 minutes for its report.
#SBATCH --job-name=swaplab-lab{lab}
#SBATCH --array=0-{len(subs) - 1}
#SBATCH --cpus-per-task=2
#SBATCH --mem=4G
#SBATCH --time={minutes}
#SBATCH --output={os.path.join(jobs, 'logs', 'slurm-%A_%a.out')}
set -eu
line=$(sed -n "$((SLURM_ARRAY_TASK_ID + 1))p" {q})
[ -n "$line" ] || {{ echo "slurm.sbatch: no line $((SLURM_ARRAY_TASK_ID + 1)) in {q}" >&2; exit 3; }}
exec bash -c "$line"
""")
    print(f'==> {len(subs)} jobs for lab {lab}: {os.path.join(jobs, "jobs.txt")}, '
          f'{os.path.join(jobs, "slurm.sbatch")}; results in {os.path.join(jobs, "results")}',
          file=sys.stderr)


def merge(jobs: str) -> int:
    """JOBS/results/summary.* from the result folders (write_summary)."""
    res = os.path.join(jobs, 'results')
    if not os.path.isdir(res):
        print(f'error: grade-all --merge: no results folder in {jobs}', file=sys.stderr)
        return 3
    who = sorted(n for n in os.listdir(res) if os.path.isdir(os.path.join(res, n)))
    listed = os.path.join(jobs, 'jobs.txt')
    if os.path.exists(listed):          # every submission emitted, run or not
        with open(listed, encoding='utf-8') as fh:
            who = [os.path.splitext(os.path.basename(shlex.split(x)[0]))[0] for x in fh if x.strip()]
    rows, missing = [], []
    for w in who:
        d = os.path.join(res, w)
        try:
            with open(os.path.join(d, 'job.json'), encoding='utf-8') as fh:
                rows.append(row_of(d, json.load(fh)))
        except (OSError, ValueError, KeyError):
            row = row_of(d, {'exit_code': '', 'timed_out': False, 'limit': '', 'seconds': '', 'patch_sha256': ''})
            row['status'] = 'not graded: its job left no job.json'
            rows.append(row)
            missing.append(w)
    write_summary(res, rows)
    print(f"==> {len(rows) - len(missing)} of {len(rows)} results: {os.path.join(res, 'summary.csv')}, "
          f"summary.json, summary.html" + (f"; no result from: {' '.join(missing)}" if missing else ''),
          file=sys.stderr)
    return 1 if missing else 0


def main_jobs(argv: List[str]) -> int:
    """--emit-jobs, --merge and --run-job (what an emitted job runs)."""
    opts = {'--lab': '', '--timeout': '1800', '--only': '', '--out': '', '--emit-jobs': '', '--merge': '',
            '--run-job': ''}
    folder = ''
    try:
        i = 0
        while i < len(argv):
            a = argv[i]
            if a in opts:
                opts[a] = argv[i + 1]
                i += 2
            elif a.startswith('-'):
                raise ValueError(f"unknown option '{a}' here")
            else:
                folder, i = a, i + 1
        limit = int(opts['--timeout'])
    except (IndexError, ValueError) as e:
        print(f'error: grade-all: bad arguments: {e} (see --help)', file=sys.stderr)
        return 3
    if opts['--merge']:
        return merge(opts['--merge'])
    lab, only = opts['--lab'], (['--only', opts['--only']] if opts['--only'] else [])
    if not re.fullmatch(r'0[1-6]', lab):
        print('error: grade-all: --lab must be 01..06', file=sys.stderr)
        return 3
    if opts['--run-job']:
        if not opts['--out'] or not os.path.isfile(opts['--run-job']):
            print('error: grade-all --run-job PATCH --out DIR: no such patch, or no --out', file=sys.stderr)
            return 3
        procs.set_subreaper()
        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(s, _on_signal)
        try:
            job = run_grade(os.path.abspath(opts['--run-job']), lab, os.path.abspath(opts['--out']), limit, only)
        except _Stop:
            print('grade-all: interrupted; this job left no job.json', file=sys.stderr)
            return 130
        row = row_of(os.path.abspath(opts['--out']), job)
        print(f"{row['student']}  {report._pts(row['score'])}/{report._pts(row['max_score'])}  {row['status']}")
        return 0
    if not os.path.isdir(folder):
        print(f"error: grade-all: no such folder: {folder or 'nothing given'}", file=sys.stderr)
        return 3
    subs = _submissions(folder)
    if not subs:
        print(f'error: grade-all: no *.patch or *.diff in {folder}', file=sys.stderr)
        return 3
    emit_jobs(lab, subs, opts['--emit-jobs'], limit, only)
    return 0
