"""One lab table, one allowlist parser, one table reader (issue 29):
  - the lab table: the labs are the folders labs/NN-*/; bash
    (scripts/lib.sh: lab_numbers, lab_check, stage_check, prev_lab) and
    Python (grader/swaplab/labs.py) give the same labs, the same previous
    lab and the same messages, on the kit and on made-up kits;
  - nothing else writes a range of labs or an NN-1: the kit's files are
    searched for the spellings the table replaced;
  - grader/allowlist has one parser (labs.allowlist): bash's
    allowlist_paths, through python3 -m swaplab.labs allowlist, prints
    what the awk it replaced printed, for every lab and for none;
  - the environment defaults are written once (scripts/lib.sh) and the
    Python entry points read them from there;
  - the kit's tables have one reader (grader/swaplab/tsv.py), which fails
    loudly, naming FILE:LINE, on a line it cannot read, where some readers
    used to skip it; every table the kit ships reads.
Host-only, a few seconds.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
GRADER = os.path.join(ROOT, 'grader')
LIB = os.path.join(ROOT, 'scripts', 'lib.sh')
sys.path.insert(0, GRADER)
sys.path.insert(0, HERE)

from swaplab import checks, envdefaults, labs, plausible, refdata, scoring, timelimits, tsv  # noqa: E402
import kitrun  # noqa: E402

# allowlist_paths as scripts/lib.sh had it before issue 29 (the awk parser
# the Python one replaced): the reference its output is compared with
OLD_ALLOWLIST_PATHS = r'''
allowlist_paths() {
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$SWAPLAB_ROOT/grader/allowlist" | awk -F'\t' -v lab="${1:-}" '
	function inlabs(l, s,   a, n) {
		if (s == "all" || l == "") return 1
		if (index(s, "-")) { split(s, a, "-"); n = l + 0; return n >= a[1] + 0 && n <= a[2] + 0 }
		return l + 0 == s + 0
	}
	inlabs(lab, $1) && !seen[$2]++ { print $2 }'
}
'''


def bash(script, *args, root=None, cwd=None):
    """(exit status, stdout, stderr) of SCRIPT run in bash after sourcing
    scripts/lib.sh, with ARGS as $1...; ROOT: the kit it sees
    (SWAPLAB_ROOT)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(('SWAPLAB_', 'LINUX_REPO'))}
    if root:
        env['SWAPLAB_ROOT'] = root
    p = subprocess.run(['bash', '-c', '. "$0" || exit 9; ' + script, LIB, *args], capture_output=True,
                       text=True, env=env, cwd=cwd, timeout=60)
    return p.returncode, p.stdout, p.stderr


def made_up_kit(d, folders, files=()):
    """A kit in D whose labs/ holds FOLDERS (and the plain FILES)."""
    for f in folders:
        os.makedirs(os.path.join(d, 'labs', f))
    for f in files:
        with open(os.path.join(d, 'labs', f), 'w') as fh:
            fh.write('')
    return d


