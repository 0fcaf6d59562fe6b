"""The exit code the CLI owes a result (docs/exit-codes.md), for tests that judge whatever a
fuzzer or a hostile server makes of an item: 0 when every record was judged, 1 when one failed
(an invalid item, a metric that could not be judged)."""

from __future__ import annotations

from typing import Any

from judgegraph.batch.summary import holds_a_failure

JUDGED, JUDGED_WITH_FAILURES = 0, 1


def exit_for_records(records: list[dict]) -> int:
    """A batch's exit code from the records it wrote."""
    return JUDGED_WITH_FAILURES if any(holds_a_failure(record) for record in records) else JUDGED


def exit_for_result(rubric: str | list[str], result: Any) -> int:
    """A one-item `evaluate`'s exit code from the result it printed (the judge answering)."""
    return exit_for_records([{"rubric": rubric, "result": result}])
