"""Host-only tests of the grader core (grader/swaplab): saved console and
build logs go through the parsers and the verdict functions, and every
report is validated.  No QEMU, no kernel build; seconds.

The consoles in data/core/ are real runs of the stage 06 fast kernel
(grader/run-group or grader/grade; the .run file beside each holds its nonce
and vm/run's exit code; the .System.map files are the images' maps cut to the
symbols the consoles name), except kunit-fail.console, which is kunit-pass.console with one
case turned into a failure in the format lib/kunit/test.c prints.  Both gained lab 01's
fourth case (lab01_continuation, added after they were recorded) as lib/kunit/test.c prints it,
and lab 06's suite of five cases (enabled, refill, return, drain, low_watermark: its three
were split for partial credit after they were recorded) in the same format.
"""
import copy
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, 'grader'))
sys.path.insert(0, os.path.join(ROOT, 'bench'))
sys.path.insert(0, HERE)

from benchlib import model  # noqa: E402
from swaplab import checks, kernels, labs, logs, pipeline, plausible, record, report, scoring, verdict  # noqa: E402
import kitrun  # noqa: E402
from swaplab.checks import Check  # noqa: E402
from swaplab.report import Grade  # noqa: E402
from swaplab.verdict import Record  # noqa: E402

DATA = os.path.join(HERE, 'data')
CORE = os.path.join(DATA, 'core')


def load(name):
    with open(os.path.join(CORE, name + '.run')) as f:
        kv = dict(l.split() for l in f if l.strip())
    return logs.parse_console(logs.read_text(os.path.join(CORE, name + '.console')), kv['nonce'], int(kv['rc']))


def guest(cid, script='passes.sh', *args, mode='pmem'):
    return Check('all', cid, 'guest', ['fast', mode, script, *args])


def decide_all(con, entries, smap=None, limit=60):
    """As run.run_group does for one boot: started checks by section."""
    secs = {s.id: s for s in con.sections()}
    started = [c for c in entries if c.id in secs]
    out = {}
    for c in entries:
        if c.id in secs:
            out[c.id] = verdict.decide_guest(c, con, secs[c.id], limit, smap, last=c is started[-1])
        elif not started:
            out[c.id] = verdict.decide_guest(c, con, None, limit, smap)
    return out


def kmsg_console(snippet, rc=2, nonce='ab' * 12):
    """A console of one check whose kernel printed SNIPPET (a saved kernel
    error report), followed by the runner's note."""
    text = (f'SWAPLAB-READY 2 cpus\nSWAPLAB-GO\nSWAPLAB {nonce} CHECK pageout 1.00\n'
            f'SWAPLAB {nonce} STEP swaptest pageout -n 32768\n{snippet}\n')
    if rc == 2:
        text += '\n[swaplab] kernel error on the console: (as the runner saw it)\n'
    return logs.parse_console(text, nonce, rc)


class KernelErrors(unittest.TestCase):
    def test_every_saved_report_is_an_error(self):
        for name in ('lockdep', 'panic', 'oops', 'bugon', 'softlockup', 'rcu', 'warn', 'sleep', 'hung',
                     'debugfs-taken'):
            with self.subTest(report=name):
                snippet = logs.read_text(os.path.join(DATA, f'{name}.log'))
                r = decide_all(kmsg_console(snippet), [guest('pageout')])['pageout']
                self.assertEqual(r.verdict, 'ERROR')
                self.assertTrue(r.reason.startswith('kernel error: '), r.reason)
                self.assertIn(logs.KERNEL_ERROR_RE.search(snippet).group(0).strip(), r.reason)
                self.assertTrue(r.excerpt)

    def test_clean_log_is_no_error(self):
        con = kmsg_console(logs.read_text(os.path.join(DATA, 'clean.log')), rc=0)
        self.assertIsNone(con.kernel_error())

    def test_expect_reads_the_same_list(self):
        with open(os.path.join(ROOT, 'vm', 'expect', 'lib.exp')) as f:
            self.assertIn('kernel-errors', f.read())


class GuestVerdicts(unittest.TestCase):
    def test_pass_and_kunit(self):
        con = load('kunit-pass')
        cs = [guest('kunit-06', 'kunit.sh', '06', mode='mixed'), guest('kunit-01', 'kunit.sh', '01', mode='mixed'),
              guest('two-devices', 'two.sh', mode='mixed')]
        got = decide_all(con, cs)
        for c in cs:
            self.assertEqual(got[c.id].verdict, 'PASS', got[c.id].reason)
            self.assertIsInstance(got[c.id].seconds, float)
        self.assertEqual(got['kunit-06'].reason, '5 KUnit cases passed')
        self.assertEqual(got['kunit-06'].metrics['cases']['lab06_drain'], 'SUCCESS')

    def test_kunit_failure_names_the_case_and_message(self):
        con = load('kunit-fail')
        r = decide_all(con, [guest('kunit-06', 'kunit.sh', '06', mode='mixed'),
                             guest('kunit-01', 'kunit.sh', '01', mode='mixed')])['kunit-06']
        self.assertEqual(r.verdict, 'FAIL')
        self.assertIn('kunit-06.drain lab06: disabling the cache (swapoff) must drain', r.reason)
        self.assertIn('not ok 4 lab06_drain', r.excerpt)
        self.assertIn('EXPECTATION FAILED', r.excerpt)

    def _edited(self, fn):
        con = load('kunit-pass')
        con.lines = fn(con.lines)
        con.cut = len(con.lines)
        con.tagged = logs.parse_console('\n'.join(con.lines), con.nonce, 0).tagged
        return decide_all(con, [guest('two-devices', 'two.sh', mode='mixed'),
                                guest('kunit-01', 'kunit.sh', '01', mode='mixed'),
                                guest('kunit-06', 'kunit.sh', '06', mode='mixed')])['kunit-06']

    def test_kunit_forged_block_is_refused(self):
        def forge(lines):
            i = next(i for i, l in enumerate(lines) if 'CHECK two-devices' in l)
            fake = ['[    1.000000]     KTAP version 1', '[    1.000000]     # Subtest: swaplab-lab06',
                    '[    1.000000]     1..5'] + [f'[    1.000000]     ok {n} lab06_{c}' for n, c in
                                                  enumerate(('enabled', 'refill', 'return', 'drain',
                                                             'low_watermark'), 1)] + \
                   ['[    1.000000] ok 1 swaplab-lab06']
            return lines[:i] + fake + lines[i:]
        r = self._edited(forge)
        self.assertEqual(r.verdict, 'FAIL')
        self.assertIn('2 KTAP blocks', r.reason)

    def test_kunit_missing_or_skipped_case_fails(self):
        r = self._edited(lambda ls: [l for l in ls if 'ok 5 lab06_low_watermark' not in l])
        self.assertEqual(r.verdict, 'FAIL')
        self.assertIn('cases missing: lab06_low_watermark', r.reason)
        r = self._edited(lambda ls: [l.replace('ok 4 lab06_drain', 'ok 4 lab06_drain # SKIP no cpus') for l in ls])
        self.assertEqual(r.verdict, 'FAIL')
        self.assertIn('lab06_drain', r.reason)

    def test_guest_line_cut_by_printk_is_put_back(self):
        # a real console (stage 04's grade): the kernel's KTAP header landed
        # in the middle of the guest's KTAP-BEGIN line
        con = load('split-line')
        self.assertIn('SWAPLAB cf89b2c6d5aee1420fea3556 KTAP-BEGIN 03', con.lines)
        self.assertTrue(any(t.kind == 'KTAP-BEGIN' and t.words == ['03'] for t in con.tagged))
        r = decide_all(con, [guest('kunit-03', 'kunit.sh', '03', mode='mixed')])['kunit-03']
        self.assertEqual((r.verdict, r.reason), ('PASS', '2 KUnit cases passed'))

    def test_kunit_missing_suite(self):
        con = load('next')
        r = decide_all(con, [guest('next', 'kunit.sh', '03')])['next']
        self.assertEqual(r.verdict, 'FAIL')

    def test_forged_lines_and_late_error(self):
        con = load('late-error')
        got = decide_all(con, [guest('forged', 'forged.sh'), guest('late', 'late-error.sh'),
                               guest('next')])
        self.assertEqual(got['forged'].verdict, 'FAIL')
        self.assertEqual(got['forged'].reason, 'the test reported no result')
        self.assertEqual(got['late'].verdict, 'ERROR')
        self.assertIn('WARNING: CPU: 0 PID: 1 at swaplab/late-error.sh', got['late'].reason)
        # its PASS line came after the kernel's report: it does not count
        self.assertNotIn('next', got)
        self.assertEqual(decide_all(load('next'), [guest('next')])['next'].verdict, 'PASS')

    def test_timeout_names_step_and_function(self):
        con = load('stuck')
        smap = logs.SystemMap(os.path.join(CORE, 'stuck.System.map'))
        got = decide_all(con, [guest('pageout'), guest('stuck', 'stuck.sh')], smap, limit=8)
        self.assertEqual(got['pageout'].verdict, 'PASS')
        r = got['stuck']
        self.assertEqual(r.verdict, 'TIMEOUT')
        self.assertIsNone(r.seconds)
        self.assertIn("during 'swaptest stuck'", r.reason)
        self.assertIn('stuck in kernel_clone < __x64_sys_vfork (swaptest, blocked)', r.reason)
        self.assertIn('wait_for_completion_state+0x', r.excerpt)

    def test_hung_swapoff_names_try_to_unuse(self):
        # a real hang (tests/broken/06-missing-drain: slots left in a CPU
        # cache): swapoff runs forever; SysRq l caught it inside a timer
        # interrupt, whose frames are not the task's
        con = load('hung-swapoff')
        smap = logs.SystemMap(os.path.join(CORE, 'hung-swapoff.System.map'))
        r = decide_all(con, [guest('swapoff-busy', 'swapoff.sh')], smap, limit=20)['swapoff-busy']
        self.assertEqual(r.verdict, 'TIMEOUT')
        self.assertIn("during 'swapoff /dev/pmem0'", r.reason)
        self.assertIn('stuck in try_to_unuse < __do_sys_swapoff (swapoff, running)', r.reason)

    def test_timeout_without_sysrq_answer(self):
        con = load('stuck')
        con.lines = con.lines[:con.cut + 1]
        r = decide_all(con, [guest('pageout'), guest('stuck', 'stuck.sh')])['stuck']
        self.assertEqual(r.verdict, 'TIMEOUT')
        self.assertIn('the kernel did not answer SysRq', r.reason)

    def test_boot_failure_gives_every_check_a_verdict(self):
        text = 'Kernel panic - not syncing: No working init found.\n[swaplab] kernel error on the console: x\n'
        got = decide_all(logs.parse_console(text, 'cd' * 12, 2), [guest('a'), guest('b')])
        self.assertEqual([got['a'].verdict, got['b'].verdict], ['ERROR', 'ERROR'])
        got = decide_all(logs.parse_console('[swaplab] QEMU exited before the guest was ready\n', 'cd' * 12, 4),
                         [guest('a')])
        self.assertEqual(got['a'].verdict, 'ERROR')
        self.assertIn('could not run the guest', got['a'].reason)


