"""Words, content words and word counts for every script.

Scripts with spaces (Latin, Cyrillic, Greek, Hangul...) are cut into runs of word characters,
as before. A run of Chinese or Japanese characters has no spaces to cut on, so each character
is a token ("北京大学" -> 北, 京, 大, 学), and function characters (的, 了, の, は...) are not
content. Why single characters and not bigrams or a word segmenter: on the human-labelled NLI
sets (OCNLI zh, JNLI ja), grounding on characters told entailed hypotheses from neutral ones,
contradicted ones and ones read against another premise at least as well as bigrams, rjieba
(zh) or fugashi+ipadic (ja) in every comparison, and gave faithful claims a grounding closer
to English's. It needs no dictionary (rjieba and fugashi+ipadic each need one, for one
language only) and treats Chinese and Japanese alike
(`benchmarks/text_segmenters.py`, docs/benchmarks.md "Chinese and Japanese words").

Text is NFKC-normalised first, so full-width letters and digits ("ｉＰｈｏｎｅ１５") read as
their ASCII forms.
"""

from __future__ import annotations

import math
import re
import unicodedata

import regex

from .memo import shared_cache
from .scripts import SPACELESS, SPACELESS_RUN, has_spaceless
from .stopwords import STOP_CHARS, stopwords

_TOKEN = regex.compile(rf"[{SPACELESS}]|[^\W{SPACELESS}]+")
"""A run of word characters, or one Chinese/Japanese character."""
_ENGLISH_PLURAL = frozenset({None, "en"})


def fold(text: str) -> str:
    """NFKC (full-width forms, ligatures) and case folding: the form every rule compares."""
    return unicodedata.normalize("NFKC", text).casefold()


def words(text: str) -> list[str]:
    """The folded words of `text`: word-character runs, and each Chinese/Japanese character
    (one regex pass: no Python work per word)."""
    return _TOKEN.findall(fold(text))


def content_words(text: str, language: str | None = None) -> list[str]:
    """The words that carry meaning: no stopwords of `language` (English rules when None), no
    Chinese/Japanese function character, and for English a plural "s" dropped."""
    return list(_content_words(text, language))


@shared_cache(maxsize=4096)
def _content_words(text: str, language: str | None) -> tuple[str, ...]:
    """Cached: one item asks for the same lines' and claims' words in every claim check, the
    grounding and the criticality rules (a pure function of the text and language)."""
    skip = stopwords(language)
    kept = []
    for word in words(text):
        if word in skip or word in STOP_CHARS:
            continue
        if (language in _ENGLISH_PLURAL and len(word) > 3 and word.endswith("s")
                and not word.endswith("ss")):
            word = word[:-1]
        kept.append(word)
    return tuple(kept)


def word_count(text: str) -> int:
    """Words in `text`: whitespace-separated words, with each Chinese/Japanese run counted as one
    word per two characters (the mean length of a Chinese word is about 1.5-2 characters)."""
    if not has_spaceless(text):
        return len(text.split())
    runs = SPACELESS_RUN.findall(text)
    return len(SPACELESS_RUN.sub(" ", text).split()) + sum(math.ceil(len(run) / 2) for run in runs)


_ARTICLES = {
    # MLQA's evaluation script (Lewis et al. 2020) for en, es, de; French added the same way.
    "en": r"a|an|the",
    "es": r"un|una|unos|unas|el|la|los|las",
    "de": r"ein|eine|einen|einem|eines|einer|der|die|das|den|dem|des",
    "fr": r"le|la|les|l|un|une|des",
}
_ARTICLE_PATTERNS = {lang: re.compile(rf"\b(?:{words_})\b") for lang, words_ in _ARTICLES.items()}
_PUNCTUATION = regex.compile(r"[^\w\s]")


def answer_tokens(text: str, language: str | None = None) -> list[str]:
    """SQuAD's answer normalisation, extended to every script as MLQA does: case and
    punctuation dropped, the language's articles dropped (English when None; none for
    languages without articles), and each Chinese/Japanese character a token of its own."""
    text = _PUNCTUATION.sub(" ", fold(text))
    articles = _ARTICLE_PATTERNS.get(language or "en")
    if articles is not None:
        text = articles.sub(" ", text)
    text = SPACELESS_RUN.sub(lambda run: " " + " ".join(run.group()) + " ", text)
    return text.split()
