"""A hanging kernel is stopped early (issue 30):
  - each check of a grouped boot has its own time limit, and the known
    steps (swapon, swapoff, a refault pass) theirs: vm/expect/run-test.exp,
    run with a stand-in for QEMU (a shell script that prints what a guest
    would), no kernel;
  - the step limits are measured from consoles (timelimits.step_durations,
    scripts/author/measure-limits);
  - a kernel that hangs in the same function in two checks in a row is not
    booted again for the rest (run.run_group with vm_run replaced by saved
    consoles);
  - the kernel's own hang report names where it is stuck, and the graded
    configs turn the kernel's hang detectors on.
Host-only, about 15 s (the expect runs wait for their limits).
"""
import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CORE = os.path.join(HERE, 'data', 'core')
sys.path.insert(0, os.path.join(ROOT, 'grader'))
sys.path.insert(0, HERE)
import kitrun  # noqa: E402
from swaplab import kernels, logs, pipeline, refdata, report, run, timelimits, verdict  # noqa: E402
from swaplab.checks import Check  # noqa: E402

NONCE = 'ab' * 12
FAKE_QEMU = r'''#!/bin/bash
echo "booting"
echo "SWAPLAB-READY"
read -r n
case "$SCEN" in
step)  echo "SWAPLAB $n CHECK a 1.0"; sleep 1; echo "SWAPLAB $n STEP 2.0 swapoff /dev/pmem0"; sleep 60 ;;
check) echo "SWAPLAB $n CHECK a 1.0"; echo "SWAPLAB $n STEP 2.0 swaptest pageout"; sleep 1
       echo "SWAPLAB $n CHECK b 3.0"; sleep 60 ;;
ok)    echo "SWAPLAB $n CHECK a 1.0"; echo "SWAPLAB $n STEP 2.0 swapoff /dev/pmem0"; sleep 1
       echo "SWAPLAB $n STEP 3.0 swaptest pageout"; sleep 2; echo "SWAPLAB $n CHECK end 5"
       echo "SWAPLAB $n DONE 0" ;;
forge) while true; do echo "SWAPLAB $n CHECK a 1.0"; echo "SWAPLAB $n STEP 1.0 swapoff /x"; sleep 1; done ;;
fast)  echo "SWAPLAB $n CHECK a 1.0"; while true; do echo "SWAPLAB $n STEP 1.0 x"; sleep 0.5; done ;;
other) echo "SWAPLAB $n CHECK a 1.0"; while true; do echo "SWAPLAB $n CHECK zz$RANDOM 1.0"; sleep 0.5; done ;;
two)   echo "SWAPLAB $n CHECK a 1.0"; sleep 1; echo "SWAPLAB $n CHECK b 2.0"; sleep 60 ;;
ahead) echo "SWAPLAB $n CHECK a 1.0"; sleep 1; echo "SWAPLAB $n CHECK c 2.0"; sleep 1; echo "SWAPLAB $n CHECK end 2.5"
       sleep 60 ;;
esac
'''