class LabTable(unittest.TestCase):
    def test_the_labs_are_the_folders_01_to_NN(self):
        nums = labs.numbers()
        self.assertEqual(nums, sorted({os.path.basename(d)[:2] for d in glob.glob(os.path.join(ROOT, 'labs', '*-*'))
                                       if os.path.isdir(d) and re.match(r'[0-9][0-9]-', os.path.basename(d))}))
        self.assertGreater(len(nums), 1)
        self.assertEqual(nums, [f'{i:02d}' for i in range(1, len(nums) + 1)],
                         'the labs are 01 .. NN with none missing: lab NN starts from stage NN-1')
        self.assertEqual(labs.last(), nums[-1])

    def test_bash_and_python_give_the_same_labs(self):
        rc, out, err = bash('lab_numbers; echo "last $(lab_last)"; echo "span $(lab_span) $(stage_span)"')
        self.assertEqual(rc, 0, err)
        nums = labs.numbers()
        self.assertEqual(out.split('\n'), nums + [f'last {labs.last()}', f'span {labs.span()} {labs.stage_span()}', ''])
        self.assertEqual(labs.span(), f'{nums[0]}..{nums[-1]}')
        self.assertEqual(labs.stage_span(), f'00..{nums[-1]}')

    def test_made_up_kits(self):
        # a duplicate number, a plain file, a folder that is no lab; one lab; none
        for folders, files, want, span in ((['01-a', '02-b', '02-c', '03-x', 'xx-y', '4-z'], ['04-file'],
                                            ['01', '02', '03'], '01..03'),
                                           (['01-only'], [], ['01'], '01'),
                                           ([], [], [], 'a lab of labs/NN-*/ (this kit has none)')):
            with self.subTest(folders=folders), tempfile.TemporaryDirectory() as d:
                made_up_kit(d, folders, files)
                self.assertEqual(labs.numbers(d), want)
                self.assertEqual(labs.span(d), span)
                rc, out, err = bash('lab_numbers; lab_span', root=d)
                self.assertEqual((rc, out), (0, ''.join(f'{n}\n' for n in want) + span + '\n'), err)
                for n in ('00', '01', '02', '03', '04', '1', ''):
                    rc, out, err = bash('lab_check "$1" "test: LAB"; echo ok', n, root=d)
                    try:
                        labs.check(n, 'test: LAB', d)
                        self.assertEqual((rc, out), (0, 'ok\n'), f'bash refuses {n!r}: {err}')
                    except labs.NotALab as e:
                        self.assertEqual((rc, out, err), (1, '', f'error: {e}\n'), f'lab {n!r}')

    def test_is_lab_and_is_stage(self):
        nums = labs.numbers()
        after = f'{int(nums[-1], 10) + 1:02d}'
        for n, lab, stage in (('00', False, True), (nums[0], True, True), (nums[-1], True, True),
                              (after, False, False), ('1', False, False), ('001', False, False),
                              ('', False, False), (None, False, False), ('0x', False, False)):
            self.assertEqual((labs.is_lab(n), labs.is_stage(n)), (lab, stage), repr(n))
            if n is None:
                continue
            rc, out, _ = bash('is_lab "$1" && echo lab; is_stage "$1" && echo stage; true', n)
            self.assertEqual(out.split(), (['lab'] if lab else []) + (['stage'] if stage else []), repr(n))

    def test_the_same_messages(self):
        nums = labs.numbers()
        after = f'{int(nums[-1], 10) + 1:02d}'
        for fn, check, name in (('lab_check', labs.check, 'start: LAB'), ('stage_check', labs.check_stage, 'overlay: LAB'),
                                ('lab_check', labs.check, ''), ('stage_check', labs.check_stage, '')):
            for n in ('', after, 'x', '1', '00', nums[0]):
                with self.subTest(fn=fn, n=n, name=name):
                    rc, out, err = bash(f'{fn} "$1" ${{2:+"$2"}}; echo ok', n, name)
                    kw = {'name': name} if name else {}
                    try:
                        self.assertEqual(check(n, **kw), n)
                        self.assertEqual((rc, out), (0, 'ok\n'), err)
                    except labs.NotALab as e:
                        self.assertEqual((rc, out, err), (1, '', f'error: {e}\n'))
                        self.assertIn(labs.span() if fn == 'lab_check' else labs.stage_span(), str(e))
                        self.assertTrue(str(e).startswith(f"{name or ('LAB' if fn == 'lab_check' else 'STAGE')} must be "))
                        self.assertTrue(str(e).endswith(f"got '{n or 'nothing'}'"))
        self.assertEqual(str(self._refused(labs.check, after, 'start: LAB')),
                         f"start: LAB must be {labs.span()}, got '{after}'")

    def _refused(self, fn, *args):
        with self.assertRaises(labs.NotALab) as e:
            fn(*args)
        self.assertIsInstance(e.exception, ValueError)
        return e.exception

    def test_previous_lab(self):
        nums = labs.numbers()
        self.assertEqual(labs.previous(nums[0]), '00')
        script = 'for n in "$@"; do prev_lab "$n"; done'
        rc, out, err = bash(script, *nums)
        self.assertEqual(rc, 0, err)
        self.assertEqual(out.split(), [labs.previous(n) for n in nums])
        self.assertEqual([labs.previous(n) for n in nums], ['00'] + nums[:-1])
        for bad in ('00', f'{int(nums[-1], 10) + 1:02d}', 'x', ''):
            e = self._refused(labs.previous, bad)
            rc, out, err = bash('prev_lab "$1"; echo "not reached"', bad)
            self.assertEqual((rc, out, err), (1, '', f'error: {e}\n'))

    def test_stage_ref(self):
        rc, out, err = bash('stage_ref 00; stage_ref "$1"', labs.last())
        self.assertEqual((rc, out), (0, f'stage-00\nstage-{labs.last()}\n'), err)
        e = self._refused(labs.check_stage, '99')
        rc, out, err = bash('stage_ref 99')
        self.assertEqual((rc, err), (1, f'error: {e}\n'))

    def test_the_command_line(self):
        def cli(*args):
            p = subprocess.run([sys.executable, '-m', 'swaplab.labs', *args], cwd=GRADER, capture_output=True,
                               text=True, timeout=60)
            return p.returncode, p.stdout, p.stderr
        self.assertEqual(cli('numbers')[:2], (0, ''.join(f'{n}\n' for n in labs.numbers())))
        self.assertEqual(cli('previous', '03')[:2], (0, '02\n'))
        self.assertEqual(cli('check', '99'), (2, '', f"error: LAB must be {labs.span()}, got '99'\n"))
        self.assertEqual(cli('stage', '00')[:2], (0, '00\n'))
        self.assertEqual(cli('nonsense')[0], 2)
        self.assertEqual(cli('allowlist', 'x')[0], 2)

    # the spellings of the kit's range of labs (01..06, 00..06, 0[1-6],
    # range(1, 7)), or of the lab before one, that the table replaced;
    # anywhere in the kit but the table itself they are a second definition
    _LAST = labs.last()
    SECOND_DEFINITIONS = re.compile(rf'0\[[01]-{_LAST[1]}\]|\b0[01]\.\.{_LAST}\b|\b01-{_LAST}\b|'
                                    rf'range\(1, {int(_LAST, 10) + 1}\)|'
                                    r'10#\$\{?\w+\}? - 1|int\(\w+, 10\) - 1|printf .%02d. \$\(\(10#')
    TABLE = {'scripts/lib.sh', 'grader/swaplab/labs.py', 'tests/unit/test_labs.py'}

    def test_no_second_definition_of_the_range_or_the_previous_lab(self):
        out = subprocess.run(['git', '-C', ROOT, 'ls-files', 'scripts', 'grader', 'tests', 'vm', 'autograder',
                              'student', 'classroom', 'Makefile'], capture_output=True, text=True).stdout.split()
        if not out:
            self.skipTest('not a git checkout')
        bad = []
        for rel in out:
            if rel in self.TABLE or rel.startswith('tests/unit/data/') or not os.path.isfile(os.path.join(ROOT, rel)):
                continue
            try:
                with open(os.path.join(ROOT, rel), encoding='utf-8') as f:
                    text = f.read()
            except UnicodeDecodeError:
                continue
            for n, line in enumerate(text.split('\n'), 1):
                if self.SECOND_DEFINITIONS.search(line):
                    bad.append(f'{rel}:{n}: {line.strip()}')
        self.assertEqual(bad, [], 'ask the lab table (scripts/lib.sh: lab_check, stage_check, prev_lab, '
                                  'lab_numbers; grader/swaplab/labs.py)')

    def test_the_search_finds_the_old_spellings(self):
        for old in ('case "$lab" in 0[1-6]) ;;', "die \"LAB must be 01..06\"", "prev=$(printf '%02d' $((10#$lab - 1)))",
                    "f'stage-{int(lab, 10) - 1:02d}'", "re.fullmatch(r'0[0-6]', a.lab)", 'for i in range(1, 7):',
                    'num=$(printf \'%02d\' $((10#${next%%-*} - 1)))'):
            self.assertTrue(self.SECOND_DEFINITIONS.search(old), old)


