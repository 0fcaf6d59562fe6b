"""The `coverage` rubric's declaration (seed 003): how much of a reference answer a model's
output covers (facts, conclusions, terms, organization), scored 0..5. Its nodes, plan, output and
metric records are built from its metric declarations (`metrics.DECLARED`)."""

from __future__ import annotations

from ...declarations.metric_declaration import declared_nodes
from ...declarations.rubric_spec import RubricSpec
from ...schemas.coverage import CoverageInput, CoverageResult
from ...schemas.field_aliases import COVERAGE_FIELDS
from .evaluator_item import coverage_item
from .metric_records import METRICS, coverage_score_records, read_coverage_metrics
from .metrics import DECLARED
from .result import (
    coverage_error,
    coverage_failure,
    coverage_failure_scores,
    coverage_result,
    plan_coverage,
    score_coverage_metrics,
)

RUBRIC = RubricSpec(
    name="coverage",
    signature_keys=("output_text",),
    field_labels={"input": "input question", "reference": "reference answer", "output_text": "model output"},
    input_model=CoverageInput,
    output_models=(CoverageResult,),
    metrics=METRICS,
    nodes=declared_nodes(DECLARED),
    plan=plan_coverage,
    decide=score_coverage_metrics,
    build_result=coverage_result,
    build_failure=coverage_failure,
    failure_scores=coverage_failure_scores,
    build_error=coverage_error,
    read_metrics=read_coverage_metrics,
    score_records=coverage_score_records,
    evaluator_item=coverage_item,
    field_aliases=COVERAGE_FIELDS,
)
