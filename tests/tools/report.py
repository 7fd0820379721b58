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
import json
import sys

sys.dont_write_bytecode = True    # (no byte code beside the tools)
import _cli as cli  # noqa: E402  (tests/tools/_cli.py: the shared command line)


def load(path):
    """The report at PATH, or on stdin for "-"."""
    if path == '-':
        return json.load(sys.stdin)
    return json.load(open(path))


def _on(show):
    """A subcommand that loads the report once and shows it with SHOW."""
    return lambda path: show(load(path))


def main(argv):
    return cli.dispatch('report.py', __doc__, {
        'score': (_on(lambda d: print('%g' % d['score'])), ['file']),
        'score-max': (_on(lambda d: print('%g %g' % (d['score'], d['max_score']))), ['file']),
        'status': (_on(lambda d: print(d['status'])), ['file']),
        'status-message': (_on(lambda d: print(d['status'], d['message'])), ['file'])}, argv)


if __name__ == '__main__':
    main(sys.argv[1:])