class Allowlist(unittest.TestCase):
    def test_bash_prints_what_the_awk_printed(self):
        for lab in labs.numbers() + ['00', '']:
            with self.subTest(lab=lab):
                rc, old, err = bash(OLD_ALLOWLIST_PATHS + 'allowlist_paths "$1"', lab)
                self.assertEqual(rc, 0, err)
                self.assertTrue(old)
                rc, new, err = bash('allowlist_paths "$1"', lab)
                self.assertEqual((rc, new), (0, old), err)
                self.assertEqual(labs.allowlist(lab or None), old.split('\n')[:-1])
        rc, new, err = bash('allowlist_paths')
        self.assertEqual(new, bash(OLD_ALLOWLIST_PATHS + 'allowlist_paths')[1])

    def test_on_a_made_up_allowlist(self):
        # ranges, inline comments, blank lines, a path named twice
        text = ('# made up\n\nall\ta.c\n02-04\tb.c# a comment\n03\tc.c\n05-06\td.c\n\t\n'
                '01\ta.c\n04\tb.c\n')
        with tempfile.TemporaryDirectory() as d:
            shutil.copytree(os.path.join(GRADER, 'swaplab'), os.path.join(d, 'grader', 'swaplab'),
                            ignore=shutil.ignore_patterns('__pycache__'))
            allowlist = os.path.join(d, 'grader', 'allowlist')
            with open(allowlist, 'w') as f:
                f.write(text)
            for lab in ('01', '02', '03', '04', '05', '06', '07', ''):
                with self.subTest(lab=lab):
                    old = bash(OLD_ALLOWLIST_PATHS + 'allowlist_paths "$1"', lab, root=d)[1]
                    rc, new, err = bash('allowlist_paths "$1"', lab, root=d)
                    self.assertEqual((rc, new), (0, old), err)
            # where the two parsers differed: the awk kept the blanks before a
            # '#' as part of the path ("b.c  "), which no file is; the grader
            # (Python, always) trims them, and bash now says what the grader does
            with open(allowlist, 'w') as f:
                f.write('all\ta.c\n02\tb.c  # a comment\n')
            self.assertEqual(bash(OLD_ALLOWLIST_PATHS + 'allowlist_paths 02', root=d)[1], 'a.c\nb.c  \n')
            self.assertEqual(bash('allowlist_paths 02', root=d)[1], 'a.c\nb.c\n')

    def test_no_folder_of_the_caller_stands_in_for_the_parser(self):
        # allowlist_paths runs where a build runs it: in a submission's checkout
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, 'swaplab'))
            for f in ('__init__.py', 'labs.py'):
                with open(os.path.join(d, 'swaplab', f), 'w') as fh:
                    fh.write('print("mm/hijacked.c")\n')
            rc, out, err = bash('allowlist_paths', cwd=d)
            self.assertEqual((rc, out.split('\n')[:-1]), (0, labs.allowlist()), err)

    def test_a_missing_parser_fails_loudly(self):
        # (a kit without its grader/: allowlist_paths fails, check-allowlist with it)
        with tempfile.TemporaryDirectory() as d:
            rc, out, err = bash('allowlist_paths 01', root=d)
            self.assertNotEqual(rc, 0)
            self.assertEqual(out, '')


