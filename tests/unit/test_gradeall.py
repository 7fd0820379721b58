"""grader/grade-all in parallel (grader/swaplab/gradeall.py, gradejobs.py,
gradesum.py): --emit-jobs writes one command per submission, jobs.txt and a
Slurm array script; --merge writes the summary from the result folders the
jobs left, with the serial run's own code; --jobs N grades N submissions at
once and writes the serial run's summary, byte for byte, its time limits
scaled where the grades share the cores.  A fake kit root stands in: its
grader/grade copies a saved result.json (tests/unit/data/gradeall/results/
NAME) and exits with the code the submission names, after sleeping as long
as the submission says (or until killed), noting when it ran, its pid and
its SWAPLAB_LIMIT_SCALE in FAKE_GRADE_LOG; its grader/grade-all is the real
one with a fixed clock.  The summary files of a serial run over those
submissions are saved too (tests/unit/data/gradeall/summary.*): the serial
run must give them byte for byte, and so must --merge.  Seconds; no kernel,
no QEMU.

If you change the summary on purpose, write the saved files again:
SWAPLAB_WRITE_GOLDEN=1 python3 tests/unit/test_gradeall.py
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(HERE, 'data', 'gradeall')
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, 'grader'))
import kitrun  # noqa: E402
from swaplab import gradejobs, intake, memcap, pipeline, report, timelimits  # noqa: E402

SUMMARY = ('summary.csv', 'summary.json', 'summary.html')
# the submissions: NAME -> the grade's exit code (carol's grade leaves no report)
SUBS = {'alice': 1, 'bob': 1, 'carol': 3}

# the submission's text: "WHO RC [SECONDS [MODE]]"; MODE rejected: WHO's
# saved report made a rejection; orphan: it leaves a process of its own
# session behind, as a build under timeout or bubblewrap does
FAKE_GRADE = r'''#!/usr/bin/env python3
import json, os, shutil, subprocess, sys, time
a = sys.argv[1:]
patch, res = a[a.index('--patch') + 1], a[a.index('--json') + 1]
with open(patch) as f:
    w = f.read().split()
who, rc = w[0], w[1]
secs, mode = (float(w[2]) if len(w) > 2 else 0), (w[3] if len(w) > 3 else '')
log = os.environ.get('FAKE_GRADE_LOG')
def note(what):
    if log:
        with open(log, 'a') as f:
            f.write(f"{who} {what} {time.time():.3f} {os.getpid()} {os.environ.get('SWAPLAB_LIMIT_SCALE', '-')}\n")
note('start')
if mode == 'lockwait':      # its build waited that long for another grade's build
    keep = a[a.index('--keep') + 1]
    os.makedirs(keep, exist_ok=True)
    with open(os.path.join(keep, 'kernel-fast.lock-wait'), 'w') as f:
        f.write(f'{secs:.1f}\n')
if mode == 'orphan':
    o = subprocess.Popen(['setsid', 'sleep', '300'])
    note(f'orphan-{o.pid}')
time.sleep(secs)
src = os.path.join(%r, 'results', who, 'result.json')
print('fake grade of', who)
if mode == 'rejected':
    with open(src) as f:
        g = json.load(f)
    g['status'], g['message'] = 'rejected', 'the patch does not apply to lab-01-start: error: corrupt patch at line 3'
    with open(res, 'w') as f:
        json.dump(g, f)
elif os.path.exists(src):
    shutil.copyfile(src, res)
note('end')
sys.exit(int(rc))
'''
FAKE_GRADE_ALL = r'''#!/usr/bin/env python3
import os, sys
sys.path.insert(0, %r)
from swaplab import gradeall, gradejobs
gradeall.ROOT = gradejobs.ROOT = %r
gradejobs.time.time = lambda: 1000.0        # seconds: 0.0, every run
sys.exit(gradeall.main(sys.argv[1:]))
'''


# the fake scripts/build-kernel: grade-all asks it for the lab's incremental
# base (--base) before the first grade; it logs its arguments and the time,
# and fails where the kit root holds a file base-fails
FAKE_BUILD = r'''#!/bin/sh
d=$(dirname "$0")/..
echo "$(date +%s.%N) $*" >>"$d/build-kernel.calls"
[ ! -e "$d/base-fails" ]
'''


def fake_kit(d: str) -> str:
    """A kit root whose grader/grade is the fake; returns its grade-all."""
    os.makedirs(os.path.join(d, 'grader'))
    os.makedirs(os.path.join(d, 'scripts'))
    for name, text in (('grader/grade', FAKE_GRADE % DATA), ('scripts/build-kernel', FAKE_BUILD),
                       ('grader/grade-all', FAKE_GRADE_ALL % (os.path.join(ROOT, 'grader'), d))):
        p = os.path.join(d, name)
        with open(p, 'w') as f:
            f.write(text)
        os.chmod(p, 0o755)
    return os.path.join(d, 'grader', 'grade-all')


def submissions(d: str) -> str:
    os.makedirs(d)
    for who, rc in SUBS.items():
        with open(os.path.join(d, f'{who}.patch'), 'w') as f:
            f.write(f'{who} {rc}\n')
    return d


def read(path: str) -> bytes:
    with open(path, 'rb') as f:
        return f.read()


def T_read(path: str) -> str:
    with open(path, encoding='utf-8') as f:
        return f.read()


def golden(name: str, out: str) -> bytes:
    """The saved summary file, its result folder (@OUT@) made OUT."""
    return read(os.path.join(DATA, name)).replace(b'@OUT@', out.encode())


class GradeAll(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.t = self.tmp.name
        self.ga = fake_kit(os.path.join(self.t, 'kit'))
        self.subs = submissions(os.path.join(self.t, 'subs'))

    def tearDown(self):
        self.tmp.cleanup()

    def run_ga(self, *args, want=0):
        p = subprocess.run([sys.executable, self.ga, *args], capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, want, p.stderr)
        return p

    def serial(self, out):
        self.run_ga('--lab', '01', self.subs, '--out', out)

    def assertSummary(self, out):
        for n in SUMMARY:
            self.assertEqual(read(os.path.join(out, n)), golden(n, out), f'{n} differs from tests/unit/data/gradeall/{n}')

    def test_serial_summary_is_byte_for_byte_the_saved_one(self):
        out = os.path.join(self.t, 'serial', 'results')
        self.serial(out)
        self.assertSummary(out)

    def test_the_incremental_base_is_asked_for_before_the_first_grade(self):
        log = os.path.join(self.t, 'grades.log')
        out = os.path.join(self.t, 'serial', 'results')
        p = subprocess.run([sys.executable, self.ga, '--lab', '01', self.subs, '--out', out], capture_output=True,
                           text=True, timeout=120, env={**os.environ, 'FAKE_GRADE_LOG': log})
        self.assertEqual(p.returncode, 0, p.stderr)
        calls = [l.split(' ', 1) for l in T_read(os.path.join(self.t, 'kit', 'build-kernel.calls')).splitlines()]
        self.assertEqual([c[1] for c in calls], [f'--commit lab-01-start --lab 01 --config {c} --base'
                                                 for c in ('fast', 'debug')])
        first = min(float(l.split()[2]) for l in T_read(log).splitlines() if l.split()[1] == 'start')
        self.assertLess(max(float(c[0]) for c in calls), first)
        self.assertIn("lab 01's incremental base, fast kernel", p.stderr)

    def test_only_fast_checks_ask_for_the_fast_base_only(self):
        out = os.path.join(self.t, 'serial', 'results')
        self.run_ga('--lab', '01', self.subs, '--out', out, '--only', 'build-fast,kunit-01')
        calls = T_read(os.path.join(self.t, 'kit', 'build-kernel.calls')).splitlines()
        self.assertEqual([c.split(' ', 1)[1] for c in calls], ['--commit lab-01-start --lab 01 --config fast --base'])

    def test_a_base_that_cannot_be_built_stops_before_any_grade(self):
        open(os.path.join(self.t, 'kit', 'base-fails'), 'w').close()
        out = os.path.join(self.t, 'serial', 'results')
        p = self.run_ga('--lab', '01', self.subs, '--out', out, want=3)
        self.assertIn("could not build lab 01's start (fast), the incremental base", p.stderr)
        self.assertFalse(os.path.exists(os.path.join(out, 'alice')))

    def test_merge_of_the_saved_result_folders_gives_the_saved_summary(self):
        d = os.path.join(self.t, 'jobs')
        shutil.copytree(os.path.join(DATA, 'results'), os.path.join(d, 'results'))
        self.run_ga('--merge', d)
        self.assertSummary(os.path.join(d, 'results'))

    def test_merge_of_a_serial_run_rewrites_its_summary_byte_for_byte(self):
        out = os.path.join(self.t, 'serial', 'results')
        self.serial(out)
        before = {n: read(os.path.join(out, n)) for n in SUMMARY}
        for n in SUMMARY:
            os.unlink(os.path.join(out, n))
        self.run_ga('--merge', os.path.dirname(out))
        self.assertEqual({n: read(os.path.join(out, n)) for n in SUMMARY}, before)

    def emit(self, *extra):
        d = os.path.join(self.t, 'jobs')
        p = self.run_ga('--lab', '01', self.subs, '--emit-jobs', d, *extra)
        return d, p

    def test_emit_jobs_writes_a_command_per_submission_jobs_txt_and_sbatch(self):
        d, p = self.emit('--timeout', '600', '--only', 'build-fast,kunit-01')
        with open(os.path.join(d, 'jobs.txt')) as f:
            lines = f.read().splitlines()
        self.assertEqual(len(lines), 3)
        for who, line in zip(sorted(SUBS), lines):
            script = os.path.join(d, 'jobs', f'{who}.sh')
            self.assertEqual(line, script)
            self.assertTrue(os.access(script, os.X_OK), script)
            text = T_read(script)
            for want in ('--run-job', os.path.join(self.subs, f'{who}.patch'), os.path.join(d, 'results', who),
                         "--lab 01", '--timeout 600', '--only build-fast,kunit-01'):
                self.assertIn(want, text)
            self.assertEqual(subprocess.run(['sh', '-n', script]).returncode, 0)
        sb = T_read(os.path.join(d, 'slurm.sbatch'))
        self.assertIn('#SBATCH --array=0-2\n', sb)
        self.assertIn('SLURM_ARRAY_TASK_ID + 1', sb)
        self.assertEqual(subprocess.run(['bash', '-n', os.path.join(d, 'slurm.sbatch')]).returncode, 0)
        self.assertIn('3 jobs', p.stderr)

    def test_jobs_run_one_by_one_then_merged_give_the_serial_summary(self):
        d, _ = self.emit()
        # one as Slurm would run it (task 1: the second line, bob), the others as listed
        env = dict(os.environ, SLURM_ARRAY_TASK_ID='1')
        p = subprocess.run(['bash', os.path.join(d, 'slurm.sbatch')], env=env, capture_output=True, text=True,
                           timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(os.path.exists(os.path.join(d, 'results', 'bob', 'job.json')))
        self.assertFalse(os.path.exists(os.path.join(d, 'results', 'alice', 'job.json')))
        for line in T_read(os.path.join(d, 'jobs.txt')).splitlines():
            if '/bob.sh' not in line:
                self.assertEqual(subprocess.run(['sh', '-c', line], capture_output=True).returncode, 0)
        self.run_ga('--merge', d)
        self.assertSummary(os.path.join(d, 'results'))

    def test_the_array_builds_in_a_cache_on_the_node(self):
        d, _ = self.emit()
        sb = T_read(os.path.join(d, 'slurm.sbatch'))
        self.assertIn('export SWAPLAB_CACHE="${SWAPLAB_NODE_CACHE:-${TMPDIR:-/tmp}/swaplab-cache-$(id -u)}"', sb)
        env = dict(os.environ, SLURM_ARRAY_TASK_ID='0', SWAPLAB_NODE_CACHE=os.path.join(self.t, 'node'))
        p = subprocess.run(['bash', '-c', f'. /dev/stdin; echo "$SWAPLAB_CACHE"'], input=sb.split('line=$(')[0],
                           env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(p.stdout.strip(), os.path.join(self.t, 'node'))

    def test_merge_refuses_a_grade_of_an_earlier_version_of_the_patch(self):
        d, _ = self.emit()
        for who in SUBS:
            subprocess.run(['sh', os.path.join(d, 'jobs', f'{who}.sh')], check=True, capture_output=True)
        with open(os.path.join(self.subs, 'bob.patch'), 'a') as f:     # handed in again since
            f.write('# again\n')
        p = self.run_ga('--merge', d, want=1)
        self.assertIn('bob', p.stderr)
        with open(os.path.join(d, 'results', 'summary.json')) as f:
            bob = [r for r in json.load(f) if r['student'] == 'bob'][0]
        self.assertIn('earlier version of the patch', bob['status'])

    def test_merge_names_a_job_that_left_nothing(self):
        d, _ = self.emit()
        for who in ('alice', 'bob'):
            subprocess.run(['sh', os.path.join(d, 'jobs', f'{who}.sh')], check=True, capture_output=True)
        p = self.run_ga('--merge', d, want=1)
        self.assertIn('carol', p.stderr)
        with open(os.path.join(d, 'results', 'summary.csv')) as f:
            rows = f.read().splitlines()
        self.assertEqual([r.split(',')[0] for r in rows[1:]], ['alice', 'bob', 'carol'])
        self.assertIn('not graded: its job left no job.json', rows[3])

    def test_merge_without_results_is_a_bad_argument(self):
        self.run_ga('--merge', os.path.join(self.t, 'nothing'), want=3)


# --jobs: the class of a parallel run: WHO -> its submission's text (the
# fake's exit code, seconds, mode); dave's grade runs past its time limit
CLASS = {'alice': 'alice 1 0.6', 'bob': 'bob 1 0.6', 'carol': 'carol 3 0.2', 'dave': 'dave 1 60',
         'erin': 'alice 2 0.5 rejected'}


def fake_class(d: str, cls=CLASS) -> str:
    os.makedirs(d)
    for who, text in cls.items():
        with open(os.path.join(d, f'{who}.patch'), 'w') as f:
            f.write(text + '\n')
    return d


def fake_log(path: str) -> list:
    """(who, what, time, pid, scale) of each line the fakes noted."""
    try:
        with open(path) as f:
            return [(w[0], w[1], float(w[2]), int(w[3]), w[4]) for w in (l.split() for l in f)]
    except OSError:
        return []


def alive(pid: int) -> bool:
    try:
        with open(f'/proc/{pid}/stat') as f:
            return f.read().rsplit(')', 1)[1].split()[0] not in 'ZX'
    except OSError:
        return False


class Jobs(unittest.TestCase):
    """grade-all --jobs N: N grades at once, the serial run's summary."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.t = self.tmp.name
        self.ga = fake_kit(os.path.join(self.t, 'kit'))
        self.log = os.path.join(self.t, 'fake.log')

    def tearDown(self):
        self.tmp.cleanup()

    def run_ga(self, *args, want=0, **env):
        e = dict(os.environ, FAKE_GRADE_LOG=self.log, **env)
        e.pop('SWAPLAB_LIMIT_SCALE', None) if 'SWAPLAB_LIMIT_SCALE' not in env else None
        p = subprocess.run([sys.executable, self.ga, *args], capture_output=True, text=True, timeout=120, env=e)
        self.assertEqual(p.returncode, want, p.stderr)
        return p

    def summary(self, out: str) -> dict:
        return {n: read(os.path.join(out, n)).replace(out.encode(), b'@OUT@') for n in SUMMARY}

    def test_jobs_2_writes_the_serial_summary_byte_for_byte(self):
        """A rejected submission, a timeout and a grade that leaves no
        report among them; the limits unscaled in both runs
        (SWAPLAB_LIMIT_SCALE=1), so that the timeout's row is the same."""
        subs = fake_class(os.path.join(self.t, 'subs'))
        a, b = os.path.join(self.t, 'serial', 'results'), os.path.join(self.t, 'jobs', 'results')
        q = self.run_ga('--lab', '01', subs, '--out', a, '--timeout', '3', '--jobs', '1', SWAPLAB_LIMIT_SCALE='1')
        p = self.run_ga('--lab', '01', subs, '--out', b, '--timeout', '3', '--jobs', '2', SWAPLAB_LIMIT_SCALE='1')
        self.assertEqual(self.summary(a), self.summary(b))
        with open(os.path.join(b, 'summary.csv')) as f:
            rows = {r.split(',')[0]: r for r in f.read().splitlines()[1:]}
        self.assertEqual(list(rows), ['alice', 'bob', 'carol', 'dave', 'erin'])
        self.assertIn(',timeout after 3s,', rows['dave'])
        self.assertIn(',rejected: the patch does not apply', rows['erin'])
        self.assertIn(',grader error (exit 3): no readable report', rows['carol'])
        self.assertIn('2 at a time', p.stderr)
        self.assertRegex(p.stderr, r'\[4/5\] dave +0/0 +timeout after 3s \(0.0 s\)')
        self.assertNotIn('at a time', q.stderr)
        # the two tables on stdout, too
        self.assertEqual(q.stdout.replace(a, '@OUT@'), p.stdout.replace(b, '@OUT@'))

    def test_two_grades_really_ran_at_once(self):
        subs = fake_class(os.path.join(self.t, 'subs'), {'alice': 'alice 1 1.5', 'bob': 'bob 1 1.5'})
        self.run_ga('--lab', '01', subs, '--out', os.path.join(self.t, 'out'), '--jobs', '2')
        ev = {(w, what): t for w, what, t, _, _ in fake_log(self.log)}
        self.assertLess(max(ev['alice', 'start'], ev['bob', 'start']), min(ev['alice', 'end'], ev['bob', 'end']),
                        f'the two grades did not overlap: {ev}')

    def test_the_scale_reaches_the_grade_and_the_timeout(self):
        # set by hand: the grades' environment and grade-all's own limit
        subs = fake_class(os.path.join(self.t, 'subs'), {'alice': 'alice 1 0.2', 'dave': 'dave 1 60'})
        out = os.path.join(self.t, 'out')
        p = self.run_ga('--lab', '01', subs, '--out', out, '--timeout', '2', '--jobs', '2',
                        SWAPLAB_LIMIT_SCALE='1.5')
        self.assertIn('time limits x1.5 (SWAPLAB_LIMIT_SCALE)', p.stderr)
        self.assertEqual({sc for _, what, _, _, sc in fake_log(self.log) if what == 'start'}, {'1.5'})
        with open(os.path.join(out, 'dave', 'job.json')) as f:
            job = json.load(f)
        self.assertEqual((job['limit'], job['limit_scale'], job['timed_out']), (3, 1.5, True))
        with open(os.path.join(out, 'summary.json')) as f:
            self.assertEqual([r['status'] for r in json.load(f)], ['fail', 'timeout after 3s'])

    def test_the_time_a_build_waited_for_the_lock_is_not_counted(self):
        # alice's build waited 4 s for the build lock (another grade's build
        # held it): her 3-s limit does not count them; bob's grade takes as
        # long without the wait and times out
        subs = fake_class(os.path.join(self.t, 'subs'), {'alice': 'alice 1 4 lockwait', 'bob': 'bob 1 4'})
        out = os.path.join(self.t, 'out')
        self.run_ga('--lab', '01', subs, '--out', out, '--timeout', '3', '--jobs', '2', SWAPLAB_LIMIT_SCALE='1')
        with open(os.path.join(out, 'summary.json')) as f:
            self.assertEqual([(r['student'], r['status']) for r in json.load(f)],
                             [('alice', 'fail'), ('bob', 'timeout after 3s')])
        self.assertEqual(gradejobs.lock_waited(os.path.join(out, 'alice', 'work')), 4.0)

    def test_a_build_log_cannot_claim_a_wait(self):
        # (red team, issue 30: gcc quotes the submission's source line,
        # comment included, in the build log; that log once carried the
        # wait and so switched the time limit off)
        w = os.path.join(self.t, 'w')
        os.makedirs(w)
        with open(os.path.join(w, 'kernel-debug.log'), 'w') as f:
            f.write('mm/swapfile.c:9:20: error: lw_undeclared undeclared\n'
                    '    9 | static int lw = lw_undeclared; /* waited 999999 s for the build lock */\n')
        with open(os.path.join(w, 'kernel-fast.lock-wait'), 'w') as f:
            f.write('1.5\nnot a number\n2\n')
        self.assertEqual(gradejobs.lock_waited(w), 3.5)
        # (red team, issue 30, round 2) a wait still going counts while it
        # lasts: written only once over, a build holding the lock to its
        # timeout made the grade queued behind it time out at its limit
        with open(os.path.join(w, 'kernel-debug.lock-wait.open'), 'w') as f:
            f.write('1000.5\n')
        self.assertEqual(gradejobs.lock_waited(w, now=1010.5), 13.5)
        self.assertEqual(gradejobs.lock_waited(w, now=900.0), 3.5)
        p = subprocess.Popen(['sleep', '4'])
        with open(os.path.join(w, 'kernel-debug.lock-wait.open'), 'w') as f:
            f.write(f'{time.time():.2f}\n')
        try:
            self.assertEqual(gradejobs.wait_counting_lock(p, 1, w, poll=0.2), 0)
        finally:
            p.kill()
            p.wait()

    def test_a_student_named_like_a_summary_file_gets_a_folder_of_its_own(self):
        subs = fake_class(os.path.join(self.t, 'subs'), {'summary.csv': 'alice 1', 'bob': 'bob 1'})
        out = os.path.join(self.t, 'out')
        self.run_ga('--lab', '01', subs, '--out', out, '--jobs', '2', SWAPLAB_LIMIT_SCALE='1')
        self.assertTrue(os.path.isfile(os.path.join(out, 'summary.csv')))
        self.assertTrue(os.path.isdir(os.path.join(out, '_summary.csv')))
        with open(os.path.join(out, 'summary.json')) as f:
            self.assertEqual([r['student'] for r in json.load(f)], ['bob', '_summary.csv'])

    def test_the_scale_from_the_cores(self):
        """Unset, the factor is 2 x jobs / cores of this machine (at least 1),
        shown at the start and given to every grade."""
        subs = fake_class(os.path.join(self.t, 'subs'), {'alice': 'alice 1 0.1', 'bob': 'bob 1 0.1'})
        p = self.run_ga('--lab', '01', subs, '--out', os.path.join(self.t, 'out'), '--jobs', '2')
        s = gradejobs.concurrency_scale(2, gradejobs.cores())
        self.assertIn(f'--jobs 2 on {gradejobs.cores()} cores: time limits x{gradejobs.fmt_scale(s)}', p.stderr)
        self.assertEqual({sc for _, what, _, _, sc in fake_log(self.log) if what == 'start'},
                         {gradejobs.fmt_scale(s)})
        with open(os.path.join(self.t, 'out', 'alice', 'job.json')) as f:
            job = json.load(f)
        # the default limit: lab 01's grade:01 row (grader/limits.tsv)
        self.assertEqual((job['limit'], job['limit_scale']), (gradejobs.scaled(timelimits.grade_limit('01'), s), s))

    def test_sigterm_stops_every_grade_and_writes_the_summary_so_far(self):
        subs = fake_class(os.path.join(self.t, 'subs'), {'aaron': 'alice 1 0', 'bob': 'bob 1 300 orphan',
                                                         'carol': 'bob 1 300 orphan'})
        out = os.path.join(self.t, 'out')
        e = dict(os.environ, FAKE_GRADE_LOG=self.log)
        e.pop('SWAPLAB_LIMIT_SCALE', None)
        p = subprocess.Popen([sys.executable, self.ga, '--lab', '01', subs, '--out', out, '--jobs', '2'],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=e)
        try:
            t0 = time.time()
            while sum(what.startswith('orphan') for _, what, _, _, _ in fake_log(self.log)) < 2:
                self.assertLess(time.time() - t0, 60, 'the two slow grades never started')
                time.sleep(0.1)
            p.send_signal(signal.SIGTERM)
            _, err = p.communicate(timeout=120)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        self.assertEqual(p.returncode, 130, err)
        self.assertIn('interrupted; writing the summary so far', err)
        pids = [pid for _, what, _, pid, _ in fake_log(self.log) if what == 'start'] + \
            [int(what.split('-')[1]) for _, what, _, _, _ in fake_log(self.log) if what.startswith('orphan')]
        self.assertEqual(len(pids), 5)
        self.assertEqual([x for x in pids if alive(x)], [], 'a fake grade or its orphan outlived grade-all')
        with open(os.path.join(out, 'summary.csv')) as f:
            self.assertEqual([r.split(',')[0] for r in f.read().splitlines()[1:]], ['aaron'])

    def test_resume_with_jobs_grades_only_what_changed(self):
        subs = fake_class(os.path.join(self.t, 'subs'), {'alice': 'alice 1 0', 'bob': 'bob 1 0', 'carol': 'carol 3 0'})
        out = os.path.join(self.t, 'out')
        self.run_ga('--lab', '01', subs, '--out', out, '--jobs', '2')
        with open(os.path.join(subs, 'bob.patch'), 'w') as f:
            f.write('bob 1 0.1\n')
        os.unlink(self.log)
        p = self.run_ga('--lab', '01', subs, '--out', out, '--jobs', '2', '--resume')
        # bob changed, carol's grade left no report: graded again; alice kept
        self.assertEqual(sorted(w for w, what, _, _, _ in fake_log(self.log) if what == 'start'), ['bob', 'carol'])
        self.assertIn('alice: already graded (--resume)', p.stderr)
        self.assertEqual(self.summary(out)['summary.csv'].splitlines()[1:],
                         golden('summary.csv', out).replace(out.encode(), b'@OUT@').splitlines()[1:])

    def test_bad_arguments_exit_3(self):
        subs = fake_class(os.path.join(self.t, 'subs'), {'alice': 'alice 1 0'})
        for v in ('0', '-1', 'x', '1.5', '', '99999'):
            p = self.run_ga('--lab', '01', subs, '--jobs', v, want=3)
            self.assertIn('--jobs takes a number of grades at once', p.stderr)
        p = self.run_ga('--lab', '01', subs, '--jobs', want=3)
        self.assertIn('bad arguments', p.stderr)
        for v in ('0.5', 'abc', 'nan', 'inf', '-2'):
            p = self.run_ga('--lab', '01', subs, '--jobs', '2', want=3, SWAPLAB_LIMIT_SCALE=v)
            self.assertIn('SWAPLAB_LIMIT_SCALE must be a number of at least 1', p.stderr)
        p = self.run_ga('--lab', '01', subs, '--emit-jobs', os.path.join(self.t, 'j'), '--jobs', '2', want=3)
        self.assertIn('not with --emit-jobs', p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.t, 'j')))
        with open(os.path.join(subs, 'alice.diff'), 'w') as f:
            f.write('alice 1 0\n')
        for extra in ((), ('--emit-jobs', os.path.join(self.t, 'j'))):
            p = self.run_ga('--lab', '01', subs, *extra, want=3)
            self.assertIn('alice.diff and alice.patch are both graded as alice', p.stderr)
        self.assertEqual(fake_log(self.log), [])


