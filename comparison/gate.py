"""The CI gate: `--fail-if-worse faithfulness:0.02,answer_relevance:0.05`.

The rule, per metric, on the 95 % interval of (after - before):
- its upper end below -margin: the metric got worse by more than the margin -> the gate fails;
- the interval straddles -margin: "inconclusive" (more items would tell) -> the gate passes;
- otherwise: no drop beyond the margin -> the gate passes.
Scores use the interval of the mean difference; ordinal metrics (liverag, coverage) that of
the net share of items improved, (up - down) / n, so a margin of 0.05 there means "at most one
item in twenty more went down than up". Labels have no direction and cannot be gated.

Why a metric with no interval fails the gate: the after run judged none of the items the
before run did (all failed, say); that is what a gate exists to catch, not to wave through.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from .compare_runs import Comparison
from .run_file import ComparisonError

Outcome = Literal["worse", "inconclusive", "ok", "no_data"]
FAILING: frozenset[Outcome] = frozenset({"worse", "no_data"})


@dataclass(frozen=True)
class GateRule:
    metric: str
    margin: float


@dataclass(frozen=True)
class GateVerdict:
    metric: str
    margin: float
    outcome: Outcome
    interval: tuple[float, float] | None
    message: str

    @property
    def fails(self) -> bool:
        return self.outcome in FAILING


def parse_gate(text: str) -> list[GateRule]:
    """`metric:margin,...` -> rules; `ComparisonError` naming the bad part."""
    rules = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        name, colon, margin_text = part.rpartition(":")
        if not colon or not name.strip():
            raise ComparisonError(f"--fail-if-worse: {part!r} is not metric:margin (e.g. faithfulness:0.02)")
        try:
            margin = float(margin_text)
        except ValueError:
            raise ComparisonError(f"--fail-if-worse: the margin in {part!r} is not a number") from None
        if not math.isfinite(margin) or margin < 0:
            raise ComparisonError(f"--fail-if-worse: the margin in {part!r} must be a number >= 0")
        rules.append(GateRule(name.strip(), margin))
    if not rules:
        raise ComparisonError("--fail-if-worse: give at least one metric:margin (e.g. faithfulness:0.02)")
    return rules


def _format(interval: tuple[float, float]) -> str:
    return f"[{interval[0]:+.3f}, {interval[1]:+.3f}]"


def apply_gate(rules: list[GateRule], comparison: Comparison) -> list[GateVerdict]:
    """One verdict per rule; `ComparisonError` for a metric the files do not have or that has
    labels only (a mistake in the CI configuration, not a result)."""
    verdicts = []
    for rule in rules:
        metric = comparison.metric(rule.metric)
        if metric is None:
            known = ", ".join(m.key for m in comparison.metrics)
            raise ComparisonError(f"--fail-if-worse: no metric {rule.metric!r} in this comparison (it has: {known})")
        if metric.pairs.kind == "label" or (metric.labels is not None and not metric.pairs.numeric):
            raise ComparisonError(f"--fail-if-worse: {rule.metric} is judged with labels, which have no "
                                  "better or worse; gate a score or ordinal metric")
        what = "net share improved" if metric.ordinal is not None else "after - before"
        if metric.corrected is not None:
            what = f"label-corrected after - before ({'paired' if metric.corrected.paired else 'unpaired'})"
        interval = metric.gate_interval
        limit = -rule.margin
        if interval is None or not all(math.isfinite(end) for end in interval):
            # A NaN interval compares false with everything and would read as "no drop".
            interval = None
            outcome: Outcome = "no_data"
            message = (f"{rule.metric}: FAILED: no item judged in both runs, so no interval to check "
                       f"({sum(metric.pairs.status_changes.values())} changed status)")
        elif interval[1] < limit:
            outcome = "worse"
            message = (f"{rule.metric}: WORSE: 95 % interval of {what} {_format(interval)} lies below "
                       f"-{rule.margin:g}")
        elif interval[0] < limit:
            outcome = "inconclusive"
            message = (f"{rule.metric}: inconclusive: 95 % interval of {what} {_format(interval)} straddles "
                       f"-{rule.margin:g}")
        else:
            outcome = "ok"
            message = (f"{rule.metric}: ok: 95 % interval of {what} {_format(interval)} shows no drop beyond "
                       f"-{rule.margin:g}")
        verdicts.append(GateVerdict(rule.metric, rule.margin, outcome, interval, message))
    return verdicts
