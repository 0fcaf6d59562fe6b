"""Fitting faithfulness (`fitting/`): scores recomputed from recorded signals equal the live
ones with no judge call, labels files read in every format, and the monotone fit of
P(supported) with its inner-fold choice against the start rule. Every judge here is scripted
(`tests.support.fakes`)."""

from __future__ import annotations

import json

import pytest

from judgegraph.batch.item_judging import run_details
from judgegraph.calibration import default_profile
from judgegraph.calibration.profile import parse_profile
from judgegraph.calibration.calibrated_metrics import calibrated_metric
from judgegraph.declarations.scoring import round_half_up
from judgegraph.fitting.faithfulness import fit_faithfulness, fit_support
from judgegraph.fitting.labels import LabelsError, label_kind, label_value, read_labels
from judgegraph.fitting.recompute import faithfulness_score, recorded_faithfulness
from judgegraph.graph.api import run_evaluation
from judgegraph.run.context import JudgeContext
from tests.support import fakes
from tests.support.calibration_items import (
    BAD,
    CONTEXT,
    DEFAULT,
    GOOD,
    QUESTION,
    fitted_profile,
    graded_check,
    recorded_claim_item,
    scripted_judge,
    write_jsonl,
)
from tests.support.calibration_items import fewer_resamples  # noqa: F401 - fixtures


@pytest.mark.parametrize("answer", [
    f"Craig Newmark founded Craigslist {GOOD}.",
    f"Newmark started that listings venture {GOOD}. Craig Newmark founded Craigslist in 1995 {BAD}.",
    "Craig Newmark founded Craigslist in 2001.",
])
@pytest.mark.parametrize("profile", [None, "fitted"])
def test_a_score_recomputed_from_recorded_signals_equals_the_live_one(answer, profile):
    chosen = fitted_profile(None) if profile else None
    judge = scripted_judge()
    item = {"question": QUESTION, "context": CONTEXT, "answer": answer, "metrics": ["faithfulness"]}
    run = run_evaluation(item, model=JudgeContext(model=judge, model_id="scripted:a", calibration=chosen,
                                                  record_all_signals=True))
    calls = len(judge.calls)
    recorded = recorded_faithfulness({"id": "x", "details": json.loads(json.dumps(run_details(item, run)))})
    parameters = (chosen or default_profile()).faithfulness_parameters
    assert round_half_up(faithfulness_score(recorded, parameters), 2) == run.result["faithfulness"]
    assert len(judge.calls) == calls  # no judge call
    assert run.profile_id == (chosen.id if chosen else "default")


def test_a_wider_band_asks_the_own_answer_live_for_an_unsure_claim_and_the_recompute_agrees():
    answer = f"Craig Newmark founded Craigslist {GOOD}."  # P(supported) 0.85: counts, but unsure
    wider = parse_profile({"id": "band-test", "faithfulness": {
        "parameters": DEFAULT.model_copy(update={"second_look_below": 0.9}).model_dump(),
        "signal_hash": calibrated_metric("faithfulness").signal_hash}})
    item = {"question": QUESTION, "context": CONTEXT, "answer": answer, "metrics": ["faithfulness"]}
    scores = {}
    for name, profile in (("default", None), ("wider", wider)):
        judge = fakes.judge(check_claim=graded_check, answer_from_context={"answer": answer})
        run = run_evaluation(item, model=JudgeContext(model=judge, model_id="scripted:a", calibration=profile))
        scores[name] = (run.result["faithfulness"], judge.count("answer_from_context"))
        recorded = recorded_faithfulness({"id": "x", "details": json.loads(json.dumps(run_details(item, run)))})
        parameters = (profile or default_profile()).faithfulness_parameters
        assert round_half_up(faithfulness_score(recorded, parameters), 2) == run.result["faithfulness"]
    assert scores["default"][1] == 0 and scores["default"][0] < 0.9  # no call spent on a counted claim
    assert scores["wider"] == (1.0, 1)  # one call spent in the band, and the agreeing answer counts


