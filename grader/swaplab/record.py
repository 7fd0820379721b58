"""A check's record: its verdict, reason, excerpt, logs and figures, and
what scoring makes of it.  The verdict itself is set only by verdict.py's
decide_* functions (Record.set keeps every reason and excerpt clean and
short, whoever calls it)."""
from __future__ import annotations

import dataclasses
from typing import Dict, Optional

from . import logs

VERDICTS = ('PASS', 'FAIL', 'ERROR', 'TIMEOUT', 'SKIP')
REASON_CHARS = 240
EXCERPT_LINES = 40
EXCERPT_CHARS = 6000


@dataclasses.dataclass
class Record:
    id: str
    lab: str                      # the check's LABS column
    points: float = 0             # what it can earn (grader/scoring.tsv; 0: a gate)
    verdict: str = 'SKIP'
    reason: str = ''
    seconds: Optional[float] = None
    excerpt: str = ''
    logs: Dict[str, str] = dataclasses.field(default_factory=dict)
    metrics: Dict[str, object] = dataclasses.field(default_factory=dict)
    earned: Optional[float] = None   # what it earned, set by scoring
    role: str = ''                   # own | gate | off (not counted), set by scoring
    cap: Optional[float] = None      # a gate's cap
    counted: bool = True             # False: skipped by choice, not scored

    def __post_init__(self) -> None:
        self.set(self.verdict, self.reason, self.excerpt)

    def set(self, verdict: str, reason: str, excerpt: str = '') -> 'Record':
        assert verdict in VERDICTS, verdict
        self.verdict = verdict
        self.reason = logs.truncate(logs.clean(reason, keep_newlines=False).strip(), REASON_CHARS)
        ex = logs.clean(excerpt).strip('\n').split('\n')
        ex = [logs.truncate(l, 200) for l in ex[-EXCERPT_LINES:]] if excerpt else []
        self.excerpt = logs.truncate('\n'.join(ex), EXCERPT_CHARS)
        return self

    @property
    def score(self) -> float:
        if self.earned is not None:
            return self.earned
        return self.points if self.verdict == 'PASS' else 0

    def to_json(self) -> dict:
        return {'id': self.id, 'lab': self.lab, 'role': self.role, 'points': self.points,
                'score': self.score, 'cap': self.cap, 'counted': self.counted,
                'verdict': self.verdict, 'seconds': self.seconds, 'reason': self.reason,
                'excerpt': self.excerpt, 'logs': dict(self.logs), 'metrics': dict(self.metrics)}

    @classmethod
    def from_json(cls, d: dict) -> 'Record':
        r = cls(d['id'], d.get('lab', ''), float(d.get('points') or 0))
        r.role, r.cap, r.counted = d.get('role', ''), d.get('cap'), bool(d.get('counted', True))
        if d.get('score') is not None and r.role:
            r.earned = float(d['score'])
        r.verdict, r.reason, r.excerpt = d['verdict'], d.get('reason', ''), d.get('excerpt', '')
        r.seconds = d.get('seconds')
        r.logs = dict(d.get('logs') or {})
        r.metrics = dict(d.get('metrics') or {})
        return r