def expect_run(d, scen, limits, run_timeout, cap=None):
    """Run vm/expect/run-test.exp on the stand-in; (exit, seconds, the
    runner's notes)."""
    fake = os.path.join(d, 'fake.sh')
    with open(fake, 'w') as f:
        f.write(FAKE_QEMU)
    env = dict(os.environ, SCEN=scen, SWAPLAB_NO_SYSRQ='1', SWAPLAB_QUIET='1')
    env.pop('SWAPLAB_LIMITS', None)
    if limits is not None:
        env['SWAPLAB_LIMITS'] = timelimits.limits_file(os.path.join(d, 'limits'), limits, {'swapoff': 2}, cap)
    log = os.path.join(d, scen + '.log')
    t0 = time.time()
    p = subprocess.run(['expect', '-f', os.path.join(ROOT, 'vm', 'expect', 'run-test.exp'), log, '10',
                        str(run_timeout), NONCE, '--', 'bash', fake], env=env, timeout=60,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(log, errors='replace') as f:
        notes = [l.strip() for l in f if l.startswith('[swaplab]')]
    return p.returncode, time.time() - t0, notes


@unittest.skipUnless(shutil.which('expect'), 'expect is not installed')
class RunnerLimits(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.d)

    def test_a_step_stops_at_its_own_limit(self):
        rc, secs, notes = expect_run(self.d, 'step', [('a', 30)], 30)
        self.assertEqual(rc, 3)
        self.assertLess(secs, 8)
        self.assertIn('[swaplab] timeout: step swapoff of check a did not finish (after 2 s)', notes)
        self.assertEqual(timelimits.step_timeout(notes[0][len('[swaplab] '):]), ('swapoff', 2))

    def test_each_check_has_its_own_limit(self):
        # b's 2 s, not a's 30: one check's limit never grows another's
        rc, secs, notes = expect_run(self.d, 'check', [('a', 30), ('b', 2)], 30)
        self.assertEqual(rc, 3)
        self.assertLess(secs, 8)
        self.assertIn('[swaplab] timeout: check b did not finish (after 2 s)', notes)
        self.assertIsNone(timelimits.step_timeout(notes[0][len('[swaplab] '):]))

    def test_an_honest_run_within_its_limits_passes(self):
        rc, _, notes = expect_run(self.d, 'ok', [('a', 5)], 5)
        self.assertEqual((rc, notes), (0, []))

    def test_forged_markers_do_not_extend_the_run(self):
        # a kernel repeating a check's marker: the check's limit runs from
        # its first marker (red team, issue 30: each marker re-armed it, up
        # to the run's cap)
        rc, secs, notes = expect_run(self.d, 'forge', [('a', 3)], 3)
        self.assertEqual(rc, 3)
        self.assertLess(secs, 6)
        self.assertIn('[swaplab] timeout: check a did not finish (after 3 s)', notes)

    def test_markers_of_checks_the_boot_does_not_run_start_nothing(self):
        rc, secs, notes = expect_run(self.d, 'other', [('a', 3)], 3)
        self.assertEqual(rc, 3)
        self.assertLess(secs, 6)
        self.assertIn('[swaplab] timeout: check a did not finish (after 3 s)', notes)

    def test_a_marker_ahead_of_its_turn_starts_nothing(self):
        # (red team, issue 30, round 2) a later check's first marker, or
        # the end marker, printed while a check runs gave that check the
        # later one's time: only the next check in the boot's order (then
        # the end marker) starts a limit
        rc, secs, notes = expect_run(self.d, 'ahead', [('a', 3), ('b', 3), ('c', 9)], 9)
        self.assertEqual(rc, 3)
        self.assertLess(secs, 6)
        self.assertIn('[swaplab] timeout: check a did not finish (after 3 s)', notes)

    def test_the_cap_of_a_later_boot_holds(self):
        # what is left of the group's time (run_group's "cap" line) bounds
        # the boot below the sum of its checks' limits
        rc, secs, notes = expect_run(self.d, 'two', [('a', 3), ('b', 3)], 3, cap=2)
        self.assertEqual(rc, 3)
        self.assertLess(secs, 5)
        self.assertTrue(any("within the run's limit (after 2 s)" in n for n in notes), notes)

    def test_without_limits_the_run_timeout_holds(self):
        # a single test (no limits file): RUN_TIMEOUT for the whole run,
        # markers or none
        rc, secs, notes = expect_run(self.d, 'step', None, 3)
        self.assertEqual(rc, 3)
        self.assertLess(secs, 6)
        # (its marker and the run start fall in the same millisecond or not)
        self.assertTrue(any(n.startswith('[swaplab] timeout: check a did not finish') and n.endswith('(after 3 s)')
                            for n in notes), notes)

    def test_markers_past_the_deadline_do_not_keep_it_going(self):
        # (red team, 2026-12-07: with a wait of at least 1 s re-armed by
        # every marker, a marker each half second kept the boot going for
        # ever): a 3 s check ends at 3 s
        rc, secs, notes = expect_run(self.d, 'fast', [('a', 3)], 3)
        self.assertEqual(rc, 3)
        self.assertLess(secs, 6)
        self.assertIn('[swaplab] timeout: check a did not finish (after 3 s)', notes)


def console(lines, rc=0):
    return logs.parse_console('\n'.join(lines) + '\n', NONCE, rc)


class StepLimits(unittest.TestCase):
    def test_the_kinds(self):
        self.assertEqual(timelimits.step_kind('swapoff /dev/pmem0'), 'swapoff')
        self.assertEqual(timelimits.step_kind('swaptest swapon /dev/pmem1 10'), 'swapon')
        self.assertEqual(timelimits.step_kind('refault pass 1: 20000 pages on 2 threads'), 'refault')
        self.assertIsNone(timelimits.step_kind('swapoff, then fresh swap for the next check'))
        self.assertIsNone(timelimits.step_kind('swaptest pageout -n 4096'))

    def test_durations_run_to_the_next_step_or_marker(self):
        t = f'SWAPLAB {NONCE} '
        con = console([t + 'CHECK a 1.00', t + 'STEP 1.50 swaptest swapon /dev/pmem0 10',
                       t + 'STEP 1.75 refault pass 0: 10 pages on 2 threads', t + 'STEP 2.25 pass 0: results',
                       t + 'STEP 3.00 swapoff /dev/pmem0', t + 'CHECK b 4.50',
                       t + 'STEP 4.60 swapoff /dev/pmem0', t + 'CHECK end 4.70'])
        self.assertEqual(timelimits.step_durations(con), {'swapon': 0.25, 'refault': 0.5, 'swapoff': 1.5})

    def test_a_step_the_boot_ended_in_is_not_measured(self):
        t = f'SWAPLAB {NONCE} '
        con = console([t + 'CHECK a 1.00', t + 'STEP 1.50 swapoff /dev/pmem0', '[swaplab] timeout: x'], rc=3)
        self.assertEqual(timelimits.step_durations(con), {})

    def test_old_step_lines_without_an_uptime(self):
        t = f'SWAPLAB {NONCE} '
        con = console([t + 'CHECK a 1.00', t + 'STEP swapoff /dev/pmem0', t + 'CHECK end 2'])
        self.assertEqual(con.sections()[0].last_step(), 'swapoff /dev/pmem0')
        self.assertEqual(timelimits.step_durations(con), {})

    def test_the_limits_file(self):
        with tempfile.TemporaryDirectory() as d:
            p = timelimits.limits_file(os.path.join(d, 'l'), [('pageout', 60)], {'swapoff': 12})
            with open(p) as f:
                self.assertEqual(f.read(), 'check\tpageout\t60\nstep\tswapoff\t12\tswapoff /*\n')

    def test_every_known_step_has_a_measured_limit(self):
        """grader/limits.tsv has a row per known step, from measure-limits."""
        have = timelimits.step_limits()
        self.assertEqual(sorted(have), sorted(k for k, _ in timelimits.STEP_KINDS),
                         'run scripts/author/measure-limits on reference grades kept with --keep')
        for k, v in have.items():
            self.assertGreaterEqual(v, 10, k)

    def test_measure_limits_reads_a_kept_grade(self):
        with tempfile.TemporaryDirectory() as d:
            keep = os.path.join(d, 'grade-06')
            os.makedirs(keep)
            t = f'SWAPLAB {NONCE} '
            with open(os.path.join(keep, 'group-pmem-512M-x-1.console'), 'w') as f:
                f.write('\n'.join([t + 'CHECK a 1.00', t + 'STEP 1.50 swapoff /dev/pmem0',
                                   t + 'CHECK end 4.70']) + '\n')
            with open(os.path.join(keep, 'group-pmem-512M-x-1.run'), 'w') as f:
                f.write(f'nonce {NONCE}\nrc 0\n')
            with open(keep + '.json', 'w') as f:
                json.dump({'checks': [{'id': 'pageout', 'verdict': 'PASS', 'seconds': 3.0}]}, f)
            # honest grades of lab answers as grade-all grades them, and
            # two that do not count (a stage, a failing patch)
            for name, sub, score, secs in (('ans', 'sha256:ab', 100, 250.0), ('ans2', 'sha256:cd', 100, 120.0),
                                           ('stage', 'stage:01', 100, 900.0), ('bad', 'sha256:ef', 40, 999.0)):
                with open(os.path.join(d, name + '.json'), 'w') as f:
                    json.dump({'lab': '01', 'score': score, 'seconds': secs, 'context': {'submission': sub},
                               'checks': [{'id': 'latency', 'verdict': 'PASS', 'seconds': 50.0}]}, f)
            out = os.path.join(d, 'limits.tsv')
            subprocess.run([os.path.join(ROOT, 'scripts', 'author', 'measure-limits'), '--out', out, keep + '.json',
                            *(os.path.join(d, n + '.json') for n in ('ans', 'ans2', 'stage', 'bad'))],
                           check=True, stdout=subprocess.DEVNULL)
            with open(out) as f:
                rows = {l.split('\t')[0]: l.rstrip('\n').split('\t')[1:] for l in f if not l.startswith('#')}
            self.assertEqual(rows['step:swapoff'], ['16', '3.2'])     # 5 x 3.2 s
            self.assertEqual(rows['pageout'], ['60', '3.0'])          # the floor
            self.assertEqual(rows['grade:01'], ['750', '250.0'])      # 3 x the longest honest grade
            self.assertNotIn('grade:02', rows)
            self.assertEqual((timelimits.grade_limit('01', out), timelimits.grade_limit('02', out)), (750, 1800))
            self.assertNotIn('grade:01', timelimits.limits(out))


# ---------------------------------------------------------------- hangs
def tail(name):
    """The runner's timeout note and the SysRq stacks after it, from a
    saved console."""
    with open(os.path.join(CORE, name + '.console'), errors='replace', newline='') as f:
        lines = f.read().split('\n')
    i = next(i for i, l in enumerate(lines) if l.startswith('[swaplab] timeout: '))
    return lines[i:]


class SecondHang(unittest.TestCase):
    """run.run_group, each boot's console a saved hang: the first check of
    each boot hangs in what SCRIPT says."""

    def setUp(self):
        self.d = tempfile.mkdtemp()
        self.img = os.path.join(self.d, 'img')
        os.makedirs(self.img)
        shutil.copy(os.path.join(CORE, 'hung-swapoff.System.map'), os.path.join(self.img, 'System.map'))
        self.boots = []
        self.real = run.vm_run, run.note
        run.note = lambda *_: None

    def tearDown(self):
        run.vm_run, run.note = self.real
        shutil.rmtree(self.d)

    def fake(self, hangs_in):
        def vm_run(img, test, log, nonce, **kw):
            with open(test) as f:
                first = re.findall(r'CHECK (\S+) \$\(', f.read())[0]
            self.boots.append(first)
            src = hangs_in[len(self.boots) - 1]
            with open(log, 'w') as f:
                f.write('\n'.join([f'SWAPLAB {nonce} CHECK {first} 1.0', f'SWAPLAB {nonce} STEP 1.5 script passes.sh',
                                   f'SWAPLAB {nonce} STEP 2.0 swapoff /dev/pmem0'] + tail(src)) + '\n')
            return 3
        run.vm_run = vm_run

    def staged(self, trouble):
        """A stand-in vm_run: each boot's first check passes; with more
        checks in the boot, TROUBLE(nonce, ids) gives (lines, rc) for what
        follows it, else the boot ends cleanly."""
        def vm_run(img, test, log, nonce, **kw):
            with open(test) as f:
                ids = [i for i in re.findall(r'CHECK (\S+) \$\(', f.read()) if i != 'end']
            self.boots.append(ids)
            lines = [f'SWAPLAB {nonce} CHECK {ids[0]} 1.0', f'SWAPLAB {nonce} STEP 1.1 script passes.sh',
                     f'SWAPLAB {nonce} RESULT {ids[0]} PASS ok']
            more, rc = trouble(nonce, ids) if len(ids) > 1 else \
                ([f'SWAPLAB {nonce} CHECK end 3.0', f'SWAPLAB {nonce} DONE 0'], 0)
            with open(log, 'w') as f:
                f.write('\n'.join(lines + more) + '\n')
            return rc
        run.vm_run = vm_run

    @staticmethod
    def next_swapon(nonce, ids):
        """The console up to the next check's swapon, after a good swapoff."""
        return [f'SWAPLAB {nonce} STEP 2.0 {run.TRANSITION}', f'SWAPLAB {nonce} STEP 2.1 swapoff /dev/pmem0',
                f'SWAPLAB {nonce} STEP 2.2 done: swapoff /dev/pmem0', f'SWAPLAB {nonce} CHECK {ids[1]} 2.3',
                f'SWAPLAB {nonce} STEP 2.4 swaptest swapon /dev/pmem0 10']

    def entries(self, *ids):
        return [run.Entry(i, Check('-', i, 'guest', ['fast', 'pmem', 'passes.sh']), 'pmem', 'passes.sh', [])
                for i in ids]

    def test_two_hangs_in_one_function_end_the_kernel(self):
        self.fake(['hung-swapoff'] * 4)
        es = self.entries('a', 'b', 'c', 'd')
        hangs = run.Hangs()
        got = run.run_group(self.d, self.img, 'pmem', '512M', {e.id: 20 for e in es}, es, hangs=hangs)
        self.assertEqual(self.boots, ['a', 'b'])
        self.assertEqual([got[i].verdict for i in 'abcd'], ['TIMEOUT', 'TIMEOUT', 'ERROR', 'ERROR'])
        self.assertEqual(got['c'].reason, 'not run: the kernel hangs in try_to_unuse (see a)')
        # the same kernel's next group is not booted at all
        more = self.entries('e')
        got = run.run_group(self.d, self.img, 'pmem', '128M', {'e': 20}, more, hangs=hangs)
        self.assertEqual(self.boots, ['a', 'b'])
        self.assertEqual(got['e'].reason, 'not run: the kernel hangs in try_to_unuse (see a)')

    def test_the_labs_own_checks_still_run_alone(self):
        # what the lab is graded on is still graded: d, the lab's own check,
        # boots alone (and hangs once more here); c is not run
        self.fake(['hung-swapoff'] * 3)
        es = self.entries('a', 'b', 'c', 'd')
        got = run.run_group(self.d, self.img, 'pmem', '512M', {e.id: 20 for e in es}, es, own={'d'})
        self.assertEqual(self.boots, ['a', 'b', 'd'])
        self.assertEqual([got[i].verdict for i in 'abcd'], ['TIMEOUT', 'TIMEOUT', 'ERROR', 'TIMEOUT'])
        self.assertEqual(got['c'].reason, 'not run: the kernel hangs in try_to_unuse (see a)')

    def test_hangs_in_different_functions_go_on(self):
        self.fake(['hung-swapoff', 'stuck', 'hung-swapoff'])
        es = self.entries('a', 'b', 'c')
        got = run.run_group(self.d, self.img, 'pmem', '512M', {e.id: 20 for e in es}, es)
        self.assertEqual(self.boots, ['a', 'b', 'c'])
        self.assertEqual([got[i].verdict for i in 'abc'], ['TIMEOUT'] * 3)

    def test_the_rule(self):
        h = run.Hangs()
        h.see('a', 'f')
        h.see('b', None)            # a check that did not hang breaks the row
        h.see('c', 'f')
        self.assertIsNone(h.stop)
        h.see('d', 'x')             # (red team: frames further out, shared
        h.see('e', 'f')             # by unrelated stacks, do not count)
        self.assertIsNone(h.stop)
        h.see('f', 'f')
        self.assertEqual(h.stop, ('f', 'e'))
        h.see('g', 'f')             # later hangs keep the first pair's name
        self.assertEqual(h.stop, ('f', 'e'))

    def test_a_hang_between_two_checks_isolates_the_rest(self):
        """(red team, 2026-12-07) a swapoff that hangs between two checks
        is the grader's plumbing: charged to the check before it, as
        always, but it neither counts as that check's hang nor ends the
        kernel: the rest boot one check at a time, with no swapoff between
        checks, and pass if their own work passes."""
        def trouble(nonce, ids):
            if self.setup:          # the next check's swapon hangs
                return self.next_swapon(nonce, ids) + tail('hung-swapoff'), 3
            # the swapoff before the next check hangs
            return [f'SWAPLAB {nonce} STEP 2.0 {run.TRANSITION}',
                    f'SWAPLAB {nonce} STEP 2.1 swapoff /dev/pmem0'] + tail('hung-swapoff'), 3
        self.staged(trouble)
        self.setup = False
        es = self.entries('a', 'b', 'c', 'd')
        got = run.run_group(self.d, self.img, 'pmem', '512M', {e.id: 20 for e in es}, es)
        self.assertEqual(self.boots, [['a', 'b', 'c', 'd'], ['b'], ['c'], ['d']])
        self.assertEqual([got[i].verdict for i in 'abcd'], ['TIMEOUT', 'PASS', 'PASS', 'PASS'])
        self.assertIn("during 'swapoff /dev/pmem0'", got['a'].reason)
        # the next check's swap set-up hangs, before its script began: that
        # check is run again, alone, on the swap its own boot sets up
        self.boots.clear()
        self.setup = True
        got = run.run_group(self.d, self.img, 'pmem', '512M', {e.id: 20 for e in es}, es)
        self.assertEqual(self.boots, [['a', 'b', 'c', 'd'], ['b'], ['c'], ['d']])
        self.assertEqual([got[i].verdict for i in 'abcd'], ['PASS'] * 4)

    def test_a_boot_that_used_up_its_time_is_not_repeated(self):
        """(red team, 2026-12-07) a kernel repeating one check's marker
        keeps each boot to its cap, the sum of its checks' limits: the
        checks left after such a boot are not booted again."""
        def vm_run(img, test, log, nonce, **kw):
            with open(test) as f:
                ids = [i for i in re.findall(r'CHECK (\S+) \$\(', f.read()) if i != 'end']
            self.boots.append(ids)
            with open(log, 'w') as f:
                f.write('\n'.join([f'SWAPLAB {nonce} CHECK {ids[0]} 1.0', f'SWAPLAB {nonce} STEP 1.1 script passes.sh',
                                   "[swaplab] timeout: check a did not finish within the run's limit (after 100 s)"])
                        + '\n')
            return 3
        run.vm_run = vm_run
        es = self.entries('a', 'b', 'c')
        got = run.run_group(self.d, self.img, 'pmem', '512M', {e.id: 20 for e in es}, es)
        self.assertEqual(self.boots, [['a', 'b', 'c']])
        self.assertEqual([got[i].verdict for i in 'abc'], ['TIMEOUT'] * 3)
        self.assertIn("the boot's time ran out", got['a'].reason)
        self.assertEqual(got['b'].reason, 'not run: the boot before used up its time (100 s)')


    def test_a_kernel_error_in_the_set_up_is_the_checks(self):
        """(red team, issue 30) only a hang in the swap set-up before a
        check's script is forgiven (the check runs again alone); a kernel
        error there, such as a lockdep report in the swapon after a
        swapoff, is the kernel's bug and stays the check's verdict."""
        self.staged(lambda nonce, ids: (self.next_swapon(nonce, ids) + [
            '[   41.2] WARNING: possible circular locking dependency detected',
            '[swaplab] kernel error on the console: WARNING: possible circular locking'], 2))
        es = self.entries('a', 'b', 'c')
        got = run.run_group(self.d, self.img, 'pmem', '512M', {e.id: 20 for e in es}, es)
        self.assertEqual(self.boots, [['a', 'b', 'c'], ['c']])
        self.assertEqual([got[i].verdict for i in 'abc'], ['PASS', 'ERROR', 'PASS'])
        self.assertIn('circular locking dependency', got['b'].reason)

    def test_the_boots_of_a_group_share_one_time(self):
        """(red team, issue 30) a kernel that ends each boot with a kernel
        error just before its cap had the checks left booted with the whole
        time again (the sum of their limits grew quadratically): all the
        boots share one time, the sum of the limits plus the longest,
        counted from each boot's first check, and each boot's cap is what
        is left of it."""
        caps = []

        def vm_run(img, test, log, nonce, **kw):
            with open(test) as f:
                ids = [i for i in re.findall(r'CHECK (\S+) \$\(', f.read()) if i != 'end']
            self.boots.append(ids)
            with open(kw['limits']) as f:
                caps.append([l.split('\t')[1].strip() for l in f if l.startswith('cap\t')])
            # (round 2: the time before the first marker, the boot's, is
            # counted too: no marker is shown at all here)
            time.sleep(1.6)
            with open(log, 'w') as f:
                f.write('\n'.join([f'SWAPLAB {nonce} CHECK {ids[0]} 1.0', f'SWAPLAB {nonce} STEP 1.1 script passes.sh',
                                    '[    9.0] WARNING: CPU: 0 PID: 1 at mm/swapfile.c:1 x',
                                    '[swaplab] kernel error on the console: WARNING: CPU: 0']) + '\n')
            return 2
        run.vm_run = vm_run
        es = self.entries('a', 'b', 'c', 'd')
        allowance = timelimits.BOOT_ALLOWANCE
        timelimits.BOOT_ALLOWANCE = 0
        try:
            got = run.run_group(self.d, self.img, 'pmem', '512M', {e.id: 1 for e in es}, es)
        finally:
            timelimits.BOOT_ALLOWANCE = allowance
        # 4 + 1 s in all (no boot allowance here): three boots of 1.6 s,
        # counted from their start, leave under a second
        self.assertEqual(self.boots, [['a', 'b', 'c', 'd'], ['b', 'c', 'd'], ['c', 'd']])
        self.assertEqual(caps[:2], [['5'], ['3']])
        self.assertEqual([got[i].verdict for i in 'abcd'], ['ERROR'] * 3 + ['TIMEOUT'])
        self.assertEqual(got['d'].reason, "not run: the boots before used up the checks' time")

    def test_markers_out_of_order_fail_the_checks_they_touch(self):
        """(red team, issue 30, round 2) printing the next check's marker,
        then the running one's again, stretched a check past its limit and
        kept its PASS (the last section of an id won)."""
        self.assertEqual(run.out_of_order(['a', 'b', 'c'], ['a', 'b', 'c']), set())
        self.assertEqual(run.out_of_order(['a', 'b'], ['a', 'b', 'c']), set())
        self.assertEqual(run.out_of_order(['a', 'b', 'a'], ['a', 'b', 'c']), {'a', 'b'})
        self.assertEqual(run.out_of_order(['a', 'c'], ['a', 'b', 'c']), {'a', 'c'})
        self.assertEqual(run.out_of_order(['zz', 'a'], ['a', 'b']), {'a'})
        self.assertEqual(run.out_of_order(['a', 'zz'], ['a', 'b']), {'a'})

        def vm_run(img, test, log, nonce, **kw):
            with open(test) as f:
                ids = [i for i in re.findall(r'CHECK (\S+) \$\(', f.read()) if i != 'end']
            self.boots.append(ids)
            t = f'SWAPLAB {nonce} '
            with open(log, 'w') as f:
                f.write('\n'.join([t + 'CHECK a 1.0', t + 'STEP 1.1 script passes.sh', t + 'CHECK b 2.0',
                                    t + 'CHECK a 3.0', t + 'RESULT a PASS ok', t + 'CHECK b 4.0', t + 'RESULT b PASS ok',
                                    t + 'CHECK c 5.0', t + 'RESULT c PASS ok', t + 'CHECK end 6.0', t + 'DONE 0']) + '\n')
            return 0
        run.vm_run = vm_run
        es = self.entries('a', 'b', 'c')
        got = run.run_group(self.d, self.img, 'pmem', '512M', {e.id: 20 for e in es}, es)
        # (c too: every marker after the order broke is the kernel's word)
        self.assertEqual([got[i].verdict for i in 'abc'], ['ERROR'] * 3)
        self.assertIn('out of their order (a, b, c)', got['a'].reason)

    def test_a_check_id_the_boot_does_not_run_is_not_announced(self):
        """(red team, issue 30) the CHECK ids the console names reach the
        terminal: only the boot's own are announced, and no note carries
        an escape sequence."""
        said = []
        run.note = said.append
        evil = '\x1b[1A\x1b[2Kkunit-01\xa0PASS\x1b]52;c;eA==\x07'

        def vm_run(img, test, log, nonce, **kw):
            kw['on_check'](evil)
            kw['on_check']('a')
            with open(log, 'w') as f:
                f.write(f'SWAPLAB {nonce} CHECK a 1.0\nSWAPLAB {nonce} RESULT a PASS ok\n'
                        f'SWAPLAB {nonce} CHECK end 3.0\nSWAPLAB {nonce} DONE 0\n')
            return 0
        run.vm_run = vm_run
        es = self.entries('a')
        run.run_group(self.d, self.img, 'pmem', '512M', {'a': 20}, es)
        self.assertEqual(said, ['a: running (time limit 20 s)'])
        run.note = self.real[1]
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            run.note(evil)
        self.assertNotIn('\x1b', err.getvalue())
        self.assertNotIn('\x07', err.getvalue())

HUNG_TASK = '''[   30.100000] INFO: task swaptest:85 blocked for more than 10 seconds.
[   30.100000]       Not tainted 6.1.192+ #3
[   30.100000] "echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this message.
[   30.100000] task:swaptest        state:D stack:0     pid:85    ppid:84     flags:0x00004000
[   30.100000] Call Trace:
[   30.100000]  <TASK>
[   30.100000]  __schedule+0x2a0/0x8a0
[   30.100000]  schedule+0x5a/0xd0
[   30.100000]  schedule_preempt_disabled+0x11/0x20
[   30.100000]  __mutex_lock.constprop.0+0x3b0/0x6a0
[   30.100000]  enable_swap_slots_cache+0x1e/0x90
[   30.100000]  __do_sys_swapon+0x6a5/0x12a0
[   30.100000]  do_syscall_64+0x3a/0x90
[   30.100000]  entry_SYSCALL_64_after_hwframe+0x63/0xcd
[   30.100000]  </TASK>'''


def decided(text, cid, script, rc=2):
    """decide_guest on a one-check console TEXT that ended with runner
    exit RC: (record, console, section)."""
    con = logs.parse_console(text, NONCE, rc)
    sec = con.sections()[0]
    return verdict.decide_guest(Check('-', cid, 'guest', ['fast', 'pmem', script]), con, sec, 60), con, sec


class HangReports(unittest.TestCase):
    def test_a_rip_in_plumbing_falls_back_to_the_guessed_frames(self):
        # (full tier, 2026-12-07: swapoff looping in try_to_unuse, the NMI
        # in __cond_resched, the fast kernel's frames all guesses: the
        # verdict said the kernel did not answer SysRq)
        lines = ['[   65.0] NMI backtrace for cpu 1',
                 '[   65.0] CPU: 1 PID: 78 Comm: swapoff Not tainted 6.1.192 #7',
                 '[   65.0] RIP: 0010:__cond_resched+0x48/0x60',
                 '[   65.0] Call Trace:', '[   65.0]  <TASK>',
                 '[   65.0]  ? try_to_unuse+0x234/0x800', '[   65.0]  ? __do_sys_swapoff+0x20b/0x900',
                 '[   65.0]  ? do_syscall_64+0x39/0x90', '[   65.0]  </TASK>']
        self.assertEqual(logs.stuck_summary(logs.sysrq_stacks(lines)),
                         'stuck in try_to_unuse < __do_sys_swapoff (swapoff, running)')


    def test_a_hung_task_report_names_where_it_waits(self):
        t = f'SWAPLAB {NONCE} '
        text = '\n'.join([t + 'CHECK swapoff-busy 1.0', t + 'STEP 2.0 swaptest swapon /dev/pmem0 10',
                          HUNG_TASK.split('\n')[0],
                          '[swaplab] kernel error on the console: INFO: task swaptest:85 blocked'] +
                         HUNG_TASK.split('\n')[1:])
        r, con, sec = decided(text, 'swapoff-busy', 'swapoff.sh')
        self.assertEqual(r.verdict, 'ERROR')
        self.assertIn('blocked for more than 10 seconds', r.reason)
        self.assertIn('stuck in enable_swap_slots_cache < __do_sys_swapon (swaptest, blocked)', r.reason)
        t = logs.stuck_task(logs.hang_stacks(con, sec.start))
        self.assertEqual(t.chain(1), ['enable_swap_slots_cache'])

    def test_other_kernel_errors_are_not_hangs(self):
        t = f'SWAPLAB {NONCE} '
        con = logs.parse_console('\n'.join([t + 'CHECK a 1.0', '[    3.0] kernel BUG at mm/swapfile.c:1',
                                            '[swaplab] kernel error on the console: kernel BUG']), NONCE, 2)
        self.assertIsNone(logs.hang_stacks(con, 0))

    def test_a_step_timeout_is_named_in_the_verdict(self):
        t = f'SWAPLAB {NONCE} '
        con = logs.parse_console('\n'.join([t + 'CHECK a 1.0', t + 'STEP 2.0 swapoff /dev/pmem0',
                                            '[swaplab] timeout: step swapoff of check a did not finish '
                                            '(after 12 s)']), NONCE, 3)
        c = Check('-', 'a', 'guest', ['fast', 'pmem', 'swapoff.sh'])
        r = verdict.decide_guest(c, con, con.sections()[0], 60)
        self.assertEqual(r.verdict, 'TIMEOUT')
        self.assertTrue(r.reason.startswith("timeout: no end after 12 s (a 'swapoff' step's limit), "
                                            "during 'swapoff /dev/pmem0'"), r.reason)


if __name__ == '__main__':
    kitrun.main(__name__, 'hangs')


class Detectors(unittest.TestCase):
    """The graded kernels report a hang themselves within about 20 s, and
    the runner and the grader stop on and name each report."""
    # the first line of each report as 6.1 prints it (kernel/hung_task.c,
    # kernel/watchdog.c, kernel/rcu/tree_stall.h)
    REPORTS = ['[   31.5] INFO: task swapoff:77 blocked for more than 10 seconds.',
               '[   31.5] watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [swaptest:80]',
               '[   31.5] rcu: INFO: rcu_sched self-detected stall on CPU',
               '[   31.5] rcu: INFO: rcu_sched detected stalls on CPUs/tasks:']

    @staticmethod
    def options(name):
        out = {}
        with open(os.path.join(ROOT, 'vm', 'configs', name)) as f:
            for line in f:
                m = re.match(r'(CONFIG_\w+)=(.*)', line.strip())
                if m:
                    out[m.group(1)] = m.group(2)
                m = re.match(r'# (CONFIG_\w+) is not set', line.strip())
                if m:
                    out[m.group(1)] = 'n'
        return out

    def test_the_configs_turn_the_detectors_on(self):
        fast = self.options('fast.config')
        self.assertEqual(fast.get('CONFIG_DETECT_HUNG_TASK'), 'y')
        self.assertEqual(fast.get('CONFIG_SOFTLOCKUP_DETECTOR'), 'y')
        self.assertLessEqual(int(fast['CONFIG_DEFAULT_HUNG_TASK_TIMEOUT']), 10)
        self.assertLessEqual(int(fast['CONFIG_RCU_CPU_STALL_TIMEOUT']), 20)
        # the debug kernel is fast.config plus debug.config: nothing there
        # may switch a detector off or lengthen it
        debug = self.options('debug.config')
        for k in ('CONFIG_DETECT_HUNG_TASK', 'CONFIG_SOFTLOCKUP_DETECTOR',
                  'CONFIG_DEFAULT_HUNG_TASK_TIMEOUT', 'CONFIG_RCU_CPU_STALL_TIMEOUT', 'CONFIG_DEBUG_KERNEL'):
            self.assertIn(debug.get(k, fast[k]), (fast[k],), k)

    def test_each_report_is_a_kernel_error_and_a_hang(self):
        for line in self.REPORTS:
            self.assertTrue(logs.KERNEL_ERROR_RE.search(line), line)
            self.assertTrue(logs.HANG_REPORT.search(line), line)

    def test_no_kernel_error_pattern_spans_lines(self):
        # (red team, issue 30) in Tcl '.' matches a newline, in Python
        # not: "NMI watchdog: .*hard LOCKUP" stopped the runner on two
        # lines the grader then found no error in
        with open(os.path.join(ROOT, 'vm', 'kernel-errors')) as f:
            pats = [l.rstrip('\n') for l in f if l.strip() and not l.startswith('#')]
        self.assertTrue(pats)
        for p in pats:
            self.assertIsNone(re.search(r'(?<!\\)\.[*+?{]', p), p)
        self.assertTrue(logs.KERNEL_ERROR_RE.search('[ 9.0] NMI watchdog: Watchdog detected hard LOCKUP on cpu 1'))

    def test_a_soft_lockup_names_the_looping_function(self):
        t = f'SWAPLAB {NONCE} '
        lines = [t + 'CHECK pageout 1.0', t + 'STEP 2.0 swaptest pageout 64',
                 '[   31.5] watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [swaptest:80]',
                 '[swaplab] kernel error on the console: watchdog: BUG: soft lockup',
                 '[   31.5] CPU: 1 PID: 80 Comm: swaptest Not tainted 6.1.192 #7',
                 '[   31.5] RIP: 0010:swap_cache_get_folio+0x30/0x90',
                 '[   31.5] Call Trace:', '[   31.5]  <TASK>',
                 '[   31.5]  do_swap_page+0x1b0/0x9e0', '[   31.5]  __handle_mm_fault+0x5c1/0xa70',
                 '[   31.5]  handle_mm_fault+0xd9/0x2b0', '[   31.5]  exc_page_fault+0x1d5/0x6f0',
                 '[   31.5]  asm_exc_page_fault+0x22/0x30', '[   31.5]  </TASK>']
        r, _, _ = decided('\n'.join(lines), 'pageout', 'pageout.sh')
        self.assertEqual(r.verdict, 'ERROR')
        self.assertIn('soft lockup', r.reason)
        self.assertIn('stuck in swap_cache_get_folio', r.reason)


class LatencyBoots(unittest.TestCase):
    """(red team, issue 30) the latency check's boots: up to 5 rounds of
    two 600-s boots, with no regard for how the kernel hung in its
    checks.  Now: a kernel that hung twice in one function is not timed;
    a failed run ends the check (its verdict is ERROR whatever follows);
    the graded kernel's runs get 5 times the solution's longest run (at
    least 60 s), the solution running first."""

    def setUp(self):
        self.d = tempfile.mkdtemp()
        self.img = os.path.join(self.d, 'img')
        os.makedirs(self.img)
        self.real = run.measure_run, kernels.build_stage, run.note, refdata.latency_skip_reason
        kernels.build_stage = lambda *a, **k: os.path.join(self.d, 'ref')
        run.note = lambda *_: None
        refdata.latency_skip_reason = lambda lab: None
        self.runs = []
        g = report.Grade(lab='06', started=0, work=self.d)
        self.c = Check('all', 'latency', 'latency', ['2.00', '5'])
        self.gr = pipeline.Grader(g, [self.c])

    def tearDown(self):
        run.measure_run, kernels.build_stage, run.note, refdata.latency_skip_reason = self.real
        shutil.rmtree(self.d)

    def kernels(self):
        k = kernels.Kernels('c', '06', self.d)
        k.img['fast'] = self.img
        return k

    def fake(self, mine_ok, secs=0.3):
        def measure_run(k, test, log, **kw):
            who = 'ref' if k.endswith('ref') else 'mine'
            self.runs.append((who, kw['limit']))
            time.sleep(secs if who == 'ref' else 0)
            ok = who == 'ref' or mine_ok
            return None, ({'fault_median_us': '4.0', 'fault_p99_us': '9.0'} if ok else {})
        run.measure_run = measure_run

    def test_a_kernel_that_hung_twice_is_not_timed(self):
        self.fake(True)
        self.gr.hangs[os.path.realpath(self.img)] = run.Hangs(stop=('try_to_unuse', 'pageout'))
        with contextlib.redirect_stderr(io.StringIO()):
            self.gr.latency(self.c, self.kernels())
        self.assertEqual(self.runs, [])
        r = self.gr.done['latency']
        self.assertEqual((r.verdict, r.reason), ('ERROR', 'not run: the kernel hangs in try_to_unuse (see pageout)'))

    def test_a_failed_run_ends_the_check(self):
        self.fake(False)
        with contextlib.redirect_stderr(io.StringIO()):
            self.gr.latency(self.c, self.kernels())
        # the solution first (600 s), then the graded kernel under 5 x its time, floor 60 s
        self.assertEqual(self.runs, [('ref', 600), ('mine', 60)])
        self.assertEqual(self.gr.done['latency'].verdict, 'ERROR')

    def test_an_honest_kernel_is_timed_as_before(self):
        self.fake(True)
        with contextlib.redirect_stderr(io.StringIO()):
            self.gr.latency(self.c, self.kernels())
        self.assertEqual([w for w, _ in self.runs[:2]], ['ref', 'mine'])
        self.assertEqual(self.gr.done['latency'].verdict, 'PASS')


class RoundTwo(unittest.TestCase):
    """(red team, issue 30, round 2) the smaller holes."""

    def test_a_latency_run_with_only_an_end_marker_is_an_error(self):
        # (con.sections() was [] and [0] ended the grade as a grader bug)
        real = run.vm_run
        d = tempfile.mkdtemp()
        try:
            def vm_run(img, test, log, nonce, **kw):
                with open(log, 'w') as f:
                    f.write(f'SWAPLAB-READY\nSWAPLAB {nonce} CHECK end 1.0\nSWAPLAB {nonce} DONE 0\n')
                return 0
            run.vm_run = vm_run
            r, m = run.measure_run('/img', 'refault.sh', os.path.join(d, 'c.console'), cpus=2, append='')
            self.assertEqual((r.verdict, m), ('ERROR', {}))
        finally:
            run.vm_run = real
            shutil.rmtree(d)

    def test_text_for_reports_has_no_bidi_or_zero_width_characters(self):
        evil = 'try_to_unuse\u202e\u2066gnissap\u2069\u200b\ufeff ok'
        self.assertEqual(logs.clean(evil), 'try_to_unusegnissap ok')

    def test_the_detectors_scale_with_the_limits(self):
        self.assertEqual(timelimits.detector_args(1.0), '')
        self.assertEqual(timelimits.detector_args(1.5), 'sysctl.kernel.hung_task_timeout_secs=15 watchdog_thresh=15 '
                                                        'rcupdate.rcu_cpu_stall_timeout=30')
        self.assertIn('rcu_cpu_stall_timeout=300', timelimits.detector_args(40))
        # and they are the configs' own values at scale 1
        fast = Detectors.options('fast.config')
        self.assertEqual((int(fast['CONFIG_DEFAULT_HUNG_TASK_TIMEOUT']), int(fast['CONFIG_RCU_CPU_STALL_TIMEOUT'])),
                         (timelimits.HUNG_TASK_SECS, timelimits.RCU_STALL_SECS))
