"""grade-all's grades: one submission graded by grader/grade in isolation
(run_grade), several side by side on this host (grade_pool, --jobs), or
as jobs for other machines (emit_jobs, run_job, merge).

Side by side, each grade runs in its own `grade-all --run-job`, the very
command an emitted job runs: a child subreaper of its own, so the orphans
of one grade are stopped with it and never another grade's processes
(procs.stop_descendants stops every descendant of the process that calls
it).  How many at once (auto_jobs) and the factor on the time limits when
they share the cores (concurrency_scale): README, § Instructors, "In
parallel".

What two grades side by side share, and why it is safe:
  - their folders: OUT/<student> each, two submissions that would share
    one are refused (gradesum.same_student); temporary files and folders
    are mkdtemp/mktemp's (intake's private index, vm/run's, the overlay's,
    cpp-policy's), the guest's /tmp its own;
  - the work repository: intake and scripts/overlay write objects (git
    writes each atomically, named by its content) and commits on private
    indexes; refs/swaplab/graded/lab-NN, which two grades of a lab move at
    once, waits for the other's lock (it only keeps the last graded commit
    reachable); refs/swaplab/build is moved under the build lock;
  - the build cache: the source checkout src/linux, the object folders
    obj/CFG and obj/graded-CFG, the ccaches and cpp-policy's caches are
    used only by a build, which holds the build lock; a build re-checks
    the image cache once it has the lock (the image the other grade built
    is used, never built again over one it boots); a submission's images
    have folders of their own (build-kernel --private), which only their
    grade evicts; a failed build's log is copied into the grade's folder
    under the lock (--keep-log), the object folder's being the next
    build's; the base initramfs (vm/mkinitramfs) and the kunit parser and
    policy caches are written to a file of the writer's own, then renamed;
  - memory: each grade its own ceiling (memcap), a cgroup made for a grade
    still running is never taken for an earlier one's.
"""
from __future__ import annotations

import json
import math
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from typing import Dict, List, Optional, Tuple

from . import memcap, procs, report
from .checks import ROOT
from .gradesum import row_of, sha256_of, student, write_summary
from .pipeline import limit_scale, scaled

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
GUEST_CPUS = 2          # the vCPUs of a grade's guest (vm/run -smp)
JOB_MEM = 3 << 30       # a grade's memory: its guest's 2 GiB, QEMU, the grader, its turn at a build


class Stop(Exception):
    """SIGINT, SIGTERM or SIGHUP: the grades stop, the summary so far is written."""


def on_signal(signum, frame):
    raise Stop(signal.Signals(signum).name)


def grade_one(f: str, lab: str, d: str, limit: int, only: List[str]) -> dict:
    """Grade submission F into folder D; its summary row."""
    return row_of(d, run_grade(f, lab, d, limit, only))


def lock_waited(work: str, now: Optional[float] = None) -> float:
    """Seconds a grade's builds spent waiting for the build lock: time
    another grade's build held it (grade-all --jobs), not this one's.
    scripts/build-kernel writes each wait that is over (one number a line)
    to the grade's kernel-CONFIG.lock-wait (SWAPLAB_LOCK_WAIT_FILE), and
    the start of one still going (epoch seconds) to kernel-CONFIG.lock-wait.open:
    a wait counts while it lasts.  Never read from a build log: the
    compiler quotes the submission's source there."""
    now = time.time() if now is None else now
    total = 0.0
    for cfg in ('fast', 'debug'):
        base = os.path.join(work, f'kernel-{cfg}.lock-wait')
        for path, still in ((base, False), (base + '.open', True)):
            try:
                with open(path, encoding='ascii', errors='replace') as fh:
                    words = fh.read(4096).split()
            except OSError:
                continue
            for w in words[-1:] if still else words:
                if re.fullmatch(r'[0-9]{1,12}(?:\.[0-9]+)?', w):
                    total += max(0.0, now - float(w)) if still else float(w)
    return total


