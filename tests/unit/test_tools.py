"""The bash tests' Python helpers (tests/tools/*.py), each subcommand run as
its callers run it (python3 TOOL CMD ARGS, a new process) on small files
made here: what it prints and its exit status, on good input and on bad.
Host-only, a few seconds.
"""
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TOOLS = os.path.join(ROOT, 'tests', 'tools')
sys.path.insert(0, HERE)
import kitrun  # noqa: E402

CSV_HEAD = 'student,score,max,status,failed_checks,kunit-01,build-fast,lab_start,capped_by,latency_ratio\n'
CSV_ROWS = ('carol,0,100,rejected: the patch does not apply,hygiene,,,,,\n'
            'alice-correct,100,100,pass,,100,PASS,abc123,,1.02\n'
            'bob-partial,46.7,100,fail,kunit-01,50,PASS,abc123,,\n')


def tool(name, *args, stdin=None, cwd=None, env=None):
    """(exit status, stdout, stderr) of tests/tools/NAME.py ARGS."""
    p = subprocess.run([sys.executable, os.path.join(TOOLS, name + '.py'), *args], input=stdin,
                       capture_output=True, text=True, cwd=cwd, env=env, timeout=60)
    return p.returncode, p.stdout, p.stderr


class Tmp(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.d)

    def put(self, name, text):
        p = os.path.join(self.d, name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, 'w', encoding='utf-8') as f:
            f.write(text)
        return p

    def json(self, name, obj):
        return self.put(name, json.dumps(obj))


class Tools(unittest.TestCase):
    def test_each_tool_has_a_docstring_and_runs_alone(self):
        """Every tool says what it is for, and imports nothing of the kit
        (so no byte code is written into tests/tools)."""
        names = sorted(f for f in os.listdir(TOOLS) if f.endswith('.py') and not f.startswith('_'))
        self.assertGreaterEqual(len(names), 8, names)
        for f in names:
            with open(os.path.join(TOOLS, f), encoding='utf-8') as fh:
                src = fh.read()
            self.assertTrue(src.startswith('#!/usr/bin/env python3\n"""'), f)
            rc, out, _ = tool(f[:-3], '--help')
            self.assertEqual(rc, 0, f)
            self.assertIn('usage:', out, f)
        self.assertFalse(os.path.exists(os.path.join(TOOLS, '__pycache__')))

    def test_an_unknown_subcommand_is_a_usage_error(self):
        rc, out, err = tool('report', 'nope', 'x')
        self.assertEqual((rc, out), (2, ''))
        self.assertIn('invalid choice', err)


class Report(Tmp):
    def test_fields(self):
        f = self.json('r.json', {'score': 76.66666, 'max_score': 100, 'status': 'rejected',
                                 'message': 'the patch does not apply'})
        self.assertEqual(tool('report', 'score', f), (0, '76.6667\n', ''))
        self.assertEqual(tool('report', 'score-max', f), (0, '76.6667 100\n', ''))
        self.assertEqual(tool('report', 'status', f), (0, 'rejected\n', ''))
        self.assertEqual(tool('report', 'status-message', f), (0, 'rejected the patch does not apply\n', ''))

    def test_whole_scores_print_without_a_point(self):
        f = self.json('r.json', {'score': 100.0, 'max_score': 100})
        self.assertEqual(tool('report', 'score-max', f)[1], '100 100\n')

    def test_score_from_stdin(self):
        self.assertEqual(tool('report', 'score', '-', stdin='{"score": 40}'), (0, '40\n', ''))

    def test_bad_input_prints_nothing_and_fails(self):
        half = self.put('half.json', '{"score": ')
        nofield = self.json('nofield.json', {'score': 1})
        for args in (('score', os.path.join(self.d, 'none.json')), ('score', half), ('status', nofield),
                     ('status-message', nofield), ('score-max', nofield)):
            rc, out, err = tool('report', *args)
            self.assertEqual((rc, out), (1, ''), args)
            self.assertIn('Traceback', err, args)
        self.assertEqual(tool('report', 'score', '-', stdin='')[:2], (1, ''))


