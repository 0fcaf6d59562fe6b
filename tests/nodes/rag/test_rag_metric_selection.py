"""The optional `metrics` key of a rag item: judge only some metrics, keep the seed's 11 keys.

Why it matters: a caller that needs one metric (a faithfulness gate, the agreement benchmarks)
must not pay for the other judgments, and must still get the seed's output shape.
"""

from __future__ import annotations

import pytest

from judgegraph.graph.api import evaluate
from judgegraph.nodes.rag.metrics import RAG_METRICS, plan_rag
from judgegraph.schemas.rag import RagInput
from tests.support import fakes
from tests.conftest import happy_scripts

SEED_KEYS = [
    "faithfulness", "faithfulness_explanation", "context_relevance", "context_relevance_explanation",
    "answer_relevance", "answer_relevance_explanation", "semantic_similarity",
    "semantic_similarity_explanation", "evaluation_status", "reason", "error",
]
STEPS = ("extract_claims", "check_claim", "judge_context_relevance", "judge_answer_relevance",
         "judge_semantic_similarity")


def run(item: dict, settings: dict | None = None, **scripts) -> tuple[dict, fakes.ScriptedJudge]:
    model = fakes.judge(**happy_scripts(**scripts))
    return evaluate(item, model=model, **(settings or {})), model


def calls_by_step(model: fakes.ScriptedJudge) -> dict[str, int]:
    return {step: model.count(step) for step in STEPS if model.count(step)}


def test_without_metrics_every_metric_is_planned(rag_item):
    assert plan_rag(RagInput.model_validate(rag_item)) == [
        "extract_claims", "judge_context_relevance", "judge_answer_relevance", "judge_semantic_similarity",
    ]


@pytest.mark.parametrize(
    ("settings", "calls"),
    [
        ({}, {"check_claim": 1}),  # the answer's one sentence, cut in code
        ({"claim_extraction": "model"}, {"extract_claims": 1, "check_claim": 2}),
    ],
    ids=["sentences", "model"],
)
def test_faithfulness_only_calls_only_the_claim_steps(rag_item, settings, calls):
    rag_item["metrics"] = ["faithfulness"]
    result, model = run(rag_item, settings)
    assert calls_by_step(model) == calls
    assert list(result) == SEED_KEYS
    assert result["faithfulness"] == 1.0
    for name in ("context_relevance", "answer_relevance", "semantic_similarity"):
        assert result[name] is None
        assert result[f"{name}_explanation"] == "Not requested."
    assert result["evaluation_status"] == "success" and result["error"] is None


@pytest.mark.parametrize(
    ("metric", "settings", "calls", "expected"),
    [
        ("context_relevance", {}, {"judge_context_relevance": 1}, 1.0),
        ("answer_relevance", {}, {"judge_answer_relevance": 1}, 1.0),
        ("semantic_similarity", {}, {}, 1.0),  # embeddings: no model call
        ("semantic_similarity", {"embeddings": False}, {"judge_semantic_similarity": 1}, 1.0),
    ],
    ids=["context_relevance", "answer_relevance", "similarity-embeddings", "similarity-judge"],
)
def test_a_single_metric_makes_only_its_own_calls(rag_item, metric, settings, calls, expected):
    rag_item["metrics"] = [metric]
    result, model = run(rag_item, settings)
    assert calls_by_step(model) == calls
    assert result[metric] == expected
    others = [name for name in RAG_METRICS if name != metric]
    assert all(result[name] is None and result[f"{name}_explanation"] == "Not requested." for name in others)


def test_order_and_repeats_of_the_selection_do_not_matter(rag_item):
    rag_item["metrics"] = ["semantic_similarity", "faithfulness", "semantic_similarity"]
    result, model = run(rag_item, {"embeddings": False})
    assert list(result) == SEED_KEYS
    assert result["context_relevance_explanation"] == result["answer_relevance_explanation"] == "Not requested."
    assert model.count("judge_semantic_similarity") == 1
    assert result["faithfulness"] == 1.0 and result["semantic_similarity"] == 1.0


def test_a_failed_requested_metric_fails_the_evaluation_but_not_the_skipped_ones(rag_item):
    rag_item["metrics"] = ["context_relevance"]
    result, _ = run(rag_item, judge_context_relevance=RuntimeError("server down"))
    assert result["evaluation_status"] == "failed"
    assert result["error"].startswith("context_relevance:")
    assert "answer_relevance" not in result["error"]
    assert result["answer_relevance_explanation"] == "Not requested."


def test_a_missing_reference_still_wins_over_the_selection(rag_item):
    rag_item["metrics"] = ["semantic_similarity"]
    rag_item["reference"] = "  none "
    result, model = run(rag_item)
    assert model.calls == []
    assert result["semantic_similarity"] is None
    assert result["semantic_similarity_explanation"] == "No reference answer provided."


@pytest.mark.parametrize(
    ("metrics", "words"),
    [
        (["faithfulness", "fluency"], "'metrics.1'"),
        ([], "'metrics'"),
        ("faithfulness", "wrong type"),
        ([1], "'metrics.0'"),
    ],
)
def test_a_bad_selection_is_an_input_error_without_model_calls(rag_item, metrics, words):
    rag_item["metrics"] = metrics
    result, model = run(rag_item)
    assert model.calls == []
    assert result["evaluation_status"] == "failed"
    assert result["reason"].startswith("Input parsing error:")
    assert words in result["reason"]


def test_null_metrics_means_all(rag_item):
    rag_item["metrics"] = None
    result, _ = run(rag_item, {"embeddings": False})
    assert all(result[name] is not None for name in RAG_METRICS)