def wait_counting_lock(p: subprocess.Popen, limit: float, work: str, poll: float = 2.0) -> int:
    """p's exit code, or TimeoutExpired once it has run LIMIT seconds (from
    this call) not counting its builds' waits for the build lock: a
    submission whose build holds the lock for long (a compile made slow on
    purpose) must not make the grades beside it time out."""
    t0 = time.monotonic()
    while True:
        left = t0 + limit + lock_waited(work) - time.monotonic()
        if left <= 0:
            raise subprocess.TimeoutExpired(p.args, limit)
        try:
            return p.wait(min(poll, left))
        except subprocess.TimeoutExpired:
            pass


def _stop_grade(p: subprocess.Popen) -> int:
    """TERM grade P's process group (the grade writes its report and stops
    QEMU), KILL it after 30 s; its exit code."""
    os.killpg(p.pid, signal.SIGTERM)
    try:
        return p.wait(30)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        return p.wait()


def run_grade(f: str, lab: str, d: str, limit: int, only: List[str]) -> dict:
    """grader/grade on F under LIMIT seconds (times SWAPLAB_LIMIT_SCALE),
    its report and log in D; what the row needs besides the report, also
    written to D/job.json (so that --merge can make the row where the
    grade ran elsewhere)."""
    os.makedirs(d, exist_ok=True)
    res = os.path.join(d, 'result.json')
    for old in (res, os.path.join(d, 'job.json')):      # (an earlier run's: never taken for this one's)
        if os.path.exists(old):
            os.unlink(old)
    scale = limit_scale()
    limit = scaled(limit, scale)
    cmd = [os.path.join(ROOT, 'grader', 'grade'), '--lab', lab, '--patch', f, *only,
           '--keep', os.path.join(d, 'work'), '--json', res]
    t0 = time.time()
    with open(os.path.join(d, 'grade.log'), 'wb') as log:
        p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                             start_new_session=True)
        timed_out = False
        try:
            rc = wait_counting_lock(p, limit, os.path.join(d, 'work'))
        except subprocess.TimeoutExpired:
            timed_out = True
            rc = _stop_grade(p)
        except Stop:
            _stop_grade(p)
            raise
        finally:
            # the grade stops its own processes; what outlives it (it was
            # killed, or something escaped its groups) was reparented to
            # grade-all, the subreaper: the whole tree of this submission
            # is gone before the next one starts
            procs.stop_descendants()
    job = {'student': os.path.basename(d), 'patch': f, 'patch_sha256': sha256_of(f), 'exit_code': rc,
           'timed_out': timed_out, 'limit': limit, 'seconds': round(time.time() - t0, 1), 'limit_scale': scale}
    with open(os.path.join(d, 'job.json'), 'w', encoding='utf-8') as fh:
        json.dump(job, fh, indent=1)
        fh.write('\n')
    return job


def folder_row(d: str) -> dict:
    """The row of the grade whose folder is D, from its job.json; None when
    it left none (its job did not run, or did not end)."""
    try:
        with open(os.path.join(d, 'job.json'), encoding='utf-8') as fh:
            return row_of(d, json.load(fh))
    except (OSError, ValueError, KeyError):
        return None


def not_graded(d: str, why: str) -> dict:
    row = row_of(d, {'exit_code': '', 'timed_out': False, 'limit': '', 'seconds': '', 'patch_sha256': ''})
    row['status'] = f'not graded: {why}'
    return row


