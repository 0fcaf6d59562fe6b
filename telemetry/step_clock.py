"""When each step of one item ran, read from the graph's own callbacks, on the wall clock.

Why: a trace event records how long its step took, not when it started, and steps of an item
run side by side (the judgments, the claim checks). A span needs both ends. LangGraph reports
each node run to the callbacks of the run's config, and a node's output holds the trace events
it emitted, so a callback that notes when each node run started and ended knows when every
event's step ran, without the graph or its outputs changing.

A node run may hold several steps: the claims node lists the claims, then checks them side by
side (`nodes.claims.check_claim.extract_and_check_claims`). Its first event's step started
with the node; the events after it are steps the node ran once that first step had ended (the
claim checks, and their second readings), so they are clocked from the first step's end. The
callbacks see no finer grain: with `max_concurrency` below the number of claims, some checks
started later than that.

One clock per item, handed to that item's run in its config: concurrent items never share one,
and no ambient context is read.
"""

from __future__ import annotations

import threading
import time
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler

from ..schemas.trace import TraceEvent


class StepClock(BaseCallbackHandler):
    """Wall-clock (start, end) in nanoseconds for each trace event of one item's run."""

    run_inline = True
    """Called on the event loop as the node starts and ends, not later from a thread pool."""

    def __init__(self) -> None:
        self._started: dict[UUID, int] = {}
        self._times: list[tuple[TraceEvent, int, int]] = []
        self._lock = threading.Lock()

    def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        with self._lock:
            self._started[run_id] = time.time_ns()

    def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        ended = time.time_ns()
        with self._lock:
            started = self._started.pop(run_id, None)
            if started is None:
                return
            known = {id(event) for event, _, _ in self._times}
            events = [event for event in _events_in(outputs) if id(event) not in known]  # the node ends first
            for position, event in enumerate(events):
                step_started = started if position == 0 else min(ended, started + int(events[0].duration_s * 1e9))
                self._times.append((event, step_started, ended))

    def on_chain_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        with self._lock:
            self._started.pop(run_id, None)

    def times_of(self, event: TraceEvent) -> tuple[int, int] | None:
        """(start, end) of the node run that emitted `event` (the same object, else an equal
        one), or None when no node run reported it."""
        with self._lock:
            for noted, started, ended in self._times:
                if noted is event:
                    return started, ended
            for noted, started, ended in self._times:
                if noted == event:
                    return started, ended
        return None


def _events_in(outputs: Any) -> list[TraceEvent]:
    """The trace events in a node's output: its state update (a dict, or a `Command`'s)."""
    update = outputs if isinstance(outputs, dict) else getattr(outputs, "update", None)
    if isinstance(update, dict):
        found = update.get("trace")
    elif isinstance(update, list | tuple):
        found = [v for pair in update if isinstance(pair, tuple) and len(pair) == 2 and pair[0] == "trace"
                 for v in (pair[1] if isinstance(pair[1], list) else [pair[1]])]
    else:
        return []
    return [event for event in (found or []) if isinstance(event, TraceEvent)]
