"""The field names other tools write, read as judgegraph's own: one vocabulary for every entry point.

Why: users arrive with rows their RAG stack or another evaluator wrote. RAGAS calls the
question `user_input` (`question` before 0.2), DeepEval calls the answer `actual_output`, a
LangChain RetrievalQA chain returns `result` and `source_documents` (LangChain `Document`s).
Reading those under judgegraph's names is a data question, so it lives here, below the graph:
the CLI, the batch, `graph.evaluate`, the served graph and the evaluators all go through the
graph's first node, which reads an item with `read_fields` and the rubric's table below. The
table of docs/input-fields.md is this module, written out.

Three rules keep the reading honest:

- a key that holds a value is never dropped without a word: what no field reads comes back
  in `FieldReading.unused` (a warning line, a batch record's `input_fields`);
- two keys for one field (`answer` and `response`) are an input error naming both, never a
  silent pick;
- a context given as LangChain `Document`s (or as their serialized dicts, `page_content`) is
  read as its text, so a present context is never judged as empty.

`apply_field_map` is the user's own mapping (`--map dst=src`, `field_map=`) for names no tool
here writes.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from .conversation import HistoryError, plain_messages, read_messages, split_last_user_turn

QUESTION_NAMES: tuple[str, ...] = ("question", "user_input", "input", "query")
"""judgegraph, RAGAS (0.2+), DeepEval, LangChain RetrievalQA."""
ANSWER_NAMES: tuple[str, ...] = ("answer", "response", "actual_output", "result")
"""judgegraph and RAGAS before 0.2, RAGAS (0.2+), DeepEval, LangChain RetrievalQA."""
CONTEXT_NAMES: tuple[str, ...] = (
    "context", "contexts", "retrieved_contexts", "retrieval_context", "source_documents", "documents",
)
"""judgegraph's rag, RAGAS before 0.2, RAGAS (0.2+), DeepEval, LangChain RetrievalQA, judgegraph's liverag."""
REFERENCE_NAMES: tuple[str, ...] = ("reference", "ground_truth", "expected_output", "gold_reference")
"""judgegraph and RAGAS (0.2+), RAGAS before 0.2, DeepEval, judgegraph's liverag."""
HISTORY_NAMES: tuple[str, ...] = ("history", "chat_history", "conversation_history")
"""judgegraph, LangChain's conversational chains (`chat_history`), and the plain name. RAGAS's
`MultiTurnSample` puts the whole chat in `user_input` (a list of messages): read by
`split_message_question`."""

META_KEYS: frozenset[str] = frozenset({"id", "rubric"})
"""Keys about the item, not of it: never a field, never reported as unused."""
CONVERSATION_KEYS: tuple[str, ...] = ("messages", "turns")
"""judgegraph's conversation line, DeepEval's `ConversationalTestCase`."""


def is_conversation(item: Any) -> bool:
    """An object with a list of messages and no key a single item's question or answer has:
    a whole conversation, judged turn by turn (`batch.conversations`), which a one-item
    `evaluate` refuses with the flag that judges it."""
    if not isinstance(item, Mapping):
        return False
    if not any(isinstance(item.get(key), list) for key in CONVERSATION_KEYS):
        return False
    return not any(item.get(key) is not None for key in (*QUESTION_NAMES, *ANSWER_NAMES))



def _own_name_first(own: str, names: tuple[str, ...]) -> tuple[str, ...]:
    return (own, *(name for name in names if name != own))


RAG_FIELDS: Mapping[str, tuple[str, ...]] = {
    "question": QUESTION_NAMES,
    "answer": ANSWER_NAMES,
    "context": CONTEXT_NAMES,
    "reference": REFERENCE_NAMES,
    "history": HISTORY_NAMES,
}
LIVERAG_FIELDS: Mapping[str, tuple[str, ...]] = {
    "question": QUESTION_NAMES,
    "answer": ANSWER_NAMES,
    "documents": _own_name_first("documents", CONTEXT_NAMES),
    "gold_reference": _own_name_first("gold_reference", REFERENCE_NAMES),
    "history": HISTORY_NAMES,
}
COVERAGE_FIELDS: Mapping[str, tuple[str, ...]] = {
    "input": _own_name_first("input", QUESTION_NAMES),
    "reference": REFERENCE_NAMES,
    "output_text": ("output_text", *ANSWER_NAMES),
}
"""Each rubric's fields and every name each is read from, its own name first."""

