"""The scoring model: grader/scoring.tsv, and the one place a grade's score
is computed from its records.

    score = 100 x (weight earned on the lab's own checks) / (their weight),
            capped at the lowest cap of the gates that did not pass.

The lab's own checks carry the score (a KUnit check earns its passed cases'
share); every other check of the grade is a gate.  Records skipped by choice
(`counted` false: the latency check when not asked for) are neither.
"""
from __future__ import annotations

import argparse
import dataclasses
import fnmatch
import json
import os
import sys
from typing import Dict, List, Optional, Tuple

from . import checks as checks_mod
from .labs import ROOT
from .tsv import TableError, rows, where as at
from .verdict import Record, expected_cases

SCORING_TSV = os.path.join(ROOT, 'grader', 'scoring.tsv')
PASSED_CASE = 'SUCCESS'


@dataclasses.dataclass
class Gate:
    pattern: str
    cap: float
    why: str


@dataclasses.dataclass
class Rules:
    own: Dict[str, Dict[str, float]]                    # lab -> check -> weight
    cases: Dict[Tuple[str, str, str], Tuple[float, Optional[float]]]   # (lab, check, case) -> weight, cap
    gates: List[Gate]

    def gate(self, check: str) -> Gate:
        for g in self.gates:
            if fnmatch.fnmatchcase(check, g.pattern):
                return g
        return Gate('*', 0.0, 'a check the scoring table does not name')

    def case(self, lab: str, check: str, case: str) -> Tuple[float, Optional[float]]:
        return self.cases.get((lab, check, case), (1.0, None))


def _num(s: str, where: str) -> float:
    try:
        v = float(s)
    except ValueError:
        raise TableError(f'{where}: expected a number, got {s!r}') from None
    if v < 0:
        raise TableError(f'{where}: {s} is negative')
    return v


def load(path: Optional[str] = None) -> Rules:
    """The scoring table: PATH, else $SWAPLAB_SCORING, else grader/scoring.tsv."""
    path = path or os.environ.get('SWAPLAB_SCORING') or SCORING_TSV
    rules = Rules({}, {}, [])
    for n, w in rows(path):
        where = at(path, n)
        if w[0] == 'own' and len(w) == 4:
            rules.own.setdefault(w[1], {})[w[2]] = _num(w[3], where)
        elif w[0] == 'case' and len(w) in (5, 6):
            cap = _num(w[5], where) if len(w) == 6 else None
            rules.cases[(w[1], w[2], w[3])] = (_num(w[4], where), cap)
        elif w[0] == 'gate' and len(w) == 4:
            rules.gates.append(Gate(w[1], _num(w[2], where), w[3]))
        else:
            raise TableError(f'{where}: expected "own LAB CHECK WEIGHT", '
                             f'"case LAB CHECK CASE WEIGHT [CAP]" or "gate CHECK CAP WHY"')
        if w[0] == 'gate' and rules.gates[-1].cap > 100:
            raise TableError(f'{where}: a cap is a score out of 100')
    return rules


@dataclasses.dataclass(frozen=True)
class Part:
    """One check's part in a grade's score: what the reports show beside
    its verdict."""
    role: str                    # own | gate | off (not counted) | '' (not scored)
    points: float                # what it can earn (0: a gate, or not counted)
    earned: float                # what it earned
    cap: Optional[float] = None  # a gate's cap

    @classmethod
    def unscored(cls, rec) -> 'Part':
        """A record's part in a grade never scored: its own points, earned
        when it passed."""
        return cls('', rec.points, rec.score, None)


OFF = Part('off', 0, 0, None)


@dataclasses.dataclass
class Score:
    """A grade's score: computed once from its records (compute) or read
    back from a saved report (from_json); the records are never changed."""
    score: float                 # out of 100, after the caps
    uncapped: float              # what the lab's own checks earned, out of 100
    cap: Optional[float]         # the lowest cap that applied, or None
    capped_by: List[dict]        # every failing gate: {'check', 'cap', 'why'}
    parts: Dict[str, Part] = dataclasses.field(default_factory=dict)   # per record id

    def to_json(self) -> dict:
        return {'score': self.score, 'max_score': 100, 'uncapped': self.uncapped, 'cap': self.cap,
                'capped_by': list(self.capped_by)}

    def zeroed(self) -> 'Score':
        """This score for a grade that earns nothing (a rejected submission,
        a grader error): 0, each check's part as computed."""
        return dataclasses.replace(self, score=0.0, uncapped=0.0)

    @classmethod
    def from_json(cls, d: dict, checks: List[dict]) -> Optional['Score']:
        """The score a saved report holds: D its "scoring", CHECKS its
        "checks" (each scored one's role, points, score and cap); None when
        the grade was not scored."""
        if not d:
            return None
        parts = {}
        for c in checks:
            if c.get('role'):
                pts = float(c.get('points') or 0)
                got = c.get('score')
                got = float(got) if got is not None else (pts if c.get('verdict') == 'PASS' else 0)
                parts[c['id']] = Part(c['role'], pts, got, c.get('cap'))
        return cls(d.get('score', 0.0), d.get('uncapped', 0.0), d.get('cap'),
                   list(d.get('capped_by') or []), parts)


