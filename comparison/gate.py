"""The CI gate: `--fail-if-worse faithfulness:0.02,answer_relevance:0.05`.

The rule, per metric, on the 95 % interval of (after - before):
- its upper end below -margin: the metric got worse by more than the margin -> the gate fails;
- the interval straddles -margin: "inconclusive" -> the gate passes, unless the run asked
  `--fail-if-inconclusive` (CI that must decide); its line says about how many more labels
  (with labels) or items (without) would narrow the interval enough to decide, if the
  difference stays where it is: the interval cannot decide at a margin it sits on, and a
  person choosing between labelling more and shipping needs the number;
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

from .compare_runs import Comparison, MetricComparison
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
    fail_if_inconclusive: bool = False
    more_to_decide: int | None = None
    """Inconclusive: about how many more labels (per run) or items would decide it; None when
    no number would while the difference sits on the margin."""

    @property
    def fails(self) -> bool:
        return self.outcome in FAILING or (self.fail_if_inconclusive and self.outcome == "inconclusive")


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


def _more_to_decide(metric: MetricComparison, margin: float) -> tuple[int | None, str]:
    """(about how many more, of what) would narrow an interval straddling -margin enough to
    lie on one side of it, the difference staying where it is."""
    if metric.corrected is not None:
        from ..estimates.ppi import labels_for_half_width

        estimate = metric.corrected.estimate.corrected
        distance = abs(estimate.estimate + margin)
        what = "labelled items in both runs" if metric.corrected.paired else "labels per run"
        total = labels_for_half_width(estimate, distance, metric.corrected.n_items) if distance > 0 else None
        if total is None or total <= estimate.n_labels:
            return None, what
        return total - estimate.n_labels, what
    low, high = metric.gate_interval  # type: ignore[misc]
    if metric.ordinal is not None:
        centre = metric.ordinal.net_share_improved
    else:
        centre = metric.score.mean_difference if metric.score is not None else None
    n = len(metric.pairs.numeric)
    distance = abs((centre if centre is not None else (low + high) / 2) + margin)
    if distance <= 0 or n == 0:
        return None, "items judged in both runs"
    needed = math.ceil(n * ((high - low) / 2 / distance) ** 2)
    return max(needed - n, 1), "items judged in both runs"


def apply_gate(rules: list[GateRule], comparison: Comparison,
               fail_if_inconclusive: bool = False) -> list[GateVerdict]:
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
            more, unit = _more_to_decide(metric, rule.margin)
            decide = (f"about {more:,} more {unit} would decide it if the difference stays where it is"
                      if more is not None else f"the difference sits on -{rule.margin:g}: no number of {unit} "
                      "decides it there")
            message = (f"{rule.metric}: {'FAILED: ' if fail_if_inconclusive else ''}inconclusive: 95 % interval of "
                       f"{what} {_format(interval)} straddles -{rule.margin:g}; {decide}"
                       + (" (--fail-if-inconclusive)" if fail_if_inconclusive else ""))
            verdicts.append(GateVerdict(rule.metric, rule.margin, outcome, interval, message, fail_if_inconclusive,
                                        more))
            continue
        else:
            outcome = "ok"
            message = (f"{rule.metric}: ok: 95 % interval of {what} {_format(interval)} shows no drop beyond "
                       f"-{rule.margin:g}")
        verdicts.append(GateVerdict(rule.metric, rule.margin, outcome, interval, message))
    return verdicts
