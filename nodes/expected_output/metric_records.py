"""The `expected_output` output (seed 001) read back as its one metric record.

Numerical and range_quality results give a score on the item's own range; a categorical
result gives a label (`value`) and no score; the seed's error object is a failed metric. The
record's signals are the comparison the output itself reports (confidence, exact, semantic
and partial match, how many elements are missing or wrong).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...declarations.rubric_spec import MetricSpec
from ...schemas.metrics import MetricRecord, value_at

METRICS = (MetricSpec("expected_output", kind="score", scale=None, field="evaluation.result.score",
                      label_field="evaluation.result.category"),)


def comparison_signals(evaluation: dict) -> dict[str, Any]:
    comparison = evaluation.get("comparison_details") or {}
    return {"confidence": evaluation.get("confidence"), "exact_match": comparison.get("exact_match"),
            "semantic_match": comparison.get("semantic_match"), "partial_match": comparison.get("partial_match"),
            "missing_elements": len(comparison.get("missing_elements") or []),
            "incorrect_elements": len(comparison.get("incorrect_elements") or [])}


def read_expected_output_metrics(result: dict, selected: tuple[str, ...] | None = None,
                                 details: Mapping[str, Any] | None = None) -> list[MetricRecord]:
    (spec,) = METRICS
    if result.get("error") or "evaluation" not in result:
        message = result.get("error_message") or "no evaluation"
        return [MetricRecord(spec.key, None, message, "failed", "expected_output", error=message)]
    evaluation = result["evaluation"]
    judged = evaluation.get("result") or {}
    scale = (judged["min_range"], judged["max_range"]) if "min_range" in judged else None
    return [MetricRecord(spec.key, value_at(result, spec.field)[1], evaluation.get("reasoning"), "judged",
                         "expected_output", scale, value=value_at(result, spec.label_field)[1],
                         signals=comparison_signals(evaluation))]
