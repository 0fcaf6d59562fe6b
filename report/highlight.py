"""Evidence quotes marked in the context they were quoted from, as plain (text, marked) segments.

Why segments and not HTML: the context is user text. The template escapes every segment and
wraps the marked ones in `<mark>`; nothing here builds markup, so a context holding
`<script>` stays text. Matching forgives case and runs of whitespace, as a reader would: a
quote's words must follow each other in the text, its first word may end a longer word of the
text and its last word begin one ("aris is" is found in "Paris is").

Why not a regular expression of the quote's words joined by `\\s+`: on repetitive text ("a a a
... b") it retries the whole quote from every word, quadratic in the text. Here the text's words
are joined by single spaces once, and each quote is found in that with `str.find`, which is
linear; positions map back to the original text through each word's offset.
"""

from __future__ import annotations

import bisect
import re

Segment = tuple[str, bool]

_WORD = re.compile(r"\S+")


def _folded(word: str) -> str:
    """Case-folded without changing the word's length (so offsets map back): a letter whose
    lower case is longer ("İ") is kept as written, the others lowered."""
    lowered = word.lower()
    if len(lowered) == len(word):
        return lowered
    return "".join(char if len(char.lower()) != 1 else char.lower() for char in word)


class _Words:
    """The text's words, folded and joined by single spaces, with where each one starts in
    the text and in the joined string."""

    def __init__(self, text: str) -> None:
        matches = list(_WORD.finditer(text))
        self.text_starts = [m.start() for m in matches]
        folded = [_folded(m.group()) for m in matches]
        self.joined = " ".join(folded)
        self.joined_starts = []
        position = 0
        for word in folded:
            self.joined_starts.append(position)
            position += len(word) + 1

    def text_offset(self, joined_offset: int) -> int:
        """The text offset of a position inside a word of the joined string."""
        index = bisect.bisect_right(self.joined_starts, joined_offset) - 1
        return self.text_starts[index] + joined_offset - self.joined_starts[index]

    def find(self, quote: str) -> list[tuple[int, int]]:
        """Where `quote` occurs in the text, as non-overlapping (start, end) spans, left to right."""
        needle = " ".join(_folded(word) for word in quote.split())
        if not needle:
            return []
        found = []
        position = self.joined.find(needle)
        while position >= 0:
            end = position + len(needle)
            found.append((self.text_offset(position), self.text_offset(end - 1) + 1))
            position = self.joined.find(needle, end)
        return found


def spans(text: str, quotes: list[str]) -> list[tuple[int, int]]:
    """Where any quote occurs in `text`, merged where they overlap."""
    words = _Words(text)
    found = [span for quote in quotes for span in words.find(quote or "")]
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
