"""Execution: guest boots.  The work itself is done by the kit's bash/expect
plumbing (vm/run); this module starts it (through procs, which keeps track
of every child so an interrupt can stop them all), groups the checks into
boots with their time limits, and hands the logs to the parsers and the
verdict functions.  The kernel builds are kernels.py's."""
from __future__ import annotations

import dataclasses
import os
import secrets
import subprocess
import time
from typing import Dict, List, Optional, Set, Tuple

from . import logs, timelimits, verdict
from .checks import ROOT, Check
from .procs import _children, note, popen, wait
from .verdict import Record

# ---------------------------------------------------------------- boots
def new_nonce() -> str:
    return secrets.token_hex(12)


SANDBOX_QEMU = True     # the grader boots every kernel in the sandbox (vm/run --sandbox)


def vm_run(img: str, test: str, log: str, nonce: str, *, mode: str = 'pmem', pmem: str = '512M',
           timeout: int = 600, cpus: Optional[int] = None, append: str = '', out_log: str = '',
           on_check=None, limits: str = '') -> int:
    """Boot IMG and run the guest script TEST; the console goes to LOG.
    Returns vm/run's exit code: how the boot ended (the verdict is decided
    from the log, by the caller)."""
    cmd = [os.path.join(ROOT, 'vm', 'run'), '--kernel', img, '--test', test, '--swap', mode, '--pmem', pmem,
           '--quiet', '--log', log, '--timeout', str(timeout), '--nonce', nonce]
    if SANDBOX_QEMU:
        cmd += ['--sandbox']
    if cpus:
        cmd += ['--cpus', str(cpus)]
    if append:
        cmd += ['--append', append]
    if limits:
        cmd += ['--limits', limits]
    with open(out_log or os.devnull, 'ab') as o:
        p = popen(cmd, stdout=o, stderr=subprocess.STDOUT)
        if on_check is None:
            return wait(p)
        # follow the console: say when each check starts
        tag, pos, buf = f'SWAPLAB {nonce} CHECK '.encode(), 0, b''
        while True:
            try:
                rc = p.wait(0.5)
            except subprocess.TimeoutExpired:
                rc = None
            try:
                with open(log, 'rb') as f:
                    f.seek(pos)
                    data = f.read(1 << 20)
                    pos += len(data)
            except OSError:
                data = b''
            buf += data
            *done, buf = buf.split(b'\n')
            for l in done:
                if l.startswith(tag):
                    w = l[len(tag):].split()
                    if w and w[0] != b'end':
                        on_check(w[0].decode('utf-8', 'replace'))
            if rc is not None:
                if p in _children:
                    _children.remove(p)
                return rc


@dataclasses.dataclass
class Entry:
    """One check in a grouped boot."""
    id: str
    check: Check
    mode: str            # its own swap mode (rot rides in a pmem boot)
    script: str
    args: List[str]


# the step between two checks of a boot: the grader's plumbing, not the
# check's own work
TRANSITION = 'swapoff, then fresh swap for the next check'


def own_step(e: 'Entry') -> str:
    """The step that starts a check's own script in a grouped boot."""
    return f'script {e.script}'


def group_script(entries: List[Entry], boot_mode: str) -> str:
    """One guest script running ENTRIES in order, each as its own process,
    on freshly made swap, between nonce-tagged CHECK markers."""
    out = ['. /lib/swaplab.sh']
    for i, e in enumerate(entries):
        if i > 0 or e.mode != boot_mode:
            out.append(f'step "{TRANSITION}"; swapoff_all')
        out.append(f'echo "SWAPLAB $SWAPLAB_NONCE CHECK {e.id} $(cut -d\' \' -f1 /proc/uptime)"')
        if i > 0 or e.mode != boot_mode:
            out.append(f"swap_setup {e.mode} >/dev/null || fail {e.id} 'could not set up {e.mode} swap'")
        path = os.path.join(ROOT, 'tests', 'guest', e.script)
        with open(path, encoding='utf-8') as f:
            body = f.read()
        if 'SWAPLAB_CHECK_EOF' in body:
            raise ValueError(f'{path} may not contain SWAPLAB_CHECK_EOF')
        out.append("cat >/tmp/check.sh <<'SWAPLAB_CHECK_EOF'")
        out.append(body.rstrip('\n'))
        out.append('SWAPLAB_CHECK_EOF')
        # where the check's own work starts: a hang before it is the set-up's
        out.append(f'step "{own_step(e)}"')
        out.append('sh /tmp/check.sh' + ''.join(f' {a}' for a in e.args))
    out.append('echo "SWAPLAB $SWAPLAB_NONCE CHECK end $(cut -d\' \' -f1 /proc/uptime)"')
    return '\n'.join(out) + '\n'


