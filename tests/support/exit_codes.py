"""The exit code the CLI owes a result (docs/exit-codes.md), for tests that judge whatever a
fuzzer or a hostile server makes of an item: 0 when a metric was judged, 1 when none was."""

from __future__ import annotations

from typing import Any

from judgegraph.batch.summary import has_a_judged_metric

JUDGED, NOTHING_JUDGED = 0, 1


def exit_for_records(records: list[dict]) -> int:
    """A batch's exit code from the records it wrote."""
    return JUDGED if any(has_a_judged_metric(record) for record in records) else NOTHING_JUDGED


def exit_for_result(rubric: str | list[str], result: Any) -> int:
    """A one-item `evaluate`'s exit code from the result it printed (the judge answering)."""
    return exit_for_records([{"rubric": rubric, "result": result}])
