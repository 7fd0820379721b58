"""The one place a check's verdict is decided (its Record is record.py's).

Each decide_* function takes the evidence (parsed logs, measured numbers)
and returns a Record; nothing else in the grader sets a verdict.

A figure that a black-box check reads from counters the kernel under test
writes (vm events, lock_stat, /proc/swaps, the clock) and that lies outside
what its workload can physically produce (grader/plausible.tsv) makes the
check ERROR "implausible: ...", whatever the figure would have passed or
failed: the kernel's counters, not its work, were measured.
"""
from __future__ import annotations

import glob
import os
import re
from typing import Dict, List, Optional

from . import exitcodes, logs, plausible, timelimits
from .checks import ROOT, Check
from .record import VERDICTS, Record  # noqa: F401  (verdict.Record: the records' one home is record.py)

def new(c: Check) -> Record:
    return Record(c.id, c.labs)


def implausible(r: Record, f: plausible.Finding, excerpt: str = '') -> Record:
    """The verdict of a check whose figure no working kernel can produce:
    ERROR, the reason starting "implausible:" and naming the figure, its
    value and its range (grader/plausible.tsv)."""
    r.metrics['implausible'] = f.to_json()
    return r.set('ERROR', f.reason(), excerpt)


# ---------------------------------------------------------------- build
def decide_build(c: Check, built: bool, build_log: str, tool_log: str,
                 allowlist: List[str]) -> Record:
    r = new(c)
    cfg = c.args[0]
    if not built:
        err = logs.first_error(build_log) or logs.first_error(tool_log)
        if err:
            return r.set('FAIL', f'does not build with the {cfg} config: {err[0]}', '\n'.join(err[1]))
        tail = (build_log or tool_log).strip().split('\n')[-25:]
        return r.set('FAIL', f'does not build with the {cfg} config', '\n'.join(tail))
    w = logs.new_warning(build_log, allowlist)
    if w:
        return r.set('FAIL', f'builds with the {cfg} config, but with a new warning: {w[0]}', '\n'.join(w[1]))
    return r.set('PASS', f'builds with the {cfg} config')


def decide_no_kernel(c: Check, cfg: str) -> Record:
    return new(c).set('SKIP', f'no {cfg} kernel (build failed)')


# ---------------------------------------------------------------- guest
def _around(lines: List[str], i: int, before: int = 3, after: int = 25) -> str:
    return '\n'.join(lines[max(0, i - before):i + after])


