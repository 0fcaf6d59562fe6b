"""An item's texts are embedded once, in one batch, before its first model call
(`graph.every_item.item_embeddings`), and the scores are exactly what they were when every node
embedded its own texts."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import ClassVar

import pytest

from judgegraph.graph.api import arun_evaluation, run_evaluation
from judgegraph.graph.every_item.item_embeddings import texts_to_embed
from judgegraph.llm import embedding_cache
from judgegraph.run.context import JudgeContext
from judgegraph.text.segmentation import context_lines
from tests.support import embedding_parity, fakes
from tests.support.in_flight import CountsCallsInFlight



@pytest.fixture(autouse=True)
def cold_cache():
    embedding_cache.PROCESS_CACHE.clear()
    yield
    embedding_cache.PROCESS_CACHE.clear()


def per_node_outputs(embedder, monkeypatch, run=run_evaluation) -> dict[str, dict]:
    """The outputs of the path before issue #33: nothing embedded ahead (`embed_item` finds no
    text to embed) and no cache between nodes, so each node embeds its own texts when it runs."""
    from judgegraph.graph.every_item import item_embeddings

    with monkeypatch.context() as patched:
        patched.setattr(item_embeddings, "texts_to_embed", lambda *args: [])
        patched.setattr(embedding_cache.PROCESS_CACHE, "get", lambda *args, **kwargs: None, raising=False)
        return embedding_parity.outputs(embedder, run=run)


def test_scores_and_details_match_each_node_embedding_on_its_own(monkeypatch):
    """rag items short and long, in English, German, French, Chinese and Japanese, under five
    run settings: results, verdicts and every prompt the judge saw are the same whether the
    item's texts are embedded ahead or by each node when it runs."""
    expected = per_node_outputs(fakes.HashEmbedder(), monkeypatch)
    embedding_cache.PROCESS_CACHE.clear()
    assert embedding_parity.outputs(fakes.HashEmbedder()) == expected


def test_awaited_runs_match_too(monkeypatch):
    def awaited(item, **kwargs):
        return asyncio.run(arun_evaluation(item, **kwargs))

    expected = per_node_outputs(fakes.HashEmbedder(), monkeypatch)
    embedding_cache.PROCESS_CACHE.clear()
    assert embedding_parity.outputs(fakes.HashEmbedder(), run=awaited) == expected


def test_a_warm_cache_gives_the_same_outputs():
    embedder = fakes.HashEmbedder()
    cold = embedding_parity.outputs(embedder)
    calls = len(embedder.calls)
    assert embedding_parity.outputs(embedder) == cold
    assert len(embedder.calls) == calls, "the second pass found every vector in the cache"


def test_the_parity_check_would_notice_other_vectors(monkeypatch):
    """Not vacuous: other vectors choose other lines, and the outputs differ."""
    expected = per_node_outputs(fakes.HashEmbedder(), monkeypatch)
    embedding_cache.PROCESS_CACHE.clear()
    assert embedding_parity.outputs(fakes.HashEmbedder(dimensions=4)) != expected


class InFlightJudge(CountsCallsInFlight, fakes.ScriptedJudge):
    """A scripted judge that counts its calls in flight and takes a moment to reply, so a
    concurrent embedding would overlap it."""

    pause_s: ClassVar[float] = 0.02


class WatchingEmbedder(fakes.HashEmbedder):
    """Records, for each embedding call, how many model calls were in flight and how many had
    been made."""

    def __init__(self, judge: InFlightJudge) -> None:
        super().__init__()
        self.judge = judge
        self.seen: list[tuple[int, int]] = []

    def embed(self, texts):
        self.seen.append((self.judge.in_flight(), len(self.judge.calls)))
        time.sleep(0.01)
        return super().embed(texts)


def in_flight_judge(item: dict) -> InFlightJudge:
    scripted = embedding_parity.prompt_reading_judge(item)
    return InFlightJudge(scripts=scripted.scripts, default=scripted.default)


ITEMS = ["showcase_en_short", "en_long", "zh_long", "ja_short"]
SETTINGS = ["default", "all_signals", "small_cap", "batch_check"]


