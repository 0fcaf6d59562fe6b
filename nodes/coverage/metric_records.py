"""The `coverage` output (seed 003) read back as metric records, one per declared metric, 0..5.

A null score means a judge step never gave a valid reply (the rationale says which); content
problems score 0 and count as judged. With the run's details, each record carries what its
declaration reads from them (`MetricDeclaration.read_signals`: the counts the formula used).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...declarations.metric_declaration import MetricDeclaration
from ...schemas.metrics import MetricRecord, Score
from .metrics import DECLARED

METRICS = tuple(metric.spec for metric in DECLARED)


def coverage_score_records(scores: Mapping[str, Score], result: dict, selected: tuple[str, ...] | None = None,
                           metrics: tuple[MetricDeclaration, ...] = DECLARED) -> list[MetricRecord]:
    """A judged run's records: status, cause and signals from its scores; the bullets as rendered."""
    explanation = "\n".join(result.get("rationale") or [])
    return [MetricRecord(metric.key, result.get(metric.spec.field), explanation, score.status, "coverage",
                         score.scale, score.error, signals=score.signals)
            for metric in metrics if (score := scores.get(metric.key)) is not None]


def read_coverage_metrics(result: dict, selected: tuple[str, ...] | None = None,
                          details: Mapping[str, Any] | None = None,
                          metrics: tuple[MetricDeclaration, ...] = DECLARED) -> list[MetricRecord]:
    explanation = "\n".join(result.get("rationale") or [])
    return [MetricRecord(metric.key, result.get(metric.spec.field), explanation,
                   "judged" if result.get(metric.spec.field) is not None else "failed", "coverage",
                   metric.spec.scale, signals=metric.read_signals(details))
            for metric in metrics]
