"""Reports: the terminal table and excerpt, JSON, JUnit XML and Gradescope
results.json, each written with a real serializer (json, xml.etree)."""
from __future__ import annotations

import dataclasses
import datetime
import io
import json
import os
import platform
import xml.etree.ElementTree as ET
from typing import List, Optional, TextIO

from . import logs, scoring
from .verdict import Record, expected_cases

# exit codes of grader/grade
EXIT_PASS, EXIT_FAIL, EXIT_REJECTED, EXIT_ERROR, EXIT_INTERRUPTED = 0, 1, 2, 3, 130


@dataclasses.dataclass
class Grade:
    lab: str
    graded: str = ''                  # what was graded, in words
    commit: str = ''
    records: List[Record] = dataclasses.field(default_factory=list)
    started: float = 0.0              # epoch seconds
    seconds: float = 0.0
    status: str = 'graded'            # graded | rejected | interrupted | error
    message: str = ''                 # why, for rejected / interrupted / error
    work: str = ''                    # the log folder
    review: List[str] = dataclasses.field(default_factory=list)   # flags for an instructor
    context: dict = dataclasses.field(default_factory=dict)       # what the score depends on
    scored: Optional['scoring.Score'] = None   # None: not scored

    def __setattr__(self, name, value):
        # the message and the graded words may quote a submission's file
        # names (git's raw bytes): no escape sequence or control character
        # reaches a terminal, a table or a CSV through them
        if name in ('message', 'graded') and isinstance(value, str):
            value = logs.clean(value, keep_newlines=False)
        super().__setattr__(name, value)

    def apply_scoring(self, rules: Optional['scoring.Rules'] = None) -> None:
        """Score the grade (grader/scoring.tsv) into self.scored: its score
        out of 100 and each check's part (role, points, earned, cap); the
        records are left as they are.  A rejected submission or a grader
        error scores 0."""
        s = scoring.compute(self.lab, self.records, rules or scoring.load(), expected_cases=expected_cases)
        self.scored = s.zeroed() if self.status in ('rejected', 'error') else s

    def part(self, r: Record) -> 'scoring.Part':
        """Record R's part in the score: what every report shows beside it."""
        p = self.scored.parts.get(r.id) if self.scored else None
        return p if p is not None else scoring.Part.unscored(r)

    @property
    def score(self) -> float:
        if self.scored:
            return self.scored.score
        return sum(r.score for r in self.records)

    @property
    def max_score(self) -> float:
        if self.scored:
            return 100
        return sum(r.points for r in self.records)

    def capped_line(self) -> str:
        """Why the score is capped, in words ('' when it is not)."""
        sc = self.scored.to_json() if self.scored else {}
        if sc.get('cap') is None or sc.get('uncapped', 0) <= sc['cap']:
            return ''
        worst = [c for c in sc.get('capped_by', []) if c['cap'] == sc['cap']]
        names = ', '.join(c['check'] for c in worst)
        return (f"capped at {_pts(sc['cap'])} (from {_pts(sc['uncapped'])}) by the gate {names}: "
                f"{worst[0]['why'] if worst else ''}")

    @property
    def passed(self) -> bool:
        return self.status == 'graded' and bool(self.records) and \
            all(r.verdict == 'PASS' for r in self.records if r.counted)

    @property
    def exit_code(self) -> int:
        if self.status == 'rejected':
            return EXIT_REJECTED
        if self.status == 'interrupted':
            return EXIT_INTERRUPTED
        if self.status == 'error':
            return EXIT_ERROR
        return EXIT_PASS if self.passed else EXIT_FAIL

    def to_json(self) -> dict:
        return {'lab': self.lab, 'graded': self.graded, 'commit': self.commit,
                'score': self.score, 'max_score': self.max_score, 'passed': self.passed,
                'scoring': self.scored.to_json() if self.scored else {},
                'status': self.status, 'rejected': self.status == 'rejected',
                'interrupted': self.status == 'interrupted', 'message': self.message,
                'exit_code': self.exit_code,
                'started': datetime.datetime.fromtimestamp(self.started, datetime.timezone.utc)
                .isoformat(timespec='seconds') if self.started else None,
                'seconds': round(self.seconds, 1), 'work': self.work, 'review': list(self.review),
                'context': dict(self.context),
                'checks': [r.to_json(self.part(r)) for r in self.records]}

    @classmethod
    def from_json(cls, d: dict) -> 'Grade':
        g = cls(d.get('lab', ''), d.get('graded', ''), d.get('commit', ''),
                [Record.from_json(x) for x in d.get('checks', [])])
        g.status, g.message = d.get('status', 'graded'), d.get('message', '')
        g.seconds, g.work = float(d.get('seconds') or 0), d.get('work', '')
        g.review = list(d.get('review') or [])
        g.context = dict(d.get('context') or {})
        g.scored = scoring.Score.from_json(d.get('scoring') or {}, d.get('checks', []))
        return g


def _write_atomic(path: str, data: bytes) -> None:
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    tmp = f'{path}.tmp.{os.getpid()}'
    with open(tmp, 'wb') as f:
        f.write(data)
    os.replace(tmp, path)


# ---------------------------------------------------------------- JSON
def write_json(g: Grade, path: str) -> None:
    _write_atomic(path, (json.dumps(g.to_json(), indent=1, ensure_ascii=False) + '\n').encode('utf-8'))


def read_json(path: str) -> Grade:
    with open(path, encoding='utf-8') as f:
        return Grade.from_json(json.load(f))


