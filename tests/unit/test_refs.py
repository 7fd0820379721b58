"""scripts/author/check-refs: no dangling reference in the handouts a kit ships.
Its logic on small fixture kits and texts (a handout naming a path, a make
target or a tag the kit lacks is caught; one naming what is there is not;
the tags come from the fixture's scripts and data), then the checker on
this kit's own handouts.  Host-only, a second or two.
"""
import os
import subprocess
import sys
import tempfile
import unittest
from importlib.machinery import SourceFileLoader

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import kitrun  # noqa: E402

cr = SourceFileLoader('check_refs', os.path.join(ROOT, 'scripts', 'author', 'check-refs')).load_module()

MAKEFILE = """\
.PHONY: help setup grade run
help:
\t@echo help
setup:
grade: setup
run: setup
start: setup
gdb: CONFIG = gdb
gdb: setup
## make student-kit LABS=01-NN OUT=dir
.PHONY: student-kit
%.o: %.c
\tcc -c $<
"""
SCRIPTS = {
    'setup-tree': 'git -C "$tmp" tag pristine\n# a comment: tag nothing\n',
    'stages': 'for t in $(g tag -l "stage-[0-9][0-9]"); do g tag -d "$t"; done\ng tag -f "stage-$num" "$head" >/dev/null\n',
    'lab-starts': 'g tag -f "lab-$lab-start" "$c" >/dev/null\n',
    'student/start': 'br=lab-$lab\n',
    'author/student-kit': "awk '/^## /{keep = ($0 ~ /^## (Quickstart|Students)/)} keep' README.md\n",
    'handout/lab-time': '',
}
README = """# kit

Intro: `scripts/handout/lab-time`.

## Quickstart

```sh
make grade LAB=01   # the main job
```

## Students

### Gates

Run `make run LAB=01 TEST=tests/guest/smoke.sh`.

## Instructors

`scripts/instructors-only` and `make nosuch` are not shipped: not checked.
"""
GOOD = """# Lab 01

See the [gates](../../README.md#gates) and [below](#grading-make-grade-lab01).
Make sure it builds (prose: "make" is a verb here).  The seed, "mm/swap: Add
cluster lock", is no path.  Edit `mm/swapfile.c` (mm/swapfile.c:355 `f()`),
`<linux/swap.h>` and `work/linux/mm/swap.h`; read `labs/NN-*/README.md`,
`tests/guest/X.sh`, https://example.org/scripts/nope and /proc/vmstat.

```
make start LAB=01     # branch lab-01 from lab-01-start
git -C work/linux diff pristine stage-00
grader/grade --lab 01 --stage 00
```

## Grading: `make grade LAB=01`
"""
BAD = """# Lab 01

Run `scripts/nope`, then `make frobnicate LAB=01`, `make grade LAB=03`,
`git -C work/linux diff stage-00 stage-05` and `lab-03-start`, then
`grader/grade --lab 01 --stage 05`, `mm/nothere.c` and [this](#no-such-heading).
"""


def kit(d, handout, edition_stages=None, readme=README):
    """A fixture kit in D: labs 01 and 02, stages 00..02 from its series
    (or, as an edition, the stages EDITION_STAGES of starts/manifest)."""
    def w(rel, text):
        p = os.path.join(d, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, 'w') as f:
            f.write(text)
    w('Makefile', MAKEFILE)
    w('README.md', readme)
    for name, text in SCRIPTS.items():
        w(f'scripts/{name}', text)
    w('tests/guest/smoke.sh', '')
    for lab in ('01-a', '02-b'):
        w(f'labs/{lab}/partial.patch', '')
    w('labs/01-a/README.md', handout)
    w('labs/02-b/README.md', '# Lab 02\n')
    if edition_stages is None:
        w('solutions/series', '# comment\n00-baseline\n01-a\n02-b\n')
    else:
        w('starts/manifest', '# edition\n' + ''.join(f'stage\t{s}\tt\tc\n' for s in edition_stages))
    return d


def check(d, kernel=None):
    k = cr.Kit(d, None, root=d)
    k.kernel = kernel
    if kernel is not None:
        k.kernel_top = {f for f in kernel if '/' not in f}
    refs = []
    for rel, text in cr.handouts(d, d):
        for r in cr.extract(text, rel, k.top, k.kernel_top):
            k.check(r)
            refs.append(r)
    return k, refs


KERNEL = {'mm', 'mm/swapfile.c', 'mm/swap.h', 'include', 'include/linux', 'include/linux/swap.h', 'scripts'}


