"""Hygiene of a submission, decided on what git applied, before any build.

Two parts:
  result(raw, lab)  -- the change itself (git diff --raw -z against the lab
                       start): only the lab's files, modified in place,
                       regular files of mode 100644
  source(diff)      -- the source policy on the lines the submission adds:
                       constructs that read host files at build time, hide
                       warnings, or reach the grader's own machinery
A rule that fires rejects the submission with the rule's name and the line.
review(diff) lists softer signals for an instructor to look at.
"""
from __future__ import annotations

import dataclasses
import os
import re
from typing import List, Optional, Tuple

from .checks import ROOT

ALLOWLIST = os.path.join(ROOT, 'grader', 'allowlist')


def allowlist(lab: Optional[str] = None, path: str = ALLOWLIST) -> List[str]:
    """The files lab LAB's submissions may change (any lab's when None)."""
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


@dataclasses.dataclass
class Violation:
    rule: str
    path: str
    line: int
    text: str

    def __str__(self) -> str:
        where = f'{self.path}:{self.line}' if self.line else self.path
        return f'{self.rule}: {where}: {self.text.strip()[:120]}'


# ---------------------------------------------------------------- the change
def parse_raw(raw: bytes) -> List[Tuple[str, str, str, str]]:
    """(old mode, new mode, status, path) from git diff --raw -z --no-renames."""
    out = []
    parts = raw.split(b'\0')
    i = 0
    while i < len(parts) - 1:
        head = parts[i].decode('utf-8', 'replace')
        if not head.startswith(':'):
            i += 1
            continue
        f = head[1:].split()
        path = parts[i + 1].decode('utf-8', 'replace')
        out.append((f[0], f[1], f[4], path))
        i += 2
    return out


def result(raw: bytes, lab: str) -> List[str]:
    """What git applied, against the lab's start: one message per problem."""
    allowed = allowlist(lab)
    entries = parse_raw(raw)
    if not entries:
        return ['changes nothing']
    outside = [p for _, _, _, p in entries if p not in allowed]
    bad: List[str] = []
    if outside:
        bad.append(f"touches files outside the allowlist: {' '.join(outside)} "
                   f"(lab {lab} may change only {', '.join(allowed)})")
    for old, new, status, path in entries:
        if path in outside:
            continue
        if status[:1] not in ('M', 'T'):
            what = {'A': 'creates', 'D': 'deletes'}.get(status[:1], status)
            bad.append(f'{what} {path}: a lab modifies existing files in place')
        elif old != '100644' or new != '100644':
            kind = {'120000': 'a symbolic link', '100755': 'an executable', '160000': 'a submodule'}.get(new, new)
            bad.append(f'makes {path} {kind} (mode {new}): only regular files of mode 100644')
    return bad


# ---------------------------------------------------------------- the source
_IDENT_FAMILIES = {
    'kunit': r'\b(\w*kunit\w*|KUNIT_\w+)\b',
    'lockdep': r'\b(\w*lockdep\w*|debug_locks\w*|lock_class_key|__lock_acquire|lock_acquire|lock_release|'
               r'lock_stat|lockstat\w*|lock_contended|lock_acquired|spin_lock_init_key|'
               r'__raw_spin_lock_init|__spin_lock_init)\b',
    'usermode helper': r'\b(\w*usermodehelper\w*|call_usermode\w*|kernel_execve|orderly_poweroff|'
                       r'orderly_reboot|run_cmd)\b',
    'file I/O': r'\b(filp_open|filp_close|file_open_root|kernel_read\w*|kernel_write|vfs_read|vfs_write|'
                r'vfs_\w+|kern_path|request_firmware\w*|do_sys_open|ksys_\w+|init_syscalls|init_\w+at|'
                r'file_path|d_path|fput|fget)\b',
    'swaplab': r'\b(\w*swaplab\w*|SWAPLAB\w*)\b',
}
_IDENT_RES = {k: re.compile(v, re.I if k in ('kunit', 'swaplab') else 0) for k, v in _IDENT_FAMILIES.items()}
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
_IMITATE = re.compile(r'(SWAPLAB|KTAP|# ?Subtest|(^|\\n|\s)(not )?ok [0-9%]|^1\.\.|\[swaplab\]|'
                      r'\bRESULT\b|\bMETRIC\b|\bPASS\b|EXPECTATION FAILED)')
