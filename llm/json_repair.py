"""Cheap, local repairs of a judge's JSON before paying for a re-prompt.

Only repairs that cannot change meaning are made: code fences and prose around the object are
removed and trailing commas dropped. Truncated JSON is never closed up: a reply cut off
mid-object is invalid, because auto-closing silently turns `{"claims": ["a` into no claims.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


def strip_code_fences(text: str) -> str:
    match = _FENCE.search(text)
    return match.group(1).strip() if match else text


def outermost_object(text: str) -> str | None:
    """The first balanced `{...}` in `text`, respecting strings; None if it never closes."""
    start = text.find("{")
    if start < 0:
        return None
    depth = 0
    in_string = False
    escaped = False
    for position in range(start, len(text)):
        char = text[position]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return text[start : position + 1]
    return None


def remove_trailing_commas(text: str) -> str:
    """Drop `,` before `}` or `]` outside strings."""
    out: list[str] = []
    in_string = False
    escaped = False
    for position, char in enumerate(text):
        if in_string:
            out.append(char)
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            continue
        if char == '"':
            in_string = True
        elif char == "," and _TRAILING_COMMA.match(text, position):
            continue
        out.append(char)
    return "".join(out)


def local_repair(text: str) -> str | None:
    """A repaired candidate, or None when no meaning-preserving repair applies."""
    candidate = strip_code_fences(text.strip())
    if candidate.startswith("["):
        return None  # an array is a structural mistake, not formatting: picking one item could lie
    extracted = outermost_object(candidate)
    if extracted is None:
        return None
    candidate = remove_trailing_commas(extracted)
    return candidate if candidate != text.strip() else None
