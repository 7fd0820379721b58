"""Hygiene of a submission, decided on what git applied, before any build.

Two parts:
  result(raw, lab)    -- the change itself (git diff --raw -z against the lab
                         start): only the lab's files, modified in place,
                         regular files of mode 100644
  source_files(files) -- the source policy on each changed lab file, read
                         whole as gcc (-std=gnu11) reads it, against the lab
                         start's: splices joined (a backslash, blanks, a
                         newline), comments, strings, character constants
                         and raw strings lexed as gcc lexes them, a comment
                         one space; the logical lines the submission adds
                         are those a diff of the two shows
A rule that fires rejects the submission with the rule's name and the line.
The rules (FILE_RULES, one function each):
  NUL byte, CR byte, trigraph, digraph, raw string literal
                      -- anywhere in the file: what git, a diff or this
                         reader would see otherwise than gcc
  #include #line #pragma #undef ..., asm, <family> identifiers
                      -- on each added logical line: constructs that read
                         host files at build time, hide warnings, or reach
                         the grader's own machinery (rule_lines)
  section attribute   -- __section(), __attribute__((section ...)) however
                         spelled
  <family> identifiers (pasted) -- what ## pastes together
  imitates the grader -- adjacent string literals joined, escapes decoded
  format string imitates the grader
                      -- a %s or %c (or a macro among the strings) that
                         could complete a KTAP or result line with the
                         literal text around it
review(files) lists softer signals for an instructor to look at.
source(diff) and review(diff) still take a git diff -U0 (its added lines
only, without the files around them): resolve() gives them the files.
"""
from __future__ import annotations

import bisect
import dataclasses
import difflib
import re
import subprocess
from typing import Callable, Dict, List, Optional, Tuple

from .labs import allowlist


@dataclasses.dataclass
class Violation:
    rule: str
    path: str
    line: int
    text: str

    def __str__(self) -> str:
        where = f'{self.path}:{self.line}' if self.line else self.path
        return f'{self.rule}: {where}: {_printable(self.text.strip()[:120])}'


def _printable(s: str) -> str:
    """S with control bytes written as \\xNN: a NUL or CR of a hostile line
    must not reach the reports (JSON, JUnit XML) as itself."""
    return re.sub(r'[\x00-\x08\x0a-\x1f\x7f]', lambda m: f'\\x{ord(m.group()):02x}', s)


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
    # the suite's way in is a debugfs folder: a kernel that makes files
    # there first (or elsewhere) answers for the suite; no lab needs them
    'debugfs and proc file': r'\b(debugfs_\w+|DEFINE_DEBUGFS_ATTRIBUTE\w*|DEFINE_SIMPLE_ATTRIBUTE\w*|'
                             r'proc_create\w*|proc_mkdir\w*|proc_remove|remove_proc_\w+|proc_symlink|'
                             r'securityfs_\w+|sysfs_create_\w+|kernfs_\w+)\b',
    # what tells one translation unit of the kernel from another: a lab
    # header that acts only where asm-offsets.c (COMPILE_OFFSETS), bounds.c
    # or the linker script includes it writes into the build's generated
    # files (the red team's linker-script attack); no lab needs them
    'build context': r'\b(COMPILE_OFFSETS|__GENERATING_BOUNDS_H|LINKER_SCRIPT|__ASSEMBLY__|KBUILD_\w+|'
                     r'__KBUILD_MODNAME|BUILD_VDSO\w*|DISABLE_BRANCH_PROFILING|__DISABLE_EXPORTS)\b',
    # a function reached by a name in a string (an alias or weak
    # reference to kunit_do_failed_assertion, filp_open...: the red team's
    # weakref attack of 2026-12-07) or looked up at run time: no lab needs
    # them
    'symbol aliasing and lookup': r'\b(weakref|__weakref__|alias|__alias__|__alias|ifunc|__ifunc__|symver|'
                                  r'__symver__|kallsyms_\w+|symbol_get|__symbol_get|symbol_put\w*|__symbol_put|'
                                  r'symbol_request|module_kallsyms_\w+)\b',
    # what tells the suite's calls from the kernel's at run time or by
    # position: no lab needs them
    'caller detection': r'\b(__builtin_return_address|__builtin_frame_address|__builtin_extract_return_addr|'
                        r'__builtin_FUNCTION|__builtin_LINE|__builtin_FILE|_RET_IP_|_THIS_IP_|'
                        r'__INCLUDE_LEVEL__|__COUNTER__|__BASE_FILE__|__FILE_NAME__|__TIMESTAMP__)\b',
    # what silences or reroutes the console: the red team's forged suite
    # (2026-12-07) set console_loglevel to 5 at swapon, so the suite's own
    # KTAP (KERN_INFO) never reached the console, and printed a passing
    # block at KERN_WARNING; no lab needs them.  The second red team of
    # that day lowered it through do_syslog() and stopped the console
    # with suspend_console(), each declared by hand
    'console control': r'\b(console_loglevel|console_printk|default_console_loglevel|minimum_console_loglevel|'
                       r'default_message_loglevel|suppress_printk|console_silent|console_verbose|'
                       r'console_suspend\w*|console_suspended|suspend_console|resume_console|console_resume|'
                       r'console_stop|console_start|console_lock|'
                       r'console_unlock|console_trylock|console_drivers|console_list\w*|for_each_console\w*|'
                       r'register_console|unregister_console|add_preferred_console|printk_set_loglevel|'
                       r'ignore_loglevel|devkmsg_\w+|do_syslog|\w*sys_syslog|pr_flush|vprintk_emit|'
                       r'printk_ratelimit\w*|early_console|serial8250_\w+|uart_\w+|'
                       # the serial port itself, by port I/O or MMIO: no lab drives a device
                       r'outb|outw|outl|outb_p|outw_p|outl_p|outsb|outsw|outsl|iowrite\w*|'
                       r'writeb|writew|writel|writeq|__raw_write\w*)\b',
}
_IDENT_RES = {k: re.compile(v, re.I if k in ('kunit', 'swaplab') else 0) for k, v in _IDENT_FAMILIES.items()}
_IMITATE = re.compile(r'((?i:swaplab|kunit|si_lock_key)|KTAP|# ?Subtest|(^|\\n|\s)(not )?ok [0-9%]|^1\.\.|\[swaplab\]|'
                      r'\bRESULT\b|\bMETRIC\b|\bPASS\b|EXPECTATION FAILED)')
