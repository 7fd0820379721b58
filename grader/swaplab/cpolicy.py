"""The policy on what the compiler reads: each lab file as gcc preprocesses
it (gcc -E -dD inside the sandbox, scripts/cpp-dump), the submission's
against the lab start's.

The white-box suites are appended to the lab files (scripts/overlay), so
everything the submission defines before the suite's include point is in
the suite's preprocessor state.  Two rules follow:

  macros   the macro table at the suite's include point must be the lab
           start's, except (a) macros that the lab's reference itself adds,
           changes or removes in the lab's files (the student writes those:
           their bodies may not use position-dependent builtins or
           forbidden identifiers), (b) new integer constants under names
           that the start's whole translation unit (suite included) never
           uses, and (c) integer constants of the lab's own files given
           another integer value, unless the suite's source reads them
           (directly or through another macro: SWAP_BATCH may not become
           1 under the batch tests).  Anything else -- a function-like macro
           over a kernel function, a redefined builtin, a macro named like
           something the suite calls -- could rewrite the suite.
  tokens   what the compiler reads before the suite, after every macro is
           expanded (pastes and splices included): no more identifiers of
           the usermode helper, in-kernel file I/O, KUnit or the kit than
           the start has, no lockdep identifier the start's unit never
           uses, no new string literal (adjacent ones joined) that imitates
           a result or KTAP line, no section name the start does not use,
           no #pragma (a _Pragma, pasted or not) the start does not have,
           no new asm template with more than instructions and labels
           (asm_problem: a directive, a line for a generated header, a
           '#' or a backslash, a name of the kit).
A violation rejects the submission with the rule named.
"""
from __future__ import annotations

import collections
import dataclasses
import os
import pickle
import re
import subprocess
import sys
from typing import Dict, List, Optional, Set

from . import policy
from .labs import ROOT, allowlist

# the line the overlay puts before each suite's #include (scripts/overlay)
CUT = 'SWAPLAB_LAB'
CACHE_VERSION = 5      # of the parsed start units kept beside the dumps
# what tells one expansion of a macro from another: its place, its caller
POSITIONAL = {'__LINE__', '__COUNTER__', '__FILE__', '__BASE_FILE__', '__FILE_NAME__', '__INCLUDE_LEVEL__',
              '__TIMESTAMP__', '__DATE__', '__TIME__', '__func__', '__FUNCTION__', '__PRETTY_FUNCTION__',
              '_RET_IP_', '_THIS_IP_'}
# identifier families counted against the start (no kernel macro the labs
# use expands to them); lockdep's are judged as a set, since spin_lock_init
# and lockdep_assert_held expand to lockdep identifiers on the debug kernel
COUNTED = ('usermode helper', 'file I/O', 'kunit', 'swaplab', 'debugfs and proc file', 'caller detection',
           'symbol aliasing and lookup', 'console control')

_TOKEN = re.compile(r'(?:[LUu]|u8)?"(?:[^"\\\n]|\\.)*"|(?:[LUu]|u8)?\'(?:[^\'\\\n]|\\.)*\'|'
                    r'\.?[0-9](?:[eEpP][+-]|[\w.])*|[A-Za-z_]\w*|##|\S')
_STR = policy._STRING_TOK        # one string literal token, as the source policy lexes it
# a run of adjacent string literals (with their prefixes), as the compiler joins them
_STRRUN = re.compile(r'(?:(?:[LUu]|u8)?"(?:[^"\\\n]|\\.)*"\s*)+')
_SECTION = re.compile(r'\b__section__\s*\(\s*((?:"(?:[^"\\\n]|\\.)*"\s*)+)\)')
# an asm statement (or asm label) and its template, adjacent literals joined
_ASM = re.compile(r'\b(?:__asm__|__asm|asm)\b\s*(?:(?:volatile|__volatile__|__volatile|inline|__inline|__inline__|goto)'
                  r'\b\s*)*\(\s*(' + _STRRUN.pattern + ')')
