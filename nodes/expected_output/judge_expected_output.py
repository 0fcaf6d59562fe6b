"""The one judgment step of the `expected_output` rubric: compare actual with expected output.

The model judges what needs judgment (reasoning, the score or category, the semantic
comparison, confidence). The rules the config sets at run time (score inside min..max, a
category from the menu, exactly as spelled) are enforced by `check`, so a reply that breaks
them goes back to the model with the complaint through the repair loop; it is never clamped
or coerced into a valid-looking answer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langgraph.runtime import Runtime
from pydantic import BaseModel

from ...llm.steps import Step
from ...run.context import JudgeContext
from ...run.context_view import judge_view
from ...run.judgment_step import run_judgment
from ...run.state import JudgeState
from ...schemas.expected_output import (
    EvaluationSettings,
    ExpectedOutputCategory,
    ExpectedOutputInput,
    ExpectedOutputScore,
    category_schema,
    score_schema,
)
from .match import exact_match

NODE = "judge_expected_output"
RUBRIC_NAME = "expected_output"


def reply_schema(evaluation_type: str, settings: EvaluationSettings) -> type[BaseModel]:
    """The reply class for this evaluation type, advertising the config's range or menu."""
    if evaluation_type == "categorical":
        return category_schema(tuple(settings.available_categories or ()))
    return score_schema(settings.min_range, settings.max_range)  # type: ignore[arg-type]


def reply_check(evaluation_type: str, settings: EvaluationSettings) -> Callable[[Any], list[str]]:
    """The run-time rules a reply must meet, as complaints the model can act on."""
    if evaluation_type == "categorical":
        menu = list(settings.available_categories or [])

        def check_category(reply: ExpectedOutputCategory) -> list[str]:
            category = reply.category
            if category in menu:
                return []
            listed = ", ".join(f'"{c}"' for c in menu)
            return [f'category: "{category}" is not one of the available categories; '
                    f"copy exactly one of {listed} (case-sensitive)"]

        return check_category

    low, high = settings.min_range, settings.max_range
    if low is None or high is None:
        raise ValueError(f"a {evaluation_type} config without min_range/max_range passed validation")

    def check_score(reply: ExpectedOutputScore) -> list[str]:
        score = reply.score
        if low <= score <= high:
            return []
        return [f"score: {score} is outside the allowed range; give an integer from {low} to {high}"]

    return check_score


def judge_expected_output(state: JudgeState, runtime: Runtime[JudgeContext]) -> Step[dict]:
    item: ExpectedOutputInput = state["inputs"][RUBRIC_NAME]
    settings = item.evaluationConfig
    kind = item.evaluationType
    view = yield from judge_view(str(item.input or ""), item.passages, runtime.context,
                                 str(item.actualOutput or ""), str(item.expectedOutput or ""))
    return (yield from run_judgment(
        NODE, reply_schema(kind, settings), runtime,
        check=reply_check(kind, settings),
        evaluation_type=kind,
        input=item.input,
        passages=view.shown(item.passages),
        context_note=view.note(),
        history=item.history_turns,
        tool_call=item.expectedToolCall,
        expected_output=item.expectedOutput,
        actual_output=item.actualOutput,
        criteria=settings.criteria,
        exact_match=exact_match(item.actualOutput, item.expectedOutput),
        min_range=settings.min_range,
        max_range=settings.max_range,
        categories=settings.available_categories or [],
        mappings=[m.model_dump() for m in settings.range_mappings or []],
    ))

