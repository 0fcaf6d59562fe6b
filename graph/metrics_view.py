"""Rubric outputs read as typed metric records, through each rubric's declaration.

A judged run's metrics are made from its typed scores (`run_metrics`: the evaluators, pytest,
a one-item `evaluate`'s exit code, the OpenTelemetry spans); an output read back from a results
file, where only the rendered output travels, is read through its rubric's `read_metrics`
(`record_metrics`: the report, estimates, comparison, labelling, the batch summary).

Why one place: the LangSmith evaluators (one feedback row per metric) and the HTML report
(counts and score distributions per metric) must read an output the same way. Each rubric's
declaration says how (`RubricSpec.read_metrics`); an output of a rubric judgegraph does not
declare (a results file from elsewhere) is read generically, every score-like leaf a metric.
Whether an output as a whole failed (`failure_of`) is read here too: a one-item `evaluate`
decides its exit code with it, and a batch counts its failed records with it
(`batch.summary.record_failure`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..schemas.metrics import MetricRecord, metric_leaves
from . import rubrics


def generic_metrics(rubric: str, result: dict) -> list[MetricRecord]:
    """A rubric no declaration describes: every score-like leaf, None meaning not judged."""
    return [MetricRecord(f"{rubric}.{path}", value, None, "judged" if value is not None else "failed", rubric)
            for path, value in metric_leaves(result)]


def rubric_metrics(rubric: str, result: Any, selected: tuple[str, ...] | None = None,
                   details: Mapping[str, Any] | None = None) -> list[MetricRecord]:
    """The metrics of one rubric's output; with the run's `details`, with their signals."""
    if not isinstance(result, dict):
        return []
    spec = rubrics.find(rubric)
    if spec is None:
        return generic_metrics(rubric, result)
    return spec.read_metrics(result, selected, details)


def run_metrics(rubric: str, result: Any, scores: Mapping[str, Any] | None,
                selected: tuple[str, ...] | None = None) -> list[MetricRecord]:
    """The metrics of one rubric of a judged run, made from its typed scores (`Score`: status,
    failure cause and signals as the deciding step made them) and the output rendered from
    them; a rubric with no scores (an output from elsewhere) is read as a file's would be."""
    spec = rubrics.find(rubric)
    if spec is None or scores is None or not isinstance(result, dict):
        return rubric_metrics(rubric, result, selected)
    return spec.score_records(scores, result, selected)


def record_metrics(record: dict) -> list[MetricRecord]:
    """Every metric of one batch output line (`{"rubric", "result", ...}`), all rubrics of it;
    a line written with `--details` gives the metrics their signals."""
    rubric = record.get("rubric")
    result = record.get("result")
    details = record.get("details") if isinstance(record.get("details"), dict) else None
    if isinstance(rubric, list):
        return [m for name in rubric for m in rubric_metrics(name, (result or {}).get(name), details=details)]
    return rubric_metrics(str(rubric), result, details=details)


def failure_of(result: Any) -> str | None:
    """Why a seed-shaped result counts as failed, or None when it was judged.

    Generic on purpose: `evaluation_status == "failed"` (rag), a truthy `error`
    (`expected_output`'s error object, rag's runtime errors), or `status == "failed"`, at the
    top of the result or of each rubric's result when an item asked for several.
    """
    if not isinstance(result, dict):
        return "result is not an object"
    if result.get("evaluation_status") == "failed" or result.get("status") == "failed":
        return str(result.get("reason") or result.get("error") or "failed")
    error = result.get("error")
    if error:
        return str(result.get("error_message") or error)
    if result and all(isinstance(v, dict) for v in result.values()):
        for name, sub in result.items():
            reason = failure_of(sub) if _looks_like_result(sub) else None
            if reason:
                return f"{name}: {reason}"
    return None


def _looks_like_result(value: dict) -> bool:
    return any(k in value for k in ("evaluation_status", "error", "status"))
