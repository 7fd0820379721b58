"""grader/grade-all: grade every submission of a folder, each in isolation
(the command line: its arguments, its signals, main).  The grades are
gradejobs'; the rows and the summary files gradesum's."""
from __future__ import annotations

import datetime
import os
import re
import signal
import subprocess
import sys
from typing import List

from . import checks, labs, procs
from .checks import ROOT
from .gradejobs import (SIGNALS, Stop, concurrency_scale, cores, default_jobs, emit_jobs, fmt_scale, grade_one,
                        grade_pool, merge, on_signal, run_job)
from .gradesum import previous, read_hours, same_student, student, submissions, write_summary
from .intake import GraderError
from .pipeline import limit_scale
from .timelimits import grade_limit

HELP = """\
grader/grade-all --lab NN DIR [--timeout S] [--out OUT] [--only A,B] [--resume]
                 [--jobs N|auto]
Grades every submission patch in DIR (*.patch, *.diff) for lab NN, each in
isolation (its own grading commit and log folder) and under its own timeout
(default: the lab's "grade:NN" row of grader/limits.tsv, 3 times the
longest honest grade of the lab, at least 600 s; 1800 s for a lab with no
row); one broken submission never stops the batch.  Writes
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
--jobs N     grade N submissions at once, each in its own grade-all
             --run-job (its own folder, its own processes); the summary is
             the one a serial run writes, rows in the same order.  auto
             (the default): one per 2 cores and per 3 GiB of available
             memory, at least 1; 1 is the serial run.  Where N grades'
             guests (2 vCPUs each) want more than the cores, every time
             limit is scaled by 2N/cores (SWAPLAB_LIMIT_SCALE, shown at the
             start and kept in each job.json): the limits are 5 times a
             reference's time alone, and a reference must not time out
             because others ran beside it.  SWAPLAB_LIMIT_SCALE=X set by
             hand (a number of at least 1) is used instead.
"""

HELP_JOBS = """
In parallel (a cluster, several machines, GNU parallel):
grader/grade-all --lab NN DIR --emit-jobs JOBS [--timeout S] [--only A,B]
  writes JOBS/jobs/<student>.sh, one self-contained command per submission
  (it runs grader/grade as the serial run does, same limit, into
  JOBS/results/<student>/), JOBS/jobs.txt (one command a line) and
  JOBS/slurm.sbatch (an array job: task i runs line i+1 of jobs.txt).
  The paths are absolute: emit where every node sees the same files, with
  the kit set up on each node (make setup).  Each job runs alone on its
  node, its limits unscaled (--jobs is refused here; jobs sharing a host's
  cores want SWAPLAB_LIMIT_SCALE, or --jobs instead).
grader/grade-all --merge JOBS
  writes JOBS/results/summary.csv, .json and .html from the result
  folders, with the serial run's code (the same bytes for the same
  results); a submission whose job left nothing is a row "not graded".
  Exit: 0, 1 when some job left nothing (the summary is still written),
  3 on bad arguments.
"""
HELP = HELP + HELP_JOBS


def _bad(msg: str) -> int:
    print(f'error: grade-all: {msg}', file=sys.stderr)
    return 3


def _scale_set() -> bool:
    """Whether SWAPLAB_LIMIT_SCALE was set by hand (then it is used as it is)."""
    return bool(os.environ.get('SWAPLAB_LIMIT_SCALE', '').strip())


def parse_jobs(v: str) -> int:
    """--jobs V: a number of grades at once (1 or more), 0 for auto."""
    if v == 'auto':
        return 0
    if not re.fullmatch(r'[0-9]{1,4}', v) or int(v) < 1:
        raise ValueError(f"--jobs takes a number of grades at once (1 or more) or auto, got '{v}'")
    return int(v)