ECOSYSTEM_NAMES: tuple[str, ...] = tuple(dict.fromkeys(
    name for names in (QUESTION_NAMES, ANSWER_NAMES, CONTEXT_NAMES, REFERENCE_NAMES)
    for name in names[1:] if name not in ("documents", "gold_reference")
))
"""The names only other tools write (RAGAS, DeepEval, LangChain): an item holding one of them
is told as the `rag` rubric, whose metrics are the ones those tools' rows are made for."""

SHAPES: Mapping[str, Mapping[str, str]] = {
    "RAGAS 0.2+": {"question": "user_input", "answer": "response", "context": "retrieved_contexts",
                     "reference": "reference"},
    "RAGAS before 0.2": {"question": "question", "answer": "answer", "context": "contexts",
                           "reference": "ground_truth"},
    "DeepEval": {"question": "input", "answer": "actual_output", "context": "retrieval_context",
                 "reference": "expected_output"},
    "LangChain RetrievalQA": {"question": "query", "answer": "result", "context": "source_documents"},
}
"""The shapes docs/input-fields.md lists, by tool (rag's field -> the tool's key)."""


class FieldMapError(ValueError):
    """A `--map` / `field_map=` the reader cannot use; `str(error)` is one line."""


def parse_field_map(spec: str | Mapping[str, str] | None) -> dict[str, str]:
    """`"question=prompt,context=passages"` (or a dict) as {field: source key}; FieldMapError
    for a part that is not `dst=src` or a field mapped twice."""
    if spec is None or spec == "":
        return {}
    if isinstance(spec, Mapping):
        pairs = list(spec.items())
    elif isinstance(spec, str):
        pairs = []
        for part in spec.split(","):
            if part.strip() == "":
                continue
            dst, equals, src = part.partition("=")
            if not equals:
                raise FieldMapError(f"--map part {part.strip()!r} is not field=key (e.g. question=prompt)")
            pairs.append((dst, src))
    else:
        raise FieldMapError(f"a field map is 'field=key,...' or a dict, not {type(spec).__name__}")
    mapping: dict[str, str] = {}
    for dst, src in pairs:
        if not isinstance(dst, str) or not isinstance(src, str) or not dst.strip() or not src.strip():
            raise FieldMapError(f"--map needs field=key with both names, got {dst!r}={src!r}")
        dst, src = dst.strip(), src.strip()
        if dst in mapping:
            raise FieldMapError(f"--map gives field {dst!r} twice ({mapping[dst]!r} and {src!r})")
        mapping[dst] = src
    return mapping


@dataclass(frozen=True)
class MappedItem:
    """The item after the user's map, and what the map could not do."""

    item: dict
    notes: tuple[str, ...] = ()
    """One line per key the map set aside (the item's own key for a mapped field)."""
    applied: dict[str, str] = field(default_factory=dict)
    """{field: source key} of the pairs whose source the item holds."""
    missing: tuple[str, ...] = ()
    """One line per pair whose source the item lacks: an input error for the item, never a
    field left absent (a mapped context that is not there is not an empty context)."""


_INDEX = re.compile(r"\[(\d+)\]")


def path_parts(path: str) -> list[str]:
    """`outputs.documents[0].page_content` (or `outputs.documents.0.page_content`) as its steps."""
    return [part for part in _INDEX.sub(r".\1", path).split(".") if part != ""]


