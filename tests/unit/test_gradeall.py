"""grader/grade-all in parallel (grader/swaplab/gradeall.py): --emit-jobs
writes one command per submission, jobs.txt and a Slurm array script;
--merge writes the summary from the result folders the jobs left, with the
serial run's own code.  A fake kit root stands in: its grader/grade copies
a saved result.json (tests/unit/data/gradeall/results/NAME) and exits with
the code the submission names; its grader/grade-all is the real one with a
fixed clock.  The summary files of a serial run over those submissions are
saved too (tests/unit/data/gradeall/summary.*): the serial run must give
them byte for byte, and so must --merge.  Seconds; no kernel, no QEMU.

If you change the summary on purpose, write the saved files again:
SWAPLAB_WRITE_GOLDEN=1 python3 tests/unit/test_gradeall.py
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(HERE, 'data', 'gradeall')
sys.path.insert(0, HERE)
import kitrun  # noqa: E402

SUMMARY = ('summary.csv', 'summary.json', 'summary.html')
# the submissions: NAME -> the grade's exit code (carol's grade leaves no report)
SUBS = {'alice': 1, 'bob': 1, 'carol': 3}

FAKE_GRADE = r'''#!/usr/bin/env python3
import os, shutil, sys
a = sys.argv[1:]
patch, res = a[a.index('--patch') + 1], a[a.index('--json') + 1]
with open(patch) as f:
    who, rc = f.read().split()
src = os.path.join(%r, 'results', who, 'result.json')
print('fake grade of', who)
if os.path.exists(src):
    shutil.copyfile(src, res)
sys.exit(int(rc))
'''
FAKE_GRADE_ALL = r'''#!/usr/bin/env python3
import os, sys
sys.path.insert(0, %r)
from swaplab import gradeall
gradeall.ROOT = %r
gradeall.time.time = lambda: 1000.0         # seconds: 0.0, every run
sys.exit(gradeall.main(sys.argv[1:]))
'''


def fake_kit(d: str) -> str:
    """A kit root whose grader/grade is the fake; returns its grade-all."""
    os.makedirs(os.path.join(d, 'grader'))
    for name, text in (('grade', FAKE_GRADE % DATA),
                       ('grade-all', FAKE_GRADE_ALL % (os.path.join(ROOT, 'grader'), d))):
        p = os.path.join(d, 'grader', name)
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


def write_golden():
    """Write tests/unit/data/gradeall/ from a serial run of this code."""
    with tempfile.TemporaryDirectory() as t:
        ga = fake_kit(os.path.join(t, 'kit'))
        subs = submissions(os.path.join(t, 'subs'))
        out = os.path.join(t, 'serial', 'results')
        subprocess.run([sys.executable, ga, '--lab', '01', subs, '--out', out], check=True)
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
