"""Reference figures for a work repository without the reference stage.

The lock-fingerprint and latency checks compare the graded kernel with the
lab's solution kernel, built from the tag stage-NN.  The student edition
(scripts/author/student-kit) holds no solution of a lab it releases, so that tag
is absent there: the lock fingerprint then compares against the figure
recorded in grader/recorded.tsv (lock takes per page are counted, not
timed, so a figure measured once holds on every machine), and the latency
check is not run (a fault median belongs to the machine it was measured
on).  Where the tag exists (the instructor's kit) nothing here is used.
"""
from __future__ import annotations

import dataclasses
import hashlib
import os
import subprocess
from typing import Dict, Optional

from .labs import ROOT
from .tsv import TableError, rows

RECORDED_TSV = os.path.join(ROOT, 'grader', 'recorded.tsv')
LOCKSTAT_SH = os.path.join(ROOT, 'tests', 'guest', 'lockstat.sh')

LATENCY_SKIP = ('not run (not counted): this edition of the kit holds no solution kernel to time '
                'against (no stage-{stage}); the instructor\'s grade runs it')


def stage_exists(stage: str) -> bool:
    """Whether the work repository holds the reference stage STAGE."""
    repo = os.environ.get('LINUX_REPO', '')
    p = subprocess.run(['git', '-C', repo, 'rev-parse', '-q', '--verify', f'refs/tags/stage-{stage}^{{commit}}'],
                       capture_output=True)
    return p.returncode == 0


@dataclasses.dataclass
class Figure:
    """One recorded reference figure (a row of grader/recorded.tsv)."""
    stage: str
    metric: str
    value: str
    spread: str
    runs: str
    workload: str
    measured: str
    command: str

    def note(self) -> str:
        return (f'solution figure recorded {self.measured} ({self.runs} runs, {self.spread}; '
                'grader/recorded.tsv): no stage-' + self.stage + ' in this kit')


def _workload_hash() -> str:
    try:
        with open(LOCKSTAT_SH, 'rb') as f:
            return hashlib.sha256(f.read()).hexdigest()[:12]
    except OSError:
        return ''


def load(path: str = RECORDED_TSV) -> Dict[str, Figure]:
    """The lockfp rows, by stage (none when the file is missing).  A row
    that is not "lockfp" and its eight fields is a TableError: a figure
    that silently went missing would grade against the wrong one, or
    none."""
    out: Dict[str, Figure] = {}
    try:
        for n, w in rows(path, 9, 9, 'lockfp STAGE METRIC VALUE SPREAD RUNS WORKLOAD MEASURED COMMAND'):
            if w[0] != 'lockfp':
                raise TableError(f'{path}:{n}: unknown kind {w[0]!r} (want lockfp)')
            out[w[1]] = Figure(*w[1:9])
    except FileNotFoundError:
        pass
    return out


def lockfp(stage: str, path: str = RECORDED_TSV) -> tuple:
    """(metrics, figure, why): the recorded lock_stat figures of reference
    stage STAGE as decide_lockfp takes them, or (None, None, why not)."""
    fig = load(path).get(stage)
    if fig is None:
        return None, None, f'no stage-{stage} in this kit and no recorded figure for it (grader/recorded.tsv)'
    want = fig.workload.split()[0].split(':', 1)[-1] if fig.workload else ''
    have = _workload_hash()
    if want != have:
        return None, fig, (f'the recorded stage-{stage} figure was measured with lockstat.sh {want}, '
                           f'this kit has {have or "none"}: measure it again (scripts/author/lockfp-record)')
    return {fig.metric: fig.value}, fig, ''


def latency_skip_reason(stage: str) -> Optional[str]:
    """Why the latency check is not run here, or None when it can be."""
    return None if stage_exists(stage) else LATENCY_SKIP.format(stage=stage)
