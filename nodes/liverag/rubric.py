"""The `liverag` rubric's declaration (seed 002): relevance (-1..2) and faithfulness (-1..1) of
an answer to a question and the documents its system retrieved."""

from __future__ import annotations

from ...declarations.rubric_spec import NodeSpec, RubricSpec
from ...schemas.field_aliases import LIVERAG_FIELDS
from ...schemas.liverag import LiveRagInput, LiveRagResult
from ..claims.check_claim import CLAIM_NODES
from .evaluator_item import liverag_item
from .metric_records import METRICS, read_liverag_metrics
from .relevance import NODE as RELEVANCE
from .relevance import judge_liverag_relevance, liverag_relevance_texts
from .result import liverag_failure, liverag_result, plan_liverag

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
    nodes=(*CLAIM_NODES, NodeSpec(RELEVANCE, judge_liverag_relevance, embeds=liverag_relevance_texts)),
    plan=plan_liverag,
    build_result=liverag_result,
    build_failure=liverag_failure,
    read_metrics=read_liverag_metrics,
    evaluator_item=liverag_item,
    context_fields=("documents",),
    field_aliases=LIVERAG_FIELDS,
    question_nodes=(RELEVANCE,),
)
