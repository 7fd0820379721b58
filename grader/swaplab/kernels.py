"""Kernel builds: the graded kernel's images (Kernels, built at most once
per config, the debug one in the background while fast-kernel checks run)
and the reference stages' (build_stage).  scripts/build-kernel does the
work; this module starts it and reads its logs."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from typing import Dict, List, Optional, Tuple

from . import logs
from .checks import ROOT
from .procs import _children, note, popen, wait


FIRST_BUILD_NOTE = ('first grade with this build cache ({cache}): it builds two kernels, fast and '
                    'debug, from scratch, about 20 minutes on a 2-core machine without KVM (README, '
                    '§ Students: "Time of the first build"); later grades recompile only what changed')


def first_build() -> Optional[str]:
    """The note to print before a grade that builds from scratch: no object
    folder of this build cache holds a vmlinux (scripts/build-kernel keeps
    one per config, obj/fast and obj/debug), so no kernel was ever built
    with it.  None when one was."""
    cache = os.environ.get('SWAPLAB_CACHE', '')
    if not cache or any(os.path.exists(os.path.join(cache, 'obj', c, 'vmlinux')) for c in ('fast', 'debug')):
        return None
    return FIRST_BUILD_NOTE.format(cache=cache)


class Kernels:
    """The graded kernel's images, built at most once per config; the debug
    build may start in the background while fast-kernel checks run."""

    def __init__(self, commit: str, lab: str, work: str, graded: bool = False, fresh: bool = False,
                 own: bool = False, start: str = '', private: bool = False):
        """graded: the tree is a submission: build it in the sandbox
        (scripts/build-kernel --graded); fresh: start its object directory
        over from the reference one (another person's submission);
        private: images of this grade alone, evicted when it ends (never
        another grade's, which may be running beside it)."""
        self.commit, self.lab, self.work = commit, lab, work
        self.graded, self.fresh, self.own, self.private = graded, fresh, own, private
        self.start_rev = start           # the lab start: the policy on what the compiler reads
        self.rc: Dict[str, int] = {}
        self.img: Dict[str, Optional[str]] = {}
        self.bg: Dict[str, subprocess.Popen] = {}
        self.secs: Dict[str, float] = {}

    def _paths(self, cfg: str) -> Tuple[str, str]:
        return os.path.join(self.work, f'kernel-{cfg}.path'), os.path.join(self.work, f'kernel-{cfg}.log')

    def start(self, cfg: str) -> None:
        if cfg in self.img or cfg in self.bg:
            return
        out, err = self._paths(cfg)
        with open(out, 'wb') as o, open(err, 'wb') as e:
            extra = (['--graded'] if self.graded else []) + (['--fresh'] if self.graded and self.fresh else []) + \
                (['--own'] if self.graded and self.own else []) + \
                (['--start', self.start_rev] if self.graded and self.start_rev else []) + \
                (['--private'] if self.graded and self.private else [])
            env = dict(os.environ, SWAPLAB_LOCK_WAIT_FILE=os.path.join(self.work, f'kernel-{cfg}.lock-wait'))
            self.bg[cfg] = popen([os.path.join(ROOT, 'scripts', 'build-kernel'), '--commit', self.commit,
                                  '--lab', self.lab, '--config', cfg, *extra,
                                  '--keep-log', self._kept_log(cfg)],
                                 stdout=o, stderr=e, env=env)
        self.secs[cfg] = time.time()

    def get(self, cfg: str) -> Optional[str]:
        """The image directory, or None when the build failed."""
        if cfg in self.img:
            return self.img[cfg]
        self.start(cfg)
        p = self.bg.pop(cfg)
        note(f'building the {cfg} kernel (log: {self._paths(cfg)[1]})')
        rc = self.rc[cfg] = self._wait_showing(p, cfg)
        self.secs[cfg] = round(time.time() - self.secs[cfg], 1)
        path = ''
        if rc == 0:
            with open(self._paths(cfg)[0], encoding='utf-8') as f:
                path = f.read().strip()
        self.img[cfg] = path if path and os.path.exists(os.path.join(path, 'bzImage')) else None
        return self.img[cfg]

    def _wait_showing(self, p: subprocess.Popen, cfg: str) -> int:
        """Wait for a build, relaying its latest progress line every 10 s
        (one updated line on a terminal, plain lines elsewhere)."""
        tty = sys.stderr.isatty()
        last, shown = time.time(), ''
        while True:
            try:
                rc = p.wait(1)
                break
            except subprocess.TimeoutExpired:
                pass
            if time.time() - last < 10:
                continue
            last = time.time()
            lines = [l.strip() for l in logs.read_text(self._paths(cfg)[1]).split('\n') if l.strip()]
            msg = f'{cfg} kernel: ' + (lines[-1] if lines else 'starting') + \
                  f' ({time.time() - self.secs[cfg]:.0f} s)'
            if tty:
                sys.stderr.write('\r    ' + msg[:110].ljust(110))
            elif msg != shown:
                print(f'    {msg}', file=sys.stderr, flush=True)
            shown = msg
        if tty and shown:
            sys.stderr.write('\n')
        if p in _children:
            _children.remove(p)
        return rc

    def refused(self, cfg: str) -> List[str]:
        """The reasons the policy on what the compiler reads refused the
        submission with (scripts/cpp-policy, exit 4), else []."""
        if self.rc.get(cfg) != 4:
            return []
        return [l[len('refused: '):] for l in logs.read_text(self._paths(cfg)[1]).split('\n')
                if l.startswith('refused: ')] or ['(no reason given)']

    def evict(self) -> List[str]:
        """Remove the images this grade built from a submission."""
        gone = []
        for img in self.img.values():
            if img and os.path.exists(os.path.join(img, 'graded')):
                shutil.rmtree(img, ignore_errors=True)
                gone.append(img)
        return gone

    def _kept_log(self, cfg: str) -> str:
        """Where build-kernel copies a failed build's log (--keep-log)."""
        return os.path.join(self.work, f'kernel-{cfg}.build.log')

    def logs(self, cfg: str) -> Tuple[str, str]:
        """(build.log of the make run, the build script's own stderr).
        A failed build's log is the copy at the path this grade chose
        (--keep-log), never a path read from the stderr: gcc quotes the
        submission's source there, so an "#error full log: /etc/shadow"
        would name any host file."""
        tool = logs.read_text(self._paths(cfg)[1])
        img = self.img.get(cfg)
        build = logs.read_text(os.path.join(img, 'build.log')) if img else ''
        if not build:
            build = logs.read_text(self._kept_log(cfg))
        return build, tool


def build_stage(stage: str, cfg: str, log: str) -> Optional[str]:
    with open(log, 'ab') as e:
        p = popen([os.path.join(ROOT, 'scripts', 'build-kernel'), '--stage', stage, '--config', cfg],
                  stdout=subprocess.PIPE, stderr=e)
        out, _ = p.communicate()
        wait(p)
    path = out.decode().strip()
    return path if p.returncode == 0 and path else None


