"""How a claim's verdict is decided (`nodes.claims.verdict`, `nodes.claims.code_checks`): graded
probabilities, number conflicts found by code, grounding, criticality; and what faithfulness
makes of them, through the graph with scripted replies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgegraph.graph.api import evaluate, run_evaluation
from judgegraph.llm.structured import StepOutcome
from judgegraph.nodes.claims.code_checks import NumberConflict, asks_for_number, grounding, number_conflict
from judgegraph.calibration import default_profile
from judgegraph.nodes.claims.verdict import decide_claim, is_critical
from judgegraph.nodes.claims.evidence import Evidence
from judgegraph.schemas.claims import ClaimCheck
from tests.support import fakes
from tests.support.profiles import with_support
from tests.conftest import happy_scripts

ROOT = Path(__file__).resolve().parents[3]
SHOWCASE = json.loads((ROOT / "examples" / "rag_item.json").read_text(encoding="utf-8"))
DOCUMENTARY, FOUNDING = SHOWCASE["context"]

QUESTION = "Who founded Craigslist?"
LINES = [
    "Craigslist is a classified advertisements website founded in 1995 by Craig Newmark.",
    "24 Hours on Craigslist is a 2005 documentary about a single day of Craigslist posts.",
]
EVIDENCE = Evidence(LINES, [0.9, 0.1], True)
DEFAULT = default_profile().faithfulness_parameters
PRODUCT_PROFILE = with_support(default_profile(), "product")
"""The embedded judge's support rule (P(supported) x grounding) with the default's thresholds."""
PRODUCT = PRODUCT_PROFILE.faithfulness_parameters
CONFIDENT_CONTRADICTION = DEFAULT.contradiction_at


def decide(claim: str, reply: ClaimCheck | None, *, question: str = QUESTION, claims_in_answer: int = 2,
           token_logprobs=None, error: str | None = None, evidence: Evidence = EVIDENCE, parameters=DEFAULT):
    outcome = StepOutcome(reply, [], error, token_logprobs)
    return decide_claim(0, claim, outcome, evidence, question=question, passages=LINES,
                        claims_in_answer=claims_in_answer, parameters=parameters)


# --- number conflicts ---------------------------------------------------------------------------

def test_a_year_the_context_never_states_conflicts_with_the_evidence_lines_year():
    conflict = number_conflict("The documentary came out in 2007.", SHOWCASE["question"], " ".join(SHOWCASE["context"]),
                               [DOCUMENTARY])
    assert conflict == NumberConflict("2007", "2005", DOCUMENTARY)


@pytest.mark.parametrize(
    ("claim", "lines"),
    [
        ("Craigslist was founded in 1995.", LINES),                 # the context states 1995
        ("Craigslist has 3 founders.", [LINES[0]]),                 # a count against a year: other kinds
        ("Craig Newmark founded Craigslist.", LINES),               # no number at all
        ("The documentary came out in 2007.", ["A line without numbers."]),
    ],
)
def test_no_conflict(claim, lines):
    assert number_conflict(claim, QUESTION, " ".join(LINES), lines) is None


def test_a_line_about_something_else_is_no_rival():
    """A visitor count is unsupported by a line about height, not contradicted by its 200; a
    line that speaks of the same thing still is a rival, and a bare number keeps every line."""
    height = "It was the first structure in the world to surpass both the 200-metre and 300-metre mark in height."
    visitors = "About 6 million people visit the tower every year."
    claim = "About seven million people visit it every year."
    assert number_conflict(claim, "", height, [height]) is None
    assert number_conflict(claim, "", f"{height} {visitors}", [height, visitors]) == NumberConflict("7000000", "6000000", visitors)
    assert number_conflict("1890.", "", "It opened in 1889.", ["It opened in 1889."]) == NumberConflict("1890", "1889", "It opened in 1889.")


def test_numbers_given_by_the_question_are_its_subject_not_a_conflict():
    question = "What is 24 Hours on Craigslist about?"
    context = "24 Hours on Craigslist is a documentary about posts."
    assert number_conflict("48 Hours on Craigslist is about posts.", question, context, [context]) is None
    assert number_conflict("It lasts 90 minutes.", question, context + " It lasts 85 minutes.",
                           [context + " It lasts 85 minutes."]) == NumberConflict("90", "85", context + " It lasts 85 minutes.")


@pytest.mark.parametrize(
    ("question", "asks"),
    [("When was it released?", True), ("In what year was the documentary released?", True),
     ("How many founders are there?", True), ("Who founded Craigslist?", False)],
)
def test_questions_asking_for_a_number(question, asks):
    assert asks_for_number(question) is asks


# --- grounding and criticality -----------------------------------------------------------------

def test_grounding_is_the_share_of_the_claims_own_words_in_the_context():
    context = " ".join(LINES)
    assert grounding("Craig Newmark founded Craigslist.", QUESTION, context) == 1.0
    # own words: craig, newmark, pari(s), elon, musk -> 2 of 5 in the context
    assert grounding("Craig Newmark founded Craigslist in Paris with Elon Musk.", QUESTION, context) == 0.4
    assert grounding("Craigslist was founded.", QUESTION, context) == 1.0  # only the question's words


def test_critical_claims():
    assert is_critical("Anything at all.", QUESTION, 1)  # the only claim
    assert is_critical("Craig Newmark founded it.", QUESTION, 3)  # shares "founded" with the question
    assert not is_critical("The documentary is about posts.", QUESTION, 3)
    # generic words of a summary question do not make every claim critical
    assert not is_critical("The text is about posts.", "Summarize the text.", 3)


# --- decide_claim -------------------------------------------------------------------------------

def test_a_failed_check_has_no_verdict_and_keeps_the_error():
    checked = decide("Craig Newmark founded Craigslist.", None, error="no valid reply")
    assert checked.error == "no valid reply" and checked.verdict is None and checked.support == 0.0
    assert checked.effective_verdict == "check failed"


@pytest.mark.parametrize(
    ("verdict", "support"), [("supported", 1.0), ("contradicted", 0.0), ("not-in-context", 0.0)],
)
def test_without_logprobs_the_chosen_label_gets_probability_one(verdict, support):
    checked = decide("Craig Newmark founded Craigslist.", ClaimCheck(verdict=verdict, line=1))
    assert checked.verdict == checked.model_verdict == verdict
    assert checked.probabilities[verdict] == 1.0 and sum(checked.probabilities.values()) == 1.0
    assert checked.support == support and not checked.graded
    assert checked.evidence == LINES[0] and checked.evidence_found


def test_line_zero_falls_back_to_the_closest_line():
    checked = decide("Craig Newmark founded Craigslist.", ClaimCheck(verdict="supported", line=0))
    assert checked.evidence == LINES[0]  # closeness 0.9


def test_a_number_conflict_overrides_a_supported_verdict():
    """The rival number comes from the line closest to the claim (here the documentary's)."""
    documentary_closest = Evidence(LINES, [0.1, 0.9], True)
    checked = decide("The documentary came out in 2007.", ClaimCheck(verdict="supported", line=1),
                     evidence=documentary_closest)
    assert checked.model_verdict == "supported" and checked.verdict == "contradicted"
    assert checked.support == 0.0 and checked.conflict == "the claim says 2007, the context says 2005"
    assert checked.evidence == LINES[1]
    assert checked.effective_verdict == "contradicted (the claim says 2007, the context says 2005)"


def test_a_conflicting_number_is_critical_when_the_question_asks_for_it():
    claim = "The documentary came out in 2007."  # shares no word with either question
    assert not decide(claim, ClaimCheck(verdict="supported", line=2), question="Who made it?").critical
    assert decide(claim, ClaimCheck(verdict="supported", line=2), question="When did it air?").critical


def test_weak_grounding_scales_support_down_under_the_product_rule():
    claim = "Craig Newmark founded Craigslist in Paris with Elon Musk."
    checked = decide(claim, ClaimCheck(verdict="supported", line=1), parameters=PRODUCT)
    assert checked.grounding == 0.4
    assert checked.support == 0.4 and checked.verdict == "supported"
    assert not checked.counts_as_supported
    assert checked.effective_verdict == ("supported (lowered from the judge's 1.00 to 0.40 by the profile's grounding "
                                         "rule: only 40% of its words in the context; not found: pari, elon, musk)")


def test_the_default_profile_records_grounding_but_keeps_the_judges_verdict():
    claim = "Craig Newmark founded the classified site in the middle of the nineties."  # a rewording, no name added
    checked = decide(claim, ClaimCheck(verdict="supported", line=1))
    assert checked.grounding < 1.0 and checked.unstated_names == []
    assert checked.support == 1.0 and checked.counts_as_supported
    assert checked.effective_verdict == "supported"


def test_the_names_rule_overrides_a_supported_claim_naming_what_the_context_never_states():
    """Opt-in (`names_must_be_stated`): the default records the names and keeps the judge's verdict."""
    claim = "Craig Newmark founded Craigslist in Paris with Elon Musk."
    assert decide(claim, ClaimCheck(verdict="supported", line=1)).support == 1.0
    names = DEFAULT.model_copy(update={"names_must_be_stated": True})
    checked = decide(claim, ClaimCheck(verdict="supported", line=1), parameters=names)
    assert checked.unstated_names == ["Paris", "Elon", "Musk"] and checked.names_rule
    assert checked.support == 0.0 and checked.verdict == "not-in-context" and not checked.counts_as_supported
    assert checked.effective_verdict == ("not-in-context (it names Paris, Elon, Musk, which the context never states; "
                                         "the names rule sets the judge's P(supported) 1.00 to 0)")
    contradicted = decide(claim, ClaimCheck(verdict="contradicted", line=1), parameters=names)  # the judge's stands
    assert contradicted.verdict == "contradicted" and not contradicted.names_rule


def test_support_is_the_probability_of_support_times_grounding_under_the_product_rule():
    claim = "Craig Newmark founded Craigslist in San Jose."  # craig, newmark, san, jose: 2 of 4
    content = fakes.logprobs_content(fakes.verdict("supported", 1), "verdict", {"supported": 0.9, "not": 0.1})
    checked = decide(claim, ClaimCheck(verdict="supported", line=1), token_logprobs=content, parameters=PRODUCT)
    assert checked.grounding == 0.5
    assert checked.support == pytest.approx(0.9 * 0.5)
    fully_grounded = decide("Craig Newmark founded Craigslist.", ClaimCheck(verdict="supported", line=1),
                            token_logprobs=content, parameters=PRODUCT)
    assert fully_grounded.grounding == 1.0 and fully_grounded.support == pytest.approx(0.9)
    by_default = decide("Craig Newmark founded the classified site.", ClaimCheck(verdict="supported", line=1),
                        token_logprobs=content)
    assert by_default.grounding < 1.0 and by_default.support == pytest.approx(0.9)


def test_a_contradiction_counts_only_when_the_judge_is_confident():
    claim = "Craig Newmark founded Craigslist."
    unsure = fakes.logprobs_content(fakes.verdict("contradicted", 1), "verdict",
                                    {"contradicted": CONFIDENT_CONTRADICTION - 0.1, "supported": 0.25, "not": 0.15})
    checked = decide(claim, ClaimCheck(verdict="contradicted", line=1), token_logprobs=unsure)
    assert checked.model_verdict == "contradicted" and checked.verdict == "supported"
    sure = fakes.logprobs_content(fakes.verdict("contradicted", 1), "verdict",
                                  {"contradicted": CONFIDENT_CONTRADICTION + 0.1, "supported": 0.2})
    checked = decide(claim, ClaimCheck(verdict="contradicted", line=1), token_logprobs=sure)
    assert checked.verdict == "contradicted" and checked.support == pytest.approx(0.2)
    plain = decide(claim, ClaimCheck(verdict="contradicted", line=1))  # no logprobs: P = 1
    assert plain.verdict == "contradicted"


def test_graded_probabilities_from_logprobs():
    reply = fakes.graded_verdict({"supported": 0.7, "not-in-context": 0.3}, line=1)
    logprobs = reply.response_metadata["logprobs"]["content"]
    checked = decide("Craig Newmark founded Craigslist.", ClaimCheck(verdict="supported", line=1), token_logprobs=logprobs)
    assert checked.graded and checked.support == pytest.approx(0.7)
    assert checked.probabilities["not-in-context"] == pytest.approx(0.3)
    assert checked.effective_verdict == "supported (p_supported 0.70)"


def test_the_verdict_that_counts_is_the_most_likely_label():
    """The reply wrote "supported", but its own probabilities favour "not-in-context"."""
    content = fakes.logprobs_content(fakes.verdict("supported", 1), "verdict", {"supported": 0.4, "not": 0.6})
    checked = decide("Craig Newmark founded Craigslist.", ClaimCheck(verdict="supported", line=1), token_logprobs=content)
    assert checked.model_verdict == "supported" and checked.verdict == "not-in-context"
    assert checked.support == pytest.approx(0.4)


# --- through the graph ----------------------------------------------------------------------------

@pytest.mark.parametrize("line", [0, 1], ids=["no-line", "documentary-line"])
def test_showcase_wrong_year_scores_zero_even_when_the_judge_says_supported(line):
    """examples/rag_item.json: the answer says 2007, the context says 2005; the year is asked for."""
    model = fakes.judge(**happy_scripts(check_claim=fakes.verdict("supported", line)))
    run = run_evaluation(SHOWCASE, model=model)
    assert run.result["faithfulness"] == 0.0
    explanation = run.result["faithfulness_explanation"]
    assert "critical fact" in explanation and "2007" in explanation and "2005" in explanation
    assert "'The documentary came out in 2007.'" in explanation
    year = run.verdicts[1]
    assert year.model_verdict == "supported" and year.verdict == "contradicted" and year.critical
    assert run.verdicts[0].verdict == "supported" and run.verdicts[0].conflict is None


def test_showcase_conflict_names_the_documentarys_year_whatever_line_the_judge_picks():
    model = fakes.judge(**happy_scripts(check_claim=fakes.verdict("supported", 2)))
    run = run_evaluation(SHOWCASE, model=model)
    assert run.result["faithfulness"] == 0.0
    assert "the context says 2005" in run.result["faithfulness_explanation"]


def test_showcase_with_the_right_year_is_faithful():
    item = dict(SHOWCASE, answer="Craigslist was founded by Craig Newmark, and the documentary was released in 2005.")
    model = fakes.judge(**happy_scripts(check_claim=[fakes.verdict("supported", 2), fakes.verdict("supported", 1)]))
    assert evaluate(item, model=model)["faithfulness"] == 1.0


def test_graded_verdict_gives_a_graded_faithfulness(rag_item):
    model = fakes.judge(**happy_scripts(check_claim=fakes.graded_verdict({"supported": 0.8, "contradicted": 0.2}, 1)))
    run = run_evaluation(rag_item, model=model)
    assert run.result["faithfulness"] == 0.8
    assert run.result["faithfulness_explanation"] == ("Expected share of claims supported by the context: 0.80, "
                                                      "its one claim's P(supported).")
    verdict = run.verdicts[0]
    assert verdict.graded and verdict.support == pytest.approx(0.8)
    assert verdict.probabilities["contradicted"] == pytest.approx(0.2)


def test_graded_faithfulness_is_the_mean_support(rag_item):
    rag_item["answer"] = "Craig Newmark founded Craigslist; Craigslist is a classified advertisements website."
    model = fakes.judge(**happy_scripts(check_claim=[
        fakes.graded_verdict({"supported": 0.9, "not-in-context": 0.1}, 1),
        fakes.graded_verdict({"supported": 0.3, "not-in-context": 0.7}, 1),
    ]))
    result = evaluate(rag_item, model=model)
    assert result["faithfulness"] == 0.6
    assert result["faithfulness_explanation"].startswith(
        "Expected share of claims supported by the context: 0.60, the mean of the 2 claims' P(supported) (0.90, 0.30).")
    assert "(not-in-context (p_supported 0.30))" in result["faithfulness_explanation"]
    assert "1 of 2" not in result["faithfulness_explanation"]


def test_a_confident_contradiction_of_the_only_claim_scores_zero(rag_item):
    model = fakes.judge(**happy_scripts(check_claim=fakes.graded_verdict({"supported": 0.15, "contradicted": 0.85}, 1)))
    result = evaluate(rag_item, model=model)
    assert result["faithfulness"] == 0.0 and "critical fact" in result["faithfulness_explanation"]


def test_an_unsure_contradiction_of_the_only_claim_does_not_zero_the_score(rag_item):
    model = fakes.judge(**happy_scripts(check_claim=fakes.graded_verdict({"supported": 0.4, "contradicted": 0.6}, 1)))
    result = evaluate(rag_item, model=model)
    assert result["faithfulness"] == 0.4 and "critical fact" not in result["faithfulness_explanation"]


def test_a_claim_about_things_the_context_never_mentions_is_scaled_down_under_the_product_rule(rag_item):
    rag_item["answer"] = "Craig Newmark founded Craigslist in Paris with Elon Musk."
    result = evaluate(rag_item, model=fakes.judge(**happy_scripts()), calibration=PRODUCT_PROFILE)
    assert result["faithfulness"] == 0.4
    assert "lowered from the judge's 1.00 to 0.40 by the profile's grounding rule: only 40% of its words in the context" \
        in result["faithfulness_explanation"]


def test_logprobs_are_not_requested_from_non_openai_models(rag_item):
    model = fakes.judge(**happy_scripts())
    evaluate(rag_item, model=model)
    assert all("logprobs" not in kwargs and "top_logprobs" not in kwargs for _, _, kwargs in model.calls)


def test_logprobs_are_bound_for_openai_compatible_models():
    from langchain_openai import ChatOpenAI

    from judgegraph.llm.structured import _call_options
    from judgegraph.schemas.claims import ClaimCheck as Schema

    openai = ChatOpenAI(model="m", api_key="k", base_url="http://127.0.0.1:9/v1")
    assert _call_options(openai, Schema, "json_schema", 10)["top_logprobs"] == 10
    assert "logprobs" not in _call_options(openai, Schema, "json_schema", 0)
    assert "logprobs" not in _call_options(fakes.judge(), Schema, "json_schema", 10)


def test_unstated_names_are_read_in_order_and_bounded():
    """The names a claim states that the context never does, first ones first, at most
    `UNFOUND_SHOWN`: a hostile claim of a thousand names is read no further than that."""
    from judgegraph.nodes.claims.code_checks import UNFOUND_SHOWN, unstated_names

    assert unstated_names("Craig Newmark founded it in Paris in 1997.", QUESTION, LINES[0], "en") == ("Paris", "1997")
    assert unstated_names("Construction of the tower ended.", QUESTION, LINES[0], "en") == ()  # a sentence's first word
    many = "It was " + " and ".join(f"Zed{chr(97 + i % 26)}{chr(97 + i // 26 % 26)}q" for i in range(1000)) + "."
    found = unstated_names(many, QUESTION, LINES[0], "en")
    assert len(found) == UNFOUND_SHOWN and found[0] == "Zedaaq"