def decide_guest(c: Check, con: logs.Console, sec: Optional[logs.Section], timeout: int,
                 smap: Optional[logs.SystemMap] = None, last: bool = False) -> Record:
    """The verdict of one guest check from its boot's console.

    sec is the check's own section (None: the boot died before the check
    started); last says the check was the boot's last, so an error after
    its end marker (at power-off) is still its own."""
    r = new(c)
    smap = smap or logs.SystemMap(None)
    if sec is None:
        # the boot ended before this check began
        err = con.kernel_error()
        if err:
            return r.set('ERROR', f'kernel error before the check started: {logs.strip_ts(err[1]).strip()}',
                         _around(con.lines, err[0]))
        if con.rc == exitcodes.RUN_TIMEOUT:
            return r.set('TIMEOUT', f'the guest did not come up: {con.note}', '\n'.join(con.lines[-25:]))
        return r.set('ERROR', f'could not run the guest (runner exit {con.rc}): {con.note or "no check started"}',
                     '\n'.join(con.lines[-25:]))
    r.seconds = sec.seconds
    end = con.cut if (last or not sec.ended) else sec.end
    err = con.kernel_error(sec.start, end)
    if err:
        why = f'kernel error: {logs.strip_ts(err[1]).strip()}'
        if logs.HANG_REPORT.search(err[1]):
            # the kernel's own hang report: where the task or CPU is stuck
            where = logs.stuck_summary(logs.sysrq_stacks(con.lines[err[0]:], smap))
            why += f'; {where}' if where else ''
        return r.set('ERROR', why, symbolize_excerpt(_around(con.lines, err[0]), smap))
    results = sec.results()
    if not sec.ended:
        step = sec.last_step()
        passed = [n for n, v, _ in results if v == 'PASS']
        if con.rc == exitcodes.RUN_TIMEOUT:
            stacks = logs.sysrq_stacks(con.after_cut(), smap)
            where = logs.stuck_summary(stacks) or 'no stack: the kernel did not answer SysRq'
            st, spent = timelimits.step_timeout(con.note), timelimits.run_spent(con.note)
            why = f'timeout: no end after {timeout} s'
            if st:
                why = f"timeout: no end after {st[1]} s (a '{st[0]}' step's limit)"
            elif spent is not None:
                why = f"timeout: the boot's time ran out (the sum of its checks' limits, {spent} s)"
            if step:
                why += f", during '{step}'"
            if passed:
                why += f' (after {len(passed)} result(s) passed)'
            why += f'; {where}'
            ex = con.lines[max(sec.start, con.cut - 12):con.cut] + con.after_cut()
            return r.set('TIMEOUT', why, symbolize_excerpt('\n'.join(ex), smap))
        return r.set('ERROR', f'the guest stopped during the check ({con.note or f"runner exit {con.rc}"})',
                     '\n'.join(con.lines[max(sec.start, con.cut - 25):con.cut]))
    if c.kunit_lab:
        return _decide_kunit(r, c, con, sec)
    f = plausible.find(c.id, sec.metrics())
    if f:
        # the figures as the run printed them, and its results
        ex = [con.lines[t.line] for t in sec.tagged if t.kind in ('METRIC', 'RESULT')]
        return implausible(r, f, '\n'.join(ex))
    fails = [(n, m) for n, v, m in results if v == 'FAIL']
    if fails:
        n, m = fails[0]
        idx = next(t.line for t in sec.tagged if t.kind == 'RESULT' and t.words[:2] == [n, 'FAIL'])
        ctx = [l for l in con.lines[max(sec.start + 1, idx - 14):idx + 1]]
        return r.set('FAIL', f'{n} {m}'.strip(), '\n'.join(ctx))
    if not results:
        return r.set('FAIL', 'the test reported no result', '\n'.join(con.lines[sec.start:sec.end][-25:]))
    if len(results) == 1 and results[0][2]:
        # one measurement: its own words say what was measured
        return r.set('PASS', results[0][2])
    last = results[-1][2]
    return r.set('PASS', f'{len(results)} guest results passed' + (f'; last: {last}' if last else ''))


def decide_skip(c: Check, why: str) -> Record:
    """A check the grade cannot run here, for WHY (the student edition has
    no reference kernel or figure for it)."""
    return new(c).set('SKIP', why)


def decide_off(c: Check) -> Record:
    """A check switched off for this grade (latency, unless asked for)."""
    return new(c).set('SKIP', 'not run (not counted): turn it on with LATENCY=1 (make grade) or --latency')


def decide_no_reference(c: Check, stage: str) -> Record:
    """A check whose reference stage kernel does not build: SKIP."""
    return new(c).set('SKIP', f'reference stage {stage} does not build')


def decide_unfinished(c: Check, status: str, message: str, running: bool) -> Record:
    """A check a grade that ended early (STATUS: rejected, interrupted,
    error) never decided: ERROR for the one that was RUNNING when it was
    interrupted, else SKIP with why."""
    if status == 'interrupted' and running:
        return new(c).set('ERROR', 'interrupted while this check ran')
    return new(c).set('SKIP', 'not run: ' + ('the submission was rejected' if status == 'rejected'
                                             else message or status))


def decide_not_reached(c: Check) -> Record:
    """A check a progress report is written before (the grade goes on)."""
    return new(c).set('SKIP', 'not reached: the grade ended before this check')


def decide_rejected(lab: str, msg: str) -> Record:
    """The hygiene row of a refused submission (intake, hygiene, a policy)."""
    return Record('hygiene', lab, 0).set('FAIL', msg)


def decide_grader_error(lab: str, msg: str, tb: str) -> Record:
    """The one row of a grade the grader itself failed."""
    return Record('grader', lab or '-', 0).set('ERROR', msg, tb)


