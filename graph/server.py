"""The judge graph as a LangGraph server graph (`langgraph.json` names `graph` below).

Why a small wrapper around the judge graph: a server run's context and config arrive as JSON,
while the judge graph's `JudgeContext` holds a live chat model. This graph takes the same input
(`{"item": ..., "rubric": ...}`), reads the judge from the run's context (or
`config["configurable"]`), or from the usual environment variables when neither names one
(`JUDGEGRAPH_MODEL`, `OPENAI_BASE_URL`, `OPENAI_API_KEY`; else the embedded local judge),
runs the compiled judge graph as a subgraph (so its nodes stream), and returns plain JSON:
the rubric's result plus the trace, claims and verdicts.

    langgraph dev --no-browser            # from the repository root; see README "Serving"

Context keys (all optional): `model` ("provider:name", "local", or a model name served at
`base_url`; resolved as the CLI's `--model`, so a provider prefix other than `openai` goes to
that provider even when `OPENAI_BASE_URL` is set, and an unknown provider fails the run with
one line), `base_url`, `response_format` (json_schema / json_object / none), `max_repairs`,
`claim_check` ("per-claim" / "batch"), `max_concurrency`. API keys come from the environment,
never from a run's input.
"""

from __future__ import annotations

import asyncio
from functools import lru_cache
from typing import Any, Literal

from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from typing_extensions import TypedDict

from ..run.context import JudgeContext
from .api import Usage, _run, default_graph

CONTEXT_KEYS = ("model", "base_url", "response_format", "max_repairs", "claim_check", "max_concurrency")


class ServeContext(TypedDict, total=False):
    """The JSON a client may send as the run's `context` to choose the judge."""

    model: str
    base_url: str
    response_format: Literal["json_schema", "json_object", "none"]
    max_repairs: int
    claim_check: Literal["per-claim", "batch"]
    max_concurrency: int


class ServeInput(TypedDict, total=False):
    item: Any
    rubric: str | list[str] | None


class ServeOutput(TypedDict, total=False):
    result: dict
    rubrics: list[str]
    usage: Usage
    model: str
    trace: dict


class ServeState(ServeInput, ServeOutput, total=False):
    pass


@lru_cache(maxsize=16)
def _resolved(model: str | None, base_url: str | None, response_format: str | None):
    """One chat model per distinct choice, reused across runs (clients keep their pools)."""
    from ..llm.models import resolve_model

    return resolve_model(model, base_url=base_url, response_format=response_format)


def settings_of(runtime: Runtime | None, config: RunnableConfig | None) -> ServeContext:
    """The judge choice from the run's context, else its `configurable`, else nothing (env)."""
    chosen: ServeContext = {}
    context = getattr(runtime, "context", None) if runtime is not None else None
    if isinstance(context, dict):
        chosen.update({k: v for k, v in context.items() if k in CONTEXT_KEYS and v is not None})
    configurable = (config or {}).get("configurable") or {}
    for key in CONTEXT_KEYS:
        if key not in chosen and configurable.get(key) is not None:
            chosen[key] = configurable[key]
    return chosen


def _load_models_once() -> None:
    from ..calibration.profile import shipped_profiles
    from ..text.languages import load_detector

    load_detector()
    shipped_profiles()


def judge_context(chosen: ServeContext) -> JudgeContext:
    """The run's `JudgeContext` from its chosen settings (`settings_of`), the judge resolved by
    the CLI's own rules (`llm.models.resolve_model`): `provider:name` goes to that provider
    whatever `OPENAI_BASE_URL` says, a model name with `base_url` to that server, and an
    unknown provider or a missing provider package is refused with `ModelConfigError` (one
    line, the run's error) instead of being sent to the environment's server under that name."""
    resolved = _resolved(chosen.get("model"), chosen.get("base_url"), chosen.get("response_format"))
    return JudgeContext(
        model=resolved.model, model_id=resolved.model_id, endpoint=resolved.endpoint,
        response_format=resolved.response_format,
        max_repairs=int(chosen.get("max_repairs", 2)), claim_check=chosen.get("claim_check", "per-claim"),
        context_window=resolved.context_window,
    )


async def judge(state: ServeState, config: RunnableConfig, runtime: Runtime[ServeContext]) -> ServeOutput:
    chosen = settings_of(runtime, config)
    # resolving may read certificates or start the local server, and the language detector and
    # the calibration profiles are read from files once per process: keep all of it off the loop
    context = await asyncio.to_thread(judge_context, chosen)
    await asyncio.to_thread(_load_models_once)
    limit = chosen.get("max_concurrency")
    sub_config: RunnableConfig = {"max_concurrency": int(limit)} if limit else {}
    output = await default_graph().ainvoke({"item": state.get("item"), "rubric": state.get("rubric")},
                                           config=sub_config, context=context)
    run = _run(output)
    return {"result": run.result, "rubrics": run.rubrics, "usage": run.usage, "model": context.model_id,
            "trace": run.trace_json()}


def build_serve_graph() -> StateGraph:
    builder = StateGraph(ServeState, context_schema=ServeContext, input_schema=ServeInput,
                         output_schema=ServeOutput)
    builder.add_node("judge", judge)
    builder.add_edge(START, "judge")
    builder.add_edge("judge", END)
    return builder


graph = build_serve_graph().compile(name="judgegraph")
"""The compiled graph `langgraph.json` serves."""
