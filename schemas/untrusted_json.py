"""What JSON and Python's `str` allow but the judge cannot use: one check for every input path.

Why: `json.loads` accepts text no later step can handle. A `\\ud800` escape decodes to a lone
surrogate, which is not Unicode text: it cannot be encoded as UTF-8, so the HTTP request
carrying it fails and every model step would be blamed for it. An integer of more than 4,300
digits makes `json.loads` itself raise `ValueError`; `NaN` and `Infinity` are not JSON at all
and cannot be written back out; and a value nested a few thousand levels deep makes the parser
(or any recursive walk after it) raise `RecursionError`. Each of these is the input's problem,
so each becomes a one-line reason on that input alone (the single file, the batch line), never
an exception, and the same words whichever path met it.

The walk below is iterative on purpose: a recursive checker would itself fail on the values it
exists to reject.
"""

from __future__ import annotations

import gc
import json
import math
import re
import sys
from typing import Any

MAX_DEPTH = 64
"""Deepest nesting of objects and lists an item may have. Real items nest 3 or 4 levels (an
`evaluationConfig` with its `range_mappings`); 64 leaves ample room and keeps every recursive
consumer (pydantic, `json.dumps`, the report) far from Python's recursion limit."""

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class UntrustedJsonError(ValueError):
    """The text cannot be used as an item; `str(error)` is the one-line reason (no prefix)."""


def lone_surrogate_at(text: str) -> int | None:
    """Index of the first lone surrogate in `text` (text that cannot be UTF-8), else None.

    A Python `str` never holds a valid surrogate pair (those decode to one code point), so any
    code point in U+D800..U+DFFF is lone."""
    found = _LONE_SURROGATE.search(text)
    return None if found is None else found.start()


def describe_surrogate(text: str, where: str) -> str | None:
    """"<where> holds a lone surrogate (U+D800) at character 4: ..." or None when clean."""
    position = lone_surrogate_at(text)
    if position is None:
        return None
    return (f"{where} holds a lone surrogate (U+{ord(text[position]):04X}) at character {position}, "
            "which is not Unicode text")


_Path = tuple[Any, "_Path | None", bool]
"""A value's place, innermost step first: (key or index, the parent's place, whether a key)."""


def _path(place: _Path | None) -> str:
    parts = []
    while place is not None:
        part, place, is_key = place
        parts.append(_printable(part) if is_key else part)
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in reversed(parts)).lstrip(".") \
        or "the item"


_PLAIN: frozenset[type] = frozenset({type(None), bool, int})
"""Classes of values no check refuses (a JSON integer too long is a `TooLargeInteger`)."""
_PLAIN_OR_TEXT = _PLAIN | {str}


def _plain(value: Any, plain: frozenset[type]) -> bool:
    return value.__class__ in plain or (value.__class__ is float and math.isfinite(value))


def value_problem(value: Any, max_depth: int = MAX_DEPTH, *, surrogates: bool = True) -> str | None:
    """Why a parsed JSON value cannot be judged (lone surrogate in a key or string, NaN or
    infinity, nesting deeper than `max_depth`), or None. Iterative, so any depth is safe.
    `surrogates=False` lets lone surrogates through: a results file keeps an unjudgeable id
    JSON-escaped on purpose (`batch.writer`), and reading it back must not refuse it.

    Values no check can refuse are not walked, and a value's place is spelled out only for the
    message: a results file's every record goes through here."""
    plain = _PLAIN if surrogates else _PLAIN_OR_TEXT
    stack: list[tuple[Any, _Path | None, int]] = [(value, None, 0)]
    while stack:
        current, path, depth = stack.pop()
        if isinstance(current, str):
            if not surrogates:
                continue
            problem = describe_surrogate(current, f"'{_path(path)}'" if path else "the item")
            if problem:
                return problem
        elif isinstance(current, TooLargeInteger):
            return f"'{_path(path)}' is an integer of {current.digits:,} digits, too large to read"
        elif isinstance(current, float):
            if not math.isfinite(current):
                name = "NaN" if math.isnan(current) else "Infinity" if current > 0 else "-Infinity"
                return f"'{_path(path)}' is {name}, which JSON does not allow"
        elif isinstance(current, (dict, list)):
            if depth >= max_depth:
                return f"the item is nested more than {max_depth} levels deep"
            if isinstance(current, dict):
                if current.__class__ is RepeatedKeys:
                    return _repeated(current, path)
                for key, sub in current.items():
                    key_problem = describe_surrogate(str(key), "a key") if surrogates else None
                    if key_problem:
                        return key_problem
                    if not _plain(sub, plain):
                        stack.append((sub, (key, path, True), depth + 1))
            else:
                stack.extend((sub, (index, path, False), depth + 1) for index, sub in enumerate(current)
                             if not _plain(sub, plain))
    return None


