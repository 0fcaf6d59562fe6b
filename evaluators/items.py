"""LangSmith's `(inputs, outputs, reference_outputs)` turned into one judgegraph item per rubric.

Why: LangSmith datasets and openevals evaluators speak in three dicts (the example's inputs,
the app's outputs, the example's reference outputs), while each rubric wants its own item keys.
The lookups below accept the field names RAG apps commonly use, plain strings for `outputs`
and `reference_outputs` (as openevals does), and retrieved documents as strings, dicts or
LangChain `Document`s. Anything else: pass `prepare_item=` to the factory.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

QUESTION_KEYS = ("question", "input", "query", "user_input")
ANSWER_KEYS = ("answer", "output", "response", "output_text", "text", "generation")
CONTEXT_KEYS = ("context", "contexts", "documents", "retrieved_context", "retrieved_documents", "sources")
REFERENCE_KEYS = ("reference", "answer", "output", "expected", "expected_output", "ground_truth", "gold_reference")


def pick(source: Any, keys: tuple[str, ...]) -> Any:
    """The first non-null value of `keys` in a mapping; a plain string is its own value."""
    if isinstance(source, str):
        return source
    if isinstance(source, Mapping):
        for key in keys:
            if source.get(key) is not None:
                return source[key]
    return None


def passage_text(passage: Any) -> Any:
    """A retrieved passage as text: a string, a LangChain `Document`, or a dict holding its text."""
    if isinstance(passage, str):
        return passage
    content = getattr(passage, "page_content", None)
    if isinstance(content, str):
        return content
    if isinstance(passage, Mapping):
        for key in ("page_content", "content", "text"):
            if isinstance(passage.get(key), str):
                return passage[key]
    return passage  # left as is: the rubric's validation says what is wrong with it


def context_of(inputs: Any, outputs: Any, extra: Mapping[str, Any]) -> Any:
    """Retrieved context from `context=` (openevals style), else the outputs, else the inputs."""
    for source in (extra, outputs if isinstance(outputs, Mapping) else None, inputs):
        value = pick(source, CONTEXT_KEYS) if isinstance(source, Mapping) else None
        if value is not None:
            return [passage_text(p) for p in value] if isinstance(value, (list, tuple)) else passage_text(value)
    return None


def _compact(item: dict) -> dict:
    return {key: value for key, value in item.items() if value is not None}


def rag_item(inputs: Any, outputs: Any, reference_outputs: Any, extra: Mapping[str, Any]) -> dict:
    context = context_of(inputs, outputs, extra)
    return _compact({
        "question": pick(inputs, QUESTION_KEYS),
        "context": "" if context is None else context,
        "answer": pick(outputs, ANSWER_KEYS),
        "reference": pick(reference_outputs, REFERENCE_KEYS),
        "evaluation_goal": pick(inputs, ("evaluation_goal",)) if isinstance(inputs, Mapping) else None,
    })


def liverag_item(inputs: Any, outputs: Any, reference_outputs: Any, extra: Mapping[str, Any]) -> dict:
    context = context_of(inputs, outputs, extra)
    documents = context if isinstance(context, list) else ([] if context in (None, "") else [context])
    return _compact({
        "question": pick(inputs, QUESTION_KEYS),
        "answer": pick(outputs, ANSWER_KEYS),
        "documents": documents,
        "gold_reference": pick(reference_outputs, REFERENCE_KEYS),
    })


def coverage_item(inputs: Any, outputs: Any, reference_outputs: Any, extra: Mapping[str, Any]) -> dict:
    return {
        "input": pick(inputs, QUESTION_KEYS),
        "reference": pick(reference_outputs, REFERENCE_KEYS),
        "output_text": pick(outputs, ANSWER_KEYS),
    }


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
    return _compact(item)
