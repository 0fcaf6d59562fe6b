"""The `expected_output` rubric's declaration (seed 001): an actual output against the expected
one, on the item's own scale (numerical, categorical or range_quality)."""

from __future__ import annotations

from ...declarations.rubric_spec import NodeSpec, RubricSpec
from ...schemas.expected_output import (
    EvaluationFailure,
    ExpectedOutputInput,
    ExpectedOutputResult,
)
from .evaluator_item import expected_output_item
from .judge_expected_output import NODE, RUBRIC_NAME, judge_expected_output
from .metric_records import METRICS, read_expected_output_metrics
from .result import (
    expected_output_failure,
    expected_output_result,
    plan_expected_output,
)

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
    output_models=(ExpectedOutputResult, EvaluationFailure),
    metrics=METRICS,
    nodes=(NodeSpec(NODE, judge_expected_output),),
    plan=plan_expected_output,
    build_result=expected_output_result,
    build_failure=expected_output_failure,
    read_metrics=read_expected_output_metrics,
    evaluator_item=expected_output_item,
)