def path_value(item: Mapping[str, Any], path: str) -> tuple[bool, Any]:
    """(found, value) of `path` in `item`: the key itself when the item holds it (a column may
    be named `a.b`), else its dotted steps through objects and lists (a number indexes a list)."""
    if path in item:
        return True, item[path]
    value: Any = item
    for part in path_parts(path):
        if isinstance(value, Mapping) and part in value:
            value = value[part]
        elif isinstance(value, (list, tuple)) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return False, None
    return value is not item, value


def _without_path(value: Any, parts: list[str]) -> Any:
    """`value` with the object key at `parts` removed (objects left empty removed too); a path
    through a list leaves the list whole (its other elements stay reported as not read)."""
    if not parts or not isinstance(value, Mapping) or parts[0] not in value:
        return value
    if len(parts) == 1:
        return {key: sub for key, sub in value.items() if key != parts[0]}
    rest = _without_path(value[parts[0]], parts[1:])
    if isinstance(value[parts[0]], Mapping) and isinstance(rest, Mapping) and not rest:
        return {key: sub for key, sub in value.items() if key != parts[0]}
    return {**value, parts[0]: rest}


def apply_field_map(item: Mapping[str, Any], field_map: Mapping[str, str]) -> MappedItem:
    """Set each mapped field from its source (`{"context": "passages"}` reads `passages` as
    `context`; `{"question": "inputs.question"}` reads a nested value, a number steps into a
    list). The map is the user's explicit choice, so it wins: a key that already had the
    field's name is set aside and noted, never silently judged instead; what a nested source
    leaves of its object stays in the item (reported when nothing reads it)."""
    if not field_map:
        return MappedItem(dict(item))
    sources = set(field_map.values())
    mapped = {key: value for key, value in item.items() if key not in sources and key not in field_map}
    notes: list[str] = []
    missing: list[str] = []
    applied: dict[str, str] = {}
    for dst, src in field_map.items():
        found, value = path_value(item, src)
        if found:
            applied[dst] = src
            if src not in item:
                root, *rest = path_parts(src)
                remainder = _without_path(mapped.get(root, item.get(root)), rest)
                if isinstance(remainder, Mapping) and not remainder:
                    mapped.pop(root, None)
                else:
                    mapped[root] = remainder
        else:
            missing.append(f"--map {dst}={src}: the item has no key {src!r}")
        if dst in item and dst != src and dst not in sources and item[dst] is not None:
            notes.append(f"--map {dst}={src}: the item's own {dst!r} was not used")
    for dst, src in field_map.items():
        if dst in applied:
            mapped[dst] = path_value(item, src)[1]
    return MappedItem(mapped, tuple(notes), applied, tuple(missing))


PASSAGE_TEXT_KEYS: tuple[str, ...] = ("page_content", "text", "content", "chunk", "document.content")
"""Where a passage given as an object holds its text: LangChain `Document`s (`page_content`),
LlamaIndex nodes and vector-store hits (`text`), Haystack documents (`content`), chunkers
(`chunk`), OpenInference / Phoenix retrieval documents (`document.content`, flat as a spans
frame writes it, or nested `{"document": {"content"}}`)."""
PASSAGE_HOLDERS: tuple[str, ...] = ("document", "node", "kwargs")
"""Objects a passage nests its fields in: OpenInference's `document`, LlamaIndex's
`NodeWithScore.node`, LangChain's serialization `kwargs` (under `"lc"`)."""


def _passage_fields(passage: Mapping[str, Any]) -> Mapping[str, Any]:
    """The object holding a passage's own fields: a nested `document` / `node` / LangChain
    `kwargs` when the passage is a wrapper around one, else the passage."""
    for holder in PASSAGE_HOLDERS:
        inner = passage.get(holder)
        if isinstance(inner, Mapping) and (holder != "kwargs" or passage.get("lc") is not None):
            if any(isinstance(inner.get(key), str) for key in PASSAGE_TEXT_KEYS):
                return inner
    return passage