_ASM_ESC = {'n': '\n', 't': '\t', '\\': '\\', '"': '"', "'": "'", '0': '\0'}
_ASM_LABEL = re.compile(r'\s*[A-Za-z0-9_.$]+:')
_DIGITS = re.compile(r'[0-9]+')
_IDENTS = re.compile(r'\b[A-Za-z_]\w*')
_STRIP = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|\b[0-9][\w.]*')
_DEFINE = re.compile(r'#\s*define\s+([A-Za-z_]\w*)(\([^)]*\))?\s?(.*)\Z', re.S)
_UNDEF = re.compile(r'#\s*undef\s+([A-Za-z_]\w*)')
_MARKER = re.compile(r'#\s*(?:line\s+)?([0-9]+)\s+"((?:[^"\\]|\\.)*)"')
# a path in the tree, without the folder the tree was in
_TREE = re.compile(r'^/.*?/(?=(?:mm|include|arch)/)')
_KERN = re.compile(r'\\0*1.')        # a printk level: KERN_SOH and its letter
_INT = re.compile(r'(?:0[xX][0-9a-fA-F]+|[0-9]+)[uUlL]*\Z')
_INT_OPS = set('()+-*/%<>&|^~!?:') | {'<<', '>>'}


@dataclasses.dataclass
class Violation:
    rule: str
    where: str
    text: str

    def __str__(self) -> str:
        return f'{self.rule}: {self.where}: {self.text.strip()[:160]}'


@dataclasses.dataclass
class Macro:
    params: Optional[str]     # None: object-like
    body: str
    where: str                # file:line of the definition

    def same(self, o: 'Macro') -> bool:
        return self.params == o.params and self.body.split() == o.body.split()

    def text(self, name: str) -> str:
        return f"#define {name}{self.params or ''} {self.body}"


@dataclasses.dataclass
class Unit:
    """One preprocessed file: the macro table at the suite's include point,
    the identifiers of the whole unit, and the tokens before the suite."""
    macros: Dict[str, Macro]
    idents: Set[str]
    before: collections.Counter          # identifiers before the suite
    strings: collections.Counter         # string literals before it (joined)
    sections: Set[str]
    cut: bool                            # the include point was found
    pragmas: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    asms: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    decoded: Set[str] = dataclasses.field(default_factory=set)   # the strings, escapes decoded


def asm_text(template: str) -> str:
    """An asm template as the assembler reads it: C escapes decoded."""
    return re.sub(r'\\(.)', lambda m: _ASM_ESC.get(m.group(1), '\\' + m.group(1)), template)


def asm_problem(template: str) -> Optional[str]:
    """What a template the lab start's unit does not have may not hold:
    assembler directives (.set, .incbin, .pushsection...: they define
    symbols, pull in files, fill sections), a line kbuild copies into a
    generated header ("->": asm-offsets.h, which the linker script
    includes), a '#' or a backslash (a comment, a directive or a splice
    once that header is preprocessed), or a name of the kit or KUnit.
    Instructions and labels only: the templates of the kernel's own
    helpers that a lab uses are in the start's unit already."""
    text = asm_text(template)
    for ch, why in (('->', 'a line kbuild copies into a generated header'), ('#', "a '#'"),
                    ('\\', 'a backslash')):
        if ch in text:
            return why
    for stmt in re.split(r'[\n;]', text):
        while True:
            m = _ASM_LABEL.match(stmt)
            if not m:
                break
            stmt = stmt[m.end():]
        if stmt.strip().startswith('.'):
            return f'an assembler directive ({stmt.strip().split()[0]})'
    fam = [f for f, rx in policy._IDENT_RES.items() if rx.search(text)]
    if fam or policy._IMITATE.search(text):
        return f'{fam[0] if fam else "kit or KUnit"} names'
    return None


def tokens(text: str) -> List[str]:
    return _TOKEN.findall(text)


def _unquote(tok: str) -> str:
    return tok[tok.index('"') + 1:-1]


def _joined(run: str) -> str:
    """A run of adjacent string literals, joined as the compiler joins them."""
    return ''.join(_unquote(t) for t in _STR.findall(run))


