"""grade-all's summary: one row per submission from the folder its grade
left (result.json, job.json), and the class's summary.csv, summary.json
and summary.html, written by the same code whether the grades ran one by
one, side by side (--jobs) or on other machines (--emit-jobs, --merge)."""
from __future__ import annotations

import csv
import hashlib
import json
import os
import re
from html import escape
from typing import List

from . import report


def submissions(folder: str) -> List[str]:
    """The submissions of FOLDER (*.patch, *.diff), in the order every run
    grades and lists them."""
    return sorted(os.path.join(folder, n) for n in os.listdir(folder)
                  if n.endswith(('.patch', '.diff')) and os.path.isfile(os.path.join(folder, n)))


# names a student's folder cannot have: the summary files beside the
# folders (a submission summary.csv.patch would make summary.csv a folder,
# and the class's summary unwritable), and the folder itself or its parent
RESERVED = ('summary.csv', 'summary.json', 'summary.html', '.', '..')


def student(f: str) -> str:
    """The student of submission F: its file name without the extension,
    as a folder name (the name of its folder and row); a reserved name
    gets a '_' in front."""
    w = re.sub(r'[^A-Za-z0-9._-]', '_', os.path.splitext(os.path.basename(f))[0])
    return '_' + w if w in RESERVED else w


def same_student(subs: List[str]) -> str:
    """A sentence naming two submissions that would share one folder and
    row (alice.patch and alice.diff), '' when none do."""
    seen = {}
    for f in subs:
        w = student(f)
        if w in seen:
            return (f'{os.path.basename(seen[w])} and {os.path.basename(f)} are both graded as {w} '
                    f'(one folder and one row each): rename one')
        seen[w] = f
    return ''


def row_of(d: str, job: dict) -> dict:
    """The summary row of the grade in folder D (its result.json), JOB
    being what run_grade returned (or wrote to D/job.json)."""
    who, res = os.path.basename(d), os.path.join(d, 'result.json')
    rc, timed_out, limit = job['exit_code'], job['timed_out'], job['limit']
    row = {'student': who, 'score': 0, 'max_score': 0, 'status': '', 'failed_checks': '', 'capped_by': '',
           'latency_ratio': '',
           'seconds': job['seconds'], 'exit_code': rc, 'log': os.path.join(d, 'grade.log'),
           'report': res, 'checks': {}, 'review': [], 'kit_commit': '', 'lab_start': '', 'submission': '',
           'patch_sha256': job['patch_sha256']}
    # the hours the hand-in says the lab took (make handin HOURS=): shown, never trusted
    row['hours'], row['hours_note'] = read_hours(job['patch']) if job.get('patch') else ('', '')
    g = None
    try:
        g = report.read_json(res)
    except (OSError, ValueError, KeyError) as e:
        row['status'] = f'grader error (exit {rc}): no readable report ({type(e).__name__})'
    if g is not None:
        row['score'], row['max_score'] = g.score, g.max_score
        parts = [(r, g.part(r)) for r in g.records]
        row['checks'] = {r.id: {'points': p.points, 'score': p.earned, 'verdict': r.verdict, 'reason': r.reason,
                                'role': p.role, 'cap': p.cap, 'excerpt': r.excerpt} for r, p in parts}
        row['capped_by'] = ' '.join(c['check'] for c in (g.scored.capped_by if g.scored else []))
        lat = next((r for r in g.records if r.id == 'latency' and r.counted), None)
        row['latency_ratio'] = lat.metrics.get('ratio', '') if lat else ''
        row['review'] = list(g.review)
        row['kit_commit'] = g.context.get('kit_commit', '')
        row['lab_start'] = g.context.get('lab_start', '')
        row['submission'] = g.context.get('submission', '')
        row['failed_checks'] = ' '.join(r.id for r in g.records if r.verdict != 'PASS')
        if timed_out:
            row['status'] = f'timeout after {limit}s'
        elif g.status == 'rejected':
            row['status'] = f'rejected: {g.message}'[:160]
            row['failed_checks'] = 'hygiene'
        elif g.status == 'error':
            row['status'] = f'grader error (exit {rc}): {g.message}'[:160]
        elif g.status == 'interrupted':
            row['status'] = 'interrupted'
        else:
            row['status'] = 'pass' if g.passed else 'fail'
    elif timed_out:
        row['status'] = f'timeout after {limit}s'
    return row


