"""Whether the judge named the deciding line of each claim check, read back from the trace.

A claim check's reply is a verdict and a line number (`schemas.claims.ClaimCheck`); line 0 (or a
number past the lines shown) means the judge named none, and the claim's recorded evidence is
then code's closest line (`nodes.claims.verdict`). The citation rule treats the two differently
(`support`, rule 3), and the claim record does not say which it is, so it is read here from
the reply each check's trace event keeps (its last valid attempt), without changing the claim
pipeline or what it records.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from ...schemas.trace import TraceEvent

_LINE = re.compile(r'"line"\s*:\s*(\d+)')
_CLAIM_LABEL = re.compile(r"^claim (\d+)$")


def _reply(event: TraceEvent) -> str | None:
    valid = [attempt for attempt in event.attempts if attempt.ok and attempt.raw_reply]
    return valid[-1].raw_reply if valid else None


def _line_of(reply: str) -> int | None:
    try:
        data = json.loads(reply)
    except ValueError:
        found = _LINE.search(reply)
        return int(found.group(1)) if found else None
    line = data.get("line") if isinstance(data, dict) else None
    return line if isinstance(line, int) else None


def named_lines(trace: Iterable[TraceEvent]) -> dict[int, bool]:
    """{claim index: the judge named a line it was shown} for every check whose reply can be
    read back; a claim absent from the result is unknown."""
    named: dict[int, bool] = {}
    for event in trace:
        if event.node == "check_claim" and event.label and (label := _CLAIM_LABEL.match(event.label)):
            reply = _reply(event)
            line = _line_of(reply) if reply is not None else None
            if line is not None:
                shown = event.detail.get("lines_shown")
                named[int(label.group(1)) - 1] = 0 < line <= (shown if isinstance(shown, int) else line)
        elif event.node == "check_claims_batch":
            reply = _reply(event)
            try:
                checks = json.loads(reply).get("checks", []) if reply else []
            except (ValueError, AttributeError):
                checks = []
            for check in checks if isinstance(checks, list) else []:
                if isinstance(check, dict) and isinstance(check.get("claim"), int) and isinstance(check.get("line"), int):
                    named[check["claim"] - 1] = check["line"] > 0
    return named