class Summary(Tmp):
    def batch(self, html_rows=3, rows=CSV_ROWS):
        self.put('b/summary.csv', CSV_HEAD + rows)
        self.put('b/summary.html', '<table><tr><th>student</th></tr>'
                 + '<tr><td>x</td></tr>' * html_rows + '</table>')
        self.json('b/summary.json', [{'student': 'alice-correct'}, {'student': 'bob-partial'}])
        return os.path.join(self.d, 'b')

    def test_row_and_scores(self):
        b = self.batch()
        csv = os.path.join(b, 'summary.csv')
        self.assertEqual(tool('summary', 'row', csv, 'bob-partial'), (0, '46.7|100|fail|kunit-01\n', ''))
        self.assertEqual(tool('summary', 'row', csv, 'nobody'), (0, '', ''))
        self.assertEqual(tool('summary', 'scores', csv)[1],
                         'alice-correct|100|pass|\nbob-partial|46.7|fail|kunit-01\n'
                         'carol|0|rejected: the patch does not apply|hygiene\n')

    def test_columns(self):
        self.assertEqual(tool('summary', 'columns', self.batch())[0], 0)
        rc, _, err = tool('summary', 'columns', self.batch(html_rows=2))
        self.assertEqual(rc, 1)
        self.assertIn('AssertionError: (3, 3)', err)
        full = CSV_ROWS.replace('bob-partial,46.7,100,fail,kunit-01,50', 'bob-partial,100,100,pass,,100')
        rc, _, err = tool('summary', 'columns', self.batch(rows=full))
        self.assertEqual(rc, 1)
        self.assertIn('AssertionError', err)

    def test_has_student(self):
        j = os.path.join(self.batch(), 'summary.json')
        self.assertEqual(tool('summary', 'has-student', j, 'bob-partial')[0], 0)
        self.assertEqual(tool('summary', 'has-student', j, 'carol')[0], 1)
        self.assertEqual(tool('summary', 'has-student', self.put('x.json', '{'), 'bob-partial')[0], 1)

    def test_bad_input_fails(self):
        self.assertEqual(tool('summary', 'scores', os.path.join(self.d, 'none.csv'))[:2], (1, ''))
        nocol = self.put('nocol.csv', 'student,score\nalice,1\n')
        rc, out, err = tool('summary', 'row', nocol, 'alice')
        self.assertEqual((rc, out), (1, ''))
        self.assertIn("KeyError: 'max'", err)


class Bundle(Tmp):
    def zip(self, files, name='a.zip'):
        p = os.path.join(self.d, name)
        with zipfile.ZipFile(p, 'w') as z:
            for n, (data, mode) in files.items():
                i = zipfile.ZipInfo(n)
                i.external_attr = (stat.S_IFREG | mode) << 16
                z.writestr(i, data)
        return p

    def good(self, **change):
        files = {'setup.sh': ('#!/bin/bash\n', 0o755), 'run_autograder': ('#!/bin/bash\n', 0o755),
                 'Dockerfile': ('ARG BASE=debian:12\nFROM ${BASE}\n', 0o644), 'swaplab.bundle': ('x', 0o644),
                 'swaplab-autograder.conf': ('LAB=01\nKIT_COMMIT=abc\n', 0o644)}
        files.update(change)
        return self.zip({k: v for k, v in files.items() if v is not None})

    def test_layout(self):
        rc, out, _ = tool('bundle', 'layout', self.good(), 'abc')
        self.assertEqual((rc, out), (0, 'ok: Dockerfile, run_autograder, setup.sh, swaplab-autograder.conf, '
                                        'swaplab.bundle\n'))
        rc, out, _ = tool('bundle', 'layout', self.good(**{'Dockerfile': ('FROM debian:12\n', 0o644)}), 'abc')
        self.assertTrue(out.startswith('ok: '), out)

    def test_layout_names_what_is_wrong(self):
        z = self.good(**{'setup.sh': ('x', 0o644), 'swaplab.bundle': None,
                         'Dockerfile': ('FROM debian:13\n', 0o644)})
        rc, out, _ = tool('bundle', 'layout', z, 'def')
        self.assertEqual(rc, 0)
        self.assertEqual(out, 'no swaplab.bundle at the root; setup.sh is not executable; the Dockerfile is not '
                              'FROM debian:12 (or ARG BASE=debian:12, FROM ${BASE}); the conf lacks KIT_COMMIT=def\n')

    def test_layout_of_a_zip_without_the_conf_fails(self):
        rc, out, err = tool('bundle', 'layout', self.good(**{'swaplab-autograder.conf': None}), 'abc')
        self.assertEqual((rc, out), (1, ''))
        self.assertIn('KeyError', err)

    def test_conf(self):
        self.assertEqual(tool('bundle', 'conf', self.good()), (0, 'LAB=01\nKIT_COMMIT=abc\n\n', ''))
        self.assertEqual(tool('bundle', 'conf', self.put('not.zip', 'text'))[:2], (1, ''))

    def test_unzip_keeps_the_modes(self):
        dest = os.path.join(self.d, 'out')
        self.assertEqual(tool('bundle', 'unzip', self.good(), dest), (0, '', ''))
        self.assertEqual(stat.S_IMODE(os.stat(os.path.join(dest, 'setup.sh')).st_mode), 0o755)
        self.assertEqual(stat.S_IMODE(os.stat(os.path.join(dest, 'Dockerfile')).st_mode), 0o644)
        with open(os.path.join(dest, 'swaplab-autograder.conf')) as f:
            self.assertEqual(f.read(), 'LAB=01\nKIT_COMMIT=abc\n')
        self.assertEqual(tool('bundle', 'unzip', os.path.join(self.d, 'none.zip'), dest)[0], 1)


