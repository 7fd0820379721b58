"""The plausible ranges of the figures black-box checks read:
grader/plausible.tsv, and the one reader of it.

The kernel under test writes the counters those figures come from
(/proc/vmstat, /proc/lock_stat, /proc/swaps, the swap cache's page counts,
the clock), so a figure outside what the workload can physically produce
says the counters were forged.  This module only finds such a figure;
verdict.py decides what it makes of the check (ERROR "implausible: ...").
"""
from __future__ import annotations

import ast
import dataclasses
import fnmatch
import math
import os
import re
from typing import Dict, List, Optional, Tuple

from .labs import ROOT
from .tsv import TableError, rows, where as at

PLAUSIBLE_TSV = os.path.join(ROOT, 'grader', 'plausible.tsv')
FUNCS = {'min': min, 'max': max, 'ceil': math.ceil, 'floor': math.floor}
_NAME = re.compile(r'^[A-Za-z_][A-Za-z0-9_]*$')


class Expr:
    """A bound: numbers, names (consts and the run's other METRICs),
    + - * / and parentheses, min max ceil floor.  Parsed once, when the
    table is read; anything else is a table error."""

    def __init__(self, text: str, where: str):
        self.text = text
        try:
            self.tree = ast.parse(text, mode='eval')
        except SyntaxError:
            raise TableError(f'{where}: {text!r} is not an expression') from None
        self.names: List[str] = []
        self._check(self.tree.body, where)

    def _check(self, n: ast.AST, where: str) -> None:
        if isinstance(n, ast.Constant) and type(n.value) in (int, float):
            return
        if isinstance(n, ast.Name):
            if n.id in FUNCS:
                raise TableError(f'{where}: {n.id} is a function: {self.text!r}')
            if n.id not in self.names:
                self.names.append(n.id)
            return
        if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
            self._check(n.left, where)
            self._check(n.right, where)
            return
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
            self._check(n.operand, where)
            return
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in FUNCS \
                and n.args and not n.keywords:
            for a in n.args:
                self._check(a, where)
            return
        raise TableError(f'{where}: {self.text!r}: only numbers, names, + - * / ( ) and '
                         f'{", ".join(FUNCS)} may make a bound')

    def eval(self, env: Dict[str, float]) -> float:
        return float(self._eval(self.tree.body, env))

    def _eval(self, n: ast.AST, env: Dict[str, float]) -> float:
        if isinstance(n, ast.Constant):
            return n.value
        if isinstance(n, ast.Name):
            return env[n.id]
        if isinstance(n, ast.BinOp):
            a, b = self._eval(n.left, env), self._eval(n.right, env)
            if isinstance(n.op, ast.Add):
                return a + b
            if isinstance(n.op, ast.Sub):
                return a - b
            if isinstance(n.op, ast.Mult):
                return a * b
            return a / b
        if isinstance(n, ast.UnaryOp):
            v = self._eval(n.operand, env)
            return -v if isinstance(n.op, ast.USub) else v
        assert isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
        return FUNCS[n.func.id](*(self._eval(a, env) for a in n.args))


@dataclasses.dataclass
class Range:
    checks: str                 # fnmatch pattern of check ids
    figure: str
    low: Optional[Expr]
    high: Optional[Expr]
    why: str
    where: str                  # file:line

    def applies(self, check_id: str) -> bool:
        return fnmatch.fnmatchcase(check_id, self.checks)


@dataclasses.dataclass
class Table:
    consts: Dict[str, float]
    ranges: List[Range]

    def for_check(self, check_id: str) -> List[Range]:
        return [r for r in self.ranges if r.applies(check_id)]


def _bound(s: str, where: str) -> Optional[Expr]:
    return None if s == '-' else Expr(s, where)


def load(path: Optional[str] = None) -> Table:
    """The ranges: PATH, else $SWAPLAB_PLAUSIBLE, else grader/plausible.tsv.
    Every line is checked when read: a malformed one is a TableError
    naming it, never a range that silently does not apply."""
    path = path or os.environ.get('SWAPLAB_PLAUSIBLE') or PLAUSIBLE_TSV
    t = Table({}, [])
    for n, w in rows(path):
        where = at(path, n)
        if w[0] == 'const' and len(w) == 3:
            if not _NAME.match(w[1]) or w[1] in FUNCS or w[1] in t.consts:
                raise TableError(f'{where}: const {w[1]!r}: a new name is wanted')
            try:
                t.consts[w[1]] = float(w[2])
            except ValueError:
                raise TableError(f'{where}: const {w[1]}: expected a number, got {w[2]!r}') from None
            if not math.isfinite(t.consts[w[1]]):
                raise TableError(f'{where}: const {w[1]}: {w[2]} is not finite')
        elif w[0] == 'range' and len(w) == 6:
            _, checks, figure, low, high, why = w
            if not checks or not _NAME.match(figure) or not why.strip():
                raise TableError(f'{where}: expected "range CHECKS FIGURE LOW HIGH WHY" '
                                 '(FIGURE a METRIC name, WHY not empty)')
            r = Range(checks, figure, _bound(low, where), _bound(high, where), why.strip(), where)
            if r.low is None and r.high is None:
                raise TableError(f'{where}: {figure}: a range needs LOW or HIGH')
            for e in (r.low, r.high):
                if e is not None and figure in e.names:
                    raise TableError(f'{where}: {figure} bounds itself: {e.text!r}')
            if any(x.figure == figure and x.checks == checks for x in t.ranges):
                raise TableError(f'{where}: a second range for {figure} in {checks}')
            t.ranges.append(r)
        else:
            raise TableError(f'{where}: expected "const NAME VALUE" or '
                             '"range CHECKS FIGURE LOW HIGH WHY" (tab-separated)')
    return t


