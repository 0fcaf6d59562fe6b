"""The shape of one output line, for judged items and for items that could not be judged.

Every line is `{"id", "line", "rubric", "result", "usage"}`; `result` is always the rubric's
seed-shaped output (its failure shape when the item could not be judged), so downstream code
reads one shape. Lines the batch layer produced without judging carry one extra key saying why:
`input_error` (the input line is unusable) or `internal_error` (judging raised, which is a bug).
The results writer adds `provenance` to every line (the judge that wrote it: `batch.provenance`).
"""

from __future__ import annotations

from typing import Any

from ..graph import rubrics

USAGE_KEYS = ("calls", "input_tokens", "output_tokens", "seconds")


def zero_usage(*, with_cache: bool = False) -> dict[str, Any]:
    usage: dict[str, Any] = {"calls": 0, "input_tokens": 0, "output_tokens": 0, "seconds": 0.0}
    if with_cache:
        usage["cache_hits"] = 0
    return usage


def rubric_for(item: Any, requested: str | None) -> str:
    """The rubric whose failure shape fits an item that could not be judged."""
    from ..graph.every_item.validate_input import choose_rubrics

    names, _ = choose_rubrics(item if isinstance(item, dict) else None, requested)
    return names[0]


def failed_shape(rubric: str, reason: str) -> dict:
    spec = rubrics.find(rubric) or rubrics.get(rubrics.DEFAULT_RUBRIC)
    return spec.failed(reason)


def errored_shape(rubric: str, error: str) -> dict:
    spec = rubrics.find(rubric) or rubrics.get(rubrics.DEFAULT_RUBRIC)
    return spec.errored(error)


def judged_record(item_id: str | int, line: int, rubric_names: list[str], result: dict,
                  usage: dict) -> dict:
    rubric: str | list[str] = rubric_names[0] if len(rubric_names) == 1 else rubric_names
    return {"id": item_id, "line": line, "rubric": rubric, "result": result, "usage": usage}


def input_error_record(item_id: str | int, line: int, reason: str, *, with_cache: bool = False) -> dict:
    """A line that is not JSON, not an object, too large...: the default rubric's failure shape."""
    rubric = rubrics.DEFAULT_RUBRIC
    return {
        "id": item_id, "line": line, "rubric": rubric, "result": failed_shape(rubric, reason),
        "usage": zero_usage(with_cache=with_cache), "input_error": reason,
    }


def internal_error_record(item_id: str | int, line: int, item: Any, requested: str | None,
                          error: str, usage: dict) -> dict:
    """Judging raised (a bug somewhere): the item's rubric failure shape, and the error."""
    rubric = rubric_for(item, requested)
    return {
        "id": item_id, "line": line, "rubric": rubric,
        "result": errored_shape(rubric, f"Internal error while judging: {error}"),
        "usage": usage, "internal_error": error,
    }


def input_position(record: dict) -> tuple[int, int]:
    """Where a record's item stands in the input: its line (or row, or array element), then its
    turn for a conversation's turns. The results file is in completion order (each record is
    appended as its item finishes, which is what makes a run resumable and a crash lose
    nothing); what a person reads from it, the report and the CSV table, is sorted by this. A
    record without a line (not one judgegraph wrote) sorts last, in file order."""
    line = record.get("line")
    conversation = record.get("conversation")
    turn = conversation.get("turn") if isinstance(conversation, dict) else None
    return (line if isinstance(line, int) and not isinstance(line, bool) else 1 << 62,
            turn if isinstance(turn, int) and not isinstance(turn, bool) else 0)
