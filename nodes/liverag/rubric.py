"""The `liverag` rubric's declaration (seed 002): relevance (-1..2) and faithfulness (-1..1) of
an answer to a question and the documents its system retrieved. Its nodes, plan, output and
metric records are built from its metric declarations (`metrics.DECLARED`)."""

from __future__ import annotations

from ...declarations.metric_declaration import declared_nodes, question_nodes
from ...declarations.rubric_spec import RubricSpec
from ...schemas.field_aliases import LIVERAG_FIELDS
from ...schemas.liverag import LiveRagInput, LiveRagResult
from .evaluator_item import liverag_item
from .metric_records import METRICS, liverag_score_records, read_liverag_metrics
from .metrics import DECLARED, claims_first, plan_liverag
from .result import liverag_failure, liverag_result, score_liverag_metrics

RUBRIC = RubricSpec(
    name="liverag",
    signature_keys=("documents",),
    field_labels={
        "question": "user question",
        "answer": "generated answer",
        "documents": "retrieved documents",
        "gold_reference": "gold reference answer",
        "history": "conversation history",
    },
    input_model=LiveRagInput,
    output_models=(LiveRagResult,),
    metrics=METRICS,
    nodes=declared_nodes(claims_first(DECLARED)),
    plan=plan_liverag,
    decide=score_liverag_metrics,
    build_result=liverag_result,
    build_failure=liverag_failure,
    read_metrics=read_liverag_metrics,
    score_records=liverag_score_records,
    evaluator_item=liverag_item,
    context_fields=("documents",),
    field_aliases=LIVERAG_FIELDS,
    question_nodes=question_nodes(DECLARED),
)