_DIRECTIVE = re.compile(r'^\s*#\s*(\w+)(.*)$')
_LINEMARKER = re.compile(r'^\s*#\s*[0-9]')
_ASM = re.compile(r'\b(asm|__asm__|__asm)\b|\.incbin|\.skip\b|\.fill\b|__attribute__\s*\(\(\s*section')
_PRAGMA = re.compile(r'\b_Pragma\b|__pragma\b')


def _strip_comments(lines: List[Tuple[int, str]]) -> List[Tuple[int, str]]:
    """Added lines without C comments (strings kept)."""
    out = []
    in_c = False
    for n, l in lines:
        s, i, res = l, 0, ''
        while i < len(s):
            if in_c:
                j = s.find('*/', i)
                if j < 0:
                    i = len(s)
                else:
                    in_c, i = False, j + 2
                continue
            if s.startswith('/*', i):
                in_c, i = True, i + 2
            elif s.startswith('//', i):
                break
            elif s[i] == '"':
                m = _STRING.match(s, i)
                if m:
                    res += m.group(0)
                    i = m.end()
                else:
                    res += s[i:]
                    break
            else:
                res += s[i]
                i += 1
        out.append((n, res))
    return out


def added_lines(diff: str) -> List[Tuple[str, int, str]]:
    """(path, line number in the new file, text) of every added line of a
    unified diff (git diff -U0)."""
    out = []
    path, n = '', 0
    for l in diff.split('\n'):
        if l.startswith('+++ '):
            p = l[4:]
            path = p[2:] if p.startswith('b/') else p
            continue
        if l.startswith('@@'):
            m = re.match(r'^@@ -\S+ \+(\d+)', l)
            n = int(m.group(1)) if m else 0
            continue
        if l.startswith('+') and not l.startswith('+++'):
            out.append((path, n, l[1:]))
            n += 1
        elif l.startswith(' '):
            n += 1
    return out


def source(diff: str) -> List[Violation]:
    """The source policy on the submission's added lines."""
    bad: List[Violation] = []
    by_file: dict = {}
    for path, n, text in added_lines(diff):
        by_file.setdefault(path, []).append((n, text))
    for path, lines in by_file.items():
        # a line continued with a backslash is judged joined to the next
        joined: List[Tuple[int, str]] = []
        for n, t in lines:
            if joined and joined[-1][1].endswith('\\'):
                joined[-1] = (joined[-1][0], joined[-1][1][:-1] + t)
            else:
                joined.append((n, t))
        for n, t in _strip_comments(joined):
            v = _line(path, n, t)
            if v:
                bad.append(v)
    return bad


def _line(path: str, n: int, t: str) -> Optional[Violation]:
    m = _DIRECTIVE.match(t)
    if _LINEMARKER.match(t):
        return Violation('#line', path, n, t)
    if m:
        d, rest = m.group(1), m.group(2).strip()
        if d == 'include':
            if not re.fullmatch(r'<[A-Za-z0-9_][A-Za-z0-9_./-]*\.h>', rest) or '..' in rest:
                return Violation('#include', path, n, t + '  (only kernel headers, as #include <...>)')
        elif d in ('line', 'pragma', 'undef', 'include_next', 'import', 'embed', 'ident', 'sccs', 'assert',
                   'unassert'):
            return Violation(f'#{d}', path, n, t)
    if _PRAGMA.search(t):
        return Violation('#pragma', path, n, t)
    if _ASM.search(t):
        return Violation('asm', path, n, t)
    for fam, rx in _IDENT_RES.items():
        if rx.search(t):
            return Violation(f'{fam} identifiers', path, n, t)
    for s in _STRING.findall(t):
        if _IMITATE.search(s):
            return Violation('imitates the grader', path, n, t)
    return None


def review(diff: str) -> List[str]:
    """Softer signals for an instructor: not rejected, flagged."""
    flags = []
    added = added_lines(diff)
    ex = [f'{p}:{n}' for p, n, t in added if re.search(r'\bEXPORT_SYMBOL', t)]
    if ex:
        flags.append(f"new exported symbols ({', '.join(ex[:3])})")
    if len(added) > 600:
        flags.append(f'large change ({len(added)} lines added)')
    return flags
