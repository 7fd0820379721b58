"""Host-only tests of what the grader does before and around a build: the
intake bounds on a submission (grader/swaplab/intake.py: patch size,
binary hunks, changed files' size and binary content, scripts/hostlimit)
on a toy git repository, and the stop of every process of a grade
(grader/swaplab/procs.py) on a tree of processes that leaves its group,
its session and its parent.  Seconds; no kernel, no QEMU.
"""
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, 'grader'))
sys.path.insert(0, HERE)

from swaplab import intake, memcap, procs  # noqa: E402
import kitrun  # noqa: E402


class Intake(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.repo = os.path.join(self.tmp.name, 'repo')
        os.makedirs(os.path.join(self.repo, 'mm'))
        with open(os.path.join(self.repo, 'mm', 'f.c'), 'w') as f:
            f.write(''.join(f'int line{i};\n' for i in range(50)))
        self.env = dict(os.environ, GIT_AUTHOR_NAME='t', GIT_AUTHOR_EMAIL='t@t', GIT_COMMITTER_NAME='t',
                        GIT_COMMITTER_EMAIL='t@t', GIT_INDEX_FILE=os.path.join(self.tmp.name, 'index'))
        for c in (['init', '-q'], ['add', 'mm/f.c'], ['commit', '-qm', 'start']):
            subprocess.run(['git', '-C', self.repo, *c], check=True, env=self.env)
        self.start = self.git('rev-parse', 'HEAD')

    def tearDown(self):
        self.tmp.cleanup()

    def git(self, *args, input=None):
        return subprocess.run(['git', '-C', self.repo, *args], check=True, capture_output=True, env=self.env,
                              input=input).stdout.decode().strip()

    def patch(self, text) -> str:
        p = os.path.join(self.tmp.name, 'p.patch')
        with open(p, 'wb') as f:
            f.write(text if isinstance(text, bytes) else text.encode())
        return p

    def stage(self, content: bytes) -> None:
        blob = self.git('hash-object', '-w', '--stdin', input=content)
        self.git('update-index', '--cacheinfo', f'100644,{blob},mm/f.c')

    def test_an_honest_patch_passes(self):
        p = self.patch('diff --git a/mm/f.c b/mm/f.c\n--- a/mm/f.c\n+++ b/mm/f.c\n@@ -1,2 +1,2 @@\n'
                       '-int line0;\n+int line0; /* Files and binaries differ */\n int line1;\n')
        self.assertEqual(intake.patch_text(p), [])
        subprocess.run(intake.limited(['git', '-C', self.repo, 'apply', '--cached', p]), check=True, env=self.env)
        self.assertEqual(intake.applied(self.repo, self.env, self.start), [])

    def test_the_patch_size_cap_is_checked_before_reading(self):
        p = self.patch(b'x' * (intake.PATCH_MAX + 1))
        bad = intake.patch_text(p)
        self.assertEqual(len(bad), 1)
        self.assertRegex(bad[0], r'^size cap: the patch is 1(\.0)? MiB, over the 1 MiB cap on a patch file')
        self.assertEqual(intake.patch_text(self.patch(b'x' * intake.PATCH_MAX)), [])

    def test_binary_hunks_are_named_by_line(self):
        for line in ('GIT binary patch', 'Binary files a/mm/f.c and b/mm/f.c differ',
                     'Files a/mm/f.c and b/mm/f.c differ', 'GIT binary patch\r'):
            bad = intake.patch_text(self.patch(f'note\ndiff --git a/mm/f.c b/mm/f.c\n{line}\nliteral 0\n'))
            self.assertEqual(len(bad), 1, line)
            self.assertIn("binary patch refused: line 3 is '", bad[0])
        # the same words as a context or added line are text
        self.assertEqual(intake.patch_text(self.patch('+GIT binary patch\n Binary files a and b differ\n')), [])

    def test_a_changed_file_over_the_cap(self):
        self.stage(b'/* x */\n' * (intake.FILE_MAX // 8 + 1))
        bad = intake.applied(self.repo, self.env, self.start)
        self.assertEqual(len(bad), 1)
        self.assertRegex(bad[0], r'^size cap: mm/f.c is 2(\.0)? MiB after the change, over the 2 MiB cap')

    def test_a_binary_file_after_the_change(self):
        self.stage(b'int a;\n/* \0 */\nasm(".incbin \\"/etc/shadow\\"");\n')
        bad = intake.applied(self.repo, self.env, self.start)
        self.assertEqual(len(bad), 1)
        self.assertIn('binary file refused: mm/f.c is binary after the change', bad[0])

    def test_hostlimit_bounds_memory_and_names_it(self):
        p = subprocess.run([intake.HOSTLIMIT, sys.executable, '-c', 'b = bytearray(1 << 30)'],
                           capture_output=True, text=True)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('MemoryError', p.stderr)
        self.assertRegex(intake.describe(), r'^address space \d+ MiB, file size \d+ MiB, CPU \d+ s$')
        self.assertIn('intake limits', intake.limit_note(128, 'fatal: Out of memory, malloc failed'))
        self.assertEqual(intake.limit_note(1, 'error: patch failed: mm/f.c:1'), '')

    def test_sizes_read_as_people_write_them(self):
        self.assertEqual([intake.size(n) for n in (12, 3 << 10, 1 << 20, 3 << 19, 5 << 30)],
                         ['12 bytes', '3 KiB', '1 MiB', '1.5 MiB', '5 GiB'])


class Processes(unittest.TestCase):
    """A grade's descendants, whatever groups, sessions and parents they
    end up with, are found and stopped (in a child that is the subreaper,
    as grader/grade is)."""

    CHILD = r'''
import os, subprocess, sys, time
sys.path.insert(0, sys.argv[1])
from swaplab import procs
assert procs.set_subreaper()
# a process in a session of its own whose child outlives it (reparented to
# us), and one that ignores SIGTERM in a group of its own
subprocess.Popen(['setsid', 'sh', '-c', 'sleep 300 & exit 0'])
subprocess.Popen(['sh', '-c', 'trap "" TERM; while :; do sleep 1; done'], start_new_session=True)
time.sleep(0.5)
print(' '.join(str(p) for p in sorted(procs.live())), flush=True)
left = procs.stop_descendants(grace=0.5)
print(' '.join(str(p) for p in left) or 'none', flush=True)
'''

    def test_every_descendant_is_stopped_even_orphans_and_term_ignorers(self):
        p = subprocess.run([sys.executable, '-c', self.CHILD, os.path.join(ROOT, 'grader')],
                           capture_output=True, text=True, timeout=60)
        out = p.stdout.split('\n')
        self.assertEqual(p.returncode, 0, p.stderr)
        seen = [int(x) for x in out[0].split()]
        self.assertGreaterEqual(len(seen), 3, out)       # the orphaned sleep, the sh loop and its sleep
        self.assertEqual(out[1], 'none')
        for pid in seen:
            self.assertFalse(os.path.exists(f'/proc/{pid}') and
                             procs._stat(pid) is not None and procs._stat(pid)[1] not in 'ZX', pid)

    GRADE_ALL = r'''
import os, sys
sys.path.insert(0, sys.argv[1])
from swaplab import gradejobs, procs
gradejobs.ROOT = sys.argv[2]         # its grader/grade: a fake that leaves an orphan behind
assert procs.set_subreaper()
row = gradejobs.grade_one(sys.argv[3], '01', os.path.join(sys.argv[2], 'out', 'alice'), 1, [])
print(row['status'])
print(' '.join(str(p) for p in sorted(procs.live())) or 'none')
'''

    def test_grade_all_stops_the_whole_tree_of_a_submission_at_its_limit(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, 'grader'))
            fake = os.path.join(d, 'grader', 'grade')
            with open(fake, 'w') as f:
                f.write('#!/bin/sh\n# a build in a session of its own, as timeout and bwrap make them\n'
                        f'setsid sleep 300 & echo $! >{d}/orphan\n'
                        'trap "exit 143" TERM\nwhile :; do sleep 0.1; done\n')
            os.chmod(fake, 0o755)
            sub = os.path.join(d, 'alice.patch')
            open(sub, 'w').close()
            p = subprocess.run([sys.executable, '-c', self.GRADE_ALL, os.path.join(ROOT, 'grader'), d, sub],
                               capture_output=True, text=True, timeout=60)
            out = p.stdout.split('\n')
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(out[:2], ['timeout after 1s', 'none'])
            with open(os.path.join(d, 'orphan')) as f:
                orphan = int(f.read())
            st = procs._stat(orphan)
            self.assertTrue(st is None or st[1] in 'ZX', f'the orphan {orphan} still runs')

    def test_a_reused_pid_is_not_signalled(self):
        # a start time that is not the process's: no signal goes out
        p = subprocess.Popen(['sleep', '30'])
        try:
            ppid, state, start = procs._stat(p.pid)
            procs._signal(p.pid, start + 1, signal.SIGKILL)
            time.sleep(0.2)
            self.assertIsNone(p.poll())
            procs._signal(p.pid, start, signal.SIGKILL)
            self.assertEqual(p.wait(5), -signal.SIGKILL)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()


class Memory(unittest.TestCase):
    """memcap: where a cgroup v2 hierarchy is, which cgroup is the grade's;
    and the job cap of scripts/lib.sh elsewhere."""

    def files(self, d, **kw):
        for k, v in kw.items():
            with open(os.path.join(d, k), 'w') as f:
                f.write(v)

    def test_cgroup_v2_found_from_mountinfo_and_proc_cgroup(self):
        with tempfile.TemporaryDirectory() as d:
            v1 = '31 23 0:28 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n'
            v2 = '30 23 0:27 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n'
            self.files(d, v1=v1, v2=v1 + v2, pc='0::/user.slice/user-1000.slice/session-2.scope\n',
                       pcv1='4:memory:/x\n0::/\n', meminfo='MemTotal:       24683784 kB\n')
            self.assertIsNone(memcap.cgroup2(os.path.join(d, 'v1'), os.path.join(d, 'pc')))
            self.assertEqual(memcap.cgroup2(os.path.join(d, 'v2'), os.path.join(d, 'pc')),
                             '/sys/fs/cgroup/user.slice/user-1000.slice/session-2.scope')
            self.assertEqual(memcap.cgroup2(os.path.join(d, 'v2'), os.path.join(d, 'pcv1')), '/sys/fs/cgroup/')
            self.assertEqual(memcap.mem_total(os.path.join(d, 'meminfo')), 24683784 * 1024)

    def test_own_cgroup_turns_memory_on_and_sets_the_ceiling(self):
        with tempfile.TemporaryDirectory() as d:
            self.files(d, **{'cgroup.controllers': 'cpu io memory pids', 'cgroup.subtree_control': ''})
            ended = subprocess.Popen(['true'])
            ended.wait()
            os.mkdir(os.path.join(d, f'swaplab-grade-{ended.pid}'))     # an earlier grade's, empty: removed
            # a grade running beside this one (grade-all --jobs), empty for
            # a moment before it joins it: kept
            os.mkdir(os.path.join(d, f'swaplab-grade-{os.getppid()}'))
            mine = memcap._own_cgroup(d, 123456789)
            self.assertEqual(mine, os.path.join(d, f'swaplab-grade-{os.getpid()}'))
            self.assertFalse(os.path.exists(os.path.join(d, f'swaplab-grade-{ended.pid}')))
            self.assertTrue(os.path.exists(os.path.join(d, f'swaplab-grade-{os.getppid()}')))
            with open(os.path.join(mine, 'memory.max')) as f:
                self.assertEqual(f.read(), '123456789')
            with open(os.path.join(d, 'cgroup.subtree_control')) as f:
                self.assertEqual(f.read(), '+memory')
        with tempfile.TemporaryDirectory() as d:        # no memory controller: no cgroup
            self.files(d, **{'cgroup.controllers': 'cpu pids', 'cgroup.subtree_control': ''})
            self.assertIsNone(memcap._own_cgroup(d, 1 << 30))

    def test_this_host_falls_back_to_the_job_cap(self):
        cg = memcap.cgroup2()
        if cg is not None and memcap.v2_memory(cg):
            self.skipTest('this host has a cgroup v2 memory controller')
        how, mine = memcap.ceiling(['unused'])
        self.assertIsNone(mine)
        self.assertRegex(how, r'^memory: no cgroup v2 scope here; -j\d+ build jobs x 1 GiB of address space')

    def test_njobs_keeps_jobs_times_address_space_within_the_share(self):
        lib = os.path.join(ROOT, 'scripts', 'lib.sh')

        def jobs(**env):
            return int(subprocess.run(['bash', '-c', '. "$1"; njobs', 'sh', lib], capture_output=True, text=True,
                                      env=dict(os.environ, **env), check=True).stdout)
        ram = memcap.mem_total()
        # half the RAM, less 2 GiB for the policy beside the compile
        self.assertEqual(jobs(SWAPLAB_JOBS='1000'), max(1, (ram // 2 - 2 * (1 << 30)) // (1 << 30)))
        self.assertEqual(jobs(SWAPLAB_JOBS='1000', SWAPLAB_SANDBOX_AS=str(ram)), 1)     # never below one
        self.assertEqual(jobs(SWAPLAB_JOBS='1'), 1)
        self.assertEqual(jobs(SWAPLAB_JOBS='1000', SWAPLAB_SANDBOX_AS='0'), 1000)      # no cap, no limit


if __name__ == '__main__':
    kitrun.main(__name__, 'intake')
