"""What a reply's JSON text must satisfy beyond its schema: one value per key, and log-probabilities
that belong to the keys the value was read from.

Why: JSON parsers disagree on a repeated key. pydantic keeps the last value, while the graded
verdict (`llm.verdict_probabilities`) reads the token after the first `"verdict":`, so
`{"verdict": "not-in-context", "verdict": "supported"}` would be scored as supported without
log-probabilities and as not-in-context with them. A repeated key is therefore a failed attempt,
whatever the schema. And the probability readers find a field by its `"name":` in the reply's
tokens: if that text occurs anywhere the validated value did not read it from (a nested object
under an unknown key, prose around the JSON that a local repair removed), the tokens could
speak for another value than the written label. Such a reply's log-probabilities are ignored,
and the graded verdict falls back to the written label.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

from pydantic import BaseModel


class _RepeatedKey(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _no_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise _RepeatedKey(key)
        seen.add(key)
    return dict(pairs)


def repeated_key(text: str) -> str | None:
    """The first key an object of `text` repeats, or None (also when `text` is not JSON at all:
    the schema's validation reports that)."""
    try:
        json.loads(text, object_pairs_hook=_no_repeats)
    except _RepeatedKey as repeated:
        return repeated.key
    except (ValueError, RecursionError):
        return None
    return None


def _key_counts(value: Any, counts: Counter[str]) -> Counter[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            counts[str(key)] += 1
            _key_counts(item, counts)
    elif isinstance(value, list):
        for item in value:
            _key_counts(item, counts)
    return counts


def logprob_keys_mismatch(value: BaseModel, token_logprobs: list[dict]) -> str | None:
    """Why the reply's tokens cannot be trusted to speak for `value`'s fields, or None: some
    field's `"name":` occurs in the tokens more (or fewer) times than in the validated value
    (fields left to their defaults are not in the reply, so they are not counted)."""
    text = "".join(str(entry.get("token", "")) for entry in token_logprobs if isinstance(entry, dict))
    for key, expected in _key_counts(value.model_dump(mode="json", by_alias=True, exclude_unset=True), Counter()).items():
        found = len(re.findall('"' + re.escape(key) + r'"\s*:', text))
        if found != expected:
            return (f"the reply's tokens hold the key {key[:40]!r} {found} time(s), its value {expected}: "
                    "they may not be the tokens of the written value")
    return None
