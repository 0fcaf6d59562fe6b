"""The `rag` rubric's declaration (seed 000): faithfulness, context relevance, answer relevance
and semantic similarity of an answer to a question, its retrieved context and a reference."""

from __future__ import annotations

from ...schemas.field_aliases import ECOSYSTEM_NAMES, RAG_FIELDS
from ...schemas.rag import RagInput, RagResult
from ..claims.check_claim import CLAIM_NODES
from ..common.rubric_spec import NodeSpec, RubricSpec
from .answer_relevance import NODE as ANSWER_RELEVANCE
from .answer_relevance import judge_answer_relevance
from .context_relevance import NODE as CONTEXT_RELEVANCE
from .context_relevance import judge_context_relevance
from .evaluator_item import rag_item
from .metric_records import METRICS, read_rag_metrics
from .metrics import plan_rag
from .result import rag_error, rag_failure, rag_result
from .semantic_similarity import NODE as SIMILARITY
from .semantic_similarity import judge_semantic_similarity

RUBRIC = RubricSpec(
    name="rag",
    signature_keys=("question", "answer", "context", *ECOSYSTEM_NAMES),
    field_labels={
        "question": "user question",
        "answer": "generated answer",
        "context": "retrieved context",
        "reference": "reference answer",
        "evaluation_goal": "evaluation goal",
    },
    input_model=RagInput,
    output_models=(RagResult,),
    metrics=METRICS,
    nodes=(
        *CLAIM_NODES,
        NodeSpec(CONTEXT_RELEVANCE, judge_context_relevance),
        NodeSpec(ANSWER_RELEVANCE, judge_answer_relevance),
        NodeSpec(SIMILARITY, judge_semantic_similarity),
    ),
    plan=plan_rag,
    build_result=rag_result,
    build_failure=rag_failure,
    build_error=rag_error,
    read_metrics=read_rag_metrics,
    evaluator_item=rag_item,
    context_fields=("context",),
    selectable_metrics=True,
    field_aliases=RAG_FIELDS,
)