_DIRECTIVE = re.compile(r'^\s*#\s*(\w+)(.*)$')
_LINEMARKER = re.compile(r'^\s*#\s*[0-9]')
_ASM = re.compile(r'\b(asm|__asm__|__asm|asm_inline|asm_volatile_goto)\b|\.incbin|\.skip\b|\.fill\b')
_STRING_TOK = re.compile(r'(?:[LUu]|u8)?"(?:[^"\\\n]|\\.)*"')
_PRAGMA = re.compile(r'\b_Pragma\b|__pragma\b')
# __has_include(<a/*>) reads a host path, and its <...> is no comment to
# gcc: what follows would be code to gcc and a comment to this lexer
_HAS_INCLUDE = re.compile(r'\b__has_(include|include_next|embed)\b')
_TRIGRAPH = re.compile(r"\?\?[=/'()!<>-]")
MAX_BYTES = 1 << 20            # the largest lab file the policy reads (mm/swapfile.c: 96 KiB)


# ------------------------------------------------ the file as gcc reads it
# Translation phases 1-3 of gnu11 (gcc 12, the kernel's -std=gnu11):
# backslash, blanks, newline is a splice (gcc warns about the blanks but
# splices); then comments, strings, character constants and raw strings
# are lexed from left to right, a comment becoming one space (so a /* */
# over several lines makes them one line, as for the preprocessor).
_SPLICE = re.compile(r'\\[ \t\f\v]*\Z')
_LEX = re.compile(r'''
    (?P<nl>\n)
  | (?P<ws>[ \t\f\v]+)
  | (?P<bc>/\*)
  | (?P<lc>//[^\n]*)
  | (?P<raw>(?:u8|[uUL])?R")
  | (?P<str>(?:u8|[uUL])?"(?:[^"\\\n]|\\[^\n])*"?)
  | (?P<chr>(?:u8|[uUL])?'(?:[^'\\\n]|\\[^\n])*'?)
  | (?P<num>\.?[0-9](?:[eEpP][+-]|[\w.$])*)
  | (?P<id>[^\W\d][\w$]*|\$[\w$]*)
  | (?P<punct>%:%:|%:|<:|:>|<%|%>|\#\#|\.\.\.|<<=|>>=|->|\+\+|--|<<|>>|&&|\|\||[-+*/%&|^!=<>]=|.)
''', re.X | re.S)
_STR_AT = re.compile(r'"(?:[^"\\\n]|\\[^\n])*"?')
_RAW_DELIM = re.compile(r'([^ ()\\\t\v\f\n]{0,16})\(')


@dataclasses.dataclass
class Tok:
    kind: str        # id num str chr punct
    text: str
    line: int        # the physical line its logical line starts on
    row: int         # the index of its Row


@dataclasses.dataclass
class Row:
    """A line as the preprocessor sees it: splices joined, comments one
    space each; LINE is the physical line it starts on."""
    line: int
    text: str        # strings kept
    code: str        # its tokens, strings and character constants as ""


