"""`assert_judged` on its own: what passes, what fails and with which message, and the gates
it refuses to build (an unknown metric, a threshold that every score or no score meets)."""

from __future__ import annotations

import pytest

from judgegraph.testing import ThresholdNotMet, assert_judged
from judgegraph.testing.session import JudgeSession, activate
from judgegraph.testing.settings import JudgeSettings
from tests.support import demo_judge
from tests.support.fault_server import FaultServer

CONTEXT = [
    "Craigslist is a classified advertisements website founded in 1995 by Craig Newmark.",
    "24 Hours on Craigslist is a 2005 documentary about a single day of Craigslist posts.",
]
GROUNDED = {"question": "Who founded Craigslist?", "context": CONTEXT,
            "answer": "Craigslist was founded in 1995 by Craig Newmark."}


def use_judge(server: FaultServer) -> JudgeSession:
    session = JudgeSession(JudgeSettings(model="demo", base_url=server.base_url))
    activate(session)
    return session


@pytest.fixture
def demo():
    with FaultServer(reply=demo_judge.reply) as server:
        yield server
    activate(None)


@pytest.fixture
def prose_judge():
    """A judge that answers every step in prose: no step validates, every metric is null."""
    with FaultServer(fault_rate=1.0, fault_modes=("prose",)) as server:
        yield server
    activate(None)


def test_a_grounded_answer_passes_and_the_run_is_returned(demo):
    session = use_judge(demo)
    run = assert_judged(GROUNDED, faithfulness=0.8, answer_relevance=0.7)
    assert run.result["faithfulness"] == 1.0
    assert [(label, o.metric, o.passed) for label, o in session.outcomes] == [
        ("item 1", "faithfulness", True), ("item 1", "answer_relevance", True)]
    assert session.costs[0].calls == demo.requests > 0


def test_an_unknown_metric_is_refused_before_anything_is_judged(demo):
    use_judge(demo)
    with pytest.raises(ValueError, match=r"no rubric has a metric named 'faithfullness'; the metrics are .*faithfulness"):
        assert_judged(GROUNDED, faithfullness=0.8)
    with pytest.raises(ValueError, match="at least one metric=threshold"):
        assert_judged(GROUNDED)
    with pytest.raises(TypeError, match="finite number"):
        assert_judged(GROUNDED, faithfulness=float("nan"))
    assert demo.requests == 0


@pytest.mark.parametrize(("threshold", "says"), [(0, "is met by every score; give one above 0"),
                                                 (-0.5, "is met by every score"), (1.01, "is met by no score")])
def test_a_threshold_that_decides_nothing_is_refused(demo, threshold, says):
    use_judge(demo)
    with pytest.raises(ValueError, match=f"threshold of {threshold:g} for faithfulness \\(scale 0..1\\) {says}"):
        assert_judged(GROUNDED, faithfulness=threshold)


def test_a_metric_of_another_rubric_is_refused_naming_the_rubrics_own(demo):
    use_judge(demo)
    with pytest.raises(ValueError, match=r"judged with the rag rubric, which has no metric 'coverage' "
                                         r"\(its metrics: faithfulness, context_relevance"):
        assert_judged(GROUNDED, coverage=3)


def test_a_score_below_its_threshold_fails_naming_metric_threshold_score_and_claims(demo):
    use_judge(demo)
    wrong_year = {"question": "When did the documentary come out?", "context": CONTEXT,
                  "answer": "The documentary came out in 2007.", "id": "year"}
    with pytest.raises(ThresholdNotMet) as failure:
        assert_judged(wrong_year, faithfulness=0.8, answer_relevance=0.7)
    message = str(failure.value)
    assert message.startswith("judgegraph: 1 of 2 metric(s) below threshold for year\n")
    assert "faithfulness: 0.00 < threshold 0.8: FAILED\n  The answer contradicts the context" in message
    assert ("    - 'The documentary came out in 2007.': contradicted (the claim says 2007, the context says 2005); "
            "closest context: '24 Hours on Craigslist is a 2005 documentary") in message
    assert "answer_relevance: 1.00 >= threshold 0.7: passed" in message
    assert isinstance(failure.value, AssertionError)


def test_a_null_metric_fails_with_its_reason_and_never_passes(prose_judge):
    session = use_judge(prose_judge)
    with pytest.raises(ThresholdNotMet) as failure:
        assert_judged(GROUNDED, faithfulness=0.1)
    message = str(failure.value)
    assert "faithfulness: null (not judged), threshold 0.1: FAILED" in message
    assert "claim check failed: no valid reply after 3 attempt(s)" in message  # the metric's own reason
    assert session.unavailable is None  # the judge answered (in prose): a failed test, not a dead judge


def test_a_metric_that_does_not_apply_fails_with_its_reason(demo):
    use_judge(demo)
    with pytest.raises(ThresholdNotMet, match=r"semantic_similarity: null \(does not apply to this item\), "
                                              r"threshold 0.5: FAILED\n  .*reference"):
        assert_judged(GROUNDED, semantic_similarity=0.5)  # no reference to compare with
