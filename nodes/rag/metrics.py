"""**How to add a rag metric**: its module ends with its declaration (`MetricDeclaration`), and
one line here lists it (docs/adding-a-metric.md). The rubric's plan, its scorers, its metric
records and `judgegraph calibrate` loop over this tuple.

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


def declared() -> tuple[MetricDeclaration, ...]:
    """The declarations, read when called (a test may extend `DECLARED` for its own run)."""
    return DECLARED


def declaration(key: str) -> MetricDeclaration:
    return next(metric for metric in DECLARED if metric.key == key)


def plan_rag(rag: RagInput) -> list[str]:
    """Only the nodes of the metrics the item asks for (all four by default)."""
    return [node for metric in declared() if metric.key in rag.selected_metrics for node in metric.nodes]
