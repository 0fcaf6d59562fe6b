"""The `expected_output` rubric (seed 001): its plan and its output, assembled from its metrics'
scores (`metrics.DECLARED`).

The seed's output mixes judgment with bookkeeping; code owns the bookkeeping
(`expected_output_metric.assemble`). A metric that never produced a valid reply gives the
seed's error object naming the step and the reason, never a made-up score.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...declarations.metric_declaration import MetricDeclaration, decided, entry_nodes
from ...schemas.expected_output import EvaluationFailure, ExpectedOutputInput, ExpectedOutputResult
from ...schemas.metrics import Score
from .expected_output_metric import expected_output_failure
from .metrics import DECLARED

__all__ = ["expected_output_failure", "expected_output_result", "plan_expected_output", "score_expected_output_metrics"]


def plan_expected_output(_: ExpectedOutputInput, metrics: tuple[MetricDeclaration, ...] = DECLARED) -> list[str]:
    return entry_nodes(metrics)


def score_expected_output_metrics(state: Mapping[str, Any], item: ExpectedOutputInput,
                                  metrics: tuple[MetricDeclaration, ...] = DECLARED) -> dict[str, Score]:
    """Each metric decided once from the finished state."""
    return {metric.key: decided(metric, state, item, state.get("profile")) for metric in metrics}


def expected_output_result(scores: Mapping[str, Score], item: ExpectedOutputInput,
                           state: Mapping[str, Any] | None = None,
                           metrics: tuple[MetricDeclaration, ...] = DECLARED) -> ExpectedOutputResult | EvaluationFailure:
    """Each metric's block (the evaluation) in its field; the first failed metric's error object."""
    blocks: dict[str, Any] = {}
    for metric in metrics:
        scored = scores[metric.key]
        if scored.error is not None:
            return expected_output_failure(scored.error)
        if metric.output_block is not None:
            blocks[metric.output_block[0]] = scored.breakdown
    return ExpectedOutputResult(**blocks)
