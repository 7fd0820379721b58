"""The layers of the grader core (grader/swaplab), read from its source with
ast, nothing imported:
  - grade.py is the command line (arguments, signals, main) and nothing
    else imports it: what the grade does lives in the modules it drives
    (intake, pipeline, envdefaults, ...), so a newcomer reads it top down;
  - every import is at a module's top level, none inside a function: a
    module's dependencies are its first lines, and an import cycle shows
    as an error when the module is imported, not midway through a grade;
  - grade.py stays at most GRADE_MAX lines;
  - gradeall.py is grade-all's command line, and nothing imports it
    either: its grades are gradejobs.py's, its summary gradesum.py's;
  - every module is at most MODULE_MAX lines, but the tested parsers;
  - labs.py (the lab table, the kit's root, the allowlist's parser) and
    tsv.py (the table reader) are the bottom layer: they import no module
    of swaplab, so every other one, and bash through their command lines,
    can use them.
Host-only, well under a second.
"""
import ast
import glob
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PKG = os.path.join(ROOT, 'grader', 'swaplab')
sys.path.insert(0, HERE)
import kitrun  # noqa: E402

GRADE_MAX = 250
MODULE_MAX = 450
BOTTOM = ('labs', 'tsv')
PARSERS = ('logs', 'policy')      # tested on saved logs and a corpus: tests/unit/test_core, test_policy


def modules():
    """{name: (path, ast)} of every grader/swaplab/*.py."""
    out = {}
    for p in sorted(glob.glob(os.path.join(PKG, '*.py'))):
        with open(p, encoding='utf-8') as f:
            out[os.path.basename(p)[:-3]] = (p, ast.parse(f.read(), p))
    return out


def imported(node):
    """The swaplab modules an import statement names: 'grade' for
    `from . import grade`, `from .grade import main`, `import swaplab.grade`,
    `from swaplab.grade import main` or `from swaplab import grade`."""
    if isinstance(node, ast.Import):
        return [a.name.split('.')[1] for a in node.names if a.name.startswith('swaplab.')]
    if isinstance(node, ast.ImportFrom):
        if node.level == 0 and (node.module or '').split('.')[0] != 'swaplab':
            return []
        mod = node.module or ''
        if node.level == 0:
            mod = mod.split('.', 1)[1] if '.' in mod else ''
        if mod:
            return [mod.split('.')[0]]
        return [a.name for a in node.names]
    return []


def function_imports(tree):
    """(line, function) of each import statement inside a function body."""
    out = []
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for n in ast.walk(fn):
                if isinstance(n, (ast.Import, ast.ImportFrom)):
                    out.append((n.lineno, fn.name))
    return out


