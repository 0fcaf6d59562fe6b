"""What code can tell about a claim without the model: conflicting numbers, unfounded words.

Why: the 1.5B judge misses the cheapest hallucinations. A claim that states "2007" where the
context's matching sentence says "2005" is contradicted, whatever the model says; the seed
makes a contradicted critical fact score 0.0. And a claim whose new content words (those the
question did not already supply) occur nowhere in the context, in any form and in no words of
the same meaning, asserts something the context does not hold. Both signals are explainable in
one sentence, and both are checked in the report's explanation.

Grounding reads words as a reader does, in every language: inflected ("descubrir" /
"descubrimiento": `judgegraph.text.stems`), compounded ("Chemienobelpreis" / "Nobelpreis für
Chemie": `judgegraph.text.compounds`), numbers by value, and a word the context words otherwise
("ganó" / "recibió") by the meaning of the claim against its closest line (the multilingual
embedder). Names and numbers are the exception: meaning never excuses them, because a
hallucinated twin differs from a faithful claim by exactly such a word, with almost the same
meaning. docs/calibration.md ("What grounding means") states the rule.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import regex

from ...text.compounds import builds_compounds, is_head_of, splits_into
from ...text.numbers import numbers_in
from ...text.stems import stem
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

    A line that shares none of the claim's words (numbers aside) is about something else, and
    its numbers are no rival: "About seven million people visit it every year" is not
    contradicted by "the first structure to surpass the 200-metre mark", it is unsupported.
    A claim of numbers only ("1890.") keeps every line as a rival.
    """
    in_context = numbers_in(context_text, language)
    given = numbers_in(question, language)
    asserted = sorted(numbers_in(claim, language) - given - in_context)
    # the rival comes from the line that shares most of the claim's words (the documentary's
    # line for "The documentary came out in 2007"), closeness order breaking ties
    if not asserted:
        return None
    words = {word for word in content_words(claim, language) if not numbers_in(word, language)}
    shared = {line: len(words & set(content_words(line, language))) for line in evidence_lines}
    evidence_lines = sorted((line for line in evidence_lines if shared[line] or not words), key=lambda line: -shared[line])
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


UNFOUND_SHOWN = 12
"""At most this many words not found are recorded on a claim."""

_CAPITALISED = regex.compile(r"\b\p{Lu}[\p{L}\p{M}\p{N}]*")


@dataclass(frozen=True)
class Grounding:
    """How much of a claim the context holds, and the signals that say so.

    The rule (`ground_claim`): each of the claim's new content words (those the question did
    not supply) is *found* when the context holds it as written, by its stem, as the parts of
    a compound or, for a number, by value. A word not found that is neither a name nor a
    number is found *by meaning* to the degree the claim means what its closest context line
    says (`semantic`, people's 0..1 similarity scale), provided the context holds at least one
    of the claim's new words; a name or a number the context never states is never excused.
    `value` = (words found + semantic x words excusable) / words.
    """

    value: float
    """The grounding the decision reads, 0..1."""
    lexical_share: float
    """Share of the words found as written (the old rule)."""
    lemma_share: float
    """Share found as written, by stem, as compound parts or by number value."""
    semantic: float | None
    """Similarity of the claim to its closest context line, 0..1; None without embeddings."""
    unfound: tuple[str, ...]
    """The words the context does not hold in any form (names and numbers among them)."""
    unfound_names: tuple[str, ...] = ()
    """Those of them that are names or numbers (never excused by meaning)."""


def _names(claim: str, language: str | None) -> set[str]:
    """The claim's capitalised words, as content words: names (and, in German, nouns), which
    the context must state. Scripts without case have none."""
    return set(content_words(" ".join(match.group() for match in _CAPITALISED.finditer(claim)), language))


@lru_cache(maxsize=8)
def _context_index(context_text: str, language: str | None) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """The context's words, their stems and its numbers, once per item (every claim of an item
    is grounded in the same context: indexing it per claim would make many claims quadratic)."""
    forms = frozenset(content_words(context_text, language))
    return forms, frozenset(stem(word, language) for word in forms), frozenset(numbers_in(context_text, language))


