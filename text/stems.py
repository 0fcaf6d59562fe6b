"""Word stems for every language that has a well-kept stemmer, so inflected forms meet.

Why: grounding asks whether a claim's words occur in the context, and a paraphrase inflects
them ("descubrir" / "descubrimiento", "открыла" / "открытие", "discovered" / "discovery").
Snowball's stemmers (the `PyStemmer` package, BSD, a 0.7 MB C wheel with no dependency) cut
every measured language with spaces and more: English, German, Spanish, French, Russian,
Portuguese, Arabic, Hindi, Italian, Dutch and the rest of `Stemmer.algorithms()`. They were
chosen over simplemma's dictionary lemmas (a 19 MB wheel whose per-language dictionary takes
seconds to load; the same languages, none of Chinese, Japanese or Korean): irregular forms a
stemmer cannot join ("bekam" / "erhielt", "ganó" / "recibió") are synonyms in effect, and the
semantic check of `nodes.claims.code_checks` reads those.

No stemmer:
- Chinese and Japanese are compared by character (`judgegraph.text.tokens`): a character does
  not inflect, and a Japanese verb's stem character stays when its ending changes;
- Korean writes particles and endings after the stem inside one spaced word ("노벨상을",
  "노벨상은"), and no stemmer for it is on PyPI without a dictionary: two Hangul words are the same
  word when they share their first `KOREAN_STEM_SYLLABLES` syllables (the whole word when
  shorter), the stem coming first in every Korean word.
"""

from __future__ import annotations

from functools import lru_cache

from .scripts import HANGUL

SNOWBALL = {
    "en": "english", "de": "german", "es": "spanish", "fr": "french", "ru": "russian",
    "pt": "portuguese", "it": "italian", "nl": "dutch", "ar": "arabic", "hi": "hindi",
    "sv": "swedish", "da": "danish", "no": "norwegian", "nb": "norwegian", "fi": "finnish",
    "tr": "turkish", "el": "greek", "ca": "catalan", "ro": "romanian", "hu": "hungarian",
    "id": "indonesian", "cs": "czech", "pl": "polish", "lt": "lithuanian", "et": "estonian",
    "eu": "basque", "ga": "irish", "hy": "armenian", "sr": "serbian", "ta": "tamil",
    "ne": "nepali", "fa": "persian", "yi": "yiddish",
}
"""Item language (ISO 639-1) -> Snowball algorithm name; None (no language given) is English,
as the other text rules read it."""

KOREAN_STEM_SYLLABLES = 2
"""Hangul words sharing this many leading syllables are one word (a Korean stem is mostly one or
two syllables; particles and endings follow it)."""


@lru_cache(maxsize=None)
def _stemmer(algorithm: str):
    import Stemmer  # PyStemmer: imported on first use, so a run that grounds nothing never loads it

    return Stemmer.Stemmer(algorithm)


@lru_cache(maxsize=65536)
def stem(word: str, language: str | None = None) -> str:
    """The word's stem in `language` (English when None); Korean words by their leading
    syllables; the word itself where no stemmer applies (Chinese and Japanese characters)."""
    if HANGUL.match(word):
        return word[:KOREAN_STEM_SYLLABLES]
    algorithm = SNOWBALL.get(language or "en")
    if algorithm is None:
        return word
    return _stemmer(algorithm).stemWord(word)

