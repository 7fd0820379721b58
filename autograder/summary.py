#!/usr/bin/env python3
"""summary.py [--line] DIR: the GitHub Actions job summary (Markdown) of a
grade made by the Classroom workflow (classroom/.github/workflows/swaplab.yml).

DIR holds what the workflow's grade step left: lab, rc (grader/grade's exit
status, or submission.py's), notes (remarks about the submission) and
grade.json (grader/grade --json).  Prints the score, the verdict table (one
row per check: points, verdict, time, reason) and the first failure's
excerpt; --line prints one line instead (the job log).  Standard library.
"""
from __future__ import annotations

import os
import re
import sys

KIT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(KIT, 'grader'))
from swaplab import report  # noqa: E402

EXIT = {0: 'every check passed', 1: 'some check failed', 2: 'not graded: rejected before building',
        3: 'grader error', 130: 'interrupted'}


def read(d: str, name: str) -> str:
    try:
        with open(os.path.join(d, name), encoding='utf-8', errors='replace') as f:
            return f.read().strip()
    except OSError:
        return ''


def cell(s: str) -> str:
    """Text for a Markdown table cell: one line, no table or HTML syntax."""
    s = ' '.join(str(s).split())
    s = s.replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;')
    return re.sub(r'([\\`*_\[\]|])', r'\\\1', s)


def fenced(text: str) -> str:
    n = max([3] + [len(m) + 1 for m in re.findall(r'`{3,}', text)])
    return f"{'`' * n}text\n{text}\n{'`' * n}"


def main(argv) -> int:
    line = '--line' in argv
    args = [a for a in argv if a != '--line']
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    d = args[0]
    lab, rc, notes = read(d, 'lab') or '??', read(d, 'rc'), read(d, 'notes')
    try:
        g = report.read_json(os.path.join(d, 'grade.json'))
    except (OSError, ValueError):
        g = None
    rc_i = int(rc) if rc.lstrip('-').isdigit() else None
    what = EXIT.get(rc_i, f'exit {rc or "?"}')
    if g is None:
        last = notes.split('\n')[-1] if notes else ''
        why = last if last.startswith(('nothing to grade', 'autograder problem')) else \
            f'no grade was made ({what}); see the job log'
        if line:
            print(f'swaplab lab {lab}: not graded: {why}')
            return 0
        print(f'## swaplab lab {lab}: not graded\n\n{cell(why)}\n')
        return 0
    score = f'{report._pts(g.score)}/{report._pts(g.max_score)}'
    if line:
        print(f'swaplab lab {lab}: {score} ({what})')
        return 0
    out = [f'## swaplab lab {lab}: {score}', '']
    if g.capped_line():
        out += [f'Score {cell(g.capped_line())}.', '']
    if g.status != 'graded':
        out += [f'**{cell(g.status)}**: {cell(g.message)}', '']
    out += ['; '.join(x for x in (cell(g.graded), f'{g.seconds:.0f} s', what) if x) + '.', '']
    if notes:
        out += [f'- {cell(n)}' for n in notes.split('\n') if n.strip()] + ['']
    out += ['| check | points | verdict | time | reason |', '|---|---:|---|---:|---|']
    for r in g.records:
        t = '-' if r.seconds is None else f'{r.seconds:.1f} s'
        out.append(f'| {cell(r.id)} | {cell(report.points_cell(g.part(r)))} | {r.verdict} | {t} | {cell(r.reason)} |')
    r = report.first_failure(g)
    if r is not None and r.excerpt:
        out += ['', f'<details><summary>first failure, in context: {cell(r.id)} ({r.verdict})</summary>', '',
                fenced(r.excerpt), '', '</details>']
    print('\n'.join(out) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
