"""The `rag` output (seed 000) read back as metric records: one per requested metric.

The output says "not judged" its own way: invalid input fills `reason` and nulls every
metric; a failed step nulls its metric and names it in `error`; a metric that does not apply
(no reference for semantic similarity) is null with no error. With the run's details, each
record also carries what the step measured.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...declarations.metric_declaration import MetricDeclaration
from ...schemas.metrics import MetricRecord, Status
from .metrics import DECLARED
from .result import NOT_REQUESTED, failed_metrics

METRICS = tuple(metric.spec for metric in DECLARED)
SCALE = (0, 1)


def read_rag_metrics(result: dict, selected: tuple[str, ...] | None = None,
                     details: Mapping[str, Any] | None = None,
                     metrics: tuple[MetricDeclaration, ...] = DECLARED) -> list[MetricRecord]:
    """The output's metric records; with the run's details, each carries the signals its
    declaration reads from them (`MetricDeclaration.read_signals`)."""
    declared = {metric.key: metric for metric in metrics}
    # a metric that does not apply to the item (`MetricDeclaration.applies`) has no key in its output
    names = selected or tuple(name for name, metric in declared.items() if metric.applies is None or name in result)
    if result.get("reason") and result.get("evaluation_status") == "failed":  # invalid input: nothing judged
        # (a judged item's `reason` may hold a note, such as its language having no figures)
        return [MetricRecord(name, None, result["reason"], "failed", "rag", SCALE, result["reason"]) for name in names]
    error = result.get("error") or ""
    failed = failed_metrics(error)
    records = []
    for name in names:
        if name not in result and declared[name].applies is not None:
            continue
        score = result.get(name)
        status: Status = "judged" if score is not None else ("failed" if name in failed else "not_applicable")
        explanation = result.get(f"{name}_explanation")
        if status == "not_applicable" and explanation == NOT_REQUESTED.explanation:
            continue
        records.append(MetricRecord(name, score, explanation, status, "rag", SCALE,
                                    error if status == "failed" else None,
                                    signals=declared[name].read_signals(details)))
    return records
