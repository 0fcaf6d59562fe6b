"""Which passage a context line comes from.

The claim checks show the judge context *lines* (`text.segmentation.context_lines`:
every sentence of every passage, in order) and record the deciding line's text on the claim
(`CheckedClaim.evidence`). Citations name *passages*. This map joins the two: a line's text ->
the passages holding it (a sentence repeated in two passages belongs to both), built from the
same sentence cutting the claim checks use, so a recorded line is found as it was shown.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...text.segmentation import split_sentences


def _key(text: str) -> str:
    return " ".join(text.split()).casefold()


@dataclass(frozen=True)
class LinePassages:
    """The context's line -> passage map (passages 0-based)."""

    by_line: dict[str, tuple[int, ...]]
    passages: tuple[str, ...]

    @classmethod
    def of(cls, passages: list[str]) -> "LinePassages":
        by_line: dict[str, list[int]] = {}
        for index, passage in enumerate(passages):
            for line in split_sentences(passage):
                holders = by_line.setdefault(_key(line), [])
                if index not in holders:
                    holders.append(index)
        return cls({line: tuple(holders) for line, holders in by_line.items()}, tuple(passages))

    def holding(self, line: str) -> tuple[int, ...]:
        """The passages a recorded line comes from; a line the judge was shown cut short (a
        long context's window) is looked up as a part of a passage."""
        key = _key(line)
        if not key:
            return ()
        exact = self.by_line.get(key)
        if exact is not None:
            return exact
        return tuple(index for index, passage in enumerate(self.passages) if key in _key(passage))
