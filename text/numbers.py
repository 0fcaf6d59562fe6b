"""Numbers in every common notation, as canonical values: what the number check compares.

"3,7 Millionen", "3.7 million", "3,700,000", "３７０万" and "three point seven million" are one
value; "1,500" (English) and "1.500" (German) are both 1500. Without this a German claim saying
"3,7 Millionen" against a context saying "4,2 Millionen" would compare "37" with "42" by luck,
and a full-width "２００５" would not be a number at all.

Rules, in order:
- NFKC turns full-width digits and points into ASCII; the full-width comma "，" is punctuation in
  Chinese text ("1，2，3" is a list), so it is read as "、" first.
- Written-out numbers become digits with `text2num` (MIT, 0.9 MB, a Rust core: English, German,
  Spanish, French, Portuguese, Italian, Dutch, Danish). A lone "one" stays a word, as text2num
  decides ("one of them").
- Separators: the last of two different marks is the decimal mark ("1.234,5", "1,234.5");
  repeated marks group thousands ("1,000,000", "1.000.000"); a lone mark followed by other than
  three digits is decimal ("3,7", "3.14"); a lone mark followed by three digits groups thousands
  for a comma in English and unknown languages ("1,500") and for a point in decimal-comma
  languages ("1.500" in German), else it is decimal. Thin and no-break spaces and "'" group
  thousands ("1 000", "1'000").
- A scale word right after the number multiplies it (million, Millionen, millones, млн, 万, 亿...).
- A run of more than `MAX_NUMBER_DIGITS` digits is not a quantity anyone states (a hash, a
  pasted digit dump): it is not read as a number, so it neither matches nor conflicts. Values
  are computed in a local decimal context wide enough for every readable number, so no
  notation can overflow or be rounded into another value.
"""

from __future__ import annotations

import unicodedata
from decimal import Context, Decimal, DecimalException, localcontext

import regex

from .memo import shared_cache
from .scripts import has_spaceless

DECIMAL_COMMA = frozenset(
    "de es fr ru it pt nl pl uk cs sk sl hr sr bg ro tr da sv nb no fi id vi el hu lt lv et".split()
)
"""Languages that write the decimal mark as a comma (and group thousands with points or spaces)."""

_TEXT2NUM = frozenset("en de es fr pt it nl da".split())

_SCALES = [
    # (words, multiplier, languages it is read in; None for every language)
    (r"thousand|tausend|milliers?|тыс\.?|тысяч[аи]?", 10**3, None),
    (r"mil", 10**3, frozenset({"es", "pt"})),
    (r"million|millions|millionen|mio\.?|millón|millones|milhões|milhão|млн\.?|миллион(?:а|ов)?", 10**6, None),
    (r"billion|billions|milliarden?|mrd\.?|milliards?|млрд\.?|миллиард(?:а|ов)?", 10**9, None),
    (r"千", 10**3, None),
    (r"万|萬", 10**4, None),
    (r"亿|億", 10**8, None),
]
_SCALE = "|".join(
    # a Latin or Cyrillic scale word must end there ("3 mild" is not "3 mil"); 万人 is fine
    f"(?P<s{i}>(?:{pattern})" + ("" if has_spaceless(pattern) else r"(?!\p{L})") + ")"
    for i, (pattern, _, _) in enumerate(_SCALES)
)
_NUMBER = regex.compile(
    r"(?P<digits>\d+(?:(?:[.,'\u00a0\u202f\u2009]|(?P<space> ))\d+)*)"
    rf"(?:[ \u00a0]?(?:{_SCALE}))?",
    regex.IGNORECASE,
)
_NUMBER_NO_SPACE = regex.compile(
    r"(?P<digits>\d+(?:[.,'\u00a0\u202f\u2009]\d+)*)(?P<space>(?!))?"
    rf"(?:[ \u00a0]?(?:{_SCALE}))?",
    regex.IGNORECASE,
)
_GROUP_MARKS = "'\u00a0\u202f\u2009 "
SPACE_GROUPS = frozenset("fr ru pl cs sk uk sv fi nb no bg et lv lt hu".split())
"""Languages that group thousands with a plain space ("3 000 euros")."""
_FULLWIDTH_THOUSANDS = regex.compile(r"(?<=\d)\uff0c(?=\d{3}(?!\d))")