# ---------------------------------------------------------------- JUnit
def junit_tree(g: Grade) -> ET.ElementTree:
    n = len(g.records)
    failures = sum(r.verdict == 'FAIL' for r in g.records)
    errors = sum(r.verdict in ('ERROR', 'TIMEOUT') for r in g.records)
    skipped = sum(r.verdict == 'SKIP' for r in g.records)
    ts = datetime.datetime.fromtimestamp(g.started or 0, datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%S')
    suite = ET.Element('testsuite', {
        'name': f'swaplab-lab{g.lab}', 'tests': str(n), 'failures': str(failures),
        'errors': str(errors), 'skipped': str(skipped), 'time': f'{g.seconds:.1f}',
        'timestamp': ts, 'hostname': logs.clean(platform.node() or 'localhost', False) or 'localhost'})
    props = ET.SubElement(suite, 'properties')
    for k, v in (('graded', g.graded), ('commit', g.commit), ('status', g.status),
                 ('message', g.message), ('score', f'{_pts(g.score)}/{_pts(g.max_score)}'),
                 *((f'context.{ck}', str(cv)) for ck, cv in sorted(g.context.items()))):
        ET.SubElement(props, 'property', {'name': k, 'value': logs.clean(v, False)})
    for r in g.records:
        tc = ET.SubElement(suite, 'testcase', {'classname': f'swaplab.lab{g.lab}', 'name': r.id,
                                               'time': f'{r.seconds or 0:.1f}'})
        if r.verdict == 'PASS':
            continue
        tag = {'FAIL': 'failure', 'ERROR': 'error', 'TIMEOUT': 'error', 'SKIP': 'skipped'}[r.verdict]
        el = ET.SubElement(tc, tag, {'message': f'{r.verdict}: {r.reason}'})
        if tag != 'skipped':
            el.set('type', r.verdict)
            el.text = r.excerpt or r.reason
    out = ET.SubElement(suite, 'system-out')
    out.text = text_table(g)
    ET.SubElement(suite, 'system-err').text = ''
    ET.indent(suite)
    return ET.ElementTree(suite)


def write_junit(g: Grade, path: str) -> None:
    b = io.BytesIO()
    junit_tree(g).write(b, encoding='UTF-8', xml_declaration=True)
    _write_atomic(path, b.getvalue() + b'\n')


# ---------------------------------------------------------------- Gradescope
def gradescope(g: Grade) -> dict:
    """Gradescope's autograder results.json: the score, and one test per
    check whose output holds the reason and the failure excerpt."""
    tests = []
    for i, r in enumerate(g.records, 1):
        out = f'{r.verdict}: {r.reason}'
        if r.excerpt and r.verdict != 'PASS':
            out += '\n\n' + r.excerpt
        p = g.part(r)
        tests.append({'name': r.id, 'number': str(i), 'score': p.earned, 'max_score': p.points,
                      'status': 'passed' if r.verdict == 'PASS' else 'failed', 'output': out,
                      'tags': [f'lab{r.lab}' if r.lab[:1].isdigit() else r.lab]})
    head = f'lab {g.lab}: {g.graded}'
    if g.status != 'graded':
        head += f'\n{g.status}: {g.message}'
    if g.capped_line():
        head += f'\nscore {g.capped_line()}'
    return {'score': g.score, 'max_score': g.max_score, 'execution_time': int(round(g.seconds)),
            'output': head, 'visibility': 'visible', 'stdout_visibility': 'hidden', 'tests': tests}


def write_gradescope(g: Grade, path: str) -> None:
    _write_atomic(path, (json.dumps(gradescope(g), indent=1, ensure_ascii=False) + '\n').encode('utf-8'))


# ---------------------------------------------------------------- terminal
def _secs(r: Record) -> str:
    return '-' if r.seconds is None else f'{r.seconds:.1f}s'


def _pts(x: float) -> str:
    """A score as people write it: 70, 46.7."""
    return f'{x:.1f}'.rstrip('0').rstrip('.') if x is not None else '-'


def points_cell(p: 'scoring.Part') -> str:
    """The POINTS column of a check whose part in the score is P
    (Grade.part): earned/possible for the lab's own checks, the cap for a
    gate ('gate<=50'), '-' for a check not counted."""
    if p.role == 'gate':
        return f'gate<={_pts(p.cap)}'
    if p.role == 'off':
        return '-'
    return f'{_pts(p.earned)}/{_pts(p.points)}'


def text_table(g: Grade) -> str:
    rows = [f"{'CHECK':<16} {'POINTS':>9}  {'VERDICT':<7} {'TIME':>7}  REASON"]
    for r in g.records:
        rows.append(f'{r.id:<16} {points_cell(g.part(r)):>9}  {r.verdict:<7} {_secs(r):>7}  {r.reason}')
    return '\n'.join(rows)


def first_failure(g: Grade) -> Optional[Record]:
    for r in g.records:
        if r.verdict in ('FAIL', 'ERROR', 'TIMEOUT'):
            return r
    for r in g.records:
        if r.verdict != 'PASS':
            return r
    return None


def print_summary(g: Grade, f: TextIO) -> None:
    print(file=f)
    print(text_table(g), file=f)
    print(file=f)
    if g.status == 'rejected':
        print(f'lab {g.lab}: submission rejected before anything was booted: {g.message}', file=f)
    elif g.status == 'error':
        print(f'lab {g.lab}: grader error: {g.message}', file=f)
    else:
        tail = ' (interrupted)' if g.status == 'interrupted' else ''
        print(f'lab {g.lab}: {_pts(g.score)}/{_pts(g.max_score)} points in {g.seconds:.1f} s ({g.graded}){tail}',
              file=f)
        if g.capped_line():
            print(f'  score {g.capped_line()}', file=f)
    r = first_failure(g)
    if r is not None and r.excerpt:
        print(file=f)
        print(f'first failure, in context ({r.id}: {r.verdict}):', file=f)
        for l in r.excerpt.split('\n'):
            print(f'  | {l}', file=f)
