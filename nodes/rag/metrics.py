"""**How to add a rag metric**: its module ends with its declaration (`MetricDeclaration`), and
one line here lists it (docs/adding-a-metric.md). The rubric (`rubric.rag_rubric`: its nodes,
plan, scorers, output and metric records) and `judgegraph calibrate` loop over this tuple.

The order is the output's: the errors of failed metrics are listed in it.
"""

from __future__ import annotations

from ...declarations.metric_declaration import MetricDeclaration
from ...schemas.rag import RagInput
from .answer_relevance import ANSWER_RELEVANCE
from .citations import CITATION_PRECISION, CITATION_RECALL
from .context_relevance import CONTEXT_RELEVANCE
from .faithfulness import FAITHFULNESS
from .semantic_similarity import SEMANTIC_SIMILARITY

DECLARED: tuple[MetricDeclaration, ...] = (
    FAITHFULNESS,
    CONTEXT_RELEVANCE,
    ANSWER_RELEVANCE,
    SEMANTIC_SIMILARITY,
    CITATION_RECALL,
    CITATION_PRECISION,
)
"""The rag metrics, in output order: the seed's four, then judgegraph's own, which apply only
to some items (`MetricDeclaration.applies`: citations, to an answer with markers)."""


RAG_METRICS: tuple[str, ...] = tuple(metric.key for metric in DECLARED if metric.applies is None)
"""The seed's rag metrics, in its output order (`RagResult`'s score fields): those judged for
every item."""


def needs_absent_context(metric: MetricDeclaration, rag: RagInput) -> bool:
    """The metric judges against a context the item does not give (`MetricDeclaration.needs_context`)."""
    return metric.needs_context and not rag.context_given


def _wanted(metric: MetricDeclaration, rag: RagInput) -> bool:
    if needs_absent_context(metric, rag):
        return False
    if rag.metrics is not None:
        return metric.key in rag.metrics
    return metric.applies is None or metric.applies(rag)


def selected(rag: RagInput, metrics: tuple[MetricDeclaration, ...] = DECLARED) -> tuple[str, ...]:
    """The keys of the metrics to judge, in output order: those the item's `metrics` names;
    when it names none, every metric that applies to it (`MetricDeclaration.applies`)."""
    return tuple(metric.key for metric in metrics if _wanted(metric, rag))


def in_output(rag: RagInput, metrics: tuple[MetricDeclaration, ...] = DECLARED) -> tuple[MetricDeclaration, ...]:
    """The metrics whose keys the item's output holds: every metric that applies to all items
    (the seed's, "Not requested." or "no context given" when left out), and the others when
    they are judged."""
    chosen = selected(rag, metrics)
    return tuple(metric for metric in metrics if metric.applies is None or metric.key in chosen)


def plan_rag(rag: RagInput, metrics: tuple[MetricDeclaration, ...] = DECLARED) -> list[str]:
    """Only the nodes of the metrics the item asks for (all that apply by default), each once."""
    chosen = selected(rag, metrics)
    return list(dict.fromkeys(node for metric in metrics if metric.key in chosen for node in metric.entry_nodes))
