"""Field lookups in LangSmith's `(inputs, outputs, reference_outputs)`, for every rubric's item builder.

Why: LangSmith datasets and openevals evaluators speak in three dicts (the example's inputs,
the app's outputs, the example's reference outputs), while each rubric wants its own item keys
(`nodes/<rubric>/evaluator_item.py`). The lookups below accept the field names RAG apps
commonly use, plain strings for `outputs` and `reference_outputs` (as openevals does), and
retrieved documents as strings, dicts or LangChain `Document`s. Anything else: pass
`prepare_item=` to the evaluator factory.
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


def compact(item: dict) -> dict:
    """The item without its null fields, so the rubric's defaults apply."""
    return {key: value for key, value in item.items() if value is not None}
