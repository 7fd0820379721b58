"""Parsers: console logs, SysRq stacks, build logs and KTAP.

Everything here is a pure function of saved files, so it is tested on saved
logs in seconds (tests/unit/test_core.py), without QEMU.
"""
from __future__ import annotations

import bisect
import dataclasses
import importlib
import io
import math
import os
import re
import stat
import subprocess
import sys
from typing import Dict, List, Optional, Tuple

from . import exitcodes
from .envdefaults import defaults
from .labs import ROOT

KERNEL_ERRORS_FILE = os.path.join(ROOT, 'vm', 'kernel-errors')


def load_kernel_errors(path: str = KERNEL_ERRORS_FILE) -> 're.Pattern[str]':
    """The one list of kernel error reports (vm/kernel-errors), which the
    expect scripts read too."""
    pats = []
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.rstrip('\n')
            if line and not line.startswith('#'):
                pats.append(line)
    return re.compile('(' + '|'.join(pats) + ')')


KERNEL_ERROR_RE = load_kernel_errors()

# ---------------------------------------------------------------- text hygiene
_ANSI = re.compile(r'\x1b(\[[0-9;?]*[ -/]*[@-~]|[@-Z\\-_])')
# C0 controls but tab and newline, DEL, C1 controls, what XML 1.0 forbids,
# and the invisible format characters that reorder or hide text on a
# terminal or a page (bidi embeddings, overrides and isolates, zero-width
# characters, the BOM)
_CTRL = re.compile('[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2069'
                   '\ufeff\ud800-\udfff\ufffe\uffff]')


def clean(s: str, keep_newlines: bool = True) -> str:
    """Text safe for every report: no escape sequences, no control
    characters (tab becomes a space), valid for XML 1.0."""
    s = _ANSI.sub('', s).replace('\r', '').replace('\t', ' ')
    if not keep_newlines:
        s = ' '.join(s.split('\n'))
    return _CTRL.sub('', s)


def truncate(s: str, n: int) -> str:
    """At most n characters (not bytes), an ellipsis marking a cut."""
    return s if len(s) <= n else s[:n - 1] + '\u2026'