def parse(text: str) -> Unit:
    """A gcc -E -dD output."""
    lines = text.split('\n')
    cut_at = -1
    for i, l in enumerate(lines):
        if l.startswith('#define ' + CUT + ' '):
            cut_at = i
    macros: Dict[str, Macro] = {}
    defined: Set[str] = set()            # every name defined anywhere (include guards too)
    pragmas: collections.Counter = collections.Counter()
    where, n = '?', 0
    code: List[List[str]] = [[], []]     # the code lines before the suite, after it
    for i, l in enumerate(lines):
        in_region = cut_at < 0 or i < cut_at
        if not l.startswith('#'):
            code[0 if in_region else 1].append(l)
            n += 1
            continue
        m = _MARKER.match(l)
        if m:
            where, n = _TREE.sub('', m.group(2)), int(m.group(1))
            continue
        n += 1
        d = _DEFINE.match(l)
        if d:
            defined.add(d.group(1))
        if in_region and l.startswith('#pragma'):
            pragmas[' '.join(l.split())] += 1
        elif in_region:
            d = _DEFINE.match(l)
            if d:
                macros[d.group(1)] = Macro(d.group(2), d.group(3), f'{where}:{n - 1}')
            else:
                u = _UNDEF.match(l)
                if u:
                    macros.pop(u.group(1), None)
    text = '\n'.join(code[0])
    strings = collections.Counter(_joined(m.group(0)) for m in _STRRUN.finditer(text))
    sections = {_joined(m) for m in _SECTION.findall(text)}
    asms = collections.Counter(_joined(m) for m in _ASM.findall(text))
    before = collections.Counter(_IDENTS.findall(_STRIP.sub(' ', text)))
    idents = set(before) | set(_IDENTS.findall(_STRIP.sub(' ', '\n'.join(code[1])))) | defined
    decoded = {''.join(policy._decode(t) for t in _STR.findall(m.group(0))) for m in _STRRUN.finditer(text)}
    return Unit(macros, idents, before, strings, sections, cut_at >= 0, pragmas, asms, decoded)


def is_int_constant(body: str, table: Dict[str, Macro], depth: int = 0) -> bool:
    """BODY is an integer constant expression: integer literals, operators,
    parentheses, and object-like macros that are integer constants."""
    toks = tokens(body)
    if not toks or depth > 16:
        return False
    for t in toks:
        if _INT.match(t) or t in _INT_OPS:
            continue
        m = table.get(t)
        if m is None or m.params is not None or not is_int_constant(m.body, table, depth + 1):
            return False
    return True


def _families(text: str) -> List[str]:
    joined = re.sub(r'\s*##\s*', '', text)
    return [fam for fam, rx in policy._IDENT_RES.items() if rx.search(joined)]


def reach(names: Set[str], table: Dict[str, Macro]) -> Set[str]:
    """NAMES and every macro their expansions can name, through TABLE."""
    seen: Set[str] = set()
    todo = [n for n in names if n in table]
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        todo += [t for t in _IDENTS.findall(_STRIP.sub(' ', table[n].body)) if t in table and t not in seen]
    return seen | set(names)


def suite_idents(root: str) -> Set[str]:
    """The identifiers of the white-box suites' own source (grader/kunit)."""
    out: Set[str] = set()
    d = os.path.join(root, 'grader', 'kunit')
    for f in sorted(os.listdir(d)):
        if f.endswith('.c'):
            with open(os.path.join(d, f), encoding='utf-8') as h:
                text = re.sub(r'/\*.*?\*/|//[^\n]*', ' ', h.read(), flags=re.S)
            out |= set(_IDENTS.findall(_STRIP.sub(' ', text)))
    return out


def _in_files(where: str, files: List[str]) -> bool:
    """WHERE (file:line) is in one of FILES (paths in the tree)."""
    path = where.rsplit(':', 1)[0]
    return any(path == f or path.endswith('/' + f) for f in files)


