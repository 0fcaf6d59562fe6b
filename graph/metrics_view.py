"""Rubric outputs read as typed metric records, through each rubric's declaration.

Why one place: the LangSmith evaluators (one feedback row per metric) and the HTML report
(counts and score distributions per metric) must read an output the same way. Each rubric's
declaration says how (`RubricSpec.read_metrics`); an output of a rubric judgegraph does not
declare (a results file from elsewhere) is read generically, every score-like leaf a metric.
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


def record_metrics(record: dict) -> list[MetricRecord]:
    """Every metric of one batch output line (`{"rubric", "result", ...}`), all rubrics of it;
    a line written with `--details` gives the metrics their signals."""
    rubric = record.get("rubric")
    result = record.get("result")
    details = record.get("details") if isinstance(record.get("details"), dict) else None
    if isinstance(rubric, list):
        return [m for name in rubric for m in rubric_metrics(name, (result or {}).get(name), details=details)]
    return rubric_metrics(str(rubric), result, details=details)