def ground_claim(claim: str, question: str, context_text: str, language: str | None = None,
                 semantic: float | None = None) -> Grounding:
    """The claim's grounding in the context (the rule is `Grounding`'s). `semantic` is the
    claim's similarity to its closest context line (`nodes.claims.evidence`), None without an
    embedder: then grounding is the lemma share alone.

    1.0 when the claim adds no word of its own (it restates the question). Words are cut for
    every script (`judgegraph.text.tokens`: Chinese and Japanese by character)."""
    given = set(content_words(question, language))
    given_stems = {stem(word, language) for word in given}
    novel = [word for word in dict.fromkeys(content_words(claim, language))
             if word not in given and stem(word, language) not in given_stems]
    if not novel:
        return Grounding(1.0, 1.0, 1.0, semantic, ())
    forms, stems, values = _context_index(context_text, language)
    numbers_stated = numbers_in(claim, language) <= values

    def known(part: str) -> bool:
        return part in forms or stem(part, language) in stems

    def found(word: str) -> bool:
        if any(ch.isdigit() for ch in word):
            # a number is read whole ("3.700.000" is one value, three words): its words are found
            # when every number of the claim is a value the context states
            return word in forms or numbers_stated or numbers_in(word, language) <= values
        if known(word):
            return True
        return builds_compounds(language) and (splits_into(word, known) or is_head_of(word, forms))

    exact = sum(word in forms for word in novel)
    unfound = [word for word in novel if not found(word)]
    names = _names(claim, language)
    excusable = [word for word in unfound if word not in names and not any(ch.isdigit() for ch in word)]
    n = len(novel)
    lemma_share = (n - len(unfound)) / n
    # meaning vouches for the claim's other words only when the context holds one of its own:
    # a claim whose every new word is absent ("... founded it alone") is close to its line
    # through the words it shares with the question, not through what it adds
    vouched = (semantic or 0.0) * len(excusable) / n if len(unfound) < n else 0.0
    value = lemma_share + vouched
    return Grounding(round(value, 3), round(exact / n, 3), round(lemma_share, 3),
                     None if semantic is None else round(semantic, 3), tuple(unfound[:UNFOUND_SHOWN]),
                     tuple(word for word in unfound if word not in excusable))


_NAME_IN_SENTENCE = regex.compile(r"(?<![.!?:;。！？]\s*|^\W*)(?<=\s)\p{Lu}[\p{L}\p{M}\p{N}'’-]*")
"""A capitalised word inside a sentence (not its first word, not after a full stop or a colon)."""
NOUNS_CAPITALISED = frozenset({"de", "lb"})
"""Languages whose common nouns are capitalised too: a capital there does not mark a name."""


def unstated_names(claim: str, question: str, context_text: str, language: str | None = None) -> tuple[str, ...]:
    """The names and numbers the claim states that neither the context nor the question states in
    any form: a capitalised word inside a sentence (a name: "Paris", "Elon Musk") the context does
    not hold as written or by its stem, and a number whose value the context does not give.

    Why a rule of its own: a claim that names someone or something the context never mentions
    asserts what the context cannot support, whatever a judge says; a faithful rewording changes
    words, not names. It reads no meaning (a name's twin is close in meaning by design), so it is
    explainable in one sentence ("names Paris, which the context never states"). Sentence-initial
    capitals are not names; in German every noun is capitalised, so there only numbers count; scripts
    without case (Chinese, Japanese, Korean, Arabic...) have no capitals and only numbers count."""
    forms, stems, values = _context_index(context_text, language)
    given = set(content_words(question, language))
    given_stems = {stem(word, language) for word in given}
    unstated: dict[str, None] = {}  # ordered, and a set for membership: a hostile claim of many names stays linear
    if language not in NOUNS_CAPITALISED:
        for match in _NAME_IN_SENTENCE.finditer(claim):
            if len(unstated) >= UNFOUND_SHOWN:
                break
            name = match.group().strip("'’-")
            unknown = [word for word in content_words(name, language) if not any(ch.isdigit() for ch in word)
                       and word not in forms and word not in given
                       and stem(word, language) not in stems and stem(word, language) not in given_stems]
            if unknown:
                unstated.setdefault(name)
    stated = values | numbers_in(question, language)
    return tuple([*unstated, *sorted(numbers_in(claim, language) - stated)][:UNFOUND_SHOWN])


def word_share(claim: str, question: str, context_text: str, language: str | None = None) -> tuple[float, tuple[str, ...]]:
    """The "words" grounding: the share of the claim's new content words (not in the question)
    found in the context as written, and the words not found. 1.0 when the claim adds no word
    of its own (it restates the question)."""
    given = set(content_words(question, language))
    novel = [word for word in dict.fromkeys(content_words(claim, language)) if word not in given]
    if not novel:
        return 1.0, ()
    available = set(content_words(context_text, language))
    missing = tuple(word for word in novel if word not in available)
    return (len(novel) - len(missing)) / len(novel), missing


def grounding(claim: str, question: str, context_text: str, language: str | None = None,
              semantic: float | None = None) -> float:
    """The grounding value alone (`ground_claim`)."""
    return ground_claim(claim, question, context_text, language, semantic).value
