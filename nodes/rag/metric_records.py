"""The `rag` output (seed 000) read back as metric records: one per requested metric.

The output says "not judged" its own way: invalid input fills `reason` and nulls every
metric; a failed step nulls its metric and names it in `error`; a metric that does not apply
(no reference for semantic similarity) is null with no error. With the run's details, each
record also carries what the step measured.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...schemas.rag import RAG_METRICS
from ...schemas.metrics import Metric, Status
from .metrics import DECLARED, declaration
from .result import NOT_REQUESTED, failed_metrics

METRICS = tuple(metric.spec for metric in DECLARED)
SCALE = (0, 1)


def rag_signals(name: str, details: Mapping[str, Any] | None) -> dict[str, Any]:
    """What the metric's step measured, from the run's details; empty without them."""
    return declaration(name).read_signals(details)


def read_rag_metrics(result: dict, selected: tuple[str, ...] | None = None,
                     details: Mapping[str, Any] | None = None) -> list[Metric]:
    names = selected or RAG_METRICS
    if result.get("reason") and result.get("evaluation_status") == "failed":  # invalid input: nothing judged
        # (a judged item's `reason` may hold a note, such as its language having no figures)
        return [Metric(name, None, result["reason"], "failed", "rag", SCALE, result["reason"]) for name in names]
    error = result.get("error") or ""
    failed = failed_metrics(error)
    metrics = []
    for name in names:
        score = result.get(name)
        status: Status = "judged" if score is not None else ("failed" if name in failed else "not_applicable")
        explanation = result.get(f"{name}_explanation")
        if status == "not_applicable" and explanation == NOT_REQUESTED.explanation:
            continue
        metrics.append(Metric(name, score, explanation, status, "rag", SCALE, error if status == "failed" else None,
                              signals=rag_signals(name, details)))
    return metrics