class EnvDefaults(unittest.TestCase):
    NAMES = ('SWAPLAB_ROOT', 'SWAPLAB_WORK', 'SWAPLAB_CACHE', 'LINUX_REPO', 'GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL',
             'GIT_COMMITTER_NAME', 'GIT_COMMITTER_EMAIL', 'GIT_AUTHOR_DATE', 'GIT_COMMITTER_DATE')

    def _python(self, env):
        code = ('import os, sys; sys.path.insert(0, sys.argv[1]); from swaplab.envdefaults import env_defaults; '
                'env_defaults(); print("\\n".join(os.environ.get(k, "-") for k in sys.argv[2:]))')
        p = subprocess.run([sys.executable, '-c', code, GRADER, *self.NAMES], env=env, capture_output=True,
                           text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout.split('\n')[:-1]

    def _bash(self, env):
        p = subprocess.run(['bash', '-c', '. "$0"; for v in "$@"; do printf "%s\\n" "${!v:--}"; done', LIB,
                            *self.NAMES], env=env, capture_output=True, text=True, timeout=60)
        return p.stdout.split('\n')[:-1]

    def test_python_sees_what_a_script_sees(self):
        base = {k: v for k, v in os.environ.items() if not k.startswith(('SWAPLAB_', 'GIT_', 'LINUX_'))}
        for extra in ({}, {'SWAPLAB_WORK': '/nowhere/work', 'GIT_AUTHOR_DATE': '2000-01-01T00:00:00Z'},
                      {'SWAPLAB_CACHE': ''}):
            with self.subTest(env=extra):
                env = dict(base, **extra)
                got = self._python(env)
                self.assertEqual(got, self._bash(env))
                self.assertEqual(got[0], ROOT)
                if 'SWAPLAB_WORK' in extra:
                    self.assertEqual(got[1:4:2], ['/nowhere/work', '/nowhere/work/linux'])
                    self.assertEqual(got[8], '2016-10-20T16:31:39Z')    # fixed, whatever the caller says

    def test_the_defaults_are_written_once(self):
        # no Python of the kit writes a default of its own (check-refs looks
        # for another kit's work repository, not this one's default: left out)
        pyfiles = [p for p in glob.glob(os.path.join(ROOT, 'grader', 'swaplab', '*.py')) +
                   glob.glob(os.path.join(ROOT, 'autograder', '*')) + glob.glob(os.path.join(ROOT, 'grader', '*')) +
                   glob.glob(os.path.join(ROOT, 'scripts', '*')) + glob.glob(os.path.join(ROOT, 'scripts', '*', '*')) +
                   glob.glob(os.path.join(ROOT, 'bench', '*')) + glob.glob(os.path.join(ROOT, 'bench', '*', '*.py')) +
                   [os.path.join(HERE, 'policy_corpus.py')]
                   if os.path.isfile(p) and os.path.basename(p) != 'check-refs']
        bad = []
        for p in pyfiles:
            with open(p, encoding='utf-8', errors='replace') as f:
                src = f.read()
            if not (p.endswith('.py') or src.startswith('#!/usr/bin/env python3')):
                continue
            for n, line in enumerate(src.split('\n'), 1):
                if re.search(r"~/\.cache|2016-10-20T|swaplab@localhost|'work', 'linux'|\(ROOT, 'work'", line):
                    bad.append(f'{os.path.relpath(p, ROOT)}:{n}')
        self.assertGreater(len(pyfiles), 20)
        self.assertEqual(bad, [], "the defaults are scripts/lib.sh's (env_defaults): ask swaplab.envdefaults")
        with open(envdefaults.__file__, encoding='utf-8') as f:
            self.assertIn("'env_defaults'", f.read())     # (it runs lib.sh's)


class Tables(unittest.TestCase):
    def _write(self, text):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        p = os.path.join(d, 't.tsv')
        with open(p, 'w') as f:
            f.write(text)
        return p

    def test_rows(self):
        p = self._write('# head\n\na\tb\n   \n#x\tskipped\nc\td\te\nf\t\n')
        self.assertEqual(list(tsv.rows(p, 2, 3)), [(3, ['a', 'b']), (6, ['c', 'd', 'e']), (7, ['f', ''])])

    def test_a_bad_line_is_named(self):
        for text, lo, hi, line, says in (('a\tb\nc\n', 2, None, 2, 'want at least 2 tab-separated fields, got 1'),
                                         ('a\tb\tc\n', 2, 2, 1, 'want 2 tab-separated fields (X Y), got 3'),
                                         ('# c\na\n', 2, 3, 2, 'want 2 to 3 tab-separated fields')):
            p = self._write(text)
            with self.assertRaises(tsv.TableError) as e:
                list(tsv.rows(p, lo, hi, 'X Y' if hi == 2 else ''))
            self.assertTrue(str(e.exception).startswith(f'{p}:{line}: '), str(e.exception))
            self.assertIn(says, str(e.exception))
        self.assertIs(checks.TableError, tsv.TableError)
        self.assertNotIsInstance(tsv.TableError('x'), ValueError)     # no `except ValueError` swallows one

    def test_every_table_of_the_kit_reads(self):
        self.assertTrue(checks.load())
        self.assertTrue(scoring.load().own)
        self.assertTrue(plausible.load().ranges)
        self.assertTrue(refdata.load())
        self.assertTrue(timelimits.limits())
        self.assertTrue(timelimits.step_limits())
        for rel, n in (('labs/numbers.tsv', 4), ('labs/time.tsv', 5)):
            self.assertTrue(list(tsv.rows(os.path.join(ROOT, rel), n, n)), rel)

    def test_readers_that_skipped_a_bad_line_fail_loudly(self):
        good_fig = 'lockfp\t01\tsi_lock_acq_per_page\t1.5\t1.5-1.5\t2\tlockstat.sh:x\t2026-01-01\tcmd\n'
        self.assertEqual(list(refdata.load(self._write('# c\n' + good_fig))), ['01'])
        for reader, text, says in ((refdata.load, good_fig.replace('\tcmd', ''), 'want 9'),
                                   (refdata.load, good_fig.replace('lockfp', 'lockfq'), 'unknown kind'),
                                   (timelimits.limits, 'pageout\t60\t1.0\nstray\n', 'want 2 to 3'),
                                   (timelimits.limits, 'pageout\tsixty\t1.0\n', 'not a whole number'),
                                   (timelimits.step_limits, 'step:swapoff\t10\t1\t2\n', 'got 4'),
                                   (checks.load, 'all\tbuild-fast\tbuild\n', 'want 4'),
                                   (checks.load, 'all\tx\tfrobnicate\tfast\n', 'unknown kind')):
            with self.subTest(reader=reader.__qualname__, text=text):
                p = self._write(text)
                with self.assertRaises(tsv.TableError) as e:
                    reader(p)
                self.assertIn(f'{p}:', str(e.exception))
                self.assertIn(says, str(e.exception))
        # a missing file is no table: nothing recorded, no limits (as before)
        self.assertEqual(refdata.load('/nonexistent/recorded.tsv'), {})
        self.assertEqual(timelimits.limits('/nonexistent/limits.tsv'), {})

    def test_one_reader(self):
        # no module of grader/swaplab but tsv.py splits a table's lines
        bad = []
        for p in sorted(glob.glob(os.path.join(GRADER, 'swaplab', '*.py'))):
            if os.path.basename(p) == 'tsv.py':
                continue
            with open(p, encoding='utf-8') as f:
                for n, line in enumerate(f, 1):
                    if re.search(r"split\(['\"]\\t['\"]\)|csv\.reader", line):
                        bad.append(f'{os.path.relpath(p, ROOT)}:{n}')
        self.assertEqual(bad, [], 'read a table with swaplab.tsv.rows')


class ChecksCommandLine(unittest.TestCase):
    """python3 -m swaplab.checks, which tests/labs and tests/student-kit
    read instead of their awk and read loops over grader/checks.tsv."""

    def cli(self, *args):
        p = subprocess.run([sys.executable, '-m', 'swaplab.checks', *args], cwd=GRADER, capture_output=True,
                           text=True, timeout=60)
        return p.returncode, p.stdout, p.stderr

    def test_what_the_awk_and_read_loops_printed(self):
        table = os.path.join(GRADER, 'checks.tsv')
        for lab in labs.numbers():
            with self.subTest(lab=lab):
                # tests/labs' loop: `while IFS=$'\t' read -r labs_ id _`, own when labs_ = LAB
                loop = ('while IFS=$\'\\t\' read -r labs_ id _; do case "$labs_" in \'\'|\'#\'*) continue ;; esac; '
                        'if [ "$labs_" = "$2" ]; then echo "own $id"; else echo "other $id"; fi; done <"$1"')
                p = subprocess.run(['bash', '-c', loop, 'loop', table, lab], capture_output=True, text=True)
                old = p.stdout.split('\n')[:-1]
                self.assertEqual(self.cli('own', lab), (0, ''.join(f'{x[4:]}\n' for x in old if x.startswith('own ')), ''))
                self.assertEqual(self.cli('others', lab)[1], ''.join(f'{x[6:]}\n' for x in old if x.startswith('other ')))
        p = subprocess.run(['awk', '-F\t', '$2 ~ /^lockfp-/ { print $2 }', table], capture_output=True, text=True)
        self.assertEqual(self.cli('kind', 'lockfp'), (0, p.stdout, ''))

    def test_bad_arguments(self):
        self.assertEqual(self.cli('own', '99'), (2, '', f"error: LAB must be {labs.span()}, got '99'\n"))
        self.assertEqual(self.cli('kind', 'x')[0], 2)
        self.assertEqual(self.cli()[0], 2)


if __name__ == '__main__':
    kitrun.main(__name__, 'labs')
