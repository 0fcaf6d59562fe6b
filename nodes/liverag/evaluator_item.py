"""The `liverag` item from LangSmith's `(inputs, outputs, reference_outputs)`, for its evaluator."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...schemas.evaluator_fields import (
    ANSWER_KEYS,
    REFERENCE_KEYS,
    compact,
    context_of,
    pick,
    question_and_history,
)


def liverag_item(inputs: Any, outputs: Any, reference_outputs: Any, extra: Mapping[str, Any]) -> dict:
    context = context_of(inputs, outputs, extra)
    documents = context if isinstance(context, list) else ([] if context in (None, "") else [context])
    return compact({
        **question_and_history(inputs),
        "answer": pick(outputs, ANSWER_KEYS),
        "documents": documents,
        "gold_reference": pick(reference_outputs, REFERENCE_KEYS),
    })
