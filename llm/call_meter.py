"""Counting an item's model calls as they are made, not only from its finished trace.

Why: an item's usage is read from its trace when the graph finishes. When judging raises
instead (a bug; the batch writes an `internal_error` record), there is no trace, and a record
read from it alone would say `calls: 0` although calls were made and paid for. The batch puts a `CallMeter` in
the item's context (`batch.item_judging`); every attempt `llm.structured` makes is added to it,
so the usage of a failed item still counts the calls that were sent, and only those: a request
refused before it is sent (a prompt that cannot be encoded) is not an attempt.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass

from ..schemas.trace import Attempt


@dataclass
class CallMeter:
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0

    def add(self, attempt: Attempt) -> None:
        self.calls += 1
        self.input_tokens += attempt.input_tokens
        self.output_tokens += attempt.output_tokens


ITEM_CALLS: ContextVar[CallMeter | None] = ContextVar("judgegraph_item_calls", default=None)
"""The meter of the item being judged in this context (the graph's tasks inherit it)."""


def count_attempt(attempt: Attempt) -> None:
    meter = ITEM_CALLS.get()
    if meter is not None:
        meter.add(attempt)
