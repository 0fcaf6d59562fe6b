"""Compound words met by their parts, without a dictionary: the context is the dictionary.

Why: German (and Dutch, the Scandinavian languages, Finnish) writes a compound as one word,
and a paraphrase moves between the compound and its parts: "Chemienobelpreis" in the claim,
"Nobelpreis für Chemie" in the context, or "Preis" in the claim, "Nobelpreis" in the context.
A dictionary splitter would bring a large word list per language; grounding only asks whether
the *context* holds the parts, so the context's own words are the list to split against:

- a compound of the claim is found when it cuts into parts of at least `MIN_PART` letters, each
  a word of the context (as written or by its stem, so a linking "s" or "e" is read the way the
  language's stemmer reads it: "Arbeits" -> "arbeit");
- a word of the claim is found when a longer context word ends with it (German compounds put
  their head last: "Preis" in "Nobelpreis").

Hyphenated compounds ("Chemie-Nobelpreis") are already two words (`judgegraph.text.tokens`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from functools import lru_cache

COMPOUNDING_LANGUAGES = frozenset({"de", "nl", "sv", "da", "no", "nb", "fi", "is"})
"""Languages that write compounds as one word."""

MIN_PART = 3
"""The shortest part a compound is cut into (shorter ones match by chance)."""

MIN_HEAD = 4
"""The shortest claim word looked for at the end of a context compound."""

MAX_WORD = 40
"""Longer words are not cut (bounded work on hostile text)."""


def builds_compounds(language: str | None) -> bool:
    return language in COMPOUNDING_LANGUAGES


def splits_into(word: str, known: Callable[[str], bool]) -> bool:
    """Whether `word` cuts into two or more parts of at least `MIN_PART` letters, each `known`."""
    if len(word) > MAX_WORD or len(word) < 2 * MIN_PART:
        return False

    @lru_cache(maxsize=None)
    def parts_from(start: int) -> bool:
        """word[start:] is one or more known parts."""
        if known(word[start:]):
            return True
        return any(known(word[start:end]) and parts_from(end)
                   for end in range(start + MIN_PART, len(word) - MIN_PART + 1))

    return any(known(word[:end]) and parts_from(end) for end in range(MIN_PART, len(word) - MIN_PART + 1))

def is_head_of(word: str, context_words: Collection[str]) -> bool:
    """Whether a longer word of the context ends with `word` (its head, in a compounding language)."""
    if len(word) < MIN_HEAD:
        return False
    return any(len(other) > len(word) + MIN_PART - 1 and other.endswith(word) for other in context_words)
