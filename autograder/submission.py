#!/usr/bin/env python3
"""autograder/submission.py --lab NN --dir DIR --out PATCH [--notes FILE]

Turns what a student handed in (a Gradescope upload, the submission/ folder
of a GitHub Classroom repository) into one patch against lab NN's start
(tag lab-NN-start of the work repository), for grader/grade --patch.

A submission is either
  - one patch file (*.patch, *.diff; `make handin` writes one).  Several:
    the one whose name starts with labNN, else it is refused as ambiguous;
  - or the student's changed files, each put on the lab file it names: by
    its path (mm/swapfile.c), also at the end of a longer one
    (linux/mm/swapfile.c), or by a file name only one of the lab's files
    has (swapfile.c; swap.h needs its folder: mm/swap.h or
    include/linux/swap.h).
Files that are no file of lab NN (grader/allowlist) are named and left
out; grader/grade then applies its own hygiene and source policy to the
patch as to any other.  Standard library only.

Exit status: 0 the patch is written (NOTES, if asked for, holds one line
per remark for the student); 2 nothing to grade (the reason is the last
line of NOTES and of stderr); 3 a problem of the autograder itself.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from typing import Dict, List, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
KIT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(KIT, 'grader'))
from swaplab import labs  # noqa: E402
from swaplab.envdefaults import defaults  # noqa: E402

MAX_FILE = 4 << 20          # bytes; the largest lab file is ~110 KB
PATCH_SUFFIXES = ('.patch', '.diff')
SKIP_DIRS = {'.git', '.github', '__MACOSX'}


class Unusable(Exception):
    """Nothing gradable in the submission: the reason, for the student."""


def linux_repo() -> str:
    return os.environ.get('LINUX_REPO') or defaults()['LINUX_REPO']


def git(repo: str, *args: str, env: dict = None, input: bytes = None) -> bytes:
    p = subprocess.run(['git', '-C', repo, *args], capture_output=True, env=env, input=input)
    if p.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {p.stderr.decode('utf-8', 'replace').strip()}")
    return p.stdout


def walk(top: str) -> Tuple[List[str], List[str]]:
    """(regular files, other entries) under TOP, as paths relative to it."""
    files, odd = [], []
    for d, dirs, names in os.walk(top):
        dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS and not os.path.islink(os.path.join(d, x)))
        for n in sorted(names):
            p = os.path.join(d, n)
            rel = os.path.relpath(p, top)
            if os.path.islink(p) or not os.path.isfile(p):
                odd.append(rel)
            elif not n.startswith('.'):
                files.append(rel)
    return files, odd


def pick_patch(lab: str, patches: List[str]) -> str:
    if len(patches) == 1:
        return patches[0]
    mine = [p for p in patches if os.path.basename(p).lower().startswith(f'lab{lab}')]
    if len(mine) == 1:
        return mine[0]
    names = ', '.join((mine or patches)[:5])
    raise Unusable(f'several patch files ({names}); hand in one (make handin LAB={lab} writes it)')


def place(lab: str, files: List[str]) -> Tuple[Dict[str, str], List[str]]:
    """{lab file: submitted file}, and the remarks (files left out)."""
    allowed = labs.allowlist(lab)
    others = [p for p in labs.allowlist() if p not in allowed]
    by_name: Dict[str, List[str]] = {}
    for p in allowed:
        by_name.setdefault(os.path.basename(p), []).append(p)
    out: Dict[str, str] = {}
    notes, ignored = [], []
    for rel in files:
        r = rel.replace(os.sep, '/')
        hit = [p for p in allowed if r == p or r.endswith('/' + p)]
        if not hit and '/' not in r:
            hit = by_name.get(r, [])
            if len(hit) > 1:
                raise Unusable(f"{r}: lab {lab} has {len(hit)} files of that name ({', '.join(hit)}); "
                               'put it in its folder, e.g. ' + hit[0])
        if not hit:
            if any(r == p or r.endswith('/' + p) or r == os.path.basename(p) for p in others):
                notes.append(f'{r}: not a file lab {lab} changes; left out')
            else:
                ignored.append(r)
            continue
        p = hit[0]
        if p in out:
            raise Unusable(f'{out[p]} and {r} both stand for {p}; hand in one')
        out[p] = rel
    if ignored:
        more = f' and {len(ignored) - 8} more' if len(ignored) > 8 else ''
        notes.append(f"left out, not files of lab {lab}: {', '.join(ignored[:8])}{more}")
    return out, notes


def files_patch(lab: str, top: str, placed: Dict[str, str], out: str) -> List[str]:
    """Write the patch of the placed files against lab-NN-start; the lab
    files that did not change are named in the returned remarks."""
    repo = linux_repo()
    start = f'lab-{lab}-start'
    notes = []
    with tempfile.TemporaryDirectory(prefix='swaplab-sub.') as td:
        env = dict(os.environ, GIT_INDEX_FILE=os.path.join(td, 'index'))
        git(repo, 'read-tree', start, env=env)
        changed = []
        for p, rel in sorted(placed.items()):
            src = os.path.join(top, rel)
            if os.path.getsize(src) > MAX_FILE:
                raise Unusable(f'{rel}: larger than {MAX_FILE >> 20} MiB')
            blob = git(repo, 'hash-object', '-w', '--no-filters', src).decode().strip()
            old = git(repo, 'rev-parse', f'{start}:{p}').decode().strip()
            if blob == old:
                notes.append(f'{rel}: the same as in lab {lab} start (no change)')
                continue
            git(repo, 'update-index', '--cacheinfo', f'100644,{blob},{p}', env=env)
            changed.append(p)
        if not changed:
            raise Unusable(f'none of the files handed in differs from lab {lab} start '
                           f"({', '.join(sorted(placed.values()))})")
        diff = git(repo, 'diff', '--cached', '--full-index', '--no-renames', '--no-color', start, env=env)
    with open(out, 'wb') as f:
        f.write(f'swaplab lab {lab}: submitted files {", ".join(changed)} against {start}\n\n'.encode())
        f.write(diff)
    return notes


def make_patch(lab: str, top: str, out: str) -> List[str]:
    """Write OUT from the submission folder TOP; returns the remarks."""
    top = os.path.abspath(top)
    if not os.path.isdir(top):
        raise Unusable(f'no submission folder {top}')
    files, odd = walk(top)
    notes = [f'{r}: not a regular file; left out' for r in odd]
    patches = [f for f in files if f.lower().endswith(PATCH_SUFFIXES)]
    if patches:
        p = pick_patch(lab, patches)
        src = os.path.join(top, p)
        if os.path.getsize(src) > MAX_FILE:
            raise Unusable(f'{p}: larger than {MAX_FILE >> 20} MiB')
        with open(src, 'rb') as f, open(out, 'wb') as o:
            o.write(f.read())
        rest = [f for f in files if f != p]
        if rest:
            notes.append(f"graded the patch {p}; the other files are not used ({', '.join(rest[:5])}"
                         f"{' ...' if len(rest) > 5 else ''})")
        else:
            notes.append(f'graded the patch {p}')
        return notes
    if not files:
        raise Unusable('the submission is empty: hand in your lab patch (make handin) '
                       'or the files you changed (e.g. mm/swapfile.c)')
    placed, more = place(lab, files)
    notes += more
    if not placed:
        raise Unusable(f"no file of lab {lab} in the submission; lab {lab} changes "
                       f"{', '.join(labs.allowlist(lab))}")
    notes += files_patch(lab, top, placed, out)
    notes.insert(0, 'graded your files: ' + ', '.join(f'{r} as {p}' if r != p else p
                                                      for p, r in sorted(placed.items())))
    return notes


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(prog='submission.py', description=__doc__.split('\n\n')[0])
    ap.add_argument('--lab', required=True)
    ap.add_argument('--dir', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--notes')
    a = ap.parse_args(argv)
    try:
        labs.check(a.lab, 'submission.py: --lab')
    except labs.NotALab as e:
        print(e, file=sys.stderr)
        return 3
    rc = 0
    try:
        notes = make_patch(a.lab, a.dir, a.out)
    except Unusable as e:
        notes, rc = [f'nothing to grade: {e}'], 2
    except (OSError, RuntimeError) as e:
        notes, rc = [f'autograder problem: {e}'], 3
    for n in notes:
        print(n, file=sys.stderr)
    if a.notes:
        with open(a.notes, 'w', encoding='utf-8') as f:
            f.write(''.join(n + '\n' for n in notes))
    return rc


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
