"""**How to add a rag metric**: its module ends with its declaration (`MetricDeclaration`), and
one line here lists it (docs/adding-a-metric.md). The rubric (`rubric.rag_rubric`: its nodes,
plan, scorers, output and metric records) and `judgegraph calibrate` loop over this tuple.

The order is the output's: the errors of failed metrics are listed in it.
"""

from __future__ import annotations

from ...schemas.rag import RagInput
from ..common.metric_declaration import MetricDeclaration
from .answer_relevance import ANSWER_RELEVANCE
from .context_relevance import CONTEXT_RELEVANCE
from .faithfulness import FAITHFULNESS
from .semantic_similarity import SEMANTIC_SIMILARITY

DECLARED: tuple[MetricDeclaration, ...] = (
    FAITHFULNESS,
    CONTEXT_RELEVANCE,
    ANSWER_RELEVANCE,
    SEMANTIC_SIMILARITY,
)
"""The rag metrics, in output order."""


def selected(rag: RagInput, metrics: tuple[MetricDeclaration, ...] = DECLARED) -> tuple[str, ...]:
    """The keys of the metrics to judge, in output order: those the item's `metrics` names,
    all of them when it names none."""
    return tuple(metric.key for metric in metrics if rag.metrics is None or metric.key in rag.metrics)


def plan_rag(rag: RagInput, metrics: tuple[MetricDeclaration, ...] = DECLARED) -> list[str]:
    """Only the nodes of the metrics the item asks for (all of them by default)."""
    chosen = selected(rag, metrics)
    return [node for metric in metrics if metric.key in chosen for node in metric.entry_nodes]
