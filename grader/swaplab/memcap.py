"""One memory ceiling for a whole grade.

Where the host offers a cgroup v2 scope, the grade runs in one, with
MemoryMax at SHARE of the host's RAM: every process of the grade (the
builds, QEMU, the grader) counts against it, and the kernel's OOM killer
stops the largest inside it, never a process outside.  Two ways, tried in
order:
  - systemd (a Debian host): the grade re-executes itself under
    `systemd-run --scope -p MemoryMax=...` (`--user` for another user than
    root; the scope keeps the grade's pid);
  - a cgroup v2 hierarchy without systemd (a container): a child cgroup
    of the grade's own, when that one can delegate the memory controller.
Elsewhere (cgroup v1, as on the kit's 2-core machine, or no delegation)
the ceiling is the product of two limits every sandboxed build has: the
address space of each process (scripts/sandbox, SWAPLAB_SANDBOX_AS) and
the number of make jobs, at most SHARE of RAM divided by that address
space (scripts/lib.sh njobs).  SHARE: SWAPLAB_MEM_SHARE, 0.5 (the other
half for QEMU, whose guest is 2 GiB, the page cache and the host).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from typing import List, Optional, Tuple

from .checks import ROOT

MARK = 'SWAPLAB_MEM_SCOPE'       # set in a grade already under its ceiling


def share() -> float:
    try:
        v = float(os.environ.get('SWAPLAB_MEM_SHARE') or 0.5)
    except ValueError:
        v = 0.5
    return min(max(v, 0.05), 1.0)


def mem_total(meminfo: str = '/proc/meminfo', field: str = 'MemTotal') -> int:
    """The host's RAM in bytes (0 when unknown); FIELD another line of
    MEMINFO (MemAvailable: what can be had without swapping)."""
    try:
        with open(meminfo, encoding='ascii') as f:
            for l in f:
                if l.startswith(field + ':'):
                    return int(l.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def v2_memory(cg: str) -> bool:
    """Whether the cgroup v2 hierarchy holding CG has the memory
    controller (a hybrid host keeps it in cgroup v1, where a v2 MemoryMax
    would be accepted and do nothing)."""
    d = cg
    while True:
        up = os.path.dirname(d.rstrip('/'))
        if up == d.rstrip('/') or not os.path.exists(os.path.join(up, 'cgroup.controllers')):
            break
        d = up
    try:
        with open(os.path.join(d, 'cgroup.controllers'), encoding='ascii') as f:
            return 'memory' in f.read().split()
    except OSError:
        return False


def cgroup2(mountinfo: str = '/proc/self/mountinfo', proc_cgroup: str = '/proc/self/cgroup') -> Optional[str]:
    """The folder of this process's cgroup in a cgroup v2 hierarchy, None
    where there is none (cgroup v1 only, or no cgroup file system)."""
    mount = None
    try:
        with open(mountinfo, encoding='utf-8') as f:
            for l in f:
                pre, _, post = l.partition(' - ')
                if post.split(' ', 1)[0] == 'cgroup2':
                    mount = pre.split()[4]
                    break
        if mount is None:
            return None
        with open(proc_cgroup, encoding='utf-8') as f:
            for l in f:
                if l.startswith('0::'):
                    return os.path.join(mount, l[3:].strip().lstrip('/'))
    except (OSError, IndexError):
        pass
    return None


def _systemd_scope(limit: int) -> Optional[List[str]]:
    """The systemd-run command line that puts a command under a scope
    with MemoryMax=LIMIT, when it works here (tried with `true`)."""
    if not os.path.isdir('/run/systemd/system') or not shutil.which('systemd-run'):
        return None
    cmd = ['systemd-run', '--scope', '--quiet', '--collect', '-p', f'MemoryMax={limit}']
    if os.getuid() != 0:
        cmd.insert(1, '--user')
    try:
        p = subprocess.run(cmd + ['true'], capture_output=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return cmd if p.returncode == 0 else None


def _own_cgroup(cg: str, limit: int) -> Optional[str]:
    """A child cgroup of CG with memory.max LIMIT holding this process, or
    None where CG cannot delegate the memory controller to it: only the
    hierarchy's root can (a cgroup holding processes, this one among
    them, cannot turn a controller on for its children)."""
    try:
        with open(os.path.join(cg, 'cgroup.controllers'), encoding='ascii') as f:
            if 'memory' not in f.read().split():
                return None
        sub = os.path.join(cg, 'cgroup.subtree_control')
        with open(sub, encoding='ascii') as f:
            on = 'memory' in f.read().split()
        if not on:
            with open(sub, 'w', encoding='ascii') as f:
                f.write('+memory')      # EBUSY where CG holds processes itself
        for n in os.listdir(cg):        # those of earlier grades, once empty
            # (not one a grade still running made: grade-all --jobs runs
            # several, and one's may be empty a moment before it joins it)
            if n.startswith('swaplab-grade-') and not os.path.exists(f'/proc/{n[len("swaplab-grade-"):]}'):
                try:
                    os.rmdir(os.path.join(cg, n))
                except OSError:
                    pass
        mine = os.path.join(cg, f'swaplab-grade-{os.getpid()}')
        os.mkdir(mine)
        try:
            with open(os.path.join(mine, 'memory.max'), 'w', encoding='ascii') as f:
                f.write(str(limit))
            with open(os.path.join(mine, 'cgroup.procs'), 'w', encoding='ascii') as f:
                f.write(str(os.getpid()))
        except OSError:
            os.rmdir(mine)
            raise
        return mine
    except OSError:
        return None


def ceiling(argv: List[str]) -> Tuple[str, Optional[str]]:
    """Put this grade under its memory ceiling.  Returns (how, cgroup):
    a sentence for the log, and the cgroup folder made here (to remove at
    the end) or None.  May re-execute the grade under systemd-run (then
    it does not return)."""
    total = mem_total()
    limit = int(total * share())
    if os.environ.get(MARK):
        return os.environ[MARK], None
    if os.environ.get('SWAPLAB_MEM_CEILING', '1') == '0' or not total:
        return 'memory ceiling off (SWAPLAB_MEM_CEILING=0)' if total else 'memory ceiling: RAM unknown', None
    ram = f'{share():.0%} of {total / (1 << 30):.1f} GiB RAM'
    gib = f'{limit / (1 << 30):.1f} GiB ({ram}) for the whole grade'
    cg = cgroup2()
    if cg is not None and v2_memory(cg):
        cmd = _systemd_scope(limit)
        if cmd is not None:
            how = f'memory ceiling {gib}: a systemd scope (MemoryMax)'
            os.environ[MARK] = how
            sys.stdout.flush()
            sys.stderr.flush()
            os.execvp(cmd[0], cmd + [sys.executable, *argv])
        mine = _own_cgroup(cg, limit)
        if mine is not None:
            how = f'memory ceiling {gib}: cgroup {mine} (memory.max)'
            os.environ[MARK] = how
            return how, mine
    return f'memory: no cgroup v2 scope here; {_jobs_as()}, within {ram}', None


def _jobs_as() -> str:
    """'-jN x M GiB of address space per build process', from scripts/lib.sh."""
    p = subprocess.run(['bash', '-c', '. "$1"; echo "$(njobs) $(sandbox_as)"', 'sh',
                        os.path.join(ROOT, 'scripts', 'lib.sh')], capture_output=True, text=True)
    try:
        n, a = (int(x) for x in p.stdout.split())
    except ValueError:
        return 'build jobs x address space per process (scripts/lib.sh njobs)'
    if not a:
        return f'-j{n} build jobs, no address-space cap (SWAPLAB_SANDBOX_AS=0)'
    return (f'-j{n} build jobs x {a / (1 << 30):g} GiB of address space per sandboxed process, and 2 GiB for '
            'the policy beside them (scripts/lib.sh njobs)')


def release(mine: Optional[str]) -> None:
    """Remove the cgroup made by ceiling(), once its processes are gone
    (this one moves back to the parent first)."""
    if not mine:
        return
    try:
        with open(os.path.join(os.path.dirname(mine), 'cgroup.procs'), 'w', encoding='ascii') as f:
            f.write(str(os.getpid()))
        os.rmdir(mine)
    except OSError:
        pass
