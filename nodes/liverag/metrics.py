"""The `liverag` metrics: each module ends with its declaration (`MetricDeclaration`), and one
line here lists it (docs/adding-a-metric.md). The rubric's nodes, plan, output and metric
records loop over this tuple.

The order is the output's: its notes and metric records list the metrics in it.
"""

from __future__ import annotations

from ...declarations.metric_declaration import MetricDeclaration, entry_nodes
from ...schemas.liverag import LiveRagInput
from .quote_faithfulness import LIVERAG_FAITHFULNESS
from .relevance import LIVERAG_RELEVANCE

DECLARED: tuple[MetricDeclaration, ...] = (LIVERAG_RELEVANCE, LIVERAG_FAITHFULNESS)


def plan_liverag(_: LiveRagInput, metrics: tuple[MetricDeclaration, ...] = DECLARED) -> list[str]:
    """Every metric's entry nodes (a liverag item is judged for all of them), the shared claim
    pipeline's first: the order its items have always been sent in, which decides the order of
    the texts embedded for the item (`graph.every_item.item_embeddings`)."""
    planned = entry_nodes(metrics)
    return sorted(planned, key=lambda node: node != "extract_claims")
