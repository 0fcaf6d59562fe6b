"""Field lookups in LangSmith's `(inputs, outputs, reference_outputs)`, for every rubric's item builder.

Why: LangSmith datasets and openevals evaluators speak in three dicts (the example's inputs,
the app's outputs, the example's reference outputs), while each rubric wants its own item keys
(`nodes/<rubric>/evaluator_item.py`). The lookups below accept the field names RAG apps
commonly use and the names RAGAS, DeepEval and LangChain write (`schemas.field_aliases`),
plain strings for `outputs` and `reference_outputs` (as openevals does), and retrieved
documents as strings, dicts or LangChain `Document`s. Other names: `field_map=` on the
evaluator factory; anything else: `prepare_item=`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .field_aliases import (
    ANSWER_NAMES,
    CONTEXT_NAMES,
    HISTORY_NAMES,
    QUESTION_NAMES,
    REFERENCE_NAMES,
    apply_field_map,
    context_ids,
)
from .field_aliases import passage_text as document_text


def _with(names: tuple[str, ...], *more: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys((*names, *more)))


QUESTION_KEYS = _with(("question", "input", "query", "user_input"), *QUESTION_NAMES)
ANSWER_KEYS = _with(("answer", "output", "response", "output_text", "text", "generation"), *ANSWER_NAMES)
CONTEXT_KEYS = _with(("context", "contexts", "documents", "retrieved_context", "retrieved_documents", "sources"),
                     *CONTEXT_NAMES)
REFERENCE_KEYS = _with(("reference", "answer", "output", "expected", "expected_output", "ground_truth", "gold_reference"),
                       *REFERENCE_NAMES)
"""The names tried in each of LangSmith's dicts: the item names `schemas.field_aliases` reads
(RAGAS, DeepEval, LangChain), after the names LangSmith datasets commonly use."""
HISTORY_KEYS = HISTORY_NAMES
"""A conversation's earlier messages in the inputs (`schemas.conversation`)."""
MESSAGES_KEY = "messages"
"""LangSmith's chat inputs: the whole conversation as one message list, its last user message
the question (read as RAGAS's multi-turn `user_input`), when no question key is given."""


def question_and_history(inputs: Any) -> dict[str, Any]:
    """The question (a message list when the inputs hold only `messages`) and the history."""
    question = pick(inputs, QUESTION_KEYS)
    if question is None and isinstance(inputs, Mapping):
        question = inputs.get(MESSAGES_KEY)
    history = pick(inputs, HISTORY_KEYS) if isinstance(inputs, Mapping) else None
    return {"question": question, "history": history}


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
    """A retrieved passage as text: a string, a LangChain `Document` (or a serialized one), or
    a dict holding its text as `content` or `text` (LlamaIndex, Haystack outputs)."""
    text = document_text(passage)
    if isinstance(text, str) or not isinstance(passage, Mapping):
        return text
    for key in ("content", "text"):
        if isinstance(passage.get(key), str):
            return passage[key]
    return passage


def context_of(inputs: Any, outputs: Any, extra: Mapping[str, Any]) -> Any:
    """Retrieved context from `context=` (openevals style), else the outputs, else the inputs."""
    for source in (extra, outputs if isinstance(outputs, Mapping) else None, inputs):
        value = pick(source, CONTEXT_KEYS) if isinstance(source, Mapping) else None
        if value is not None:
            return [passage_text(p) for p in value] if isinstance(value, (list, tuple)) else passage_text(value)
    return None


def context_ids_of(inputs: Any, outputs: Any, extra: Mapping[str, Any]) -> list[str | None] | None:
    """The ids of the retrieved passages `context_of` reads (a `Document`'s `id`, a dict's
    `id`), for citation markers that name passages by id; None when no passage carries one."""
    for source in (extra, outputs if isinstance(outputs, Mapping) else None, inputs):
        value = pick(source, CONTEXT_KEYS) if isinstance(source, Mapping) else None
        if value is not None:
            return context_ids(value)
    return None


def mapped(source: Any, field_map: Mapping[str, str]) -> Any:
    """One of LangSmith's dicts with the pairs of the user's `field_map=` whose key it holds
    applied (`schemas.field_aliases.apply_field_map`); anything else as it is. Per dict, so a
    map for the outputs' `generation` leaves the reference outputs' `answer` alone."""
    if not field_map or not isinstance(source, Mapping):
        return source
    pairs = {field: key for field, key in field_map.items() if key in source}
    return apply_field_map(source, pairs).item if pairs else source


def compact(item: dict) -> dict:
    """The item without its null fields, so the rubric's defaults apply."""
    return {key: value for key, value in item.items() if value is not None}
