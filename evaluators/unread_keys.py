"""The keys of LangSmith's dicts an evaluator's item builder never looked up, for its feedback.

Why: the CLI names an item's keys that no field reads; an evaluator gets three dicts (inputs,
outputs, reference outputs) and its rubric's builder picks its fields from them by name
(`schemas.evaluator_fields`). A key under a name it does not know (`{"prompt": ...}` for the
question) was dropped without a word, and every metric failed with "missing user question".
Here each dict is wrapped while the builder reads it, and what it never looked up (holding a
value) is returned, so the rows can name it and point at `field_map=`.
"""

from __future__ import annotations

from typing import Any


class ReadRecorder(dict):
    """A dict that remembers every key looked up in it (`get`, `[]`, `in`)."""

    def __init__(self, source: dict) -> None:
        super().__init__(source)
        self.looked_up: set[Any] = set()

    def get(self, key: Any, default: Any = None) -> Any:
        self.looked_up.add(key)
        return super().get(key, default)

    def __getitem__(self, key: Any) -> Any:
        self.looked_up.add(key)
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        self.looked_up.add(key)
        return super().__contains__(key)


def recording(value: Any) -> Any:
    """`value` wrapped when it is a plain dict; anything else (a string, None) as it is."""
    return ReadRecorder(value) if type(value) is dict else value


def unread_keys(parts: dict[str, Any]) -> dict[str, list[str]]:
    """{part name: its keys holding a value that were never looked up}, for the parts that have any."""
    unread: dict[str, list[str]] = {}
    for name, part in parts.items():
        if isinstance(part, ReadRecorder):
            keys = [str(key) for key, value in dict.items(part) if key not in part.looked_up and value is not None]
            if keys:
                unread[name] = keys
    return unread


def unread_note(unread: dict[str, list[str]]) -> str:
    """One clause naming the unread keys, e.g. "keys not read: inputs 'prompt'; name a field's
    key with field_map= (e.g. {'question': 'prompt'})"."""
    named = "; ".join(f"{part} {', '.join(repr(key) for key in keys)}" for part, keys in unread.items())
    example = next(iter(unread.values()))[0]
    return f"keys not read: {named}; name a field's key with field_map= (e.g. {{'question': {example!r}}})"
