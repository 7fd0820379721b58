"""A check's record: its verdict, reason, excerpt, logs and figures.  What
scoring makes of it is not here: scoring.Score holds it, beside the
records, and the reports put the two together.  The verdict itself is set only by verdict.py's
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
    points: float = 0             # what it can earn unscored (a scored grade: scoring.Part)
    verdict: str = 'SKIP'
    reason: str = ''
    seconds: Optional[float] = None
    excerpt: str = ''
    logs: Dict[str, str] = dataclasses.field(default_factory=dict)
    metrics: Dict[str, object] = dataclasses.field(default_factory=dict)
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
        """What it earns unscored (a scored grade: scoring.Part.earned)."""
        return self.points if self.verdict == 'PASS' else 0

    def to_json(self, part=None) -> dict:
        """The record as a report's check, with PART (a scoring.Part: role,
        points, earned, cap) its share in the grade's score; None: the
        grade was not scored."""
        role, points, score, cap = ((part.role, part.points, part.earned, part.cap) if part is not None
                                    else ('', self.points, self.score, None))
        return {'id': self.id, 'lab': self.lab, 'role': role, 'points': points,
                'score': score, 'cap': cap, 'counted': self.counted,
                'verdict': self.verdict, 'seconds': self.seconds, 'reason': self.reason,
                'excerpt': self.excerpt, 'logs': dict(self.logs), 'metrics': dict(self.metrics)}

    @classmethod
    def from_json(cls, d: dict) -> 'Record':
        """A report's check as a record; its share in the score (role,
        score, cap) is scoring.Score.from_json's."""
        r = cls(d['id'], d.get('lab', ''), float(d.get('points') or 0))
        r.counted = bool(d.get('counted', True))
        r.verdict, r.reason, r.excerpt = d['verdict'], d.get('reason', ''), d.get('excerpt', '')
        r.seconds = d.get('seconds')
        r.logs = dict(d.get('logs') or {})
        r.metrics = dict(d.get('metrics') or {})
        return r
