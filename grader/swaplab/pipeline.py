"""The grade pipeline: from the commit intake.resolve made to the records
and reports of one grade.

  Grader          runs the selected checks in table order (builds, guest
                  boots grouped by kernel and pmem layout, the lock
                  fingerprint, the latency check) and keeps one record each
  context         what a score depends on (kit, kernel, submission, host)
  limits          each guest check's time limit (grader/limits.tsv; the
                  step limits and their rule are timelimits.py's)
  limit_scale     the factor on every time limit (SWAPLAB_LIMIT_SCALE)
  progress_report the --gradescope report rewritten after every check
  write_reports   --json, --junit, --gradescope and the work folder's own
  prepare_work    the folder a grade's logs go to (--keep)
  sandbox_policy  whether the graded kernel is built and booted sandboxed
  reject, error   how a rejected submission and a grader error are recorded

grade.py, the command line, drives it.
"""
from __future__ import annotations

import argparse
import copy
import csv
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from typing import Dict, List, Optional, Tuple

from . import kernels as kern
from . import procs, refdata, report, run, timelimits, verdict
from .checks import ROOT, Check
from .intake import GraderError, Rejected, allowlist
from .report import Grade
from .timelimits import limits, scaled, step_limits
from .verdict import Record


def limit_scale() -> float:
    """SWAPLAB_LIMIT_SCALE: the factor on every time limit of a grade (the
    guest checks', SWAPLAB_GUEST_TIMEOUT, the latency runs', the build's,
    grade-all's per submission), 1 when unset.  grade-all --jobs sets it
    when its grades share the cores: the limits are 5 times a reference's
    time, measured alone, and a reference must never time out because
    other grades ran beside it (README, § Instructors, In parallel).  A
    GraderError for anything but a finite number of at least 1."""
    v = os.environ.get('SWAPLAB_LIMIT_SCALE', '').strip()
    if not v:
        return 1.0
    try:
        s = float(v)
    except ValueError:
        s = math.nan
    if not (math.isfinite(s) and s >= 1):
        raise GraderError(f"SWAPLAB_LIMIT_SCALE must be a number of at least 1 (the factor on every time "
                          f"limit; grade-all --jobs sets it), got '{v}'")
    return s


# the limits of the plumbing a grade runs (their defaults, as the scripts
# have them), scaled with the guest checks' by scale_plumbing
PLUMBING_LIMITS = (('SWAPLAB_BUILD_TIMEOUT', 2700, 'scripts/build-kernel'),
                   ('SWAPLAB_BASE_BUILD_TIMEOUT', 600, 'scripts/build-kernel'),
                   ('SWAPLAB_CPP_TIMEOUT', 300, 'scripts/cpp-policy'))


def scale_plumbing(scale: float) -> None:
    """The build's and the compiler-input policy's time limits, times SCALE,
    for the scripts this grade runs (they read them from the environment)."""
    if scale == 1:
        return
    for var, default, _ in PLUMBING_LIMITS:
        os.environ[var] = str(scaled(int(os.environ.get(var) or default), scale))


def mine_run(c: Check) -> Tuple[str, Tuple[str, ...]]:
    """The graded kernel's lock_stat run a lockfp check reads: its id and
    lockstat.sh's arguments.  "lockfp REFSTAGE FACTOR cycle" reads the run
    made after a swapoff and a swapon with the slots cache in use (lab 06's
    swapoff steps); the others share the plain run."""
    if 'cycle' in c.args[2:]:
        return 'lockfp-mine-cycle', ('cycle',)
    return 'lockfp-mine', ()


def mine_entry(mid: str, margs: Tuple[str, ...]) -> run.Entry:
    """The guest entry of lock_stat run MID (mine_run): lockstat.sh MARGS,
    on the debug kernel's pmem swap."""
    lc = Check('lockfp', mid, 'guest', ['debug', 'pmem', 'lockstat.sh', *margs])
    return run.Entry(mid, lc, 'pmem', 'lockstat.sh', list(margs))