# ---------------------------------------------------------------- side by side
def cores() -> int:
    """The cores this process may run on (what nproc says)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def auto_jobs(ncores: int, mem_available: int) -> int:
    """--jobs auto: one grade per GUEST_CPUS cores (each boots a guest of
    that many vCPUs; the builds take turns under the build lock, each with
    every core) and at most one per JOB_MEM of MEM_AVAILABLE bytes (0:
    unknown, not counted); at least 1."""
    n = ncores // GUEST_CPUS
    if mem_available > 0:
        n = min(n, mem_available // JOB_MEM)
    return max(1, n)


def default_jobs() -> int:
    return auto_jobs(cores(), memcap.mem_total(field='MemAvailable'))


def concurrency_scale(jobs: int, ncores: int) -> float:
    """The factor on every time limit for JOBS grades at once on NCORES
    cores: their guests' vCPUs over the cores, when more than 1 (rounded
    up to hundredths), else 1."""
    need = jobs * GUEST_CPUS / max(1, ncores)
    return max(1.0, math.ceil(need * 100 - 1e-6) / 100)


def fmt_scale(s: float) -> str:
    """2.0, 1.5, 1.33."""
    t = f'{s:.2f}'.rstrip('0')
    return t + '0' if t.endswith('.') else t


def grade_pool(todo: List[Tuple[int, str]], total: int, lab: str, out: str, limit: int, only: List[str],
               jobs: int, scale: float) -> Tuple[Dict[int, dict], bool]:
    """Grade TODO ((n, patch): the n-th of TOTAL submissions) into OUT/<student>,
    JOBS at once, each in its own grade-all --run-job with SWAPLAB_LIMIT_SCALE
    SCALE.  Returns ({n: row} of the grades that ended, whether a signal
    stopped the others: they are stopped, whole trees, and leave no row)."""
    stopped: List[str] = []

    def stop(signum, frame):
        stopped.append(signal.Signals(signum).name)
    for s in SIGNALS:
        signal.signal(s, stop)
    env = dict(os.environ, SWAPLAB_LIMIT_SCALE=fmt_scale(scale))
    ga = os.path.join(ROOT, 'grader', 'grade-all')
    queue, running, done = list(todo), {}, {}
    try:
        while (queue or running) and not stopped:
            while queue and len(running) < jobs and not stopped:
                n, f = queue.pop(0)
                who = student(f)
                d = os.path.join(out, who)
                os.makedirs(d, exist_ok=True)
                if os.path.exists(os.path.join(d, 'job.json')):     # (an earlier run's)
                    os.unlink(os.path.join(d, 'job.json'))
                # (its own session: a ^C reaches grade-all, which stops every grade)
                p = subprocess.Popen([ga, '--lab', lab, '--run-job', os.path.abspath(f), '--out', d,
                                      '--timeout', str(limit), *only], env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, start_new_session=True)
                running[n] = (p, who, d)
                print(f'    [{n}/{total}] {who}: started ({len(running)} running)', file=sys.stderr, flush=True)
            time.sleep(0.1)
            for n, (p, who, d) in sorted(running.items()):
                if p.poll() is None:
                    continue
                del running[n]
                done[n] = folder_row(d) or not_graded(d, f'its grade-all --run-job ended (exit {p.returncode}) '
                                                         'without a job.json')
                _progress(n, total, who, done[n])
    finally:
        _stop_all([p for p, _, _ in running.values()])
    # a grade that ended as the others were stopped has its row; the others
    # none (a grade stopped midway left no job.json), as in the serial run
    for n, (p, who, d) in sorted(running.items()):
        row = folder_row(d)
        if row is not None:
            done[n] = row
            _progress(n, total, who, row)
    return done, bool(stopped)


def _progress(n: int, total: int, who: str, row: dict) -> None:
    extra = f" ({row['failed_checks']})" if row['failed_checks'] else ''
    print(f"    [{n}/{total}] {who:<20} {row['score']:>4}/{row['max_score']:<4} {row['status']}{extra}"
          f" ({row['seconds']} s)", file=sys.stderr, flush=True)


def _stop_all(ps: List[subprocess.Popen], grace: float = 60.0) -> None:
    """TERM each grade-all --run-job of PS (it stops its grade, TERM then
    KILL after 30 s, and that grade's whole tree), KILL those left after
    GRACE seconds; then every descendant left (their orphans come here)."""
    for p in ps:
        if p.poll() is None:
            try:
                p.send_signal(signal.SIGTERM)
            except OSError:
                pass
    t0 = time.monotonic()
    for p in ps:
        try:
            p.wait(max(0.1, grace - (time.monotonic() - t0)))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    procs.stop_descendants()


# ---------------------------------------------------------------- other machines
def emit_jobs(lab: str, subs: List[str], jobs: str, limit: int, only: List[str]) -> None:
    """JOBS/jobs/<student>.sh for each of SUBS, JOBS/jobs.txt, JOBS/slurm.sbatch."""
    jobs = os.path.abspath(jobs)
    for sub in ('jobs', 'results', 'logs'):
        os.makedirs(os.path.join(jobs, sub), exist_ok=True)
    ga = os.path.join(ROOT, 'grader', 'grade-all')
    lines = []
    for n, f in enumerate(subs, 1):
        who = student(f)
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
# the build cache on the node's own disk, not in a home shared by the
# nodes: its build lock and object folders are one node's (a shared one
# would queue the whole cluster on one lock, or, where locks are per node,
# let two nodes build in one folder); each node builds its lab base once
export SWAPLAB_CACHE="${{SWAPLAB_NODE_CACHE:-${{TMPDIR:-/tmp}}/swaplab-cache-$(id -u)}}"
line=$(sed -n "$((SLURM_ARRAY_TASK_ID + 1))p" {q})
[ -n "$line" ] || {{ echo "slurm.sbatch: no line $((SLURM_ARRAY_TASK_ID + 1)) in {q}" >&2; exit 3; }}
exec bash -c "$line"
""")
    print(f'==> {len(subs)} jobs for lab {lab}: {os.path.join(jobs, "jobs.txt")}, '
          f'{os.path.join(jobs, "slurm.sbatch")}; results in {os.path.join(jobs, "results")}',
          file=sys.stderr)


