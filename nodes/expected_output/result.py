"""The `expected_output` rubric (seed 001): its plan and the assembly of its output.

The seed's output mixes judgment with bookkeeping. Code owns the bookkeeping: exact_match
(normalised comparison), the echoed ranges, categories and mappings, and the quality label
looked up from the score's band. The model's reply supplies the rest. A step that never
produced a valid reply gives the seed's error object naming the step and the reason, never
a made-up score.
"""

from __future__ import annotations

from ...declarations.scoring import round_half_up
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
from .judge_expected_output import NODE
from .match import exact_match


def plan_expected_output(_: ExpectedOutputInput) -> list[str]:
    return [NODE]


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


def expected_output_result(state: dict, item: ExpectedOutputInput) -> ExpectedOutputResult | EvaluationFailure:
    return assemble(item, state.get("judgments", {}).get(NODE))