def decide_not_run_hang(c: Check, func: str, first: str) -> Record:
    """A check of a kernel that already hung twice in a row in the same
    function (run.Hangs): not booted again."""
    return new(c).set('ERROR', f'not run: the kernel hangs in {func} (see {first})')


def decide_markers_out_of_order(c: Check, expected: List[str]) -> Record:
    """A check of a grouped boot whose console shows the grader's CHECK
    markers repeated or out of the order the boot ran them in (the guest
    script prints each once, in order): the kernel under test printed
    them, and the check's time and result cannot be told apart from its
    neighbour's (run.run_group)."""
    return new(c).set('ERROR', 'the console shows the check markers repeated or out of their order '
                               f"({', '.join(expected)}): printed by the kernel under test, not the grader")


def decide_not_run(c: Check, why: str) -> Record:
    """A check its boot's time ran out before (run.run_group): TIMEOUT."""
    return new(c).set('TIMEOUT', why)


def expected_cases(lab: str) -> List[str]:
    """The cases of lab LAB's white-box suite, from its source in
    grader/kunit (the record the kernel's KTAP is checked against)."""
    out: List[str] = []
    for f in sorted(glob.glob(os.path.join(ROOT, 'grader', 'kunit', '*.c'))):
        with open(f, encoding='utf-8') as fh:
            for m in re.finditer(rf'KUNIT_CASE\((lab{lab}_\w+)\)', fh.read()):
                if m.group(1) not in out:
                    out.append(m.group(1))
    return out


def _decide_kunit(r: Record, c: Check, con: logs.Console, sec: logs.Section) -> Record:
    lab = c.kunit_lab
    suite = f'swaplab-lab{lab}'
    fails = [(n, m) for n, v, m in sec.results() if v == 'FAIL']
    if fails:
        return r.set('FAIL', f'{fails[0][0]} {fails[0][1]}')
    # the suite runs once a boot; its KTAP is searched in the whole console
    # before the cut (printk and the guest's own lines reach the serial
    # console in no fixed order, so the marker may follow the header)
    ks = logs.parse_ktap(con.lines[:con.cut], suite)
    if not ks.found:
        return r.set('FAIL', f'kunit-{lab}: no KTAP for suite {suite} on the console',
                     '\n'.join(con.lines[sec.start:sec.end][-25:]))
    if not ks.cases:
        return r.set('FAIL', f'kunit-{lab}: suite {suite} ran no test case', '\n'.join(ks.lines))
    blocks = sum(1 for l in con.lines[:con.cut]
                 if logs.PRINTK_TS.match(l) and logs.strip_ts(l).strip() == f'# Subtest: {suite}')
    if blocks > 1:
        return r.set('FAIL', f'kunit-{lab}: {blocks} KTAP blocks for suite {suite} on the console '
                             '(the suite runs once: the others are not its own)', '\n'.join(ks.lines))
    r.metrics['cases'] = {k.name: k.status for k in ks.cases}
    want = expected_cases(lab)
    got = [k.name for k in ks.cases]
    if want and got != want:
        missing = [n for n in want if n not in got]
        extra = [n for n in got if n not in want]
        why = (f"cases missing: {', '.join(missing)}" if missing else '') + \
              ('; ' if missing and extra else '') + (f"unknown cases: {', '.join(extra)}" if extra else '')
        return r.set('FAIL', f'kunit-{lab}: the KTAP does not match the suite ({why or "order differs"})',
                     '\n'.join(ks.lines))
    skipped = [k for k in ks.cases if k.status == 'SKIPPED']
    if skipped:
        return r.set('FAIL', f'kunit-{lab}.{skipped[0].name} was skipped: every case must run',
                     '\n'.join(_case_lines(ks.lines, skipped[0].name)))
    bad = [k for k in ks.cases if not k.ok]
    if bad:
        k = bad[0]
        name = k.name[len(f'lab{lab}_'):] if k.name.startswith(f'lab{lab}_') else k.name
        return r.set('FAIL', f'kunit-{lab}.{name} {k.message()}',
                     '\n'.join(_case_lines(ks.lines, k.name)))
    if ks.errors:
        return r.set('FAIL', f'kunit-{lab}: malformed KTAP ({ks.errors} parse errors)', '\n'.join(ks.lines))
    return r.set('PASS', f'{len(ks.cases)} KUnit cases passed')