def main(argv: List[str]) -> int:
    if any(a in ('--emit-jobs', '--merge', '--run-job') for a in argv):
        return main_jobs(argv)
    lab = folder = out = ''
    limit, only, resume, jobs = 0, [], False, 0
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
            if a in ('--lab', '--timeout', '--out', '--only', '--jobs'):
                v = argv[i + 1]
                i += 2
                if a == '--lab':
                    lab = v
                elif a == '--timeout':
                    limit = int(v)
                elif a == '--out':
                    out = v
                elif a == '--jobs':
                    jobs = parse_jobs(v)
                else:
                    only = ['--only', v]
                continue
            if a.startswith('-'):
                raise ValueError(f"unknown option '{a}'")
            folder = a
            i += 1
        scale = limit_scale()
    except (IndexError, ValueError, GraderError) as e:
        print(f'error: grade-all: bad arguments: {e} (see --help)', file=sys.stderr)
        return 3
    try:
        labs.check(lab, '--lab')
    except labs.NotALab as e:
        return _bad(str(e))
    if not os.path.isdir(folder):
        return _bad(f"no such folder: {folder or 'nothing given'}")
    subs = submissions(folder)
    if not subs:
        return _bad(f'no *.patch or *.diff in {folder}')
    if same_student(subs):
        return _bad(same_student(subs))
    jobs = jobs or default_jobs()
    limit = limit or grade_limit(lab)
    out = out or os.path.join(ROOT, 'out', 'grade-all',
                              f"lab{lab}-{datetime.datetime.now().strftime('%Y%m%d-%H%M%S')}")
    os.makedirs(out, exist_ok=True)
    # a grade's orphans come back here (a grade killed at its time limit)
    procs.set_subreaper()
    if not make_base(lab, only):
        return 3
    if jobs == 1:
        print(f'==> grading {len(subs)} submissions for lab {lab}, at most {limit} s each; results in {out}',
              file=sys.stderr, flush=True)
        if _scale_set():
            print(f'    time limits x{fmt_scale(scale)} (SWAPLAB_LIMIT_SCALE)', file=sys.stderr, flush=True)
        rows, rc = serial(subs, lab, out, limit, only, resume)
    else:
        rows, rc = side_by_side(subs, lab, out, limit, only, resume, jobs)
    write_summary(out, rows)
    print()
    w = max([len(r['student']) for r in rows] + [7])
    print(f"{'STUDENT':<{w}}  {'SCORE':>9}  STATUS")
    for r in rows:
        print(f"{r['student']:<{w}}  {r['score']:>4}/{r['max_score']:<4}  {r['status']}")
    print()
    print(f"summary: {os.path.join(out, 'summary.csv')}, {os.path.join(out, 'summary.json')}")
    return rc


def make_base(lab: str, only: List[str]) -> bool:
    """Lab LAB's incremental base, before the first submission: the start's
    objects for each config the grades build (scripts/build-kernel --base),
    which every submission of the lab is then copied from, so that each
    recompiles only what differs from its start; build-kernel returns at
    once when the base's mark says it is the start's and the config's.
    False when it cannot be built (the kit's own tree: a setup problem,
    not a submission's)."""
    ids = only[1].split(',') if only else None         # (only: ['--only', 'A,B'] or [])
    sel = checks.select(checks.load(), lab, latency=True, only=ids)
    cfgs = [c for c in ('fast', 'debug') if any(k.config == c for k in sel)]
    for cfg in cfgs:
        print(f"==> lab {lab}'s incremental base, {cfg} kernel (built once, before the first submission, when "
              f'missing: the start\'s objects, which each submission recompiles only what it changes from)',
              file=sys.stderr, flush=True)
        p = subprocess.run([os.path.join(ROOT, 'scripts', 'build-kernel'), '--commit', f'lab-{lab}-start',
                            '--lab', lab, '--config', cfg, '--base'], stdout=subprocess.DEVNULL, check=False)
        if p.returncode != 0:
            print(f"error: grade-all: could not build lab {lab}'s start ({cfg}), the incremental base "
                  f'(exit {p.returncode}); did make setup run?', file=sys.stderr)
            return False
    return True


