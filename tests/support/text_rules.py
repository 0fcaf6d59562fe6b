"""Every code-side text rule an item's text goes through, run on one text and timed in CPU
seconds: shared by the linearity test (`tests/text/test_text_linearity.py`) and the hostile-text
benchmark (`benchmarks/hostile_text.py`)."""

from __future__ import annotations

import time

from judgegraph.nodes.claims.code_checks import grounding, number_conflict
from judgegraph.nodes.claims.evidence import select_evidence
from judgegraph.report.highlight import spans
from judgegraph.text import numbers, sentences, tokens
from judgegraph.text.quotes import quote_found
from judgegraph.text.refusals import states_inability
from judgegraph.text.segmentation import answer_claims, context_lines


def run_text_rules(text: str) -> None:
    """Every code-side text rule an item's text goes through, on `text`."""
    for cached in (sentences._sentences, tokens._content_words, numbers._numbers):
        cached.cache_clear()
    lines = context_lines([text])
    answer_claims(text)
    numbers.numbers_in(text, "de")
    tokens.content_words(text)
    states_inability(text)
    quote_found(text[: len(text) // 2] + " zz", [text])
    claim = text[: len(text) // 3]
    number_conflict(claim, "When?", text, lines[:4])
    grounding(claim, "When?", text)
    select_evidence(claim, "When?", [text], None)
    spans(text, [text[: len(text) // 2] + " zz", text[:40]])


def cpu_seconds(text: str) -> float:
    best = float("inf")
    for _ in range(2):
        started = time.process_time()
        run_text_rules(text)
        best = min(best, time.process_time() - started)
    return best
