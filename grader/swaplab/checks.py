"""The check table: grader/checks.tsv, and the checks one grade runs.

  python3 -m swaplab.checks own LAB      the ids of lab LAB's own checks
  python3 -m swaplab.checks others LAB   the ids of every other check
  python3 -m swaplab.checks kind KIND    the ids of the checks of KIND
(one a line, in table order: what the kit's bash tests read of the
table, so that it has one reader)."""
from __future__ import annotations

import dataclasses
import os
import sys
from typing import List, Optional

from . import labs as labs_mod
from .labs import ROOT
from .tsv import TableError, rows

CHECKS_TSV = os.path.join(ROOT, 'grader', 'checks.tsv')
KINDS = ('build', 'guest', 'lockfp', 'latency')


@dataclasses.dataclass
class Check:
    labs: str          # "all", "NN" or "fromNN"
    id: str
    kind: str          # build | guest | lockfp | latency
    args: List[str]

    # guest checks: CONFIG MODE[:PMEM] SCRIPT [ARGS...]
    @property
    def config(self) -> str:
        if self.kind in ('build', 'guest'):
            return self.args[0]
        if self.kind == 'lockfp':
            return 'debug'
        return 'fast'

    @property
    def mode(self) -> str:
        return self.args[1].split(':')[0]

    @property
    def pmem(self) -> str:
        a = self.args[1]
        return a.split(':', 1)[1] if ':' in a else '512M'

    @property
    def script(self) -> str:
        return self.args[2]

    @property
    def script_args(self) -> List[str]:
        return self.args[3:]

    @property
    def boot_mode(self) -> str:
        """The swap mode of the boot the check rides in: rot is pmem marked
        rotational, set up inside a pmem boot."""
        return 'pmem' if self.mode == 'rot' else self.mode

    @property
    def kunit_lab(self) -> Optional[str]:
        if self.kind == 'guest' and self.script == 'kunit.sh' and self.script_args:
            return self.script_args[0]
        return None


def load(path: str = CHECKS_TSV) -> List[Check]:
    out = []
    for n, cols in rows(path, 4, 4, 'LABS ID KIND ARGS'):
        labs, cid, kind, args = cols
        if kind not in KINDS:
            raise TableError(f'{path}:{n}: unknown kind {kind!r}')
        c = Check(labs, cid, kind, args.split())
        if kind == 'guest' and len(c.args) < 3:
            raise TableError(f'{path}:{n}: guest checks take CONFIG MODE SCRIPT')
        out.append(c)
    return out


def applies(c: Check, lab: str, latency: bool) -> bool:
    n = int(lab, 10)
    if c.kind == 'latency' and not latency:
        return False
    if c.labs == 'all':
        return True
    if c.labs.startswith('from'):
        return int(c.labs[4:], 10) <= n
    return int(c.labs.split(',')[0], 10) <= n


def select(checks: List[Check], lab: str, latency: bool = False, own: bool = False,
           only: Optional[List[str]] = None) -> List[Check]:
    """The checks a grade of LAB runs, in table order."""
    out = []
    for c in checks:
        if not applies(c, lab, latency):
            continue
        if own and c.labs != lab:
            continue
        if only is not None and c.id not in only:
            continue
        out.append(c)
    return out


USAGE = 'usage: python3 -m swaplab.checks own LAB | others LAB | kind KIND'


def main(argv: List[str]) -> int:
    if len(argv) != 2 or argv[0] not in ('own', 'others', 'kind'):
        print(USAGE, file=sys.stderr)
        return 2
    what, arg = argv
    if what == 'kind' and arg not in KINDS:
        print(f"error: KIND must be one of {', '.join(KINDS)}, got '{arg}'", file=sys.stderr)
        return 2
    try:
        if what != 'kind':
            labs_mod.check(arg)
        table = load()
    except (labs_mod.NotALab, TableError, OSError) as e:
        print(f'error: {e}', file=sys.stderr)
        return 2
    for c in table:
        if (c.labs == arg if what == 'own' else c.labs != arg if what == 'others' else c.kind == arg):
            print(c.id)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