class BuildVerdicts(unittest.TestCase):
    ERR = ('  CC      mm/swapfile.o\n'
           '/root/.cache/swaplab/src/linux/mm/swapfile.c: In function \u2018swap_do_scheduled_discard\u2019:\n'
           '/root/.cache/swaplab/src/linux/mm/swapfile.c:351:9: error: implicit declaration of function '
           '\u2018lock_clusterx\u2019 [-Werror=implicit-function-declaration]\n'
           '  351 |         lock_clusterx(si, idx);\n'
           'make[2]: *** [scripts/Makefile.build:250: mm/swapfile.o] Error 1\n')
    WARN = ('  CC      mm/swapfile.o\n'
            '/root/.cache/swaplab/src/linux/mm/swapfile.c:120:13: warning: unused variable \u2018x\u2019 '
            '[-Wunused-variable]\n'
            '/root/.cache/swaplab/src/linux/kernel/fork.c:1:1: warning: not ours\n')

    def test_compiler_error(self):
        r = verdict.decide_build(Check('all', 'build-fast', 'build', ['fast']), False, self.ERR, '',
                                 checks_allow())
        self.assertEqual(r.verdict, 'FAIL')
        self.assertIn('does not build with the fast config: mm/swapfile.c:351:9: error: implicit declaration',
                      r.reason)
        self.assertIn('lock_clusterx(si, idx);', r.excerpt)

    def test_new_warning_only_in_lab_files(self):
        r = verdict.decide_build(Check('all', 'build-fast', 'build', ['fast']), True, self.WARN, '',
                                 checks_allow())
        self.assertEqual(r.verdict, 'FAIL')
        self.assertIn('new warning: mm/swapfile.c:120:13: warning: unused variable', r.reason)
        r = verdict.decide_build(Check('all', 'build-fast', 'build', ['fast']), True,
                                 self.WARN.split('\n', 2)[2], '', checks_allow())
        self.assertEqual(r.verdict, 'PASS')

    def test_a_failed_builds_log_is_the_kept_copy_never_a_path_in_a_message(self):
        """The red team's "#error full log: /etc/shadow": gcc quotes it in
        the build script's stderr, and the grader read the file it named.
        The log is the grade's own kept copy; a FIFO reads as nothing."""
        with tempfile.TemporaryDirectory() as d:
            secret = os.path.join(d, 'host-secret')
            with open(secret, 'w', encoding='utf-8') as f:
                f.write('error: TOP-SECRET host line\n')
            k = kernels.Kernels('c0ffee', '01', d, graded=True)
            with open(os.path.join(d, 'kernel-fast.log'), 'w', encoding='utf-8') as f:
                f.write(f'mm/swapfile.c:9:2: error: #error full log: {secret}\n'
                        f'error: kernel build failed for c0ffee (fast); full log: {secret}\n')
            k.img['fast'] = None
            build, tool = k.logs('fast')
            self.assertEqual(build, '')
            self.assertNotIn('TOP-SECRET', verdict.decide_build(
                Check('all', 'build-fast', 'build', ['fast']), False, build, tool, checks_allow()).excerpt)
            with open(os.path.join(d, 'kernel-fast.build.log'), 'w', encoding='utf-8') as f:
                f.write(self.ERR)
            self.assertEqual(k.logs('fast')[0], self.ERR)
            fifo = os.path.join(d, 'fifo')
            os.mkfifo(fifo)
            self.assertEqual(logs.read_text(fifo), '')
            self.assertEqual(logs.read_text('/dev/zero'), '')


def checks_allow():
    from swaplab.intake import allowlist
    return allowlist()


class Reports(unittest.TestCase):
    def test_a_message_carries_no_escape_sequence(self):
        """The red team's file name "mm/\\033[2K\\033[1Gzz-fake 100/100 pass"
        reached the terminal, grade-all's table and summary.csv through the
        rejection message."""
        g = Grade('01', graded='patch \x1b[8mx.patch')
        g.status, g.message = 'rejected', 'outside the allowlist: mm/\x1b[2K\x1b[1Gzz-fake 100/100 pass\x1b[8m\x07'
        self.assertEqual(g.message, 'outside the allowlist: mm/zz-fake 100/100 pass')
        self.assertEqual(g.graded, 'patch x.patch')
        out = io.StringIO()
        report.print_summary(g, out)
        self.assertNotIn('\x1b', out.getvalue())

    def grade(self):
        recs = []
        con = load('stuck')
        smap = logs.SystemMap(os.path.join(CORE, 'stuck.System.map'))
        recs += decide_all(con, [guest('pageout'), guest('stuck', 'stuck.sh')], smap).values()
        recs += decide_all(load('late-error'), [guest('forged', 'forged.sh'), guest('late', 'late-error.sh')]).values()
        recs += decide_all(load('kunit-fail'), [guest('kunit-06', 'kunit.sh', '06', mode='mixed')]).values()
        r = verdict.decide_build(Check('all', 'build-fast', 'build', ['fast']), False, BuildVerdicts.ERR, '',
                                 checks_allow())
        recs.append(r)
        nasty = Record('nasty', 'all', 5)
        nasty.set('FAIL', 'back\\slash "quote" <tag> & \x1b[31mred\x1b[0m \x00\x07 t\u00e9l\u00e9 ' + '\u00e9' * 400,
                  'line\x01one\r\n\x1b[1mtwo\x1b[0m \ud800 \ufffe')
        recs.append(nasty)
        recs.append(Record('skipped', '06', 10).set('SKIP', 'no debug kernel (build failed)'))
        g = Grade('06', 'reference stage-06 "x"', 'c0ffee', recs, started=1.0e9, seconds=12.34)
        g.apply_scoring()
        return g

    def write_all(self, g, d):
        paths = [os.path.join(d, 'g.json'), os.path.join(d, 'g.xml'), os.path.join(d, 'gs.json')]
        report.write_json(g, paths[0])
        report.write_junit(g, paths[1])
        report.write_gradescope(g, paths[2])
        return paths

    def validate(self, paths):
        p = subprocess.run([os.path.join(ROOT, 'tests', 'check-reports'), *paths], capture_output=True, text=True)
        return p.returncode, p.stdout

    def test_every_outcome_gives_valid_reports(self):
        g = self.grade()
        with tempfile.TemporaryDirectory() as d:
            for status, msg in (('graded', ''), ('interrupted', 'the grade was interrupted (SIGTERM)'),
                                ('rejected', 'touches Makefile'), ('error', 'no work repository')):
                g.status, g.message = status, msg
                g.apply_scoring()
                rc, out = self.validate(self.write_all(g, d))
                self.assertEqual(rc, 0, out)
                with open(os.path.join(d, 'g.json')) as f:
                    j = json.load(f)
                self.assertEqual(j['status'], status)
                self.assertIsNone(next(c for c in j['checks'] if c['id'] == 'stuck')['seconds'])

    def test_text_is_cleaned_and_cut_by_characters(self):
        g = self.grade()
        n = next(r for r in g.records if r.id == 'nasty')
        self.assertLessEqual(len(n.reason), record.REASON_CHARS)
        self.assertTrue(n.reason.endswith('\u2026'))
        self.assertNotIn('\x1b', n.reason + n.excerpt)
        self.assertNotIn('\x00', n.reason)
        self.assertIn('back\\slash "quote" <tag> & red', n.reason)
        self.assertEqual(n.excerpt, 'lineone\ntwo  ')
        with tempfile.TemporaryDirectory() as d:
            paths = self.write_all(g, d)
            for p in paths:
                with open(p, 'rb') as f:
                    f.read().decode('utf-8')

    def test_junit_has_counts_and_failure_bodies(self):
        import xml.etree.ElementTree as ET
        t = report.junit_tree(self.grade()).getroot()
        self.assertEqual((t.get('tests'), t.get('failures'), t.get('errors'), t.get('skipped')),
                         ('8', '4', '2', '1'))
        f = t.find("testcase[@name='kunit-06']/failure")
        self.assertIn('not ok 4 lab06_drain', f.text)
        self.assertIsNotNone(t.find("testcase[@name='stuck']/error"))

    def test_gradescope_output_holds_reason_and_excerpt(self):
        d = report.gradescope(self.grade())
        t = next(x for x in d['tests'] if x['name'] == 'stuck')
        self.assertTrue(t['output'].startswith('TIMEOUT: timeout'))
        self.assertIn('kernel_clone', t['output'])
        # the tests' points add up to the uncapped score (kunit-06 with its
        # drain case failed: 45 of 60, 75 of 100); the top-level score is
        # that under the failing gates' caps (build-fast: 0)
        self.assertEqual(sum(x['score'] for x in d['tests']), 75)
        self.assertEqual(d['score'], 0)
        self.assertIn('capped at 0 (from 75) by the gate build-fast', d['output'])

    def test_the_validator_can_fail(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, 'bad.xml')
            with open(p, 'w') as f:
                f.write('<testsuite name="x" tests="1" failures="0" time="1"><testcase name="a" classname="b" '
                        'time="0"><failure/></testcase></testsuite>')
            q = os.path.join(d, 'bad.json')
            with open(q, 'w') as f:
                f.write('{"lab": "01", "checks": [{"id": "x", "seconds": -}]}')
            g = os.path.join(d, 'gs.json')
            with open(g, 'w') as f:
                json.dump({'score': 3, 'tests': [{'name': 'a', 'score': 1, 'max_score': 1, 'status': 'ok',
                                                  'output': ''}]}, f)
            for path in (p, q, g):
                rc, out = self.validate([path])
                self.assertEqual(rc, 1, path)
                self.assertTrue(out)

    def test_round_trip(self):
        g = self.grade()
        with tempfile.TemporaryDirectory() as d:
            report.write_json(g, os.path.join(d, 'g.json'))
            h = report.read_json(os.path.join(d, 'g.json'))
        self.assertEqual([(r.id, r.verdict, r.reason, r.seconds) for r in h.records],
                         [(r.id, r.verdict, r.reason, r.seconds) for r in g.records])
        self.assertEqual(h.score, g.score)