def row(name, output, status=None, score=0):
    return {'name': name, 'output': output, 'score': score,
            'status': status or ('passed' if output.startswith('PASS') else 'failed')}


class Gradescope(Tmp):
    PASSED = [row('build-fast', 'PASS: built', score=10), row('kunit-01', 'PASS: 4 cases', score=70),
              row('pageout', 'FAIL: too slow')]

    def test_decided(self):
        f = self.json('r.json', {'tests': [row('a', 'PASS: x'), row('b', 'SKIP: not reached'),
                                           row('c', 'TIMEOUT: y'), row('d', 'SKIP: lab 02 only'), {'name': 'e'},
                                           row('f', 'running')]})
        self.assertEqual(tool('gradescope', 'decided', f), (0, '3\n', ''))
        self.assertEqual(tool('gradescope', 'decided', self.json('p.json', {'score': 0})), (0, '0\n', ''))

    def test_decided_on_a_file_being_written(self):
        self.assertEqual(tool('gradescope', 'decided', os.path.join(self.d, 'none.json')), (0, '-1\n', ''))
        self.assertEqual(tool('gradescope', 'decided', self.put('half.json', '{"tests": [')), (0, '-1\n', ''))

    def test_build_failed(self):
        f = self.json('f.json', {'tests': [row('build-fast', 'FAIL: mm/swapfile.c:12: error: x')]})
        self.assertEqual(tool('gradescope', 'build-failed', f), (0, '', ''))
        for out in ('FAIL: the build timed out', 'PASS: error-free'):
            f = self.json('f.json', {'tests': [row('build-fast', out)]})
            self.assertEqual(tool('gradescope', 'build-failed', f)[0], 1, out)
        rc, _, err = tool('gradescope', 'build-failed', self.json('n.json', {'tests': [row('kunit-01', 'FAIL')]}))
        self.assertEqual(rc, 1)
        self.assertIn("KeyError: 'build-fast'", err)

    def test_kill_rows(self):
        p = self.json('pass.json', {'tests': self.PASSED})
        k = self.json('kill.json', {'tests': [self.PASSED[0], row('kunit-01', 'SKIP: not reached'),
                                              row('pageout', 'SKIP: not reached')]})
        self.assertEqual(tool('gradescope', 'kill-rows', k, p), (0, '', ''))

    def test_kill_rows_refused(self):
        p = self.json('pass.json', {'tests': self.PASSED})
        for name, rows in (
                ('none finished', [row('build-fast', 'SKIP: not reached')]),
                ('none left', self.PASSED),
                ('another verdict', [row('build-fast', 'FAIL: built'), row('kunit-01', 'SKIP: not reached')]),
                ('a left row with points', [self.PASSED[0], row('kunit-01', 'SKIP: not reached', score=5)])):
            k = self.json('kill.json', {'tests': rows})
            self.assertEqual(tool('gradescope', 'kill-rows', k, p)[0], 1, name)
        self.assertEqual(tool('gradescope', 'kill-rows', os.path.join(self.d, 'none'), p)[0], 1)


SUMMARY = ('## swaplab lab 01: 0/100\n\n| check | points | verdict | time | reason |\n|---|---|---|---|---|\n'
           + '| build-fast | 0/10 | FAIL | 3 s | mm/swapfile.c: error: x |\n'
           + ''.join(f'| check-{i} | 0/5 | SKIP | - | not reached |\n' for i in range(11))
           + '\n<details><summary>build-fast</summary>error: x</details>\n')


