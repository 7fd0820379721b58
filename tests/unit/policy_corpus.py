#!/usr/bin/env python3
"""The source policy (grader/swaplab/policy.py source_files) on honest work:
every reference stage's lab files against its lab start, and every
alternative and broken variant of tests/ (applied where tests/labs applies
them) against the start a student's copy of it would be graded on.  None
may be refused but those a header names as refused (Expect: rejected).
Needs the kernel work repository (make setup); seconds.  Prints one line
per submission in the kit's format and 'N passed, M failed'."""
import glob
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, 'grader'))

from swaplab import labs, policy  # noqa: E402
from swaplab.envdefaults import defaults  # noqa: E402

REPO = os.environ.get('LINUX_REPO') or defaults()['LINUX_REPO']
passed = failed = 0


def git(*args: str) -> bytes:
    return subprocess.run(['git', '-C', REPO, *args], capture_output=True, check=True).stdout


def blob(rev: str, path: str) -> bytes:
    p = subprocess.run(['git', '-C', REPO, 'cat-file', 'blob', f'{rev}:{path}'], capture_output=True)
    return p.stdout if p.returncode == 0 else b''


def report(name: str, files: dict, refused_ok: bool) -> None:
    global passed, failed
    t0 = time.monotonic()
    bad = policy.source_files(files)
    secs = time.monotonic() - t0
    what = f'{len(files)} file{"s" if len(files) != 1 else ""}, {secs:.1f} s'
    if not bad or refused_ok:
        passed += 1
        note = f'refused as its header says: {bad[0]}' if bad else 'not refused'
        print(f'  ok    policy corpus: {name}: {note} ({what})')
    else:
        failed += 1
        print(f'  FAIL  policy corpus: {name}: refused: {"; ".join(str(v) for v in bad[:3])} ({what})')


def applied(base: str, patch: str, lab: str) -> dict:
    """{path: (lab-LAB-start's bytes, BASE's with PATCH applied)} of the lab
    files PATCH changes."""
    paths = labs.allowlist(lab)
    with tempfile.TemporaryDirectory() as d:
        for p in paths:
            data = blob(base, p)
            if data:
                os.makedirs(os.path.join(d, os.path.dirname(p)), exist_ok=True)
                with open(os.path.join(d, p), 'wb') as f:
                    f.write(data)
        env = dict(os.environ, GIT_CEILING_DIRECTORIES=os.path.dirname(d))
        r = subprocess.run(['git', 'apply', *[f'--include={p}' for p in paths], patch], cwd=d, env=env,
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f'does not apply to {base}: {r.stderr.strip()[:200]}')
        out = {}
        for p in paths:
            f = os.path.join(d, p)
            if os.path.exists(f):
                with open(f, 'rb') as h:
                    new = h.read()
                old = blob(f'lab-{lab}-start', p)
                if new != old:
                    out[p] = (old, new)
        return out


def main() -> int:
    global failed
    if not os.path.isdir(os.path.join(REPO, '.git')):
        print(f'  skip  policy corpus: no kernel work repository at {REPO} (make setup)')
        print('0 passed, 0 failed')
        return 0
    started = sorted(m.group(1) for m in (re.match(r'lab-([0-9]{2})-start$', t) for t in
                                          git('tag', '-l', 'lab-*-start').decode().split()) if m)
    for lab in started:
        changed = git('diff', '--name-only', f'lab-{lab}-start', f'stage-{lab}', '--',
                      *labs.allowlist(lab)).decode().split()
        report(f'stage {lab} against lab-{lab}-start',
               {p: (blob(f'lab-{lab}-start', p), blob(f'stage-{lab}', p)) for p in changed}, False)
    for f in sorted(glob.glob(os.path.join(ROOT, 'tests', 'alternatives', '*.patch')) +
                    glob.glob(os.path.join(ROOT, 'tests', 'broken', '*.patch'))):
        n = os.path.basename(f)[:-len('.patch')]
        if n == 'bad-noapply':
            continue
        lab, base = (n[:2], f'stage-{n[:2]}') if re.match(r'[0-9]{2}-', n) else ('01', 'lab-01-start')
        with open(f, 'rb') as h:
            head = h.read(2000).decode('utf-8', 'replace')
        # refused by the policy as meant: a header says so; bad-forbidden
        # (mm/Makefile) is refused before the policy, by the allowlist
        meant = bool(re.search(r'^Expect: rejected', head, re.M)) or n == 'bad-forbidden'
        try:
            files = applied(base, f, lab)
        except RuntimeError as e:
            failed += 1
            print(f'  FAIL  policy corpus: {os.path.relpath(f, ROOT)}: {e}')
            continue
        report(f'{os.path.relpath(f, ROOT)} on {base}, against lab-{lab}-start', files, meant)
    print(f'{passed} passed, {failed} failed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