class Table(unittest.TestCase):
    def test_selection(self):
        t = checks.load()
        ids = lambda lab, **kw: [c.id for c in checks.select(t, lab, **kw)]  # noqa: E731
        self.assertIn('kunit-01', ids('03'))
        self.assertNotIn('kunit-04', ids('03'))
        self.assertNotIn('hotplug', ids('05'))
        self.assertIn('hotplug', ids('06'))
        self.assertNotIn('latency', ids('06'))
        self.assertIn('latency', ids('06', latency=True))
        self.assertIn('latency', ids('01', latency=True))
        self.assertEqual(ids('02', own=True), ['kunit-02', 'swapcache-spread'])
        self.assertEqual(ids('06', only=['pageout']), ['pageout'])


class Scoring(unittest.TestCase):
    """grader/scoring.tsv and grader/swaplab/scoring.py: the lab's own checks
    carry the score, the others are gates.  The start-NN.json records are
    the lab starts' real grades (tests/labs, 2026-12-04)."""
    SC = os.path.join(DATA, 'scoring')

    def records(self, lab, **override):
        """Every check of a full grade of LAB passing (every KUnit case too),
        with OVERRIDE: id -> (verdict, cases or None)."""
        out = []
        for c in checks.select(checks.load(), lab):
            r = Record(c.id, c.labs, 0, 'PASS')
            if c.kunit_lab:
                r.metrics['cases'] = {k: 'SUCCESS' for k in verdict.expected_cases(c.kunit_lab)}
            if c.id in override:
                v, cases = override[c.id]
                r.set(v, 'x')
                if cases is not None:
                    r.metrics['cases'].update(cases)
            out.append(r)
        return out

    def grade(self, lab, recs, status='graded'):
        g = Grade(lab, 'test', 'c0ffee', recs, started=1.0e9, seconds=1.0)
        g.status = status
        g.apply_scoring()
        return g

    def test_reference_scores_100_on_every_lab(self):
        for lab in labs.numbers():
            self.assertEqual(self.grade(lab, self.records(lab)).score, 100, lab)

    def test_every_lab_start_scores_at_most_10(self):
        for lab in labs.numbers():
            g = report.read_json(os.path.join(self.SC, f'start-{lab}.json'))
            g.apply_scoring()
            self.assertLessEqual(g.score, 10, f'lab {lab} start: {report.text_table(g)}')

    def test_partial_credit_per_kunit_case(self):
        g = self.grade('02', self.records('02', **{'kunit-02': ('FAIL', {'lab02_trunks': 'FAILURE'})}))
        self.assertEqual(g.score, 80)
        r = g.part(next(x for x in g.records if x.id == 'kunit-02'))
        self.assertEqual((r.earned, r.points, r.role), (40, 60, 'own'))
        # a case that never printed (the suite crashed) earns nothing
        recs = self.records('01', **{'kunit-01': ('ERROR', None)})
        del next(x for x in recs if x.id == 'kunit-01').metrics['cases']['lab01_cluster_order']
        self.assertEqual(self.grade('01', recs).score, 82.5)

    def test_failing_gate_caps_and_says_why(self):
        g = self.grade('01', self.records('01', **{'lockdep-clean': ('ERROR', None)}))
        self.assertEqual((g.score, g.scored.uncapped, g.scored.cap), (50, 100, 50))
        self.assertIn('lockdep-clean', g.capped_line())
        self.assertIn('locking bug', g.capped_line())
        r = g.part(next(x for x in g.records if x.id == 'lockdep-clean'))
        self.assertEqual((r.role, r.points, r.cap, report.points_cell(r)), ('gate', 0, 50, 'gate<=50'))
        # the lowest cap wins; a capped score never exceeds what was earned
        g = self.grade('03', self.records('03', **{'kunit-01': ('FAIL', {}), 'pageout': ('FAIL', None),
                                                   'kunit-03': ('FAIL', {'lab03_swapcount': 'FAILURE'})}))
        self.assertEqual((g.score, g.scored.cap), (50, 50))
        g = self.grade('03', self.records('03', **{'kunit-03': ('FAIL', {'lab03_swapcount': 'FAILURE',
                                                                         'lab03_skip_unused': 'FAILURE'}),
                                                   'readahead-free': ('FAIL', None),
                                                   'kunit-02': ('FAIL', {})}))
        self.assertEqual((g.score, g.capped_line()), (0, ''))

    def test_guard_case_caps_without_points(self):
        # lab 06's start has the watermark logic: the case earns nothing, but
        # breaking it caps
        g = self.grade('06', self.records('06', **{'kunit-06': ('FAIL', {'lab06_low_watermark': 'FAILURE'})}))
        self.assertEqual((g.scored.uncapped, g.score), (100, 50))
        self.assertIn('kunit-06.lab06_low_watermark', g.capped_line())
        # a case with points and a cap (the drain steps: slots leaked at
        # swapoff) costs its share, and its failure caps too
        g = self.grade('06', self.records('06', **{'kunit-06': ('FAIL', {'lab06_drain': 'FAILURE'})}))
        self.assertEqual((g.scored.uncapped, g.score), (85, 50))
        self.assertIn('kunit-06.lab06_drain', g.capped_line())

    def test_latency_off_is_not_counted(self):
        recs = self.records('06')
        off = Record('latency', 'all', 0).set('SKIP', 'not run (not counted)')
        off.counted = False
        g = self.grade('06', recs + [off])
        self.assertEqual(g.score, 100)
        self.assertEqual((g.part(off).role, report.points_cell(g.part(off))), ('off', '-'))
        on = Record('latency', 'all', 0).set('FAIL', 'slower')
        self.assertEqual(self.grade('06', self.records('06') + [on]).score, 80)

    def test_rejected_and_error_score_zero_and_reports_valid(self):
        for st in ('rejected', 'error', 'interrupted'):
            g = self.grade('01', self.records('01'), status=st)
            self.assertEqual(g.score, 0 if st != 'interrupted' else 100, st)
            with tempfile.TemporaryDirectory() as d:
                rc, out = Reports.validate(self, Reports.write_all(self, g, d))
                self.assertEqual(rc, 0, out)

    def test_scoring_leaves_the_records_and_reads_back(self):
        # the score is one value beside the records (Grade.scored), never
        # written into them; a saved report gives it back as it was
        recs = self.records('06', **{'kunit-06': ('FAIL', {'lab06_drain': 'FAILURE'}),
                                     'lockdep-clean': ('ERROR', None)})
        recs.append(Record('latency', 'all', 0).set('SKIP', 'not run (not counted)'))
        recs[-1].counted = False
        before = copy.deepcopy(recs)
        g = self.grade('06', recs)
        self.assertEqual(recs, before)
        self.assertEqual(g.part(recs[-1]), scoring.OFF)
        with tempfile.TemporaryDirectory() as d:
            report.write_json(g, os.path.join(d, 'g.json'))
            h = report.read_json(os.path.join(d, 'g.json'))
        self.assertEqual(h.scored.to_json(), g.scored.to_json())
        self.assertEqual([h.part(r) for r in h.records], [g.part(r) for r in g.records])
        self.assertEqual(report.text_table(h), report.text_table(g))

    def test_the_validator_refuses_a_wrong_score(self):
        g = self.grade('01', self.records('01', **{'lockdep-clean': ('ERROR', None)}))
        g.scored.score = 100
        with tempfile.TemporaryDirectory() as d:
            rc, out = Reports.validate(self, Reports.write_all(self, g, d))
        self.assertEqual(rc, 1)
        self.assertIn('lowest cap', out)

    def test_table_names_real_checks_and_cases(self):
        t = checks.load()
        rules = scoring.load()
        for lab, own in rules.own.items():
            ids = [c.id for c in checks.select(t, lab)]
            for cid, w in own.items():
                self.assertIn(cid, ids, f'own {lab} {cid}: not a check of lab {lab}')
                self.assertGreater(w, 0)
        for (lab, cid, case) in rules.cases:
            self.assertIn(case, verdict.expected_cases(cid[len('kunit-'):]), f'case {lab} {cid} {case}')
        # every check of lab NN's own feature is scored by lab NN or is a gate on purpose
        for c in t:
            if c.labs.isdigit() and c.id not in rules.own.get(c.labs, {}):
                self.assertEqual(c.id, 'kunit-05', f'{c.id} is neither scored by lab {c.labs} nor known')

    def test_malformed_table_is_named(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, 's.tsv')
            for bad in ('own\t01\tkunit-01\tlots\n', 'gate\tx\t150\twhy\n', 'weight\t01\n'):
                with open(p, 'w') as f:
                    f.write(bad)
                with self.assertRaises(checks.TableError) as e:
                    scoring.load(p)
                self.assertIn('s.tsv:1', str(e.exception))

    def test_what_if_cli(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, 'r.json')
            g = Grade('01', 'x', 'c', [Record('kunit-01', '01', 0, 'FAIL')])
            g.records[0].metrics['cases'] = {'lab01_lock_cluster': 'FAILURE', 'lab01_fallback': 'SUCCESS',
                                             'lab01_cluster_order': 'SUCCESS', 'lab01_continuation': 'SUCCESS'}
            report.write_json(g, p)
            out = subprocess.run([sys.executable, '-m', 'swaplab.scoring', '--lab', '01', '--replace', p],
                                 capture_output=True, text=True, cwd=os.path.join(ROOT, 'grader'))
        self.assertEqual(json.loads(out.stdout)['score'], 82.5, out.stderr)