def _printable(key: Any) -> str:
    text = str(key)
    return text if len(text) <= 40 else text[:39] + "…"


class RepeatedKeys(dict):
    """An object whose text gives a key more than once (`{"context": "a", "context": "b"}`).
    `json.loads` keeps the last value and drops the first without a word, so a field that is
    present would be judged as if it held something else; `value_problem` refuses it instead,
    as it refuses a judge's reply that repeats a key. `repeated` is the first key given twice."""

    repeated: str = ""


def _repeated(value: RepeatedKeys, path: _Path | None) -> str:
    where = f" in '{_path(path)}'" if path else ""
    return f"the key {_printable(value.repeated)!r} is given twice{where}, and JSON keeps only its last value; keep one"


def repeated_key_problem(value: Any) -> str | None:
    """`value_problem`'s reason for the first object of `value` that repeats a key, or None: for
    a reader that refuses such a file outright rather than leave it to input validation."""
    stack: list[tuple[Any, _Path | None]] = [(value, None)]
    while stack:
        current, path = stack.pop()
        if current.__class__ is RepeatedKeys:
            return _repeated(current, path)
        if isinstance(current, dict):
            stack.extend((sub, (key, path, True)) for key, sub in current.items() if isinstance(sub, (dict, list)))
        elif isinstance(current, list):
            stack.extend((sub, (index, path, False)) for index, sub in enumerate(current) if isinstance(sub, (dict, list)))
    return None


def _object(pairs: list[tuple[str, Any]]) -> dict:
    value = dict(pairs)
    if len(value) == len(pairs):
        return value
    marked = RepeatedKeys(pairs)
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            marked.repeated = key
            break
        seen.add(key)
    return marked


class TooLargeInteger:
    """Stands for a JSON integer longer than Python converts (`sys.get_int_max_str_digits`):
    parsing goes on, so the line's `id` can still be read, and `value_problem` reports it."""

    __slots__ = ("digits",)

    def __init__(self, digits: int) -> None:
        self.digits = digits

    def __repr__(self) -> str:
        return f"<integer of {self.digits} digits>"


def _parse_int(text: str) -> int | TooLargeInteger:
    limit = sys.get_int_max_str_digits()
    digits = len(text.lstrip("-"))
    return TooLargeInteger(digits) if limit and digits > limit else int(text)


def loads_untrusted(text: str, *, keys_once: bool = True) -> Any:
    """`json.loads(text)`, with each way it can fail as an `UntrustedJsonError` of one line.

    `json.JSONDecodeError` keeps its position, pathological nesting (`RecursionError`) gets its
    own words, and an integer too long to convert becomes a `TooLargeInteger` instead of the
    `ValueError` that `json.loads` raises for it. With `keys_once` (items), an object that
    repeats a key is a `RepeatedKeys`. The parsed value is not checked here: `value_problem`
    does that, so a caller can still read an `id` from a line whose other fields are unusable.

    The cyclic garbage collector is paused while it parses: a collection that ran near the
    recursion limit of a deeply nested line ran some object's finalizer there, which printed
    "Exception ignored ... RecursionError" to stderr beside the one-line refusal."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        return json.loads(text, parse_int=_parse_int, object_pairs_hook=_object if keys_once else None)
    except json.JSONDecodeError as error:
        raise UntrustedJsonError(f"not valid JSON ({error.msg} at line {error.lineno} column {error.colno})") from None
    except RecursionError:
        raise UntrustedJsonError("nested too deeply to parse") from None
    except ValueError as error:  # not expected with parse_int; kept one line all the same
        raise UntrustedJsonError(f"not valid JSON ({str(error).splitlines()[0][:200]})") from None
    finally:
        if collecting:
            gc.enable()
