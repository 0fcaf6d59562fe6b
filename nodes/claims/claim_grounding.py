"""Claims the judge lists (`--claims model`) must come from the answer.

Why: the claims are what faithfulness checks. A judge that lists a context sentence as the
answer's only claim, because the answer talked it into that or because it misread its task,
makes "Craigslist was founded by Elon Musk on Mars in 1850." faithful: nothing the answer said
is ever checked. So a rule in code, the same for every script, keeps a listed claim only when
the answer (or the question, which a claim may restate to be self-contained) supplies it:

- every number of the claim is a number the answer or the question states (as values:
  `text.numbers`, so "1,995" and "１９９５" are the same number);
- at least `MIN_WORDS_FROM_ANSWER` of its content words occur in the answer or the question
  (`text.tokens`: Chinese and Japanese by character, stopwords and English plurals aside).

A claim that fails is dropped with a note saying why; when none is left, the item falls back to
the claims cut from the answer in code. Both show in the trace's `extract_claims` event.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...text.numbers import numbers_in
from ...text.tokens import content_words

MIN_WORDS_FROM_ANSWER = 0.75
"""Share of a listed claim's content words the answer or question must hold: a claim may name
its subject, resolve a pronoun or change a word's form, not add facts."""


@dataclass(frozen=True)
class ClaimGrounding:
    claim: str
    kept: bool
    note: str | None = None


def ground_claim(claim: str, answer: str, question: str, language: str | None = None) -> ClaimGrounding:
    """Whether `claim` comes from `answer` (module doc), with the reason when it does not."""
    source = f"{answer}\n{question}"
    stated = numbers_in(source, language)
    foreign_numbers = sorted(numbers_in(claim, language) - stated)
    if foreign_numbers:
        return ClaimGrounding(claim, False, f"states {', '.join(foreign_numbers[:3])}, which the answer does not")
    words = list(dict.fromkeys(content_words(claim, language)))
    if not words:
        return ClaimGrounding(claim, True)
    available = set(content_words(source, language))
    found = sum(word in available for word in words)
    if found / len(words) < MIN_WORDS_FROM_ANSWER:
        missing = [word for word in words if word not in available][:4]
        return ClaimGrounding(claim, False, f"{found} of its {len(words)} content words are in the answer "
                                            f"(not: {', '.join(missing)})")
    return ClaimGrounding(claim, True)


def grounded_claims(claims: list[str], answer: str, question: str,
                    language: str | None = None) -> tuple[list[str], list[str]]:
    """The listed claims that come from the answer, and a note for each one dropped."""
    checked = [ground_claim(claim, answer, question, language) for claim in claims]
    return ([c.claim for c in checked if c.kept],
            [f"claim dropped, not from the answer: {c.claim[:120]!r} {c.note}" for c in checked if not c.kept])