def test_a_fitted_profile_changes_the_score_and_the_run_says_which_profile_scored():
    item = {"question": QUESTION, "context": CONTEXT, "answer": f"Newmark started that listings venture {GOOD}.",
            "metrics": ["faithfulness"]}
    default_run = run_evaluation(item, model=JudgeContext(model=scripted_judge(), model_id="scripted:a"))
    fitted_run = run_evaluation(item, model=JudgeContext(model=scripted_judge(), model_id="scripted:a",
                                                         calibration=fitted_profile()))
    # the default takes the judge's P(supported) 0.85 as it is; the fit maps it to sigmoid(-3 + 6 x 0.85)
    assert (default_run.result["faithfulness"], fitted_run.result["faithfulness"]) == (0.85, 0.89)
    assert (default_run.trace_json()["profile"], fitted_run.trace_json()["profile"]) == ("default", "fitted-test")


@pytest.mark.parametrize(("human", "value"), [
    (True, 1.0), (0, 0.0), ({"hallucination": "yes"}, 0.0), ({"hallucination": "no"}, 1.0),
    ({"binary_faithful": 1}, 1.0), ({"relevant": 0}, 0.0), ({"score_0_1": 0.27}, 0.27), (4, 4.0),
    ({"something": "else"}, None), ("maybe", None),
])
def test_label_formats(human, value):
    assert label_value(human) == value


def test_label_kinds_are_inferred():
    assert (label_kind([0, 1, 1]), label_kind([1, 3, 5, 2]), label_kind([0.2, 0.9])) == ("binary", "ordinal", "graded")


def test_a_labels_line_without_a_label_stops_with_its_line_number(tmp_path):
    path = write_jsonl(tmp_path / "l.jsonl", [{"question": "q", "answer": "a", "human": 1},
                                                {"question": "q", "answer": "a"}])
    with pytest.raises(LabelsError, match="line 2: no usable label"):
        read_labels(path, "faithfulness")


def test_the_fit_is_monotone_a_signal_that_points_the_wrong_way_is_dropped():
    # labels that *fall* with the judge's P(supported) (and rise with grounding): a wrong-way
    # coefficient for P(supported) must not be learnt
    items = [recorded_claim_item(p, g) for p, g in [(0.9, 0.1), (0.8, 0.2), (0.85, 0.0), (0.7, 0.1),
                                          (0.2, 0.9), (0.1, 1.0), (0.3, 0.8), (0.25, 0.95)] * 2]
    labels = [0.0] * 4 + [1.0] * 4
    fitted = fit_support(items, labels * 2, DEFAULT)
    assert fitted.support.coefficients.get("p_supported", 0.0) >= 0
    assert fitted.support.coefficients["grounding"] > 0


def _recorded_with_own_answer(p_supported: float, agreement: float) -> object:
    item = recorded_claim_item(p_supported, 1.0)
    item.claims[0]["own_answer_agreement"] = agreement
    return item


def test_the_fit_keeps_the_start_rule_unless_a_logistic_agrees_better_on_held_out_inner_folds():
    # the product already separates these items: a fit cannot do better, so the start's rule stays
    items = [recorded_claim_item(p, 1.0) for p in (0.8, 0.85, 0.9, 0.95, 0.1, 0.15, 0.2, 0.3)] * 2
    labels = ([1.0] * 4 + [0.0] * 4) * 2
    assert fit_faithfulness(items, labels, "binary", DEFAULT).support == DEFAULT.support


def test_an_own_answer_that_tells_unsure_claims_apart_lifts_the_faithful_ones_to_one():
    # unsure claims (P 0.6-0.7) either way; what tells them apart is the judge's own answer,
    # which the default reads only below supported_at: the fit makes it count for them
    faithful = [_recorded_with_own_answer(p, 1.0) for p in (0.6, 0.62, 0.65, 0.7, 0.95, 0.97)]
    unfaithful = [_recorded_with_own_answer(p, 0.0) for p in (0.6, 0.63, 0.66, 0.1, 0.15, 0.2)]
    items, labels = (faithful + unfaithful) * 2, ([1.0] * 6 + [0.0] * 6) * 2
    fitted = fit_faithfulness(items, labels, "binary", DEFAULT)
    assert [faithfulness_score(item, DEFAULT) for item in faithful[:4]] == pytest.approx([0.6, 0.62, 0.65, 0.7])
    assert all(faithfulness_score(item, fitted) == 1.0 for item in faithful)
    assert all(faithfulness_score(item, fitted) < 0.7 for item in unfaithful)
