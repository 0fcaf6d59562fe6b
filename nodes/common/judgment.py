"""The shape shared by single-call judgment nodes: render, ask, validate, trace.

Each judgment node (context relevance, answer relevance, similarity, ...) only says which
template and schema it uses and when it can skip the call; this module does the rest, so the
repair loop and the trace look the same for every step.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from langgraph.runtime import Runtime
from pydantic import BaseModel

from ...graph.context import JudgeContext, resolved_context
from ...llm.steps import Step
from ...llm.structured import structured_step
from ...prompts import render_messages
from .tracing import emit, event_from_outcome, plain_event


def run_judgment(
    node: str,
    schema: type[BaseModel],
    runtime: Runtime[JudgeContext],
    *,
    check: Callable[[Any], list[str]] | None = None,
    graded: bool = False,
    **variables: Any,
) -> Step[dict]:
    """Run the step whose template is `prompts/<node>.j2`; record its outcome under `node`.

    `graded=True` asks for token log-probabilities (`JudgeContext.top_logprobs`), for steps
    whose labels are read as probabilities. A step (`llm.steps`): nodes `yield from` it."""
    started = time.perf_counter()
    context = yield from resolved_context(runtime.context)
    outcome = yield from structured_step(
        context.model, render_messages(node, **variables), schema,
        max_repairs=context.max_repairs, dialect=context.response_format, check=check,
        top_logprobs=context.top_logprobs if graded else 0,
    )
    detail = outcome.value.model_dump() if outcome.value is not None else {}
    event = emit(runtime, event_from_outcome(node, outcome, started, detail=detail))
    return {"judgments": {node: outcome}, "trace": [event]}


def skip_judgment(node: str, runtime: Runtime[JudgeContext] | None, why: str) -> dict:
    """Record that a step needed no model call (the rubric's rules decide its score)."""
    event = emit(runtime, plain_event(node, time.perf_counter(), outcome="skipped", note=why))
    return {"trace": [event]}
