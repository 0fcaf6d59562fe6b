"""The `coverage` rubric's declaration (seed 003): how much of a reference answer a model's
output covers (facts, conclusions, terms, organization), scored 0..5."""

from __future__ import annotations

from ...declarations.rubric_spec import NodeSpec, RubricSpec
from ...schemas.coverage import CoverageInput, CoverageResult
from ...schemas.field_aliases import COVERAGE_FIELDS
from .check import check_reference_element, check_reference_elements_batch
from .elements import (
    BATCH_NODE,
    CHECK_NODE,
    ORGANIZATION_NODE,
    enumerate_reference_elements,
)
from .elements import NODE as ENUMERATE_NODE
from .evaluator_item import coverage_item
from .metric_records import METRICS, read_coverage_metrics
from .organization import judge_organization
from .result import coverage_error, coverage_failure, coverage_result, plan_coverage

RUBRIC = RubricSpec(
    name="coverage",
    signature_keys=("output_text",),
    field_labels={"input": "input question", "reference": "reference answer", "output_text": "model output"},
    input_model=CoverageInput,
    output_models=(CoverageResult,),
    metrics=METRICS,
    nodes=(
        NodeSpec(ENUMERATE_NODE, enumerate_reference_elements,
                 destinations=(CHECK_NODE, BATCH_NODE, ORGANIZATION_NODE, "finalize")),
        NodeSpec(CHECK_NODE, check_reference_element),
        NodeSpec(BATCH_NODE, check_reference_elements_batch),
        NodeSpec(ORGANIZATION_NODE, judge_organization),
    ),
    plan=plan_coverage,
    build_result=coverage_result,
    build_failure=coverage_failure,
    build_error=coverage_error,
    read_metrics=read_coverage_metrics,
    evaluator_item=coverage_item,
    field_aliases=COVERAGE_FIELDS,
)