class Latency(unittest.TestCase):
    """decide_latency and the early stop, on medians measured on 2026-12-04
    (tests/labs: stage 06 against itself, and 06-slow-swapin)."""
    C = Check('all', 'latency', 'latency', ['2.00', '5'])

    @staticmethod
    def rounds(mine, ref):
        out = []
        for i, (a, b) in enumerate(zip(mine, ref), 1):
            out += [{'who': 'mine', 'round': i, 'median': a, 'p99': 150.0},
                    {'who': 'ref', 'round': i, 'median': b, 'p99': 150.0}]
        return out

    def test_self_passes_slowed_fails_with_spread(self):
        r = verdict.decide_latency(self.C, self.rounds([18.2, 18.9, 19.4], [17.78, 18.6, 18.0]), 5, 2.0)
        self.assertEqual(r.verdict, 'PASS', r.reason)
        self.assertIn('1.02x (per round 1.02-1.08x)', r.reason)
        self.assertIn('best of 3 interleaved rounds (of up to 5', r.reason)
        r = verdict.decide_latency(self.C, self.rounds([127.39, 130.0, 129.0], [17.89, 18.0, 18.5]), 5, 2.0)
        self.assertEqual(r.verdict, 'FAIL')
        self.assertIn('7.12x', r.reason)
        self.assertIn('slower than the solution', r.reason)

    def test_early_stop_only_when_clear(self):
        settled = verdict.latency_settled
        self.assertFalse(settled(self.rounds([18.2, 18.9], [17.8, 18.6]), 2.0))        # 2 rounds: never
        self.assertTrue(settled(self.rounds([18.2, 18.9, 19], [17.8, 18.6, 18]), 2.0))  # 1.02x
        self.assertTrue(settled(self.rounds([127, 130, 129], [17.9, 18, 18.5]), 2.0))  # 7.1x
        self.assertFalse(settled(self.rounds([30, 31, 32], [17.9, 18, 18.5]), 2.0))    # 1.68x: go on
        self.assertFalse(settled(self.rounds([18, 18, None], [17.9, 18, 18.5]), 2.0))  # a run failed

    def test_a_failed_run_is_an_error(self):
        r = verdict.decide_latency(self.C, self.rounds([18.2, None, 19], [17.8, 18.6, 18]), 5, 2.0)
        self.assertEqual(r.verdict, 'ERROR')
        self.assertIn('5 of 6 runs measured', r.reason)


class LockFootprint(unittest.TestCase):
    """decide_lockfp: the bound is the lab's idea, and the reason says which
    way a kernel misses it (figures: lock_stat, 4096 pages, 2026-12-05)."""
    C6 = Check('06', 'lockfp-06', 'lockfp', ['06', '4'])
    C1 = Check('01', 'lockfp-01', 'lockfp', ['01', '1.5'])

    @staticmethod
    def m(takes, pages='4096', swapped='4096.000'):
        """lockstat.sh's figures as decide_lockfp gets them: the takes per
        page, with the pages written out (pswpout) and the pages swaptest
        saw swapped, which every run prints beside them (4096: the
        workload of scripts/lockstat-run and the grade)."""
        return {'si_lock_acq_per_page': takes, 'pages': pages, 'swapped_pages': swapped}

    def test_the_swapoff_cycle_reads_its_own_run_of_lockstat(self):
        # lab 06's swapoff steps: lockfp-06-swapoff reads a lock_stat run
        # made after a swapoff and a swapon (lockstat.sh cycle); every other
        # lockfp check shares the plain run
        rows = {c.id: c for c in checks.load()}
        self.assertEqual(rows['lockfp-06-swapoff'].args, ['06', '4', 'cycle'])
        self.assertEqual(pipeline.mine_run(rows['lockfp-06-swapoff']), ('lockfp-mine-cycle', ('cycle',)))
        self.assertEqual(pipeline.mine_run(rows['lockfp-06']), ('lockfp-mine', ()))
        self.assertEqual(pipeline.mine_run(self.C1), ('lockfp-mine', ()))
        # both runs have a time limit of their own, and the check a row
        lim = pipeline.limits()
        self.assertIn('lockfp-mine-cycle', lim)
        self.assertIn('lockfp-06-swapoff', lim)
        # the same bound and verdict as lockfp-06, on its own figures
        c = rows['lockfp-06-swapoff']
        self.assertEqual(verdict.decide_lockfp(c, self.m('0.0239'), self.m('0.0239'), '06', 4).verdict, 'PASS')
        r = verdict.decide_lockfp(c, self.m('1.5010'), self.m('0.0239'), '06', 4)
        self.assertEqual(r.verdict, 'FAIL')
        self.assertIn('still on the hot path', r.reason)

    def test_a_smaller_cache_passes_lab_06(self):
        # a 32-slot cache (tests/alternatives/06-cache-32): about 2x the
        # solution's takes; a valid size, not the reference's shape
        r = verdict.decide_lockfp(self.C6, self.m('0.0479'), self.m('0.0239'), '06', 4.0)
        self.assertEqual(r.verdict, 'PASS', r.reason)
        self.assertIn('one take per 20.9 pages', r.reason)

    def test_no_cache_is_still_on_the_hot_path(self):
        r = verdict.decide_lockfp(self.C6, self.m('1.5010'), self.m('0.0239'), '06', 4.0)
        self.assertEqual(r.verdict, 'FAIL')
        self.assertIn('62.8x the solution', r.reason)
        self.assertIn('still on the hot path', r.reason)

    def test_a_tiny_cache_fails_with_another_reason(self):
        # a cache of 4: one take per ~3 pages; off the hot path of most
        # pages, so "still on the hot path" would be wrong
        r = verdict.decide_lockfp(self.C6, self.m('0.3800'), self.m('0.0239'), '06', 4.0)
        self.assertEqual(r.verdict, 'FAIL')
        self.assertNotIn('still on the hot path', r.reason)
        self.assertIn('smaller batch or cache', r.reason)

    def test_lab_01_bound(self):
        self.assertEqual(verdict.decide_lockfp(self.C1, self.m('1.5010'), self.m('1.5010'), '01', 1.5).verdict, 'PASS')
        r = verdict.decide_lockfp(self.C1, self.m('6.5029'), self.m('1.5010'), '01', 1.5)
        self.assertEqual(r.verdict, 'FAIL')
        self.assertIn('still on the hot path', r.reason)

    def test_checks_table_bound(self):
        # lab 06's bound admits a cache of at least 16 slots (4x the
        # solution's 64): the series' idea, sized within reason
        c = {x.id: x for x in checks.load()}
        self.assertEqual(c['lockfp-06'].args, ['06', '4'])


