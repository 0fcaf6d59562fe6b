"""What LangGraph and LangChain cost on their own for the overhead benchmark's item.

Why: `benchmarks.overhead` gives the graph's orchestration cost per item with an instant fake
judge. Part of it is ours (prompts, validation, verdict rules, trace) and part is the two
frameworks the product is built on. This measures the second part alone, so the figure can
be split and a target can be checked against what the frameworks leave:

- **The floor: the calls inside the graph.** A graph of the shape a rag item's run had up to
  3ed4dac, kept as the baseline issue 56 measures against (the graph's claims node now checks
  its claims itself, docs/architecture.md): `validate_input`, `embed_item` routing, then four
  nodes in parallel, one of which sends `claims` tasks to `check_claim` with `Send`, then a
  deferred `finalize`, which runs twice: once when the four nodes are done, as a no-op because
  the claim checks have not reported, and again after them. In it the nodes that call the judge in ours
  (`extract_claims`, the three judgments, each `check_claim`) make one `BaseChatModel.ainvoke`
  call each on the same instant fake judge, with the same kind of keyword options the graph
  passes (a `response_format`), and every node writes one key; run with `ainvoke`, as the batch
  does. A call made inside a node costs more than one made alone: LangChain copies the node's
  config (callbacks, metadata) into it, which any chat model called from a LangGraph node pays.
- **LangGraph alone**: the same graph with empty nodes.
- **LangChain alone**: the same calls, bare, outside any graph. The sum of the two parts
  (`separate_cpu_ms`) is kept beside the floor: the older figures in docs/benchmarks.md compare
  with it.

All are CPU time per item, best of `repeats` batches (least disturbed by other work).
`benchmarks.overhead` also runs the floor graph (`run_floor_item`) with a fixed latency per
call, N items at once, as it runs ours: what the two frameworks reach on this machine with no work of
ours in the nodes.
"""

from __future__ import annotations

import asyncio
import operator
import time
from typing import Annotated, Any, TypedDict

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Send

from tests.support.latency_judge import FixedLatencyJudge

PARALLEL_NODES = ("extract_claims", "judge_context_relevance", "judge_answer_relevance",
                  "judge_semantic_similarity")
MESSAGES = [SystemMessage(content="You are a judge."), HumanMessage(content="Check the claim.")]
OPTIONS = {"response_format": {"type": "json_schema", "json_schema": {"name": "ClaimCheck", "schema": {}}}}
"""What each floor call sends: two short messages and a `response_format`, as the graph's calls do."""


def tasks_per_item(claims: int) -> int:
    """validate_input, embed_item, the parallel nodes, the claim checks and finalize's two runs."""
    return 2 + len(PARALLEL_NODES) + claims + 2


def calls_per_item(claims: int) -> int:
    """The judge's calls in a rag item's run: the claim list, the three judgments, one check per claim."""
    return len(PARALLEL_NODES) + claims


class _State(TypedDict, total=False):
    item: dict
    done: Annotated[list, operator.add]


def graph_of_the_same_shape(claims: int, model: Any = None):
    """validate_input -> embed_item -> 4 parallel nodes -> `claims` x check_claim (Send) ->
    finalize (deferred, twice: see the module docstring). With `model`, each node that calls the
    judge in ours makes one `ainvoke` call on it; without, every node is empty."""

    async def call() -> None:
        if model is not None:
            await model.ainvoke(MESSAGES, **OPTIONS)

    async def validate_input(state: _State) -> dict:
        return {"done": ["validate_input"]}

    async def embed_item(state: _State) -> Command:
        return Command(update={"done": ["embed_item"]}, goto=list(PARALLEL_NODES))

    async def extract_claims(state: _State) -> Command:
        await call()
        return Command(update={"done": ["extract_claims"]},
                       goto=[Send("check_claim", {"done": []}) for _ in range(claims)])

    async def judgment(state: _State) -> dict:
        await call()
        return {"done": ["judgment"]}

    async def check_claim(task: _State) -> dict:
        await call()
        return {"done": ["check_claim"]}

    async def finalize(state: _State) -> dict:
        return {"done": ["finalize"]}

    builder = StateGraph(_State)
    builder.add_node("validate_input", validate_input)
    builder.add_node("embed_item", embed_item, destinations=PARALLEL_NODES)
    builder.add_node("extract_claims", extract_claims, destinations=("check_claim",))
    for name in PARALLEL_NODES[1:]:
        builder.add_node(name, judgment)
        builder.add_edge(name, "finalize")
    builder.add_node("check_claim", check_claim)
    builder.add_node("finalize", finalize, defer=True)
    builder.add_edge(START, "validate_input")
    builder.add_edge("validate_input", "embed_item")
    builder.add_edge("check_claim", "finalize")
    builder.add_edge("finalize", END)
    return builder.compile()


async def run_floor_item(graph, claims: int) -> None:
    """One item through a floor graph (`graph_of_the_same_shape`), checked to have run every task."""
    output = await graph.ainvoke({"item": {}, "done": []})
    if len(output["done"]) != tasks_per_item(claims):
        raise RuntimeError(f"the floor graph ran {output['done']}")


def _best_cpu_ms(run_batch, items: int, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        started = time.process_time()
        asyncio.run(run_batch(items))
        best = min(best, (time.process_time() - started) * 1000 / items)
    return best


def framework_floor(claims: int, calls: int, items: int = 200, repeats: int = 5) -> dict:
    """CPU ms per item of the floor graph with its calls in its nodes, of the empty graph, and of
    `calls` bare model calls (module docstring)."""
    if calls != calls_per_item(claims):
        raise ValueError(f"the floor's item makes {calls_per_item(claims)} calls for {claims} claims, not {calls}")
    model = FixedLatencyJudge(latency_s=0.0, claims=claims)
    together = graph_of_the_same_shape(claims, model)
    empty = graph_of_the_same_shape(claims)

    def graph_runs(graph):
        async def runs(count: int) -> None:
            for _ in range(count):
                await run_floor_item(graph, claims)
        return runs

    async def model_calls(count: int) -> None:
        for _ in range(count * calls):
            await model.ainvoke(MESSAGES, **OPTIONS)

    for runs in (graph_runs(together), graph_runs(empty), model_calls):
        asyncio.run(runs(10))  # warm-up
    before = model.counts["async"]
    together_ms = _best_cpu_ms(graph_runs(together), items, repeats)
    if model.counts["async"] - before != calls * items * repeats:
        raise RuntimeError("the floor graph did not make one call per judging node")
    langgraph_ms = _best_cpu_ms(graph_runs(empty), items, repeats)
    langchain_ms = _best_cpu_ms(model_calls, items, repeats)
    return {
        "tasks_per_item": tasks_per_item(claims),
        "calls_per_item": calls,
        "floor_cpu_ms": round(together_ms, 2),
        "langgraph_cpu_ms": round(langgraph_ms, 2),
        "langchain_cpu_ms": round(langchain_ms, 2),
        "separate_cpu_ms": round(langgraph_ms + langchain_ms, 2),
    }