def check(start: Unit, sub: Unit, sanctioned: Set[str], own_files: List[str], path: str,
          suite: Optional[Set[str]] = None) -> List[Violation]:
    """The violations of SUB (the submission's preprocessed PATH) against
    START; SANCTIONED: the macros the lab's reference changes; OWN_FILES:
    the lab's files (their integer constants may change value, unless the
    suite's own identifiers, SUITE, reach them through the macro table)."""
    bad: List[Violation] = []
    read_by_suite = reach(suite or set(), start.macros) | reach(suite or set(), sub.macros)
    if sub.cut != start.cut:
        return [Violation('what the compiler reads', path, "the suite's include point is missing")]
    # -- macros at the suite's include point (a file without a suite: none)
    for name in sorted(set(start.macros) | set(sub.macros)) if start.cut else []:
        old, new = start.macros.get(name), sub.macros.get(name)
        if old is not None and new is not None and old.same(new):
            continue
        what = new.text(name) if new else f'#undef {name} (defined at {old.where})'
        at = new.where if new else path
        if name in sanctioned:
            if new is not None:
                toks = set(tokens(new.body))
                pos = sorted((toks & POSITIONAL) | {t for t in toks if t.startswith('__builtin_')})
                if pos:
                    bad.append(Violation('macro uses a position builtin', at, f'{what}  ({", ".join(pos)})'))
                fam = _families(new.body)
                if fam:
                    bad.append(Violation(f'{fam[0]} identifiers in a macro', at, what))
            continue
        if new is not None and new.params is None and is_int_constant(new.body, sub.macros):
            if old is None and name not in start.idents:
                continue          # a new constant under a name nobody uses
            if old is not None and old.params is None and is_int_constant(old.body, start.macros) and \
                    _in_files(new.where, own_files) and \
                    name not in read_by_suite:
                continue          # a constant of the lab's own files that the suite does not read, retuned
        how = 'adds' if old is None else ('removes' if new is None else 'changes')
        bad.append(Violation('macro could rewrite the suite', at,
                             f'the submission {how} {name}, which the lab\'s reference does not: {what}'))
    # -- the tokens before the suite
    for name, cnt in sorted(sub.before.items()):
        fam = [f for f, rx in policy._IDENT_RES.items() if rx.fullmatch(name)]
        if not fam:
            continue
        if fam[0] in COUNTED:
            if cnt > start.before.get(name, 0):
                bad.append(Violation(f'{fam[0]} identifiers in what the compiler reads', path,
                                     f'{name} ({cnt} against {start.before.get(name, 0)} in the lab start)'))
        elif name not in start.idents:
            bad.append(Violation(f'{fam[0]} identifiers in what the compiler reads', path, name))
    flagged = False
    for s in sorted(set(sub.strings) - set(start.strings)):
        if policy._IMITATE.search(_KERN.sub('', s).replace('\\n', '\n')):
            bad.append(Violation('imitates the grader (in what the compiler reads)', path, repr(s)))
            flagged = True
    # and as the compiler decodes each literal before joining them
    # ("\x6b" "unit" is kunit: the red team's escape of 2026-12-07)
    for s in sorted(sub.decoded - start.decoded):
        if not flagged and policy._IMITATE.search(re.sub('\x01.', '', s)):
            bad.append(Violation('imitates the grader (in what the compiler reads)', path,
                                 f'{policy._printable(s)!r} (escapes decoded)'))
            break
    for p, cnt in sorted(sub.pragmas.items()):
        # _Pragma, pasted or not, comes out as #pragma: push_macro and
        # pop_macro change macros without a #define, diagnostics hide warnings
        if cnt > start.pragmas.get(p, 0):
            bad.append(Violation('#pragma (in what the compiler reads)', path, p))
    # (numbers aside: the kernel's own templates carry __COUNTER__ and
    # __LINE__, an initcall's "__initcall__kmod_swapfile__369_3583_...",
    # which move with every line a submission adds)
    known = {_DIGITS.sub('0', t) for t in start.asms}
    for t in sorted(t for t in sub.asms if _DIGITS.sub('0', t) not in known):
        why = asm_problem(t)
        if why:
            bad.append(Violation('asm (in what the compiler reads)', path,
                                 f'a new asm template with {why}: {asm_text(t)!r}'))
    for s in sorted(sub.sections - start.sections):
        bad.append(Violation('section (in what the compiler reads)', path, f'new section "{s}"'))
    return bad


