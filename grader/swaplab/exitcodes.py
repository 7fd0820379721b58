"""vm/run's exit codes by name, read from vm/exit-codes: the one list, which
vm/run, the expect scripts (vm/expect/lib.exp) and the shell callers
(scripts/lib.sh: exit_codes) read too.

  RUN_PASS          the test ran, reported DONE 0 and a PASS, no FAIL
  RUN_TEST_FAILED   the test reported a failure, or no result
  RUN_KERNEL_ERROR  a kernel error report on the console
  RUN_TIMEOUT       the guest did not come up, or ran past a time limit
  RUN_SETUP_FAILED  bad arguments, or QEMU could not start
  RUN_QEMU_CRASHED  between run-test.exp and vm/run only

The file is read once, at import; a malformed or repeated line, or a name
this module wants and the file lacks, raises ExitCodesError then, so a
broken list stops the grader at its start, not midway through a grade.
"""
from __future__ import annotations

import os
import re
from typing import Dict

from .labs import ROOT

EXIT_CODES_FILE = os.path.join(ROOT, 'vm', 'exit-codes')
_LINE = re.compile(r'(RUN_[A-Z0-9_]+)\s+(0|[1-9][0-9]{0,2})')


class ExitCodesError(ValueError):
    """vm/exit-codes is malformed, or lacks a code."""


def load(path: str = EXIT_CODES_FILE) -> Dict[str, int]:
    """{NAME: NUMBER} of an exit-codes file: "NAME NUMBER" a line, NAME
    RUN_ and capitals, NUMBER 0..255, each name once; text after # and
    blank lines are skipped."""
    codes: Dict[str, int] = {}
    with open(path, encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            text = line.split('#', 1)[0].strip()
            if not text:
                continue
            m = _LINE.fullmatch(text)
            if not m or int(m.group(2)) > 255 or m.group(1) in codes:
                raise ExitCodesError(f'{path}:{n}: want "RUN_NAME NUMBER  # meaning" (0..255, each name once), '
                                     f'got {line.rstrip(chr(10))!r}')
            codes[m.group(1)] = int(m.group(2))
    return codes


CODES = load()


def _code(name: str) -> int:
    if name not in CODES:
        raise ExitCodesError(f'{EXIT_CODES_FILE}: no {name}')
    return CODES[name]


RUN_PASS = _code('RUN_PASS')
RUN_TEST_FAILED = _code('RUN_TEST_FAILED')
RUN_KERNEL_ERROR = _code('RUN_KERNEL_ERROR')
RUN_TIMEOUT = _code('RUN_TIMEOUT')
RUN_SETUP_FAILED = _code('RUN_SETUP_FAILED')
RUN_QEMU_CRASHED = _code('RUN_QEMU_CRASHED')
