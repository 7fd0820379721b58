"""Host-only tests of the grader core (grader/swaplab): saved console and
build logs go through the parsers and the verdict functions, and every
report is validated.  No QEMU, no kernel build; seconds.

The consoles in data/core/ are real runs of the stage 06 fast kernel
(grader/run-group or grader/grade; the .run file beside each holds its nonce
and vm/run's exit code; the .System.map files are the images' maps cut to the
symbols the consoles name), except kunit-fail.console, which is kunit-pass.console with one
case turned into a failure in the format lib/kunit/test.c prints.  Both gained lab 01's
fourth case (lab01_continuation, added after they were recorded) as lib/kunit/test.c prints it.
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, 'grader'))

from swaplab import checks, logs, model, report, scoring, verdict  # noqa: E402
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
        for name in ('lockdep', 'panic', 'oops', 'bugon', 'softlockup', 'rcu', 'warn', 'sleep', 'hung'):
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
        self.assertEqual(got['kunit-06'].reason, '3 KUnit cases passed')
        self.assertEqual(got['kunit-06'].metrics['cases']['lab06_drain'], 'SUCCESS')

    def test_kunit_failure_names_the_case_and_message(self):
        con = load('kunit-fail')
        r = decide_all(con, [guest('kunit-06', 'kunit.sh', '06', mode='mixed'),
                             guest('kunit-01', 'kunit.sh', '01', mode='mixed')])['kunit-06']
        self.assertEqual(r.verdict, 'FAIL')
        self.assertIn('kunit-06.drain lab06: disabling the cache (swapoff) must drain', r.reason)
        self.assertIn('not ok 2 lab06_drain', r.excerpt)
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
                    '[    1.000000]     1..3'] + [f'[    1.000000]     ok {n} lab06_{c}' for n, c in
                                                  ((1, 'refill'), (2, 'drain'), (3, 'low_watermark'))] + \
                   ['[    1.000000] ok 1 swaplab-lab06']
            return lines[:i] + fake + lines[i:]
        r = self._edited(forge)
        self.assertEqual(r.verdict, 'FAIL')
        self.assertIn('2 KTAP blocks', r.reason)

    def test_kunit_missing_or_skipped_case_fails(self):
        r = self._edited(lambda ls: [l for l in ls if 'ok 3 lab06_low_watermark' not in l])
        self.assertEqual(r.verdict, 'FAIL')
        self.assertIn('cases missing: lab06_low_watermark', r.reason)
        r = self._edited(lambda ls: [l.replace('ok 2 lab06_drain', 'ok 2 lab06_drain # SKIP no cpus') for l in ls])
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


def checks_allow():
    from swaplab.grade import allowlist
    return allowlist()


class Reports(unittest.TestCase):
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
        self.assertLessEqual(len(n.reason), verdict.REASON_CHARS)
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
        self.assertIn('not ok 2 lab06_drain', f.text)
        self.assertIsNotNone(t.find("testcase[@name='stuck']/error"))

    def test_gradescope_output_holds_reason_and_excerpt(self):
        d = report.gradescope(self.grade())
        t = next(x for x in d['tests'] if x['name'] == 'stuck')
        self.assertTrue(t['output'].startswith('TIMEOUT: timeout'))
        self.assertIn('kernel_clone', t['output'])
        # the tests' points add up to the uncapped score; the top-level score
        # is that under the failing gates' caps (build-fast: 0)
        self.assertEqual(sum(x['score'] for x in d['tests']), 100)
        self.assertEqual(d['score'], 0)
        self.assertIn('capped at 0 (from 100) by the gate build-fast', d['output'])

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
        for lab in ('01', '02', '03', '04', '05', '06'):
            self.assertEqual(self.grade(lab, self.records(lab)).score, 100, lab)

    def test_every_lab_start_scores_at_most_10(self):
        for lab in ('01', '02', '03', '04', '05', '06'):
            g = report.read_json(os.path.join(self.SC, f'start-{lab}.json'))
            g.apply_scoring()
            self.assertLessEqual(g.score, 10, f'lab {lab} start: {report.text_table(g)}')

    def test_partial_credit_per_kunit_case(self):
        g = self.grade('02', self.records('02', **{'kunit-02': ('FAIL', {'lab02_trunks': 'FAILURE'})}))
        self.assertEqual(g.score, 80)
        r = next(x for x in g.records if x.id == 'kunit-02')
        self.assertEqual((r.score, r.points, r.role), (40, 60, 'own'))
        # a case that never printed (the suite crashed) earns nothing
        recs = self.records('01', **{'kunit-01': ('ERROR', None)})
        del next(x for x in recs if x.id == 'kunit-01').metrics['cases']['lab01_cluster_order']
        self.assertEqual(self.grade('01', recs).score, 82.5)

    def test_failing_gate_caps_and_says_why(self):
        g = self.grade('01', self.records('01', **{'lockdep-clean': ('ERROR', None)}))
        self.assertEqual((g.score, g.scoring['uncapped'], g.scoring['cap']), (50, 100, 50))
        self.assertIn('lockdep-clean', g.capped_line())
        self.assertIn('locking bug', g.capped_line())
        r = next(x for x in g.records if x.id == 'lockdep-clean')
        self.assertEqual((r.role, r.points, r.cap, report.points_cell(r)), ('gate', 0, 50, 'gate<=50'))
        # the lowest cap wins; a capped score never exceeds what was earned
        g = self.grade('03', self.records('03', **{'kunit-01': ('FAIL', {}), 'pageout': ('FAIL', None),
                                                   'kunit-03': ('FAIL', {'lab03_swapcount': 'FAILURE'})}))
        self.assertEqual((g.score, g.scoring['cap']), (50, 50))
        g = self.grade('03', self.records('03', **{'kunit-03': ('FAIL', {'lab03_swapcount': 'FAILURE',
                                                                         'lab03_skip_unused': 'FAILURE'}),
                                                   'readahead-free': ('FAIL', None),
                                                   'kunit-02': ('FAIL', {})}))
        self.assertEqual((g.score, g.capped_line()), (0, ''))

    def test_guard_case_caps_without_points(self):
        # lab 06's start already drains: the case earns nothing, but breaking it caps
        g = self.grade('06', self.records('06', **{'kunit-06': ('FAIL', {'lab06_drain': 'FAILURE'})}))
        self.assertEqual((g.scoring['uncapped'], g.score), (100, 50))
        self.assertIn('kunit-06.lab06_drain', g.capped_line())

    def test_latency_off_is_not_counted(self):
        recs = self.records('06')
        off = Record('latency', 'all', 0).set('SKIP', 'not run (not counted)')
        off.counted = False
        g = self.grade('06', recs + [off])
        self.assertEqual(g.score, 100)
        self.assertEqual((off.role, report.points_cell(off)), ('off', '-'))
        on = Record('latency', 'all', 0).set('FAIL', 'slower')
        self.assertEqual(self.grade('06', self.records('06') + [on]).score, 80)

    def test_rejected_and_error_score_zero_and_reports_valid(self):
        for st in ('rejected', 'error', 'interrupted'):
            g = self.grade('01', self.records('01'), status=st)
            self.assertEqual(g.score, 0 if st != 'interrupted' else 100, st)
            with tempfile.TemporaryDirectory() as d:
                rc, out = Reports.validate(self, Reports.write_all(self, g, d))
                self.assertEqual(rc, 0, out)

    def test_the_validator_refuses_a_wrong_score(self):
        g = self.grade('01', self.records('01', **{'lockdep-clean': ('ERROR', None)}))
        g.scoring['score'] = 100
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
    def m(takes):
        return {'si_lock_acq_per_page': takes}

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

    CMD = 'PAGES=4096 scripts/lockstat-table'
    GOOD = 'The table (`PAGES=4096 scripts/lockstat-table`) says 6.50 at 00, 0.024 at 06: 270x.\n'
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
        far = 'The table (`PAGES=4096 scripts/lockstat-table`).\n' + '\n' * 20 + 'It says 6.50.\n'
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


class Model(unittest.TestCase):
    """grader/swaplab/model.py: the MVA contention model and its chart."""

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
            p = subprocess.run([os.path.join(ROOT, 'grader', 'bench-model'), os.path.join(d, 'o'),
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
        minutes (scripts/measure-limits writes the rows)."""
        from swaplab import grade
        have = grade.limits()
        all_checks = checks.load()
        want = {c.id for c in all_checks if c.kind == 'guest'}
        if any(c.kind == 'lockfp' for c in all_checks):
            want.add('lockfp-mine')
        self.assertEqual(sorted(want - set(have)), [],
                         'guest checks with no row in grader/limits.tsv (run scripts/measure-limits '
                         'on the reference grades of tests/stages, full tier)')


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

class _KitResult(unittest.TextTestResult):
    """One line per test in the kit's format (tests/lib.sh), for tests/unit/run."""

    def addSuccess(self, test):
        super().addSuccess(test)
        self.stream.write(f'  ok    core: {test.id().split(".", 2)[-1]}\n')

    def _bad(self, test, err):
        msg = self._exc_info_to_string(err, test).strip().split('\n')[-1]
        self.stream.write(f'  FAIL  core: {test.id().split(".", 2)[-1]}: {msg}\n')

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._bad(test, err)

    def addError(self, test, err):
        super().addError(test, err)
        self._bad(test, err)


if __name__ == '__main__':
    if sys.argv[1:] == ['--kit']:
        suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules[__name__])
        res = unittest.TextTestRunner(stream=sys.stdout, verbosity=0, resultclass=_KitResult).run(suite)
        bad = len(res.failures) + len(res.errors)
        print(f'{res.testsRun - bad - len(res.skipped)} passed, {bad} failed')
        sys.exit(1 if bad else 0)
    unittest.main()
