#!/usr/bin/env python3
"""gradescope_spec.py [--strict] RESULTS.json...: check files against Gradescope's
documented results.json format ("Autograder Specifications",
gradescope-autograders.readthedocs.io/en/latest/specs/, the "Output
format", "Controlling Test Case Visibility", "Test case status" and
"Output String Formatting" sections), standard library only.

What it checks, field by field as documented (every field is optional
unless said): the file is one JSON object in UTF-8 with no NaN or
Infinity; top level: score (number; required unless every test has one),
execution_time (number, seconds), output (string), output_format,
test_output_format, test_name_format (text | html | simple_format | md |
ansi), visibility and stdout_visibility (hidden | after_due_date |
after_published | visible), extra_data (object), tests (array; required
without a top-level score), leaderboard (array of {name, value[, order
asc|desc]}); each test: score, max_score (numbers), status (passed |
failed), name (string), name_format, output_format (formats as above),
number (string), output (string), tags (array of strings), visibility,
extra_data (object).  A key the specification does not name is not an
error but a warning (undocumented(): a typo, or a field Gradescope does
not read, such as a top-level max_score: the assignment's points are set
in Gradescope); --strict makes warnings errors.  What it cannot check: how
Gradescope renders the file.
"""
from __future__ import annotations

import json
import sys
from typing import List

FORMATS = ('text', 'html', 'simple_format', 'md', 'ansi')
VISIBILITY = ('hidden', 'after_due_date', 'after_published', 'visible')
TOP = {'score', 'execution_time', 'output', 'output_format', 'test_output_format', 'test_name_format',
       'visibility', 'stdout_visibility', 'extra_data', 'tests', 'leaderboard'}
TEST = {'score', 'max_score', 'status', 'name', 'name_format', 'number', 'output', 'output_format', 'tags',
        'visibility', 'extra_data'}


def _num(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _no_const(name: str):
    raise ValueError(f'{name} is not JSON')


def problems(raw: bytes) -> List[str]:
    """Everything in RAW (a results.json file's bytes) that breaks the
    specification; empty when it is a valid results file."""
    out: List[str] = []
    try:
        d = json.loads(raw.decode('utf-8'), parse_constant=_no_const)
    except (UnicodeDecodeError, ValueError) as e:
        return [f'not valid JSON: {e}']
    if not isinstance(d, dict):
        return ['the top level is not a JSON object']
    if 'score' in d and not _num(d['score']):
        out.append('score is not a number')
    if 'execution_time' in d and not _num(d['execution_time']):
        out.append('execution_time is not a number')
    if 'output' in d and not isinstance(d['output'], str):
        out.append('output is not a string')
    for k in ('output_format', 'test_output_format', 'test_name_format'):
        if k in d and d[k] not in FORMATS:
            out.append(f'{k} {d[k]!r} is none of {FORMATS}')
    for k in ('visibility', 'stdout_visibility'):
        if k in d and d[k] not in VISIBILITY:
            out.append(f'{k} {d[k]!r} is none of {VISIBILITY}')
    if 'extra_data' in d and not isinstance(d['extra_data'], dict):
        out.append('extra_data is not an object')
    tests = d.get('tests')
    if 'tests' in d and not isinstance(tests, list):
        out.append('tests is not an array')
        tests = []
    if 'score' not in d:
        if tests is None:
            out.append('neither a top-level score nor tests')
        elif any(isinstance(t, dict) and 'score' not in t for t in tests):
            out.append('no top-level score, and a test without a score')
    for i, t in enumerate(tests or []):
        w = f'tests[{i}]'
        if not isinstance(t, dict):
            out.append(f'{w} is not an object')
            continue
        for k in ('score', 'max_score'):
            if k in t and not _num(t[k]):
                out.append(f'{w}.{k} is not a number')
        if 'status' in t and t['status'] not in ('passed', 'failed'):
            out.append(f"{w}.status {t['status']!r} is neither 'passed' nor 'failed'")
        for k in ('name', 'number', 'output'):
            if k in t and not isinstance(t[k], str):
                out.append(f'{w}.{k} is not a string')
        for k in ('name_format', 'output_format'):
            if k in t and t[k] not in FORMATS:
                out.append(f'{w}.{k} {t[k]!r} is none of {FORMATS}')
        if 'visibility' in t and t['visibility'] not in VISIBILITY:
            out.append(f"{w}.visibility {t['visibility']!r} is none of {VISIBILITY}")
        if 'tags' in t and not (isinstance(t['tags'], list) and all(isinstance(x, str) for x in t['tags'])):
            out.append(f'{w}.tags is not an array of strings')
        if 'extra_data' in t and not isinstance(t['extra_data'], dict):
            out.append(f'{w}.extra_data is not an object')
    lb = d.get('leaderboard')
    if 'leaderboard' in d:
        if not isinstance(lb, list):
            out.append('leaderboard is not an array')
        else:
            for i, e in enumerate(lb):
                if not (isinstance(e, dict) and isinstance(e.get('name'), str) and 'value' in e
                        and e.get('order', 'desc') in ('asc', 'desc')):
                    out.append(f'leaderboard[{i}] is not {{name, value[, order]}}')
    return out


def undocumented(raw: bytes) -> List[str]:
    """The keys of RAW (a valid results file) the specification does not name."""
    d = json.loads(raw.decode('utf-8'))
    out = [f'top-level key {k!r} is not in the specification' for k in sorted(set(d) - TOP)]
    for i, t in enumerate(d.get('tests') or []):
        out += [f'tests[{i}]: key {k!r} is not in the specification' for k in sorted(set(t) - TEST)]
    return out


def main(argv: List[str]) -> int:
    strict = '--strict' in argv
    bad = 0
    for f in [a for a in argv if a != '--strict']:
        try:
            with open(f, 'rb') as fh:
                raw = fh.read()
            ps = problems(raw)
            ws = [] if ps else undocumented(raw)
        except OSError as e:
            ps, ws = [f'cannot read: {e}'], []
        for p in ps:
            print(f'{f}: {p}')
        for w in ws:
            print(f"{f}: {'' if strict else 'warning: '}{w}")
        bad += bool(ps) or (strict and bool(ws))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
