"""The `rag` rubric's declaration (seed 000): faithfulness, context relevance, answer relevance
and semantic similarity of an answer to a question, its retrieved context and a reference.

Its nodes, plan, output and metric records are built from the metric declarations
(`metrics.DECLARED`), so a metric added there is judged, output and read back with no other
change here (docs/adding-a-metric.md).
"""

from __future__ import annotations

from functools import partial
from typing import Annotated, Literal

from pydantic import Field, create_model, model_serializer

from ...declarations.metric_declaration import MetricDeclaration, declared_nodes, question_nodes
from ...declarations.rubric_spec import RubricSpec
from ...schemas.field_aliases import ECOSYSTEM_NAMES, RAG_FIELDS
from ...schemas.rag import RagInput, RagResult
from .evaluator_item import rag_item
from .metric_records import rag_score_records, read_rag_metrics
from .metrics import DECLARED, plan_rag
from .result import rag_error, rag_failure, rag_result, score_rag_metrics


class RagResultWithOwnMetrics(RagResult):
    """The seed's 11 keys, then judgegraph's own metrics' keys: only those judged for the item
    (a metric that does not apply to it, `MetricDeclaration.applies`, leaves its keys unset,
    and an unset key is not output)."""

    @model_serializer(mode="wrap")
    def _judged_keys_only(self, handler):
        data = handler(self)
        return {key: value for key, value in data.items()
                if key in RagResult.model_fields or key in self.model_fields_set}


def _output_model(metrics: tuple[MetricDeclaration, ...]) -> type[RagResult]:
    """The seed's `RagResult`; with a metric beyond the seed's, a subclass with its score and
    explanation fields (and its block, `MetricDeclaration.output_block`) after the seed's keys."""
    extra = [metric for metric in metrics if metric.key not in RagResult.model_fields]
    if not extra:
        return RagResult
    fields: dict = {}
    for metric in extra:
        fields[metric.key] = (float | None, None)
        fields[f"{metric.key}_explanation"] = (str | None, None)
    for metric in extra:
        if metric.output_block is not None:
            name, model = metric.output_block
            fields.setdefault(name, (model | None, None))
    return create_model("RagResultWithAddedMetrics", __base__=RagResultWithOwnMetrics, **fields)


def rag_input_model(metrics: tuple[MetricDeclaration, ...]) -> type[RagInput]:
    """`RagInput` with `metrics` narrowed to the declared metrics' keys: an item may request any
    declared metric, and a name that is not one fails validation with the names it may give."""
    requestable = Literal[tuple(metric.key for metric in metrics)]  # type: ignore[valid-type]
    return create_model("RagInput", __base__=RagInput, __doc__=RagInput.__doc__,
                        metrics=(Annotated[list[requestable], Field(min_length=1)] | None, None))


def rag_rubric(metrics: tuple[MetricDeclaration, ...] = DECLARED) -> RubricSpec:
    """The rag rubric over `metrics` (the declared ones; a test may pass more)."""
    output = _output_model(metrics)
    return RubricSpec(
        name="rag",
        signature_keys=("question", "answer", "context", *ECOSYSTEM_NAMES),
        field_labels={
            "question": "user question",
            "answer": "generated answer",
            "context": "retrieved context",
            "reference": "reference answer",
            "evaluation_goal": "evaluation goal",
            "history": "conversation history",
        },
        input_model=rag_input_model(metrics),
        output_models=(output,),
        metrics=tuple(metric.spec for metric in metrics),
        nodes=declared_nodes(metrics),
        plan=partial(plan_rag, metrics=metrics),
        decide=partial(score_rag_metrics, metrics=metrics),
        build_result=partial(rag_result, metrics=metrics, output=output),
        build_failure=rag_failure,
        build_error=rag_error,
        read_metrics=partial(read_rag_metrics, metrics=metrics),
        score_records=partial(rag_score_records, metrics=metrics),
        evaluator_item=rag_item,
        context_fields=("context",),
        selectable_metrics=True,
        field_aliases=RAG_FIELDS,
        question_nodes=question_nodes(metrics),
    )


RUBRIC = rag_rubric()