@dataclasses.dataclass
class CSource:
    rows: List[Row]
    toks: List[Tok]
    raws: List[int]                      # lines of raw string literals
    digraphs: List[Tuple[int, str]]      # (line, %: or %:%:) outside comments and strings
    trigraphs: List[Tuple[int, str]]     # (line, ??X) outside comments, and ??/ in them


def read_c(data: bytes) -> CSource:
    """DATA (a C file) lexed as gcc reads it."""
    text = data.decode('utf-8', 'replace').replace('\r\n', '\n').replace('\r', '\n')
    if text.startswith('\ufeff'):                   # gcc skips a byte order mark: #include after one is one
        text = text[1:]
    phys = text.split('\n')
    logical: List[str] = []
    starts: List[int] = []
    cont = False
    for n, l in enumerate(phys, 1):
        m = _SPLICE.search(l) if n < len(phys) else None     # the last line has no newline to splice
        if m:
            l = l[:m.start()]
        if cont:
            logical[-1] += l
        else:
            logical.append(l)
            starts.append(n)
        cont = m is not None
    s = '\n'.join(logical)
    rows: List[Row] = []
    toks: List[Tok] = []
    raws: List[int] = []
    digraphs: List[Tuple[int, str]] = []
    trigraphs: List[Tuple[int, str]] = []
    pieces: List[str] = []
    code: List[str] = []
    li, pos, end_all = 0, 0, len(s)
    row_line = starts[0]
    while pos < end_all:
        m = _LEX.match(s, pos)
        k, t, end = m.lastgroup, m.group(), m.end()
        if k == 'nl':
            rows.append(Row(row_line, ''.join(pieces), ' '.join(code)))
            pieces, code = [], []
            li += 1
            row_line = starts[li]
            pos = end
            continue
        if k == 'bc':
            e = s.find('*/', end)
            e = end_all if e < 0 else e + 2
            if '??/' in s[pos:e]:           # with trigraphs on, *??/ newline / ends the comment
                trigraphs.append((starts[li + s.count('\n', pos, s.index('??/', pos))], '??/'))
            li += s.count('\n', pos, e)
            pieces.append(' ')
            pos = e
            continue
        if k in ('lc', 'ws'):
            if k == 'lc' and '??/' in t:
                trigraphs.append((starts[li], '??/'))
            pieces.append(' ' if k == 'lc' else t)
            pos = end
            continue
        line = starts[li]
        if k == 'raw':
            raws.append(line)
            d = _RAW_DELIM.match(s, end)
            e = s.find(')' + d.group(1) + '"', d.end()) if d else -1
            if d:
                end = end_all if e < 0 else e + len(d.group(1)) + 2
            else:                       # not a raw string to gcc either: an error
                end = _STR_AT.match(s, end - 1).end()
            t = s[pos:end]
            li += t.count('\n')
            k = 'str'
        elif t in ('%:', '%:%:'):
            digraphs.append((line, t))
        toks.append(Tok(k, t, line, len(rows)))
        pieces.append(t)
        code.append('""' if k in ('str', 'chr') else t)
        pos = end
    rows.append(Row(row_line, ''.join(pieces), ' '.join(code)))
    trigraphs += [(r.line, m.group()) for r in rows for m in _TRIGRAPH.finditer(r.text)]
    return CSource(rows, toks, raws, digraphs, sorted(trigraphs))


@dataclasses.dataclass
class Change:
    """One changed lab file: the lab start's and the submission's."""
    path: str
    data: bytes                          # the submission's bytes
    old: CSource
    new: CSource
    added: List[int]                     # the rows of NEW the submission adds

    def rows_added(self) -> List[Row]:
        return [self.new.rows[j] for j in self.added]


def change(path: str, old: bytes, new: bytes) -> Change:
    a, b = read_c(old), read_c(new)
    return Change(path, new, a, b, added_rows([r.text for r in a.rows], [r.text for r in b.rows]))


