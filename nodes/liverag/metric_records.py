"""The `liverag` output (seed 002) read back as metric records, one per declared metric.

A null score is a metric that could not be judged; `evaluation_notes` says why, for both.
With the run's details, each record carries what its declaration reads from them
(`MetricDeclaration.read_signals`: relevance, the judge's observations; faithfulness, the
claim pipeline's measurements).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...declarations.metric_declaration import MetricDeclaration
from ...schemas.metrics import MetricRecord, Score
from .metrics import DECLARED

METRICS = tuple(metric.spec for metric in DECLARED)


def liverag_score_records(scores: Mapping[str, Score], result: dict, selected: tuple[str, ...] | None = None,
                          metrics: tuple[MetricDeclaration, ...] = DECLARED) -> list[MetricRecord]:
    """A judged run's records: status, cause and signals from its scores; the notes as rendered."""
    notes = result.get("evaluation_notes")
    return [MetricRecord(metric.key, result.get(metric.spec.field), notes, score.status, "liverag", score.scale,
                         score.error, signals=score.signals)
            for metric in metrics if (score := scores.get(metric.key)) is not None]


def read_liverag_metrics(result: dict, selected: tuple[str, ...] | None = None,
                         details: Mapping[str, Any] | None = None,
                         metrics: tuple[MetricDeclaration, ...] = DECLARED) -> list[MetricRecord]:
    notes = result.get("evaluation_notes")
    return [
        MetricRecord(metric.key, result.get(metric.spec.field), notes,
               "judged" if result.get(metric.spec.field) is not None else "failed",
               "liverag", metric.spec.scale, signals=metric.read_signals(details))
        for metric in metrics
    ]