def passage_text(passage: Any) -> Any:
    """A retrieved passage as text: a string, a LangChain `Document`, or an object holding its
    text under exactly one of `PASSAGE_TEXT_KEYS` (nested in `PASSAGE_HOLDERS` too). Anything
    else (two text keys, a number, null) is returned as is, for validation to name
    (`passage_problem`): a passage is never guessed at."""
    if isinstance(passage, str):
        return passage
    content = getattr(passage, "page_content", None)
    if isinstance(content, str):
        return content
    if isinstance(passage, Mapping):
        fields = _passage_fields(passage)
        texts = [fields[key] for key in PASSAGE_TEXT_KEYS if isinstance(fields.get(key), str)]
        if len(texts) == 1:
            return texts[0]
    return passage


_KINDS = {bool: "true or false", int: "a number", float: "a number", list: "a list", dict: "an object"}


def passage_problem(value: Any) -> str | None:
    """What is wrong with a context that is not text or a list of texts (after `passage_text`),
    in the user's words: which passage, what it is, and what a passage may be."""
    names = " / ".join(repr(key) for key in PASSAGE_TEXT_KEYS)
    allowed = f"a passage is text, or an object with its text under one of {names}"
    passages = value if isinstance(value, (list, tuple)) else [value]
    for number, passage in enumerate(passages, start=1):
        if isinstance(passage, str):
            continue
        where = f"passage {number}" if isinstance(value, (list, tuple)) else "the context"
        if passage is None:
            return f"{where} is null; {allowed} (an empty passage is \"\")"
        if isinstance(passage, Mapping):
            fields = _passage_fields(passage)
            keys = [key for key in PASSAGE_TEXT_KEYS if isinstance(fields.get(key), str)]
            if len(keys) > 1:
                return f"{where} holds text under {len(keys)} keys ({', '.join(map(repr, keys))}); give one"
            return f"{where} is an object with no text key ({', '.join(map(repr, list(passage)[:6]))}); {allowed}"
        kind = next((name for kind, name in _KINDS.items() if isinstance(passage, kind)), type(passage).__name__)
        if isinstance(passage, (int, float)) and not isinstance(passage, bool):
            kind = f"a number ({passage!r:.20})"
        return f"{where} is {kind}; {allowed}"
    return None


def _id_text(value: Any) -> str | None:
    if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value).strip():
        return str(value)
    return None


def passage_id(passage: Any) -> str | None:
    """The id a retrieved passage carries, if any, as text: a LangChain `Document`'s `id` (or
    `metadata["id"]`), an object's `id` / `id_` (LlamaIndex) / `document.id` (OpenInference) /
    `metadata.id`, nested in `PASSAGE_HOLDERS` too. Citation markers may name passages by it
    (`text.citation_markers`)."""
    if isinstance(passage, str):
        return None
    if isinstance(passage, Mapping):
        inner = _passage_fields(passage)
        holders = [passage, inner, passage.get("metadata"), inner.get("metadata")]
        found = (_id_text(holder.get(key)) for holder in holders if isinstance(holder, Mapping)
                 for key in ("id", "id_", "document.id"))
    else:
        metadata = getattr(passage, "metadata", None)
        found = iter([_id_text(getattr(passage, "id", None)),
                      _id_text(metadata.get("id")) if isinstance(metadata, Mapping) else None])
    return next((value for value in found if value is not None), None)


def context_ids(value: Any) -> list[str | None] | None:
    """The ids of a context's passages, in order, when at least one passage carries one (None
    otherwise, so a context of plain strings reads exactly as before)."""
    if not isinstance(value, (list, tuple)):
        return None
    ids = [passage_id(passage) for passage in value]
    return ids if any(i is not None for i in ids) else None


def context_value(value: Any) -> Any:
    """A context field's value with its passages as text (a list stays a list)."""
    if isinstance(value, (list, tuple)):
        return [passage_text(passage) for passage in value]
    return passage_text(value)


