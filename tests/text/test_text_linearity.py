"""The text rules are linear on any input, and give the same answers as before on every input.

Linearity is measured as a ratio, not a time limit: each rule's CPU time (`process_time`, so
other processes on the machine do not count) on a pathological text repeated 4n times is
compared with the same text repeated n times. A linear rule costs about 4x; the quadratic
sentence splitter of issue #29 cost 16-26x. The bound (10x) is generous so scheduling noise
cannot fail it. Figures on large inputs are in `benchmarks/hostile_text.py`.

The sentence splitter and the report's highlighting were rewritten to be linear; the old
algorithms are kept here as references, and hypothesis checks that the new ones cut and mark
every text exactly as they did (a well-formed item's score cannot change).
"""

from __future__ import annotations

import re

import regex
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from judgegraph.report.highlight import spans
from judgegraph.text import sentences
from tests.support.text_rules import cpu_seconds

PIECES = ["Dr. X ", "A. ", "z. B. ", "т. е. ", "U.S. ", "e.g. ", "...", ". ", "1", "1,", "1.", "9" * 70,
          "([{", ")]}", '"', "“”", "«»", "中文。", "」", "！", "?", "¿", " ", "\n", "word ", "Word. ",
          "Ünï. ", "Смит. ", "東京", "; ", ", and ", "million ", "three ", "can not answer "]
"""What makes text rules slow: runs of abbreviations, initials, dots, digits, brackets, quotes,
mixed scripts, clause words and number words."""

RATIO_BOUND = 10.0
MIN_REPEATS = 600


@settings(max_examples=12, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=4))
@example(["Dr. X "])
@example(["A. "])
def test_every_text_rule_is_linear_on_pathological_text(parts):
    unit = "".join(parts)
    repeats = max(MIN_REPEATS, 6_000 // len(unit))
    small = cpu_seconds(unit * repeats)
    large = cpu_seconds(unit * (4 * repeats))
    assert large <= RATIO_BOUND * max(small, 0.005), (unit, small, large)


# --- the same answers as the old algorithms ------------------------------------------------

_OLD_ABBREVIATION = regex.compile(sentences._ABBREVIATION.pattern)


def old_sentences(text: str) -> tuple[str, ...]:
    """The splitter before issue #29: the candidate sentence copied and searched whole."""
    pieces: list[str] = []
    buffer = ""
    position = 0
    for match in sentences._SENTENCE_END.finditer(text):
        cut = match.end("close") if match.group("close") is not None else match.start()
        candidate = buffer + text[position:cut]
        if _OLD_ABBREVIATION.search(candidate.rstrip("\"”')]»")):
            buffer = candidate + text[cut:match.end()]
            position = match.end()
            continue
        position = match.end()
        pieces.append(candidate)
        buffer = ""
    pieces.append(buffer + text[position:])
    return tuple(" ".join(piece.split()) for piece in pieces if piece.strip())


def old_spans(text: str, quotes: list[str]) -> list[tuple[int, int]]:
    """The highlighting before issue #29: each quote as a regex of its words joined by \\s+."""
    found = []
    for quote in quotes:
        words = (quote or "").split()
        if words:
            pattern = re.compile(r"\s+".join(re.escape(word) for word in words), re.IGNORECASE)
            found.extend(match.span() for match in pattern.finditer(text))
    merged: list[tuple[int, int]] = []
    for start, end in sorted(found):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


SENTENCE_BITS = ["Dr", "Mr", "A", "B", "z", "z.", "т", "е", "др", "e.g", "U.S", "Sept", "p", "ex", ".", ". ",
                 "! ", "? ", " ", "  ", "\n", '"', "”", ")", "»", "¿", "“", "(", "word", "Word", "中", "。",
                 "」", "1", "x.Y", "é", "É", "\u00a0", "'", ";", "!", "?"]
HIGHLIGHT_BITS = ["a", "A", "b", "B", " ", "  ", "\n", "\t", "ab", "Ba", "é", "É", "中", ".", ",", "İ"]


@settings(max_examples=3000)
@given(st.lists(st.sampled_from(SENTENCE_BITS), max_size=30).map("".join))
def test_sentences_are_cut_exactly_as_before(text):
    assert sentences._sentences.__wrapped__(text) == old_sentences(text)


@settings(max_examples=3000)
@given(st.lists(st.sampled_from(HIGHLIGHT_BITS), max_size=25).map("".join),
       st.lists(st.lists(st.sampled_from(HIGHLIGHT_BITS), max_size=6).map("".join), min_size=1, max_size=3),
       st.integers(0, 30), st.integers(1, 10))
def test_evidence_is_marked_exactly_as_before(text, quotes, start, length):
    quotes = [*quotes, text[start:start + length]]
    assert spans(text, quotes) == old_spans(text, quotes)
