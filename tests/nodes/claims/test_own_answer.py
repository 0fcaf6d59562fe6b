"""The second reading of a one-claim answer (`nodes/claims/second_reading.py`): the judge answers the
question from the context itself, and an agreeing answer makes the claim count as supported.
The embedded judge's profile reads it; the default profile does not (`second_look_below` 0), so
these tests run under the default's thresholds with the second reading on (`SECOND_LOOK`)."""

from __future__ import annotations

import pytest

from judgegraph.calibration import default_profile
from judgegraph.graph.api import run_evaluation
from judgegraph.llm.structured import StepOutcome
from judgegraph.nodes.claims.second_reading import second_reading, token_f1
from judgegraph.run.context import JudgeContext
from judgegraph.schemas.claims import CheckedClaim, OwnAnswer
from tests.support import fakes
from tests.support.profiles import with_second_look
from tests.conftest import happy_scripts

ONE_CLAIM = "Craig Newmark"
SECOND_LOOK_PROFILE = with_second_look(default_profile())
SECOND_LOOK = SECOND_LOOK_PROFILE.faithfulness_parameters


def _unsupported(**overrides) -> CheckedClaim:
    return CheckedClaim(index=0, claim=ONE_CLAIM, verdict="not-in-context", model_verdict="not-in-context",
                        support=0.1, probabilities={"supported": 0.1, "contradicted": 0.0, "not-in-context": 0.9},
                        **overrides)


@pytest.mark.parametrize(("prediction", "gold", "expected"), [
    ("The Beatles", "beatles", 1.0), ("I Love You, Man", "I love you man", 1.0),
    ("John Hamburg", "Larry Levin", 0.0), ("John Hamburg Jr", "John Hamburg", 0.8), ("", "", 1.0),
    ("the", "Paris", 0.0),
])
def test_token_f1_is_squads(prediction, gold, expected):
    assert token_f1(prediction, gold) == pytest.approx(expected)


def test_an_agreeing_own_answer_makes_the_claim_supported_with_its_f1():
    rescued = second_reading(_unsupported(), "Craig Newmark", StepOutcome(OwnAnswer(answer="craig newmark")), SECOND_LOOK)
    assert rescued.verdict == "supported" and rescued.support == 1.0 and rescued.counts_as_supported
    assert rescued.model_verdict == "not-in-context"  # what the check said stays on record
    assert "own answer from the context, 'craig newmark', agrees" in rescued.effective_verdict


def test_a_disagreeing_or_failed_own_answer_changes_nothing_that_counts():
    kept = second_reading(_unsupported(), "Craig Newmark", StepOutcome(OwnAnswer(answer="Jim Buckmaster")), SECOND_LOOK)
    assert kept.verdict == "not-in-context" and kept.support == 0.1 and not kept.counts_as_supported
    assert kept.own_answer == "Jim Buckmaster" and kept.own_answer_agreement == 0.0
    failed = second_reading(_unsupported(), "Craig Newmark", StepOutcome(None, [], "model call failed: boom"), SECOND_LOOK)
    assert failed == _unsupported()


def _run(answer: str, reply, verdict: str = "not-in-context", calibration=SECOND_LOOK_PROFILE, **context):
    rag = {"question": "Who founded Craigslist?", "context": [
        "Craigslist is a classified advertisements website founded in 1995 by Craig Newmark."],
        "answer": answer, "metrics": ["faithfulness"]}
    model = fakes.judge(**happy_scripts(check_claim=fakes.verdict(verdict, 1), answer_from_context=reply))
    run = run_evaluation(rag, model=JudgeContext(model=model, embeddings=False, calibration=calibration, **context))
    return run, model


def test_through_the_graph_a_rescued_one_claim_answer_scores_its_agreement_and_says_why():
    run, model = _run(ONE_CLAIM, {"answer": "Craig Newmark"})
    assert model.count("answer_from_context") == 1
    assert run.result["faithfulness"] == 1.0
    assert run.verdicts[0].own_answer_agreement == 1.0
    prompt = model.prompts_for("answer_from_context")[0]
    assert "[1] Craigslist is a classified" in prompt and "Who founded Craigslist?" in prompt
    assert ONE_CLAIM not in prompt.split("</context>")[1]  # the answer under test is not shown
    events = [e for e in run.trace if e.node == "answer_from_context"]
    assert len(events) == 1 and events[0].calls == 1 and events[0].detail["agreement"] == 1.0


def test_a_disagreeing_own_answer_leaves_the_score_to_the_check():
    run, model = _run(ONE_CLAIM, {"answer": "unknown"})
    assert model.count("answer_from_context") == 1
    assert run.result["faithfulness"] < 0.5 and "Not supported" in run.result["faithfulness_explanation"]


def test_no_second_reading_for_supported_claims_multi_claim_answers_or_when_switched_off():
    supported, model = _run(ONE_CLAIM, {"answer": "x"}, verdict="supported")
    assert model.count("answer_from_context") == 0 and supported.result["faithfulness"] > 0.5
    _, model = _run("Craig Newmark founded it. It was in 1995.", {"answer": "x"})
    assert model.count("answer_from_context") == 0
    off, model = _run(ONE_CLAIM, {"answer": "Craig Newmark"}, own_answer=False)
    assert model.count("answer_from_context") == 0 and off.result["faithfulness"] < 0.5


def test_the_default_profile_asks_for_no_second_reading():
    """A better judge's "not supported" stands: the own answer undid right verdicts (docs/calibration.md)."""
    run, model = _run(ONE_CLAIM, {"answer": "Craig Newmark"}, calibration=None)
    assert model.count("answer_from_context") == 0
    assert run.result["faithfulness"] == 0.0 and run.verdicts[0].own_answer is None


def test_a_number_conflict_found_in_code_is_never_rescued():
    run, model = _run("Craigslist was founded in 1997.", {"answer": "1997"}, verdict="supported")
    assert model.count("answer_from_context") == 0
    assert run.result["faithfulness"] == 0.0 and "1997" in run.result["faithfulness_explanation"]


def test_liverag_does_not_count_the_second_reading_it_asks_for_a_supporting_quote():
    from judgegraph.nodes.liverag.quote_faithfulness import _why_unsupported, supported_by_documents

    documents = ["Craigslist is a classified advertisements website founded in 1995 by Craig Newmark."]
    rescued = second_reading(_unsupported(evidence=documents[0], evidence_found=True), "Craig Newmark",
                             StepOutcome(OwnAnswer(answer="Craig Newmark")), SECOND_LOOK)
    assert rescued.counts_as_supported  # for the rag rubric
    assert not supported_by_documents(rescued, documents)  # not for liverag's quote rule
    assert _why_unsupported(rescued, documents) == "not-in-context (no supporting quote)"


def test_a_liverag_only_item_never_pays_for_a_second_reading():
    from tests.nodes.liverag.test_liverag import live_item, live_judge

    model = live_judge(check_claim=fakes.verdict("not-in-context", 1), answer_from_context={"answer": "Craig Newmark"})
    result = run_evaluation(live_item(answer="Craig Newmark."), model=JudgeContext(model=model, embeddings=False)).result
    assert model.count("check_claim") == 1 and model.count("answer_from_context") == 0
    assert "not in the documents" in str(result)