@dataclasses.dataclass
class Hangs:
    """How one kernel hung, across its boots.
      - A kernel that hangs in the same function (the innermost frame of
        the stuck task) in two checks in a row is not booted again for the
        rest of its checks: each would only hang once more, at a limit's
        cost (stop).
      - A hang in the swapoff between two checks (the grader's TRANSITION,
        after the check's own work) is the swapoff's, not the next
        check's: from then on each check boots alone, with no swapoff
        between checks to hang in (isolate)."""
    last: Optional[Tuple[str, str]] = None     # (function, check) of the last check, if it hung
    stop: Optional[Tuple[str, str]] = None     # (function, first check) once it hung twice
    isolate: bool = False

    def see(self, cid: str, func: Optional[str]) -> None:
        """A check's ending: FUNC, where it hung, or None when it did not."""
        if not func:
            self.last = None
            return
        if self.last and self.last[0] == func and not self.stop:
            self.stop = self.last
        self.last = (func, cid)


def _hang(con: logs.Console, sec: logs.Section, smap: logs.SystemMap, hangs: Hangs, e: 'Entry') -> bool:
    """What a check's ending says of how its kernel hangs (Hangs): a hang
    in its own script counts; one in the grader's plumbing around it (the
    swap set-up before its script, the swapoff after it) makes the rest
    boot one check at a time, each on the swap its boot set up.  True when
    the check's own script never started because its set-up hung (a
    timeout, or the kernel's own hang report): it runs again.  Any other
    kernel error stays the check's verdict, wherever it came."""
    if sec.ended:
        hangs.see(e.id, None)
        return False
    stacks = logs.hang_stacks(con, sec.start, smap)
    steps = [what for _, what in sec.steps()]
    in_setup = own_step(e) not in steps
    if (in_setup or TRANSITION in steps) and stacks is not None:
        hangs.isolate = True
        hangs.see(e.id, None)
        return in_setup
    # a kernel error that is no hang is the check's, in its set-up too (a
    # lockdep report in the swapon after a swapoff is the kernel's bug)
    t = logs.stuck_task(stacks) if stacks else None
    hangs.see(e.id, t.chain(1)[0] if t else None)
    return False


def out_of_order(seen: List[str], expected: List[str]) -> Set[str]:
    """The checks of EXPECTED (a boot's, in the order its script runs
    them) whose CHECK markers the console shows repeated or out of that
    order (SEEN: the sections' ids, in console order).  An honest boot's
    are a prefix of EXPECTED; from the first marker that breaks it on,
    every check it names, and the check that was running, are out."""
    k = 0
    while k < len(seen) and k < len(expected) and seen[k] == expected[k]:
        k += 1
    if k == len(seen):
        return set()
    bad = {i for i in seen[k:] if i in expected}
    if k > 0:
        bad.add(expected[k - 1])
    return bad