class Plausible(unittest.TestCase):
    """grader/plausible.tsv: a figure the kernel under test can forge (its
    counters) gets the range its workload can physically produce.  For each
    range a figure inside keeps the verdict it had without the table, one
    outside is ERROR "implausible: ...", and, with that range taken out of
    the table, the outside figure is no longer caught: each test below can
    fail.  The inside figures are the ones measured on the reference stages
    and lab starts (grader/plausible.tsv quotes them); the outside ones
    include the four observed in issue 26 (readahead-free -0.331; lockfp
    0.0000 on labs 01 and 06; batch-alloc 8 takes; batch-free 1 take for
    512 slots)."""
    NONCE = 'ef' * 12
    LOCKFP = {'01': Check('01', 'lockfp-01', 'lockfp', ['01', '1.5']),
              '06': Check('06', 'lockfp-06', 'lockfp', ['06', '4'])}
    LATENCY = Check('all', 'latency', 'latency', ['2.00', '5'])

    @classmethod
    def guest_console(cls, cid, metrics, results):
        """One check's console as its guest script prints it."""
        n = cls.NONCE
        lines = ['SWAPLAB-READY 2 cpus', 'SWAPLAB-GO', f'SWAPLAB {n} CHECK {cid} 1.00']
        lines += [f'SWAPLAB {n} METRIC {k} {v}' for k, v in metrics.items()]
        lines += [f'SWAPLAB {n} RESULT {r}' for r in results]
        lines += [f'SWAPLAB {n} CHECK end 2.00', '']
        return logs.parse_console('\n'.join(lines), n, 0)

    # the guest checks: (check, its script, metrics, result lines as the script prints them)
    @staticmethod
    def rafree(read, allocs, touched=2048):
        x = f'{(allocs - read) / read:.3f}'
        ok = float(x) <= 0.25
        res = [f'rafree PASS {read} pages read back through readahead, {allocs} page allocations',
               f'ra-free-slots PASS readahead over free slots: {x} extra page allocations per page read (bound 0.25)'
               if ok else f'ra-free-slots FAIL readahead allocated {x} extra pages per page read (bound 0.25): '
               'a page is allocated for a slot nobody uses before the slot is checked']
        return ('readahead-free', 'rafree.sh', {'ra_pages_touched': touched, 'ra_pages_read': f'{read:.3f}',
                                                'ra_page_allocs': f'{allocs:.3f}', 'ra_extra_allocs_per_page': x}, res)

    @staticmethod
    def batchalloc(acq, n=512):
        ok = 1 <= acq <= n * 4 // 64
        return ('batch-alloc', 'batchalloc.sh', {'batch_slots': n, 'batch_alloc_si_lock_acq': acq},
                [f'batch-alloc {"PASS" if ok else "FAIL"} allocating {n} slots in batches of 64 took si->lock {acq} times'])

    @staticmethod
    def batchfree(acq, devices=2, n=512):
        ok = acq >= 1 and acq * 64 <= n
        m = {'batch_slots': n, 'batch_devices': devices, 'batch_free_si_lock_acq': acq}
        if devices is None:
            del m['batch_devices']
        return ('batch-free', 'batchfree.sh', m,
                [f'batch-free {"PASS" if ok else "FAIL"} freeing {n} slots in one batch took si->lock {acq} times'])

    @staticmethod
    def spread(spaces, trunks, cached, fullest, n=32768):
        pct = fullest * 100 // cached
        ok = cached >= n // 2 and fullest * 100 <= cached * 75
        return ('swapcache-spread', 'cachespread.sh',
                {'swapcache_pages': n, 'swapcache_trunks': trunks, 'swapcache_cached': cached,
                 'swapcache_spaces': spaces, 'swapcache_fullest_pct': pct},
                [f'cachespread PASS {n} fork-shared pages swapped in through the swap cache, intact',
                 f'swapcache-spread {"PASS" if ok else "FAIL"} {cached} swap-cache pages over {spaces} '
                 f'address_spaces ({trunks} trunks): the fullest holds {pct}% (bound 75%)'])

    @staticmethod
    def fill(pct):
        return ('fill-drain', 'fill.sh', {'fill_used_pct': pct, 'drain_free_pages': '32767.000'},
                [f'fill PASS filled swap to {pct}%, read back intact, SwapFree back to 32767 of 32768',
                 'fill-swapoff PASS swapoff after fill succeeded'])

    def cases(self):
        """(range figure, what, input, verdict inside or None for an outside
        figure).  An input is a guest check's tuple, ('lockfp', lab, mine)
        or ('latency', mine medians)."""
        lockfp = lambda lab, takes, pages='4096', swapped='4096.000': (  # noqa: E731
            'lockfp', lab, LockFootprint.m(takes, pages, swapped))
        return [
            # lockfp: the pages written out (pswpout), the denominator
            ('pages', 'lab 06, 4096 of 4096 pages swapped', lockfp('06', '0.0239'), 'PASS'),
            ('pages', 'lab 06 start with pswpout x16: 1.5 takes a page read as 0.0938', lockfp('06', '0.0938', '65536'), None),
            ('pages', 'no page written out at all', lockfp('06', '0.0239', '0'), None),
            # lockfp: takes per page
            ('si_lock_acq_per_page', 'lab 06 reference, 0.0239', lockfp('06', '0.0239'), 'PASS'),
            ('si_lock_acq_per_page', 'lab 01 reference, 1.5010', lockfp('01', '1.5010'), 'PASS'),
            ('si_lock_acq_per_page', 'lab 01 start, 6.5029 (fails its bound)', lockfp('01', '6.5029'), 'FAIL'),
            ('si_lock_acq_per_page', 'the least a 4096-page run can take: 8, 0.0020', lockfp('06', '0.0020'), 'PASS'),
            ('si_lock_acq_per_page', 'a 1024-page run: 0 takes is possible', lockfp('06', '0.0000', '1024', '1024.000'), 'PASS'),
            ('si_lock_acq_per_page', 'observed on lab 01: 0.0000 over 4096 pages', lockfp('01', '0.0000'), None),
            ('si_lock_acq_per_page', 'observed on lab 06: 0.0000 over 4096 pages', lockfp('06', '0.0000'), None),
            ('si_lock_acq_per_page', 'one take short of the least: 7 takes, 0.0017', lockfp('06', '0.0017'), None),
            # readahead-free
            ('ra_pages_read', 'the reference: 2048 kept pages read, 0.007 extra', self.rafree(2048, 2062), 'PASS'),
            ('ra_pages_read', 'pswpin raised past the 2048 kept pages', self.rafree(4096, 4100), None),
            ('ra_extra_allocs_per_page', 'the reference, 0.007', self.rafree(2048, 2062), 'PASS'),
            ('ra_extra_allocs_per_page', 'the lab start, about 1.0 (fails its bound)', self.rafree(2048, 4096), 'FAIL'),
            ('ra_extra_allocs_per_page', 'observed: -0.331 (fewer allocations than reads)', self.rafree(2048, 1370), None),
            ('ra_extra_allocs_per_page', 'more than a 32-slot window per read', self.rafree(2048, 2048 * 40), None),
            # batch-alloc
            ('batch_alloc_si_lock_acq', 'observed: 8 for 512 (the reference: 512 / 64)', self.batchalloc(8), 'PASS'),
            ('batch_alloc_si_lock_acq', 'the lab start, 512 (fails its bound)', self.batchalloc(512), 'FAIL'),
            ('batch_alloc_si_lock_acq', 'SWAP_BATCH 256 (lab 04\'s challenge): 2', self.batchalloc(2), 'PASS'),
            ('batch_alloc_si_lock_acq', '1 take for 512 slots', self.batchalloc(1), None),
            ('batch_alloc_si_lock_acq', 'no take at all', self.batchalloc(0), None),
            ('batch_alloc_si_lock_acq', 'more than two a slot', self.batchalloc(1025), None),
            # batch-free
            ('batch_devices', 'two devices', self.batchfree(2), 'PASS'),
            ('batch_devices', 'the slots on no device', self.batchfree(2, devices=0), None),
            ('batch_free_si_lock_acq', 'the reference: 2 for two devices', self.batchfree(2), 'PASS'),
            ('batch_free_si_lock_acq', 'the lab start: 512 (fails its bound)', self.batchfree(512), 'FAIL'),
            ('batch_free_si_lock_acq', 'every slot on one device: 1', self.batchfree(1, devices=1), 'PASS'),
            ('batch_free_si_lock_acq', 'observed: 1 take for 512 slots on two devices', self.batchfree(1), None),
            ('batch_free_si_lock_acq', 'more than two a slot', self.batchfree(1025), None),
            ('batch_free_si_lock_acq', 'no batch_devices printed', self.batchfree(2, devices=None), None),
            # swapcache-spread
            ('swapcache_spaces', 'the reference: 8 over 8 trunks', self.spread(8, 8, 32768, 4096), 'PASS'),
            ('swapcache_spaces', '9 address_spaces for 8 trunks', self.spread(9, 8, 32768, 3641), None),
            ('swapcache_cached', 'all 32768 pages cached', self.spread(8, 8, 32768, 4096), 'PASS'),
            ('swapcache_cached', 'more pages cached than swapped', self.spread(8, 8, 65536, 8192), None),
            ('swapcache_fullest_pct', 'the reference: 12% over 8', self.spread(8, 8, 32768, 4096), 'PASS'),
            ('swapcache_fullest_pct', 'the lab start: 100% over 1 (fails its bound)', self.spread(1, 8, 32768, 32768), 'FAIL'),
            ('swapcache_fullest_pct', 'the lab start, a page gone between the two reads: 99%', self.spread(1, 8, 32768, 32767), 'FAIL'),
            ('swapcache_fullest_pct', 'the fullest below the average: 5% over 8', self.spread(8, 8, 32768, 1700), None),
            # fill-drain
            ('fill_used_pct', 'every lab start: 96.194', self.fill('96.194'), 'PASS'),
            ('fill_used_pct', 'more swap used than there is', self.fill('104.000'), None),
            # latency: the graded kernel's medians
            ('fault_median_us', 'stage 06 against itself', ('latency', [18.2, 18.9, 19.4]), 'PASS'),
            ('fault_median_us', 'a kernel slowed 100 us a fault (fails its bound)', ('latency', [127.39, 130.0, 129.0]), 'FAIL'),
            ('fault_median_us', 'a fault faster than copying 4 KiB', ('latency', [0.01, 18.9, 19.4]), None),
        ]

    def decide(self, inp):
        if inp[0] == 'lockfp':
            _, lab, mine = inp
            ref = {'06': '0.0239', '01': '1.5010'}[lab]
            return verdict.decide_lockfp(self.LOCKFP[lab], mine, {'si_lock_acq_per_page': ref}, lab,
                                         float(self.LOCKFP[lab].args[1]))
        if inp[0] == 'latency':
            return verdict.decide_latency(self.LATENCY, Latency.rounds(inp[1], [17.78, 18.6, 18.0]), 5, 2.0)
        cid, script, metrics, results = inp
        con = self.guest_console(cid, metrics, results)
        return decide_all(con, [Check('x', cid, 'guest', ['fast', 'pmem', script])])[cid]

    def with_table(self, text):
        """A context in which the grader reads TEXT as grader/plausible.tsv."""
        test = self

        class Ctx:
            def __enter__(self):
                self.d = tempfile.TemporaryDirectory()
                p = os.path.join(self.d.name, 'plausible.tsv')
                with open(p, 'w') as f:
                    f.write(text)
                self.old = os.environ.get('SWAPLAB_PLAUSIBLE')
                os.environ['SWAPLAB_PLAUSIBLE'] = p
                return p

            def __exit__(self, *a):
                if self.old is None:
                    del os.environ['SWAPLAB_PLAUSIBLE']
                else:
                    os.environ['SWAPLAB_PLAUSIBLE'] = self.old
                self.d.cleanup()
                test.assertIsNotNone(plausible.table())
        return Ctx()

    @staticmethod
    def shipped():
        with open(plausible.PLAUSIBLE_TSV) as f:
            return f.read()

    def without(self, figure):
        """The shipped table less FIGURE's range lines."""
        lines = self.shipped().split('\n')
        out = [l for l in lines if not (l.startswith('range\t') and l.split('\t')[2] == figure)]
        self.assertLess(len(out), len(lines), f'no range for {figure}')
        return '\n'.join(out)

    def test_inside_keeps_its_verdict(self):
        for fig, what, inp, want in self.cases():
            if want is None:
                continue
            with self.subTest(figure=fig, case=what):
                r = self.decide(inp)
                self.assertEqual(r.verdict, want, r.reason)
                self.assertNotIn('implausible', r.reason)
                with self.with_table(''):          # as without the table
                    self.assertEqual((self.decide(inp).verdict, self.decide(inp).reason), (r.verdict, r.reason))

    def test_outside_is_implausible(self):
        for fig, what, inp, want in self.cases():
            if want is not None:
                continue
            with self.subTest(figure=fig, case=what):
                r = self.decide(inp)
                self.assertEqual(r.verdict, 'ERROR', r.reason)
                self.assertTrue(r.reason.startswith(f'implausible: {fig} '), r.reason)
                self.assertTrue('is outside its range [' in r.reason or 'cannot be checked' in r.reason, r.reason)
                self.assertEqual(r.metrics['implausible']['figure'], fig)

    def test_each_range_is_needed(self):
        # without its range, every outside figure is no longer implausible:
        # the tests above fail when a range is removed
        for fig, what, inp, want in self.cases():
            if want is not None:
                continue
            with self.subTest(figure=fig, case=what), self.with_table(self.without(fig)):
                r = self.decide(inp)
                self.assertFalse(r.reason.startswith(f'implausible: {fig} '), r.reason)

    def test_every_range_has_both_cases(self):
        have = {}
        for fig, _, _, want in self.cases():
            have.setdefault(fig, set()).add(want is None)
        for r in plausible.load().ranges:
            self.assertEqual(have.get(r.figure), {True, False}, f'{r.where}: {r.figure} needs a figure inside and one outside')

    def test_the_observed_forgeries(self):
        # issue 26: what each observed figure gets now, and why
        got = {what: self.decide(inp) for _, what, inp, _ in self.cases()}
        r = got['observed: -0.331 (fewer allocations than reads)']
        self.assertIn('implausible: ra_extra_allocs_per_page -0.331 is outside its range [0, 32]', r.reason)
        for lab in ('01', '06'):
            r = got[f'observed on lab {lab}: 0.0000 over 4096 pages']
            self.assertIn('implausible: si_lock_acq_per_page 0.0000 is outside its range [0.00195312, inf]', r.reason)
        # 8 takes for 512 slots is the reference's own figure: no range can tell it from honest work
        self.assertEqual(got['observed: 8 for 512 (the reference: 512 / 64)'].verdict, 'PASS')
        r = got['observed: 1 take for 512 slots on two devices']
        self.assertIn('implausible: batch_free_si_lock_acq 1 is outside its range [2, 1024] (batch_devices 2, '
                      'batch_slots 512)', r.reason)

    def test_lockfp_and_latency_judge_the_runs_they_read(self):
        # the grade runs lockstat.sh as its own record (lockfp-mine) and
        # the refault runs as measurements (run.measure_run: id "run"):
        # those pass their figures on, and the lockfp and latency checks
        # themselves say "implausible:" (pipeline.py would otherwise prefix a
        # failed lockfp-mine's reason with "lock_stat run on your kernel:")
        con = self.guest_console('lockfp-mine', {'pages': 4096, 'si_lock_acq': 0, 'si_lock_acq_per_page': '0.0000',
                                                 'swapped_pages': '4096.000'},
                                 ['lockstat-workload PASS 4096 pages x 1 rounds swapped out and back on 2 threads',
                                  'lockstat PASS lock_stat collected over 4096 swapped pages'])
        sec = con.sections()[0]
        mine_r = verdict.decide_guest(Check('lockfp', 'lockfp-mine', 'guest', ['debug', 'pmem', 'lockstat.sh']),
                                      con, sec, 60, last=True)
        self.assertEqual(mine_r.verdict, 'PASS', mine_r.reason)
        mine = {k: str(v) for k, v in sec.metrics().items()}
        r = verdict.decide_lockfp(self.LOCKFP['06'], mine, {'si_lock_acq_per_page': '0.0239'}, '06', 4.0)
        self.assertTrue(r.reason.startswith('implausible: si_lock_acq_per_page 0.0000'), r.reason)
        con = self.guest_console('run', {'swapped_pages': '16384.000', 'fault_median_us': '0.010'},
                                 ['refault PASS 16384 pages x 1 rounds swapped out and back on 2 threads'])
        run_r = verdict.decide_guest(Check('-', 'run', 'guest', ['fast', 'pmem', 'refault.sh']), con,
                                     con.sections()[0], 600, last=True)
        self.assertEqual(run_r.verdict, 'PASS', run_r.reason)

    def test_figures_and_bounds_are_what_the_scripts_print(self):
        # a range whose figure or bound the run never prints would never
        # apply, or always fail: each name is printed by the check's script
        # (or by swaptest, which it runs)
        def text(*names):
            out = ''
            for n in names:
                with open(os.path.join(ROOT, n)) as f:
                    out += f.read()
            return out
        swaptest = 'vm/guest/swaptest.c'
        scripts = {c.id: text(f'tests/guest/{c.script}', swaptest) for c in checks.load() if c.kind == 'guest'}
        for c in checks.load():
            if c.kind == 'lockfp':
                scripts[c.id] = text('tests/guest/lockstat.sh', swaptest)
            if c.kind == 'latency':
                scripts[c.id] = text('tests/guest/refault.sh', swaptest)
        tab = plausible.load()
        for r in tab.ranges:
            ids = [i for i in scripts if r.applies(i)]
            self.assertTrue(ids, f'{r.where}: {r.checks} names no check of grader/checks.tsv')
            names = [r.figure] + [n for e in (r.low, r.high) if e for n in e.names if n not in tab.consts]
            for i in ids:
                for n in names:
                    self.assertTrue(re.search(rf'\b(metric|put)(\(| )"?{n}\b', scripts[i]),
                                    f'{r.where}: {i} prints no {n}')

    def test_saved_consoles_keep_their_verdicts(self):
        # the real consoles of tests/unit/data/core: every check, decided
        # with and without the table, the same
        for name in ('kunit-pass', 'kunit-fail', 'late-error', 'next', 'split-line', 'stuck', 'hung-swapoff'):
            con = load(name)
            secs = [s for s in con.sections() if s.id]
            smap = logs.SystemMap(os.path.join(CORE, f'{name}.System.map'))
            for s in secs:
                script = {'kunit': 'kunit.sh'}.get(s.id.split('-')[0], 'passes.sh')
                args = [s.id.split('-')[1]] if s.id.startswith('kunit-') else []
                c = Check('all', s.id, 'guest', ['fast', 'pmem', script, *args])
                with self.subTest(console=name, check=s.id):
                    r = verdict.decide_guest(c, con, s, 20, smap, last=s is secs[-1])
                    with self.with_table(''):
                        r0 = verdict.decide_guest(c, con, s, 20, smap, last=s is secs[-1])
                    self.assertEqual((r.verdict, r.reason), (r0.verdict, r0.reason))

    def test_recorded_figures_are_plausible(self):
        # every figure the saved grades of tests/unit/data/scoring hold
        # (the lab starts and broken variants, real runs of 2026-12-04;
        # the starts of labs 04-06 of 2026-12-07, whose latency was not run),
        # with the workload figures their scripts print now beside them
        # (512 slots over the two devices of `two` mode; 4096 pages)
        n = 0
        for p in sorted(os.listdir(os.path.join(DATA, 'scoring'))):
            g = report.read_json(os.path.join(DATA, 'scoring', p))
            for r in g.records:
                m = dict(r.metrics)
                if r.id == 'latency' and r.verdict == 'SKIP':
                    continue
                if r.id == 'batch-free':
                    m.update(batch_slots='512', batch_devices='2')
                if r.id.startswith('lockfp-'):
                    m = {'si_lock_acq_per_page': f"{m['mine']:.4f}", 'pages': '4096', 'swapped_pages': '4096.000'}
                figs = [m] if r.id != 'latency' else [{'fault_median_us': x} for x in m['mine_medians_us']]
                for f in figs:
                    with self.subTest(grade=p, check=r.id):
                        self.assertIsNone(plausible.find(r.id, f), f)
                        n += any(x.applies(r.id) and x.figure in f for x in plausible.load().ranges)
        self.assertGreaterEqual(n, 10)

    def test_reports_carry_it_as_an_error(self):
        # lab 03's own readahead-free, implausible: it earns nothing (as any
        # ERROR), and every report says why
        r = self.decide(self.rafree(2048, 1370))
        recs = Scoring.records(self, '03')
        recs = [r if x.id == 'readahead-free' else x for x in recs]
        g = Scoring.grade(self, '03', recs)
        self.assertEqual(g.score, 60)
        x = next(x for x in g.records if x.id == 'readahead-free')
        self.assertEqual((x.verdict, g.part(x).earned, g.part(x).points), ('ERROR', 0, 40))
        t = report.junit_tree(g).getroot()
        e = t.find("testcase[@name='readahead-free']/error")
        self.assertTrue(e.get('message').startswith('ERROR: implausible: ra_extra_allocs_per_page -0.331'))
        self.assertIn('METRIC ra_extra_allocs_per_page -0.331', e.text)
        gs = next(x for x in report.gradescope(g)['tests'] if x['name'] == 'readahead-free')
        self.assertEqual(gs['status'], 'failed')
        self.assertTrue(gs['output'].startswith('ERROR: implausible: ra_extra_allocs_per_page'))
        with tempfile.TemporaryDirectory() as d:
            paths = Reports.write_all(self, g, d)
            rc, out = Reports.validate(self, paths)
            self.assertEqual(rc, 0, out)
            h = report.read_json(paths[0])
        y = next(x for x in h.records if x.id == 'readahead-free')
        self.assertEqual((y.verdict, y.metrics['implausible']['figure']), ('ERROR', 'ra_extra_allocs_per_page'))

    def test_malformed_table_is_named(self):
        good = 'const\tB\t64\nrange\tbatch-alloc\tbatch_alloc_si_lock_acq\tceil(batch_slots / B)\t-\twhy\n'
        self.assertEqual(len(plausible.load(self._write(good)).ranges), 1)
        for bad, says in (('range\tx\tfig\t1\n', 'expected'),
                          ('range\tx\tfig\t-\t-\twhy\n', 'needs LOW or HIGH'),
                          ('range\tx\tfig\t__import__("os")\t-\twhy\n', 'only numbers'),
                          ('range\tx\tfig\tfig + 1\t-\twhy\n', 'bounds itself'),
                          ('range\tx\tfig\t1 +\t-\twhy\n', 'not an expression'),
                          ('range\tx\tfig\t2 ** 3\t-\twhy\n', 'only numbers'),
                          ('const\tB\tmany\n', 'expected a number'),
                          ('const\tB\t1\nconst\tB\t2\n', 'a new name'),
                          ('range\tx\tfig\t1\t2\twhy\nrange\tx\tfig\t1\t3\twhy\n', 'a second range'),
                          ('limit\tx\n', 'expected')):
            with self.subTest(line=bad):
                p = self._write(bad)
                with self.assertRaises(checks.TableError) as e:
                    plausible.load(p)
                self.assertIn(f'{p}:', str(e.exception))
                self.assertIn(says, str(e.exception))
        plausible.load()     # the shipped table reads

    def _write(self, text):
        d = tempfile.mkdtemp()
        self.addCleanup(lambda: subprocess.run(['rm', '-rf', d]))
        p = os.path.join(d, 'p.tsv')
        with open(p, 'w') as f:
            f.write(text)
        return p

    def test_a_bad_table_stops_the_grade_loudly(self):
        # read when the first check is decided: a TableError (grader error,
        # exit 3), never a check that silently goes unchecked
        with self.with_table('range\tbatch-free\tbatch_free_si_lock_acq\tlots\n'):
            with self.assertRaises(checks.TableError):
                self.decide(self.batchfree(2))


