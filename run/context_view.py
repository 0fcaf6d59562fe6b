"""What a step shows the judge of a context: all of it when it fits, else its closest lines.

Why: real retrieval hands over ten or a hundred passages, and a judge has a window (8,192
tokens on the embedded one) and a price per token. A context that does not fit is never a
failure: a step that reads the context sees the lines closest to what it asks about, chosen
by the sentence embedder over the *whole* context (the lexical overlap without one), up to a
token budget, kept in their original order. The budget is the smaller of

- the run's cap (`JudgeContext.context_cap_tokens`, default `DEFAULT_CAP_TOKENS`), which bounds
  the cost per call whatever the number of passages: embedding the lines grows linearly with
  the context, the judge's prompt does not grow at all past the cap; and
- the judge's window, when known (`JudgeContext.context_window`: the embedded server's n_ctx,
  or `--context-window` for a remote judge), less the rest of the prompt and the reply.

Tokens are estimated, not counted (one token per 3 bytes of UTF-8): that over-counts every
script the judges' tokenizers were measured on (English ~4.5 bytes per token, CJK ~4, Cyrillic
~6), so an estimate that fits also fits the real window, without a tokenizer call per line.

Every step of one item that reads the context as the item's (context relevance, answer
relevance, the second reading, model-extracted claims, batch claim checks, the similarity
fallback, liverag's relevance) shares one view, `item_view`: closest to the question, its budget
counted from the question and the answer alone, so the views are equal and every prompt opens
with the same data block (`prompts.item_data`); step-only data (a reference, the claims) is
left to the reserve. Claim checks pick their own lines per claim when the context is long
(`nodes.claims.evidence`), shown after the shared question and answer.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..llm.embeddings import Embedder, run_embedder, cosine
from ..llm.steps import Step, blocking
from ..prompts.item_data import ItemData
from ..text.segmentation import context_lines
from ..text.tokens import content_words
from .context import DEFAULT_CONTEXT_CAP_TOKENS, JudgeContext

DEFAULT_CAP_TOKENS = DEFAULT_CONTEXT_CAP_TOKENS
"""1,024 estimated tokens per call, about 700 real English tokens (~500 words): a whole
HaluEval or MS MARCO context fits with room to spare, and 100 passages cost an item no more
than ~3x one passage (docs/benchmarks.md, long contexts)."""
BYTES_PER_TOKEN = 3
PROMPT_RESERVE_TOKENS = 1024
"""Room kept in the window for the step's instructions and its reply."""


def estimate_tokens(text: str) -> int:
    """A deliberately high estimate of the tokens `text` costs a judge (see the module doc)."""
    return math.ceil(len(text.encode("utf-8", "replace")) / BYTES_PER_TOKEN)


def context_budget(cap_tokens: int | None, window_tokens: int | None, *other_texts: str | None) -> int:
    """Tokens of context one prompt may carry: the cap, and what the window leaves once the
    question, answer (and reference) and the reserve are counted."""
    budget = cap_tokens if cap_tokens and cap_tokens > 0 else DEFAULT_CAP_TOKENS
    if window_tokens:
        used = PROMPT_RESERVE_TOKENS + sum(estimate_tokens(text) for text in other_texts if text)
        budget = min(budget, window_tokens - used)
    return max(budget, 0)


@dataclass(frozen=True)
class ContextView:
    """The lines a step shows, where they sit in the whole context, and what was left out."""

    lines: list[str]
    positions: list[int]
    """0-based index of each shown line among all the context's lines."""
    total_lines: int
    shown_tokens: int
    total_tokens: int

    @property
    def whole(self) -> bool:
        return len(self.lines) == self.total_lines and self.shown_tokens >= self.total_tokens

    def note(self) -> str | None:
        """What the judge is told when it sees part of the context, else None."""
        if self.whole:
            return None
        return (f"the {len(self.lines)} lines of the context closest to the question, of {self.total_lines}; "
                "the others were left out for length")

    def trace_detail(self) -> dict:
        return {"context_lines_shown": len(self.lines), "context_lines": self.total_lines,
                "context_tokens_shown": self.shown_tokens, "context_tokens": self.total_tokens}

    def shown(self, passages: list[str]) -> list[str]:
        """What a prompt's context section gets: the passages as given when the whole context
        fits (numbered per passage, as before), else the lines this view kept."""
        return passages if self.whole else self.lines

    def recorded_detail(self) -> dict:
        """What a judgment step's trace event records of this view: what was cut (nothing
        when the whole context was shown)."""
        return {} if self.whole else self.trace_detail()

    def item_data(self, question: str, answer: str) -> ItemData:
        """The data block of every step that shows this view (`prompts.item_data`)."""
        return ItemData(question, answer, self.lines, self.note())

    def original_line_number(self, shown_number: int) -> int | None:
        """The 1-based number in the whole context of the shown line `shown_number` (1-based)."""
        if 0 < shown_number <= len(self.positions):
            return self.positions[shown_number - 1] + 1
        return None


