"""The `expected_output` item from LangSmith's `(inputs, outputs, reference_outputs)`, for its
evaluator; the evaluation type and config come from the factory's arguments."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...schemas.evaluator_fields import (
    ANSWER_KEYS,
    QUESTION_KEYS,
    REFERENCE_KEYS,
    compact,
    pick,
)


def expected_output_item(inputs: Any, outputs: Any, reference_outputs: Any, extra: Mapping[str, Any]) -> dict:
    item = {
        "input": pick(inputs, QUESTION_KEYS),
        "actualOutput": pick(outputs, ANSWER_KEYS),
        "expectedOutput": pick(reference_outputs, REFERENCE_KEYS),
    }
    if isinstance(inputs, Mapping):
        for key in ("conversationHistory", "expectedToolCall", "context"):
            if inputs.get(key) is not None:
                item[key] = inputs[key]
    return compact(item)
