"""vm/run's exit codes by name (vm/exit-codes): its three readers, bash
(scripts/lib.sh: exit_codes, read_exit_codes), Tcl (vm/expect/lib.exp:
swaplab_exit) and Python (grader/swaplab/exitcodes.py), read the same
numbers from it, the numbers vm/run has always documented; and each
stops, naming the line, on a malformed or repeated one.  Host-only,
about a second.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, 'grader'))
sys.path.insert(0, HERE)

from swaplab import exitcodes  # noqa: E402
import kitrun  # noqa: E402

# vm/run's documented contract ("Exit: 0 pass, 1 test failure, 2 kernel
# error, 3 timeout, 4 setup failure"), and run-test.exp's 5 to vm/run
DOCUMENTED = {'RUN_PASS': 0, 'RUN_TEST_FAILED': 1, 'RUN_KERNEL_ERROR': 2, 'RUN_TIMEOUT': 3,
              'RUN_SETUP_FAILED': 4, 'RUN_QEMU_CRASHED': 5}
BAD = ('RUN_X 3 4', 'RUN_X 256', 'PATH 3', 'RUN_X 03', 'RUN_X', 'RUN_x 1', 'RUN_Y -1', 'RUN_PASS 0\nRUN_PASS 1')


def bash_codes(path=None):
    """(exit status, {NAME: NUMBER}, stderr) of scripts/lib.sh's
    read_exit_codes PATH, or of exit_codes (the kit's list) without one."""
    call = 'read_exit_codes "$2"' if path else 'exit_codes'
    p = subprocess.run(['bash', '-c', f'. "$1/scripts/lib.sh"; {call} && for v in ${{!RUN_@}}; do '
                        'echo "$v ${!v}"; done', '-', ROOT, path or ''], capture_output=True, text=True, timeout=30)
    return p.returncode, dict((l.split()[0], int(l.split()[1])) for l in p.stdout.splitlines()), p.stderr


def tcl_codes(lib):
    """(exit status, {NAME: NUMBER}, stderr) of an expect script sourcing LIB."""
    with tempfile.NamedTemporaryFile('w', suffix='.exp', delete=False) as f:
        f.write(f'source {{{lib}}}\nforeach k [lsort [array names swaplab_exit]] {{ puts "$k $swaplab_exit($k)" }}\n')
    try:
        p = subprocess.run(['expect', '-f', f.name], capture_output=True, text=True, timeout=30)
    finally:
        os.unlink(f.name)
    return p.returncode, dict((l.split()[0], int(l.split()[1])) for l in p.stdout.splitlines()), p.stderr


class Codes(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.d)

    def codes_file(self, text):
        p = os.path.join(self.d, 'exit-codes')
        with open(p, 'w') as f:
            f.write(text + '\n')
        return p

    def test_python_reads_the_documented_numbers(self):
        self.assertEqual(exitcodes.CODES, DOCUMENTED)
        self.assertEqual((exitcodes.RUN_PASS, exitcodes.RUN_TEST_FAILED, exitcodes.RUN_KERNEL_ERROR,
                          exitcodes.RUN_TIMEOUT, exitcodes.RUN_SETUP_FAILED, exitcodes.RUN_QEMU_CRASHED),
                         (0, 1, 2, 3, 4, 5))

    def test_bash_reads_the_same(self):
        for path in (None, os.path.join(ROOT, 'vm', 'exit-codes')):
            rc, codes, err = bash_codes(path)
            self.assertEqual(rc, 0, err)
            self.assertEqual(codes, DOCUMENTED)

    @unittest.skipUnless(shutil.which('expect'), 'expect is not installed')
    def test_tcl_reads_the_same(self):
        rc, codes, err = tcl_codes(os.path.join(ROOT, 'vm', 'expect', 'lib.exp'))
        self.assertEqual(rc, 0, err)
        self.assertEqual(codes, DOCUMENTED)

    def test_comments_and_blank_lines(self):
        p = self.codes_file('# the list\n\nRUN_A 7   # seven # and more\n   \nRUN_B 255')
        self.assertEqual(exitcodes.load(p), {'RUN_A': 7, 'RUN_B': 255})
        self.assertEqual(bash_codes(p)[:2], (0, {'RUN_A': 7, 'RUN_B': 255}))

    def test_python_refuses_a_bad_line(self):
        for text in BAD:
            with self.assertRaisesRegex(exitcodes.ExitCodesError, r'exit-codes:\d+: want "RUN_NAME NUMBER'):
                exitcodes.load(self.codes_file(text))

    def test_bash_refuses_a_bad_line(self):
        for text in BAD:
            rc, _, err = bash_codes(self.codes_file(text))
            self.assertEqual(rc, 1, text)
            self.assertIn('exit-codes:', err, text)
        rc, _, err = bash_codes(os.path.join(self.d, 'none'))
        self.assertEqual(rc, 1)
        self.assertIn('no exit codes at', err)

    @unittest.skipUnless(shutil.which('expect'), 'expect is not installed')
    def test_tcl_refuses_a_bad_line(self):
        # lib.exp reads ../exit-codes and ../kernel-errors beside itself: a copy
        os.makedirs(os.path.join(self.d, 'vm', 'expect'))
        lib = os.path.join(self.d, 'vm', 'expect', 'lib.exp')
        shutil.copy(os.path.join(ROOT, 'vm', 'expect', 'lib.exp'), lib)
        shutil.copy(os.path.join(ROOT, 'vm', 'kernel-errors'), os.path.join(self.d, 'vm'))
        for text in BAD:
            with open(os.path.join(self.d, 'vm', 'exit-codes'), 'w') as f:
                f.write(text + '\n')
            rc, _, err = tcl_codes(lib)
            self.assertEqual(rc, 1, text)
            self.assertIn('vm/exit-codes:', err, text)

    def test_the_runner_uses_the_names(self):
        """No bare exit number left in vm/run's and the expect scripts' own
        exits (vm/run's signal statuses, 130 and 143, are not its codes)."""
        for rel in ('vm/expect/lib.exp', 'vm/expect/run-test.exp', 'vm/expect/scan-log.exp'):
            with open(os.path.join(ROOT, rel)) as f:
                bare = [l.strip() for l in f if 'exit ' in l and not l.lstrip().startswith('#')
                        and any(f'exit {n}' in l for n in range(6))]
            self.assertEqual(bare, [], rel)


if __name__ == '__main__':
    kitrun.main(__name__, 'exit codes')