class Expected(unittest.TestCase):
    def test_series_rule_as_scripts_stages(self):
        self.assertEqual(cr.series_stages(os.devnull), ['06'])
        with tempfile.NamedTemporaryFile('w', suffix='.series') as f:
            f.write('00-baseline\n03-x\n06-y\n')
            f.flush()
            self.assertEqual(cr.series_stages(f.name), ['02', '03', '06'])

    def test_tags_from_the_fixture_scripts_and_data(self):
        with tempfile.TemporaryDirectory() as d:
            e = cr.expected_refs(kit(d, GOOD))
            self.assertEqual(e['templates'], {'pristine', 'stage-NN', 'lab-NN-start'})
            self.assertEqual(e['tags'], {'pristine', 'stage-00', 'stage-01', 'stage-02', 'lab-01-start', 'lab-02-start'})
            self.assertEqual(e['branches'], {'lab-01', 'lab-02'})
        with tempfile.TemporaryDirectory() as d:
            e = cr.expected_refs(kit(d, GOOD, edition_stages=['00']))
            self.assertEqual(e['tags'], {'pristine', 'stage-00', 'lab-01-start', 'lab-02-start'})

    def test_make_targets(self):
        with tempfile.TemporaryDirectory() as d:
            t = cr.make_targets(kit(d, GOOD))
            for name in ('help', 'grade', 'gdb', 'student-kit', 'setup', 'x.o'):
                self.assertTrue(cr.has_target(name, t), name)
            for name in ('CONFIG', 'frobnicate', 'x.c'):
                self.assertFalse(cr.has_target(name, t), name)


class Extract(unittest.TestCase):
    def test_kinds(self):
        with tempfile.TemporaryDirectory() as d:
            _, refs = check(kit(d, GOOD), KERNEL)
        got = {(r.kind, r.name) for r in refs if r.file.startswith('labs/')}
        for want in (('link', '../../README.md#gates'), ('kernel', 'mm/swapfile.c'),
                     ('kernel', 'include/linux/swap.h'), ('kernel', 'mm/swap.h'), ('path', 'labs/NN-*/README.md'),
                     ('path', 'tests/guest/X.sh'), ('target', 'start'), ('lab', '01'), ('branch', 'lab-01'),
                     ('tag', 'lab-01-start'), ('tag', 'pristine'), ('tag', 'stage-00'), ('stage', '00')):
            self.assertIn(want, got)
        names = {n for _, n in got}
        for not_a_ref in ('mm/swap', 'sure', 'it', 'scripts/nope', 'proc/vmstat'):
            self.assertNotIn(not_a_ref, names)

    def test_readme_sections_an_edition_ships(self):
        self.assertEqual(cr.readme_sections(os.devnull), None)
        with tempfile.TemporaryDirectory() as d:
            _, refs = check(kit(d, GOOD), KERNEL)
        readme = {(r.kind, r.name) for r in refs if r.file == 'README.md'}
        self.assertEqual(readme, {('path', 'scripts/handout/lab-time'), ('target', 'grade'), ('target', 'run'),
                                  ('lab', '01'), ('path', 'tests/guest/smoke.sh')})


class Dangling(unittest.TestCase):
    def test_a_good_handout_has_none(self):
        with tempfile.TemporaryDirectory() as d:
            _, refs = check(kit(d, GOOD), KERNEL)
        self.assertEqual([r for r in refs if r.status != 'ok'], [])

    def test_a_bad_handout_names_each(self):
        with tempfile.TemporaryDirectory() as d:
            _, refs = check(kit(d, BAD), KERNEL)
        bad = {(r.kind, r.name) for r in refs if r.status == 'dangling'}
        self.assertEqual(bad, {('path', 'scripts/nope'), ('target', 'frobnicate'), ('lab', '03'),
                               ('tag', 'stage-05'), ('tag', 'lab-03-start'), ('stage', '05'),
                               ('kernel', 'mm/nothere.c'), ('link', '#no-such-heading')})

    def test_no_kernel_tree_leaves_kernel_paths_unchecked(self):
        with tempfile.TemporaryDirectory() as d:
            _, refs = check(kit(d, BAD), None)
        self.assertEqual({r.status for r in refs if r.kind == 'kernel'}, {'unchecked'})

    def test_an_edition_lacks_the_later_stages(self):
        with tempfile.TemporaryDirectory() as d:
            _, refs = check(kit(d, GOOD.replace('stage-00', 'stage-01'), edition_stages=['00'],
                                 readme=README.split('## Instructors')[0]), KERNEL)     # (an edition's README is all the students')
        self.assertEqual({(r.kind, r.name) for r in refs if r.status == 'dangling'}, {('tag', 'stage-01')})

    def test_the_command_exits_1_and_names_the_line(self):
        with tempfile.TemporaryDirectory() as d:
            kit(d, BAD)
            p = subprocess.run([sys.executable, os.path.join(ROOT, 'scripts', 'author', 'check-refs'), '--kit', d,
                                '--linux-repo', os.path.join(d, 'none')], capture_output=True, text=True)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn('labs/01-a/README.md:3: path scripts/nope: dangling (not in this kit)', p.stdout)


class ThisKit(unittest.TestCase):
    def test_this_kits_handouts_have_no_dangling_reference(self):
        k, refs = cr.run(ROOT, cr.default_repo(ROOT))
        self.assertEqual([repr(r) for r in refs if r.status == 'dangling'], [])
        self.assertGreater(len(refs), 100)


if __name__ == '__main__':
    kitrun.main(__name__, 'check-refs')
