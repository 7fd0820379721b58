#!/usr/bin/env python3
"""summary.py: read grade-all's summary of a batch (grader/grade-all --out
DIR writes DIR/summary.csv, summary.html and summary.json), for tests/labs.

  summary.py row CSV STUDENT     STUDENT's row as "score|max|status|failed_checks"
                                 (nothing when the CSV has no such student)
  summary.py scores CSV          "student|score|status|failed_checks", one line
                                 a student, sorted by student
  summary.py columns DIR         exit 0 when DIR/summary.csv has a column per
                                 check (alice-correct full marks on kunit-01,
                                 bob-partial less; build-fast PASS; lab_start,
                                 capped_by, latency_ratio) and summary.html a
                                 table row per student plus the header; else
                                 an AssertionError naming what differs
  summary.py has-student JSON STUDENT
                                 exit 0 when summary.json lists STUDENT

A missing or malformed file ends in Python's traceback (exit 1).
Standard library only.
"""
import csv
import json
import sys
from html.parser import HTMLParser

sys.dont_write_bytecode = True    # (no byte code beside the tools)
import _cli as cli  # noqa: E402  (tests/tools/_cli.py: the shared command line)


def rows(path):
    return csv.DictReader(open(path, encoding='utf-8'))


def row(path, student):
    for r in rows(path):
        if r['student'] == student:
            print('|'.join((r['score'], r['max'], r['status'], r['failed_checks'])))


def scores(path):
    for r in sorted(rows(path), key=lambda r: r['student']):
        print('|'.join((r['student'], r['score'], r['status'], r['failed_checks'])))


class _Rows(HTMLParser):
    """Counts the <tr> tags of an HTML page."""
    n = 0

    def handle_starttag(self, tag, attrs):
        self.n += tag == 'tr'


def columns(d):
    by = {r['student']: r for r in rows(f'{d}/summary.csv')}
    assert by['alice-correct']['kunit-01'] == '100' and float(by['bob-partial']['kunit-01']) < 100, by
    assert by['bob-partial']['build-fast'] == 'PASS' and by['alice-correct']['lab_start'], by
    assert 'capped_by' in by['bob-partial'] and 'latency_ratio' in by['bob-partial'], by
    p = _Rows()
    p.feed(open(f'{d}/summary.html', encoding='utf-8').read())
    assert p.n == 1 + len(by), (p.n, len(by))


def has_student(path, student):
    d = json.load(open(path))
    assert any(r['student'] == student for r in d)


def main(argv):
    return cli.dispatch('summary.py', __doc__, {
        'row': (row, ['csv', 'student']), 'scores': (scores, ['csv']), 'columns': (columns, ['dir']),
        'has-student': (has_student, ['json', 'student'])}, argv)


if __name__ == '__main__':
    main(sys.argv[1:])