class Numbers(unittest.TestCase):
    """tests/numbers, the handout number checker, on a made-up kit: each
    way a handout can disagree with the kit fails."""

    def setUp(self):
        from importlib.machinery import SourceFileLoader
        self.n = SourceFileLoader('numbers', os.path.join(ROOT, 'tests', 'numbers')).load_module()
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name
        os.makedirs(os.path.join(self.root, 'labs', '01-x'))
        os.makedirs(os.path.join(self.root, 'solutions'))
        os.makedirs(os.path.join(self.root, 'out', 'stages'))
        with open(os.path.join(self.root, 'out', 'stages', 'lockstat.md'), 'w') as f:
            f.write('| stage | pages | si->lock acq/page | c | cluster | x |\n'
                    '| 00 | 4096 | 6.5029 | 0.3 | 0.0000 | 0 |\n| 06 | 4096 | 0.0239 | 0 | 6.9717 | 0 |\n')
        self.n.OUT = os.path.join(self.root, 'out')
        self.write('solutions/README.md', 'nothing measured here\n')

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, rel, text):
        with open(os.path.join(self.root, rel), 'w') as f:
            f.write(text)

    def run_check(self, handout, rows):
        self.write('labs/01-x/README.md', handout)
        table = [dict(zip(('file', 'quoted', 'value', 'command'), r), line=i) for i, r in enumerate(rows, 1)]
        return self.n.check(table, self.root)

    CMD = 'PAGES=4096 bench/lockstat-table'
    GOOD = 'The table (`PAGES=4096 bench/lockstat-table`) says 6.50 at 00, 0.024 at 06: 270x.\n'
    ROWS = [('labs/01-x/README.md', '6.50', 'lockstat:00', CMD),
            ('labs/01-x/README.md', '0.024', 'lockstat:06', CMD),
            ('labs/01-x/README.md', '270x', 'lockstat:00/lockstat:06', CMD)]

    def test_agreeing_handout_passes(self):
        ok, bad, skip = self.run_check(self.GOOD, self.ROWS)
        self.assertEqual((len(ok), bad, skip), (3, [], []))

    def test_unlisted_number_fails(self):
        _, bad, _ = self.run_check(self.GOOD + 'It takes 12 us.\n', self.ROWS)
        self.assertTrue(any('12 is not in labs/numbers.tsv' in b for b in bad), bad)

    def test_stale_number_fails(self):
        _, bad, _ = self.run_check(self.GOOD.replace('6.50', '6.54'),
                                   [('labs/01-x/README.md', '6.54', 'lockstat:00', self.CMD)] + self.ROWS[1:])
        self.assertTrue(any('quotes 6.54' in b and '6.503' in b for b in bad), bad)

    def test_command_must_be_named_nearby(self):
        far = 'The table (`PAGES=4096 bench/lockstat-table`).\n' + '\n' * 20 + 'It says 6.50.\n'
        _, bad, _ = self.run_check(far, self.ROWS[:1])
        self.assertTrue(any('is not named within' in b for b in bad), bad)

    def test_missing_output_is_a_skip_not_a_pass(self):
        os.remove(os.path.join(self.root, 'out', 'stages', 'lockstat.md'))
        ok, bad, skip = self.run_check(self.GOOD, self.ROWS)
        self.assertEqual((ok, bad, len(skip)), ([], [], 3))

    def test_source_line_references(self):
        repo = os.path.join(ROOT, 'work', 'linux')
        if not os.path.isdir(repo):
            self.skipTest('no kernel tree (make setup)')
        self.write('labs/01-x/README.md', 'See mm/swapfile.c:1 `lock_cluster()` and mm/swapfile.c:355 `lock_cluster()`.\n')
        os.environ['LINUX_REPO'] = repo
        try:
            ok, bad = self.n.source_lines(self.root)
        finally:
            del os.environ['LINUX_REPO']
        self.assertEqual(len(ok), 1, ok)
        self.assertTrue(bad and 'mm/swapfile.c:1 does not hold lock_cluster' in bad[0], bad)

    def test_significant_digits(self):
        self.assertEqual(self.n.sig_round(62.8, '60x'), 60.0)
        self.assertEqual(self.n.sig_round(0.0242, '0.024'), 0.024)
        self.assertEqual(self.n.sig_round(6.5029, '6.50'), 6.5)
        self.assertNotEqual(self.n.sig_round(6.5437, '6.50'), 6.5)

    # 5. the handouts' openings and the one gate table
    BOX = ('# Lab 01: x\n\n'
           '> - **You build:** a thing.\n'
           '> - **Done when:** `make grade LAB=01` scores 100.\n'
           '> - **You learn:** how.\n'
           '> - **Time:** 1.0 to 2.0 h.\n'
           '\n## The structure that changes\n\n```\n a -> b\n```\n\nText.\n')

    def openings(self, handout):
        self.write('labs/01-x/README.md', handout)
        return self.n.openings(self.root)

    def test_a_box_of_twelve_lines_passes(self):
        box = self.BOX.replace('> - **You learn:** how.\n', '> - **You learn:** how.\n' + '>   more.\n' * 8)
        self.assertEqual(box.split('\n\n')[1].count('\n') + 1, 12)
        ok, bad = self.openings(box)
        self.assertEqual(bad, [])
        self.assertTrue(any('labs/01-x/README.md: opens with its box' in o for o in ok), ok)

    def test_a_box_of_thirteen_lines_fails(self):
        box = self.BOX.replace('> - **You learn:** how.\n', '> - **You learn:** how.\n' + '>   more.\n' * 9)
        _, bad = self.openings(box)
        self.assertTrue(any('the opening box has 13 lines, at most 12' in b for b in bad), bad)

    def test_the_box_items_and_the_picture_are_checked(self):
        _, bad = self.openings(self.BOX.replace('You learn', 'You enjoy'))
        self.assertTrue(any("the box's items are" in b for b in bad), bad)
        _, bad = self.openings(self.BOX.replace('## The structure that changes', '## Later'))
        self.assertTrue(any('the picture' in b and 'does not follow the box' in b for b in bad), bad)
        _, bad = self.openings(self.BOX.replace('> - **You build:**', '**You build:**'))
        self.assertTrue(bad, 'a handout without a box passed')

    def real_kit_copy(self, lab_dir):
        """the kit's README.md (its gate table) and lab LAB_DIR's handout,
        copied into the made-up kit"""
        for rel in ('README.md', f'labs/{lab_dir}/README.md'):
            os.makedirs(os.path.dirname(os.path.join(self.root, rel)), exist_ok=True)
            with open(os.path.join(ROOT, rel), encoding='utf-8') as f:
                self.write(rel, f.read())
        import shutil
        shutil.rmtree(os.path.join(self.root, 'labs', '01-x'))
        with open(os.path.join(self.root, 'labs', lab_dir, 'README.md'), encoding='utf-8') as f:
            return f.read()

    def test_the_kit_handouts_on_a_copy(self):
        # lab 03's handout as it is passes; with a 13-line box, or with the
        # gate table pasted back (the old per-lab form: its header and
        # rows, or rows alone), it fails
        name = 'labs/03-readahead-skip/README.md'
        text = self.real_kit_copy('03-readahead-skip')
        ok, bad = self.n.openings(self.root)
        self.assertEqual(bad, [])
        self.assertIn(f'{name}: opens with its box and picture, no copy of the gate table', ok)
        lines = text.split('\n')
        n = 2
        while lines[n].startswith('>'):
            n += 1
        self.write(name, '\n'.join(lines[:n] + ['>   more.'] * (13 - (n - 2)) + lines[n:]))
        _, bad = self.n.openings(self.root)
        self.assertTrue(any(b.startswith(f'{name}:3: the opening box has 13 lines') for b in bad), bad)
        with open(os.path.join(ROOT, 'README.md'), encoding='utf-8') as f:
            gates = [ln for ln in self.n.GATE_TABLE.search(f.read()).group(1).split('\n') if ln.startswith('| ')]
        self.assertGreater(len(gates), 10, 'README.md has no gate table')
        old = ['| ' + ' | '.join(ln.strip('| ').split(' | ')[:4]) + ' |' for ln in gates]   # Gate Cap Kernel Why
        end = '<!-- end of score table -->'
        for pasted in (old, old[2:], gates[2:4]):
            self.write(name, text.replace(end, '\n'.join(pasted) + '\n\n' + end))
            _, bad = self.n.openings(self.root)
            self.assertTrue(any(b.startswith(f'{name}:') and 'repeats the gate table' in b for b in bad),
                            (pasted[:2], bad))


