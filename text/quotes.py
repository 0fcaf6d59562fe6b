"""Code-side check of the judge's evidence: does the quoted text really occur in the context?

A small judge will happily "quote" words the context never said. A verdict of "supported"
only counts when its quote's words are found in the context, in order, after forgiving case,
punctuation and quote marks, passage markers like "[2]", and "..." elisions between fragments.
"""

from __future__ import annotations

import re

import regex

from .numbers import numbers_in
from .scripts import SPACELESS
from .tokens import fold

__all__ = ["normalise", "numbers_in", "quote_found", "strip_lead_in"]

_ELLIPSIS = re.compile(r"\.\.\.+|…")
_PASSAGE_MARKER = re.compile(r"\[\d+\]")
_WORD = regex.compile(rf"[{SPACELESS}]|[^\W{SPACELESS}]+")
"""A word, or one Chinese/Japanese character."""

MIN_FRAGMENT_CHARS = 3
"""Fragments shorter than this ("a", "of") prove nothing and are ignored."""


def normalise(text: str) -> str:
    """The text's words, case-folded, one space apart: punctuation and quote marks dropped.

    Under a JSON grammar a model must escape double quotes, so it tends to rewrite
    `"The quality of mercy"` as `'The quality of mercy'` or drop the marks; that is not a
    misquote. Words, and their order, are what must match. Chinese and Japanese characters
    are words of their own here, so a quote from the middle of a sentence written without
    spaces is found ("首都" in "北京是中国的首都").
    """
    return " ".join(_WORD.findall(fold(text)))


_LEAD_IN = re.compile(
    r"^\s*(?:(?:according to|as stated in|as per) the (?:context|passages?|documents?|text|answer)\s*,?\s*"
    r"|(?:the )?(?:context|passages?|documents?|text|answer)s? (?:states?|says?|mentions?|notes?|reads?|"
    r"claims?|indicates?|explains?)(?: that)?\s*[:,]?\s*)",
    re.IGNORECASE,
)


def strip_lead_in(text: str) -> str:
    """Drop a framing lead-in ("The context states that ...") that a small judge adds to its
    quotes and claims: the words after it are the quote, or the claim."""
    stripped = _LEAD_IN.sub("", text, count=1)
    return stripped[:1].upper() + stripped[1:] if stripped and stripped != text else text


def quote_found(quote: str, passages: list[str]) -> bool:
    """True when every fragment of `quote` (split at "..." elisions) occurs in the context, in
    order, word for word."""
    haystack = f" {normalise(' '.join(passages))} "
    fragments = [normalise(_PASSAGE_MARKER.sub(" ", f)) for f in _ELLIPSIS.split(strip_lead_in(quote))]
    fragments = [f for f in fragments if len(f) >= MIN_FRAGMENT_CHARS]
    if not fragments or not haystack.strip():
        return False
    position = 0
    for fragment in fragments:
        found = haystack.find(f" {fragment} ", position)
        if found < 0:
            return False
        position = found + len(fragment) + 1
    return True