def added_rows(a: List[str], b: List[str], budget: int = 4_000_000) -> List[int]:
    """The indices of B's lines a diff from A shows added: a patience diff
    (lines unique to both ranges anchor it, git diff --patience), difflib
    on what lies between anchors when that is small; within BUDGET steps
    whatever the input (past it, a range's line is added unless the
    range of A has it word for word)."""
    out: List[int] = []
    work = [(0, len(a), 0, len(b))]
    spent = 0
    while work:
        alo, ahi, blo, bhi = work.pop()
        while alo < ahi and blo < bhi and a[alo] == b[blo]:
            alo, blo = alo + 1, blo + 1
        while alo < ahi and blo < bhi and a[ahi - 1] == b[bhi - 1]:
            ahi, bhi = ahi - 1, bhi - 1
        if blo >= bhi:
            continue
        if alo >= ahi:
            out.extend(range(blo, bhi))
            continue
        spent += (ahi - alo) + (bhi - blo)
        if spent > budget:
            had = set(a[alo:ahi])
            out.extend(j for j in range(blo, bhi) if b[j] not in had)
            continue
        ca: Dict[str, int] = {}
        for i in range(alo, ahi):
            ca[a[i]] = i if a[i] not in ca else -1
        cb: Dict[str, int] = {}
        for j in range(blo, bhi):
            cb[b[j]] = j if b[j] not in cb else -1
        pairs = [(ca[t], j) for t, j in cb.items() if j >= 0 and ca.get(t, -1) >= 0]
        pairs.sort(key=lambda p: p[1])
        anchors = _increasing(pairs)
        if not anchors:
            if (ahi - alo) * (bhi - blo) <= 200_000:
                sm = difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=False)
                out.extend(blo + j for tag, _, _, j1, j2 in sm.get_opcodes() if tag in ('replace', 'insert')
                           for j in range(j1, j2))
            else:
                had = set(a[alo:ahi])
                out.extend(j for j in range(blo, bhi) if b[j] not in had)
            continue
        pa, pb = alo, blo
        for ia, jb in anchors:
            work.append((pa, ia, pb, jb))
            pa, pb = ia + 1, jb + 1
        work.append((pa, ahi, pb, bhi))
    return sorted(out)


def _increasing(pairs: List[Tuple[int, int]]) -> List[Tuple[int, int]]:
    """The longest run of PAIRS (in B order) increasing in A too."""
    tails: List[int] = []              # index into pairs of the last of each length
    prev = [-1] * len(pairs)
    keys: List[int] = []
    for k, (i, _) in enumerate(pairs):
        n = bisect.bisect_left(keys, i)
        if n == len(keys):
            keys.append(i)
            tails.append(k)
        else:
            keys[n] = i
            tails[n] = k
        prev[k] = tails[n - 1] if n else -1
    out = []
    k = tails[-1] if tails else -1
    while k >= 0:
        out.append(pairs[k])
        k = prev[k]
    return out[::-1]


def _lineno(data: bytes, i: int) -> int:
    return data.count(b'\n', 0, i) + 1


# ------------------------------------------------ the rules, one function each
def rule_nul(c: Change) -> List[Violation]:
    """A NUL byte (gcc reads it as a blank; git calls a file with one in
    its first 8000 bytes binary, and a diff then shows none of its lines)."""
    i = c.data.find(b'\0')
    if i < 0:
        return []
    return [Violation('NUL byte', c.path, _lineno(c.data, i),
                      'a NUL byte (no lab file has one; in its first 8000 bytes git calls the file binary '
                      'and shows no line of it)')]


def rule_cr(c: Change) -> List[Violation]:
    """A CR byte (gcc reads CR LF as a newline: backslash CR LF splices)."""
    i = c.data.find(b'\r')
    if i < 0:
        return []
    return [Violation('CR byte', c.path, _lineno(c.data, i),
                      'a CR byte: gcc reads CR LF as a newline, a backslash before it splices two lines')]


def rule_trigraph(c: Change) -> List[Violation]:
    """Trigraphs in code and strings, and ??/ in comments too (gnu11 reads
    none of them, a compiler told -trigraphs all: ??/ is a backslash)."""
    return [Violation('trigraph', c.path, n, f'{t} is another character to a compiler that reads trigraphs')
            for n, t in c.new.trigraphs[:1]]


def rule_digraph(c: Change) -> List[Violation]:
    """The %: digraph outside comments and strings: # to gcc."""
    return [Violation('digraph', c.path, n, f'{t} is {"##" if len(t) == 4 else "#"} to gcc: '
                      f'a directive, a stringize or a paste') for n, t in c.new.digraphs[:1]]


def rule_raw_string(c: Change) -> List[Violation]:
    """A raw string literal: gcc's gnu11 reads them (and undoes splices in
    them), where a " or /* in one means what it does not mean in C."""
    return [Violation('raw string literal', c.path, n, 'R"(...)": gcc reads raw strings in gnu11, '
                      'and nothing in them is lexed as C') for n in c.new.raws[:1]]


def rule_lines(c: Change) -> List[Violation]:
    """The line rules (directives, asm, identifiers) on each added line
    that is not, word for word, a line of the start (#include "swap.h",
    filp_close() in swapoff: a diff may see a line moved as added)."""
    out = []
    had = {r.text for r in c.old.rows}
    for r in c.rows_added():
        if r.text in had:
            continue
        v = _line(c.path, r.line, r.text, r.code)
        if v:
            out.append(v)
    return out


