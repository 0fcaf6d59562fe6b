"""`--dry-run`: estimates from the rendered prompts, with no model resolved or called."""

from __future__ import annotations

import json

import pytest

from judgegraph import llm
from judgegraph.commands import cli, judge_flags
import judgegraph.llm.models  # noqa: F401 - loads the submodule
from judgegraph.batch.dry_run import approx_tokens, estimate_item, estimated_claims
from judgegraph.prompts import render_messages
from tests.batch.test_batch_runner import rag_item, write_lines


@pytest.fixture(autouse=True)
def no_model(monkeypatch):
    """Any attempt to set up a judge fails the test."""
    def refuse(*args, **kwargs):
        raise AssertionError("the dry run resolved a model")

    monkeypatch.setattr(llm.models, "resolve_model", refuse)
    monkeypatch.setattr(llm.models, "default_model", refuse)
    monkeypatch.setattr(judge_flags, "context_from_flags", refuse)
    monkeypatch.setattr(judge_flags, "judge_from_flags", refuse)


def test_estimated_claims_are_the_answer_sentences():
    assert estimated_claims("Paris is big. It is old!  Really?") == ["Paris is big.", "It is old!", "Really?"]
    assert estimated_claims("no stop") == ["no stop"]
    assert len(estimated_claims(". ".join(["x"] * 30) + ".")) == 12


def test_a_rag_item_costs_one_check_per_sentence_and_two_judgments():
    """Claims are cut in code and similarity comes from embeddings: neither is a model call."""
    item = rag_item(answer="Paris is the capital. It is in France.")
    names, estimate = estimate_item(item, rubric=None, claim_check="per-claim")
    assert names == ["rag"]
    assert estimate.steps == {"ClaimCheck": 2, "ContextRelevanceJudgment": 1, "AnswerRelevanceJudgment": 1}
    assert estimate.calls == 4
    check = render_messages("check_claim", question=item["question"], lines=[item["context"]],
                            answer=item["answer"], claim="Paris is the capital.")
    floor = sum(approx_tokens(m.text) for m in check)
    assert estimate.input_tokens > 2 * floor  # two such checks, plus two judgments


def test_batch_claim_checking_is_one_call():
    _, estimate = estimate_item(rag_item(answer="A. B. C."), rubric=None, claim_check="batch")
    assert estimate.steps["BatchClaimChecks"] == 1 and "ClaimCheck" not in estimate.steps


def test_an_invalid_item_costs_nothing():
    _, estimate = estimate_item({"question": "", "answer": "x"}, rubric=None, claim_check="per-claim")
    assert estimate.calls == 0


def test_dry_run_cli_prints_estimates_and_touches_no_output(tmp_path, capsys):
    items = write_lines(tmp_path / "items.jsonl", [rag_item("a"), rag_item("b"), "{bad", rag_item("a")])
    out = tmp_path / "results.jsonl"
    out.write_text(json.dumps({"id": "b", "result": {}}) + "\n")
    assert cli.main(["evaluate", str(items), "--out", str(out), "--dry-run"]) == 0
    captured = capsys.readouterr()
    lines = [json.loads(line) for line in captured.out.splitlines()]
    assert [line["id"] for line in lines] == ["a"]  # b is done, line 3 is bad, the second a is a duplicate
    assert lines[0]["estimate"]["calls"] == 3 and lines[0]["rubric"] == "rag"
    assert "Dry run (estimate)" in captured.err and "estimate:" in captured.err
    assert out.read_text().count("\n") == 1  # untouched


def test_dry_run_of_a_single_item_file(tmp_path, capsys):
    item = tmp_path / "item.json"
    item.write_text(json.dumps(rag_item(), indent=2))
    assert cli.main(["evaluate", str(item), "--dry-run"]) == 0
    assert json.loads(capsys.readouterr().out)["estimate"]["calls"] == 3


@pytest.mark.parametrize(("flag", "step"), [("--claims=model", "ExtractedClaims"),
                                            ("--no-embeddings", "SimilarityJudgment")])
def test_dry_run_follows_the_judge_method_flags(tmp_path, capsys, flag, step):
    items = write_lines(tmp_path / "items.jsonl", [rag_item("a")])
    assert cli.main(["evaluate", str(items), "--dry-run", flag]) == 0
    estimate = json.loads(capsys.readouterr().out.splitlines()[0])["estimate"]
    assert estimate["steps"].get(step) == 1 and estimate["calls"] == 4
