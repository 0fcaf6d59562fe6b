"""The `rag` item from LangSmith's `(inputs, outputs, reference_outputs)`, for its evaluator."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...schemas.evaluator_fields import (
    ANSWER_KEYS,
    REFERENCE_KEYS,
    compact,
    context_ids_of,
    context_of,
    pick,
    question_and_history,
)


def rag_item(inputs: Any, outputs: Any, reference_outputs: Any, extra: Mapping[str, Any]) -> dict:
    context = context_of(inputs, outputs, extra)
    return compact({
        **question_and_history(inputs),
        "context": context,  # absent stays absent: judged as "no context given", never as empty
        "context_ids": context_ids_of(inputs, outputs, extra),
        "answer": pick(outputs, ANSWER_KEYS),
        "reference": pick(reference_outputs, REFERENCE_KEYS),
        "evaluation_goal": pick(inputs, ("evaluation_goal",)) if isinstance(inputs, Mapping) else None,
    })