# ---------------------------------------------------------------- sanctioned
_DEF_LINE = re.compile(r'^\s*#\s*define\s+([A-Za-z_]\w*)(\([^)]*\))?(.*)$')


def defines(src: str) -> Dict[str, str]:
    """The #define lines of a C file (splices joined, comments dropped):
    name -> parameters and body, whitespace collapsed."""
    src = re.sub(r'\\[ \t\f\v]*\n', '', src)
    src = re.sub(r'/\*.*?\*/', ' ', src, flags=re.S)
    out: Dict[str, str] = {}
    for l in src.split('\n'):
        m = _DEF_LINE.match(l.split('//')[0])
        if m:
            out[m.group(1)] = f"{m.group(2) or ''} {' '.join(m.group(3).split())}"
    return out


def sanctioned(start: Dict[str, str], ref: Dict[str, str]) -> Set[str]:
    """The macros the reference adds, changes or removes (per file, merged)."""
    return {n for n in set(start) | set(ref) if start.get(n) != ref.get(n)}


def _git_blob(repo: str, rev: str, path: str) -> str:
    p = subprocess.run(['git', '-C', repo, 'cat-file', 'blob', f'{rev}:{path}'], capture_output=True)
    return p.stdout.decode('utf-8', 'replace') if p.returncode == 0 else ''


def sanctioned_for(repo: str, start: str, ref: str, lab: str) -> Set[str]:
    out: Set[str] = set()
    for path in allowlist(lab):
        out |= sanctioned(defines(_git_blob(repo, start, path)), defines(_git_blob(repo, ref, path)))
    return out


def _start_unit(path: str) -> Unit:
    """The lab start's unit, parsed once (the kit's own cache, beside it)."""
    cache = f'{path}.v{CACHE_VERSION}.pickle'
    try:
        with open(cache, 'rb') as h:
            u = pickle.load(h)
        if isinstance(u, Unit):
            return u
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError):
        pass
    with open(path, encoding='utf-8', errors='replace') as h:
        u = parse(h.read())
    try:
        tmp = f'{cache}.tmp.{os.getpid()}'      # (grades side by side: grade-all --jobs)
        with open(tmp, 'wb') as h:
            pickle.dump(u, h)
        os.replace(tmp, cache)
    except OSError:
        pass
    return u


def main(argv: List[str]) -> int:
    """cpolicy LAB START_DIR SUB_DIR START_REV REF_REV: compare every F.i of
    SUB_DIR with START_DIR's; print violations, exit 1 when any."""
    if len(argv) != 5:
        print('usage: python3 -m swaplab.cpolicy LAB START_DIR SUB_DIR START_REV REF_REV', file=sys.stderr)
        return 2
    lab, sdir, udir, srev, rrev = argv
    repo = os.environ.get('LINUX_REPO', '')
    sanc = sanctioned_for(repo, srev, rrev, lab)
    own = allowlist(lab)
    suite = suite_idents(ROOT)
    bad: List[Violation] = []
    files = sorted(f for f in os.listdir(udir) if f.endswith('.i'))
    if not files:
        print('what the compiler reads: nothing was preprocessed', file=sys.stderr)
        return 2
    for f in files:
        path = 'mm/' + f[:-2] + '.c'
        with open(os.path.join(udir, f), 'rb') as h:
            raw = h.read()
        with open(os.path.join(sdir, f), 'rb') as h:
            if h.read() == raw:
                continue          # read exactly as the start's
        st = _start_unit(os.path.join(sdir, f))
        su = parse(raw.decode('utf-8', 'replace'))
        bad += check(st, su, sanc, own, path, suite)
    seen = set()
    for v in bad:
        if str(v) not in seen:
            seen.add(str(v))
            print(v)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
