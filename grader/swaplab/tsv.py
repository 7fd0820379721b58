"""The one reader of the kit's tab-separated tables: grader/checks.tsv,
limits.tsv, scoring.tsv, plausible.tsv, recorded.tsv, labs/numbers.tsv,
labs/time.tsv.  A table is read whole or not at all: a line it cannot
read is a TableError naming FILE:LINE, never a row skipped in silence
(a check, a limit or a reference figure that quietly goes missing would
grade students by a table nobody wrote).

A bottom-layer module: it imports no other module of swaplab.
"""
from __future__ import annotations

from typing import Iterator, List, Optional, Tuple


class TableError(Exception):
    """A table of the kit is malformed; the message starts FILE:LINE."""


def where(path: str, n: int) -> str:
    """'PATH:LINE', as every TableError starts."""
    return f'{path}:{n}'


def _want(lo: int, hi: Optional[int]) -> str:
    if hi == lo:
        return f'{lo}'
    if hi is None:
        return f'at least {lo}'
    return f'{lo} to {hi}'


def rows(path: str, ncols_min: int = 1, ncols_max: Optional[int] = None,
         names: str = '') -> Iterator[Tuple[int, List[str]]]:
    """(line number, fields) of each row of the table PATH, in order:
    blank lines and lines starting with '#' are skipped, the line's
    newline dropped, the rest split on tabs.  A row with fewer than
    NCOLS_MIN or more than NCOLS_MAX fields (None: no most) is a
    TableError 'PATH:LINE: want N tab-separated fields (NAMES), got M'.
    A missing file is the OSError of open(); what a row's fields mean
    is the caller's to check (and to raise a TableError on, with
    where(path, n))."""
    with open(path, encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if not line.strip() or line.startswith('#'):
                continue
            w = line.split('\t')
            if len(w) < ncols_min or (ncols_max is not None and len(w) > ncols_max):
                raise TableError(f'{where(path, n)}: want {_want(ncols_min, ncols_max)} tab-separated fields'
                                 f'{f" ({names})" if names else ""}, got {len(w)}')
            yield n, w
