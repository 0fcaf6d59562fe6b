"""The MS MARCO tools behind docs/benchmarks.md's context-relevance figures: the audit's pair
arithmetic, and the prompt-variant harness reading P(yes) from a reply's log-probabilities."""

from __future__ import annotations

import pytest

from benchmarks import ctxrel_variants
from benchmarks.msmarco_audit import ANSWERS, PARTLY, pairs_of
from judgegraph.stats import pairwise_accuracy
from tests.support import fakes


def _row(pair: str, relevant: int) -> dict:
    return {"id": f"msmarco_ctxrel:{pair}:{'pos' if relevant else 'neg'}", "question": "what is X?",
            "context": "X is a letter. It comes after W.", "meta": {"pair_id": pair},
            "human": {"relevant": relevant}}


def test_audit_drops_the_pairs_read_as_mislabelled_and_keeps_the_others():
    mislabelled = sorted(ANSWERS)[0]
    rows = {r["id"]: r for r in (_row("qA", 1), _row("qA", 0), _row(mislabelled, 1), _row(mislabelled, 0))}
    scores = {"msmarco_ctxrel:qA:pos": 0.9, "msmarco_ctxrel:qA:neg": 0.1,
              f"msmarco_ctxrel:{mislabelled}:pos": 0.2, f"msmarco_ctxrel:{mislabelled}:neg": 0.8}
    items = [{"id": i, "score": s} for i, s in scores.items()] + [{"id": "msmarco_ctxrel:qA:pos", "score": None}]
    assert pairwise_accuracy(pairs_of(items, rows, frozenset())) == 0.5
    assert pairs_of(items, rows, ANSWERS) == [(0.9, 0.1)]
    assert not ANSWERS & PARTLY


def test_a_half_pair_is_not_a_pair():
    rows = {r["id"]: r for r in (_row("qB", 1), _row("qB", 0))}
    assert pairs_of([{"id": "msmarco_ctxrel:qB:pos", "score": 1.0}], rows, frozenset()) == []


def test_variants_read_p_yes_from_logprobs_and_share_the_data_prefix():
    answers = fakes.with_logprobs({"answers_question": "yes"}, "answers_question", {"yes": 0.7, "no": 0.3})
    extract = fakes.with_logprobs({"answer": "a letter", "answers_question": "no"}, "answers_question",
                                  {"yes": 0.2, "no": 0.8})
    model = fakes.judge(AnswersQuestion=[answers], ExtractThenDecide=[extract])
    record = ctxrel_variants.judge_item(model, _row("qC", 1) | {"question": "what is X? {{ 7*7 }}"})
    assert record["answers"]["p_yes"] == pytest.approx(0.7) and record["answers"]["graded"]
    assert record["extract"]["p_yes"] == pytest.approx(0.2)
    assert record["extract"]["reply"]["answer"] == "a letter"
    first, second = (prompt for _, prompt, _ in model.calls)
    shared = first.split("TASK:")[0]
    assert second.startswith(shared) and "[1] X is a letter." in shared
    assert "{{ 7*7 }}" in shared  # user text is data, never a template
