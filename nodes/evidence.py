"""Code-side check of the judge's evidence: does the quoted text really occur in the context?

A small judge will happily "quote" words the context never said. A verdict of "supported"
only counts when its quote is found, after forgiving case, whitespace, typographic quotes and
dashes, passage markers like "[2]", and "..." elisions between quoted fragments.
"""

from __future__ import annotations

import re
import unicodedata

_TRANSLATE = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "`": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u00ab": '"', "\u00bb": '"',
    "\u2013": "-", "\u2014": "-", "\u2212": "-", "\u00a0": " ",
})
_ELLIPSIS = re.compile(r"\.\.\.+|…")
_PASSAGE_MARKER = re.compile(r"\[\d+\]\s*")
_EDGE_PUNCTUATION = " \t\n\"'.,;:!?()[]"

MIN_FRAGMENT_CHARS = 3
"""Fragments shorter than this ("a", "of") prove nothing and are ignored."""


def normalise(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).translate(_TRANSLATE).casefold()
    return " ".join(text.split())


def quote_found(quote: str, passages: list[str]) -> bool:
    """True when every fragment of `quote` occurs in the context, in order."""
    haystack = normalise(" ".join(passages))
    cleaned = _PASSAGE_MARKER.sub("", normalise(quote))
    fragments = [f.strip(_EDGE_PUNCTUATION) for f in _ELLIPSIS.split(cleaned)]
    fragments = [f for f in fragments if len(f) >= MIN_FRAGMENT_CHARS]
    if not fragments or not haystack:
        return False
    position = 0
    for fragment in fragments:
        found = haystack.find(fragment, position)
        if found < 0:
            return False
        position = found + len(fragment)
    return True


_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def numbers_in(text: str) -> set[str]:
    """The numbers written with digits in `text`, thousands separators removed."""
    return {match.replace(",", "") for match in _NUMBER.findall(text)}


def numbers_missing_from_quote(claim: str, quote: str, question: str = "") -> list[str]:
    """Numbers the claim states that its supporting quote does not contain.

    A small judge often quotes a real sentence of the context that is about something else
    ("founded in 1995" as support for "released in 2007"). A claim's numbers are its most
    checkable part: a quote that supports the claim must contain them. Numbers the question
    already states ("24 Hours on Craigslist") are the subject, not the claim, and are exempt.
    """
    return sorted(numbers_in(claim) - numbers_in(quote) - numbers_in(question))