def rule_section(c: Change) -> List[Violation]:
    """__section and __section__ anywhere, section before a ( (on any
    line: an attribute may span several) or in a directive."""
    out = []
    added = set(c.added)
    ts = c.new.toks
    for k, t in enumerate(ts):
        if t.kind != 'id' or t.row not in added:
            continue
        nxt = ts[k + 1].text if k + 1 < len(ts) else ''
        r = c.new.rows[t.row]
        if t.text in ('__section', '__section__') or \
                (t.text == 'section' and (nxt == '(' or _DIRECTIVE.match(r.text))):
            if not out or out[-1].line != r.line:
                out.append(Violation('section attribute', c.path, r.line, r.text))
    return out


def rule_paste(c: Change) -> List[Violation]:
    """Identifiers as ## (or %:%:) pastes them together."""
    out = []
    added = set(c.added)
    by_row: Dict[int, List[Tok]] = {}
    for t in c.new.toks:
        if t.row in added:
            by_row.setdefault(t.row, []).append(t)
    for j, ts in sorted(by_row.items()):
        i = 0
        while i < len(ts):
            if ts[i].kind in ('id', 'num') and i + 2 < len(ts) and ts[i + 1].text in ('##', '%:%:'):
                parts, k = [ts[i].text], i
                while k + 2 < len(ts) and ts[k + 1].text in ('##', '%:%:') and ts[k + 2].kind in ('id', 'num'):
                    parts.append(ts[k + 2].text)
                    k += 2
                pasted = ''.join(parts)
                for fam, rx in _IDENT_RES.items():
                    if rx.search(pasted):
                        out.append(Violation(f'{fam} identifiers', c.path, c.new.rows[j].line,
                                             f'{" ## ".join(parts)} pastes {pasted}'))
                        break
                i = k + 1
            else:
                i += 1
    return out


# string literals: runs of adjacent ones, with the identifiers among them
# (macros such as KERN_INFO may stand for strings), joined as phase 6 does
_C_KEYWORDS = frozenset('auto break case char const continue default do double else enum extern float for goto '
                        'if inline int long register restrict return short signed sizeof static struct switch '
                        'typedef union unsigned void volatile while _Alignas _Alignof _Bool _Generic '
                        '_Static_assert typeof __typeof__ __inline__ __volatile__ __const__'.split())
_ESC = re.compile(r'\\(x[0-9a-fA-F]+|[0-7]{1,3}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)', re.S)
_ESC_CHARS = {'n': '\n', 't': '\t', 'r': '\r', 'a': '\a', 'b': '\b', 'f': '\f', 'v': '\v', 'e': '\x1b', 'E': '\x1b'}


def _decode(tok: str) -> str:
    """The characters of one string literal token (its escapes decoded)."""
    body = tok[tok.index('"') + 1:]
    if body.endswith('"'):
        body = body[:-1]

    def esc(m: 're.Match[str]') -> str:
        e = m.group(1)
        if e[0] in 'xuU' and len(e) > 1:
            return chr(min(int(e[1:], 16), 0x10FFFF))
        if e[0] in '01234567':
            return chr(int(e, 8))
        return _ESC_CHARS.get(e, e)
    return _ESC.sub(esc, body)


def _runs(src: CSource) -> List[List[Tok]]:
    out: List[List[Tok]] = []
    cur: List[Tok] = []

    def flush() -> None:
        strs = [i for i, t in enumerate(cur) if t.kind == 'str']
        if strs:
            out.append(cur[max(0, strs[0] - 1):strs[-1] + 2])
        cur.clear()
    for t in src.toks:
        if t.kind == 'str' or (t.kind == 'id' and t.text not in _C_KEYWORDS):
            cur.append(t)
        else:
            flush()
    flush()
    return out


_IMITATE_TEXT = re.compile(_IMITATE.pattern, re.M)
# a printf conversion (the kernel's %p extensions print text: %pV a whole
# format, %ps a symbol name)
_CONV = re.compile(r'%(?:%|[-+ #0]*(?:\*|[0-9]+)?(?:\.(?:\*|[0-9]*))?(?:hh|h|ll|l|L|q|j|z|Z|t)?'
                   r'(p[A-Za-z]+|[diouxXcsfFeEgGaApn]))')
# what a format string's fills are judged by: the lines the grader reads
# for a verdict (a KTAP result, a KTAP suite's start, the guest's tagged
# lines, the runner's notes), each with the part that must hold at least
# MIN characters of the string's own (not blanks, not only digits: "%s: "
# or "%s 5 pages" make no line of the grader's) for a fill to count
_FORGE = [(re.compile(r'(?=^[ \t]*((?:not )?ok [0-9]+) (?:- )?\w)', re.M), 2),
          (re.compile(r'(?=^[ \t]*(?:not )?ok [0-9]+ (?:- )?((?:lab[0-9]+_|swaplab)[-\w]*))', re.M | re.I), 1),
          (re.compile(r'(?=^[ \t]*(# ?Subtest: ))', re.M), 2),
          (re.compile(r'(?=\b(SWAPLAB ))'), 3),
          (re.compile(r'(?=^(\[swaplab\] ))', re.M), 3)]