def run_job(patch: str, lab: str, out: str, limit: int, only: List[str]) -> int:
    """--run-job: grade PATCH into OUT (what an emitted job, and each grade
    of --jobs, runs), a subreaper of its own; prints its row's score."""
    procs.set_subreaper()
    for s in SIGNALS:
        signal.signal(s, on_signal)
    try:
        job = run_grade(os.path.abspath(patch), lab, os.path.abspath(out), limit, only)
    except Stop:
        sys.stderr.write('grade-all: interrupted; this job left no job.json\n')    # (one write: jobs side by side)
        return 130
    for s in SIGNALS:       # (graded: a signal now changes nothing)
        signal.signal(s, signal.SIG_IGN)
    row = row_of(os.path.abspath(out), job)
    print(f"{row['student']}  {report._pts(row['score'])}/{report._pts(row['max_score'])}  {row['status']}")
    return 0


def stale(d: str) -> bool:
    """Whether the grade in folder D was of another version of its patch
    than the one now at its path (emitted again since, its job not run)."""
    try:
        with open(os.path.join(d, 'job.json'), encoding='utf-8') as fh:
            job = json.load(fh)
        return bool(job.get('patch_sha256')) and os.path.exists(job.get('patch', '')) and \
            sha256_of(job['patch']) != job['patch_sha256']
    except (OSError, ValueError, TypeError):
        return False


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
        row = folder_row(d)
        if row is None:
            row = not_graded(d, 'its job left no job.json')
            missing.append(w)
        elif stale(d):
            row = not_graded(d, 'its job.json is for an earlier version of the patch (run its job again)')
            missing.append(w)
        rows.append(row)
    write_summary(res, rows)
    print(f"==> {len(rows) - len(missing)} of {len(rows)} results: {os.path.join(res, 'summary.csv')}, "
          f"summary.json, summary.html" + (f"; no result from: {' '.join(missing)}" if missing else ''),
          file=sys.stderr)
    return 1 if missing else 0