@dataclass(frozen=True)
class FieldReading:
    """An item read for one rubric: its fields under the rubric's names, and what was not read."""

    item: dict
    """Every field the rubric reads, under its own name; nothing else."""
    sources: dict[str, str] = field(default_factory=dict)
    """{field: the item's key it was read from}, for every field read from a value."""
    unused: tuple[str, ...] = ()
    """Keys holding a value (not null) that no field read."""
    clash: tuple[str, tuple[str, ...]] | None = None
    """(field, the keys that all hold it) when two or more keys give one field."""

    @property
    def read_as(self) -> dict[str, str]:
        """{field: key} for the fields read under another name."""
        return {name: key for name, key in self.sources.items() if key != name}


def read_fields(item: Mapping[str, Any], fields: Mapping[str, tuple[str, ...]], own_fields: Collection[str],
                context_fields: Collection[str] = (), reserved: Collection[str] = (),
                mapped: Collection[str] = ()) -> FieldReading:
    """Read `item` for a rubric whose input has `own_fields`; `fields` gives the other names of
    some of them (`RAG_FIELDS`...), `context_fields` the fields whose passages may be Documents.

    A null value counts as absent when looking for a field's key (DeepEval writes
    `"context": null` beside `retrieval_context`), but an explicit null under the field's own
    name is kept (rag's `"reference": null` means "no reference"). When the field's own name
    holds a value, another rubric's own name (`reserved`, e.g. liverag's `documents` beside
    rag's `context`, as an item judged by both rubrics holds) belongs to that rubric, not to
    this field; another tool's name (`retrieved_contexts`) still clashes. A field the user's map
    set (`mapped`, `apply_field_map`) is read from its own name only: the map wins, and the item's
    other names for it (a RAGAS row's `retrieved_contexts` under `--map context=reference_contexts`)
    are reported as not read instead of clashing."""
    read: dict[str, Any] = {}
    sources: dict[str, str] = {}
    consumed: set[str] = set()
    for name in own_fields:
        names = (name,) if name in mapped else fields.get(name, (name,))
        present = [key for key in names if key in item and item[key] is not None]
        if name in present:
            present = [key for key in present if key == name or key not in reserved]
        if len(present) > 1:
            return FieldReading({}, clash=(name, tuple(present)))
        if present:
            key = present[0]
            read[name] = context_value(item[key]) if name in context_fields else item[key]
            consumed.add(key)
            sources[name] = key
            ids_field = f"{name}_ids"
            if name in context_fields and ids_field in own_fields and ids_field not in item:
                ids = context_ids(item[key])
                if ids is not None:  # the passages' own ids, for citation markers that name them
                    read[ids_field] = ids
        elif name in item:
            read[name] = None
            consumed.add(name)
    if "history" in own_fields:
        clash = split_message_question(read, sources)
        if clash is not None:
            return FieldReading({}, clash=clash)
        if read.get("history") is not None:
            read["history"] = plain_messages(read["history"])
    unused = tuple(key for key, value in item.items()
                   if key not in consumed and key not in META_KEYS and value is not None)
    return FieldReading(read, sources, unused)


def split_message_question(read: dict[str, Any], sources: dict[str, str]) -> tuple[str, tuple[str, ...]] | None:
    """A question given as a list of messages (RAGAS `MultiTurnSample.user_input`) becomes the
    last user message; the messages before it the history, and an assistant message after it
    the answer when no answer key is given. Changes `read` and `sources` in place; returns a
    clash when the item also gives its history (or its answer) under its own key. A list that
    is not messages is left for the input model to name."""
    value = read.get("question")
    if not isinstance(value, (list, tuple)):
        return None
    try:
        split = split_last_user_turn(read_messages(value, sources.get("question", "question")))
    except HistoryError:
        return None
    key = sources.get("question", "question")
    if split.history and read.get("history") is not None:
        return "history", (key, sources.get("history", "history"))
    read["question"] = split.question
    if split.history:
        read["history"] = [message.model_dump() for message in split.history]
        sources["history"] = key
    if split.answer is not None:
        if read.get("answer") is not None:
            return "answer", (key, sources.get("answer", "answer"))
        read["answer"] = split.answer
        sources["answer"] = key
    return None