# the same spelled out: a slot (a %s, %c, or a macro among the strings) is
# tried with each piece of these that the text around it leaves to
# complete, and _FORGE decides
_KEYS = tuple(f'{w}{k}' for w in ('', '\n') for k in
              [f'ok {d} ' for d in '0123456789'] + ['# Subtest: ', '#Subtest: ', 'SWAPLAB ', '[swaplab] '])
# two slots side by side are tried with these
_PAIR_FILLS = ('', 'o', 'ok', 'ok ', 'not', 'not ok', 'not ok ', 'k', 'n', '#', '# ', 'KTAP', 'SWAPLAB', ' ', '\n', '1')


def _template(run: List[Tok]) -> List[Tuple[str, str]]:
    """RUN as pieces: ('lit', text), ('text', ''), ('char', ''), ('num', '')."""
    out: List[Tuple[str, str]] = []
    lit = ''

    def flush_lit() -> None:
        pos = 0
        for m in _CONV.finditer(lit):
            out.append(('lit', lit[pos:m.start()]))
            c = m.group(1)
            if c is None:
                out.append(('lit', '%'))
            elif c == 's' or (c[0] == 'p' and len(c) > 1):
                out.append(('text', ''))
            elif c == 'c':
                out.append(('char', ''))
            elif c != 'n':
                out.append(('num', ''))
            pos = m.end()
        out.append(('lit', lit[pos:]))
    for t in run:
        if t.kind == 'str':
            lit += _decode(t.text)
        else:
            flush_lit()
            lit = ''
            out.append(('text', ''))
    flush_lit()
    return [p for p in out if p != ('lit', '')]


def _render(tpl: List[Tuple[str, str]]) -> Tuple[str, List[bool], List[int]]:
    """TPL printed with its slots empty (numbers as 1), which of the
    characters are the literal's own, and where each piece starts."""
    text, mask, at, n = [], [], [], 0
    for k, v in tpl:
        piece = v if k == 'lit' else ('1' if k == 'num' else '')
        at.append(n)
        n += len(piece)
        text.append(piece)
        mask.extend([k == 'lit'] * len(piece))
    return ''.join(text), mask, at


_REACH = 48       # more than any match of _FORGE spans (a test's name aside)


def _imitates(parts: List[Tuple[str, Optional[List[bool]]]]) -> Optional[str]:
    """The text of PARTS (text, literal mask; a fill has none) when a line
    the grader reads starts in it with enough of the literal's own text
    (_FORGE).  Only near the fills is looked at: elsewhere the text is the
    literal's own, which rule_strings judges."""
    text = ''.join(p for p, _ in parts)
    first = len(parts[0][0])
    last = len(text) - len(parts[-1][0])
    pos, end = max(0, first - _REACH), min(len(text), last + _REACH)
    while pos > 0 and text[pos - 1] in ' \t':      # back to the line's start: ^[ \t]* may reach it
        pos -= 1
    mask: Optional[List[bool]] = None
    for rx, least in _FORGE:
        for m in rx.finditer(text, pos, end):
            if mask is None:
                mask = []
                for p, pm in parts:
                    mask.extend(pm if pm is not None else [False] * len(p))
            own = [text[x] for x in range(*m.span(1)) if mask[x] and not text[x].isspace()]
            if len(own) >= least and (least == 1 or not ''.join(own).isdigit()):
                return text
    return None


_WINDOW = _REACH + max(len(k) for k in _KEYS)   # what a try reads beside a slot


def _left_of(text: str, mask: List[bool], at: int) -> Tuple[str, List[bool]]:
    """What a try reads left of offset AT: _WINDOW characters, the blanks
    before them (_imitates backs over them to a line's start) and one more
    character (so that ^ sees whether a line starts there)."""
    lo = max(0, at - _WINDOW)
    while lo > 0 and text[lo - 1] in ' \t':
        lo -= 1
    lo = max(0, lo - 1)
    return text[lo:at], mask[lo:at]


def _right_of(text: str, mask: List[bool], at: int) -> Tuple[str, List[bool]]:
    """What a try reads right of offset AT (_imitates stops _REACH past it)."""
    return text[at:at + _WINDOW], mask[at:at + _WINDOW]


