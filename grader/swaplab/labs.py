"""The lab table, and the files each lab may change.

The labs are the folders labs/NN-*/ of the kit, 01 .. NN (a student
edition holds fewer: its labs/ is cut at its last lab).  Stage NN is lab
NN's solution, stage 00 the baseline below lab 01, and lab NN starts from
stage NN-1.  This module is that table for the Python side, as
scripts/lib.sh's lab_numbers, lab_check, stage_check and prev_lab are
for bash: the same numbers, the same messages ("LAB must be 01..06, got
'09'"; tests/unit/test_labs.py compares the two).  Nothing else writes a
range of labs or works out the lab before another.

It also holds the one parser of grader/allowlist (LABS, a tab, a path:
LABS is NN, NN-MM or all), which bash reads through the command line:

  python3 -m swaplab.labs allowlist [LAB]   the files lab LAB (or any
                                            lab) may change, one a line
  python3 -m swaplab.labs numbers           the labs, one a line
  python3 -m swaplab.labs check|stage|previous NN
                                            NN if a lab (a stage), or
                                            the lab before it; else the
                                            message, exit 2

A bottom-layer module: it imports no other module of swaplab (the kit's
root, ROOT, is defined here; checks and the rest take it from here).
"""
from __future__ import annotations

import glob
import os
import re
import sys
from typing import List, Optional

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ALLOWLIST = os.path.join(ROOT, 'grader', 'allowlist')
_TWO_DIGITS = re.compile(r'[0-9][0-9]')


class NotALab(ValueError):
    """A lab or stage number that is not one of the table; the message
    names the range ("LAB must be 01..06, got '09'")."""


def numbers(root: str = ROOT) -> List[str]:
    """The labs of the kit at ROOT, two digits each, in order: its
    labs/NN-*/ folders."""
    return sorted({os.path.basename(d)[:2] for d in glob.glob(os.path.join(root, 'labs', '[0-9][0-9]-*'))
                   if os.path.isdir(d)})


def _span(nums: List[str]) -> str:
    if not nums:
        return 'a lab of labs/NN-*/ (this kit has none)'
    return nums[0] if len(nums) == 1 else f'{nums[0]}..{nums[-1]}'


def span(root: str = ROOT) -> str:
    """The labs as a message names them: '01..06' ('01' for one lab)."""
    return _span(numbers(root))


def stage_span(root: str = ROOT) -> str:
    """The stages as a message names them: '00..06'."""
    return _span(['00'] + numbers(root))


def last(root: str = ROOT) -> str:
    """The last lab, whose stage is the whole series."""
    nums = numbers(root)
    if not nums:
        raise NotALab(f'no lab in {os.path.join(root, "labs")} (labs/NN-*/)')
    return nums[-1]


def is_lab(n: Optional[str], root: str = ROOT) -> bool:
    return isinstance(n, str) and bool(_TWO_DIGITS.fullmatch(n)) and n in numbers(root)


def is_stage(n: Optional[str], root: str = ROOT) -> bool:
    """Stage 00 (the baseline) or the stage of a lab."""
    return n == '00' or is_lab(n, root)


def _got(n: Optional[str]) -> str:
    return f"got '{n or 'nothing'}'"


def check(lab: Optional[str], name: str = 'LAB', root: str = ROOT) -> str:
    """LAB when it is a lab, else NotALab 'NAME must be 01..06, got ...'."""
    if not is_lab(lab, root):
        raise NotALab(f'{name} must be {span(root)}, {_got(lab)}')
    return lab


def check_stage(n: Optional[str], name: str = 'STAGE', root: str = ROOT) -> str:
    """N when it is a stage, else NotALab 'NAME must be 00..06, got ...'."""
    if not is_stage(n, root):
        raise NotALab(f'{name} must be {stage_span(root)}, {_got(n)}')
    return n


def previous(lab: Optional[str], name: str = 'LAB', root: str = ROOT) -> str:
    """The lab before lab LAB, NN-1 as two digits: the stage lab LAB
    starts from ('00' for lab 01)."""
    return f'{int(check(lab, name, root), 10) - 1:02d}'


def allowlist(lab: Optional[str] = None, path: str = ALLOWLIST) -> List[str]:
    """The files lab LAB's submissions may change (any lab's when None),
    in the order grader/allowlist first names them, each once."""
    out: List[str] = []
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.split('#')[0].strip()
            if not line:
                continue
            labs, _, p = line.partition('\t')
            p = p.strip()
            if lab is None or _in(lab, labs.strip()):
                if p not in out:
                    out.append(p)
    return out


def _in(lab: str, labs: str) -> bool:
    if labs == 'all':
        return True
    if '-' in labs:
        a, b = labs.split('-', 1)
        return int(a, 10) <= int(lab, 10) <= int(b, 10)
    return int(labs, 10) == int(lab, 10)


USAGE = 'usage: python3 -m swaplab.labs allowlist [LAB] | numbers | check NN | stage NN | previous NN'


def main(argv: List[str]) -> int:
    cmd, args = (argv[0], argv[1:]) if argv else ('', [])
    try:
        if cmd == 'allowlist' and len(args) <= 1:
            lab = args[0] if args and args[0] != '' else None
            if lab is not None and not lab.isdigit():
                print(f"allowlist: LAB must be a number, got '{lab}'", file=sys.stderr)
                return 2
            out = allowlist(lab)
        elif cmd == 'numbers' and not args:
            out = numbers()
        elif cmd in ('check', 'stage', 'previous') and len(args) == 1:
            out = [{'check': check, 'stage': check_stage, 'previous': previous}[cmd](args[0])]
        else:
            print(USAGE, file=sys.stderr)
            return 2
    except NotALab as e:
        print(f'error: {e}', file=sys.stderr)
        return 2
    except OSError as e:
        print(f'error: {e}', file=sys.stderr)
        return 1
    for x in out:
        print(x)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