MAX_NUMBER_DIGITS = 60
"""Digits one number may have to be read as a value: far beyond any stated quantity (a
trillion has 13, a 20-digit ID 20), short enough that comparing values costs nothing."""
_EXACT = Context(prec=MAX_NUMBER_DIGITS + max(len(str(scale)) for _, scale, _ in _SCALES))
"""Every readable number, with its scale word applied, is exact in this context: no value is
rounded into another, and none can overflow."""


def canonical(value: Decimal) -> str:
    """'3.70' -> '3.7', '1500.0' -> '1500': one spelling per value."""
    text = format(value.normalize(), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def _value(digits: str, language: str | None) -> Decimal | None:
    marks = [char for char in digits if not char.isdigit()]
    if not marks:
        return Decimal(digits)
    groups = regex.split(r"[.,'\u00a0\u202f\u2009 ]", digits)
    kinds = list(dict.fromkeys(marks))
    if len(kinds) > 2:
        return None
    if len(kinds) == 2:  # "1.234,5" / "1,234.5": the last mark is the decimal mark
        if marks.count(marks[-1]) > 1 or any(len(g) != 3 for g in groups[1:-1]):
            return None
        return Decimal(f"{''.join(groups[:-1])}.{groups[-1]}")
    mark = kinds[0]
    if mark in _GROUP_MARKS or len(marks) > 1:  # "1 000", "1,000,000", "1.000.000"
        return Decimal("".join(groups)) if all(len(g) == 3 for g in groups[1:]) else None
    head, tail = groups
    thousands = len(tail) == 3 and (mark == "." if language in DECIMAL_COMMA else mark == ",")
    return Decimal(head + tail) if thousands else Decimal(f"{head}.{tail}")


def _read(match: regex.Match, language: str | None) -> str | None:
    """One number match as a canonical value (with its scale word applied); None for a run of
    digits too long to be a quantity (`MAX_NUMBER_DIGITS`)."""
    digits = match.group("digits")
    # a mark sits between digits, so a match of more than twice the cap in length has too many
    if len(digits) > 2 * MAX_NUMBER_DIGITS or sum(char.isdigit() for char in digits) > MAX_NUMBER_DIGITS:
        return None
    with localcontext(_EXACT):
        try:
            value = _value(digits, language)
            if value is None:  # "2.0.1": no reading as one number; kept as written, as before
                return digits.replace(",", "")
            for i, (_, scale, languages) in enumerate(_SCALES):
                if match.group(f"s{i}") and (languages is None or language in languages):
                    value *= scale
            return canonical(value)
        except DecimalException:
            return digits.replace(",", "")


def _matches(text: str, language: str | None) -> list[regex.Match]:
    """Number matches; a plain space groups thousands only in `SPACE_GROUPS` languages and
    after a first group of 1-3 digits ("3 000 euros", never "in 2005 100 people")."""
    found = []
    for match in _NUMBER.finditer(text):
        if match.group("space") is not None and not (
            language in SPACE_GROUPS and regex.fullmatch(r"\d{1,3}(?: \d{3})+", match.group("digits"))
        ):
            found += [m for m in _NUMBER_NO_SPACE.finditer(text, match.start(), match.end())]
            continue
        found.append(match)
    return found


@shared_cache(maxsize=4096)
def _numbers(text: str, language: str | None) -> frozenset[str]:
    text = _FULLWIDTH_THOUSANDS.sub(",", text).replace("\uff0c", "、")
    text = unicodedata.normalize("NFKC", text)
    found: set[str | None] = set()
    rest = []
    position = 0
    for match in _matches(text, language):  # digits first: "3,7 Millionen" is one value
        found.add(_read(match, language))
        rest.append(text[position:match.start()])
        position = match.end()
    rest.append(text[position:])
    spelled = language or "en"
    words_left = " ".join(rest)
    if spelled in _TEXT2NUM and regex.search(r"\p{L}{3,}", words_left):
        from text_to_num import alpha2digit

        found |= {_read(m, language) for m in _matches(alpha2digit(words_left, spelled), language)}
    found.discard(None)
    return frozenset(found)


def numbers_in(text: str, language: str | None = None) -> set[str]:
    """The numbers in `text`, as canonical decimal strings ("1500", "3.7", "3700000")."""
    return set(_numbers(text, language))