def read_text(path: str, limit: int = 64 << 20) -> str:
    """A log file as text: UTF-8 with replacement, at most LIMIT bytes (the
    head and the tail, which hold what matters).  A regular file only: a
    FIFO or a device reads as '' (opened without blocking, never read)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            os.close(fd)
            return ''
        size = st.st_size
        with os.fdopen(fd, 'rb') as f:
            if size <= limit:
                data = f.read(size)
            else:
                head = f.read(limit // 2)
                f.seek(size - limit // 2)
                data = head + b'\n[... log cut ...]\n' + f.read(limit // 2)
    except OSError:
        return ''
    return _ANSI.sub('', data.decode('utf-8', errors='replace')).replace('\r', '')


# ---------------------------------------------------------------- console logs
RUNNER_NOTE = re.compile(r'^\[swaplab\] (kernel error on the console: |timeout: |sysrq: |'
                         r'QEMU exited|cannot start QEMU|the guest )')
PRINTK_TS = re.compile(r'^\[ *[0-9]+\.[0-9]+\] ')


@dataclasses.dataclass
class Tagged:
    line: int          # index in Console.lines
    kind: str          # CHECK RESULT METRIC STEP DONE KTAP-BEGIN ...
    words: List[str]   # the words after the kind


@dataclasses.dataclass
class Section:
    """What one check printed: from its CHECK marker to the next."""
    id: str
    start: int                     # line index of its marker (0: whole log)
    end: int                       # line index where it ends (exclusive)
    ended: bool                    # its end marker or DONE came before the cut
    t0: Optional[float] = None     # guest uptime at start and end
    t1: Optional[float] = None
    tagged: List[Tagged] = dataclasses.field(default_factory=list)

    @property
    def seconds(self) -> Optional[float]:
        if self.t0 is None or self.t1 is None:
            return None
        return round(self.t1 - self.t0, 1)

    def results(self) -> List[Tuple[str, str, str]]:
        return [(t.words[0], t.words[1], ' '.join(t.words[2:])) for t in self.tagged
                if t.kind == 'RESULT' and len(t.words) >= 2 and t.words[1] in ('PASS', 'FAIL')]

    def metrics(self) -> Dict[str, str]:
        return {t.words[0]: t.words[1] for t in self.tagged if t.kind == 'METRIC' and len(t.words) >= 2}

    def steps(self) -> List[Tuple[Optional[float], str]]:
        """(guest uptime, what) of each STEP line, in order; the uptime is
        None in logs of guests that did not print it."""
        return [step_words(t.words) for t in self.tagged if t.kind == 'STEP']

    def last_step(self) -> Optional[str]:
        steps = self.steps()
        return steps[-1][1] if steps else None


@dataclasses.dataclass
class Console:
    lines: List[str]
    nonce: str
    rc: int                        # vm/run's exit code: how the boot ended
    cut: int                       # tagged lines at or after this index do not count
    note: str = ''                 # the runner's note at the cut, if any
    tagged: List[Tagged] = dataclasses.field(default_factory=list)

    def kernel_error(self, start: int = 0, end: Optional[int] = None) -> Optional[Tuple[int, str]]:
        """The first kernel error report in lines [start, end), before the cut."""
        end = self.cut if end is None else min(end, self.cut)
        for i in range(start, end):
            if KERNEL_ERROR_RE.search(self.lines[i]):
                return i, self.lines[i]
        return None

    def sections(self) -> List[Section]:
        """One section per CHECK marker; a log without markers is one
        section named '' (a single vm/run test)."""
        marks = [t for t in self.tagged if t.kind == 'CHECK' and t.words]
        if not marks:
            done = any(t.kind == 'DONE' for t in self.tagged)
            s = Section('', 0, self.cut, done, tagged=list(self.tagged))
            return [s]
        out: List[Section] = []
        for i, m in enumerate(marks):
            if m.words[0] == 'end':
                continue
            nxt = marks[i + 1] if i + 1 < len(marks) else None
            end = nxt.line if nxt else self.cut
            s = Section(m.words[0], m.line, end, nxt is not None, t0=_float(m.words, 1),
                        t1=_float(nxt.words, 1) if nxt else None)
            s.tagged = [t for t in self.tagged if m.line < t.line < end]
            out.append(s)
        return out

    def ended_cleanly(self) -> bool:
        """The boot got through every check (CHECK end, or DONE)."""
        return any((t.kind == 'CHECK' and t.words[:1] == ['end']) or t.kind == 'DONE'
                   for t in self.tagged)

    def after_cut(self) -> List[str]:
        return self.lines[self.cut:]


def step_words(words: List[str]) -> Tuple[Optional[float], str]:
    """A STEP line's words: "UPTIME WHAT..." (or "WHAT..." from a guest
    that does not print the uptime) as (uptime, what)."""
    t = _float(words, 0)
    if t is None:
        return None, ' '.join(words)
    return (t if math.isfinite(t) else None), ' '.join(words[1:])


def _float(words: List[str], i: int) -> Optional[float]:
    try:
        return float(words[i])
    except (IndexError, ValueError):
        return None


_TS_ANY = re.compile(r'\[ *[0-9]+\.[0-9]+\] ')


def repair_interleaved(lines: List[str]) -> List[str]:
    """Put back together a guest line that the kernel's printk cut in two.
    printk writes to the serial port directly, so its lines can land in the
    middle of a line the guest is still sending through the tty:
        SWAPLAB cf89b2c6[    9.078791]     KTAP version 1
        [    9.079194]     # Subtest: swaplab-lab03
        d5aee1420fea3556 KTAP-BEGIN 03
    becomes the guest's line, then the kernel's lines."""
    out: List[str] = []
    pending: Optional[int] = None
    for l in lines:
        m = _TS_ANY.search(l)
        if m and m.start() > 0 and not PRINTK_TS.match(l) and not l.startswith('[swaplab]'):
            out.append(l[:m.start()])
            pending = len(out) - 1
            out.append(l[m.start():])
            continue
        if pending is not None and l and not PRINTK_TS.match(l) and not l.startswith(('SWAPLAB', '[swaplab]')):
            out[pending] += l
            pending = None
            continue
        if not PRINTK_TS.match(l):
            pending = None
        out.append(l)
    return out


def parse_console(text: str, nonce: str, rc: int) -> Console:
    """Split a console log (as vm/run's expect script logged it) into lines
    and this run's nonce-tagged lines.  Lines after the runner's note of a
    kernel error or timeout do not count: a check cannot complete after the
    kernel already failed it.  The first such note counts, as in vm/run (a
    guest's look-alike before the runner's only hides its own lines)."""
    lines = repair_interleaved(text.replace('\r', '').split('\n'))
    cut = len(lines)
    note = ''
    if rc in (exitcodes.RUN_KERNEL_ERROR, exitcodes.RUN_TIMEOUT):
        # the first such note, as vm/run reads it: the runner's, or a look-
        # alike the guest printed before it (that only hides its own
        # lines); a look-alike printed after the runner's, while the
        # runner still reads the report, must not move the cut later (red
        # team, 2026-12-07)
        for i, l in enumerate(lines):
            if l.startswith('[swaplab] kernel error on the console: ') or l.startswith('[swaplab] timeout: '):
                cut, note = i, l[len('[swaplab] '):]
                break
    else:
        for i, l in enumerate(lines):
            if RUNNER_NOTE.match(l):
                note = l[len('[swaplab] '):]
                break
    tag = f'SWAPLAB {nonce} '
    tagged = []
    for i in range(cut):
        l = lines[i]
        if l.startswith(tag):
            w = l[len(tag):].split()
            if w:
                tagged.append(Tagged(i, w[0], w[1:]))
    return Console(lines, nonce, rc, cut, note, tagged)


def strip_ts(line: str) -> str:
    return PRINTK_TS.sub('', line)


# ---------------------------------------------------------------- SysRq stacks
class SystemMap:
    """Kernel text symbols from an image's System.map, to name the
    addresses a kernel without KALLSYMS prints in its stack traces."""

    def __init__(self, path: Optional[str]):
        self.addrs: List[int] = []
        self.names: List[str] = []
        if not path or not os.path.exists(path):
            return
        with open(path, encoding='ascii', errors='replace') as f:
            for line in f:
                p = line.split()
                if len(p) >= 3 and p[1] in 'tTwW':
                    try:
                        self.addrs.append(int(p[0], 16))
                        self.names.append(p[2])
                    except ValueError:
                        pass

    def name(self, addr: int) -> Optional[str]:
        i = bisect.bisect_right(self.addrs, addr) - 1
        if i < 0 or addr - self.addrs[i] > 1 << 20:
            return None
        return f'{self.names[i]}+{addr - self.addrs[i]:#x}'


_FRAME = re.compile(r'^\s*(\? )?(0x[0-9a-f]{16}|[A-Za-z_][\w.]*\+0x[0-9a-f]+/0x[0-9a-f]+)')
_RIP = re.compile(r'RIP: [0-9a-f]{4}:(0x[0-9a-f]+|[A-Za-z_][\w.]*\+0x[0-9a-f]+/0x[0-9a-f]+)')
_ADDR = re.compile(r'0xffffffff[0-9a-f]{8}')
# frames that say how a task waits or how the stack was taken, not where
# the kernel under test is stuck
_GENERIC = re.compile(
    r'^(__schedule|schedule|preempt_schedule|_cond_resched|__cond_resched|cond_resched|io_schedule|'
    r'_raw_spin|_raw_read|_raw_write|queued_|native_queued|__pv_queued|pv_|do_raw_spin|lock_acquire|'
    r'lock_release|__lock_acquire|lock_is_held|mutex_lock|__mutex_lock|mutex_unlock|rwsem_|down_|up_|'
    r'__down|wait_for_completion|__wait_for_common|schedule_timeout|do_wait|nmi|__nmi|default_do_nmi|'
    r'do_nmi|exc_|asm_|sysvec_|__sysvec|irq|__irq|handle_|common_interrupt|arch_|show_|dump_|__dump|'
    r'sched_show_task|__sysrq|sysrq|serial8250|uart_|tty_|n_tty|native_|default_idle|cpu_idle|do_idle|'
    r'cpu_startup|start_secondary|secondary_startup|entry_|do_syscall_64|x64_sys_call|'
    r'syscall_exit|ret_from_fork|kthread|vprintk|_printk|printk|console_|__x86_|trace_|lockdep_|'
    r'check_preemption|preempt_count|__might|might_|rcu_|smp_call|kernel_init|rest_init|'
    r'process_timeout|__timer_delete|timer_delete|del_timer|__mod_timer|mod_timer|call_timer_fn|'
    r'start_kernel|x86_64_start|poll_idle|acpi_idle|mwait|native_safe_halt|halt|default_)')


@dataclasses.dataclass
class TaskStack:
    how: str            # "running" (SysRq l) or "blocked" (SysRq w)
    comm: str
    frames: List[str] = dataclasses.field(default_factory=list)   # innermost first
    guessed: List[bool] = dataclasses.field(default_factory=list)
    context: List[str] = dataclasses.field(default_factory=list)  # TASK, IRQ or NMI
    rip: Optional[str] = None

    def chain(self, n: int = 3) -> List[str]:
        """The task's innermost N frames that are not scheduler, locking,
        interrupt or stack-dumping plumbing.  Frames of an interrupt that
        the dump came in (<IRQ>, <NMI>) are not the task's; the RIP is the
        task's only when no interrupt frames were shown.  Frames marked '?'
        are the unwinder's guesses: used only when the trace has no reliable
        frame (a kernel without frame pointers or ORC, like the fast config)."""
        task = [(f, g) for f, g, c in zip(self.frames, self.guessed, self.context) if c == 'TASK']
        if self.rip and len(task) == len(self.frames):
            task.insert(0, (self.rip, False))
        reliable = [f for f, g in task if not g]
        # the reliable frames first; the guesses when those are all
        # plumbing (a RIP in __cond_resched of a task looping in swapoff,
        # with guessed frames only, named nothing: full tier, 2026-12-07)
        for cands in (reliable, [f for f, _ in task]):
            out: List[str] = []
            for f in cands:
                name = f.split('+')[0]
                if not name.startswith('0x') and not _GENERIC.match(name) and name not in out:
                    out.append(name)
                    if len(out) == n:
                        break
            if out:
                return out
        return []

    def stuck_in(self) -> Optional[str]:
        c = self.chain(1)
        return c[0] if c else None


def sysrq_stacks(lines: List[str], smap: Optional[SystemMap] = None) -> List[TaskStack]:
    """The tasks in SysRq w (blocked) and l (running CPUs) output, with their
    frames.  Idle CPUs and tasks with no stack are left out."""
    smap = smap or SystemMap(None)

    def sym(tok: str) -> str:
        if tok.startswith('0x'):
            n = smap.name(int(tok, 16))
            return n or tok
        return tok.split('/')[0]

    out: List[TaskStack] = []
    cur: Optional[TaskStack] = None
    in_trace = False
    ctx = 'TASK'
    for raw in lines:
        l = strip_ts(raw).rstrip()
        # a task's header: SysRq w (blocked) or an NMI backtrace (running)
        m = re.match(r'^task:(\S+)\s+state:\S|^CPU: \d+ PID: \d+ Comm: (\S+)', l)
        if m:
            cur = TaskStack('blocked' if m.group(1) else 'running', m.group(1) or m.group(2))
            out.append(cur)
            in_trace = False
            continue
        if cur is None:
            continue
        m = _RIP.search(l)
        if m and cur.how == 'running' and cur.rip is None and not in_trace:
            cur.rip = sym(m.group(1))
            continue
        if l.strip() == 'Call Trace:':
            in_trace, ctx = True, 'TASK'
            continue
        if in_trace:
            t = l.strip()
            if t in ('<IRQ>', '<NMI>', '<SOFTIRQ>'):
                ctx = t[1:-1]
                continue
            if t.startswith('</') or t == '<TASK>':
                ctx = 'TASK'
                continue
            m = _FRAME.match(l)
            if m:
                cur.frames.append(sym(m.group(2)))
                cur.guessed.append(bool(m.group(1)))
                cur.context.append(ctx)
                continue
            in_trace = False
    return [t for t in out if (t.frames or t.rip) and not t.comm.startswith('swapper/')]


def symbolize(text: str, smap: SystemMap) -> str:
    """Addresses in a trace replaced by symbol+offset."""
    def rep(m: 're.Match[str]') -> str:
        n = smap.name(int(m.group(0), 16))
        return n or m.group(0)
    return _ADDR.sub(rep, text)


def stuck_task(stacks: List[TaskStack]) -> Optional[TaskStack]:
    """The task a hung kernel is stuck in: the first, running ones first,
    whose stack has a frame that is not plumbing (the shells last)."""
    ordered = [t for t in stacks if t.how == 'running'] + [t for t in stacks if t.how == 'blocked']
    for shells in (False, True):
        for t in ordered:
            if t.chain() and (shells or t.comm not in ('init', 'sh')):
                return t
    return None


def stuck_summary(stacks: List[TaskStack]) -> Optional[str]:
    """'stuck in try_to_unuse (swapoff, running)': stuck_task's frames."""
    t = stuck_task(stacks)
    return f"stuck in {' < '.join(t.chain())} ({t.comm}, {t.how})" if t else None


# the kernel's own reports of a hang (vm/kernel-errors lists them too):
# a task blocked for too long, a CPU that does not schedule, an RCU stall
HANG_REPORT = re.compile(r'INFO: task \S+ blocked for more than|soft lockup|hard LOCKUP|'
                         r'INFO: rcu_\w+ (detected|self-detected) stall|rcu: INFO: ')


def hang_stacks(con: Console, start: int, smap: Optional[SystemMap] = None) -> Optional[List[TaskStack]]:
    """The stacks of a boot that hung in the check whose section starts at
    line START: after a timeout, the SysRq stacks the runner asked for;
    after the kernel's own hang report (HANG_REPORT), that report's.  None
    when the boot did not end in a hang."""
    if con.rc == exitcodes.RUN_TIMEOUT:
        return sysrq_stacks(con.after_cut(), smap)
    if con.rc == exitcodes.RUN_KERNEL_ERROR:
        err = con.kernel_error(start)
        if err and HANG_REPORT.search(err[1]):
            return sysrq_stacks(con.lines[err[0]:], smap)
    return None


# ---------------------------------------------------------------- build logs
_GCC_ERR = re.compile(r'^(\S+?):(\d+):(\d+): (fatal )?error: ')
_GCC_WARN = re.compile(r'^(\S+?):(\d+):(\d+): warning: ')


def _short_path(p: str) -> str:
    m = re.search(r'(?:^|/)((?:mm|include|kernel|lib|arch|scripts)/.*)$', p)
    return m.group(1) if m else p


def first_error(text: str) -> Optional[Tuple[str, List[str]]]:
    """The first compiler or make error: the line (paths made relative to
    the tree) and its context (the lines gcc printed with it)."""
    lines = text.split('\n')
    for i, l in enumerate(lines):
        m = _GCC_ERR.match(l)
        if m or re.search(r'(^|\s)(error:|Error \d+)', l):
            if m:
                l = _short_path(m.group(1)) + l[len(m.group(1)):]
            lo = max(0, i - 3)
            ctx = [_shorten_line(x) for x in lines[lo:i + 12]]
            return l, ctx
    return None


def _shorten_line(l: str) -> str:
    m = re.match(r'^(\S+?)(:\d+:\d+: .*)$', l)
    if m:
        return _short_path(m.group(1)) + m.group(2)
    return l


def new_warning(text: str, allowlist: List[str]) -> Optional[Tuple[str, List[str]]]:
    """The first compiler warning in a file a lab may change: the reference
    stages compile those without one, so any is new."""
    lines = text.split('\n')
    for i, l in enumerate(lines):
        m = _GCC_WARN.match(l)
        if m and _short_path(m.group(1)) in allowlist:
            return _shorten_line(l), [_shorten_line(x) for x in lines[max(0, i - 2):i + 8]]
    return None


# ---------------------------------------------------------------- KTAP
_kunit_parser = None


def kunit_parser(repo: Optional[str] = None):
    """The KTAP parser the kernel tree ships (tools/testing/kunit), taken
    from the pristine distro tree (tag 'pristine' of the work repository,
    never a submission's copy), quiet."""
    global _kunit_parser
    if _kunit_parser is not None:
        return _kunit_parser
    repo = repo or os.environ.get('LINUX_REPO') or defaults()['LINUX_REPO']
    cache = os.path.join(os.environ.get('SWAPLAB_CACHE') or defaults()['SWAPLAB_CACHE'], 'kunit-tool')
    files = ('kunit_parser.py', 'kunit_printer.py')
    try:
        blobs = [subprocess.run(['git', '-C', repo, 'rev-parse', f'pristine:tools/testing/kunit/{f}'],
                                check=True, capture_output=True, text=True).stdout.strip() for f in files]
    except (subprocess.CalledProcessError, OSError) as e:
        raise RuntimeError(f'no pristine kernel tree at {repo} to take kunit_parser.py from '
                           f"(run 'make setup'): {e}") from None
    d = os.path.join(cache, blobs[0][:16])
    if not all(os.path.exists(os.path.join(d, f)) for f in files):
        os.makedirs(d, exist_ok=True)
        for f, b in zip(files, blobs):
            data = subprocess.run(['git', '-C', repo, 'cat-file', 'blob', b], check=True,
                                  capture_output=True).stdout
            tmp = os.path.join(d, f'{f}.tmp.{os.getpid()}')    # (grades side by side: grade-all --jobs)
            with open(tmp, 'wb') as out:
                out.write(data)
            os.replace(tmp, os.path.join(d, f))
    sys.path.insert(0, d)
    try:    # (modules of the kernel tree, found only with D on the path: no import statement reaches them)
        kunit_printer = importlib.import_module('kunit_printer')
        kp = importlib.import_module('kunit_parser')
    finally:
        sys.path.remove(d)
    kunit_printer.stdout._output = io.StringIO()   # the parser prints as it goes
    kunit_printer.stdout._use_color = False
    _kunit_parser = kp
    return kp


@dataclasses.dataclass
class KCase:
    name: str
    ok: bool
    status: str
    log: List[str]

    def message(self) -> str:
        """The first failed expectation's own message (the suites'
        messages start 'labNN: '), else the kernel's."""
        for l in self.log:
            s = l.strip().lstrip('#').strip()
            if re.match(r'^lab[0-9]+: ', s):
                return s
        for l in self.log:
            s = l.strip().lstrip('#').strip()
            if 'EXPECTATION FAILED' in s or 'ASSERTION FAILED' in s:
                return s
        return f'{self.status.lower()} (see the KTAP log)'


@dataclasses.dataclass
class KSuite:
    name: str
    found: bool
    cases: List[KCase]
    errors: int
    lines: List[str]


def ktap_block(lines: List[str], suite: str) -> List[str]:
    """The suite's KTAP lines as the kernel printed them (printk lines only,
    timestamps removed), from its 'KTAP version' header to its result line."""
    out: List[str] = []
    on = False
    for i, raw in enumerate(lines):
        if not PRINTK_TS.match(raw):
            continue
        l = strip_ts(raw).rstrip()
        if not on:
            if l.strip() == f'# Subtest: {suite}':
                on = True
                if out == [] and i > 0 and strip_ts(lines[i - 1]).strip().startswith('KTAP version'):
                    out.append(strip_ts(lines[i - 1]).rstrip())
                out.append(l)
            continue
        out.append(l)
        if re.match(rf'^(not )?ok [0-9]+ {re.escape(suite)}$', l.strip()):
            break
    return out


def parse_ktap(lines: List[str], suite: str) -> KSuite:
    """Parse one suite's KTAP with the kernel's own parser."""
    block = ktap_block(lines, suite)
    if not block:
        return KSuite(suite, False, [], 0, [])
    kp = kunit_parser()
    # the executor's top-level header, as a boot-time run would print it;
    # kunit numbers suites run through debugfs on from the boot's first, so
    # the suite's own result line becomes test 1 of this one-suite plan
    last = re.sub(r'^(\s*(?:not )?ok) [0-9]+ ', r'\1 1 ', block[-1])
    test = kp.parse_run_tests(['KTAP version 1', '1..1'] + block[:-1] + [last])
    st = test.subtests[0] if test.subtests else None
    if st is None:
        return KSuite(suite, False, [], test.counts.errors, block)
    cases = [KCase(c.name, c.status == kp.TestStatus.SUCCESS, c.status.name, list(c.log))
             for c in st.subtests]
    return KSuite(st.name, True, cases, test.counts.errors, block)
