"""What the spans of one judged item are built from: its record, its run and its clock.

Why a plain dataclass: the batch (`batch.item_judging`) and the one-item command fill it in
the same way, and the attribute rules (`telemetry.attributes`) read it without importing
`opentelemetry`, so they are tested on their own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..graph.api import EvaluationRun
from .step_clock import StepClock


@dataclass
class JudgedItem:
    """One item as judged: `record` is its output line (`batch.records`), `run` its whole run
    (None when judging raised: the record then holds `internal_error`)."""

    record: dict[str, Any]
    item: Any
    run: EvaluationRun | None
    model_id: str
    started_ns: int
    ended_ns: int
    clock: StepClock | None = None
