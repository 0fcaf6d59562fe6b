"""A test's thresholds checked against the metrics judgegraph declares, and an item's scores
read against them.

Why here and strict: a gate that cannot fail is worse than no gate. A misspelt metric
(`faithfullness=0.8`) that is silently ignored, a threshold at the bottom of the scale
(`faithfulness=0`), or a metric that came back null and counts as a pass would all let every
test pass while checking nothing. So an unknown name is refused before the item is judged
(naming the metrics there are), a threshold that every score or no score meets is refused,
and a metric that was not judged (null, or not applicable to the item) fails with its reason.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..text.visible import visible

if TYPE_CHECKING:
    from ..graph.api import EvaluationRun
    from ..schemas.metrics import MetricRecord

EVIDENCE_CHARS = 160
"""A failing claim's evidence is shown up to this many characters."""


def declared_metrics() -> dict[str, list[str]]:
    """{metric: the rubrics that declare it}, over every declared rubric."""
    from ..graph import rubrics

    found: dict[str, list[str]] = {}
    for rubric in rubrics.RUBRICS:
        for spec in rubric.metrics:
            found.setdefault(spec.key, []).append(rubric.name)
    return found


def checked_thresholds(thresholds: Mapping[str, Any]) -> dict[str, float]:
    """The thresholds as numbers, once each name is known to judgegraph.

    Raises:
        ValueError: no threshold, or a name no rubric declares (the message lists those there are).
        TypeError: a threshold that is not a finite number.
    """
    if not thresholds:
        raise ValueError("assert_judged needs at least one metric=threshold, e.g. faithfulness=0.8")
    known = declared_metrics()
    unknown = [name for name in thresholds if name not in known]
    if unknown:
        raise ValueError(f"assert_judged: no rubric has a metric named {', '.join(map(repr, unknown))}; "
                         f"the metrics are {', '.join(sorted(known))}")
    checked: dict[str, float] = {}
    for name, value in thresholds.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise TypeError(f"assert_judged: the threshold for {name} must be a finite number, got {value!r}")
        checked[name] = float(value)
    return checked


@dataclass(frozen=True)
class Outcome:
    """One metric of one judged item against its threshold."""

    metric: str
    threshold: float
    score: float | None
    passed: bool
    status: str
    """The metric's status: `judged`, `not_applicable` or `failed` (`schemas.metrics.Status`)."""
    explanation: str
    """The metric's explanation when judged, else why it has no score."""
    unsupported_claims: list[str] = field(default_factory=list)
    """For a metric scored from the answer's claims: those the context does not support."""


def _judged_metrics(run: EvaluationRun) -> dict[str, MetricRecord]:
    from ..graph.metrics_view import run_metrics

    found: dict[str, MetricRecord] = {}
    for name in run.rubrics:
        for metric in run_metrics(name, run.results.get(name, run.result), run.scores.get(name)):
            found.setdefault(metric.key, metric)
    return found


def _checked_scale(metric: MetricRecord, threshold: float) -> None:
    """Refuse a threshold that decides nothing on the metric's scale."""
    if metric.scale is None:
        return
    low, high = metric.scale
    if threshold <= low:
        raise ValueError(f"assert_judged: a threshold of {threshold:g} for {metric.key} (scale {low:g}..{high:g}) "
                         f"is met by every score; give one above {low:g}")
    if threshold > high:
        raise ValueError(f"assert_judged: a threshold of {threshold:g} for {metric.key} (scale {low:g}..{high:g}) "
                         "is met by no score")


def _unsupported_claims(run: EvaluationRun) -> list[str]:
    lines = []
    for verdict in run.verdicts:
        if verdict.counts_as_supported:
            continue
        line = f"{verdict.claim!r}: {verdict.effective_verdict}"
        if verdict.evidence:
            evidence = verdict.evidence if len(verdict.evidence) <= EVIDENCE_CHARS else \
                verdict.evidence[:EVIDENCE_CHARS] + "…"
            line += f"; closest context: {evidence!r}"
        lines.append(visible(line))
    return lines


def outcomes(run: EvaluationRun, thresholds: Mapping[str, float]) -> list[Outcome]:
    """Each threshold's metric in `run`, passed only when judged with a score at or above it.

    Raises:
        ValueError: a metric the item's rubric does not have, or a threshold outside its scale.
    """
    from ..graph import rubrics

    judged = _judged_metrics(run)
    found: list[Outcome] = []
    for name, threshold in thresholds.items():
        metric = judged.get(name)
        if metric is None:
            names = ", ".join(judged) or "none"
            raise ValueError(f"assert_judged: the item was judged with the {' and '.join(run.rubrics)} rubric, "
                             f"which has no metric {name!r} (its metrics: {names}); pass rubric= to choose another")
        _checked_scale(metric, threshold)
        score = metric.score if metric.status == "judged" else None
        passed = score is not None and score >= threshold
        if metric.status == "judged" and score is None:
            why = f"no score (a categorical result: {metric.value!r})"
        elif metric.status == "judged":
            why = metric.comment or ""
        else:
            why = metric.error or metric.comment or metric.status.replace("_", " ")
        spec = rubrics.get(metric.rubric).metric(metric.key) if rubrics.find(metric.rubric) else None
        claims = _unsupported_claims(run) if spec is not None and spec.from_claims and not passed else []
        found.append(Outcome(name, threshold, None if score is None else float(score), passed, metric.status,
                             visible(why), claims))
    return found


def _score(value: float | None) -> str:
    return "null" if value is None else f"{value:.2f}"


def failure_message(label: str, found: list[Outcome]) -> str:
    """What a failed `assert_judged` says: each metric, its score against its threshold, its
    explanation, and for a claim-based metric the claims the context does not support."""
    failed = [outcome for outcome in found if not outcome.passed]
    lines = [f"judgegraph: {len(failed)} of {len(found)} metric(s) below threshold for {visible(label)}"]
    for outcome in found:
        if outcome.passed:
            lines.append(f"{outcome.metric}: {_score(outcome.score)} >= threshold {outcome.threshold:g}: passed")
            continue
        if outcome.status == "judged" and outcome.score is not None:
            head = f"{outcome.metric}: {_score(outcome.score)} < threshold {outcome.threshold:g}: FAILED"
        elif outcome.status == "not_applicable":
            head = f"{outcome.metric}: null (does not apply to this item), threshold {outcome.threshold:g}: FAILED"
        else:
            head = f"{outcome.metric}: null (not judged), threshold {outcome.threshold:g}: FAILED"
        lines.append(head)
        if outcome.explanation:
            lines.append(f"  {outcome.explanation}")
        if outcome.unsupported_claims:
            lines.append("  claims the context does not support:")
            lines.extend(f"    - {claim}" for claim in outcome.unsupported_claims)
    return "\n".join(lines)
