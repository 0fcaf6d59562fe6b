"""Turning what a node did into trace events, and streaming them as they happen."""

from __future__ import annotations

import time
from typing import Any

from langgraph.runtime import Runtime

from ..llm.structured import StepOutcome
from ..schemas.trace import TraceEvent


def event_from_outcome(
    node: str,
    outcome: StepOutcome,
    started: float,
    *,
    label: str | None = None,
    detail: dict[str, Any] | None = None,
) -> TraceEvent:
    return TraceEvent(
        node=node,
        label=label,
        outcome="ok" if outcome.ok else "failed",
        duration_s=round(time.perf_counter() - started, 4),
        calls=outcome.calls,
        input_tokens=outcome.input_tokens,
        output_tokens=outcome.output_tokens,
        attempts=outcome.attempts,
        errors=outcome.errors,
        note=outcome.error,
        detail=detail or {},
    )


def plain_event(
    node: str, started: float, *, outcome: str = "ok", note: str | None = None, **detail: Any
) -> TraceEvent:
    """An event for a node that made no model call (validation, a skipped step, finalize)."""
    return TraceEvent(
        node=node,
        outcome=outcome,  # type: ignore[arg-type]
        duration_s=round(time.perf_counter() - started, 4),
        note=note,
        detail=detail,
    )


def emit(runtime: Runtime | None, event: TraceEvent) -> TraceEvent:
    """Stream the event to `stream_mode="custom"` listeners (live progress), then return it."""
    writer = getattr(runtime, "stream_writer", None) if runtime is not None else None
    if writer is not None:
        writer({"trace_event": event.model_dump()})
    return event
