"""The `coverage` item from LangSmith's `(inputs, outputs, reference_outputs)`, for its evaluator."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...schemas.evaluator_fields import ANSWER_KEYS, QUESTION_KEYS, REFERENCE_KEYS, pick


def coverage_item(inputs: Any, outputs: Any, reference_outputs: Any, extra: Mapping[str, Any]) -> dict:
    return {
        "input": pick(inputs, QUESTION_KEYS),
        "reference": pick(reference_outputs, REFERENCE_KEYS),
        "output_text": pick(outputs, ANSWER_KEYS),
    }