class Grader:
    def __init__(self, g: Grade, sel: List[Check], off: Optional[List[str]] = None):
        self.g, self.sel = g, sel
        self.off = set(off or [])
        self.work = g.work
        self.scale = limit_scale()
        env = os.environ.get('SWAPLAB_GUEST_TIMEOUT')
        self.override = scaled(int(env), self.scale) if env else None
        self.limits = limits()
        self.steps = {k: scaled(v, self.scale) for k, v in step_limits().items()}
        self.detectors = timelimits.detector_args(self.scale)    # (the guest's, scaled alike)
        self.hangs: Dict[str, run.Hangs] = {}
        # the lab's own checks, and their lock_stat runs: still run after a
        # kernel hung twice (run.run_group)
        self.own = {c.id for c in sel if c.labs == g.lab} | \
            {mine_run(c)[0] for c in sel if c.kind == 'lockfp' and c.labs == g.lab}
        self.done: Dict[str, Record] = {}
        self.current: Optional[str] = None
        self._t0 = 0.0
        self.on_record = None          # called after each record (progress reports)

    def limit(self, cid: str) -> int:
        """A check's time limit (grader/limits.tsv, or SWAPLAB_GUEST_TIMEOUT),
        times the limit scale (SWAPLAB_LIMIT_SCALE)."""
        if self.override:
            return self.override
        return scaled(self.limits.get(cid, 600), self.scale)

    def boot(self, img: str, mode: str, pmem: str, entries: List[run.Entry]) -> Dict[str, Record]:
        """Run ENTRIES on kernel IMG (run.run_group), each check with its
        own limit and the known steps with theirs; IMG's hangs are kept
        across its boots (run.Hangs)."""
        lim = {e.id: self.limit(e.id) for e in entries}
        procs.note('time limits: ' + ', '.join(f'{i} {s} s' for i, s in lim.items()) +
                 ('; steps: ' + ', '.join(f'{k} {s} s' for k, s in self.steps.items()) if self.steps else ''))
        return run.run_group(self.work, img, mode, pmem, lim, entries, steps=self.steps,
                             append=self.detectors,
                             hangs=self.hangs.setdefault(os.path.realpath(img), run.Hangs()), own=self.own)

    def record(self, r: Record) -> None:
        if r.seconds is None and r.verdict != 'TIMEOUT' and self._t0 and \
                next((c.kind for c in self.sel if c.id == r.id), 'guest') in ('lockfp', 'latency'):
            r.seconds = round(time.time() - self._t0, 1)
        self.done[r.id] = r
        print(f'  {r.id:<14} {r.verdict:<4} {r.reason}', file=sys.stderr, flush=True)
        if self.on_record:
            self.on_record()

    def run(self, kernels: kern.Kernels) -> None:
        needs_debug = any(c.config == 'debug' for c in self.sel)
        for c in self.sel:
            if c.id in self.done:
                continue
            self.current = c.id
            t0 = self._t0 = time.time()
            if c.id in self.off:
                r = verdict.decide_off(c)
                r.counted = False
                self.record(r)
            elif c.kind == 'build':
                img = self._kernel(c.args[0], kernels, needs_debug)
                build, tool = kernels.logs(c.args[0])
                r = verdict.decide_build(c, img is not None, build, tool, allowlist())
                r.seconds = round(time.time() - t0, 1)
                r.logs['build'] = os.path.join(self.work, f'kernel-{c.args[0]}.log')
                self.record(r)
            elif c.kind == 'guest':
                self.guest_group(c, kernels, needs_debug)
            elif c.kind == 'lockfp':
                self.lockfp(c, kernels, needs_debug)
            elif c.kind == 'latency':
                self.latency(c, kernels)
        self.current = None

    def _kernel(self, cfg: str, kernels: kern.Kernels, needs_debug: bool) -> Optional[str]:
        img = kernels.get(cfg)
        why = kernels.refused(cfg)
        if why:
            raise Rejected(f'the policy on what the compiler reads ({cfg} config): ' + '; '.join(why[:3]))
        if cfg == 'fast' and needs_debug:
            kernels.start('debug')
        return img

    def guest_group(self, c: Check, kernels: kern.Kernels, needs_debug: bool) -> None:
        img = self._kernel(c.config, kernels, needs_debug)
        key = (c.config, c.boot_mode, c.pmem)
        group = [x for x in self.sel if x.kind == 'guest' and (x.config, x.boot_mode, x.pmem) == key
                 and x.id not in self.done]
        if img is None:
            for x in group:
                self.record(verdict.decide_no_kernel(x, c.config))
            return
        entries = [run.Entry(x.id, x, x.mode, x.script, x.script_args) for x in group]
        # the graded kernel's lock_stat runs for the lockfp checks ride
        # along with the other debug-kernel checks
        if key == ('debug', 'pmem', '512M'):
            for mid, margs in sorted({mine_run(x) for x in self.sel if x.kind == 'lockfp'}):
                if mid not in self.done:
                    entries.append(mine_entry(mid, margs))
        note_ids = ', '.join(e.id for e in entries)
        procs.note(f'booting the {c.config} kernel ({c.boot_mode} swap, {c.pmem}) for: {note_ids}')
        res = self.boot(img, c.boot_mode, c.pmem, entries)
        for e in entries:
            r = res[e.id]
            if e.id.startswith('lockfp-mine'):
                self.done[e.id] = r
            else:
                self.record(r)

    def lockfp(self, c: Check, kernels: kern.Kernels, needs_debug: bool) -> None:
        ref_stage, factor = c.args[0], float(c.args[1])
        img = self._kernel('debug', kernels, needs_debug)
        if img is None:
            self.record(verdict.decide_no_kernel(c, 'debug'))
            return
        log = os.path.join(self.work, f'{c.id}.log')
        refimg, recorded, fig = '', None, None
        if refdata.stage_exists(ref_stage):
            refimg = kern.build_stage(ref_stage, 'debug', log)
            if refimg is None:
                self.record(verdict.decide_no_reference(c, ref_stage))
                return
        else:   # the student edition: the figure recorded on that stage
            recorded, fig, why = refdata.lockfp(ref_stage)
            if recorded is None:
                self.record(verdict.decide_skip(c, why))
                return
        mid, margs = mine_run(c)
        if mid not in self.done:
            res = self.boot(img, 'pmem', '512M', [mine_entry(mid, margs)])
            self.done[mid] = res[mid]
        mine_r = self.done[mid]
        mine = {k: str(v) for k, v in mine_r.metrics.items()} if mine_r.verdict == 'PASS' else None
        if recorded is not None:
            ref = recorded
        elif os.path.realpath(refimg) == os.path.realpath(img) and mine:
            ref = mine
        else:
            ref = run.lockstat_ref(refimg, os.path.join(self.work, f'{c.id}-ref'), log)
        r = verdict.decide_lockfp(c, mine, ref, ref_stage, factor,
                                  fig_note=fig.note() if fig is not None else None, mine_run=mine_r)
        r.logs.update(mine_r.logs)
        self.record(r)

    def latency(self, c: Check, kernels: kern.Kernels) -> None:
        tol, rounds = float(c.args[0]), int(c.args[1])
        why = refdata.latency_skip_reason(self.g.lab)
        if why:     # the student edition: no solution kernel to time against
            r = verdict.decide_skip(c, why)
            r.counted = False
            self.record(r)
            return
        img = kernels.get('fast')
        if img is None:
            self.record(verdict.decide_no_kernel(c, 'fast'))
            return
        hangs = self.hangs.get(os.path.realpath(img))
        if hangs and hangs.stop:
            # (its checks found it hanging twice in one function: five more
            # boots would hang the same way, each to its limit)
            self.record(verdict.decide_not_run_hang(c, *hangs.stop))
            return
        log = os.path.join(self.work, f'{c.id}.log')
        refimg = kern.build_stage(self.g.lab, 'fast', log)
        if refimg is None:
            self.record(verdict.decide_no_reference(c, self.g.lab))
            return
        cpus = int(os.environ.get('SWAPLAB_LATENCY_CPUS') or 2)
        pages = os.environ.get('SWAPLAB_LATENCY_PAGES') or '16384'
        test = os.path.join(ROOT, 'tests', 'guest', 'refault.sh')
        meas: List[dict] = []
        ref_secs = 0.0
        failed = False
        for rd in range(1, rounds + 1):
            # the solution first in round 1: the graded kernel's runs get
            # 5 times its longest (at least 60 s), as a check's limit is
            # set from the reference's times (grader/limits.tsv)
            order = ('ref', 'mine') if rd % 2 else ('mine', 'ref')
            for who in order:
                k = img if who == 'mine' else refimg
                limit = scaled(max(60.0, 5 * ref_secs) if who == 'mine' and ref_secs else 600, self.scale)
                procs.note(f'latency round {rd}/{rounds}: {who}' + (f' (time limit {limit} s)' if who == 'mine' else ''))
                t0 = time.monotonic()
                _, m = run.measure_run(k, test, os.path.join(self.work, f'{c.id}-{who}-{rd}.console'),
                                       cpus=cpus, append=f'swaplab.pages={pages} {self.detectors}'.strip(), out_log=log, limit=limit)
                meas.append({'who': who, 'round': rd, 'median': _num(m.get('fault_median_us')),
                             'p99': _num(m.get('fault_p99_us'))})
                if meas[-1]['median'] is None:
                    failed = True       # the verdict is ERROR whatever follows
                    break
                if who == 'ref':
                    ref_secs = max(ref_secs, time.monotonic() - t0)
            if failed or verdict.latency_settled(meas, tol):
                break
        r = verdict.decide_latency(c, meas, rounds, tol)
        r.logs['runs'] = os.path.join(self.work, f'{c.id}-*.console')
        self.record(r)

    def finish(self, status: str = 'graded', message: str = '') -> None:
        """The records in table order; checks never reached are SKIP."""
        recs = []
        for c in self.sel:
            r = self.done.get(c.id)
            if r is None:
                r = verdict.decide_unfinished(c, status, message, running=c.id == self.current)
                r.counted = c.id not in self.off
            recs.append(r)
        self.g.records = recs
        self.g.status, self.g.message = status, message