class Classroom(Tmp):
    def test_job_summary(self):
        self.assertEqual(tool('classroom', 'job-summary', self.put('s.md', SUMMARY)), (0, '', ''))

    def test_job_summary_refused(self):
        for name, text in (('another score', SUMMARY.replace('0/100', '100/100', 1)),
                           ('build-fast passed', SUMMARY.replace('| FAIL |', '| PASS |')),
                           ('too few rows', SUMMARY.replace('| check-10 |', 'check-10 |')),
                           ('no details', SUMMARY.replace('<details>', ''))):
            self.assertEqual(tool('classroom', 'job-summary', self.put('s.md', text))[0], 1, name)
        self.assertEqual(tool('classroom', 'job-summary', os.path.join(self.d, 'none.md'))[0], 1)


class Container(Tmp):
    GOOD = {'build': {'dockerfile': '../container/Containerfile', 'context': '..'},
            'mounts': ['source=x,target=/x,type=bind', 'source=swaplab-cache,target=/swaplab-cache,type=volume']}

    def test_devcontainer(self):
        self.assertEqual(tool('container', 'devcontainer', self.json('d.json', self.GOOD)), (0, '', ''))

    def test_devcontainer_refused(self):
        bad = dict(self.GOOD, mounts=['source=swaplab-cache,target=/cache,type=volume'])
        rc, _, err = tool('container', 'devcontainer', self.json('d.json', bad))
        self.assertEqual(rc, 1)
        self.assertIn("AssertionError: ['source=swaplab-cache,target=/cache,type=volume']", err)
        bad = dict(self.GOOD, build={'dockerfile': 'Dockerfile', 'context': '..'})
        self.assertEqual(tool('container', 'devcontainer', self.json('d.json', bad))[0], 1)
        self.assertEqual(tool('container', 'devcontainer', self.put('d.json', '// a comment\n{}'))[0], 1)


class Refs(Tmp):
    def test_tags(self):
        cr = self.put('check-refs', 'def expected_refs(kit):\n'
                                    '    return {"tags": {"stage-01", "pristine", kit}, "paths": set()}\n')
        self.assertEqual(tool('refs', 'tags', cr, 'lab-01-start'), (0, 'lab-01-start pristine stage-01\n', ''))

    def test_tags_of_the_kit(self):
        rc, out, err = tool('refs', 'tags', os.path.join(ROOT, 'scripts', 'author', 'check-refs'), ROOT,
                            env=dict(os.environ, PYTHONDONTWRITEBYTECODE='1'))
        self.assertEqual(rc, 0, err)
        self.assertIn('pristine', out.split())
        self.assertIn('stage-01', out.split())

    def test_a_broken_check_refs_fails(self):
        rc, out, err = tool('refs', 'tags', self.put('check-refs', 'def expected_refs(kit):\n    return {}\n'), '.')
        self.assertEqual((rc, out), (1, ''))
        self.assertIn("KeyError: 'tags'", err)


