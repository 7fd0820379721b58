"""grader/grade: the command line (its arguments, its signals, main).
What it grades is intake.resolve's; the grade itself is pipeline's.  See
HELP."""
from __future__ import annotations

import argparse
import os
import signal
import sys
import time
import traceback
from typing import List, Optional

from . import checks as checks_mod
from . import kernels as kern
from . import labs, memcap, procs, report, run
from .checks import ROOT
from .envdefaults import env_defaults
from .intake import GraderError, Rejected, context, resolve
from .pipeline import (Grader, error, limit_scale, prepare_work, progress_report, reject, sandbox_policy,
                       scale_plumbing, write_reports)
from .report import Grade

HELP = """\
grader/grade --lab NN (--stage MM | --commit REV | --self | --tree DIR | --patch FILE)
             [--json OUT] [--junit OUT] [--gradescope OUT] [--keep DIR] [--own]
             [--only A,B] [--latency] [--build-only CONFIG]

Builds the kernel under test, boots it in QEMU and runs every check of
grader/checks.tsv for labs <= NN.  Prints a table and the score out of 100
(grader/scoring.tsv: lab NN's own checks carry the score, every other
check is a gate that caps it when it fails).

What to grade:
  --stage MM   reference stage MM
  --commit REV a commit of the work repository
  --self       the student's work tree (work/linux, branch lab-NN, started
               by scripts/student/start if need be), committed or not
  --tree DIR   a kernel source tree
  --patch FILE a patch applied to the lab's starting tree
Options:
  --json OUT, --junit OUT, --gradescope OUT
               reports: the grade as JSON, JUnit XML, Gradescope results.json;
               every one asked for is written whatever the outcome
               (rejection, kernel error, timeout, interrupt, grader error);
               --gradescope is also rewritten after every check, so a grade
               killed midway leaves the checks it finished
  --keep DIR   keep the logs in DIR (default: a temporary folder, kept)
  --only A,B   run only the checks named (ids from grader/checks.tsv)
  --own        run only lab NN's own checks
  --latency, --no-latency
               run the latency check or not (the graded kernel's swap-in
               fault latency against the lab's solution kernel, interleaved
               boots; about a minute under TCG).  On by default for --patch
               and --tree, off otherwise (make grade: LATENCY=1)
  --build-only CONFIG  build the graded kernel with CONFIG, print its image
               directory, run no check (make run/gdb LAB=NN)
  --lab 00     the integrity checks alone (for the baseline stage)
  --unsafe     grade a --patch or --tree even where no sandbox can be made
Every kernel but a reference stage is built in a sandbox (scripts/sandbox,
bubblewrap: no network, no host files but its own source and objects,
resource limits, a build timeout) and every kernel boots in one; images
built from a --patch or --tree are removed after the grade.
Environment: SWAPLAB_GUEST_TIMEOUT (seconds a guest check may run; default:
grader/limits.tsv), SWAPLAB_BUILD_TIMEOUT (seconds a build may run, 2700),
SWAPLAB_LIMIT_SCALE (a factor of at least 1 on every time limit, 1; grade-all
--jobs sets it where its grades share the cores),
SWAPLAB_KEEP_IMAGES=1 (keep the images built from a --patch or --tree),
SWAPLAB_PATCH_MAX and SWAPLAB_FILE_MAX (bytes: the largest patch file, 1 MiB,
and the largest file it may leave changed, 2 MiB; binary patches are
refused), SWAPLAB_MEM_SHARE (the share of RAM a grade may use, 0.5: a
cgroup v2 scope's MemoryMax where the host has one, else the build jobs x
each build process's address space).

Exit status:
  0    every check passed
  1    some check failed (FAIL, ERROR, TIMEOUT or SKIP)
  2    the submission was rejected before anything was booted (hygiene,
       the policies on its source and on what the compiler reads)
  3    grader error: bad arguments, no work repository, a broken kit
  130  interrupted (SIGINT, SIGTERM or SIGHUP); reports say so
"""


class _Args(argparse.ArgumentParser):
    def error(self, message: str) -> None:   # usage errors are grader errors (exit 3)
        raise GraderError(f'grade: {message} (see grader/grade --help)')


def parse_args(argv: List[str]) -> argparse.Namespace:
    p = _Args(add_help=False)
    p.add_argument('--lab', default='')
    for k in ('stage', 'commit', 'tree', 'patch'):
        p.add_argument(f'--{k}', dest='src', type=lambda v, k=k: (k, v))
    p.add_argument('--self', dest='src', action='store_const', const=('self', ''))
    p.add_argument('--json')
    p.add_argument('--junit')
    p.add_argument('--gradescope')
    p.add_argument('--keep')
    p.add_argument('--own', action='store_true')
    p.add_argument('--only')
    p.add_argument('--latency', action='store_true', default=None)
    p.add_argument('--no-latency', dest='latency', action='store_false')
    p.add_argument('--build-only')
    p.add_argument('--unsafe', action='store_true')
    p.add_argument('-h', '--help', action='store_true')
    return p.parse_args(argv)


_MEMORY = ('', None)      # (how the grade's memory is capped, the cgroup made for it)


def _on_signal(signum, frame):
    raise procs.Interrupted(signal.Signals(signum).name)