@pytest.mark.parametrize("awaited", [False, True], ids=["invoke", "ainvoke"])
@pytest.mark.parametrize("setting", SETTINGS)
@pytest.mark.parametrize("name", ITEMS)
def test_no_embedding_while_a_model_call_is_in_flight(name, setting, awaited):
    """Nodes run concurrently (max_concurrency 8); the embedder is called once, before the first
    model call, and never while one is in flight."""
    item = embedding_parity.ITEMS[name]
    judge = in_flight_judge(item)
    embedder = WatchingEmbedder(judge)
    context = JudgeContext(model=judge, model_id="test:in-flight", embedder=embedder,
                           **embedding_parity.SETTINGS[setting])
    if awaited:
        run = asyncio.run(arun_evaluation(dict(item), model=context, max_concurrency=8))
    else:
        run = run_evaluation(dict(item), model=context, max_concurrency=8)
    assert run.result["evaluation_status"] == "success"
    assert judge.calls, "the item was judged"
    assert embedder.seen == [(0, 0)], f"embedding calls (in flight, made before): {embedder.seen}"
    nodes = [event.node for event in run.trace]
    assert nodes.index("embed_item") == 1, nodes


def test_claims_the_judge_lists_are_embedded_in_one_batch_before_their_checks():
    item = embedding_parity.ITEMS["en_long"]
    judge = in_flight_judge(item)
    judge.scripts["ExtractedClaims"] = [fakes.claims("The observatory was built in 1887.",
                                                     "It houses a refracting telescope.")]
    embedder = WatchingEmbedder(judge)
    context = JudgeContext(model=judge, model_id="test:in-flight", embedder=embedder, claim_extraction="model")
    run_evaluation(dict(item), model=context, max_concurrency=8)
    checks_started = min(i for i, (step, _, _) in enumerate(judge.calls) if step == "ClaimCheck")
    assert len(embedder.seen) == 2, embedder.seen
    assert embedder.seen[0] == (0, 0)  # the item's own texts, before any call
    assert embedder.seen[1][1] <= checks_started  # the listed claims, before any check
    assert {"It houses a refracting telescope.", "The observatory was built in 1887."} <= {
        text.removeprefix(item["question"] + " ") for text in embedder.calls[1]}


def test_an_item_embeds_only_what_its_metrics_need(rag_item):
    rag_item["reference"] = "Craigslist's founder is Craig Newmark."
    context = JudgeContext(model=fakes.judge(), embedder=fakes.HashEmbedder())
    state = {"inputs": {"rag": _rag(rag_item)}, "rubrics": ["rag"]}
    similarity_only = texts_to_embed(state, context, ["judge_semantic_similarity"])
    assert similarity_only == [rag_item["answer"], rag_item["reference"]]
    relevance_only = texts_to_embed(state, context, ["judge_context_relevance", "judge_answer_relevance"])
    assert relevance_only == [], "a context that fits needs no view and no closeness"
    claims = texts_to_embed(state, context, ["extract_claims"])
    assert set(context_lines(rag_item["context"])) <= set(claims)
    assert texts_to_embed(state, JudgeContext(model=fakes.judge(), embeddings=False),
                          ["extract_claims", "judge_semantic_similarity"]) == []


def test_a_failed_embedding_ahead_leaves_the_nodes_to_embed(rag_item):
    class FailsOnce(fakes.HashEmbedder):
        failed = False

        def embed(self, texts):
            if not self.failed:
                self.failed = True
                raise RuntimeError("out of memory")
            return super().embed(texts)

    expected = run_evaluation(dict(rag_item), model=JudgeContext(model=fakes.judge(**_happy()),
                                                                 embedder=fakes.HashEmbedder())).result
    run = run_evaluation(dict(rag_item), model=JudgeContext(model=fakes.judge(**_happy()), embedder=FailsOnce()))
    event = next(e for e in run.trace if e.node == "embed_item")
    assert event.outcome == "failed" and "out of memory" in event.note
    assert run.result == expected


def _happy() -> dict:
    from tests.conftest import happy_scripts

    return happy_scripts()


def _rag(item: dict):
    from judgegraph.schemas.rag import RagInput

    return RagInput.model_validate(item)