class AutoJobs(unittest.TestCase):
    """--jobs auto and the scale of the limits, on made-up machines."""

    def test_one_job_per_two_cores_and_per_3_gib(self):
        G = 1 << 30
        for ncores, mem, want in ((2, 16 * G, 1), (1, 64 * G, 1), (8, 64 * G, 4), (8, 7 * G, 2), (8, 2 * G, 1),
                                  (64, 0, 32), (16, 12 * G - 1, 3), (3, 64 * G, 1)):
            self.assertEqual(gradejobs.auto_jobs(ncores, mem), want, (ncores, mem))

    def test_memavailable_is_read_from_meminfo(self):
        with tempfile.NamedTemporaryFile('w', suffix='meminfo') as f:
            f.write('MemTotal:       16318540 kB\nMemFree:  1000 kB\nMemAvailable:   12582912 kB\n')
            f.flush()
            self.assertEqual(memcap.mem_total(f.name, field='MemAvailable'), 12 << 30)
            self.assertEqual(memcap.mem_total(f.name), 16318540 * 1024)

    def test_scale_is_the_guests_vcpus_over_the_cores(self):
        for jobs, ncores, want in ((1, 2, 1.0), (2, 2, 2.0), (3, 4, 1.5), (2, 3, 1.34), (4, 8, 1.0), (6, 2, 6.0)):
            self.assertEqual(gradejobs.concurrency_scale(jobs, ncores), want, (jobs, ncores))
        self.assertEqual([gradejobs.fmt_scale(x) for x in (1.0, 2.0, 1.5, 1.34)], ['1.0', '2.0', '1.5', '1.34'])


