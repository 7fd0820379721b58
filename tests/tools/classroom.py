#!/usr/bin/env python3
"""classroom.py: read the job summary that the GitHub Classroom workflow
(classroom/.github/workflows/swaplab.yml) writes to GITHUB_STEP_SUMMARY,
for tests/autograder.

  classroom.py job-summary FILE
      exit 0 when FILE is lab 01's summary of a submission that does not
      build: it starts "## swaplab lab 01: 0/100", has the verdict table
      ("| check | points | verdict | time | reason |") with at least 12
      check rows, build-fast among them as FAIL, a <details> block and the
      word "error"; else 1.

Standard library only.
"""
import re
import sys

sys.dont_write_bytecode = True    # (no byte code beside the tools)
import _cli as cli  # noqa: E402  (tests/tools/_cli.py: the shared command line)

ROW = re.compile(r'^\| ([a-z0-9-]+) \| [^|]+ \| (PASS|FAIL|ERROR|TIMEOUT|SKIP) \|', re.M)


def job_summary(path):
    s = open(path).read()
    rows = ROW.findall(s)
    return (s.startswith('## swaplab lab 01: 0/100') and '| check | points | verdict | time | reason |' in s
            and ('build-fast', 'FAIL') in rows and len(rows) >= 12 and '<details>' in s and 'error' in s)


def main(argv):
    return cli.dispatch('classroom.py', __doc__,
                        {'job-summary': (lambda f: sys.exit(not job_summary(f)), ['file'])}, argv)


if __name__ == '__main__':
    main(sys.argv[1:])
