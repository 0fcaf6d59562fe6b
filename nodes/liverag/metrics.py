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


def claims_first(metrics: tuple[MetricDeclaration, ...]) -> tuple[MetricDeclaration, ...]:
    """The metrics in run order: those over the shared claim pipeline first. The order its
    nodes are added to the graph and sent in, which decides the order of the texts embedded
    for an item (`graph.every_item.item_embeddings`); the output keeps `DECLARED`'s order."""
    return tuple(sorted(metrics, key=lambda metric: "extract_claims" not in metric.entry_nodes))


def plan_liverag(_: LiveRagInput, metrics: tuple[MetricDeclaration, ...] = DECLARED) -> list[str]:
    """Every metric's entry nodes (a liverag item is judged for all of them), in run order."""
    return entry_nodes(claims_first(metrics))