HOURS_MAX = 200.0
_HOURS = re.compile(r'(?:[0-9]{1,3}(?:\.[0-9]{1,2})?|\.[0-9]{1,2})')


def parse_hours(text: str):
    """The hours of an "Hours: V" value as scripts/student/handin writes it: a
    number over 0 and at most HOURS_MAX, at most three digits and two
    decimals; None for anything else (the value is the student's: it is
    shown, never trusted for anything)."""
    if not isinstance(text, str) or not _HOURS.fullmatch(text):
        return None
    v = float(text)
    return v if 0 < v <= HOURS_MAX else None


def fmt_hours(v) -> str:
    """Hours as the summary writes them (6.5, 12, 0.25); '' when absent."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return ''
    return f'{v:.2f}'.rstrip('0').rstrip('.')


def read_hours(path: str) -> tuple:
    """(hours or '', note) of the hand-in PATH: the "Hours: V" line of its
    header (scripts/student/handin: the lines before the first blank line, which
    git apply and the grader skip).  At most 4 KiB and 12 lines are read;
    a line that is there but holds no valid hours gives '' and a note
    quoting at most 40 characters of it."""
    try:
        with open(path, 'rb') as f:
            head = f.read(4096)
    except OSError:
        return '', ''
    for raw in head.split(b'\n')[:12]:
        line = raw.decode('utf-8', 'replace').rstrip('\r')
        if not line.strip() or line.startswith(('diff ', '--- ', '+++ ', '@@')):
            break
        if line.startswith('Hours:'):
            text = line[len('Hours:'):].strip()
            v = parse_hours(text)
            if v is None:
                shown = ''.join(c if c.isprintable() else '?' for c in text[:40])
                return '', f'ignored Hours: {shown!r}: not a number of hours over 0 and at most {HOURS_MAX:g}'
            return float(fmt_hours(v)), ''
    return '', ''


def sha256_of(path: str) -> str:
    h = hashlib.sha256()
    with open(path, 'rb') as f:
        for b in iter(lambda: f.read(1 << 20), b''):
            h.update(b)
    return h.hexdigest()


def previous(summary: str, who: str, f: str) -> dict:
    """The row of an earlier run of the same submission (same patch bytes),
    if it was graded to the end (--resume)."""
    try:
        with open(summary, encoding='utf-8') as fh:
            rows = json.load(fh)
    except (OSError, ValueError):
        return None
    for r in rows:
        if r.get('student') == who and r.get('patch_sha256') == sha256_of(f) and \
                not str(r.get('status', '')).startswith(('interrupted', 'grader error', 'timeout')):
            return r
    return None


def write_summary(out: str, rows: List[dict]) -> None:
    """summary.csv (one column per check: the points earned on the lab's
    own checks, the verdict of a gate; the gates that capped the score, the
    latency ratio, the hours the student gave), summary.json (everything, the checks' verdicts and
    reasons too) and summary.html."""
    ids: List[str] = []
    for r in rows:
        for cid in r.get('checks', {}):
            if cid not in ids:
                ids.append(cid)
    with open(os.path.join(out, 'summary.csv'), 'w', encoding='utf-8', newline='') as f:
        w = csv.writer(f)
        w.writerow(['student', 'score', 'max', 'status', 'failed_checks', 'capped_by', 'latency_ratio',
                    'seconds', 'hours', *ids, 'review', 'kit_commit', 'lab_start', 'submission'])
        for r in rows:
            per = [_cell(r['checks'][c]) if c in r.get('checks', {}) else '' for c in ids]
            w.writerow([r['student'], report._pts(r['score']), report._pts(r['max_score']), r['status'],
                        r['failed_checks'],
                        r.get('capped_by', ''), r.get('latency_ratio', ''), r['seconds'],
                        fmt_hours(r.get('hours', '')), *per, '; '.join(r.get('review', [])), r.get('kit_commit', ''), r.get('lab_start', ''),
                        r.get('submission', '')])
    with open(os.path.join(out, 'summary.json'), 'w', encoding='utf-8') as f:
        json.dump(rows, f, indent=1, ensure_ascii=False)
        f.write('\n')
    write_html(out, rows, ids)


def _cell(k: dict) -> str:
    """A check's CSV cell: the points earned on a lab's own check, the
    verdict of a gate (or of a check not counted)."""
    if k.get('role') in ('gate', 'off'):
        return k['verdict']
    return report._pts(k['score'])


def write_html(out: str, rows: List[dict], ids: List[str]) -> None:
    """summary.html: the class as a table (click a heading to sort), each
    student linked to the grade log, each failed check's cell showing its
    reason and excerpt."""
    e = escape
    head = ''.join(f'<th>{e(c)}</th>' for c in ['student', 'score', 'status', *ids, 'review', 'seconds', 'hours'])
    body = []
    for r in rows:
        cells = [f'<td><a href="{e(os.path.relpath(r["log"], out))}">{e(r["student"])}</a></td>',
                 f'<td data-v="{r["score"]}">{report._pts(r["score"])}/{report._pts(r["max_score"])}</td>', f'<td>{e(r["status"])}</td>']
        for c in ids:
            k = r.get('checks', {}).get(c)
            if k is None:
                cells.append('<td></td>')
                continue
            cls = 'pass' if k['verdict'] == 'PASS' else 'fail'
            detail = '' if k['verdict'] == 'PASS' else \
                f'<details><summary>{e(k["verdict"])}</summary><p>{e(k["reason"])}</p><pre>{e(k["excerpt"])}</pre></details>'
            shown = f'gate&le;{report._pts(k["cap"])}' if k.get('role') == 'gate' else \
                e(_cell(k)) if k.get('role') == 'off' else f'{report._pts(k["score"])}/{report._pts(k["points"])}'
            cells.append(f'<td class="{cls}" data-v="{k["score"]}">{shown}{detail}</td>')
        cells.append(f'<td>{e("; ".join(r.get("review", [])))}</td>')
        cells.append(f'<td data-v="{r["seconds"]}">{r["seconds"]}</td>')
        h = e(fmt_hours(r.get('hours', '')))
        cells.append(f'<td data-v="{h}">{h}</td>')
        body.append('<tr>' + ''.join(cells) + '</tr>')
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>swaplab grade-all: {e(os.path.basename(out))}</title>
<style>body{{font-family:sans-serif}} table{{border-collapse:collapse}} td,th{{border:1px solid #ccc;padding:3px 6px;
vertical-align:top}} th{{cursor:pointer;background:#eee}} .pass{{background:#e6f4e6}} .fail{{background:#fbe4e4}}
pre{{max-width:60em;white-space:pre-wrap;font-size:small}}</style></head><body>
<h1>swaplab grade-all: {e(os.path.basename(out))}</h1>
<p>{len(rows)} submissions. Click a column heading to sort; click a verdict for its reason and excerpt.</p>
<table id="t"><thead><tr>{head}</tr></thead><tbody>
{chr(10).join(body)}
</tbody></table>
<script>
document.querySelectorAll('#t th').forEach(function (th, i) {{
  th.addEventListener('click', function () {{
    var tb = document.querySelector('#t tbody'), rows = Array.from(tb.rows), asc = th.dataset.asc !== '1';
    th.dataset.asc = asc ? '1' : '0';
    rows.sort(function (a, b) {{
      var x = a.cells[i].dataset.v || a.cells[i].textContent, y = b.cells[i].dataset.v || b.cells[i].textContent;
      var nx = parseFloat(x), ny = parseFloat(y);
      var c = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
      return asc ? c : -c;
    }});
    rows.forEach(function (r) {{ tb.appendChild(r); }});
  }});
}});
</script></body></html>
"""
    with open(os.path.join(out, 'summary.html'), 'w', encoding='utf-8') as f:
        f.write(page)
