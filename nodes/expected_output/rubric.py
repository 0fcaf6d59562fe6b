"""The `expected_output` rubric's declaration (seed 001): an actual output against the expected
one, on the item's own scale (numerical, categorical or range_quality). Its nodes, plan, output
and metric records are built from its metric declarations (`metrics.DECLARED`)."""

from __future__ import annotations

from ...declarations.metric_declaration import declared_nodes
from ...declarations.rubric_spec import RubricSpec
from ...schemas.expected_output import (
    EvaluationFailure,
    ExpectedOutputInput,
    ExpectedOutputResult,
)
from .evaluator_item import expected_output_item
from .judge_expected_output import RUBRIC_NAME
from .metric_records import METRICS, expected_output_score_records, read_expected_output_metrics
from .metrics import DECLARED
from .result import (
    expected_output_failure,
    expected_output_result,
    plan_expected_output,
    score_expected_output_metrics,
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
    nodes=declared_nodes(DECLARED),
    plan=plan_expected_output,
    decide=score_expected_output_metrics,
    build_result=expected_output_result,
    build_failure=expected_output_failure,
    read_metrics=read_expected_output_metrics,
    score_records=expected_output_score_records,
    evaluator_item=expected_output_item,
)
