"""`exact_match` of the `expected_output` rubric, decided by code, never by the model.

"Identical" is meant as a person reading both outputs would mean it: differences of case,
spacing, line breaks or Unicode presentation form (full-width letters, ligatures, non-breaking
spaces) do not count. When both outputs are JSON (a structured answer, a tool call), they are
compared as values, so key order and formatting do not count either; strings inside are
normalised like text, and `1` equals `1.0`, but `true` never equals `1`.
"""

from __future__ import annotations

import json
import unicodedata
from typing import Any


def normalise_text(text: str) -> str:
    """NFKC, case-folded, whitespace collapsed to single spaces, trimmed."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def exact_match(actual: str, expected: str) -> bool:
    """Whether the two outputs are the same after normalisation (see the module docstring)."""
    actual_json, expected_json = _parse_json(actual), _parse_json(expected)
    if actual_json is not _NOT_JSON and expected_json is not _NOT_JSON:
        return _canonical(actual_json) == _canonical(expected_json)
    return normalise_text(actual) == normalise_text(expected)


_NOT_JSON = object()


def _parse_json(text: str) -> Any:
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return _NOT_JSON


def _canonical(value: Any) -> str:
    return json.dumps(_normalise_value(value), sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _normalise_value(value: Any) -> Any:
    """JSON values with text normalised and integral floats as ints; booleans stay booleans
    (json.dumps keeps `True` and `1` apart, where `==` would not)."""
    if isinstance(value, str):
        return normalise_text(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_normalise_value(v) for v in value]
    if isinstance(value, dict):
        return {key: _normalise_value(v) for key, v in value.items()}
    return value
