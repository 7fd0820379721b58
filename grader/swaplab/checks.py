"""The check table: grader/checks.tsv, and the checks one grade runs."""
from __future__ import annotations

import dataclasses
import os
from typing import List, Optional

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHECKS_TSV = os.path.join(ROOT, 'grader', 'checks.tsv')


class TableError(Exception):
    """checks.tsv is malformed."""


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


def tsv_rows(path: str):
    """(columns, 'PATH:LINE') of each row of a kit table: blank lines and
    lines starting with '#' skipped, tab-separated.  The one reader of the
    grader's tables (checks, scoring, plausible figures)."""
    with open(path, encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if not line.strip() or line.startswith('#'):
                continue
            yield line.split('\t'), f'{path}:{n}'


def load(path: str = CHECKS_TSV) -> List[Check]:
    out = []
    for cols, where in tsv_rows(path):
        if len(cols) != 4:
            raise TableError(f'{where}: expected LABS ID KIND ARGS')
        labs, cid, kind, args = cols
        if kind not in ('build', 'guest', 'lockfp', 'latency'):
            raise TableError(f'{where}: unknown kind {kind!r}')
        c = Check(labs, cid, kind, args.split())
        if kind == 'guest' and len(c.args) < 3:
            raise TableError(f'{where}: guest checks take CONFIG MODE SCRIPT')
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
