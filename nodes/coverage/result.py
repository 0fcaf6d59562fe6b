"""The `coverage` rubric (seed 003): its plan and its `{"score", "rationale"}` output, assembled
from its metrics' scores (`metrics.DECLARED`); the rules are the metric's
(`coverage_metric.py`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ...declarations.metric_declaration import MetricDeclaration, decided, entry_nodes
from ...schemas.coverage import CoverageInput, CoverageResult
from ...schemas.metrics import Score
from .coverage_metric import as_metric_score, content_failure, content_problem, shortened
from .metrics import DECLARED


def plan_coverage(coverage: CoverageInput, metrics: tuple[MetricDeclaration, ...] = DECLARED) -> list[str]:
    """Nothing to run for content the rules already score; otherwise the metrics' entry nodes
    (enumeration, which then fans out the element checks and the organization judgment itself)."""
    return [] if content_problem(coverage) else entry_nodes(metrics)


def score_coverage_metrics(state: Mapping[str, Any], coverage: CoverageInput,
                           metrics: tuple[MetricDeclaration, ...] = DECLARED) -> dict[str, Score]:
    """Each metric decided once from the finished state."""
    return {metric.key: decided(metric, state, coverage, state.get("profile")) for metric in metrics}


def coverage_result(scores: Mapping[str, Score], coverage: CoverageInput, state: Mapping[str, Any] | None = None,
                    metrics: tuple[MetricDeclaration, ...] = DECLARED) -> CoverageResult:
    """Each metric's score in its field, and its block (the bullets) in the block's field."""
    fields: dict[str, Any] = {}
    for metric in metrics:
        scored = scores[metric.key]
        fields[metric.spec.field] = None if scored.score is None else int(scored.score)
        if metric.output_block is not None:
            fields[metric.output_block[0]] = scored.breakdown
    return CoverageResult(**fields)


def coverage_error(error: str) -> CoverageResult:
    """Judging broke (an internal error, not the content): score null, the error in the bullets.
    Never the content rule's 0: a crash is not evidence that the output misses the reference."""
    note = "not assessed; judging failed."
    return CoverageResult(score=None, rationale=[
        f"Fact: {note}", f"Conclusion: {note}", f"Terminology: {note}", f"Organization: {note}",
        f"Score: not computed, because judging failed: {shortened(error)}",
    ])


def coverage_failure(reason: str) -> CoverageResult:
    """Invalid input (missing, blank or mistyped reference or output): content problem, score 0."""
    return content_failure(reason)


def coverage_failure_scores(reason: str, metrics: tuple[MetricDeclaration, ...] = DECLARED) -> dict[str, Score]:
    """What `coverage_failure`'s output stands for: judged, 0, by the seed's content rule."""
    return {metric.key: replace(as_metric_score(content_failure(reason)), scale=metric.spec.scale) for metric in metrics}