def run_group(work: str, img: str, boot_mode: str, pmem: str, limits: Dict[str, int],
              entries: List[Entry], steps: Optional[Dict[str, int]] = None,
              hangs: Optional[Hangs] = None, own: Optional[Set[str]] = None,
              append: str = '') -> Dict[str, Record]:
    """Run ENTRIES (same kernel, same boot set-up) in as few boots as
    possible.  Each check has its own time limit (LIMITS, by id), and the
    known steps theirs (STEPS, by kind: timelimits.STEP_KINDS); a boot has
    at most the sum of its checks' limits.  A check the kernel dies or
    hangs in takes that verdict; the checks after it run in a new boot.
    Once the kernel hung twice in a row in the same function, only the
    lab's own checks (OWN, by id) still run, each alone; the others are
    ERROR "not run".  All the boots together get one time
    (timelimits.group_budget: the sum of the limits plus the longest, and
    a boot's worth for each check), counted on the host from each boot's
    start: a kernel that ends each boot early on purpose cannot have the
    rest booted with the whole time again (and each boot decides one
    check at least, or is a rerun after a set-up hang, once a check).  After a boot that used up its time, the checks left are
    TIMEOUT "not run".  HANGS is kept across the kernel's boots (Hangs)."""
    smap = logs.SystemMap(os.path.join(img, 'System.map'))
    hangs = hangs or Hangs()
    own = own or set()
    todo = list(entries)
    out: Dict[str, Record] = {}
    again: set = set()
    spent = ''
    boot = 0
    budget = float(timelimits.group_budget([limits[e.id] for e in entries]))
    while todo and not spent:
        if budget < 1:
            spent = 'not run: the boots before used up the checks\' time'
            break
        if hangs.stop:
            # the lab's own checks still run, each alone (what the lab
            # itself is graded on; at most one more hang each); the rest
            # are not run
            for e in todo:
                if e.id not in own:
                    out[e.id] = verdict.decide_not_run_hang(e.check, *hangs.stop)
                    out[e.id].id = e.id
            todo = [e for e in todo if e.id in own]
            hangs.isolate = True
            if not todo:
                break
        boot += 1
        base = os.path.join(work, f'group-{boot_mode}-{pmem}-{os.path.basename(img)}-{boot}')
        now = todo[:1] if hangs.isolate else todo
        with open(base + '.sh', 'w', encoding='utf-8') as f:
            f.write(group_script(now, boot_mode))
        lim = timelimits.limits_file(base + '.limits', [(e.id, limits[e.id]) for e in now], steps or {},
                                     cap=int(budget))
        nonce = new_nonce()
        ids = {e.id for e in now}

        def on_check(cid: str) -> None:
            if cid in ids:          # (never an id the kernel made up: it reaches the terminal)
                note(f'{cid}: running (time limit {limits[cid]} s)')
        t0 = time.monotonic()
        rc = vm_run(img, base + '.sh', base + '.console', nonce, mode=boot_mode, pmem=pmem,
                    timeout=max(limits[e.id] for e in now), out_log=base + '.log', limits=lim,
                    on_check=on_check, append=append)
        budget -= time.monotonic() - t0
        # the nonce and the runner's exit code beside the console log: a
        # saved log can be parsed again (saved_console; tests/unit feeds
        # such logs to the core)
        with open(base + '.run', 'w', encoding='utf-8') as f:
            f.write(f'nonce {nonce}\nrc {rc}\n')
        con = logs.parse_console(logs.read_text(base + '.console'), nonce, rc)
        used_up = timelimits.run_spent(con.note)
        secs = {s.id: s for s in con.sections()}
        started = [e for e in now if e.id in secs]
        forged = out_of_order([s.id for s in con.sections()], [e.id for e in now])
        for i, e in enumerate(started):
            last = e is started[-1]
            if e.id in forged:
                out[e.id] = verdict.decide_markers_out_of_order(e.check, [x.id for x in now])
                out[e.id].id = e.id
                out[e.id].logs['console'] = base + '.console'
                hangs.see(e.id, None)
                continue
            r = verdict.decide_guest(e.check, con, secs[e.id], limits[e.id], smap, last=last)
            r.id = e.id
            r.metrics.update(secs[e.id].metrics())
            r.logs['console'] = base + '.console'
            out[e.id] = r
            _link(base + '.console', os.path.join(work, f'{e.id}.console'))
            if _hang(con, secs[e.id], smap, hangs, e) and e.id not in again and used_up is None:
                # its set-up hung before its script began: it runs once
                # more, alone, on the swap its own boot sets up
                again.add(e.id)
                del out[e.id]
        if not started:
            # the kernel did not come up: booting it again would not help,
            # so every check left (not only this boot's) takes that verdict
            for e in todo:
                r = verdict.decide_guest(e.check, con, None, limits[e.id], smap)
                r.id = e.id
                r.logs['console'] = base + '.console'
                out[e.id] = r
                _link(base + '.console', os.path.join(work, f'{e.id}.console'))
            todo = []
            break
        todo = [e for e in todo if e.id not in out]
        if used_up is not None:
            # a boot that used up the sum of its checks' limits: booting
            # again for the rest would spend it again
            spent = f'not run: the boot before used up its time ({used_up} s)'
        if todo and spent:
            note(f'not booting again for {len(todo)} check(s): the boot used up its time')
        elif todo and hangs.stop:
            note(f'the kernel hung twice in {hangs.stop[0]}: of the {len(todo)} check(s) left, '
                 f'only the lab\'s own run, one a boot')
        elif todo:
            note(f'rebooting for {len(todo)} check(s) after a kernel error or timeout' +
                 ('; one check a boot (the swap set-up or the swapoff between two checks hung)'
                  if hangs.isolate else ''))
    for e in todo:
        out[e.id] = verdict.decide_not_run(e.check, spent or 'not run')
        out[e.id].id = e.id
    return out


