"""The seed's own faithfulness rules hold under every profile: the default, each shipped profile,
and each of them with the other grounding rule ("words" / "meaning").

Why: a profile changes how signals become a claim's support (its support model, thresholds and
grounding); it must never change what the rag seed decides by rule: a contradicted critical
claim (judged, or a number the context states otherwise) gives 0.0, an empty context gives 0.0
unless the answer says it cannot answer (1.0), and a pure refusal with context is faithful.
"""

from __future__ import annotations

import pytest

from judgegraph.calibration.profile import Profile, default_profile, shipped_profiles
from judgegraph.graph.api import evaluate
from tests.conftest import happy_scripts
from tests.support import fakes
from tests.support.profiles import with_grounding


def _every_profile() -> list[Profile]:
    other = {"words": "meaning", "meaning": "words"}
    variants = []
    for profile in (default_profile(), *shipped_profiles()):
        flipped = other[profile.faithfulness_parameters.grounding]
        variants += [profile, with_grounding(profile, flipped, f"{profile.id}+{flipped}")]
    return variants


PROFILES = _every_profile()


@pytest.fixture(params=PROFILES, ids=[p.id for p in PROFILES])
def judged_under(request):
    def run(item: dict, **scripts):
        model = fakes.judge(**happy_scripts(**scripts))
        return evaluate(item, model=model, calibration=request.param, allow_profile_mismatch=True), model
    return run


def test_every_shipped_profile_and_both_groundings_are_covered():
    groundings = {p.faithfulness_parameters.grounding for p in PROFILES}
    assert groundings == {"words", "meaning"} and len(PROFILES) >= 4


def test_a_contradicted_critical_claim_gives_zero(rag_item, judged_under):
    result, _ = judged_under(rag_item, check_claim=fakes.verdict("contradicted", 1))
    assert result["faithfulness"] == 0.0 and "critical fact" in result["faithfulness_explanation"]


def test_a_number_the_context_states_otherwise_gives_zero_whatever_the_judge_says(rag_item, judged_under):
    rag_item["answer"] = "Craig Newmark founded Craigslist in 1997."
    result, _ = judged_under(rag_item, check_claim=fakes.verdict("supported", 1))
    assert result["faithfulness"] == 0.0 and "1997" in result["faithfulness_explanation"]


def test_an_empty_context_gives_zero_without_a_claim_check(rag_item, judged_under):
    rag_item["context"] = []
    result, model = judged_under(rag_item)
    assert result["faithfulness"] == 0.0 and model.count("check_claim") == 0


def test_an_empty_context_and_an_answer_that_cannot_answer_gives_one(rag_item, judged_under):
    rag_item["context"] = ""
    rag_item["answer"] = "I cannot answer from the provided context: it is empty."
    result, model = judged_under(rag_item)
    assert result["faithfulness"] == 1.0 and model.count("check_claim") == 0


def test_a_pure_refusal_with_context_is_faithful(rag_item, judged_under):
    rag_item["answer"] = "I cannot answer that: the context does not mention who founded it."
    result, model = judged_under(rag_item)
    assert result["faithfulness"] == 1.0 and "declines" in result["faithfulness_explanation"]
    assert model.count("check_claim") == 0
