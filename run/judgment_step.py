"""The shape shared by single-call judgment nodes: render, ask, validate, trace.

Each judgment node (context relevance, answer relevance, similarity, ...) only says which
template and schema it uses and when it can skip the call; this module does the rest, so the
repair loop and the trace look the same for every step.

A trace event is whole when it is emitted: what code derives from the reply (label
probabilities, what of the context was shown) joins its detail before `emit`, so the events
streamed live carry the same detail as the stored trace. A node that derives more than the
shown context (`nodes.rag.context_relevance`) asks (`ask_judge`) and records
(`judgment_update`) itself.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from langgraph.runtime import Runtime
from pydantic import BaseModel

from ..llm.steps import Step
from ..llm.structured import StepOutcome, structured_step
from ..prompts import render_messages
from .context import JudgeContext, resolved_context
from .context_view import ContextView
from .tracing import emit, event_from_outcome, plain_event


def run_judgment(
    node: str,
    schema: type[BaseModel],
    runtime: Runtime[JudgeContext],
    *,
    check: Callable[[Any], list[str]] | None = None,
    graded: bool = False,
    view: ContextView | None = None,
    derived: Callable[[StepOutcome], dict[str, Any]] | None = None,
    **variables: Any,
) -> Step[dict]:
    """Run the step whose template is `prompts/<node>.j2`; record its outcome under `node`.

    `graded=True` asks for token log-probabilities (`JudgeContext.top_logprobs`), for steps
    whose labels are read as probabilities. The trace event's detail is the reply, then what
    `derived` reads from the outcome, then what of the context `view` showed. A step
    (`llm.steps`): nodes `yield from` it."""
    started = time.perf_counter()
    outcome = yield from ask_judge(node, schema, runtime, check=check, graded=graded, **variables)
    extra = derived(outcome) if derived is not None else {}
    return judgment_update(node, outcome, started, runtime, extra | (view.recorded_detail() if view else {}))


def ask_judge(
    node: str,
    schema: type[BaseModel],
    runtime: Runtime[JudgeContext],
    *,
    check: Callable[[Any], list[str]] | None = None,
    graded: bool = False,
    **variables: Any,
) -> Step[StepOutcome]:
    """The judge's validated reply to `prompts/<node>.j2`, not yet recorded."""
    context = yield from resolved_context(runtime.context)
    return (yield from structured_step(
        context.model, render_messages(node, **variables), schema,
        max_repairs=context.max_repairs, dialect=context.response_format, check=check,
        top_logprobs=context.top_logprobs if graded else 0,
    ))


def judgment_update(node: str, outcome: StepOutcome, started: float, runtime: Runtime[JudgeContext] | None,
                    derived: dict[str, Any] | None = None) -> dict:
    """The state update of a judgment step, its trace event emitted whole: the reply's fields,
    then `derived` (what code read from it)."""
    detail = outcome.value.model_dump() if outcome.value is not None else {}
    event = emit(runtime, event_from_outcome(node, outcome, started, detail=detail | (derived or {})))
    return {"judgments": {node: outcome}, "trace": [event]}


def skip_judgment(node: str, runtime: Runtime[JudgeContext] | None, why: str) -> dict:
    """Record that a step needed no model call (the rubric's rules decide its score)."""
    event = emit(runtime, plain_event(node, time.perf_counter(), outcome="skipped", note=why))
    return {"trace": [event]}