class Layers(unittest.TestCase):
    def setUp(self):
        self.mods = modules()

    def test_the_package_is_read(self):
        for m in ('grade', 'intake', 'pipeline', 'envdefaults', 'report', 'verdict'):
            self.assertIn(m, self.mods)

    def test_imported_reads_every_spelling(self):
        """The helper the next test trusts: each way to import grade is seen,
        and gradeall is not grade."""
        for src in ('from . import grade', 'from . import report, grade', 'from .grade import main',
                    'import swaplab.grade', 'from swaplab.grade import main', 'from swaplab import grade'):
            self.assertIn('grade', imported(ast.parse(src).body[0]), src)
        for src in ('from . import gradeall', 'from .gradeall import main', 'import grade',
                    'from .report import grade'):
            self.assertNotIn('grade', imported(ast.parse(src).body[0]), src)

    def test_only_grade_imports_the_command_line(self):
        bad = []
        for name, (path, tree) in self.mods.items():
            if name == 'grade':
                continue
            for n in ast.walk(tree):
                if 'grade' in imported(n):
                    bad.append(f'{os.path.relpath(path, ROOT)}:{n.lineno}')
        self.assertEqual(bad, [], 'grade.py is the command line: import what it uses from the '
                                  'module that holds it (intake, pipeline, envdefaults)')

    def test_nothing_imports_grade_alls_command_line(self):
        bad = [f'{os.path.relpath(path, ROOT)}:{n.lineno}' for name, (path, tree) in self.mods.items()
               if name != 'gradeall' for n in ast.walk(tree) if 'gradeall' in imported(n)]
        self.assertEqual(bad, [], "gradeall.py is grade-all's command line: import from gradejobs or gradesum")

    def test_every_name_read_from_a_module_is_defined_there(self):
        # (the cold quick tier, 2026-12-07: cpolicy.main read policy.ROOT
        # after ROOT moved to labs.py; every graded build was refused, and
        # no unit test runs cpolicy.main)
        def top_names(tree):
            out = set()
            for n in tree.body:
                if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
                    out.add(n.name)
                elif isinstance(n, (ast.Assign, ast.AnnAssign)):
                    for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                        out |= {x.id for x in ast.walk(t) if isinstance(x, ast.Name)}
                elif isinstance(n, (ast.Import, ast.ImportFrom)):
                    out |= {(a.asname or a.name).split('.')[0] for a in n.names}
                elif isinstance(n, (ast.If, ast.Try)):
                    out |= top_names(ast.Module(body=[x for x in ast.walk(n) if isinstance(x, ast.stmt)
                                                      and x is not n], type_ignores=[]))
            return out
        defined = {name: top_names(tree) for name, (_, tree) in self.mods.items()}
        bad = []
        for name, (path, tree) in self.mods.items():
            alias = {}
            for n in tree.body:
                if isinstance(n, ast.ImportFrom) and n.level == 1 and n.module is None:
                    alias.update({a.asname or a.name: a.name for a in n.names})
            for n in ast.walk(tree):
                if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in alias \
                        and n.attr not in defined.get(alias[n.value.id], {n.attr}):
                    bad.append(f'{os.path.relpath(path, ROOT)}:{n.lineno}: {n.value.id}.{n.attr}')
        self.assertEqual(bad, [])

    def test_every_verdict_is_set_in_verdict_py(self):
        # (issue 29) X.set(VERDICT, ...) with a verdict constant, or one
        # read from another record, anywhere but verdict.py
        verdicts = {'PASS', 'FAIL', 'ERROR', 'TIMEOUT', 'SKIP'}
        bad = []
        for name, (path, tree) in self.mods.items():
            if name in ('verdict', 'record'):
                continue
            for n in ast.walk(tree):
                if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == 'set'
                        and n.args):
                    continue
                a = n.args[0]
                if (isinstance(a, ast.Constant) and a.value in verdicts) or \
                        any(isinstance(x, ast.Attribute) and x.attr == 'verdict' for x in ast.walk(a)):
                    bad.append(f'{os.path.relpath(path, ROOT)}:{n.lineno}')
        self.assertEqual(bad, [], 'a verdict is decided in verdict.py (a decide_* function)')

    def test_every_module_but_the_parsers_is_short(self):
        # (issue 29) a newcomer reads a module whole: at most MODULE_MAX
        # lines, but the tested parsers (PARSERS: the console, build-log
        # and KTAP parsers; the source policy's lexer and rules)
        long = []
        for name, (path, _) in self.mods.items():
            with open(path, encoding='utf-8') as f:
                n = len(f.read().splitlines())
            if n > MODULE_MAX and name not in PARSERS:
                long.append(f'{name}.py has {n} lines')
        self.assertEqual(long, [])
        self.assertTrue(set(PARSERS) <= set(self.mods), PARSERS)

    def test_the_bottom_layer_imports_no_module_of_swaplab(self):
        for name in BOTTOM:
            path, tree = self.mods[name]
            bad = [f'{os.path.relpath(path, ROOT)}:{n.lineno}' for n in ast.walk(tree) if imported(n)
                   or (isinstance(n, ast.ImportFrom) and n.level > 0)]
            self.assertEqual(bad, [], f'{name}.py is the bottom layer: it imports no module of swaplab')

    def test_no_import_inside_a_function(self):
        bad = [f'{os.path.relpath(path, ROOT)}:{line} (in {fn})'
               for path, tree in self.mods.values() for line, fn in function_imports(tree)]
        self.assertEqual(bad, [], 'imports belong at the top of a module; a cycle is broken by moving '
                                  'the function to the module that owns its data')

    def test_function_imports_are_seen(self):
        tree = ast.parse('def f():\n    if x:\n        import os\n\n\nclass C:\n'
                         '    def m(self):\n        from . import run\n')
        self.assertEqual(sorted(function_imports(tree)), [(3, 'f'), (8, 'm')])

    def test_grade_py_is_short(self):
        with open(self.mods['grade'][0], encoding='utf-8') as f:
            n = len(f.read().splitlines())
        self.assertLessEqual(n, GRADE_MAX, f'grade.py has {n} lines: the grade itself belongs in '
                                           'pipeline.py, what it grades in intake.py')


if __name__ == '__main__':
    kitrun.main(__name__, 'layers')
