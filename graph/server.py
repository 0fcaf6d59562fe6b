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
`claim_check` ("per-claim" / "batch"), `max_concurrency`; a setting of the wrong type or out
of range (`max_repairs` 0..10, `max_concurrency` at least 1) fails the run naming it. API keys come from the environment,
never from a run's input, and go only where the environment sends them: a run whose `base_url`
is not the server's own (`OPENAI_BASE_URL`, else OpenAI's) is sent without `OPENAI_API_KEY`,
so no client can have the server's key delivered to a server of its choosing.
"""

from __future__ import annotations

import asyncio
import os
from functools import lru_cache
from typing import Any, get_args

from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from typing_extensions import TypedDict

from ..llm.response_format import DIALECTS, Dialect
from ..run.context import ClaimCheckMode, JudgeContext
from ..run.judge_builder import build_judge
from .api import MAX_ITEM_TEXT_CHARS, Usage, _run, check_item_size, default_graph, text_chars

CONTEXT_KEYS = ("model", "base_url", "response_format", "max_repairs", "claim_check", "max_concurrency")
MAX_REPAIRS = 10
"""The most re-asks a run may ask for per step (the CLI's default is 2): a run's settings come
from any client of the server, and each re-ask is a call the server pays for."""
CHOICES = {"response_format": DIALECTS, "claim_check": get_args(ClaimCheckMode)}


class ServeContext(TypedDict, total=False):
    """The JSON a client may send as the run's `context` to choose the judge."""

    model: str
    base_url: str
    response_format: Dialect
    max_repairs: int
    claim_check: ClaimCheckMode
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


OPENAI_URL = "https://api.openai.com/v1"
NO_KEY = "not-needed"
"""The key sent to a server a run names (OpenAI's client needs one; keyless servers ignore it)."""


def api_key_for(base_url: str | None) -> str | None:
    """None (the environment's `OPENAI_API_KEY`) for the server's own endpoint, `NO_KEY` for a
    `base_url` a run names that is not it: the key is the deployment's, for its endpoint."""
    if not base_url:
        return None
    own = os.environ.get("OPENAI_BASE_URL") or OPENAI_URL
    return None if str(base_url).strip().rstrip("/") == own.strip().rstrip("/") else NO_KEY


@lru_cache(maxsize=16)
def _resolved(model: str | None, base_url: str | None, response_format: str | None, api_key: str | None):
    """One chat model per distinct choice, reused across runs (clients keep their pools)."""
    from ..llm.models import resolve_model

    return resolve_model(model, base_url=base_url, response_format=response_format, api_key=api_key)


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
    return checked_settings(chosen)


def checked_settings(chosen: ServeContext) -> ServeContext:
    """`chosen` as it is when every setting has its type and range; else a `ValueError` naming
    the setting (the run's one-line error), before any judge is built or asked.

    Why here: a run's settings are JSON from any client, and the judge's own code takes them on
    trust: a negative `max_repairs` breaks a step with an IndexError, an unknown `claim_check`
    is judged per claim, an unknown `response_format` sends every call in a dialect no server
    reads."""
    for key in ("model", "base_url"):
        if key in chosen and not isinstance(chosen[key], str):
            raise ValueError(f"the run's context: {key!r} must be text, got {type(chosen[key]).__name__}")
    for key, allowed in CHOICES.items():
        if key in chosen and chosen[key] not in allowed:
            raise ValueError(f"the run's context: {key!r} must be one of {', '.join(allowed)}, got {chosen[key]!r}")
    for key, low, high in (("max_repairs", 0, MAX_REPAIRS), ("max_concurrency", 1, None)):
        value = chosen.get(key)
        if key in chosen and (type(value) is not int or value < low or (high is not None and value > high)):
            bound = f"from {low} to {high}" if high is not None else f"of at least {low}"
            raise ValueError(f"the run's context: {key!r} must be a whole number {bound}, got {value!r}")
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
    line, the run's error) instead of being sent to the environment's server under that name.
    The environment's API key goes to the server's own endpoint only (`api_key_for`)."""
    base_url = chosen.get("base_url")
    resolved = _resolved(chosen.get("model"), base_url, chosen.get("response_format"), api_key_for(base_url))
    return build_judge(resolved, max_repairs=chosen.get("max_repairs", 2),
                       claim_check=chosen.get("claim_check", "per-claim"))


async def judge(state: ServeState, config: RunnableConfig, runtime: Runtime[ServeContext]) -> ServeOutput:
    chosen = settings_of(runtime, config)
    check_item_size(text_chars(state.get("item")), MAX_ITEM_TEXT_CHARS,  # any client's JSON, before any work
                    "the served graph's limit; shorten the context, or judge it with the CLI or evaluate()")
    # resolving may read certificates or start the local server, and the language detector and
    # the calibration profiles are read from files once per process: keep all of it off the loop
    context = await asyncio.to_thread(judge_context, chosen)
    await asyncio.to_thread(_load_models_once)
    limit = chosen.get("max_concurrency")
    sub_config: RunnableConfig = {"max_concurrency": limit} if limit else {}
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