class LimitScale(unittest.TestCase):
    """SWAPLAB_LIMIT_SCALE in the grade (pipeline.py): every limit times it."""

    def setUp(self):
        self.env = {k: os.environ.get(k) for k in ('SWAPLAB_LIMIT_SCALE', 'SWAPLAB_GUEST_TIMEOUT',
                                                    'SWAPLAB_BUILD_TIMEOUT', 'SWAPLAB_CPP_TIMEOUT')}
        for k in self.env:
            os.environ.pop(k, None)

    def tearDown(self):
        for k, v in self.env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v

    def grader(self):
        gr = pipeline.Grader(report.Grade(lab='01', started=0), [])
        gr.limits = {'pageout': 60, 'pressure': 204}
        return gr

    def test_guest_limits_and_the_override_are_scaled(self):
        self.assertEqual((self.grader().limit('pageout'), self.grader().limit('pressure')), (60, 204))
        os.environ['SWAPLAB_LIMIT_SCALE'] = '1.5'
        self.assertEqual((self.grader().limit('pageout'), self.grader().limit('pressure')), (90, 306))
        self.assertEqual(self.grader().limit('other'), 900)
        os.environ['SWAPLAB_GUEST_TIMEOUT'] = '25'
        self.assertEqual(self.grader().limit('pageout'), 38)

    def test_step_limits_are_scaled(self):
        base = pipeline.Grader(report.Grade(lab='01', started=0), []).steps
        os.environ['SWAPLAB_LIMIT_SCALE'] = '2'
        self.assertEqual(pipeline.Grader(report.Grade(lab='01', started=0), []).steps,
                         {k: 2 * v for k, v in base.items()})

    def test_bad_values_are_a_grader_error(self):
        for v in ('0.99', '0', 'x', 'nan', 'inf', '-1'):
            os.environ['SWAPLAB_LIMIT_SCALE'] = v
            with self.assertRaisesRegex(intake.GraderError, 'SWAPLAB_LIMIT_SCALE must be a number of at least 1'):
                pipeline.limit_scale()
        os.environ['SWAPLAB_LIMIT_SCALE'] = ' '
        self.assertEqual(pipeline.limit_scale(), 1.0)

    def test_the_build_and_policy_limits_follow(self):
        pipeline.scale_plumbing(1.0)
        self.assertNotIn('SWAPLAB_BUILD_TIMEOUT', os.environ)
        os.environ['SWAPLAB_CPP_TIMEOUT'] = '100'
        pipeline.scale_plumbing(2.0)
        self.assertEqual((os.environ['SWAPLAB_BUILD_TIMEOUT'], os.environ['SWAPLAB_CPP_TIMEOUT']), ('5400', '200'))

    def test_the_plumbing_defaults_are_the_scripts(self):
        for var, default, script in pipeline.PLUMBING_LIMITS:
            with open(os.path.join(ROOT, script)) as f:
                self.assertIn(f'${{{var}:-{default}}}', f.read(), script)