_cached: Dict[str, Table] = {}


def table() -> Table:
    """The table in use (read once per path)."""
    path = os.environ.get('SWAPLAB_PLAUSIBLE') or PLAUSIBLE_TSV
    if path not in _cached:
        _cached[path] = load(path)
    return _cached[path]


@dataclasses.dataclass
class Finding:
    """A figure outside its range: the reason of the check's verdict."""
    figure: str
    value: str
    low: Optional[float]
    high: Optional[float]
    range: Range
    used: Dict[str, str]            # the run's figures the bounds needed
    problem: Optional[str] = None   # why the range could not be evaluated
    note: str = ''                  # e.g. which run, for the latency check

    def reason(self) -> str:
        at = f' ({self.note})' if self.note else ''
        if self.problem:
            return f'implausible: {self.figure} {self.value}{at} {self.problem} (grader/plausible.tsv)'
        used = ', '.join(f'{k} {v}' for k, v in self.used.items())
        return (f'implausible: {self.figure} {self.value}{at} is outside its range {span(self.low, self.high)}'
                f'{f" ({used})" if used else ""}: {self.range.why} (grader/plausible.tsv)')

    def to_json(self) -> dict:
        return {'figure': self.figure, 'value': self.value, 'low': self.low, 'high': self.high,
                'used': dict(self.used), 'problem': self.problem, 'table': self.range.where}


def _num(x: float) -> str:
    return f'{x:.6g}'


def span(low: Optional[float], high: Optional[float]) -> str:
    return f"[{_num(low) if low is not None else '-inf'}, {_num(high) if high is not None else 'inf'}]"


def _value(v: object) -> Tuple[Optional[float], float]:
    """The number a figure says and how far its printing may have rounded
    it: half a unit of its last printed decimal (0 for an integer: exact
    counts; 0 for a number the grader parsed itself)."""
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v), 0.0
    s = str(v).strip()
    try:
        x = float(s)
    except ValueError:
        return None, 0.0
    m = re.match(r'^[+-]?[0-9]*\.([0-9]+)$', s)
    return x, (0.5 * 10 ** -len(m.group(1)) if m else 0.0)


def find(check_id: str, figures: Dict[str, object], tab: Optional[Table] = None,
         note: str = '') -> Optional[Finding]:
    """The first figure of FIGURES (a run's METRICs, name -> printed value)
    outside its range for check CHECK_ID, in table order, or None.  A figure
    the run did not print is not checked (the check needs it and fails
    without it); one whose bound names a METRIC the run lacks is a finding:
    every guest script prints what its bounds need."""
    tab = tab or table()
    for r in tab.for_check(check_id):
        if r.figure not in figures:
            continue
        raw = figures[r.figure]
        x, tol = _value(raw)
        shown = _num(raw) if isinstance(raw, float) else str(raw).strip()
        names = [n for e in (r.low, r.high) if e is not None for n in e.names if n not in tab.consts]
        used = {n: (_num(figures[n]) if isinstance(figures[n], float) else str(figures[n]).strip())
                for n in names if n in figures}

        def found(problem: Optional[str] = None, lo: Optional[float] = None,
                  hi: Optional[float] = None) -> Finding:
            return Finding(r.figure, shown, lo, hi, r, used, problem, note)

        missing = [n for n in names if n not in figures]
        if missing:
            return found(f'cannot be checked against its range: the run printed no {missing[0]}')
        env = dict(tab.consts)
        for n in used:
            y, _ = _value(figures[n])
            if y is None or not math.isfinite(y):
                return found(f'cannot be checked against its range: {n} is {used[n]!r}, not a number')
            env[n] = y
        try:
            lo = r.low.eval(env) if r.low is not None else None
            hi = r.high.eval(env) if r.high is not None else None
        except ZeroDivisionError:
            return found('cannot be checked against its range: its bound divides by zero ('
                         + ', '.join(f'{k} {v}' for k, v in used.items()) + ')')
        if x is None or not math.isfinite(x):
            return found(f'is not a number (range {span(lo, hi)})')
        if (lo is not None and x + tol < lo) or (hi is not None and x - tol > hi):
            return found(None, lo, hi)
    return None
