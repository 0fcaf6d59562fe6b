"""The spans of one judged item, built after it finished, with explicit times and parents.

Why after the fact: the step trace already holds what each step did and cost, and the step
clock (`telemetry.step_clock`) when it ran, so the graph runs exactly as without telemetry and
its outputs do not change. Why explicit parents: items of a batch are judged side by side in
one event loop; each span is parented on its own item's root, passed in, never on whatever
span the ambient context holds, so no item's spans land in another's trace.

Times: the item's span runs from when its judging started to when it ended; a step's, from
when its node started, for the duration the step recorded. The tree: the item's root span (`openinference.span.kind=EVALUATOR`), one child per trace
event (`CHAIN`), and under a step that called the model one `LLM` span per attempt, laid end
to end from the step's start (each lasts what the attempt took).
"""

from __future__ import annotations

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.trace import Span, Status, StatusCode, Tracer

from ..schemas.trace import TraceEvent
from .attributes import LIST_LIMIT, failed_claims, item_attributes, llm_attributes, model_parts, step_attributes
from .judged_item import JudgedItem

ROOT_SPAN = "judgegraph.evaluate"


def record_item(tracer: Tracer, judged: JudgedItem) -> None:
    """Start and end every span of `judged` on `tracer` (its processor exports them)."""
    attributes = item_attributes(judged)
    root = tracer.start_span(ROOT_SPAN, context=Context(), start_time=judged.started_ns, attributes=attributes)
    claims = failed_claims(judged)
    for claim in claims[:LIST_LIMIT]:
        root.add_event("judgegraph.claim.failed", attributes=claim, timestamp=judged.ended_ns)
    if "internal_error" in judged.record:
        root.set_status(Status(StatusCode.ERROR, str(attributes["judgegraph.internal_error"])))
    elif attributes.get("judgegraph.metrics.failed"):
        root.set_status(Status(StatusCode.ERROR, "a metric could not be judged"))
    parent = trace.set_span_in_context(root, Context())
    if judged.run is not None:
        for event in judged.run.trace:
            _step_span(tracer, parent, event, judged)
    root.end(end_time=max(judged.ended_ns, judged.started_ns))


def _step_span(tracer: Tracer, parent: Context, event: TraceEvent, judged: JudgedItem) -> None:
    started, ended = _step_times(event, judged)
    span = tracer.start_span(event.node, context=parent, start_time=started, attributes=step_attributes(event))
    if event.outcome == "failed":
        span.set_status(Status(StatusCode.ERROR, (event.note or "the step failed")[:500]))
    if event.attempts:
        _llm_spans(tracer, span, event, judged.model_id, started, ended)
    span.end(end_time=ended)


def _step_times(event: TraceEvent, judged: JudgedItem) -> tuple[int, int]:
    """From when the step's node started (the clock's reading), for as long as the step says it
    took (its `duration_s`, timed by the step itself: the node's run as LangGraph reports it can
    end later, when the event loop was busy elsewhere); without a reading, its duration ending
    with the item. Always inside the item's span."""
    times = judged.clock.times_of(event) if judged.clock is not None else None
    took = int(event.duration_s * 1e9)
    started = times[0] if times is not None else judged.ended_ns - took
    started = min(max(started, judged.started_ns), judged.ended_ns)
    return started, min(started + took, judged.ended_ns)


def _llm_spans(tracer: Tracer, step: Span, event: TraceEvent, model_id: str, started: int, ended: int) -> None:
    _, model = model_parts(model_id)
    parent = trace.set_span_in_context(step, Context())
    at = started
    for attempt in event.attempts:
        finish = min(at + int(attempt.seconds * 1e9), ended)
        span = tracer.start_span(f"chat {model}", context=parent, kind=trace.SpanKind.CLIENT, start_time=at,
                                 attributes=llm_attributes(attempt, model_id, event.node))
        if not attempt.ok:
            span.set_status(Status(StatusCode.ERROR, "; ".join(attempt.errors)[:500] or "invalid reply"))
        span.end(end_time=finish)
        at = finish
