"""Time limits: how long a grade lets a check, a step of a check, the build
and the policy run.

  limits          each guest check's limit (grader/limits.tsv, "ID" rows)
  grade_limit     a submission's in grade-all and Gradescope ("grade:NN")
  step_limits     each known step's limit ("step:KIND" rows of the same file)
  STEP_KINDS      the steps with a limit of their own, and the guest's text
                  for each (a glob: vm/expect/run-test.exp matches it)
  step_kind       which of them a step's text is
  step_durations  how long each known step took in a boot's console (what
                  scripts/author/measure-limits measures the step limits from)
  limits_file     the per-check and per-step limits of one grouped boot, as
                  vm/run --limits reads them
  step_timeout    whether the runner stopped a boot at a step's limit
  scaled          a limit times the limit scale (SWAPLAB_LIMIT_SCALE,
                  pipeline.limit_scale)

Every limit is measured on the reference stages with one rule
(scripts/author/measure-limits): the longest time a reference took, times 5, at
least a floor (60 s for a check, 10 s for a step).  A step limit is what
stops a kernel whose swapoff never returns within seconds of the step's
start, instead of at its check's limit.
"""
from __future__ import annotations

import fnmatch
import math
import os
from typing import Dict, Iterable, List, Optional, Tuple

from . import logs
from .labs import ROOT
from .tsv import TableError, rows

LIMITS_FILE = os.path.join(ROOT, 'grader', 'limits.tsv')

# the steps that take a second or less on every reference stage, and how
# the guest names them (vm/guest/swaplab.sh's swaptest and swapoff
# wrappers, swaptest pageout's passes): (KIND, GLOB)
STEP_KINDS: Tuple[Tuple[str, str], ...] = (
    ('swapon', 'swaptest swapon *'),
    ('swapoff', 'swapoff /*'),
    ('refault', 'refault pass *'),
)


def _rows(path: str = LIMITS_FILE) -> Dict[str, int]:
    """{ID: LIMIT} of the table (none when the file is missing); a
    malformed row is a TableError, not a check left without its limit."""
    out: Dict[str, int] = {}
    try:
        for n, w in rows(path, 2, 3, 'ID LIMIT MEASURED'):
            try:
                out[w[0]] = int(w[1])
            except ValueError:
                raise TableError(f'{path}:{n}: {w[0]}: LIMIT {w[1]!r} is not a whole number of seconds') from None
    except FileNotFoundError:
        pass
    return out


def limits(path: str = LIMITS_FILE) -> Dict[str, int]:
    """grader/limits.tsv: each guest check's time limit, measured on the
    reference stages (scripts/author/measure-limits)."""
    return {k: v for k, v in _rows(path).items() if ':' not in k}


# a submission's time limit in grade-all and the Gradescope bundle: the
# longest honest grade of its lab (the lab's answer graded with --patch,
# latency included, built from the lab's warm base: "grade:NN" rows,
# scripts/author/measure-limits) times GRADE_FACTOR, at least GRADE_FLOOR;
# GRADE_DEFAULT for a lab with no such row
GRADE_FACTOR, GRADE_FLOOR, GRADE_DEFAULT = 3, 600, 1800


def grade_limit(lab: str, path: str = LIMITS_FILE) -> int:
    """The default time limit of one submission of lab LAB (seconds)."""
    return _rows(path).get(f'grade:{lab}', GRADE_DEFAULT)


def step_limits(path: str = LIMITS_FILE) -> Dict[str, int]:
    """The "step:KIND" rows of grader/limits.tsv: {KIND: seconds}."""
    return {k[len('step:'):]: v for k, v in _rows(path).items() if k.startswith('step:')}


def step_kind(what: str) -> Optional[str]:
    """The kind of a step from its text ('swapoff /dev/pmem0': swapoff),
    None for a step with no limit of its own."""
    for kind, glob in STEP_KINDS:
        if fnmatch.fnmatchcase(what, glob):
            return kind
    return None


