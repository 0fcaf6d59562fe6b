"""Answer relevance's explanation, written by code from the judge's labels and probabilities.

Why code writes it: under the labels reply (`AnswerRelevanceParameters.reply`) the judge writes
no prose, because every generated token costs a small local judge wall time, and everything an
explanation must say is in the labels: which parts of the question the answer answers (with
P(answered) when the score read it), how directly, and for a refusal whether it is valid and,
if not, the seed's reason (`refusal_problem`). The one model-written text quoted is each
part's short phrase; it is derived from the item's text, so it is treated as data: control,
format and line characters dropped, quotes replaced, capped, and always shown inside quotes.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence

PHRASE_LIMIT = 40
"""The schema's cap on a part's phrase (`schemas.rag.LabelledPart`), enforced again here."""
DIRECTNESS_WORDS = {"direct": "directly", "partial": "only partly directly", "evasive": "evasively"}


def quoted_phrase(text: str) -> str:
    """A part's phrase as it may appear in an explanation: in double quotes, on one line, without
    control or invisible characters or a quote that could end it early, at most `PHRASE_LIMIT`
    characters."""
    kept = "".join(" " if unicodedata.category(char)[0] in "CZ" else char for char in text)
    words = " ".join(kept.replace('"', "'").split())
    if len(words) > PHRASE_LIMIT:
        words = words[: PHRASE_LIMIT - 1].rstrip() + "…"
    return f'"{words}"'


def parts_clause(phrases: Sequence[str], answered: Sequence[float], graded: bool) -> str:
    """Each part, quoted, with whether it was answered (and P(answered) when graded)."""
    described = []
    for phrase, p in zip(phrases, answered):
        verdict = "answered" if p >= 0.5 else "not answered"
        described.append(f"{quoted_phrase(phrase)} {verdict}" + (f" (P {p:.2f})" if graded else ""))
    return "; ".join(described)


def labels_explanation(phrases: Sequence[str], answered: Sequence[float], count: float, directness: str,
                       probabilities: Mapping[str, float], factor: float, graded: bool) -> str:
    """The explanation of an answer (not a refusal) judged by its labels: `count` parts answered
    of `phrases` (expected when `graded`), which, and how directly."""
    total = len(phrases)
    how = DIRECTNESS_WORDS[directness]
    if graded:
        how += " (P " + ", ".join(f"{level} {probabilities.get(level, 0.0):.2f}" for level in DIRECTNESS_WORDS) + ")"
    amount = f"{count:.2f} (expected)" if graded else f"{count:g}"
    return (f"Answers {amount} of {total} part{'s' if total != 1 else ''} of the question "
            f"({parts_clause(phrases, answered, graded)}), {how}; directness factor "
            f"{factor:.2f}.")


def refusal_explanation(category: str, problem: str | None) -> str:
    """A refusal's explanation: valid (its category), or invalid with the seed's reason."""
    if problem is None:
        return f"A valid refusal ({category.replace('-', ' ')}): it states its reason and cites what is missing."
    return f"An invalid refusal: {problem}."