def saved_console(path: str) -> logs.Console:
    """A grouped boot's console as run_group saved it (BASE.console, with
    its nonce and the runner's exit code in BASE.run), parsed again.
    OSError, KeyError or ValueError when either file is missing or bad."""
    with open(path[:-len('.console')] + '.run', encoding='utf-8') as f:
        w = dict(l.split(None, 1) for l in f.read().split('\n') if ' ' in l)
    return logs.parse_console(logs.read_text(path), w['nonce'].strip(), int(w['rc']))


def _link(target: str, name: str) -> None:
    try:
        if os.path.lexists(name):
            os.unlink(name)
        os.symlink(os.path.basename(target), name)
    except OSError:
        pass


def results_metrics(path: str) -> Optional[Dict[str, str]]:
    """METRIC lines of a results file written by vm/run --results (the
    cached reference lock counts of scripts/lockstat-run)."""
    try:
        with open(path, encoding='utf-8', errors='replace') as f:
            m = {}
            for l in f:
                w = l.split()
                if len(w) >= 3 and w[0] == 'METRIC':
                    m[w[1]] = w[2]
            return m
    except OSError:
        return None


def lockstat_ref(img: str, out: str, log: str) -> Optional[Dict[str, str]]:
    with open(log, 'ab') as e:
        p = popen([os.path.join(ROOT, 'scripts', 'lockstat-run'), img, out], stdout=e, stderr=e)
        wait(p)
    return results_metrics(out + '.results')


def measure_run(img: str, test: str, log: str, *, cpus: int, append: str, limit: int = 600,
                out_log: str = '') -> Tuple[Optional[Record], Dict[str, str]]:
    """One single-test boot for a measurement: its metrics (empty when the
    run failed) and the run's own verdict as a Record."""
    nonce = new_nonce()
    rc = vm_run(img, test, log, nonce, cpus=cpus, append=append, timeout=limit, out_log=out_log)
    con = logs.parse_console(logs.read_text(log), nonce, rc)
    secs = con.sections()
    c = Check('-', 'run', 'guest', ['fast', 'pmem', os.path.basename(test)])
    if not secs:
        # (only markers of no check: the kernel printed them, a single
        # test prints none)
        return verdict.decide_guest(c, con, None, limit), {}
    r = verdict.decide_guest(c, con, secs[0], limit)
    return r, secs[0].metrics() if r.verdict == 'PASS' else {}