def _imitation_by_fill(tpl: List[Tuple[str, str]], budget: List[int]) -> Optional[str]:
    """A way TPL could print a result or KTAP line, if one is found: each
    slot (the others empty) with every piece of a key the text around it
    leaves to complete, then each two neighbouring slots with a few fills.
    Each try costs BUDGET[0] one.  Each try reads a window around its
    slots (what _imitates can reach), so that a string of many slots costs
    time in proportion to its length, not to its square."""
    slots = [i for i, (k, _) in enumerate(tpl) if k in ('text', 'char')]
    if not slots:
        return None
    text, mask, at = _render(tpl)

    def fills(i: int) -> Tuple[str, ...]:
        return tuple(f for f in _PAIR_FILLS if len(f) <= 1) if tpl[i][0] == 'char' else _PAIR_FILLS
    for i in slots:
        left, right = _left_of(text, mask, at[i]), _right_of(text, mask, at[i])
        if not (left[0][-_REACH:].strip() or right[0][:_REACH].strip()):
            continue                    # only blanks near it: no match can reach a literal character
        tried = set()
        for key in _KEYS:
            xs = [x for x in range(len(key) + 1) if left[0].endswith(key[:x])]
            ys = [y for y in range(len(key) + 1) if right[0].startswith(key[y:])]
            for x in xs:
                for y in ys:
                    f = key[x:y]
                    if y < x or f in tried or (tpl[i][0] == 'char' and len(f) > 1):
                        continue
                    tried.add(f)
                    budget[0] -= 1
                    hit = _imitates([left, (f, None), right])
                    if hit:
                        return hit
        if budget[0] < 0:
            return None
    for i, k in zip(slots, slots[1:]):
        left, right = _left_of(text, mask, at[i]), _right_of(text, mask, at[k])
        mid = text[at[i]:at[k]], mask[at[i]:at[k]]
        if not (left[0][-_REACH:].strip() or mid[0].strip() or right[0][:_REACH].strip()):
            continue
        fi, fk = fills(i), fills(k)
        budget[0] -= len(fi) * len(fk)
        if budget[0] < 0:
            return None
        for f in fi:
            for g in fk:
                hit = _imitates([left, (f, None), mid, (g, None), right])
                if hit:
                    return hit
    return None


def rule_strings(c: Change) -> List[Violation]:
    """Adjacent string literals, joined, must not imitate the grader."""
    out = []
    added = set(c.added)
    for run in _runs(c.new):
        on = [t for t in run if t.row in added]
        if not on:
            continue
        joined = ''.join(_decode(t.text) for t in run if t.kind == 'str')
        if _IMITATE_TEXT.search(joined):
            out.append(Violation('imitates the grader', c.path, on[0].line,
                                 f'{" ".join(t.text for t in run)}  (prints {joined!r})'))
    return out


FORMAT_BUDGET = 100_000       # fills tried per file (the whole lab 01 reference: under 2 000)


def rule_format(c: Change) -> List[Violation]:
    """A new string whose %s/%c conversions (or macros among its pieces)
    could complete a result or KTAP line with the literal text around them."""
    out = []
    added = set(c.added)
    budget = [FORMAT_BUDGET]
    for run in _runs(c.new):
        on = [t for t in run if t.row in added]
        if not on or _IMITATE_TEXT.search(''.join(_decode(t.text) for t in run if t.kind == 'str')):
            continue                    # rule_strings names it
        hit = _imitation_by_fill(_template(run), budget)
        if budget[0] < 0:
            out.append(Violation('format string imitates the grader', c.path, on[0].line,
                                 f'more format strings than the policy tries ({FORMAT_BUDGET} fills): '
                                 f'{" ".join(t.text for t in run)}'))
            break
        if hit:
            out.append(Violation('format string imitates the grader', c.path, on[0].line,
                                 f'{" ".join(t.text for t in run)}  (could print {hit!r})'))
    return out


# in the order a verdict names them (it shows the first three)
FILE_RULES: List[Callable[[Change], List[Violation]]] = [
    rule_nul, rule_cr, rule_trigraph, rule_digraph, rule_raw_string, rule_lines, rule_section, rule_paste,
    rule_strings, rule_format]


def source_files(files: Dict[str, Tuple[bytes, bytes]],
                 rules: Optional[List[Callable[[Change], List[Violation]]]] = None) -> List[Violation]:
    """The source policy on FILES, {path: (the lab start's bytes, the
    submission's bytes)} of every changed lab file."""
    bad: List[Violation] = []
    for path in sorted(files):
        old, new = files[path]
        if len(new) > MAX_BYTES:
            bad.append(Violation('file size', path, 0, f'{len(new)} bytes: the source policy reads lab files '
                                 f'of at most {MAX_BYTES} bytes'))
            continue
        c = change(path, old, new)
        for r in (FILE_RULES if rules is None else rules):
            bad += r(c)
    return bad


def reference_files(repo: str, ref: str, paths) -> Dict[str, bytes]:
    """{path: REF's bytes} of PATHS that REF has."""
    out: Dict[str, bytes] = {}
    for path in paths:
        p = subprocess.run(['git', '-C', repo, 'cat-file', 'blob', f'{ref}:{path}'], capture_output=True)
        if p.returncode == 0:
            out[path] = p.stdout
    return out