def progress_report(g: Grade, grader: Grader, path: str) -> None:
    """Rewrite the --gradescope report (atomically) with the checks decided
    so far, the others SKIP 'not reached', as an interrupted grade: what is
    left when the grade is killed without warning (Gradescope's time limit
    kills the container).  The final report replaces it."""
    try:
        recs = []
        for c in grader.sel:
            r = copy.deepcopy(grader.done.get(c.id))
            if r is None:
                r = verdict.decide_not_reached(c)
                r.counted = c.id not in grader.off
            recs.append(r)
        n = sum(c.id in grader.done for c in grader.sel)
        snap = Grade(lab=g.lab, graded=g.graded, commit=g.commit, records=recs, started=g.started,
                     status='interrupted', work=g.work, review=list(g.review), context=dict(g.context),
                     message=f'incomplete: {n} of {len(recs)} checks decided when the grade stopped '
                             '(killed, e.g. by a time limit); the checks not reached earn nothing')
        snap.seconds = time.time() - g.started
        snap.apply_scoring()
        report.write_gradescope(snap, path)
    except procs.Interrupted:
        raise
    except Exception as e:   # a progress report never stops the grade
        print(f'warning: progress report {path}: {type(e).__name__}: {e}', file=sys.stderr)


def _num(v: Optional[str]) -> Optional[float]:
    try:
        return float(v) if v is not None else None
    except ValueError:
        return None


