"""The graph embeds: as a node of a parent LangGraph graph, as a Runnable, and uncompiled."""

from __future__ import annotations

import asyncio
from typing import TypedDict

from langchain_core.runnables import RunnableLambda
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from judgegraph.graph import build_graph, default_graph, evaluate
from judgegraph.graph.api import arun_evaluation
from judgegraph.graph.context import JudgeContext  # the import path docs/python-api.md gives apps
from tests.support import fakes
from tests.conftest import happy_scripts


class ParentState(TypedDict, total=False):
    item: dict
    result: dict
    verdict_text: str


def test_compiled_graph_runs_as_a_node_inside_a_parent_graph(rag_item):
    judge_graph = build_graph().compile()
    parent = StateGraph(ParentState, context_schema=JudgeContext)
    parent.add_node("judge", judge_graph)
    parent.add_node("summarise", lambda s: {"verdict_text": f"faithfulness={s['result']['faithfulness']}"})
    parent.add_edge(START, "judge")
    parent.add_edge("judge", "summarise")
    parent.add_edge("summarise", END)
    model = fakes.judge(**happy_scripts())
    out = parent.compile().invoke({"item": rag_item}, context=JudgeContext(model=model, model_id="fake"))
    assert out["verdict_text"] == "faithfulness=1.0"
    assert out["result"]["evaluation_status"] == "success"


def test_graph_composes_as_a_runnable_in_lcel(rag_item):
    model = fakes.judge(**happy_scripts())
    judge = default_graph().bind(context=JudgeContext(model=model)).with_config(max_concurrency=2)
    chain = (
        RunnableLambda(lambda item: {"item": item})
        | judge
        | RunnableLambda(lambda out: out["result"]["answer_relevance"])
    )
    assert chain.invoke(rag_item) == 1.0


def test_build_graph_returns_an_uncompiled_state_graph():
    builder = build_graph()
    assert isinstance(builder, StateGraph)
    compiled = builder.compile()
    assert isinstance(compiled, CompiledStateGraph)
    assert {"validate_input", "extract_claims", "finalize"} <= set(compiled.get_graph().nodes)


def test_async_run_gives_the_same_result(rag_item):
    sync_result = evaluate(rag_item, model=fakes.judge(**happy_scripts()))
    async_run = asyncio.run(arun_evaluation(rag_item, model=fakes.judge(**happy_scripts())))
    assert async_run.result == sync_result


def test_context_settings_reach_the_steps(rag_item):
    model = fakes.judge(**happy_scripts(judge_context_relevance=["bad", "bad", "bad"]))
    result = evaluate(rag_item, model=JudgeContext(model=model, max_repairs=0))
    assert result["context_relevance"] is None
    assert model.count("judge_context_relevance") == 1
