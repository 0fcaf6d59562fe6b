"""The `expected_output` metric (seed 001): the judged evaluation assembled from the judge's
reply, and its declaration (`EXPECTED_OUTPUT`).

The seed's output mixes judgment with bookkeeping. Code owns the bookkeeping: exact_match
(normalised comparison), the echoed ranges, categories and mappings, and the quality label
looked up from the score's band. The model's reply supplies the rest. A step that never
produced a valid reply gives the seed's error object naming the step and the reason, never
a made-up score.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...calibration.profile import Profile
from ...declarations.metric_declaration import MetricDeclaration, RunDetails
from ...declarations.rubric_spec import MetricSpec, NodeSpec
from ...declarations.scoring import round_half_up
from ...schemas.metrics import Score
from ...llm.structured import StepOutcome
from ...schemas.expected_output import (
    CategoricalResult,
    ComparisonDetails,
    Evaluation,
    EvaluationFailure,
    ExpectedOutputCategory,
    ExpectedOutputInput,
    ExpectedOutputResult,
    ExpectedOutputScore,
    NumericalResult,
    RangeQualityResult,
)
from ...schemas.expected_output_config import label_for
from .judge_expected_output import NODE, judge_expected_output
from .match import exact_match


def expected_output_failure(reason: str) -> EvaluationFailure:
    return EvaluationFailure(error_message=reason)


Reply = ExpectedOutputScore | ExpectedOutputCategory


def _result(item: ExpectedOutputInput, reply: Reply) -> NumericalResult | CategoricalResult | RangeQualityResult:
    """The type's `result` object: the judged score or category plus the config's echo."""
    settings = item.evaluationConfig
    if isinstance(reply, ExpectedOutputCategory):
        return CategoricalResult(category=reply.category,
                                 available_categories=list(settings.available_categories or []))
    echo = {"min_range": settings.min_range, "max_range": settings.max_range}
    if item.evaluationType == "numerical":
        return NumericalResult(score=reply.score, **echo)
    mappings = [m.model_dump() for m in settings.range_mappings or []]
    label = label_for(reply.score, mappings)
    if label is None:  # cannot happen after the config and score checks; refuse to guess
        raise ValueError(f"no range mapping covers score {reply.score}")
    return RangeQualityResult(score=reply.score, quality_label=label, **echo,
                              range_mappings=settings.range_mappings or [])


def assemble(item: ExpectedOutputInput, outcome: StepOutcome | None) -> ExpectedOutputResult | EvaluationFailure:
    """The seed's `{"evaluation": {...}}` from a validated reply, or its error object."""
    if outcome is None or outcome.value is None:
        reason = outcome.error if outcome is not None else "the step did not run"
        return expected_output_failure(f"{NODE} failed: {reason}")
    reply: Reply = outcome.value
    identical = exact_match(item.actualOutput, item.expectedOutput)
    try:
        evaluation = Evaluation(
            evaluation_type=item.evaluationType,
            result=_result(item, reply),
            reasoning=reply.reasoning,
            comparison_details=ComparisonDetails(
                exact_match=identical,
                # Identical outputs mean the same and are not merely partial, whatever was said.
                semantic_match=reply.semantic_match or identical,
                partial_match=reply.partial_match and not identical,
                missing_elements=[e for e in reply.missing_elements if e],
                incorrect_elements=[e for e in reply.incorrect_elements if e],
            ),
            confidence=round_half_up(reply.confidence, 2),
        )
    except ValueError as error:  # includes pydantic's ValidationError
        return expected_output_failure(f"{NODE} reply could not be assembled: {error}")
    return ExpectedOutputResult(evaluation=evaluation)


EVALUATION = "evaluation"
"""The output field holding the judged evaluation (`MetricDeclaration.output_block`)."""


def as_metric_score(result: ExpectedOutputResult | EvaluationFailure) -> Score:
    """The assembled output as the metric's score: the evaluation's score (None for a category)
    and reasoning, the evaluation kept whole for the output; the error object as the error."""
    if isinstance(result, EvaluationFailure):
        return Score(None, result.error_message, result.error_message)
    evaluation = result.evaluation
    judged = evaluation.result
    scale = (judged.min_range, judged.max_range) if getattr(judged, "min_range", None) is not None else None
    return Score(getattr(judged, "score", None), evaluation.reasoning,
                 signals=comparison_signals(evaluation.model_dump()), scale=scale,
                 label=getattr(judged, "category", None), breakdown=evaluation)


@dataclass(frozen=True)
class ExpectedOutputSignals:
    """What the metric is decided from: the item (its outputs and config) and the judge's reply."""

    item: ExpectedOutputInput
    outcome: StepOutcome | None


def decide_expected_output(signals: ExpectedOutputSignals, parameters: None = None) -> Score:
    """`assemble`; no profile parameters act on it."""
    return as_metric_score(assemble(signals.item, signals.outcome))


def score_expected_output(state: Mapping[str, Any], item: ExpectedOutputInput, profile: Profile | None) -> Score:
    return decide_expected_output(ExpectedOutputSignals(item, state.get("judgments", {}).get(NODE)))


def comparison_signals(evaluation: Mapping[str, Any]) -> dict[str, Any]:
    """The comparison the output itself reports: confidence, exact, semantic and partial match,
    how many elements are missing or wrong."""
    comparison = evaluation.get("comparison_details") or {}
    return {"confidence": evaluation.get("confidence"), "exact_match": comparison.get("exact_match"),
            "semantic_match": comparison.get("semantic_match"), "partial_match": comparison.get("partial_match"),
            "missing_elements": len(comparison.get("missing_elements") or []),
            "incorrect_elements": len(comparison.get("incorrect_elements") or [])}


def no_run_signals(details: RunDetails) -> dict[str, Any]:
    """Nothing from the run's details: the record's signals are the comparison its output
    reports (`comparison_signals`, read from the output by `metric_records`)."""
    return {}


EXPECTED_OUTPUT = MetricDeclaration(
    spec=MetricSpec("expected_output", kind="score", scale=None, field="evaluation.result.score",
                    label_field="evaluation.result.category"),
    entry_nodes=(NODE,),
    nodes=(NodeSpec(NODE, judge_expected_output),),
    score=score_expected_output,
    decide=decide_expected_output,
    read_signals=no_run_signals,
    output_block=(EVALUATION, Evaluation),
)

