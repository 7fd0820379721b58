"""Every process a grade starts ends with it.

A grade's children make process groups and sessions of their own
(`timeout` in scripts/build-kernel, expect's pty, bubblewrap), so a signal
to one group misses some of them, and a child whose parent dies is
reparented away from the grade.  Here the grader becomes a child
subreaper (prctl PR_SET_CHILD_SUBREAPER): an orphan of any of its
descendants is reparented to it, not to init, so the whole tree stays
below it, and stop_descendants() walks /proc by parent pid and stops
every descendant (TERM, then KILL), waiting until each is gone.

The grade's own children start here too (popen: each in a session of its
own; wait; kill_children at the end), and its progress lines (note).
"""
from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import time
from typing import Dict, List, Optional, Tuple

from . import logs

PR_SET_CHILD_SUBREAPER = 36


def set_subreaper() -> bool:
    """Make this process the reaper of its descendants' orphans."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _stat(pid: int) -> Optional[Tuple[int, str, int]]:
    """(ppid, state, start time) of PID, None when it is gone."""
    try:
        with open(f'/proc/{pid}/stat', 'rb') as f:
            s = f.read().decode('ascii', 'replace')
    except OSError:
        return None
    # the command name (field 2) may hold spaces and parentheses: split after its last ')'
    w = s[s.rfind(')') + 2:].split()
    try:
        return int(w[1]), w[0], int(w[19])
    except (IndexError, ValueError):
        return None


def descendants(root: Optional[int] = None) -> Dict[int, Tuple[str, int]]:
    """{pid: (state, start time)} of every descendant of ROOT (default:
    this process), zombies included."""
    root = root or os.getpid()
    kids: Dict[int, List[int]] = {}
    info: Dict[int, Tuple[str, int]] = {}
    for n in os.listdir('/proc'):
        if not n.isdigit():
            continue
        st = _stat(int(n))
        if st is None:
            continue
        kids.setdefault(st[0], []).append(int(n))
        info[int(n)] = (st[1], st[2])
    out: Dict[int, Tuple[str, int]] = {}
    todo = list(kids.get(root, []))
    while todo:
        p = todo.pop()
        if p in out or p == root:
            continue
        out[p] = info[p]
        todo.extend(kids.get(p, []))
    return out


def _signal(pid: int, start: int, sig: int) -> None:
    """Signal PID if it is still the process seen (same start time): a
    pidfd pins it, so a reused pid is never hit."""
    fd = -1
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        fd = -1
    try:
        st = _stat(pid)
        if st is None or st[2] != start:
            return
        if fd >= 0:
            signal.pidfd_send_signal(fd, sig)
        else:
            os.kill(pid, sig)
    except (ProcessLookupError, PermissionError, OSError):
        pass
    finally:
        if fd >= 0:
            os.close(fd)


def _reap() -> None:
    """Collect this process's children that have ended (orphans it
    adopted as the subreaper, killed children)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def live(root: Optional[int] = None) -> Dict[int, Tuple[str, int]]:
    """The descendants still running (a zombie holds no file and no memory)."""
    return {p: v for p, v in descendants(root).items() if v[0] not in ('Z', 'X')}


def stop_descendants(grace: float = 3.0, limit: float = 20.0) -> List[int]:
    """TERM every descendant, KILL what is left after GRACE seconds (and
    anything started meanwhile), and wait until none runs (at most LIMIT
    seconds).  Returns the pids still running then (a process stuck in
    the kernel), normally none."""
    t0 = time.time()
    seen = live()
    for p, (_, start) in seen.items():
        _signal(p, start, signal.SIGTERM)
    while True:
        _reap()
        left = live()
        if not left:
            return []
        if time.time() - t0 >= grace:
            break
        time.sleep(0.05)
    while True:
        for p, (_, start) in left.items():
            _signal(p, start, signal.SIGKILL)
        time.sleep(0.05)
        _reap()
        left = live()
        if not left or time.time() - t0 >= limit:
            return sorted(left)


# ------------------------------------------------- the grade's own children
_children: List[subprocess.Popen] = []


class Interrupted(Exception):
    """SIGINT, SIGTERM or SIGHUP during a grade."""


def popen(cmd: List[str], **kw) -> subprocess.Popen:
    """A child in its own session, so an interrupt stops it and all its
    descendants (make, gcc, expect) at once."""
    p = subprocess.Popen(cmd, start_new_session=True, stdin=subprocess.DEVNULL, **kw)
    _children.append(p)
    return p


def wait(p: subprocess.Popen, timeout: Optional[float] = None) -> int:
    try:
        return p.wait(timeout)
    finally:
        if p.returncode is not None and p in _children:
            _children.remove(p)


def kill_children() -> None:
    """Stop every process this grade started, its children's children and
    the orphans it adopted included (procs: TERM, then KILL after 3 s),
    and wait until they are gone."""
    left = stop_descendants()
    if left:
        note(f'warning: processes {left} did not end after SIGKILL')
    _children.clear()


def note(msg: str) -> None:
    """A progress line on the terminal, with no escape sequence or control
    character (a note may quote what a kernel printed)."""
    print(f'    {logs.clean(msg, keep_newlines=False)}', file=sys.stderr, flush=True)
