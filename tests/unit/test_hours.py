"""The hours a student gives with a hand-in (make handin HOURS=6.5): what
scripts/student/handin accepts and writes ("Hours: V" in the patch's header), that
the grader's intake takes such a patch as any other, and how grader/grade-all
reads it into summary.csv, .json and .html (grader/swaplab/gradesum.py:
validated, never trusted, escaped).  The hand-ins in data/hours/ are saved
fixtures: alice gives 6.5 h, bob nothing, carol a CSV formula and markup,
dave 250 h (over the cap), erin a bare diff whose added line reads
"Hours: 7".  Host-only, a few seconds: scripts/student/handin runs on a toy work
repository in a temporary kit root.
"""
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(HERE, 'data', 'hours')
sys.path.insert(0, os.path.join(ROOT, 'grader'))
sys.path.insert(0, HERE)

from swaplab import gradesum, intake, labs  # noqa: E402
import kitrun  # noqa: E402


def fixture(name):
    return os.path.join(DATA, name + '.patch')


def row(who, hours, note=''):
    """A summary row as grade-all makes one (no checks: a rejected grade)."""
    return {'student': who, 'score': 0, 'max_score': 100, 'status': 'fail', 'failed_checks': '',
            'capped_by': '', 'latency_ratio': '', 'seconds': 1.0, 'exit_code': 1, 'log': f'/x/{who}/grade.log',
            'report': '', 'checks': {}, 'review': [], 'kit_commit': '', 'lab_start': '', 'submission': '',
            'patch_sha256': '', 'hours': hours, 'hours_note': note}


class ParseHours(unittest.TestCase):
    def test_accepted(self):
        for text, want in (('6.5', 6.5), ('6', 6.0), ('.5', 0.5), ('0.01', 0.01), ('200', 200.0),
                           ('200.00', 200.0), ('12.25', 12.25), ('010', 10.0)):
            self.assertEqual(gradesum.parse_hours(text), want, text)

    def test_refused(self):
        for text in ('', '0', '0.0', '200.01', '201', '999', '1e2', 'nan', 'inf', '-3', '+3', ' 5', '6,5',
                     '6.555', '1000', '6.', 'abc', '\u0661\u0662', '6.5\n', None, 6.5):
            self.assertIsNone(gradesum.parse_hours(text), repr(text))

    def test_written_form(self):
        self.assertEqual([gradesum.fmt_hours(v) for v in (6.5, 12.0, 0.25, 200, '', None, True)],
                         ['6.5', '12', '0.25', '200', '', '', ''])


class ReadHours(unittest.TestCase):
    def test_the_saved_hand_ins(self):
        self.assertEqual(gradesum.read_hours(fixture('alice')), (6.5, ''))
        self.assertEqual(gradesum.read_hours(fixture('bob')), ('', ''))
        self.assertEqual(gradesum.read_hours(fixture('erin')), ('', ''))      # a diff's line is no header
        self.assertEqual(gradesum.read_hours(os.path.join(DATA, 'none.patch')), ('', ''))
        for who in ('carol', 'dave'):
            h, note = gradesum.read_hours(fixture(who))
            self.assertEqual(h, '', who)
            self.assertIn('not a number of hours over 0 and at most 200', note)
            self.assertLessEqual(len(note), 120, note)
        self.assertNotIn('\x1b', gradesum.read_hours(fixture('carol'))[1])

    def test_only_the_header_is_read(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, 'x.patch')
            with open(p, 'w') as f:
                f.write('swaplab lab 01 hand-in by x\n' + 'filler\n' * 20 + 'Hours: 5\n\n')
            self.assertEqual(gradesum.read_hours(p), ('', ''))      # past the 12 lines of a header