def _words(text: str) -> set[str]:
    return set(content_words(text))


def _lexical_closeness(query: str, lines: Sequence[str]) -> list[float]:
    wanted = _words(query)
    return [len(wanted & _words(line)) / math.sqrt(len(_words(line)) or 1) for line in lines]


def closeness(query: str, lines: Sequence[str], embedder: Embedder | None) -> list[float]:
    """How close each line is to `query`: embedding cosine, else shared content words."""
    if not lines:
        return []
    if embedder is not None:
        query_vector, *line_vectors = embedder.embed([query, *lines])
        return [cosine(query_vector, vector) for vector in line_vectors]
    return _lexical_closeness(query, lines)


def _clip(line: str, tokens: int) -> str:
    """`line` cut to about `tokens` tokens (at a character boundary), marked as cut."""
    marker = " …"
    room = max(tokens * BYTES_PER_TOKEN - len(marker.encode("utf-8")), 1)
    return line.encode("utf-8", "replace")[:room].decode("utf-8", "ignore").rstrip() + marker


def fit_lines(lines: Sequence[str], scores: Sequence[float], budget_tokens: int) -> ContextView:
    """The best-scoring lines that fit `budget_tokens`, in their original order.

    Lines are taken by score; one that does not fit is skipped for a shorter one further down.
    When not even the best line fits (one huge unsplittable line), it is shown cut to the
    budget: the judge always sees something of a non-empty context."""
    costs = [estimate_tokens(line) for line in lines]
    total = sum(costs)
    if total <= budget_tokens:
        return ContextView(list(lines), list(range(len(lines))), len(lines), total, total)
    chosen: list[int] = []
    used = 0
    for index in sorted(range(len(lines)), key=lambda i: (-scores[i], i)):
        if used + costs[index] <= budget_tokens:
            chosen.append(index)
            used += costs[index]
    if not chosen and lines:
        best = max(range(len(lines)), key=lambda i: (scores[i], -i))
        clipped = _clip(lines[best], budget_tokens)
        return ContextView([clipped], [best], len(lines), estimate_tokens(clipped), total)
    chosen.sort()
    return ContextView([lines[i] for i in chosen], chosen, len(lines), used, total)


def question_view(question: str, passages: list[str], embedder: Embedder | None, budget_tokens: int) -> ContextView:
    """The view every question-focused step of one item shares."""
    lines = context_lines(passages)
    costs_fit = sum(estimate_tokens(line) for line in lines) <= budget_tokens
    scores = [0.0] * len(lines) if costs_fit else closeness(question, lines, embedder)
    return fit_lines(lines, scores, budget_tokens)


def _run_budget(context: JudgeContext | None, question: str, *other_texts: str | None) -> int:
    cap = getattr(context, "context_cap_tokens", DEFAULT_CAP_TOKENS)
    return context_budget(cap, getattr(context, "context_window", None), question, *other_texts)


def view_texts(question: str, passages: list[str], context: JudgeContext | None, *other_texts: str | None) -> list[str]:
    """What `judge_view` embeds for a step that shares the prompt with `other_texts`: the
    question and every context line when the context does not fit, else nothing. Given the
    item's answer, it is what `item_view` (every step's shared view) embeds
    (`graph.every_item.item_embeddings`)."""
    if not passages or not getattr(context, "embeddings", True):
        return []
    lines = context_lines(passages)
    if sum(estimate_tokens(line) for line in lines) <= _run_budget(context, question, *other_texts):
        return []
    return [question, *lines]


def judge_view(question: str, passages: list[str], context: JudgeContext | None, *other_texts: str | None) -> Step[ContextView]:
    """`question_view` for a step of the run: the run's cap and window, its embedder (loaded
    and run off the event loop only when the context does not fit whole; the item's texts
    were embedded before its first model call, so this reads them from the cache)."""
    budget = _run_budget(context, question, *other_texts)
    fits = sum(estimate_tokens(line) for line in context_lines(passages)) <= budget
    if fits or not getattr(context, "embeddings", True):
        return question_view(question, passages, None, budget)  # no embedder needed: no blocking call

    def select() -> ContextView:
        return question_view(question, passages, run_embedder(context), budget)

    return (yield from blocking(select))


def item_view(question: str, answer: str, passages: list[str], context: JudgeContext | None) -> Step[ContextView]:
    """The one view every step of an item shows in its shared data block: `judge_view` with a
    budget counted from the question and the answer only, so that every step computes the
    same lines (a step's own data, such as a reference, fits in `PROMPT_RESERVE_TOKENS`)."""
    return (yield from judge_view(question, passages, context, answer))
