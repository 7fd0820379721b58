#!/usr/bin/env python3
"""gradescope.py: read the results.json that run_autograder writes for
Gradescope (its "tests" rows: name, status, score, output "VERDICT: ..."),
for tests/autograder.  tests/autograder-check checks the format itself.

  gradescope.py decided FILE       how many rows are decided: their output
                                   starts with PASS, FAIL, ERROR, TIMEOUT or
                                   SKIP, but not "SKIP: not reached"
                                   (run_autograder's placeholder has none);
                                   -1 when FILE cannot be read as JSON
  gradescope.py build-failed FILE  exit 0 when the build-fast row failed
                                   with a compiler error in its output
                                   ("FAIL: ... error ..."), else 1
  gradescope.py kill-rows KILLED PASSED
                                   exit 0 when KILLED (a grade killed
                                   midway) has rows both finished and "SKIP:
                                   not reached", each finished row has the
                                   verdict PASSED (the full grade) gave it,
                                   and each unreached row failed with score
                                   0; else 1

A row without the fields read ends in Python's traceback (exit 1).
Standard library only.
"""
import json
import sys

sys.dont_write_bytecode = True    # (no byte code beside the tools)
import _cli as cli  # noqa: E402  (tests/tools/_cli.py: the shared command line)

VERDICTS = ('PASS', 'FAIL', 'ERROR', 'TIMEOUT', 'SKIP')
NOT_REACHED = 'SKIP: not reached'


def decided(path):
    try:
        d = json.load(open(path))
    except Exception:
        print(-1)
        return
    print(sum(t.get('output', '').split(':')[0] in VERDICTS
              and not t['output'].startswith(NOT_REACHED) for t in d.get('tests', [])))


def build_failed(path):
    t = {x['name']: x for x in json.load(open(path))['tests']}
    b = t['build-fast']
    return b['status'] == 'failed' and b['output'].startswith('FAIL:') and 'error' in b['output']


def kill_rows(killed, passed):
    k, p = (json.load(open(f))['tests'] for f in (killed, passed))
    pv = {t['name']: t['output'].split(':')[0] for t in p}
    done = [t for t in k if not t['output'].startswith(NOT_REACHED)]
    rest = [t for t in k if t['output'].startswith(NOT_REACHED)]
    return bool(done and rest and all(t['output'].startswith(pv[t['name']] + ':') for t in done)
                and all(t['status'] == 'failed' and t['score'] == 0 for t in rest))


def main(argv):
    return cli.dispatch('gradescope.py', __doc__, {
        'decided': (decided, ['file']),
        'build-failed': (lambda f: sys.exit(not build_failed(f)), ['file']),
        'kill-rows': (lambda k, p: sys.exit(not kill_rows(k, p)), ['killed', 'passed'])}, argv)


if __name__ == '__main__':
    main(sys.argv[1:])