class Static(Tmp):
    def test_files(self):
        for p, text in (('a/one', '#!/bin/bash\n'), ('a/two', '#!/usr/bin/env bash\n'), ('a/lib.sh', '# shellcheck shell=bash\n'),
                        ('a/tool', '#!/usr/bin/env python3\n'), ('a/m.py', 'x = 1\n'), ('a/notes.txt', 'no\n'),
                        ('work/w', '#!/bin/bash\n'), ('out/o', '#!/bin/bash\n'), ('a/out/deep', '#!/bin/sh\n'),
                        ('a/__pycache__/c.py', 'x = 1\n'), ('.git/hook', '#!/bin/bash\n')):
            self.put(p, text)
        os.symlink('one', os.path.join(self.d, 'a', 'link'))
        self.assertEqual(tool('static', 'files', self.d),
                         (0, 'py a/m.py\npy a/tool\nsh a/lib.sh\nsh a/one\nsh a/out/deep\nsh a/two\n', ''))
        self.assertEqual(tool('static', 'files', os.path.join(self.d, 'none'))[:2], (0, ''))

    def test_compile(self):
        good, bad = self.put('good.py', 'x = 1\n'), self.put('bad.py', 'def f(:\n')
        rc, out, _ = tool('static', 'compile', '--', good, bad, os.path.join(self.d, 'none.py'))
        self.assertEqual(rc, 0)
        got = out.splitlines()
        self.assertEqual(got[0], f'ok {good}')
        self.assertTrue(got[1].startswith(f'bad {bad}: '), got[1])
        self.assertTrue(got[2].startswith(f'bad {self.d}/none.py: [Errno 2]'), got[2])
        self.assertEqual(tool('static', 'compile'), (0, '', ''))
        self.assertFalse(os.path.exists(os.path.join(self.d, '__pycache__')))

    def test_import(self):
        self.put('pkg/__init__.py', '')
        self.put('pkg/fine.py', 'import os\n')
        self.put('pkg/broken.py', 'raise RuntimeError("broken on import")\n')
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE='1')
        self.assertEqual(tool('static', 'import', self.d, 'pkg.fine', env=env), (0, '', ''))
        rc, _, err = tool('static', 'import', self.d, 'pkg.broken', env=env)
        self.assertEqual(rc, 1)
        self.assertEqual(err.strip().splitlines()[-1], 'RuntimeError: broken on import')
        rc, _, err = tool('static', 'import', self.d, 'pkg.none', env=env)
        self.assertEqual(rc, 1)
        self.assertIn("No module named 'pkg.none'", err)
        # the grader core, as tests/static imports it
        self.assertEqual(tool('static', 'import', os.path.join(ROOT, 'grader'), 'swaplab.checks', env=env)[0], 0)

    def test_import_does_not_see_the_tools(self):
        """tests/tools is not on the imported module's path: a module named
        like a tool is not found there."""
        rc, _, err = tool('static', 'import', self.d, 'report', env=dict(os.environ, PYTHONDONTWRITEBYTECODE='1'))
        self.assertEqual(rc, 1)
        self.assertIn("No module named 'report'", err)

    def git(self, *args):
        subprocess.run(['git', '-C', self.d, '-c', 'user.name=t', '-c', 'user.email=t@t',
                        '-c', 'commit.gpgsign=false', *args], check=True, capture_output=True)

    def test_subjects(self):
        """A subject over 72 characters fails unless the list names its
        commit; a subject of two lines counts as git's %s joins it; a listed
        hash the history lacks is stale; a bad list line exits non-zero."""
        self.git('init', '-q')
        self.git('commit', '-q', '--allow-empty', '-m', 'y' * 72)
        self.git('commit', '-q', '--allow-empty', '-m', 'z' * 73)
        long = subprocess.run(['git', '-C', self.d, 'rev-parse', 'HEAD'], capture_output=True,
                              text=True, check=True).stdout.strip()
        self.git('commit', '-q', '--allow-empty', '-m', 'a' * 40 + '\n' + 'b' * 40)
        joined = subprocess.run(['git', '-C', self.d, 'rev-parse', 'HEAD'], capture_output=True,
                                text=True, check=True).stdout.strip()
        none, listed = self.put('l/none', ''), self.put('l/listed', '# old\n%s  # kept\n' % long)
        rc, out, _ = tool('static', 'subjects', self.d, none)
        self.assertEqual((rc, out), (0, 'bad %s 81 %s\nbad %s 73 %s\nchecked 3\n'
                                     % (joined[:12], 'a' * 40 + ' ' + 'b' * 40, long[:12], 'z' * 73)))
        self.assertEqual(tool('static', 'subjects', self.d, listed)[:2],
                         (0, 'bad %s 81 %s\nchecked 3\n' % (joined[:12], 'a' * 40 + ' ' + 'b' * 40)))
        stale = self.put('l/stale', '%s\n%s\n' % (long, '0' * 40))
        self.assertIn('stale ' + '0' * 40 + '\n', tool('static', 'subjects', self.d, stale)[1])
        short = subprocess.run(['git', '-C', self.d, 'rev-parse', 'HEAD~2'], capture_output=True,
                               text=True, check=True).stdout.strip()
        self.assertIn('unneeded %s\n' % short,
                      tool('static', 'subjects', self.d, self.put('l/short', short + '\n'))[1])
        rc, _, err = tool('static', 'subjects', self.d, self.put('l/bad', 'abc\n'))
        self.assertEqual(rc, 1)
        self.assertIn('l/bad:1: not a 40-digit commit hash', err)
        self.assertEqual(tool('static', 'subjects', os.path.join(self.d, 'l'), none)[:2],
                         (0, 'none no git checkout of its own at %s/l\n' % self.d))

    def test_subjects_of_this_kit(self):
        """The kit's own list names only long subjects (none kept for nothing)."""
        if not os.path.isdir(os.path.join(ROOT, '.git')):
            self.skipTest('no git history here')
        rc, out, _ = tool('static', 'subjects', ROOT, os.path.join(ROOT, 'tests', 'long-subjects'))
        self.assertEqual(rc, 0)
        self.assertNotRegex(out, r'(?m)^(bad|stale|unneeded) ')


if __name__ == '__main__':
    kitrun.main(__name__, 'tools')
