"""Evidence quotes marked in the context they were quoted from, as plain (text, marked) segments.

Why segments and not HTML: the context is user text. The template escapes every segment and
wraps the marked ones in `<mark>`; nothing here builds markup, so a context holding
`<script>` stays text. Matching forgives case and runs of whitespace, as a reader would.
"""

from __future__ import annotations

import re

Segment = tuple[str, bool]


def _pattern(quote: str) -> re.Pattern[str] | None:
    words = quote.split()
    if not words:
        return None
    return re.compile(r"\s+".join(re.escape(word) for word in words), re.IGNORECASE)


def spans(text: str, quotes: list[str]) -> list[tuple[int, int]]:
    """Where any quote occurs in `text`, merged where they overlap."""
    found = []
    for quote in quotes:
        pattern = _pattern(quote or "")
        if pattern is not None:
            found.extend(match.span() for match in pattern.finditer(text))
    merged: list[tuple[int, int]] = []
    for start, end in sorted(found):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def segments(text: str, quotes: list[str]) -> list[Segment]:
    """`text` cut into (piece, is_evidence) segments, in order, covering all of it."""
    out: list[Segment] = []
    position = 0
    for start, end in spans(text, quotes):
        if start > position:
            out.append((text[position:start], False))
        out.append((text[start:end], True))
        position = end
    if position < len(text) or not out:
        out.append((text[position:], False))
    return out
