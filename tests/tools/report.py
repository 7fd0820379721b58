#!/usr/bin/env python3
"""report.py: read one field of a grade's JSON report (grader/grade --json).

  report.py score FILE           the score, as "%g" ("76.7", "100");
                                 FILE "-" reads the report from stdin
  report.py score-max FILE       the score and the maximum: "100 100"
  report.py status FILE          the report's status line: "graded",
                                 "interrupted", "rejected", ...
  report.py status-message FILE  the status and the message, one space apart

A missing file, a file that is not JSON or a report without the field
ends in Python's traceback (exit 1) and prints nothing on stdout; the
callers (tests/labs, tests/smoke, tests/stages, tests/hostile/*) send
stderr to /dev/null and read the empty output as "no report".
Standard library only.
"""
import argparse
import json
import sys


def load(path):
    """The report at PATH, or on stdin for "-"."""
    if path == '-':
        return json.load(sys.stdin)
    return json.load(open(path))


def main(argv):
    p = argparse.ArgumentParser(prog='report.py', description=__doc__.split('\n\n')[0])
    sub = p.add_subparsers(dest='cmd', required=True)
    for name in ('score', 'score-max', 'status', 'status-message'):
        sub.add_parser(name).add_argument('file')
    a = p.parse_args(argv)
    d = load(a.file)
    if a.cmd == 'score':
        print('%g' % d['score'])
    elif a.cmd == 'score-max':
        print('%g %g' % (d['score'], d['max_score']))
    elif a.cmd == 'status':
        print(d['status'])
    else:
        print(d['status'], d['message'])


if __name__ == '__main__':
    main(sys.argv[1:])