def _case_lines(block: List[str], name: str) -> List[str]:
    """A case's own KTAP lines: from after the previous result line to its own."""
    out: List[str] = []
    for l in block:
        s = l.strip()
        if s.startswith('ok ') or s.startswith('not ok '):
            if s.endswith(' ' + name):
                out.append(l)
                return out
            out = []
            continue
        out.append(l)
    return out


def symbolize_excerpt(text: str, smap: logs.SystemMap) -> str:
    return logs.symbolize(text, smap) if smap.addrs else text


# ---------------------------------------------------------------- lockfp
def decide_lockfp(c: Check, mine: Optional[Dict[str, str]], ref: Optional[Dict[str, str]],
                  ref_stage: str, factor: float, fig_note: Optional[str] = None,
                  mine_run: Optional[Record] = None) -> Record:
    """The lock fingerprint: MINE's si->lock takes per page against REF's
    (the solution's, REF_STAGE), at most FACTOR times.  FIG_NOTE: where a
    recorded figure came from (the student edition), added to a PASS or
    FAIL; MINE_RUN: the lock_stat run on the graded kernel, whose own
    failure (TIMEOUT, ERROR; a FAIL counts as ERROR) is the verdict when
    it measured nothing."""
    r = _lockfp(c, mine, ref, ref_stage, factor)
    if fig_note is not None and r.verdict in ('PASS', 'FAIL'):
        r.set(r.verdict, f'{r.reason}; {fig_note}', r.excerpt)
    if mine is None and mine_run is not None and mine_run.verdict != 'PASS':
        r.set(mine_run.verdict if mine_run.verdict != 'FAIL' else 'ERROR',
              f'lock_stat run on your kernel: {mine_run.reason}', mine_run.excerpt)
    return r


def _lockfp(c: Check, mine: Optional[Dict[str, str]], ref: Optional[Dict[str, str]],
            ref_stage: str, factor: float) -> Record:
    r = new(c)
    a = (mine or {}).get('si_lock_acq_per_page')
    b = (ref or {}).get('si_lock_acq_per_page')
    ex_lines = []
    for who, m in (('your kernel', mine), (f'solution kernel (stage {ref_stage})', ref)):
        ex_lines.append(f'{who}:')
        for k, v in sorted((m or {}).items()):
            ex_lines.append(f'  {k:<28} {v}')
    ex = '\n'.join(ex_lines)
    if a is None or b is None:
        return r.set('ERROR', 'lock_stat run failed (no si->lock count)', ex)
    # the graded kernel's figures only: the solution's are the kit's own
    f = plausible.find(c.id, mine or {})
    if f:
        return implausible(r, f, ex)
    fa, fb = float(a), float(b)
    r.metrics.update({'mine': fa, 'solution': fb, 'bound': factor})
    # time under si->lock per swapped page (lock_stat hold time; the debug
    # kernel's lockdep makes every hold longer, so compare, do not quote)
    ha = (mine or {}).get('si_lock_hold_ns_per_page')
    hb = (ref or {}).get('si_lock_hold_ns_per_page')
    held = ''
    if ha is not None and hb is not None:
        held = f'; held {float(ha):g} ns per page (solution {float(hb):g} ns)'
        r.metrics.update({'mine_hold_ns_per_page': float(ha), 'solution_hold_ns_per_page': float(hb)})
    # pages served per take: the batch the design really achieves
    def per(x: float) -> str:
        if x <= 0:
            return 'no take at all'
        return f'one take per {1 / x:.3g} pages' if x < 1 else f'{x:.3g} takes per page'

    if fa <= fb * factor:
        how = f': {per(fa)}' if fa < 1 else ''
        return r.set('PASS', f'si->lock taken {a} times per swapped page (solution {b}, bound {factor:g}x)'
                             f'{how}{held}')
    times = f'{fa / fb:.1f}x' if fb > 0 else 'more than'
    # at least one take every other page: the lock is where it was; fewer:
    # the idea is there, but its batch is smaller than the design allows
    # or some path bypasses it
    why = ('the lock is still on the hot path' if fa >= 0.5 else
           'a smaller batch or cache than the design\'s, or a path that bypasses it')
    if fa < 1:      # the batch achieved, against the solution's
        how = f': {per(fa)} (solution: {1 / fb:.3g})' if fb > 0 else f': {per(fa)}'
    else:
        how = ''
    return r.set('FAIL', f'si->lock taken {a} times per swapped page, {times} the solution\'s {b} '
                         f'(bound {factor:g}x){how}; {why}{held}', ex)


