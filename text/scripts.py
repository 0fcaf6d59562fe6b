"""Scripts written without spaces between words (Chinese, Japanese), found by Unicode script.

Why by script and not by language: a Chinese name inside an English answer, or a Japanese
passage among English ones, must be cut the same way whatever the item's language is; the
Unicode script property says which characters need it without a model. Korean (Hangul) is
written with spaces between words, so it is not listed here.
"""

from __future__ import annotations

import regex

SPACELESS = r"\p{Han}\p{Hiragana}\p{Katakana}\u30fc\u3005"
"""Han ideographs, kana, the long-vowel mark ー and the iteration mark 々."""

SPACELESS_CHAR = regex.compile(f"[{SPACELESS}]")
SPACELESS_RUN = regex.compile(f"[{SPACELESS}]+")
KANA = regex.compile(r"[\p{Hiragana}\p{Katakana}]")
HANGUL = regex.compile(r"\p{Hangul}")


def has_spaceless(text: str) -> bool:
    """True when `text` holds at least one character of a script written without spaces."""
    return SPACELESS_CHAR.search(text) is not None


def ends_spaceless(text: str) -> bool:
    """True when the last character of `text` (before trailing punctuation and spaces) is
    Chinese or Japanese: such a sentence gets "。", not ".", as its end mark."""
    stripped = text.rstrip(" \t\n,;、，；")
    return bool(stripped) and SPACELESS_CHAR.match(stripped[-1]) is not None
