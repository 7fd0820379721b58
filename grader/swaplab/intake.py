"""Intake: the bounds on a submission before and while git reads it on
the host (grade.resolve), ahead of hygiene and the source policy.

- the patch file is at most PATCH_MAX bytes, checked before anything
  reads it (the lab patches are under 100 KiB);
- no binary patch: a "GIT binary patch" hunk is deflated data that git
  inflates in memory, on the host (a 224-byte delta becomes 1 GiB), and a
  "Binary files ... differ" hunk makes a file any blob the work
  repository holds, a reference solution's included; both are refused
  on the patch text, before git applies it;
- after git applied the patch (or hashed the --tree), every changed file
  is at most FILE_MAX bytes (the lab files are under 200 KiB) and text: a
  file git sees as binary (a NUL byte) shows as "Binary files differ" in
  the diff the source policy reads, which would then read nothing of it;
- every git run on the submission's input runs under scripts/hostlimit
  (address space, file size, CPU time), so what these checks miss is
  still bounded.

Each function returns the problems found, as sentences naming the rule
(empty: none); grade.resolve rejects the submission with them.
"""
from __future__ import annotations

import os
import re
import subprocess
from typing import List, Optional

from .checks import ROOT

PATCH_MAX = int(os.environ.get('SWAPLAB_PATCH_MAX') or 1 << 20)
FILE_MAX = int(os.environ.get('SWAPLAB_FILE_MAX') or 2 << 20)
HOSTLIMIT = os.path.join(ROOT, 'scripts', 'hostlimit')

_BINARY = re.compile(rb'^(GIT binary patch|(Binary files|Files) .* differ)$')


def size(n: int) -> str:
    """A byte count as people read it: 1 MiB, 1.5 MiB, 300 KiB, 12 bytes."""
    for unit, sh in (('GiB', 30), ('MiB', 20), ('KiB', 10)):
        if n >= 1 << sh:
            v = n / (1 << sh)
            return f'{v:.1f} {unit}'.replace('.0 ', ' ')
    return f'{n} bytes'


def limited(cmd: List[str]) -> List[str]:
    """CMD under the intake limits (scripts/hostlimit)."""
    return [HOSTLIMIT, *cmd]


def describe() -> str:
    p = subprocess.run([HOSTLIMIT, '--describe'], capture_output=True, text=True)
    return p.stdout.strip() or 'scripts/hostlimit'


def limit_note(rc: int, err: str) -> str:
    """Why a limited git run failed, when it was a limit: '' otherwise."""
    if rc in (-24, 128 + 24) or rc in (-25, 128 + 25) or 'out of memory' in err.lower() or \
            'cannot allocate memory' in err.lower() or 'file too large' in err.lower():
        return f' (it ran past the intake limits: {describe()})'
    return ''


def patch_text(path: str) -> List[str]:
    """The patch file's own problems: too large, or binary."""
    n = os.stat(path).st_size
    if n > PATCH_MAX:
        return [f'size cap: the patch is {size(n)}, over the {size(PATCH_MAX)} cap on a patch file '
                f'(the lab patches are under 100 KiB)']
    with open(path, 'rb') as f:
        data = f.read(PATCH_MAX + 1)
    if len(data) > PATCH_MAX:       # it grew since
        return [f'size cap: the patch is over the {size(PATCH_MAX)} cap on a patch file']
    for i, line in enumerate(data.split(b'\n'), 1):
        if _BINARY.match(line.rstrip(b'\r\t ')):
            shown = line.rstrip(b'\r\t ').decode('utf-8', 'replace')[:100]
            return [f"binary patch refused: line {i} is '{shown}' (binary hunks are inflated or taken "
                    f'from the repository by git on the host; the lab files are text)']
    return []


def _git(repo: str, env: dict, *args: str, input: Optional[bytes] = None) -> subprocess.CompletedProcess:
    return subprocess.run(limited(['git', '-C', repo, *args]), capture_output=True, env=env, input=input)


def applied(repo: str, env: dict, start: str) -> List[str]:
    """The problems of the files git applied on the private index of ENV,
    against START: a file over FILE_MAX, a file git sees as binary."""
    p = _git(repo, env, 'diff', '--cached', '--no-renames', '--raw', '-z', '--no-abbrev', start)
    if p.returncode != 0:
        return ['the changed files could not be listed' + limit_note(p.returncode, p.stderr.decode('utf-8', 'replace'))]
    w = p.stdout.split(b'\0')
    news = []      # (blob, path) of each file the change leaves
    for i in range(0, len(w) - 1, 2):
        meta = w[i].decode('ascii', 'replace').lstrip(':').split()
        if len(meta) >= 5 and meta[1] in ('100644', '100755') and set(meta[3]) != {'0'}:
            news.append((meta[3], w[i + 1].decode('utf-8', 'replace')))
    if not news:
        return []
    # the sizes first, from the objects' headers: the diff below reads the contents
    p = _git(repo, env, 'cat-file', '--batch-check=%(objectsize)',
             input=''.join(f'{b}\n' for b, _ in news).encode())
    sizes = p.stdout.decode('ascii', 'replace').split()
    if p.returncode != 0 or len(sizes) != len(news):
        return ['the changed files could not be measured' + limit_note(p.returncode, p.stderr.decode('utf-8', 'replace'))]
    big = [f'size cap: {path} is {size(int(s))} after the change, over the {size(FILE_MAX)} cap on a '
           f'changed file (the lab files are under 200 KiB)'
           for (_, path), s in zip(news, sizes) if s.isdigit() and int(s) > FILE_MAX]
    if big:
        return big
    p = _git(repo, env, 'diff', '--cached', '--no-renames', '--numstat', '-z', start)
    if p.returncode != 0:
        return ['the changed files could not be compared' + limit_note(p.returncode, p.stderr.decode('utf-8', 'replace'))]
    out = []
    for e in p.stdout.split(b'\0'):
        if e.startswith(b'-\t-\t'):
            path = e[4:].decode('utf-8', 'replace')
            out.append(f'binary file refused: {path} is binary after the change (git finds a NUL byte '
                       'in it, and its diff would hide every line from the source policy; the lab '
                       'files are text)')
    return out
