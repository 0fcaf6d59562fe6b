"""What code can tell about a claim without the model: conflicting numbers, unfounded words.

Why: the 1.5B judge misses the cheapest hallucinations. A claim that states "2007" where the
context's matching sentence says "2005" is contradicted, whatever the model says; the seed
makes a contradicted critical fact score 0.0. And a claim whose new content words (those the
question did not already supply) do not occur anywhere in the context asserts something the
context does not hold. Both signals are explainable in one sentence, and both are checked in
the report's explanation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...text.numbers import numbers_in
from ...text.tokens import content_words

_YEAR = re.compile(r"^(1[0-9]{3}|20[0-9]{2})$")
_ASKS_FOR_NUMBER = re.compile(
    r"\b(?:when|what year|which year|how many|how much|how old|how long|date|year|number"
    r"|wann|welchem jahr|wie viele|wie viel|wie alt|wie lange|datum|jahr|anzahl"
    r"|cuándo|qué año|cuántos|cuántas|cuánto|cuánta|qué edad|fecha|año|número"
    r"|quand|quelle année|combien|quel âge|date|année|nombre"
    r"|когда|в каком году|сколько|какого числа|дата|год|число)\b"
    r"|什么时候|何时|哪一年|哪年|多少|几年|几个|多大|多久|日期|年份|数量|いつ|何年|いくつ|何人|何歳|どのくらい|日付",
    re.I,
)


def _kind(number: str) -> str:
    return "year" if _YEAR.match(number) else "number"


@dataclass(frozen=True)
class NumberConflict:
    """The claim's value, the context line's value of the same kind, and that line."""

    claimed: str
    found: str
    line: str


def number_conflict(
    claim: str, question: str, context_text: str, evidence_lines: list[str], language: str | None = None,
) -> NumberConflict | None:
    """A number of the claim that the context never states, while the closest evidence line
    states another number of the same kind (a year for a year): a contradiction.

    Numbers the question already gives are the claim's subject, not its assertion. Numbers are
    compared as values in any notation ("3,7 Millionen" = "3.7 million", "２００５" = "2005";
    `judgegraph.text.numbers`), read with the item's `language` (decimal commas).
    """
    in_context = numbers_in(context_text, language)
    given = numbers_in(question, language)
    asserted = sorted(numbers_in(claim, language) - given - in_context)
    # the rival comes from the line that shares most of the claim's words (the documentary's
    # line for "The documentary came out in 2007"), closeness order breaking ties
    if not asserted:
        return None
    words = set(content_words(claim, language))
    evidence_lines = sorted(evidence_lines, key=lambda line: -len(words & set(content_words(line, language))))
    # each kind's rival is the first line's smallest number of that kind: found once per line,
    # not once per asserted value (a claim listing thousands of numbers stays linear)
    rival_of_kind: dict[str, tuple[str, str]] = {}
    for line in evidence_lines:
        for number in sorted(numbers_in(line, language) - given):
            rival_of_kind.setdefault(_kind(number), (number, line))
        if len(rival_of_kind) == 2:
            break
    for value in asserted:
        if _kind(value) in rival_of_kind:
            found, line = rival_of_kind[_kind(value)]
            return NumberConflict(value, found, line)
    return None


def asks_for_number(question: str) -> bool:
    """The question asks for a date, year or quantity: a wrong number is then the answer itself
    (cues in English, German, Spanish, French, Russian, Chinese and Japanese)."""
    return bool(_ASKS_FOR_NUMBER.search(question))


def grounding(claim: str, question: str, context_text: str, language: str | None = None) -> float:
    """The share of the claim's new content words (not in the question) found in the context.

    1.0 when the claim adds no word of its own (it restates the question). Words are cut for
    every script (`judgegraph.text.tokens`: Chinese and Japanese by character), so a faithful
    Chinese claim is no longer one unmatched "word".
    """
    given = set(content_words(question, language))
    novel = [word for word in dict.fromkeys(content_words(claim, language)) if word not in given]
    if not novel:
        return 1.0
    available = set(content_words(context_text, language))
    return sum(word in available for word in novel) / len(novel)