def step_durations(con: logs.Console) -> Dict[str, float]:
    """{KIND: the longest time a step of that kind took} in a boot's
    console: from its STEP line to the next STEP or CHECK marker, in guest
    uptime.  A step with no end in the log (the boot ended in it) is not
    counted."""
    out: Dict[str, float] = {}
    for sec in con.sections():
        steps = sec.steps()
        for i, (t, what) in enumerate(steps):
            kind = step_kind(what)
            if kind is None or t is None:
                continue
            end = steps[i + 1][0] if i + 1 < len(steps) else (sec.t1 if sec.ended else None)
            if end is not None and end >= t:
                out[kind] = max(out.get(kind, 0.0), round(end - t, 2))
    return out


# the host seconds a boot of a group is allowed besides its checks' limits
# (QEMU's start, the kernel's boot to the READY line, the swap set-up and
# the runner's wait after the end: 3-10 s a boot under TCG here)
BOOT_ALLOWANCE = 15


def group_budget(check_limits: List[int]) -> int:
    """The host seconds all the boots of one group may take together
    (run.run_group): one boot of every check (the sum of their limits,
    plus the longest for the boot's start and end) and a boot's allowance
    for each check (each may end up booting alone)."""
    if not check_limits:
        return 0
    return sum(check_limits) + max(check_limits) + BOOT_ALLOWANCE * len(check_limits)


# the kernel's own hang detectors as vm/configs/fast.config sets them:
# a task blocked this long (s), a CPU in the kernel 2 x watchdog_thresh, an
# RCU grace period held up this long
HUNG_TASK_SECS, WATCHDOG_THRESH, RCU_STALL_SECS = 10, 10, 20


def detector_args(scale: float) -> str:
    """Kernel command-line words that scale the guest's hang detectors as
    the grade's limits are (SWAPLAB_LIMIT_SCALE: grade-all --jobs, a slow
    host): a starved vCPU must not make an honest kernel report a hang.
    Empty at scale 1 (the configs' own values)."""
    if scale <= 1:
        return ''
    up = lambda v: int(math.ceil(v * scale - 1e-9))    # noqa: E731
    return (f'sysctl.kernel.hung_task_timeout_secs={up(HUNG_TASK_SECS)} watchdog_thresh={up(WATCHDOG_THRESH)} '
            f'rcupdate.rcu_cpu_stall_timeout={min(300, up(RCU_STALL_SECS))}')


def limits_file(path: str, checks: Iterable[Tuple[str, int]], steps: Dict[str, int],
                cap: Optional[int] = None) -> str:
    """Write the limits of one grouped boot for vm/run --limits: a "check
    ID SECS" line per check, a "step KIND SECS GLOB" line per known step
    that has a limit, and with CAP a "cap SECS" line: the most the boot may
    run once the guest is up (what is left of its group's time).  Returns
    PATH."""
    with open(path, 'w', encoding='utf-8') as f:
        for cid, secs in checks:
            f.write(f'check\t{cid}\t{int(secs)}\n')
        if cap is not None:
            f.write(f'cap\t{max(int(cap), 1)}\n')
        for kind, glob in STEP_KINDS:
            if kind in steps:
                f.write(f'step\t{kind}\t{int(steps[kind])}\t{glob}\n')
    return path


def scaled(seconds: float, scale: float) -> int:
    """SECONDS times SCALE, whole seconds, rounded up."""
    return int(math.ceil(seconds * scale - 1e-9))


def _after(note: str) -> Optional[int]:
    """S of the runner's "... (after S s)" note, else None."""
    if not note.endswith(' s)') or '(after ' not in note:
        return None
    try:
        return int(note.rsplit('(after ', 1)[1].split()[0])
    except (IndexError, ValueError):
        return None


def step_timeout(note: str) -> Optional[Tuple[str, int]]:
    """(KIND, seconds) when the runner's note says a step ran past its own
    limit (vm/expect/run-test.exp: "timeout: step KIND of check ID did not
    finish (after S s)"), else None."""
    w = note.split()
    secs = _after(note)
    if len(w) >= 3 and w[:2] == ['timeout:', 'step'] and secs is not None:
        return w[2], secs
    return None


def run_spent(note: str) -> Optional[int]:
    """The seconds a boot ran when the runner's note says it used up its
    whole time (the sum of its checks' limits): vm/expect/run-test.exp's
    "... did not finish within the run's limit (after S s)"; else None."""
    if note.startswith('timeout: ') and " within the run's limit (after " in note:
        return _after(note)
    return None
