"""An item's embeddings, computed once, in one batch, before its first model call.

Why: the embedder and the judge share the cores. The item's nodes run concurrently: if each
embedded its own texts in its own thread while the others' model calls were in flight, the
embedder would slow the judge for the whole item. This node runs right after `validate_input`
(after `write_standalone_question` for an item with a conversation's history, so the question
the declarations read is the standalone one the steps judge) and before every planned node: it
asks each planned node what it will embed (`NodeSpec.embeds`, declared beside the node's code),
embeds all of it in one call through the run's embedder, and
sends the planned nodes off. The nodes then embed as before, through the same embedder
(`llm.embeddings.run_embedder`), and find every vector in the process's cache
(`llm.embedding_cache`): same vectors, so the same scores, and no encoding while the judge
generates. A text no declaration foresaw (claims the judge lists, `--claims model`) is embedded
when it is known, in one batch per item as well.

With embeddings off, without an embedder, or when no planned node embeds anything, the node only
routes: no event, no blocking call. Its event says how many texts the item needed, not how many
were found in the cache: that depends on what the process ran before, and an item's trace must
not (the benchmark reads the cache's own counters).
"""

from __future__ import annotations

import time

from langgraph.runtime import Runtime
from langgraph.types import Command

from ...llm.embeddings import run_embedder
from ...llm.steps import Step, blocking
from ...run.context import JudgeContext
from ...run.state import JudgeState
from ...run.tracing import emit, plain_event
from .. import rubrics
from .validate_input import planned_nodes

NODE = "embed_item"


def texts_to_embed(state: JudgeState, context: JudgeContext | None, planned: list[str]) -> list[str]:
    """Every text the planned nodes will embed for this item, once each, in order."""
    if not planned or not getattr(context, "embeddings", True):
        return []
    declared = {node.name: node for node in rubrics.all_nodes()}
    texts: list[str] = []
    for name in planned:
        node = declared.get(name)
        if node is not None and node.embeds is not None:
            texts += node.embeds(state, context)
    return list(dict.fromkeys(texts))


def embed_item(state: JudgeState, runtime: Runtime[JudgeContext]) -> Step[Command]:
    """Embed what the planned nodes will need, then send them off in parallel."""
    planned = planned_nodes(state)
    goto = planned or ["finalize"]
    texts = texts_to_embed(state, runtime.context, planned)
    if not texts:
        return Command(goto=goto)
    embedder = yield from blocking(run_embedder, runtime.context)  # may load the model
    if embedder is None:
        return Command(goto=goto)
    started = time.perf_counter()
    try:
        yield from blocking(embedder.embed, texts)
    except Exception as error:  # noqa: BLE001 - the nodes embed on their own then, as they would have
        event = plain_event(NODE, started, outcome="failed", note=f"embedding ahead failed: {error}"[:300],
                            texts=len(texts))
    else:
        event = plain_event(NODE, started, texts=len(texts), model_id=embedder.model_id)
    return Command(update={"trace": [emit(runtime, event)]}, goto=goto)
