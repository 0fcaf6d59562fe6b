"""A cited rag item end to end: where its citation metrics sit in the output, that they leave
the seed's 11 keys and the judge's calls exactly as they were, passages named by id, and
choosing the metrics with an item's `metrics`."""

from __future__ import annotations

import json

import pytest

from judgegraph.evaluators import create_evaluator
from judgegraph.graph import api
from judgegraph.graph import rubrics
from judgegraph.graph.api import evaluate, run_evaluation
from judgegraph.nodes.rag.metrics import DECLARED
from judgegraph.nodes.rag.rubric import rag_rubric
from judgegraph.schemas.rag import RagResult
from tests.conftest import happy_scripts
from tests.support import fakes

COMPILED_ONCE = api.default_graph
SEED_KEYS = list(RagResult.model_fields)
CITATION_KEYS = ["citation_recall", "citation_recall_explanation", "citation_precision",
                 "citation_precision_explanation", "citations"]

CONTEXT = [
    "Paris is the capital and largest city of France.",
    "The city of Paris has about 2.1 million inhabitants.",
    "Berlin lies on the river Spree.",
]
CITED = {
    "question": "How many people live in Paris, and what is it the capital of?",
    "answer": "Paris has about 2.1 million inhabitants [2]. It is the capital of France [1].",
    "context": CONTEXT,
}


def judge():
    return fakes.judge(**happy_scripts(check_claim=[fakes.verdict("supported", 2), fakes.verdict("supported", 1)]))


@pytest.fixture
def seed_metrics_only(monkeypatch):
    """The rag rubric as it was before citations: the seed's four metrics."""
    rubric = rag_rubric(tuple(m for m in DECLARED if m.applies is None))
    monkeypatch.setattr(rubrics, "RUBRICS", tuple(rubric if r.name == "rag" else r for r in rubrics.RUBRICS))
    COMPILED_ONCE.cache_clear()
    yield
    COMPILED_ONCE.cache_clear()


def test_a_cited_answer_gets_its_citation_metrics_after_the_seed_keys():
    result = evaluate(CITED, model=judge())
    assert list(result) == [*SEED_KEYS, *CITATION_KEYS]
    assert result["citation_recall"] == 1.0 and result["citation_precision"] == 1.0
    assert result["citation_recall_explanation"] == "2 of 2 sentences are supported by the passages they cite."
    sentences = result["citations"]["sentences"]
    assert [(s["sentence"], s["markers"], s["supported"]) for s in sentences] == [
        ("Paris has about 2.1 million inhabitants [2].", ["[2]"], True),
        ("It is the capital of France [1].", ["[1]"], True)]
    assert [c["claim"] for s in sentences for c in s["claims"]] == [
        "Paris has about 2.1 million inhabitants.", "It is the capital of France."]


def test_an_uncited_answer_keeps_exactly_the_seed_keys(rag_item):
    assert list(evaluate(rag_item, model=fakes.judge(**happy_scripts()))) == SEED_KEYS


def test_the_citations_change_neither_the_seed_keys_nor_the_calls_and_tokens(seed_metrics_only, monkeypatch):
    """The same cited item judged by the rag rubric without and with its citation metrics: the
    same 11 values, the same requests (step by step, prompt by prompt), calls and tokens."""
    before_judge = judge()
    before = run_evaluation(CITED, model=before_judge)
    assert "citation_recall" not in before.result
    monkeypatch.setattr(rubrics, "RUBRICS", tuple(rag_rubric() if r.name == "rag" else r for r in rubrics.RUBRICS))
    COMPILED_ONCE.cache_clear()
    after_judge = judge()
    after = run_evaluation(CITED, model=after_judge)
    assert "citation_recall" in after.result
    assert {key: after.result[key] for key in SEED_KEYS} == before.result
    assert [(step, prompt) for step, prompt, _ in after_judge.calls] == \
        [(step, prompt) for step, prompt, _ in before_judge.calls]
    cost = lambda run: (run.usage["calls"], run.usage["input_tokens"], run.usage["output_tokens"])  # noqa: E731
    assert cost(after) == cost(before) and cost(after)[0] == 4  # 2 claim checks, context and answer relevance


def test_a_cited_answer_makes_the_claim_checks_of_the_same_answer_without_markers():
    uncited = dict(CITED, answer="Paris has about 2.1 million inhabitants. It is the capital of France.")
    cited_judge, uncited_judge = judge(), judge()
    cited, plain = run_evaluation(CITED, model=cited_judge), run_evaluation(uncited, model=uncited_judge)
    claim_checks = lambda j: [p for s, p, _ in j.calls if s == "ClaimCheck"]  # noqa: E731
    assert claim_checks(cited_judge) == claim_checks(uncited_judge) and len(claim_checks(cited_judge)) == 2
    assert cited.usage["calls"] == plain.usage["calls"]
    assert cited.result["faithfulness"] == plain.result["faithfulness"] == 1.0
    # "[2]" is not the number 2: no number conflict with "2.1 million"
    assert [v.conflict for v in cited.verdicts] == [None, None]


