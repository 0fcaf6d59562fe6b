"""Judging one batch entry into its output record: the same code for every engine.

Why a module of its own: the local batch loop (`batch.runner`) and the Ray engine's actors
(`batch.ray_engine`) must produce byte-for-byte the same record for an item, including the
usage accounting and the "an exception becomes an internal-error record" rule.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..llm.call_meter import ITEM_CALLS, CallMeter
from .cache import ITEM_HITS, HitCounter
from .escalation_usage import USAGE_KEY, escalation_usage
from .records import internal_error_record, judged_record

if TYPE_CHECKING:
    from ..graph.api import EvaluationRun
    from ..telemetry.exporter import ItemTracer

NOTEWORTHY_FIELDS = ("read_as", "unused_keys", "map_notes", "notes", "shape")
"""What makes a record carry `input_fields`: an item read exactly as written carries nothing more."""


def is_crash(record: dict) -> bool:
    """True for the record of an item whose judging raised (a bug, not a judged failure)."""
    return "internal_error" in record


async def judge_entry(entry_id: str | int, line: int, item_with_id: dict | None, context: Any, *,
                      rubric: str | None, concurrency: int, details: bool = False,
                      cache_on: bool = False, field_map: Mapping[str, str] | None = None,
                      telemetry: ItemTracer | None = None) -> dict:
    """The output record for one valid entry; never raises for the item's sake. When the item
    was not read exactly as written (other field names, keys no rubric reads, `--map`'s notes),
    the record says how in `input_fields`. With `telemetry` (`--otel`), the item and its steps
    are also recorded as one trace (`telemetry.span_builder`); the record is the same."""
    if telemetry is None:
        record, _ = await _judge(entry_id, line, item_with_id, context, rubric=rubric, concurrency=concurrency,
                                 details=details, cache_on=cache_on, field_map=field_map)
        return record
    from ..telemetry.judged_item import JudgedItem
    from ..telemetry.step_clock import StepClock

    clock = StepClock()
    started_ns = time.time_ns()
    record, run = await _judge(entry_id, line, item_with_id, context, rubric=rubric, concurrency=concurrency,
                               details=details, cache_on=cache_on, field_map=field_map, callbacks=[clock])
    item = {k: v for k, v in (item_with_id or {}).items() if k != "id"}
    telemetry.record(JudgedItem(record=record, item=item, run=run, model_id=str(getattr(context, "model_id", "")),
                                started_ns=started_ns, ended_ns=time.time_ns(), clock=clock))
    return record


async def _judge(entry_id: str | int, line: int, item_with_id: dict | None, context: Any, *,
                 rubric: str | None, concurrency: int, details: bool, cache_on: bool,
                 field_map: Mapping[str, str] | None, callbacks: list | None = None,
                 ) -> tuple[dict, EvaluationRun | None]:
    """The record, and the run behind it (None when judging raised)."""
    from ..graph.api import arun_evaluation

    counter = HitCounter()
    ITEM_HITS.set(counter)  # this task's context; its nodes and cache threads inherit it
    meter = CallMeter()
    ITEM_CALLS.set(meter)  # the calls made so far, for the record of an item whose judging raises
    item = {k: v for k, v in (item_with_id or {}).items() if k != "id"}
    started = time.perf_counter()
    try:
        run = await arun_evaluation(item, model=context, rubric=rubric, max_concurrency=concurrency,
                                    field_map=field_map, callbacks=callbacks,
                                    max_item_chars=None)
    except Exception as error:  # noqa: BLE001 - one item's bug must not stop the batch
        usage = _usage(meter.calls, meter.input_tokens, meter.output_tokens, started, counter, cache_on)
        return internal_error_record(entry_id, line, item_with_id, rubric,
                                     f"{type(error).__name__}: {error}"[:500], usage), None
    totals = run.usage
    usage = _usage(totals["calls"], totals["input_tokens"], totals["output_tokens"], started, counter, cache_on)
    if getattr(context, "escalate_to", None) is not None:  # who decided what, and what each judge cost
        usage[USAGE_KEY] = escalation_usage(run.trace, usage, context.model_id, context.escalate_to.model_id)
    record = judged_record(entry_id, line, run.rubrics, run.result, usage)
    fields = run.input_fields
    if any(key in fields for key in NOTEWORTHY_FIELDS):
        record["input_fields"] = fields
    if details:
        record["details"] = run_details(item, run)
    return record, run


def run_details(item: Any, run: Any) -> dict:
    """`--details`: `{"item", "rubrics", "usage", "nodes", "claims", "verdicts"}` for one judged
    item, the same data `--trace-out` writes for one item.

    Why opt-in: the default line stays small (`{"id", "line", "rubric", "result", "usage"}`),
    while `judgegraph report` and `judgegraph calibrate` need, per item, the input it judged,
    the claims with their verdicts and evidence, and the step trace with durations and tokens."""
    return {"item": item, **run.trace_json()}


def _usage(calls: int, tokens_in: int, tokens_out: int, started: float, counter: HitCounter,
           cache_on: bool) -> dict[str, Any]:
    """Calls made to the model: cache hits are replies, not calls (their tokens are 0)."""
    usage: dict[str, Any] = {
        "calls": max(0, calls - counter.hits), "input_tokens": tokens_in,
        "output_tokens": tokens_out, "seconds": round(time.perf_counter() - started, 3),
    }
    if cache_on:
        usage["cache_hits"] = counter.hits
    return usage
