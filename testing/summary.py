"""The table a test session ends with: each judged metric against its threshold, and what the
judging cost.

Why a table at the end: a failing test shows its own metrics, but a passing suite should also
say how close it came (a 0.81 against 0.80 passes today and fails tomorrow) and what it spent;
the calls column shows at a glance that an unchanged suite was answered from the cache.
"""

from __future__ import annotations

from .session import JudgeSession
from .thresholds import Outcome

HEADER = ("item", "metric", "score", "threshold", "result", "calls", "tokens")
RIGHT = {"score", "threshold", "calls", "tokens"}


def _result(outcome: Outcome) -> str:
    if outcome.passed:
        return "pass"
    return "FAIL (null)" if outcome.score is None else "FAIL"


def summary_lines(session: JudgeSession) -> list[str]:
    """The table's lines, then one line of totals; nothing when the session judged nothing."""
    if not session.costs:
        return []
    from ..text.visible import visible

    costs = {cost.label: cost for cost in session.costs}
    rows: list[tuple[str, ...]] = []
    shown: set[str] = set()
    for label, outcome in session.outcomes:
        cost = costs[label]
        first = label not in shown
        shown.add(label)
        rows.append((visible(label) if first else "", outcome.metric,
                     "null" if outcome.score is None else f"{outcome.score:.2f}", f"{outcome.threshold:g}",
                     _result(outcome), f"{cost.calls:,}" if first else "",
                     f"{cost.input_tokens + cost.output_tokens:,}" if first else ""))
    widths = [max(len(row[i]) for row in [HEADER, *rows]) for i in range(len(HEADER))]

    def line(row: tuple[str, ...]) -> str:
        cells = [cell.rjust(width) if name in RIGHT else cell.ljust(width)
                 for name, cell, width in zip(HEADER, row, widths)]
        return "  ".join(cells).rstrip()

    calls = sum(cost.calls for cost in session.costs)
    hits = sum(cost.cache_hits for cost in session.costs)
    tokens_in = sum(cost.input_tokens for cost in session.costs)
    tokens_out = sum(cost.output_tokens for cost in session.costs)
    failed = sum(1 for _, outcome in session.outcomes if not outcome.passed)
    judge = visible(session.judge_id or "the default judge")
    totals = (f"{len(session.costs)} item(s) judged by {judge}: {failed} of {len(session.outcomes)} metric(s) "
              f"below threshold; {calls:,} call(s), {tokens_in:,} tokens in, {tokens_out:,} out")
    cache = session.settings.cache
    totals += f"; {hits:,} step(s) from the cache {visible(str(cache))}" if cache is not None else "; no cache"
    return [line(HEADER), *(line(row) for row in rows), totals]