def write_golden():
    """Write tests/unit/data/gradeall/ from a serial run of this code."""
    with tempfile.TemporaryDirectory() as t:
        ga = fake_kit(os.path.join(t, 'kit'))
        subs = submissions(os.path.join(t, 'subs'))
        out = os.path.join(t, 'serial', 'results')
        subprocess.run([sys.executable, ga, '--lab', '01', subs, '--out', out, '--jobs', '1'], check=True)
        for n in SUMMARY:
            with open(os.path.join(DATA, n), 'wb') as f:
                f.write(read(os.path.join(out, n)).replace(out.encode(), b'@OUT@'))
        for who in SUBS:
            for n in ('grade.log', 'job.json'):
                src = os.path.join(out, who, n)
                if os.path.exists(src):
                    shutil.copyfile(src, os.path.join(DATA, 'results', who, n))


if __name__ == '__main__':
    if os.environ.get('SWAPLAB_WRITE_GOLDEN') == '1':
        write_golden()
        sys.exit(0)
    kitrun.main(__name__, 'grade-all')


class KeptFolder(unittest.TestCase):
    def test_a_kept_folder_drops_the_earlier_grades_lock_waits(self):
        # (red team, issue 30, round 2) build-kernel appends to the wait
        # files: an earlier grade's waits in a reused --keep folder would
        # have stretched the new grade's limit
        with tempfile.TemporaryDirectory() as d:
            names = ('kernel-fast.lock-wait', 'kernel-debug.lock-wait.open', 'pageout.console', 'notes.txt')
            for n in names:
                with open(os.path.join(d, n), 'w') as f:
                    f.write('600\n')
            pipeline.prepare_work(d)
            self.assertEqual(sorted(os.listdir(d)), ['notes.txt'])
            self.assertEqual(gradejobs.lock_waited(d), 0.0)