class Summary(unittest.TestCase):
    """The hours column of summary.csv, .json and .html."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.out = self.tmp.name
        rows = [row(who, *gradesum.read_hours(fixture(who))) for who in ('alice', 'bob', 'carol', 'dave', 'erin')]
        rows.append({k: v for k, v in row('frank', '').items() if k not in ('hours', 'hours_note')})   # --resume of an old row
        gradesum.write_summary(self.out, rows)

    def tearDown(self):
        self.tmp.cleanup()

    def test_csv_column(self):
        with open(os.path.join(self.out, 'summary.csv'), encoding='utf-8', newline='') as f:
            got = {r['student']: r['hours'] for r in csv.DictReader(f)}
        self.assertEqual(got, {'alice': '6.5', 'bob': '', 'carol': '', 'dave': '', 'erin': '', 'frank': ''})
        with open(os.path.join(self.out, 'summary.csv'), encoding='utf-8') as f:
            text = f.read()
        self.assertNotIn('HYPERLINK', text)          # what a student wrote never reaches a cell

    def test_json_field(self):
        with open(os.path.join(self.out, 'summary.json'), encoding='utf-8') as f:
            got = {r['student']: r for r in json.load(f)}
        self.assertEqual(got['alice']['hours'], 6.5)
        self.assertEqual([got[w]['hours'] for w in ('bob', 'carol', 'dave', 'erin')], ['', '', '', ''])
        self.assertIn('HYPERLINK', got['carol']['hours_note'])     # quoted, escaped by json, for a person to read
        self.assertEqual(got['bob']['hours_note'], '')

    def test_html_column_escaped(self):
        with open(os.path.join(self.out, 'summary.html'), encoding='utf-8') as f:
            page = f.read()
        self.assertIn('<th>hours</th>', page)
        self.assertIn('<td data-v="6.5">6.5</td>', page)
        self.assertNotIn('<b>9</b>', page)


class HandIn(unittest.TestCase):
    """scripts/student/handin with HOURS, on a toy work repository, in a temporary
    kit root (its out/handin/ is the temporary one)."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        t = self.tmp.name
        self.kit = os.path.join(t, 'kit')
        for p in ('scripts/student/handin', 'scripts/lib.sh', 'grader/check-allowlist', 'grader/allowlist'):
            os.makedirs(os.path.dirname(os.path.join(self.kit, p)), exist_ok=True)
            shutil.copy2(os.path.join(ROOT, p), os.path.join(self.kit, p))
        # the lab table (labs/NN-*/) and the allowlist's parser (grader/swaplab/labs.py)
        shutil.copytree(os.path.join(ROOT, 'grader', 'swaplab'), os.path.join(self.kit, 'grader', 'swaplab'),
                        ignore=shutil.ignore_patterns('__pycache__'))
        for n in labs.numbers():
            os.makedirs(os.path.join(self.kit, 'labs', f'{n}-lab'))
        self.repo = os.path.join(t, 'linux')
        os.makedirs(os.path.join(self.repo, 'mm'))
        g = ['git', '-C', self.repo, '-c', 'user.name=t', '-c', 'user.email=t@localhost']
        with open(os.path.join(self.repo, 'mm', 'swapfile.c'), 'w') as f:
            f.write('a\n')
        for cmd in (['init', '-q', '-b', 'lab-01'], ['add', '-A'], ['commit', '-qm', 'start'],
                    ['tag', 'lab-01-start']):
            subprocess.run(g + cmd, check=True)
        with open(os.path.join(self.repo, 'mm', 'swapfile.c'), 'a') as f:
            f.write('b\n')

    def tearDown(self):
        self.tmp.cleanup()

    def handin(self, **env):
        e = {k: v for k, v in os.environ.items() if not k.startswith(('SWAPLAB_', 'GIT_'))}
        e.update(SWAPLAB_ROOT=self.kit, SWAPLAB_WORK=os.path.join(self.tmp.name, 'work'), LINUX_REPO=self.repo,
                 SWAPLAB_STUDENT='s1234', **env)
        return subprocess.run([os.path.join(self.kit, 'scripts', 'student', 'handin'), '01'], capture_output=True,
                              text=True, env=e, timeout=60)

    def out(self):
        return os.path.join(self.kit, 'out', 'handin', 'lab01-s1234.patch')

    def test_hours_in_the_header_and_intake_takes_the_patch(self):
        p = self.handin(SWAPLAB_HOURS='6.50')
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(self.out()) as f:
            head = f.read().split('\n')[:4]
        self.assertEqual(head[2:], ['Hours: 6.5', ''])
        self.assertEqual(gradesum.read_hours(self.out()), (6.5, ''))
        self.assertEqual(intake.patch_text(self.out()), [])
        # git apply (as intake.resolve runs it) takes the header as the text before the diff
        subprocess.run(['git', '-C', self.repo, 'stash', '-q'], check=True)
        a = subprocess.run(['git', '-C', self.repo, 'apply', '--check', self.out()], capture_output=True, text=True)
        self.assertEqual(a.returncode, 0, a.stderr)

    def test_no_hours_no_line(self):
        p = self.handin()
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(self.out()) as f:
            self.assertNotIn('Hours:', f.read())
        self.assertEqual(gradesum.read_hours(self.out()), ('', ''))

    def test_bad_hours_exit_3_nothing_written(self):
        for bad in ('', '0', '201', 'six', '6,5', '1e2', '6.555', '5\nHours: 9', "'; rm -rf /"):
            p = self.handin(SWAPLAB_HOURS=bad)
            self.assertEqual(p.returncode, 3, (bad, p.stderr))
            self.assertIn('HOURS must be the hours you spent on lab 01', p.stderr)
            self.assertIn('nothing was written', p.stderr)
            self.assertFalse(os.path.exists(os.path.join(self.kit, 'out')), bad)


if __name__ == '__main__':
    kitrun.main(__name__, 'hours')
