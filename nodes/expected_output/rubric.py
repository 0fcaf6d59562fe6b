"""The `expected_output` rubric's declaration (seed 001): an actual output against the expected
one, on the item's own scale (numerical, categorical or range_quality)."""

from __future__ import annotations

from ..common.rubric_spec import NodeSpec, RubricSpec
from .judge import NODE, RUBRIC_NAME, judge_expected_output
from .result import failed_expected_output, finalize_expected_output, plan_expected_output
from ...schemas.expected_output import ExpectedOutputInput

RUBRIC = RubricSpec(
    name=RUBRIC_NAME,
    signature_keys=("actualOutput", "evaluationType", "expectedOutput", "evaluationConfig"),
    field_labels={
        "input": "input ('input')",
        "actualOutput": "actual output ('actualOutput')",
        "expectedOutput": "expected output ('expectedOutput')",
        "conversationHistory": "conversation history ('conversationHistory')",
        "expectedToolCall": "expected tool call ('expectedToolCall')",
        "context": "context ('context')",
        "evaluationType": "evaluation type ('evaluationType')",
        "evaluationConfig": "evaluation config ('evaluationConfig')",
    },
    input_model=ExpectedOutputInput,
    nodes=(NodeSpec(NODE, judge_expected_output),),
    plan=plan_expected_output,
    finalize=finalize_expected_output,
    failed=failed_expected_output,
)
