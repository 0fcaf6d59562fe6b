"""The trace: what each node did, how long it took, what it cost and what went wrong.

Every score must be traceable to the calls that produced it, so the trace keeps each attempt's
raw reply and validation errors, not just the final value.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class Attempt(BaseModel):
    """One model call inside a step (the first try or a repair)."""

    number: int
    ok: bool
    finish_reason: str | None = None
    errors: list[str] = Field(default_factory=list)
    repaired_locally: bool = False
    raw_reply: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    seconds: float = 0.0


class TraceEvent(BaseModel):
    """One node execution (or one fanned-out task of a node)."""

    node: str
    label: str | None = None
    outcome: Literal["ok", "failed", "skipped"] = "ok"
    duration_s: float = 0.0
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    attempts: list[Attempt] = Field(default_factory=list)
    errors: list[str] = Field(default_factory=list)
    note: str | None = None
    detail: dict[str, Any] = Field(default_factory=dict)
