"""Words that carry no meaning for the claim rules, per language.

English keeps judgegraph's own short list, the one the shipped profiles' decisions were set
with (docs/benchmarks.md): it drops function words only, and changing it would change what
those decisions read.
Other languages take the lists of the `stop-words` package (BSD, 250 kB, lists for 33
languages), together with the English list, since an item's context often mixes in English
names and phrases. Chinese and Japanese function characters (的, 了, の, は...) are in `STOP_CHARS`:
each Chinese or Japanese character is a token (`tokens.content_words`), and these carry no meaning.
"""

from __future__ import annotations

from functools import lru_cache

ENGLISH = frozenset(
    "a an the of in on at to for from by with and or but is are was were be been being has have had "
    "do does did it its this that these those which who whom whose what when where why how as than "
    "then there their they them he she his her him i we you your our not no yes so such also into "
    "about over after before under between during while if because can could would should will may "
    "might must shall one ones s".split()
)

_PACKAGE_LISTS = {
    "de": "german", "es": "spanish", "fr": "french", "ru": "russian", "it": "italian",
    "pt": "portuguese", "nl": "dutch", "pl": "polish", "uk": "ukrainian", "ko": "korean",
    "sv": "swedish", "da": "danish", "fi": "finnish", "cs": "czech", "tr": "turkish",
    "bg": "bulgarian", "ar": "arabic", "he": "hebrew", "hi": "hindi", "vi": "vietnamese",
    "id": "indonesian", "el": "greek", "ca": "catalan", "ro": "romanian", "hu": "hungarian",
    "no": "norwegian", "nb": "norwegian", "sk": "slovak", "fa": "persian",
}

STOP_CHARS = frozenset(
    # Chinese particles, copulas, pronouns and measure-less function characters
    "的了是在和与及或也就而该被把将对于从向之其这那此个们吗呢吧啊着过得地所以为"
    # Japanese particles and auxiliary kana
    "のはがをにでともへやかねよなだすまたりしてるいうれらこそあ、。"
)


@lru_cache(maxsize=64)
def stopwords(language: str | None) -> frozenset[str]:
    """The stopwords for `language` (a primary subtag, or None for English rules)."""
    if language in (None, "en") or language not in _PACKAGE_LISTS:
        return ENGLISH
    from stop_words import get_stop_words

    return ENGLISH | frozenset(word.casefold() for word in get_stop_words(_PACKAGE_LISTS[language]))
