"""The item's language: read from its optional `language` field, else detected in code.

Why detect at all: stopwords, articles, decimal commas and the prompt's language line depend on
it, and most items do not say. How (measured on 300 short STS sentences per language,
docs/benchmarks.md "Language detection"):

- Chinese and Japanese (and Korean) are told by script: kana means Japanese, Han without kana
  Chinese, Hangul Korean. No model is needed, and a detector's errors on them (zh read as
  Cantonese) are avoided.
- Everything else goes to py3langid (BSD, 4.5 MB, its model inside the wheel; numpy is already a
  dependency). On short Russian it often said Macedonian or Bulgarian, so a measured language
  whose probability is at least `PRIOR_MARGIN` of the winner's wins over an unmeasured winner
  (which fixes Russian and changes no other measured language). lingua was as accurate but
  much larger; langdetect misread short Russian and English more often.

A language outside `MEASURED_LANGUAGES` is judged like any other and flagged in the result
(`ItemLanguage.note`), never failed: the rules still work, the agreement figures do not cover it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import regex

from .memo import shared_cache
from .scripts import HANGUL, KANA, SPACELESS_CHAR

MEASURED_LANGUAGES: tuple[str, ...] = ("en", "zh", "ja", "de", "ru", "es", "fr")
"""The languages judgegraph has agreement figures for (docs/benchmarks.md). The one place that
says so: the result's flag, the docs and the tests read it from here."""

LANGUAGE_NAMES = {
    "en": "English", "zh": "Chinese", "ja": "Japanese", "de": "German", "ru": "Russian",
    "es": "Spanish", "fr": "French", "ko": "Korean", "it": "Italian", "pt": "Portuguese",
    "nl": "Dutch", "pl": "Polish", "uk": "Ukrainian", "ar": "Arabic", "tr": "Turkish",
    "sv": "Swedish", "da": "Danish", "fi": "Finnish", "cs": "Czech", "hi": "Hindi",
    "vi": "Vietnamese", "id": "Indonesian", "el": "Greek", "he": "Hebrew", "bg": "Bulgarian",
}

LANGUAGE_TAG = re.compile(r"^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*$")
"""BCP-47-ish: a 2-3 letter primary subtag ("de", "zh-Hans-CN", "pt_BR"). Only the primary
subtag is used."""

PRIOR_MARGIN = 0.5
"""A measured language wins over an unmeasured detector winner when its probability is at least
this share of the winner's (chosen on the STS dev sentences: 0.5 fixed short Russian without
costing Italian, Portuguese or Dutch; 0.8 and 0.9 fixed less)."""

SCRIPT_SHARE = 0.3
"""Chinese/Japanese/Korean letters must be this share of the letters: a Chinese name inside an
English sentence does not make it Chinese."""

_LETTER = regex.compile(r"\p{L}")


def primary_subtag(tag: str) -> str:
    """'zh-Hans-CN' -> 'zh', 'PT_br' -> 'pt'. Raises ValueError for anything not BCP-47-ish."""
    if not LANGUAGE_TAG.match(tag.strip()):
        raise ValueError(f"not a language tag like 'de' or 'zh-Hans': {tag!r}")
    return re.split(r"[-_]", tag.strip())[0].lower()


@dataclass(frozen=True)
class ItemLanguage:
    """The item's language: its primary subtag (None when no letter tells it), and where it
    came from."""

    code: str | None
    source: Literal["item", "detected"]

    @property
    def measured(self) -> bool:
        return self.code in MEASURED_LANGUAGES

    @property
    def name(self) -> str:
        if self.code is None:
            return "unknown"
        return LANGUAGE_NAMES.get(self.code, self.code)

    @property
    def note(self) -> str | None:
        """The result's flag for a language judgegraph has no figures for; None otherwise."""
        if self.measured or self.code is None:
            return None
        how = "given by the item" if self.source == "item" else "detected"
        return (f"Language {self.name} ({self.code}, {how}) is not among the measured languages "
                f"({', '.join(MEASURED_LANGUAGES)}): judged with the same rules, but no agreement "
                "figures cover it.")


def item_language(explicit: str | None, *texts: str) -> ItemLanguage:
    """The item's `language` field when given, else the language detected from `texts`
    (the question and the answer: the context may be in another language)."""
    if explicit is not None and explicit.strip():
        return ItemLanguage(primary_subtag(explicit), "item")
    return ItemLanguage(detect_language(" ".join(texts)), "detected")


@shared_cache(maxsize=1024)
def detect_language(text: str) -> str | None:
    """ISO 639-1 code of `text`'s language, or None when it has no letters."""
    letters = _LETTER.findall(text)
    if not letters:
        return None
    sample = "".join(letters)
    if len(SPACELESS_CHAR.findall(sample)) >= SCRIPT_SHARE * len(letters):
        return "ja" if KANA.search(sample) else "zh"
    if len(HANGUL.findall(sample)) >= SCRIPT_SHARE * len(letters):
        return "ko"
    # a Chinese name inside a sentence of another language would pull the detector to "zh"
    ranked = _identifier().rank(SPACELESS_CHAR.sub(" ", text) if SPACELESS_CHAR.search(text) else text)
    best, best_p = ranked[0]
    if best not in MEASURED_LANGUAGES:
        for lang, p in ranked[1:6]:
            if lang in MEASURED_LANGUAGES and p >= PRIOR_MARGIN * best_p:
                return lang
    return best


def load_detector() -> None:
    """Load the detector's model now (reading it takes a moment, once per process): a server calls
    it off its event loop, so the first item's detection never blocks the loop."""
    _identifier()


@lru_cache(maxsize=1)
def _identifier():
    """py3langid's identifier with normalised probabilities (loaded once per process)."""
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