def serial(subs: List[str], lab: str, out: str, limit: int, only: List[str], resume: bool) -> tuple:
    """One submission after the other: (rows, exit code)."""
    for s in SIGNALS:
        signal.signal(s, on_signal)
    rows: List[dict] = []
    rc = 0
    try:
        for n, f in enumerate(subs, 1):
            who = student(f)
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
    except Stop:
        rc = 130
        print('grade-all: interrupted; writing the summary so far', file=sys.stderr)
    return rows, rc


def side_by_side(subs: List[str], lab: str, out: str, limit: int, only: List[str], resume: bool,
                 jobs: int) -> tuple:
    """JOBS submissions at once (gradejobs.grade_pool): (rows in the serial
    run's order, exit code)."""
    done = {}
    if resume:
        for n, f in enumerate(subs, 1):
            row = previous(os.path.join(out, 'summary.json'), student(f), f)
            if row is not None:
                row['hours'], row['hours_note'] = read_hours(f)
                done[n] = row
    todo = [(n, f) for n, f in enumerate(subs, 1) if n not in done]
    at_once = max(1, min(jobs, len(todo)))
    ncores = cores()
    scale = limit_scale() if _scale_set() else concurrency_scale(at_once, ncores)
    why = ('SWAPLAB_LIMIT_SCALE' if _scale_set() else
           f'{at_once} guests of 2 vCPUs each' if scale > 1 else 'each grade has 2 cores')
    print(f'==> grading {len(subs)} submissions for lab {lab}, {at_once} at a time; results in {out}\n'
          f'    --jobs {jobs} on {ncores} cores: time limits x{fmt_scale(scale)} ({why})',
          file=sys.stderr, flush=True)
    for n in sorted(done):
        print(f'    [{n}/{len(subs)}] {student(subs[n - 1])}: already graded (--resume)', file=sys.stderr)
    graded, stopped = grade_pool(todo, len(subs), lab, out, limit, only, at_once, scale)
    done.update(graded)
    if stopped:
        print('grade-all: interrupted; writing the summary so far', file=sys.stderr)
    return [done[n] for n in sorted(done)], 130 if stopped else 0


def main_jobs(argv: List[str]) -> int:
    """--emit-jobs, --merge and --run-job (what an emitted job runs)."""
    opts = {'--lab': '', '--timeout': '', '--only': '', '--out': '', '--emit-jobs': '', '--merge': '',
            '--run-job': ''}
    folder = ''
    try:
        i = 0
        while i < len(argv):
            a = argv[i]
            if a == '--jobs':
                raise ValueError('--jobs grades here, N at a time: not with --emit-jobs, --merge or --run-job '
                                 '(each emitted job runs alone on its node)')
            if a in opts:
                opts[a] = argv[i + 1]
                i += 2
            elif a.startswith('-'):
                raise ValueError(f"unknown option '{a}' here")
            else:
                folder, i = a, i + 1
        limit = int(opts['--timeout'] or 0)
        if opts['--run-job']:
            limit_scale()
    except (IndexError, ValueError, GraderError) as e:
        print(f'error: grade-all: bad arguments: {e} (see --help)', file=sys.stderr)
        return 3
    if opts['--merge']:
        return merge(opts['--merge'])
    lab, only = opts['--lab'], (['--only', opts['--only']] if opts['--only'] else [])
    try:
        labs.check(lab, '--lab')
    except labs.NotALab as e:
        return _bad(str(e))
    limit = limit or grade_limit(lab)
    if opts['--run-job']:
        if not opts['--out'] or not os.path.isfile(opts['--run-job']):
            print('error: grade-all --run-job PATCH --out DIR: no such patch, or no --out', file=sys.stderr)
            return 3
        return run_job(opts['--run-job'], lab, opts['--out'], limit, only)
    if not os.path.isdir(folder):
        return _bad(f"no such folder: {folder or 'nothing given'}")
    subs = submissions(folder)
    if not subs:
        return _bad(f'no *.patch or *.diff in {folder}')
    if same_student(subs):
        return _bad(same_student(subs))
    emit_jobs(lab, subs, opts['--emit-jobs'], limit, only)
    return 0