def _round(x: float) -> float:
    return round(x + 1e-9, 1)


def case_share(rules: Rules, lab: str, rec, expected: List[str]) -> Tuple[float, List[dict]]:
    """The share (0..1) of a KUnit check's weight its passed cases earn, and
    the caps of its zero-weight guard cases that did not pass."""
    cases = (rec.metrics or {}).get('cases') or {}
    names = list(expected) or list(cases)
    total = got = 0.0
    caps = []
    for name in names:
        wt, cap = rules.case(lab, rec.id, name)
        ok = cases.get(name) == PASSED_CASE
        total += wt
        got += wt if ok else 0.0
        if cap is not None and not ok:
            caps.append({'check': f'{rec.id}.{name}', 'cap': cap,
                         'why': f'KUnit case {name} did not pass'})
    if total == 0:
        return (1.0 if rec.verdict == 'PASS' else 0.0), caps
    return got / total, caps


def compute(lab: str, records: list, rules: Optional[Rules] = None,
            expected_cases=None) -> Score:
    """The score of a grade of LAB with these records (verdict.Record).
    EXPECTED_CASES(lab) lists a KUnit check's cases (missing ones failed)."""
    rules = rules or load()
    own = rules.own.get(lab, {})
    counted = [r for r in records if getattr(r, 'counted', True)]
    mine = [r for r in counted if r.id in own]
    total = sum(own[r.id] for r in mine)
    parts: Dict[str, Part] = {}
    caps: List[dict] = []
    for r in counted:
        if r.id in own:
            pts = 100.0 * own[r.id] / total if total else 0.0
            share = 1.0 if r.verdict == 'PASS' else 0.0
            if r.id.startswith('kunit-') and r.verdict != 'SKIP':
                want = expected_cases(r.id[len('kunit-'):]) if expected_cases else []
                share, ccaps = case_share(rules, lab, r, want)
                caps += ccaps
            parts[r.id] = Part('own', _round(pts), _round(pts * share))
        else:
            g = rules.gate(r.id)
            parts[r.id] = Part('gate', 0.0, 0.0, g.cap)
            if r.verdict != 'PASS':
                caps.append({'check': r.id, 'cap': g.cap, 'why': g.why})
    uncapped = _round(sum(p.earned for p in parts.values())) if mine else 100.0
    for r in records:
        if not getattr(r, 'counted', True):
            parts.setdefault(r.id, OFF)
    cap = min((c['cap'] for c in caps), default=None)
    score = uncapped if cap is None else min(uncapped, cap)
    return Score(_round(score), uncapped, cap, caps, parts)


def main(argv: List[str]) -> int:
    """python3 -m swaplab.scoring --lab NN --replace GRADE.json: the score
    lab NN's reference grade (every check of the lab passing, every KUnit
    case too) would get with GRADE.json's records in place of its own: what
    a submission that breaks only those checks scores."""
    p = argparse.ArgumentParser(prog='python3 -m swaplab.scoring')
    p.add_argument('--lab', required=True)
    p.add_argument('--replace', required=True)
    p.add_argument('--latency', action='store_true')
    a = p.parse_args(argv)
    sel = checks_mod.select(checks_mod.load(), a.lab, latency=a.latency)
    recs = {}
    for c in sel:
        r = Record(c.id, c.labs, 0, 'PASS')
        if c.kunit_lab:
            r.metrics['cases'] = {k: PASSED_CASE for k in expected_cases(c.kunit_lab)}
        recs[c.id] = r
    with open(a.replace, encoding='utf-8') as f:
        for d in json.load(f).get('checks', []):
            if d['id'] in recs:
                recs[d['id']] = Record.from_json(d)
    s = compute(a.lab, list(recs.values()), expected_cases=expected_cases)
    print(json.dumps(s.to_json()))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