# ---------------------------------------------------------------- latency
LATENCY_MIN_ROUNDS = 3
LATENCY_CLEAR = 1.5     # stop early when the ratio is this far from the bound


def _best_ratio(rounds: List[Dict[str, Optional[float]]]) -> Optional[float]:
    am = [x['median'] for x in rounds if x['who'] == 'mine' and x.get('median') is not None]
    bm = [x['median'] for x in rounds if x['who'] == 'ref' and x.get('median') is not None]
    return min(am) / min(bm) if am and bm else None


def latency_settled(rounds: List[Dict[str, Optional[float]]], tol: float) -> bool:
    """After LATENCY_MIN_ROUNDS interleaved rounds, more rounds cannot turn a
    verdict this clear: the best-median ratio is at most tol / 1.5 or at
    least tol x 1.5 (a run that failed to measure never settles it)."""
    n = len({x['round'] for x in rounds})
    if n < LATENCY_MIN_ROUNDS or any(x.get('median') is None for x in rounds):
        return False
    q = _best_ratio(rounds)
    return q is not None and (q <= tol / LATENCY_CLEAR or q >= tol * LATENCY_CLEAR)


def decide_latency(c: Check, rounds: List[Dict[str, Optional[float]]], want: int,
                   tol: float) -> Record:
    """rounds: one dict per boot: who (mine|ref), round, median, p99."""
    r = new(c)

    def vals(who: str, k: str) -> List[float]:
        return sorted(x[k] for x in rounds if x['who'] == who and x.get(k) is not None)

    am, bm = vals('mine', 'median'), vals('ref', 'median')
    ap, bp = vals('mine', 'p99'), vals('ref', 'p99')
    table = '\n'.join(f"  round {x['round']} {x['who']:<4} median {x.get('median')} us, p99 {x.get('p99')} us"
                      for x in rounds)
    done = len({x['round'] for x in rounds})
    if len(am) + len(bm) < 2 * done or not am or not bm:
        return r.set('ERROR', f'a latency run failed ({len(am) + len(bm)} of {2 * done} runs measured)', table)
    # the graded kernel's runs only: the solution's are the kit's own
    for x in rounds:
        if x['who'] == 'mine':
            f = plausible.find(c.id, {'fault_median_us': x['median'], 'fault_p99_us': x.get('p99')},
                               note=f"round {x['round']} of your kernel")
            if f:
                return implausible(r, f, table)
    a, b = am[0], bm[0]
    med = lambda v: v[(len(v) - 1) // 2] if v else None   # noqa: E731
    ratio = a / b
    # the spread: each round's ratio (mine / solution, same round)
    per = sorted(m['median'] / s['median'] for m in rounds for s in rounds
                 if m['who'] == 'mine' and s['who'] == 'ref' and m['round'] == s['round'])
    r.metrics.update({'mine_best_median_us': a, 'solution_best_median_us': b, 'ratio': round(ratio, 2),
                      'round_ratios': [round(x, 2) for x in per], 'rounds': done,
                      'mine_p99_us': med(ap), 'solution_p99_us': med(bp), 'bound': tol,
                      'mine_medians_us': am, 'solution_medians_us': bm})
    early = f' (of up to {want}: the verdict was clear)' if done < want else ''
    msg = (f'swap-in median {a:g} us (p99 {med(ap)}), solution {b:g} us (p99 {med(bp)}): '
           f'{ratio:.2f}x (per round {per[0]:.2f}-{per[-1]:.2f}x), bound {tol:.2f}x, '
           f'best of {done} interleaved rounds{early}')
    if round(ratio, 2) <= tol:
        return r.set('PASS', msg)
    return r.set('FAIL', msg + ": the fault path is slower than the solution's", table)