def test_passages_with_ids_are_cited_by_id():
    item = dict(CITED, answer="Paris has about 2.1 million inhabitants [people]. It is the capital of France [capital].",
                context=[{"page_content": CONTEXT[0], "id": "capital"},
                         {"page_content": CONTEXT[1], "metadata": {"id": "people"}},
                         {"page_content": CONTEXT[2]}])
    result = evaluate(item, model=judge())
    citations = [c for s in result["citations"]["sentences"] for c in s["citations"]]
    assert [(c["written"], c["passage"], c["role"]) for c in citations] == [
        ("people", 2, "supports"), ("capital", 1, "supports")]
    assert result["citation_recall"] == 1.0


def test_an_item_reads_as_before_when_its_passages_carry_no_id(rag_item):
    from judgegraph.schemas.field_aliases import read_fields, RAG_FIELDS
    from judgegraph.schemas.rag import RagInput

    own = tuple(RagInput.model_fields)
    strings = read_fields(rag_item, RAG_FIELDS, own, ("context",))
    documents = read_fields(dict(rag_item, context=[{"page_content": p} for p in rag_item["context"]]),
                            RAG_FIELDS, own, ("context",))
    assert "context_ids" not in strings.item and strings.item == documents.item
    assert RagInput.model_validate(strings.item).passage_ids == [None] * len(rag_item["context"])


def test_an_item_may_ask_for_its_citation_metrics_or_leave_them_out(rag_item):
    asked = evaluate(dict(rag_item, metrics=["faithfulness", "citation_recall"]), model=fakes.judge(**happy_scripts()))
    assert list(asked) == [*SEED_KEYS, "citation_recall", "citation_recall_explanation", "citations"]
    assert asked["citation_recall"] == 0.0 and asked["context_relevance_explanation"] == "Not requested."
    assert len(asked["citations"]["uncited"]) == 1
    left_out = evaluate(dict(CITED, metrics=["faithfulness"]), model=judge())
    assert list(left_out) == SEED_KEYS


def test_the_evaluators_return_a_row_per_citation_metric():
    evaluator = create_evaluator("rag", model=judge())
    rows = evaluator(inputs={"question": CITED["question"], "context": CITED["context"]},
                     outputs={"answer": CITED["answer"]})
    by_key = {row["key"]: row for row in rows}
    assert list(by_key) == ["faithfulness", "context_relevance", "answer_relevance", "semantic_similarity",
                            "citation_recall", "citation_precision"]
    assert by_key["citation_recall"]["score"] == 1.0


def test_the_evaluators_read_passage_ids_from_documents():
    from langchain_core.documents import Document

    evaluator = create_evaluator("rag", model=judge())
    documents = [Document(page_content=CONTEXT[0], id="capital"), Document(page_content=CONTEXT[1], id="people"),
                 Document(page_content=CONTEXT[2])]
    rows = evaluator(inputs={"question": CITED["question"]},
                     outputs={"answer": "Paris has about 2.1 million inhabitants [people]. It is the capital of "
                                        "France [capital].", "source_documents": documents})
    assert {row["key"]: row["score"] for row in rows}["citation_recall"] == 1.0


def test_a_passage_id_is_read_from_every_shape_that_carries_one():
    from langchain_core.documents import Document

    from judgegraph.schemas.field_aliases import context_ids, passage_id

    assert [passage_id(p) for p in (
        "plain text", {"page_content": "a", "id": "d1"}, {"page_content": "a", "metadata": {"id": 7}},
        {"lc": 1, "type": "constructor", "kwargs": {"page_content": "a", "id": "k"}},
        Document(page_content="a", id="z"), Document(page_content="a", metadata={"id": "m"}),
        Document(page_content="a"), {"page_content": "a", "id": True}, {"page_content": "a", "id": " "},
    )] == [None, "d1", "7", "k", "z", "m", None, None, None]
    assert context_ids(["a", "b"]) is None and context_ids("a") is None
    assert context_ids(["a", {"page_content": "b", "id": "x"}]) == [None, "x"]


def test_the_cited_example_is_judged_through_the_command_line(capsys):
    """examples/cited_rag_item.json over HTTP with the demo judge: passages named by id and by
    number, a wrong number (code's number check) and an uncited sentence."""
    from pathlib import Path

    from judgegraph.commands.cli import main
    from tests.support.demo_judge import reply as demo_reply
    from tests.support.fault_server import FaultServer

    example = Path(__file__).resolve().parents[3] / "examples" / "cited_rag_item.json"
    with FaultServer(reply=demo_reply) as server:
        code = main(["evaluate", str(example), "--no-embeddings", "--trace", "--base-url", server.base_url,
                     "--model", "demo"])
    captured = capsys.readouterr()
    assert code == 0, captured.err[-2000:]
    result = json.loads(captured.out)
    assert list(result) == [*SEED_KEYS, *CITATION_KEYS]
    report = result["citations"]
    assert [s["markers"] for s in report["sentences"]] == [["[height]"], ["[1]"], ["[3]"], []]
    assert [s["sentence"] for s in report["uncited"]] == ["About seven million people visit it every year."]
    assert "Citations, sentence by sentence" in captured.err
