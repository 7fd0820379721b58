"""Intake: the bounds on a submission before and while git reads it on
the host (resolve, below), ahead of hygiene and the source policy.

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

patch_text and applied return the problems found, as sentences naming
the rule (empty: none); resolve rejects the submission with them.

resolve turns what a grade was asked to grade (--stage, --commit, --self,
--tree, --patch) into one commit of the work repository: for a tree or a
patch, made on a private index after these bounds, hygiene and the
source policy.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from typing import List, Optional

from . import labs, policy, procs
from .labs import ROOT

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


# ---------------------------------------------------------------- what to grade
class GraderError(Exception):
    """A problem of the grader or its input, not of the graded kernel."""


class Rejected(Exception):
    """The submission fails hygiene: it is not built."""


def git(*args: str, env: Optional[dict] = None, cwd: Optional[str] = None, check: bool = True,
        input: Optional[bytes] = None) -> str:
    repo = os.environ['LINUX_REPO']
    p = subprocess.run(['git', '-C', cwd or repo, *args], capture_output=True, env=env, input=input)
    if check and p.returncode != 0:
        raise subprocess.CalledProcessError(p.returncode, ['git', *args], p.stdout, p.stderr)
    return p.stdout.decode('utf-8', errors='replace').strip()


def allowlist() -> List[str]:
    """Every file any lab may change: the reference stages compile them
    without a warning, so a warning there is new."""
    return labs.allowlist()


def resolve(a: argparse.Namespace, lab: str, review: Optional[List[str]] = None,
            lenient: bool = False) -> tuple:
    """(commit, what): the commit of the work repository to grade, made on
    a private index for trees and patches after the hygiene checks.  REVIEW
    receives the softer flags; LENIENT (make run/gdb on the student's own
    tree) warns about source policy violations instead of rejecting.  The
    student's own tree (--self, make grade) with no change yet is graded as
    the lab starts; an empty --patch or --tree is refused."""
    review = review if review is not None else []
    repo = os.environ['LINUX_REPO']
    if not os.path.isdir(os.path.join(repo, '.git')):
        raise GraderError(f"no kernel work repository at {repo}; run 'make setup' first")
    kind, val = a.src
    own = kind == 'self'
    if kind == 'self':
        p = subprocess.run([os.path.join(ROOT, 'scripts', 'student', 'start'), lab], stdout=sys.stderr)
        if p.returncode != 0:
            raise GraderError(f'scripts/student/start {lab} failed (exit {p.returncode})')
        kind, val = 'tree', repo
    if kind == 'stage':
        try:
            labs.check_stage(val, '--stage')
        except labs.NotALab as e:
            raise GraderError(str(e)) from None
        c = git('rev-parse', '-q', '--verify', f'stage-{val}^{{commit}}', check=False)
        if not c:
            raise GraderError(f'no reference stage {val} yet')
        return c, f'reference stage-{val}'
    if kind == 'commit':
        c = git('rev-parse', '-q', '--verify', f'{val}^{{commit}}', check=False)
        if not c:
            raise GraderError(f'no such commit: {val}')
        return c, f'commit {val}'
    # tree or patch: the lab's starting tree
    start = start_ref = ''
    # (grade --lab 00 grades no lab: it has no start)
    refs = [f'lab-{lab}-start'] + ([f'stage-{labs.previous(lab)}'] if labs.is_lab(lab) else [])
    if kind == 'tree' and os.path.realpath(val) == os.path.realpath(repo):
        refs.insert(0, f'refs/swaplab/start/lab-{lab}')
    for r in refs:
        start = git('rev-parse', '-q', '--verify', f'{r}^{{commit}}', check=False)
        if start:
            start_ref = r
            break
    if not start:
        raise GraderError(f'lab {lab} has no starting tree yet')
    hyg = tempfile.mkdtemp(prefix='swaplab-hyg.')
    try:
        env = dict(os.environ, GIT_INDEX_FILE=os.path.join(hyg, 'index'))
        git('read-tree', start, env=env)
        if kind == 'patch':
            pf = os.path.realpath(val)
            if not os.path.isfile(pf):
                raise GraderError(f'no such patch file: {val}')
            what = f'patch {os.path.basename(pf)} on {start_ref}'
            # the patch text's bounds first: nothing has read it yet
            bad = patch_text(pf)
            if bad:
                raise Rejected(bad[0])
            p = subprocess.run(limited(['git', '-C', repo, 'apply', '--cached', pf]), capture_output=True,
                               env=env, cwd=repo)
            if p.returncode != 0:
                err = ' '.join(p.stderr.decode('utf-8', 'replace').split('\n')[:2])
                raise Rejected(f'the patch does not apply to {start_ref}: {err}' + limit_note(p.returncode, err))
        else:
            td = os.path.realpath(val)
            if not os.path.isdir(td):
                raise GraderError(f'no such tree: {val}')
            if not os.path.isfile(os.path.join(td, 'mm', 'swapfile.c')):
                raise GraderError(f'{td} does not look like a kernel source tree')
            what = f'tree {td}'
            if td == os.path.realpath(repo):
                what = f'your work tree (lab-{lab})'
                shutil.copy(os.path.join(repo, '.git', 'index'), env['GIT_INDEX_FILE'])
            procs.note(f'hashing {td} against {start_ref}')
            p = subprocess.run(limited(['git', '-C', repo, f'--work-tree={td}', 'add', '-A', '.']), env=env,
                               capture_output=True)
            if p.returncode != 0:
                err = ' '.join(p.stderr.decode('utf-8', 'replace').split('\n')[:2])
                why = limit_note(p.returncode, err)
                if not why:
                    raise GraderError(f'git cannot hash {td} (exit {p.returncode}): {err}')
                raise Rejected(f'the tree cannot be hashed{why}: {err}')
        # what git applied: no file over the size cap, none binary
        bad = applied(repo, env, start)
        if bad:
            raise Rejected(f'the {kind}: ' + '; '.join(bad[:4]))
        # hygiene on what git applied, not on the patch text: the lab's
        # files only, modified in place, regular files; then the source
        # policy on the lines added
        raw = subprocess.run(['git', '-C', repo, 'diff', '--cached', '--no-renames', '--raw', '-z', start],
                             capture_output=True, env=env, check=True).stdout
        bad = policy.result(raw, lab)
        if bad == ['changes nothing'] and (lenient or own):
            # make run/gdb/grade LAB=NN right after make start: the start
            # is built (and graded: every check shows what it expects); a
            # hand-in of no change is still refused (--patch, --tree)
            procs.note(f'nothing changed yet: {"grading" if own and not lenient else "building"} '
                     f'lab {lab} as it starts')
            bad = []
        if bad:
            raise Rejected(f'the {kind} ' + '; '.join(bad[:4]))
        # the changed lab files whole, as gcc reads them, against the
        # start's: a diff's lines miss what a NUL byte or a splice hides
        files = policy.changed_files(repo, start, raw, env)
        bad = policy.source(files)
        review[:] = policy.review(files, policy.reference_files(repo, f'stage-{lab}', files))
        if bad and not lenient:
            raise Rejected('source policy: ' + '; '.join(str(v) for v in bad[:3]))
        for v in bad:
            procs.note(f'warning: the graders would reject this: source policy: {v}')
        tree = git('write-tree', env=env)
        commit = git('commit-tree', tree, '-p', start, env=env,
                     input=f'swaplab grade: lab {lab}, {what}\n'.encode())
        # (grades of one lab side by side, grade-all --jobs, move this ref
        # at once: git waits for the other's lock instead of failing; the
        # ref only keeps the last graded commit reachable, each grade
        # holds its own commit by hash)
        git('-c', 'core.filesRefLockTimeout=10000', 'update-ref', f'refs/swaplab/graded/lab-{lab}', commit)
        a.start_commit = start      # the build reads the lab files against it (scripts/cpp-policy)
        return commit, what
    finally:
        shutil.rmtree(hyg, ignore_errors=True)


def context(a: argparse.Namespace, lab: str, commit: str, scale: float) -> dict:
    """What a score depends on, for a regrade to compare against: the kit,
    the kernel package, the lab start, the submission, the machine, the
    limit scale (SCALE)."""
    def out(*cmd: str) -> str:
        p = subprocess.run(cmd, capture_output=True, text=True)
        return p.stdout.strip() if p.returncode == 0 else ''
    repo = os.environ['LINUX_REPO']
    kit = out('git', '-C', ROOT, 'rev-parse', 'HEAD')
    dirty = out('git', '-C', ROOT, 'status', '--porcelain', '--untracked-files=no')
    ctx = {'kit_commit': kit + ('-dirty' if dirty else ''),
           'linux_source': '', 'lab_start': out('git', '-C', repo, 'rev-parse', f'lab-{lab}-start'),
           'graded_commit': commit, 'submission': '',
           'host_cores': os.cpu_count(), 'host': platform.node(),
           'accelerator': out(os.path.join(ROOT, 'vm', 'accel')), 'limit_scale': scale}
    try:
        with open(os.path.join(repo, '.swaplab-version'), encoding='utf-8') as f:
            ctx['linux_source'] = 'linux-source-6.1 ' + f.read().strip()
    except OSError:
        pass
    kind, val = a.src
    if kind == 'patch':
        h = hashlib.sha256()
        with open(val, 'rb') as f:     # (in pieces: a rejected patch may be any size)
            for b in iter(lambda: f.read(1 << 20), b''):
                h.update(b)
        ctx['submission'] = 'sha256:' + h.hexdigest()
    else:
        ctx['submission'] = f'{kind}:{val}' if val else kind
    return ctx
