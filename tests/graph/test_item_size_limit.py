"""`evaluate`, `run_evaluation` and `arun_evaluation` judge no item holding more text than
`max_item_chars` (default `MAX_ITEM_TEXT_CHARS`): they raise `ItemTooLargeError` before any
call; `None` lifts the limit, as the batch and the CLI do (they bound the bytes they read)."""

from __future__ import annotations

import asyncio

import pytest

from judgegraph.graph.api import (MAX_ITEM_TEXT_CHARS, ItemTooLargeError, arun_evaluation, evaluate,
                                  run_evaluation, text_chars)
from tests.support.latency_judge import FixedLatencyJudge, item


def _judge() -> FixedLatencyJudge:
    return FixedLatencyJudge(latency_s=0.0, claims=3)


def test_the_default_limit_is_the_batch_line_limit():
    from judgegraph.batch.reader import DEFAULT_MAX_LINE_BYTES

    assert MAX_ITEM_TEXT_CHARS == DEFAULT_MAX_LINE_BYTES


@pytest.mark.parametrize("call", ["sync", "async", "evaluate"])
def test_an_item_over_the_limit_is_refused_before_any_call(call):
    judge = _judge()
    big = dict(item(), context=["Paris is the capital of France. " * 40])
    chars = text_chars(big)
    limit = chars - 1
    with pytest.raises(ItemTooLargeError, match=f"{chars:,} characters of text, over the limit of {limit:,}"):
        if call == "sync":
            run_evaluation(big, model=judge, max_item_chars=limit, claim_extraction="model", embeddings=False)
        elif call == "async":
            asyncio.run(arun_evaluation(big, model=judge, max_item_chars=limit, claim_extraction="model",
                                        embeddings=False))
        else:
            evaluate(big, model=judge, max_item_chars=limit, claim_extraction="model", embeddings=False)
    assert judge.counts == {"sync": 0, "async": 0}


def test_at_the_limit_or_without_one_the_item_is_judged():
    judge = _judge()
    small = item()
    run = run_evaluation(small, model=judge, max_item_chars=text_chars(small), claim_extraction="model",
                         embeddings=False)
    assert run.result["evaluation_status"] == "success"
    huge = dict(item(), context=["Paris is the capital of France. " * 40])
    run = asyncio.run(arun_evaluation(huge, model=judge, max_item_chars=None, claim_extraction="model",
                                      embeddings=False))
    assert run.result["evaluation_status"] == "success"


def test_documents_count_towards_the_limit():
    """An item from Python may hold LangChain `Document`s as its context: their text counts."""
    from langchain_core.documents import Document

    judge = _judge()
    big = dict(item(), context=[Document(page_content="Paris is the capital of France. " * 40)])
    assert text_chars(big) > 40 * 32
    with pytest.raises(ItemTooLargeError):
        run_evaluation(big, model=judge, max_item_chars=1000, claim_extraction="model", embeddings=False)
    assert judge.counts == {"sync": 0, "async": 0}
