"""Reading what a run recorded: the details of `--details` and `--trace-out`.

Why: a metric record's signals are what the judge and code measured (label probabilities,
counts, flags), and the run keeps exactly that in its step trace. The readers look it up
here, by node name, in the shape `EvaluationRun.trace_json()` writes: `{"nodes": [trace
event dicts], "claims": {...} | None, "verdicts": [checked claim dicts]}`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any


def step_events(details: Mapping[str, Any] | None, node: str) -> Iterator[dict]:
    """The trace events of `node` that finished ok, in run order."""
    for event in (details or {}).get("nodes") or []:
        if isinstance(event, dict) and event.get("node") == node and event.get("outcome") == "ok":
            yield event


def step_detail(details: Mapping[str, Any] | None, node: str) -> dict:
    """The detail of the first ok event of `node` (a single-call step's reply and what code
    derived from it); empty when the step did not run, failed, or nothing was recorded."""
    event = next(step_events(details, node), None)
    detail = event.get("detail") if event else None
    return detail if isinstance(detail, dict) else {}


def verdicts(details: Mapping[str, Any] | None) -> list[dict]:
    """The checked claims of the shared claim pipeline, in claim order."""
    return [v for v in (details or {}).get("verdicts") or [] if isinstance(v, dict)]
