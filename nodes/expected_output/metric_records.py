"""The `expected_output` output (seed 001) read back as metric records, one per declared metric.

Numerical and range_quality results give a score on the item's own range; a categorical
result gives a label (`value`) and no score; the seed's error object is a failed metric. The
record's signals are the comparison the output itself reports
(`expected_output_metric.comparison_signals`), with what the declaration reads from the run's
details.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...declarations.metric_declaration import MetricDeclaration
from ...schemas.metrics import MetricRecord, Score, value_at
from .expected_output_metric import comparison_signals
from .metrics import DECLARED

METRICS = tuple(metric.spec for metric in DECLARED)


def expected_output_score_records(scores: Mapping[str, Score], result: dict, selected: tuple[str, ...] | None = None,
                                  metrics: tuple[MetricDeclaration, ...] = DECLARED) -> list[MetricRecord]:
    """A judged run's records: status, cause, scale and signals from its scores; the value and
    label as rendered."""
    return [MetricRecord(metric.key, value_at(result, metric.spec.field)[1], score.explanation, score.status,
                         "expected_output", score.scale, score.error,
                         value=score.label,
                         signals=score.signals)
            for metric in metrics if (score := scores.get(metric.key)) is not None]


def read_expected_output_metrics(result: dict, selected: tuple[str, ...] | None = None,
                                 details: Mapping[str, Any] | None = None,
                                 metrics: tuple[MetricDeclaration, ...] = DECLARED) -> list[MetricRecord]:
    if result.get("error") or "evaluation" not in result:
        message = result.get("error_message") or "no evaluation"
        return [MetricRecord(metric.key, None, message, "failed", "expected_output", error=message) for metric in metrics]
    evaluation = result["evaluation"]
    judged = evaluation.get("result") or {}
    scale = (judged["min_range"], judged["max_range"]) if "min_range" in judged else None
    return [MetricRecord(metric.key, value_at(result, metric.spec.field)[1], evaluation.get("reasoning"), "judged",
                   "expected_output", scale, value=value_at(result, metric.spec.label_field)[1],
                   signals={**comparison_signals(evaluation), **metric.read_signals(details)})
            for metric in metrics]