class Model(unittest.TestCase):
    """bench/benchlib/model.py: the MVA contention model and its chart."""

    def test_mva(self):
        self.assertAlmostEqual(model.mva(3.0, 27.0, 1), 30.0)
        # a lock held 3 us of every 30 us saturates near 10 threads
        self.assertLess(model.mva(3.0, 27.0, 4), 32.0)
        self.assertGreater(model.mva(3.0, 27.0, 16), 16 * 3.0)
        # no lock time: no contention, whatever the threads
        self.assertAlmostEqual(model.mva(0.0, 27.0, 16), 27.0)

    def test_cli_writes_json_and_svg(self):
        import xml.etree.ElementTree as ET
        with tempfile.TemporaryDirectory() as d:
            for v, l0, l6 in ((2, 30.0, 28.0), (8, 120.0, 60.0)):
                os.makedirs(os.path.join(d, f'b{v}'))
                rows = [{'stage': s, 'refault_median_us': l, 'refault_median_us_min': l * .9,
                         'refault_median_us_max': l * 1.1, 'si_lock_hold_ns_per_page': h}
                        for s, l, h in (('00', l0, 3000.0), ('06', l6, 40.0))]
                with open(os.path.join(d, f'b{v}', 'results.json'), 'w') as f:
                    json.dump({'environment': {'vcpus': v, 'host_cores': 2}, 'stages': rows}, f)
            p = subprocess.run([os.path.join(ROOT, 'bench', 'bench-model'), os.path.join(d, 'o'),
                                os.path.join(d, 'b2'), os.path.join(d, 'b8')], capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            j = json.load(open(os.path.join(d, 'o', 'model.json')))
            self.assertEqual((j['00']['S_us'], j['00']['Z_us'], j['00']['calibrated_at_vcpus']), (3.0, 27.0, 2))
            self.assertEqual(j['06']['measured_us']['8']['median'], 60.0)
            # on 2 host cores at most 2 threads queue, whatever the vCPUs
            self.assertEqual(j['00']['predicted_here_us']['16'], j['00']['predicted_us']['2'])
            self.assertGreater(j['00']['predicted_us']['16'], j['00']['predicted_us']['2'])
            root = ET.parse(os.path.join(d, 'o', 'model.svg')).getroot()
            text = ' '.join(t.text or '' for t in root.iter('{http://www.w3.org/2000/svg}text'))
            self.assertIn('seed: before the series (15 us', text)
            self.assertIn('stage 00: model', text)

    def test_lockdep_slowdown_scales_the_hold_time(self):
        # the debug kernel's fault is 5x the fast one's: a 30 us debug hold
        # is 6 us of a 30 us fast fault; without the debug median, no scaling
        row = {'stage': '00', 'refault_median_us': 30.0, 'si_lock_hold_ns_per_page': 30000.0,
               'debug_fault_median_us': 150.0}
        r = model.predict({'00': {2: row}})['00']
        self.assertEqual((r['lockdep_slowdown'], r['S_us'], r['Z_us'], r['S_debug_us']), (5.0, 6.0, 24.0, 30.0))
        r = model.predict({'00': {2: dict(row, debug_fault_median_us=None)}})['00']
        self.assertEqual((r['lockdep_slowdown'], r['S_us'], r['Z_us']), (1.0, 30.0, 0.0))


class Limits(unittest.TestCase):
    def test_every_guest_check_has_a_measured_limit(self):
        """A guest check without a row in grader/limits.tsv gets 600 s, and
        a boot takes the longest limit of its checks: one new check left
        out would let a hung kernel hold every check of its boot for ten
        minutes (scripts/author/measure-limits writes the rows)."""
        from swaplab import pipeline
        have = pipeline.limits()
        all_checks = checks.load()
        want = {c.id for c in all_checks if c.kind == 'guest'}
        if any(c.kind == 'lockfp' for c in all_checks):
            want.add('lockfp-mine')
        self.assertEqual(sorted(want - set(have)), [],
                         'guest checks with no row in grader/limits.tsv (run scripts/author/measure-limits '
                         'on the reference grades of tests/stages, full tier)')


class GeneratedFiles(unittest.TestCase):
    """scripts/check-generated: a submission's build must generate the
    reference build's asm-offsets.h, bounds.h and linker script."""

    def run_check(self, ref, obj):
        p = subprocess.run([os.path.join(ROOT, 'scripts', 'check-generated'), ref, obj],
                           capture_output=True, text=True)
        return p.returncode, p.stderr

    @staticmethod
    def tree(d, files):
        for rel, text in files.items():
            os.makedirs(os.path.join(d, os.path.dirname(rel)), exist_ok=True)
            with open(os.path.join(d, rel), 'w') as f:
                f.write(text)

    def test_same_passes_and_a_difference_is_refused(self):
        gen = {'include/generated/asm-offsets.h': '#define pt_regs_bx 40 /* x */\n',
               'include/generated/bounds.h': '#define NR_PAGEFLAGS 22\n',
               'arch/x86/kernel/vmlinux.lds': 'OUTPUT_FORMAT("elf64-x86-64")\n'}
        with tempfile.TemporaryDirectory() as ref, tempfile.TemporaryDirectory() as obj:
            self.tree(ref, gen)
            self.tree(obj, gen)
            self.assertEqual(self.run_check(ref, obj), (0, ''))
            self.tree(obj, {'include/generated/asm-offsets.h': gen['include/generated/asm-offsets.h'] +
                            '\tkunit_do_failed_assertion = swap_stat_flush;\n'})
            rc, err = self.run_check(ref, obj)
            self.assertEqual(rc, 4)
            self.assertIn('refused: what the build generated: include/generated/asm-offsets.h', err)
            # a link in place of the file, and a file the build lost
            os.remove(os.path.join(obj, 'include/generated/asm-offsets.h'))
            os.symlink(os.path.join(ref, 'include/generated/asm-offsets.h'),
                       os.path.join(obj, 'include/generated/asm-offsets.h'))
            self.assertEqual(self.run_check(ref, obj)[0], 4)
            os.remove(os.path.join(obj, 'arch/x86/kernel/vmlinux.lds'))
            self.assertIn('vmlinux.lds', self.run_check(ref, obj)[1])

    def test_a_file_the_reference_never_built_is_not_compared(self):
        with tempfile.TemporaryDirectory() as ref, tempfile.TemporaryDirectory() as obj:
            self.tree(obj, {'include/generated/bounds.h': 'anything\n'})
            self.assertEqual(self.run_check(ref, obj), (0, ''))
            self.assertEqual(self.run_check(ref, os.path.join(obj, 'nope'))[0], 3)


class FirstBuild(unittest.TestCase):
    """The first grade with an empty build cache says it builds two
    kernels from scratch, and about how long that takes; later ones don't."""

    def test_said_only_while_no_kernel_was_built(self):
        from swaplab import run
        with tempfile.TemporaryDirectory() as d:
            old = os.environ.get('SWAPLAB_CACHE')
            os.environ['SWAPLAB_CACHE'] = d
            try:
                msg = kernels.first_build()
                self.assertIn('builds two kernels', msg or '')
                self.assertIn('20 minutes', msg or '')
                self.assertIn(d, msg or '')
                # an object folder that was configured but never linked
                os.makedirs(os.path.join(d, 'obj', 'debug'))
                self.assertIsNotNone(kernels.first_build())
                open(os.path.join(d, 'obj', 'debug', 'vmlinux'), 'w').close()
                self.assertIsNone(kernels.first_build())
            finally:
                if old is None:
                    del os.environ['SWAPLAB_CACHE']
                else:
                    os.environ['SWAPLAB_CACHE'] = old

    def test_the_time_it_quotes_is_the_readmes(self):
        from swaplab import run
        with open(os.path.join(ROOT, 'README.md'), encoding='utf-8') as f:
            readme = f.read()
        self.assertIn('Time of the first build', readme)
        self.assertIn('plan on about 20 minutes', ' '.join(readme.split()))
        self.assertIn('Time of the first build', kernels.FIRST_BUILD_NOTE)


class CommandLine(unittest.TestCase):
    def run_grade(self, *args, env=None):
        with tempfile.TemporaryDirectory() as d:
            paths = [os.path.join(d, 'r.json'), os.path.join(d, 'r.xml'), os.path.join(d, 'gs.json')]
            p = subprocess.run([os.path.join(ROOT, 'grader', 'grade'), *args, '--json', paths[0], '--junit',
                                paths[1], '--gradescope', paths[2]], capture_output=True, text=True,
                               env=dict(os.environ, **(env or {})))
            rc, out = Reports.validate(self, paths)
            self.assertEqual(rc, 0, out)
            with open(paths[0]) as f:
                return p.returncode, json.load(f), p.stdout + p.stderr

    def test_usage_error_is_a_grader_error_with_reports(self):
        rc, j, _ = self.run_grade('--lab', '09', '--stage', '01')
        self.assertEqual((rc, j['status'], j['checks'][0]['verdict']), (3, 'error', 'ERROR'))
        rc, j, _ = self.run_grade('--lab', '01')
        self.assertEqual(rc, 3)
        rc, j, _ = self.run_grade('--lab', '01', '--stage', '01', '--only', 'nope')
        self.assertEqual(rc, 3)

    def test_missing_repository_is_a_grader_error(self):
        rc, j, out = self.run_grade('--lab', '01', '--stage', '01', env={'LINUX_REPO': '/nonexistent'})
        self.assertEqual((rc, j['status']), (3, 'error'))
        self.assertIn('make setup', j['message'])

    @unittest.skipUnless(os.path.isdir(os.path.join(os.environ.get('LINUX_REPO') or os.path.join(ROOT, 'work', 'linux'),
                                                    '.git')), 'no work repository (make setup)')
    def test_rejection_exit_2_with_every_check_listed(self):
        rc, j, out = self.run_grade('--lab', '01', '--patch', os.path.join(ROOT, 'tests', 'broken', 'bad-forbidden.patch'))
        self.assertEqual((rc, j['status']), (2, 'rejected'))
        self.assertEqual(j['checks'][0]['id'], 'hygiene')
        self.assertIn('Makefile', j['checks'][0]['reason'])
        self.assertEqual((j['score'], j['max_score']), (0, 100))
        self.assertTrue(all(c['verdict'] == 'SKIP' for c in j['checks'][1:]))
        # a --patch grade runs the latency check by default; --no-latency
        # lists it as not counted
        lat = next(c for c in j['checks'] if c['id'] == 'latency')
        self.assertTrue(lat['counted'])
        rc, j, out = self.run_grade('--lab', '01', '--no-latency', '--patch',
                                    os.path.join(ROOT, 'tests', 'broken', 'bad-forbidden.patch'))
        lat = next(c for c in j['checks'] if c['id'] == 'latency')
        self.assertEqual((lat['counted'], lat['role']), (False, 'off'))

    def test_help_lists_exit_codes(self):
        p = subprocess.run([os.path.join(ROOT, 'grader', 'grade'), '--help'], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0)
        for code in ('0 ', '1 ', '2 ', '3 ', '130'):
            self.assertIn(f'\n  {code}', p.stdout)


    def test_run_group_reaches_the_runner(self):
        # grader/run-group (tests/smoke's runner tests) builds its checks
        # itself: with no kernel image it must get as far as the runner and
        # give every check a recorded verdict, not die on its own arguments
        with tempfile.TemporaryDirectory() as d:
            p = subprocess.run([os.path.join(ROOT, 'grader', 'run-group'), os.path.join(d, 'w'),
                                os.path.join(d, 'no-image'), 'fast', 'pmem', '5', 'x=smoke.sh'],
                               capture_output=True, text=True, timeout=120)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertRegex(p.stdout, r'^x ERROR could not run the guest')
            with open(os.path.join(d, 'w', 'x.record.json')) as f:
                self.assertEqual(json.load(f)['verdict'], 'ERROR')
            p = subprocess.run([os.path.join(ROOT, 'grader', 'run-group'), os.path.join(d, 'w'),
                                os.path.join(d, 'no-image'), 'fast', 'pmem', '5', 'x=no-such-script.sh'],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 3)

if __name__ == '__main__':
    kitrun.main(__name__, 'core')
