"""What LangGraph and LangChain cost on their own for the overhead benchmark's item.

Why: `benchmarks.overhead` gives the graph's orchestration cost per item with an instant fake
judge. Part of it is ours (prompts, validation, verdict rules, trace) and part is the two
frameworks the product is built on. This measures the second part alone, so the figure can
be split and a target can be checked against what the frameworks leave:

- **LangGraph**: a graph of the same shape as a rag item's run (`validate_input`, `embed_item`
  routing, then four nodes in parallel, one of which sends `claims` tasks to `check_claim` with `Send`, then a
  deferred `finalize`, which runs twice as in the real graph: once when the four nodes are
  done, as a no-op because the claim checks have not reported, and again after them), every node an async function that does nothing but write one key;
  run with `ainvoke`, as the batch does.
- **LangChain**: `calls` calls of `BaseChatModel.ainvoke` on the same instant fake judge,
  with the same kind of keyword options the graph passes (a `response_format`), and nothing
  around them.

Both are CPU time per item, best of `repeats` batches (least disturbed by other work).
"""

from __future__ import annotations

import asyncio
import operator
import time
from typing import Annotated, TypedDict

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Send

from tests.support.latency_judge import FixedLatencyJudge

PARALLEL_NODES = ("extract_claims", "judge_context_relevance", "judge_answer_relevance",
                  "judge_semantic_similarity")


def tasks_per_item(claims: int) -> int:
    """validate_input, embed_item, the parallel nodes, the claim checks and finalize's two runs."""
    return 2 + len(PARALLEL_NODES) + claims + 2


class _State(TypedDict, total=False):
    item: dict
    done: Annotated[list, operator.add]


def empty_graph_of_the_same_shape(claims: int):
    """validate_input -> embed_item -> 4 parallel nodes -> `claims` x check_claim (Send) ->
    finalize (deferred, twice: see the module docstring)."""

    async def validate_input(state: _State) -> dict:
        return {"done": ["validate_input"]}

    async def embed_item(state: _State) -> Command:
        return Command(update={"done": ["embed_item"]}, goto=list(PARALLEL_NODES))

    async def extract_claims(state: _State) -> Command:
        return Command(update={"done": ["extract_claims"]},
                       goto=[Send("check_claim", {"done": []}) for _ in range(claims)])

    async def judgment(state: _State) -> dict:
        return {"done": ["judgment"]}

    async def check_claim(task: _State) -> dict:
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


def _best_cpu_ms(run_batch, items: int, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        started = time.process_time()
        asyncio.run(run_batch(items))
        best = min(best, (time.process_time() - started) * 1000 / items)
    return best


def framework_floor(claims: int, calls: int, items: int = 200, repeats: int = 5) -> dict:
    """CPU ms per item of the empty graph and of `calls` bare model calls (module docstring)."""
    graph = empty_graph_of_the_same_shape(claims)
    model = FixedLatencyJudge(latency_s=0.0, claims=claims)
    messages = [SystemMessage(content="You are a judge."), HumanMessage(content="Check the claim.")]
    options = {"response_format": {"type": "json_schema", "json_schema": {"name": "ClaimCheck", "schema": {}}}}

    async def graph_runs(count: int) -> None:
        for _ in range(count):
            output = await graph.ainvoke({"item": {}, "done": []})
            if len(output["done"]) != tasks_per_item(claims):
                raise RuntimeError(f"the empty graph ran {output['done']}")

    async def model_calls(count: int) -> None:
        for _ in range(count * calls):
            await model.ainvoke(messages, **options)

    asyncio.run(graph_runs(10))  # warm-up
    asyncio.run(model_calls(10))
    langgraph_ms = _best_cpu_ms(graph_runs, items, repeats)
    langchain_ms = _best_cpu_ms(model_calls, items, repeats)
    return {
        "tasks_per_item": tasks_per_item(claims),
        "calls_per_item": calls,
        "langgraph_cpu_ms": round(langgraph_ms, 2),
        "langchain_cpu_ms": round(langchain_ms, 2),
        "floor_cpu_ms": round(langgraph_ms + langchain_ms, 2),
    }
