"""Which context lines a claim check shows the judge: the whole context, or the closest lines.

Why: prompt processing dominates on 2 cores (~40 tokens/s), and a 1.5B judge reads a short,
focused prompt better than a long one. A context of up to `FULL_CONTEXT_WORDS` words is shown
whole (numbered lines), because the hard cases (an answer naming the *other* entity of the
context) need the surrounding lines; a longer one (FaithBench's news articles) is cut to the
`TOP_LINES` lines closest to the claim, kept in their original order.

"Closest" is the cosine of sentence embeddings (`llm.embeddings`) between the claim, read
with the question when it is a short answer, and each line; without an embedder, the share
of the claim's content words a line holds.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...llm.embeddings import Embedder, similarity_from_cosine
from ...run.context_view import DEFAULT_CAP_TOKENS, estimate_tokens, fit_lines
from ...run.context_view import closeness as line_closeness
from ...text.segmentation import context_lines
from ...text.stopwords import ENGLISH
from ...text.tokens import word_count

FULL_CONTEXT_WORDS = 250
TOP_LINES = 4
SHORT_CLAIM_WORDS = 6
"""Claims this short ("I Love You, Man") are ranked together with the question."""

STOPWORDS = ENGLISH
"""The English stopwords; every language's are in `judgegraph.text.stopwords`."""


@dataclass(frozen=True)
class Evidence:
    """The lines shown to the judge for one claim, and how close each is to the claim."""

    lines: list[str]
    closeness: list[float]
    whole_context: bool
    meaning: float | None = None
    """How close in meaning the claim is to its closest line of the whole context, on people's
    0..1 similarity scale (`llm.embeddings.similarity_from_cosine`); None without an embedder.
    Grounding reads it (`nodes.claims.code_checks.ground_claim`)."""

    @property
    def best_line(self) -> str:
        return self.lines[max(range(len(self.lines)), key=self.closeness.__getitem__)] if self.lines else ""


def claim_query(claim: str, question: str) -> str:
    return f"{question} {claim}" if word_count(claim) <= SHORT_CLAIM_WORDS else claim


def evidence_texts(claim: str, question: str, passages: list[str]) -> list[str]:
    """What `select_evidence` embeds for one claim: its query and every context line."""
    lines = context_lines(passages)
    return [claim_query(claim, question), *lines] if lines else []


def select_evidence(
    claim: str, question: str, passages: list[str], embedder: Embedder | None,
    *, full_context_words: int = FULL_CONTEXT_WORDS, top_lines: int = TOP_LINES,
    budget_tokens: int = DEFAULT_CAP_TOKENS,
) -> Evidence:
    """The lines one claim check shows: all of a short context, else the `top_lines` closest to
    the claim, chosen over the whole context; never more than `budget_tokens` (a context in a
    script without spaces has few "words" however long it is, and one line can be huge)."""
    lines = context_lines(passages)
    if not lines:
        return Evidence([], [], True)
    query = claim_query(claim, question)
    closeness = line_closeness(query, lines, embedder)
    meaning = similarity_from_cosine(embedder, max(closeness)) if embedder is not None else None
    words = sum(word_count(line) for line in lines)
    if (words <= full_context_words or len(lines) <= top_lines) and \
            sum(estimate_tokens(line) for line in lines) <= budget_tokens:
        return Evidence(lines, closeness, True, meaning)
    keep = sorted(sorted(range(len(lines)), key=lambda i: -closeness[i])[:top_lines])
    view = fit_lines([lines[i] for i in keep], [closeness[i] for i in keep], budget_tokens)
    return Evidence(view.lines, [closeness[keep[i]] for i in view.positions], False, meaning)