def write_reports(g: Grade, a: argparse.Namespace) -> None:
    for fn, path in ((report.write_json, a.json), (report.write_junit, a.junit),
                     (report.write_gradescope, a.gradescope)):
        if path:
            try:
                fn(g, path)
            except OSError as e:
                print(f'error: cannot write {path}: {e}', file=sys.stderr)
    if g.work and os.path.isdir(g.work):
        report.write_json(g, os.path.join(g.work, 'records.json'))
        with open(os.path.join(g.work, 'verdicts.tsv'), 'w', encoding='utf-8', newline='') as f:
            w = csv.writer(f, delimiter='\t', lineterminator='\n', quoting=csv.QUOTE_NONE,
                           escapechar='\\')
            for r in g.records:
                w.writerow([r.id, report.points_cell(g.part(r)), r.verdict, '-' if r.seconds is None else r.seconds,
                            r.reason.replace('\t', ' ')])


_KEEP_PATTERNS = re.compile(r'(\.(console|log|json|tsv|sh|results|path|t|secs|rc|lock-wait|lock-wait\.open)|^group-.*)$')


def prepare_work(keep: Optional[str]) -> str:
    if keep:
        os.makedirs(keep, exist_ok=True)
        # a kept folder from an earlier grade: drop its results, never reuse them
        for n in os.listdir(keep):
            p = os.path.join(keep, n)
            if (os.path.isfile(p) or os.path.islink(p)) and _KEEP_PATTERNS.search(n):
                os.unlink(p)
        return os.path.abspath(keep)
    return tempfile.mkdtemp(prefix='swaplab-grade.')


def sandbox_policy(a: argparse.Namespace) -> bool:
    """Whether the graded kernel is built and booted in the sandbox: always
    when bubblewrap can run here; a submission from someone else (--patch,
    --tree) is refused without one unless --unsafe."""
    kind = a.src[0] if a.src else ''
    if kind == 'stage':
        run.SANDBOX_QEMU = True
        return False
    p = subprocess.run([os.path.join(ROOT, 'scripts', 'sandbox'), '--check'], capture_output=True, text=True)
    if p.returncode == 0:
        run.SANDBOX_QEMU = True
        return True
    why = p.stderr.strip() or 'bubblewrap cannot run here'
    run.SANDBOX_QEMU = False
    if kind in ('patch', 'tree') and not a.unsafe:
        raise GraderError(f'{why}; refusing to build and boot a submission outside a sandbox '
                          '(install bubblewrap and allow user namespaces, or pass --unsafe)')
    print(f'warning: {why}: building and booting without a sandbox', file=sys.stderr)
    return False


def reject(g: Grade, grader: 'Grader', msg: str) -> None:
    """The submission is refused (intake, hygiene, a policy): no check is
    run, and a hygiene row says why."""
    grader.finish('rejected', msg)
    g.records.insert(0, verdict.decide_rejected(g.lab, msg))


def error(g: Grade, grader: Optional['Grader'], msg: str, tb: str) -> None:
    """A grader error (bad arguments, a broken kit, a bug): the checks
    decided so far are kept, or one grader row says what went wrong."""
    try:
        if grader is not None and grader.done:
            grader.finish('error', msg)
    except Exception:   # the report is still written, with what is known
        g.records = []
    g.status, g.message = 'error', msg
    if not g.records:
        g.records = [verdict.decide_grader_error(g.lab, msg, tb)]
    print(f'error: {msg}', file=sys.stderr)