def changed_files(repo: str, start: str, raw: bytes, env: Optional[dict] = None) -> Dict[str, Tuple[bytes, bytes]]:
    """{path: (START's bytes, the index's bytes)} of every file RAW (git
    diff --cached --raw -z START) shows modified; ENV holds the index
    (GIT_INDEX_FILE)."""
    def blob(rev: str) -> bytes:
        return subprocess.run(['git', '-C', repo, 'cat-file', 'blob', rev], capture_output=True, env=env,
                              check=True).stdout
    return {path: (blob(f'{start}:{path}'), blob(f':{path}'))
            for _, _, status, path in parse_raw(raw) if status[:1] in ('M', 'T')}


# ------------------------------------------------ the diff's added lines
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


def _diff_files(diff: str) -> Dict[str, Tuple[bytes, bytes]]:
    """A diff's added lines as files (each at its line, blank lines between)
    over empty starts: what source() and review() can read of a diff."""
    files: Dict[str, List[str]] = {}
    for path, n, text in added_lines(diff):
        lines = files.setdefault(path, [])
        lines.extend([''] * (n - 1 - len(lines)))
        lines.append(text)
    return {p: (b'', '\n'.join(l).encode('utf-8', 'replace')) for p, l in files.items()}


def source(src) -> List[Violation]:
    """The source policy: on {path: (start, new)} as source_files(), or on
    a git diff -U0's added lines alone (no file around them: weaker; a NUL
    byte hides a file from a diff)."""
    return source_files(src if isinstance(src, dict) else _diff_files(src))


def _line(path: str, n: int, t: str, code: Optional[str] = None) -> Optional[Violation]:
    code = t if code is None else code
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
        elif d in ('if', 'ifdef', 'ifndef', 'elif', 'else', 'elifdef', 'elifndef') and path.endswith('.h'):
            # a header is read by a hundred files that the policy on what
            # the compiler reads does not preprocess: code true only in them
            return Violation('conditional in a header', path, n,
                             t + '  (no lab adds one: the other files that include it are not read)')
    if _HAS_INCLUDE.search(code):
        return Violation('#include', path, n, t + '  (__has_include looks at host paths)')
    if _PRAGMA.search(t):
        return Violation('#pragma', path, n, t)
    if _ASM.search(t) and not (m and m.group(1) == 'include'):      # <asm/page.h> is a header
        return Violation('asm', path, n, t)
    for fam, rx in _IDENT_RES.items():
        if rx.search(t):
            return Violation(f'{fam} identifiers', path, n, t)
    lits = [_decode(lit) for lit in _STRING_TOK.findall(t)]
    # each literal, and the line's literals joined as the compiler joins
    # adjacent ones ("\x6b" "unit": the red team's split escape)
    for d in lits + ([''.join(lits)] if len(lits) > 1 else []):
        for fam, rx in _IDENT_RES.items():
            if fam in ('swaplab', 'kunit', 'debugfs and proc file') and rx.search(d):
                return Violation(f'{fam} name in a string', path, n, f'{t}  (reads {_printable(d)!r})')
    return None


def review(src, reference: Optional[Dict[str, bytes]] = None) -> List[str]:
    """Softer signals for an instructor: not rejected, flagged.  SRC as
    source() takes it; REFERENCE: the lab reference's bytes of each path,
    for the identifiers that neither it nor the lab start uses."""
    files = src if isinstance(src, dict) else _diff_files(src)
    ex: List[str] = []
    new_ids: List[str] = []
    n = 0
    for path in sorted(files):
        old, new = files[path]
        if len(new) > MAX_BYTES:
            continue
        c = change(path, old, new)
        known = {t.text for t in c.old.toks if t.kind == 'id'}
        if reference is not None and path in reference:
            known |= {t.text for t in read_c(reference[path]).toks if t.kind == 'id'}
        added = set(c.added)
        for t in c.new.toks:
            if t.kind == 'id' and t.row in added and t.text not in known:
                known.add(t.text)
                new_ids.append(f'{t.text} ({path}:{t.line})')
        for r in c.rows_added():
            n += 1 + r.text.count('\n')
            if re.search(r'\bEXPORT_SYMBOL', r.code):
                ex.append(f'{path}:{r.line}')
    if not isinstance(src, dict):
        n = len(added_lines(src))
    flags = []
    if new_ids and reference is not None:
        more = f', and {len(new_ids) - 8} more' if len(new_ids) > 8 else ''
        flags.append(f"identifiers neither the lab start nor its reference uses in that file: "
                     f"{', '.join(new_ids[:8])}{more}")
    if ex:
        flags.append(f"new exported symbols ({', '.join(ex[:3])})")
    if n > 600:
        flags.append(f'large change ({n} lines added)')
    return flags