def main(argv: List[str]) -> int:
    env_defaults()
    t0 = time.time()
    g = Grade(lab='', started=t0)
    a = argparse.Namespace(json=None, junit=None, gradescope=None)
    grader: Optional[Grader] = None
    # one memory ceiling for the whole grade (memcap: a cgroup v2 scope
    # where the host has one, which may re-execute this grade in it;
    # elsewhere build jobs x address space); then every process of the
    # grade stays below it (its orphans too) and is stopped when it ends,
    # however it ends (_end)
    global _MEMORY
    if not {'-h', '--help'} & set(argv):
        _MEMORY = memcap.ceiling([os.path.abspath(sys.argv[0]), *argv])
    procs.set_subreaper()
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, _on_signal)
    try:
        a = parse_args(argv)
        if a.help:
            sys.stdout.write(HELP)
            return 0
        g.lab = a.lab
        sandboxed = sandbox_policy(a)
        if not labs.is_stage(a.lab):
            raise GraderError(f"grade: --lab must be {labs.span()} (00: integrity checks only), "
                              f"got '{a.lab or 'nothing'}'")
        if not a.src:
            raise GraderError('grade: say what to grade: --stage, --commit, --self, --tree or --patch')
        table = checks_mod.load()
        only = [x for x in a.only.split(',') if x] if a.only else None
        if only:
            unknown = sorted(set(only) - {c.id for c in table})
            if unknown:
                raise GraderError(f"grade: --only names unknown checks: {', '.join(unknown)}")
        latency = a.latency if a.latency is not None else \
            (a.src[0] in ('patch', 'tree') or 'latency' in (only or []))
        sel = checks_mod.select(table, a.lab, latency=True, own=a.own, only=only)
        off = [c.id for c in sel if c.kind == 'latency' and not latency]
        if only is not None or a.own:     # a partial grade shows only what it runs
            sel = [c for c in sel if c.id not in off]
        g.work = prepare_work(a.keep) if not a.build_only else ''
        grader = Grader(g, sel, off)
        scale_plumbing(grader.scale)
        try:
            commit, g.graded = resolve(a, a.lab, g.review, lenient=bool(a.build_only))
        except Rejected as e:
            g.commit = ''
            g.context = context(a, a.lab, '', limit_scale())
            reject(g, grader, str(e))
            return _end(g, a, t0)
        g.commit = commit
        if not a.build_only:
            g.context = context(a, a.lab, commit, limit_scale())
        if a.build_only:
            os.execv(os.path.join(ROOT, 'scripts', 'build-kernel'),
                     ['build-kernel', '--commit', commit, '--lab', a.lab, '--config', a.build_only]
                     + (['--graded', '--own'] if sandboxed and a.src[0] == 'self' else
                        ['--graded'] if sandboxed else [])
                     + (['--start', a.start_commit, '--lenient'] if sandboxed and getattr(a, 'start_commit', '')
                        else []))
        print(f'==> grading lab {a.lab}: {g.graded} ({commit[:12]}); logs in {g.work}', file=sys.stderr, flush=True)
        procs.note(_MEMORY[0])
        first = kern.first_build()
        if first:
            procs.note(first)
        if a.gradescope:      # rewritten after every check (progress_report)
            grader.on_record = lambda: progress_report(g, grader, a.gradescope)
            grader.on_record()
        # a submission's images are evicted when its grade ends: built for it alone
        evict = a.src[0] in ('patch', 'tree') and not os.environ.get('SWAPLAB_KEEP_IMAGES')
        kernels = kern.Kernels(commit, a.lab, g.work, graded=sandboxed, fresh=a.src[0] in ('patch', 'tree'),
                              own=a.src[0] == 'self', start=getattr(a, 'start_commit', ''), private=evict)
        try:
            grader.run(kernels)
        except Rejected as e:        # refused by what the compiler reads (_end stops the builds)
            reject(g, grader, str(e))
            return _end(g, a, t0)
        finally:
            if evict:
                for img in kernels.evict():
                    procs.note(f'evicted the submission image {img}')
        grader.finish()
    except procs.Interrupted as e:
        if grader is not None:
            grader.finish('interrupted', f'the grade was interrupted ({e})')
        else:
            g.status, g.message = 'interrupted', f'the grade was interrupted ({e})'
    except (GraderError, checks_mod.TableError) as e:
        error(g, grader, str(e), '')
    except Exception as e:   # a bug of the grader: still a report
        error(g, grader, f'grader bug: {type(e).__name__}: {e}', traceback.format_exc())
    return _end(g, a, t0)


def _end(g: Grade, a: argparse.Namespace, t0: float) -> int:
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_IGN)
    # whatever ended the grade (the last check, a rejection, an error, an
    # interrupt): no process of it outlives the reports, and the build
    # lock, held by every build process, is free once they are gone
    procs.kill_children()
    memcap.release(_MEMORY[1])
    g.seconds = time.time() - t0
    try:
        g.apply_scoring()
    except (checks_mod.TableError, OSError) as e:
        g.status, g.message = 'error', f'grader/scoring.tsv: {e}'
        g.scored = None
    write_reports(g, a)
    if g.records:
        report.print_summary(g, sys.stdout)
    sys.stdout.flush()
    return g.exit_code
