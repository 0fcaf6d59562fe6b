"""Calibration profiles and `judgegraph calibrate` (`calibration/`, `commands/calibrate.py`):
signals recorded apart from decisions, scores recomputed from signals with no judge call, the
default profile reproducing the hand-set rules, refusals (changed signals, another judge), a
monotone k-fold fit on item labels, and the profile applied by evaluate, batch and evaluators.
Every judge here is scripted (`tests.support.fakes`)."""

from __future__ import annotations

import ast
import io
import json
import shutil
import subprocess
from pathlib import Path
import re

import pytest
from rich.console import Console

from judgegraph.batch.item_judging import run_details
from judgegraph.calibration import ProfileError, ProfileMismatchError, check_judge, default_profile, load_profile, profile_for
from judgegraph.calibration.claim_decisions import ClaimSignals, decide, wants_second_look
from judgegraph.calibration.profile import LogisticSupport, Profile, parse_profile, write_profile
from judgegraph.calibration.signal_hash import signal_hash
from judgegraph.commands.cli import main
from judgegraph.console.steps import StepProgress
from judgegraph.declarations.scoring import round_half_up
from judgegraph.fitting.faithfulness import fit_faithfulness, fit_support
from judgegraph.fitting.labels import LabelsError, label_kind, label_value, read_labels
from judgegraph.fitting.recompute import faithfulness_score, recorded_faithfulness
from judgegraph.graph.api import run_evaluation
from judgegraph.llm import models
from judgegraph.llm.openai_compatible import ResolvedModel
from judgegraph.run.context import JudgeContext
from tests.support import fakes
from tests.support.profiles import with_grounding

DEFAULT = default_profile().faithfulness_parameters
CONTEXT = ["Craigslist is a classified advertisements website founded in 1995 by Craig Newmark.",
           "Its tags are alpha and omega."]
QUESTION = "Who founded Craigslist?"
GOOD, BAD = "alpha", "omega"
"""A claim carrying `alpha` gets P(supported) 0.85 from the scripted judge, one carrying
`omega` 0.35: the judge's probability is what tells faithful items apart in the data below."""


def _claim_of(prompt: str) -> str:
    return re.findall(r"<claim>(.*?)</claim>", prompt, re.S)[-1]


def _graded_check(prompt: str):
    p = 0.85 if GOOD in _claim_of(prompt) else 0.35
    reply = fakes.verdict("supported" if p > 0.5 else "not-in-context", 1)
    return fakes.with_logprobs(reply, "verdict", {"supported": p, "not": 1 - p})


def scripted_judge():
    return fakes.judge(check_claim=_graded_check, answer_from_context={"answer": "unknown"},
                       judge_context_relevance=fakes.context_relevance("yes", [1]),
                       judge_answer_relevance=fakes.answer_relevance())


def labelled_rows(n: int = 40) -> list[dict]:
    """Faithful items (alpha) are half paraphrases whose words the context lacks (grounding
    low: the default product calls them unsupported); unfaithful ones (omega) are worded as the
    context is. The judge's P(supported) separates them; the default's product does not."""
    rows = []
    for i in range(n):
        faithful = i % 2 == 0
        if faithful:
            answer = (f"Newmark started that listings venture {GOOD}." if i % 4 == 0
                      else f"Craig Newmark founded Craigslist {GOOD}.")
        else:
            answer = f"Craig Newmark founded Craigslist in 1995 {BAD}."
        rows.append({"id": f"item-{i}", "question": QUESTION, "context": CONTEXT, "answer": answer,
                     "human": {"hallucination": "no" if faithful else "yes"}})
    return rows


def _write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def fewer_resamples(monkeypatch):
    """200 bootstrap resamples instead of 1000: the intervals' code is the same, the suite faster."""
    monkeypatch.setattr("judgegraph.fitting.cross_validation.BOOTSTRAP_RESAMPLES", 200)


@pytest.fixture
def scripted_resolution(monkeypatch):
    """`resolve_model` (what --model & co. reach) returns a scripted judge named scripted:a."""
    judge = scripted_judge()
    monkeypatch.setattr(models, "resolve_model",
                        lambda *a, **k: ResolvedModel(judge, "scripted:a", "json_schema"))
    return judge


# --- the decision layer -----------------------------------------------------------------------

@pytest.mark.parametrize(("probabilities", "grounding", "verdict", "support"), [
    ({"supported": 0.8, "contradicted": 0.1, "not-in-context": 0.1}, 0.5, "supported", 0.4),
    ({"supported": 0.2, "contradicted": 0.65, "not-in-context": 0.15}, 1.0, "supported", 0.2),
    ({"supported": 0.1, "contradicted": 0.75, "not-in-context": 0.15}, 1.0, "contradicted", 0.1),
])
def test_the_default_profile_reproduces_the_hand_set_rules(probabilities, grounding, verdict, support):
    decision = decide(ClaimSignals(probabilities, grounding), DEFAULT)
    assert decision.verdict == verdict and decision.support == pytest.approx(support)
    assert decision.supported == (support >= 0.5)


def test_a_number_conflict_and_an_agreeing_own_answer_are_decided_by_the_profile():
    conflict = decide(ClaimSignals({"supported": 1.0}, 1.0, number_conflict=True), DEFAULT)
    assert (conflict.verdict, conflict.support) == ("contradicted", 0.0)
    rescued = decide(ClaimSignals({"not-in-context": 1.0}, 1.0, own_answer_agreement=0.6), DEFAULT)
    assert rescued.own_answer_agrees and rescued.support == 0.6 and rescued.verdict == "supported"
    stricter = DEFAULT.model_copy(update={"own_answer_agrees_at": 0.7})
    assert not decide(ClaimSignals({"not-in-context": 1.0}, 1.0, own_answer_agreement=0.6), stricter).own_answer_agrees


def test_no_hand_set_constant_is_left_in_the_node_code():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    for name in ("nodes/claims/verdict.py", "nodes/claims/second_reading.py", "nodes/rag/answer_relevance.py"):
        text = (root / name).read_text(encoding="utf-8")
        assert not re.search(r"CONFIDENT_CONTRADICTION|SUPPORTED_AT|OWN_ANSWER_AGREES|DIRECTNESS_FACTOR\s*=", text), name


# --- profiles: loading and refusals -------------------------------------------------------------

def _fitted_profile(judge_model: str | None = "scripted:a", **support) -> Profile:
    model = LogisticSupport(intercept=-3.0, coefficients={"p_supported": 6.0, **support})
    section = {"parameters": DEFAULT.model_copy(update={"support": model}).model_dump(),
               "signal_hash": signal_hash("faithfulness")}
    return parse_profile({"id": "fitted-test", "judge_model": judge_model, "faithfulness": section})


def test_a_profile_whose_signals_changed_is_refused_with_one_line(tmp_path):
    data = _fitted_profile().model_dump(mode="json")
    data["faithfulness"]["signal_hash"] = "0123456789abcdef"
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ProfileError, match=r"signals that have changed since .*refit it") as caught:
        load_profile(path)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(("text", "message"), [
    ("{not json", "cannot parse profile"),
    ('{"id": "x", "faithfulness": {"parameters": {"contradiction_at": 2}}}', "is not a judgegraph profile"),
    ('{"id": "x", "surprise": 1}', "surprise"),
])
def test_a_broken_profile_file_is_one_clear_error(tmp_path, text, message):
    path = tmp_path / "p.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ProfileError, match=message):
        load_profile(path)


def test_a_profile_for_another_judge_is_refused_unless_allowed():
    profile = _fitted_profile("openai:gpt-4o-mini")
    with pytest.raises(ProfileMismatchError, match="fitted for judge openai:gpt-4o-mini, not scripted:a"):
        check_judge(profile, "scripted:a")
    check_judge(profile, "scripted:a", allow_mismatch=True)
    check_judge(_fitted_profile(None), "scripted:a")  # fitted for any judge


def test_the_cli_refuses_a_mismatched_profile_in_one_line_and_applies_it_when_allowed(
        tmp_path, capsys, scripted_resolution):
    profile = tmp_path / "other.json"
    write_profile(_fitted_profile("openai:gpt-4o-mini"), profile)
    item = tmp_path / "item.json"
    item.write_text(json.dumps({"question": QUESTION, "context": CONTEXT, "answer": f"Craig Newmark {GOOD}.",
                                "metrics": ["faithfulness"]}), encoding="utf-8")
    assert main(["evaluate", str(item), "--calibration", str(profile)]) == 2
    err = capsys.readouterr().err
    assert "--allow-profile-mismatch" in err and len(err.strip().splitlines()) == 1
    trace = tmp_path / "trace.json"
    assert main(["evaluate", str(item), "--calibration", str(profile), "--allow-profile-mismatch",
                 "--trace-out", str(trace)]) == 0
    assert json.loads(trace.read_text())["profile"] == "fitted-test"


# --- recomputation from recorded signals ----------------------------------------------------------

@pytest.mark.parametrize("answer", [
    f"Craig Newmark founded Craigslist {GOOD}.",
    f"Newmark started that listings venture {GOOD}. Craig Newmark founded Craigslist in 1995 {BAD}.",
    "Craig Newmark founded Craigslist in 2001.",
])
@pytest.mark.parametrize("profile", [None, "fitted"])
def test_a_score_recomputed_from_recorded_signals_equals_the_live_one(answer, profile):
    chosen = _fitted_profile(None) if profile else None
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
        "signal_hash": signal_hash("faithfulness")}})
    item = {"question": QUESTION, "context": CONTEXT, "answer": answer, "metrics": ["faithfulness"]}
    scores = {}
    for name, profile in (("default", None), ("wider", wider)):
        judge = fakes.judge(check_claim=_graded_check, answer_from_context={"answer": answer})
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
                                                         calibration=_fitted_profile()))
    assert default_run.result["faithfulness"] < 0.5 < fitted_run.result["faithfulness"]
    assert (default_run.trace_json()["profile"], fitted_run.trace_json()["profile"]) == ("default", "fitted-test")


def test_evaluators_apply_a_profile_file_and_name_it(tmp_path):
    from judgegraph.evaluators import create_rag_evaluator

    path = tmp_path / "p.json"
    write_profile(_fitted_profile("ScriptedJudge"), path)
    evaluator = create_rag_evaluator(model=scripted_judge(), metrics=["faithfulness"], calibration=str(path))
    rows = evaluator(inputs={"question": QUESTION}, outputs={"answer": f"Newmark started that listings venture {GOOD}.",
                                                             "context": CONTEXT})
    assert rows[0]["metadata"]["calibration_profile"] == "fitted-test" and rows[0]["score"] > 0.5
    with pytest.raises(ProfileError):
        create_rag_evaluator(model=scripted_judge(), calibration=str(tmp_path / "missing.json"))


# --- labels -------------------------------------------------------------------------------------

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
    path = _write_jsonl(tmp_path / "l.jsonl", [{"question": "q", "answer": "a", "human": 1},
                                                {"question": "q", "answer": "a"}])
    with pytest.raises(LabelsError, match="line 2: no usable label"):
        read_labels(path, "faithfulness")


def test_a_wider_second_look_band_raises_an_unsure_supported_claim_whose_own_answer_agrees():
    unsure = ClaimSignals({"supported": 0.65, "contradicted": 0.2, "not-in-context": 0.15}, 1.0,
                          own_answer_agreement=1.0)
    # the default's band stops at supported_at: a recorded own answer for a claim that already
    # counts is ignored, exactly as a live run, which would not have asked
    assert decide(unsure, DEFAULT).support == pytest.approx(0.65)
    assert not wants_second_look(unsure, DEFAULT)
    wider = DEFAULT.model_copy(update={"second_look_below": 0.9})
    assert wants_second_look(unsure, wider)
    raised = decide(unsure, wider)
    assert raised.support == 1.0 and raised.supported and raised.own_answer_agrees
    # an own answer that agrees less than the first reading never lowers it
    lower = ClaimSignals({"supported": 0.65}, 1.0, own_answer_agreement=0.55)
    assert decide(lower, wider).support == pytest.approx(0.65)
    # above the band, no second look
    sure = ClaimSignals({"supported": 0.95}, 1.0, own_answer_agreement=0.0)
    assert not wants_second_look(sure, wider) and decide(sure, wider).support == pytest.approx(0.95)


# --- fitting ------------------------------------------------------------------------------------

def _recorded(p_supported: float, grounding: float) -> object:
    claim = {"index": 0, "claim": "c", "probabilities": {"supported": p_supported, "contradicted": 0.0,
                                                          "not-in-context": 1 - p_supported},
             "grounding": grounding, "evidence": "e", "evidence_found": True, "critical": True}
    return recorded_faithfulness({"id": "x", "details": {"item": {"context": CONTEXT},
                                                         "claims": {"claims": ["c"]}, "verdicts": [claim]}})


def test_the_fit_is_monotone_a_signal_that_points_the_wrong_way_is_dropped():
    # labels that *fall* with the judge's P(supported) (and rise with grounding): a wrong-way
    # coefficient for P(supported) must not be learnt
    items = [_recorded(p, g) for p, g in [(0.9, 0.1), (0.8, 0.2), (0.85, 0.0), (0.7, 0.1),
                                          (0.2, 0.9), (0.1, 1.0), (0.3, 0.8), (0.25, 0.95)] * 2]
    labels = [0.0] * 4 + [1.0] * 4
    fitted = fit_support(items, labels * 2, DEFAULT)
    assert fitted.support.coefficients.get("p_supported", 0.0) >= 0
    assert fitted.support.coefficients["grounding"] > 0


def _recorded_with_own_answer(p_supported: float, agreement: float) -> object:
    item = _recorded(p_supported, 1.0)
    item.claims[0]["own_answer_agreement"] = agreement
    return item


def test_the_fit_keeps_the_start_rule_unless_a_logistic_agrees_better_on_held_out_inner_folds():
    # the product already separates these items: a fit cannot do better, so the start's rule stays
    items = [_recorded(p, 1.0) for p in (0.8, 0.85, 0.9, 0.95, 0.1, 0.15, 0.2, 0.3)] * 2
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


# --- judgegraph calibrate, end to end -------------------------------------------------------------

def test_calibrate_judges_fits_prints_before_after_and_a_learning_curve_then_writes_the_profile(
        tmp_path, capsys, scripted_resolution):
    labels = _write_jsonl(tmp_path / "labels.jsonl", labelled_rows(60))
    out = tmp_path / "profile.json"
    assert main(["calibrate", str(labels), "--metric", "faithfulness", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "Held-out agreement" in err and "Learning curve" in err and "balanced_accuracy" in err
    profile = load_profile(out)
    fit = profile.faithfulness.fit
    assert profile.judge_model == "scripted:a" and fit.n == 60 and fit.label_kind == "binary"
    assert profile.faithfulness.signal_hash == signal_hash("faithfulness")
    auroc = fit.figures["auroc"]
    assert auroc["after"]["value"] > auroc["before"]["value"] + 0.2
    assert auroc["after"]["interval"][0] <= auroc["after"]["value"] <= auroc["after"]["interval"][1]
    assert [point["labels"] for point in fit.learning_curve] == [25, "all"]  # 48 training labels per fold
    calls = len(scripted_resolution.calls)
    assert main(["calibrate", str(labels), "--metric", "faithfulness", "-o", str(out)]) == 0
    assert len(scripted_resolution.calls) == calls  # resumed: a refit asks the judge nothing
    assert load_profile(out) == profile


def test_a_refit_of_fully_judged_labels_needs_no_judge_at_all(tmp_path, capsys, monkeypatch, scripted_resolution):
    labels = _write_jsonl(tmp_path / "labels.jsonl", labelled_rows(40))
    out = tmp_path / "profile.json"
    assert main(["calibrate", str(labels), "--metric", "faithfulness", "-o", str(out)]) == 0
    profile = load_profile(out)

    def no_judge(*args, **kwargs):
        raise AssertionError("the judge was started for a refit")

    monkeypatch.setattr(models, "resolve_model", no_judge)
    capsys.readouterr()
    assert main(["calibrate", str(labels), "--metric", "faithfulness", "-o", str(out)]) == 0
    assert "without calling a judge" in " ".join(capsys.readouterr().err.split())
    assert load_profile(out) == profile and profile.judge_model == "scripted:a"
    # two more labelled items: the judge is needed again, and only they are judged
    _write_jsonl(labels, labelled_rows(42))
    with pytest.raises(AssertionError, match="judge was started"):
        main(["calibrate", str(labels), "--metric", "faithfulness", "-o", str(out)])
    monkeypatch.setattr(models, "resolve_model", lambda *a, **k: ResolvedModel(scripted_resolution, "scripted:a", "json_schema"))
    assert main(["calibrate", str(labels), "--metric", "faithfulness", "-o", str(out)]) == 0
    judged_ids = [json.loads(line)["id"] for line in (tmp_path / "profile.judged.jsonl").read_text().splitlines()]
    assert sorted(judged_ids) == sorted(f"item-{i}" for i in range(42))  # each judged once


def _start_profile(tmp_path, grounding: str):
    """The default profile with another grounding rule, under an id of its own, as a file."""
    profile = with_grounding(default_profile(), grounding, f"start-{grounding}")
    path = tmp_path / f"start-{grounding}.json"
    write_profile(profile, path)
    return path


def test_calibrate_from_a_start_profile_judges_under_its_rules_and_keeps_them(tmp_path, capsys, scripted_resolution):
    labels = _write_jsonl(tmp_path / "labels.jsonl", labelled_rows(40))
    start = _start_profile(tmp_path, "meaning")
    out = tmp_path / "profile.json"
    assert main(["calibrate", str(labels), "--metric", "faithfulness", "-o", str(out), "--start", str(start)]) == 0
    fitted = load_profile(out)
    assert fitted.faithfulness_parameters.grounding == "meaning"
    assert "start-meaning" in fitted.description
    assert fitted.context_relevance == load_profile(start).context_relevance
    records = [json.loads(line) for line in (tmp_path / "profile.judged.jsonl").read_text().splitlines()]
    # the items were judged under the start's rule: each claim's grounding is the meaning value
    assert {r["provenance"]["profile_id"] for r in records} == {"start-meaning"}
    verdicts = [v for r in records for v in r["details"]["verdicts"]]
    # meaning counts the words the context lacks by closeness: never below the words found
    assert verdicts and all(v["grounding"] >= v["lemma_share"] for v in verdicts)
    assert any(v["grounding"] > v["lexical_share"] for v in verdicts)


def test_a_start_profile_that_cannot_be_read_is_one_line_and_no_judge_call(tmp_path, capsys, scripted_resolution):
    labels = _write_jsonl(tmp_path / "labels.jsonl", labelled_rows(8))
    code = main(["calibrate", str(labels), "--metric", "faithfulness", "-o", str(tmp_path / "p.json"),
                 "--start", str(tmp_path / "missing.json")])
    err = capsys.readouterr().err
    assert code == 2 and "missing.json" in err and len(err.strip().splitlines()) == 1
    assert scripted_resolution.calls == []


def test_calibrate_tells_each_step_of_the_fit_on_stderr(tmp_path, capsys, scripted_resolution):
    labels = _write_jsonl(tmp_path / "labels.jsonl", labelled_rows(40))
    assert main(["calibrate", str(labels), "--metric", "faithfulness", "-o", str(tmp_path / "profile.json")]) == 0
    steps = re.findall(r"^judgegraph: calibrate: (.+) \((\d)/(\d)\)$", capsys.readouterr().err, re.MULTILINE)
    assert [step for step, _, _ in steps] == [
        "5-fold cross-validation of the fit on 40 labels",
        "bootstrap intervals of the held-out figures (200 resamples)",
        "learning curve: fits on 25 training labels per fold",
        "learning curve: intervals of the held-out figure",
        "fitting the profile on all 40 labels",
    ]  # not a terminal: one plain line per step
    assert [(int(n), int(total)) for _, n, total in steps] == [(i, 5) for i in range(1, 6)]


def test_on_a_terminal_the_steps_are_one_progress_bar_naming_the_current_step():
    out = io.StringIO()
    with StepProgress(Console(file=out, force_terminal=True, width=100), "calibrate", 2) as progress:
        progress.step("cross-validation")
        progress.step("bootstrap [intervals]")
    shown = out.getvalue()
    assert "calibrate" in shown and "bootstrap [intervals]" in shown and "2/2" in shown
    assert "judgegraph: calibrate:" not in shown


def test_a_calibrated_profile_is_applied_by_evaluate_and_by_the_batch(tmp_path, capsys, scripted_resolution):
    labels = _write_jsonl(tmp_path / "labels.jsonl", labelled_rows(40))
    out = tmp_path / "profile.json"
    assert main(["calibrate", str(labels), "--metric", "faithfulness", "-o", str(out)]) == 0
    profile_id = load_profile(out).id
    items = _write_jsonl(tmp_path / "items.jsonl", [{k: v for k, v in row.items() if k != "human"}
                                                    | {"metrics": ["faithfulness"]} for row in labelled_rows(8)])
    before, after = tmp_path / "before.jsonl", tmp_path / "after.jsonl"
    capsys.readouterr()
    assert main(["evaluate", str(items), "--out", str(before)]) == 0
    assert main(["evaluate", str(items), "--out", str(after), "--calibration", str(out), "--details"]) == 0
    assert f"calibration profile {profile_id}" in " ".join(capsys.readouterr().err.split())
    scores = [{json.loads(line)["id"]: json.loads(line)["result"]["faithfulness"] for line in path.read_text().splitlines()}
              for path in (before, after)]
    paraphrases = [f"item-{i}" for i in range(8) if i % 4 == 0]  # faithful, worded unlike the context
    assert all(scores[0][i] < 0.5 < scores[1][i] for i in paraphrases)
    assert all(json.loads(line)["details"]["profile"] == profile_id for line in after.read_text().splitlines())


def test_calibrate_reports_unusable_labels_in_one_line(tmp_path, capsys, scripted_resolution):
    labels = _write_jsonl(tmp_path / "labels.jsonl", [{"question": "q", "answer": "a", "human": "maybe"}] * 3)
    assert main(["calibrate", str(labels), "--metric", "faithfulness", "-o", str(tmp_path / "p.json")]) == 2
    assert "line 1: no usable label" in capsys.readouterr().err
    assert not (tmp_path / "p.json").exists()


def test_the_html_report_names_the_profile_that_scored_each_item(tmp_path, scripted_resolution):
    from judgegraph.report import write_report

    items = _write_jsonl(tmp_path / "items.jsonl", [{k: v for k, v in row.items() if k != "human"}
                                                    | {"metrics": ["faithfulness"]} for row in labelled_rows(2)])
    out, html = tmp_path / "out.jsonl", tmp_path / "report.html"
    assert main(["evaluate", str(items), "--out", str(out), "--details"]) == 0
    write_report(out, html)
    assert html.read_text(encoding="utf-8").count("calibration profile <code>default</code>") == 2


def test_bench_rows_become_a_labels_file_calibrate_reads(tmp_path):
    from benchmarks.calibration_labels import main as write_labels

    folder = tmp_path / "faithbench"
    folder.mkdir()
    rows = [{"id": f"fb:{i}", "question": None, "context": "Some source text.", "answer": "A summary.",
             "reference": None, "human": {"binary_faithful": i % 2}, "meta": {}} for i in range(12)]
    _write_jsonl(folder / "sample.jsonl", rows)
    out = tmp_path / "labels.jsonl"
    assert write_labels(["faithbench", "--part", "tune", "--data-root", str(tmp_path), "-o", str(out)]) == 0
    labels = read_labels(out, "faithfulness")
    assert labels.kind == "binary" and 0 < len(labels.items) < 12  # the tune part only
    assert all(entry.item["question"] and entry.item["metrics"] == ["faithfulness"] for entry in labels.items)


def test_the_embedded_judge_gets_its_shipped_profile_and_other_judges_the_default():
    embedded = profile_for(JudgeContext(model=scripted_judge(), model_id="local:qwen2.5-coder-1.5b-instruct-q4_k_m"))
    assert embedded.id == "embedded-halueval" and embedded.faithfulness.fit is not None
    assert embedded.faithfulness.signal_hash == signal_hash("faithfulness")  # refitted after every signal change
    parameters = embedded.faithfulness_parameters
    assert parameters.second_look_band_top > parameters.supported_at  # the fitted band
    other = profile_for(JudgeContext(model=scripted_judge(), model_id="openai:gpt-4o-mini"))
    assert other.id == "default" and other.faithfulness_parameters.second_look_band_top == other.faithfulness_parameters.supported_at


def test_the_signal_hash_ignores_empty_syntax_fields_that_python_versions_add_or_drop():
    """3.12 adds an empty `type_params` to every function and 3.13 leaves empty fields out of
    `ast.dump`; the hash's dump must be the same whichever way an empty field is present."""
    from judgegraph.calibration.signal_hash import stable_dump

    with_fields = ast.parse("@cache\ndef f(x):\n    return [x]\n")
    without_empty = ast.parse("@cache\ndef f(x):\n    return [x]\n")
    function = without_empty.body[0]
    del function.returns  # None in 3.11's tree, absent in others
    function.args.posonlyargs = []
    del function.args.kwonlyargs
    assert stable_dump(with_fields) == stable_dump(without_empty)
    assert stable_dump(ast.parse("def f(x):\n    return [x]\n")) != stable_dump(with_fields)  # code still counts


@pytest.mark.parametrize("version", ["3.12", "3.13"])
def test_the_signal_hash_is_the_same_on_other_pythons(version):
    """The shipped profile's hash must hold on every Python the package supports."""
    candidates = [shutil.which(f"python{version}"),
                  *sorted(str(p) for p in Path.home().glob(f".pyenv/versions/{version}.*/bin/python"))]
    runnable = [c for c in candidates if c and subprocess.run([c, "-c", "pass"], capture_output=True).returncode == 0]
    if not runnable:
        pytest.skip(f"no python{version} on this machine")
    interpreter = runnable[0]
    script = ("import importlib.util, json, sys\n"
              "spec = importlib.util.spec_from_file_location('h', sys.argv[1])\n"
              "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
              "print(json.dumps({k: m.signal_hash(k) for k in m.SIGNAL_SOURCES}))\n")
    import judgegraph.calibration.signal_hash as module
    done = subprocess.run([interpreter, "-c", script, module.__file__], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {metric: signal_hash(metric) for metric in module.SIGNAL_SOURCES}


def test_a_stale_shipped_profile_is_skipped_with_a_warning_and_the_default_still_scores(tmp_path, monkeypatch):
    import judgegraph.calibration.profile as profile_module

    shutil.copy(profile_module.SHIPPED_DIR / "default.json", tmp_path / "default.json")
    stale = json.loads((profile_module.SHIPPED_DIR / "embedded_halueval.json").read_text(encoding="utf-8"))
    stale["faithfulness"]["signal_hash"] = "0123456789abcdef"
    (tmp_path / "embedded_halueval.json").write_text(json.dumps(stale), encoding="utf-8")
    monkeypatch.setattr(profile_module, "SHIPPED_DIR", tmp_path)
    profile_module.shipped_profiles.cache_clear()
    try:
        with pytest.warns(RuntimeWarning, match="embedded_halueval.json.*default profile"):
            chosen = profile_for(JudgeContext(model=scripted_judge(), model_id=stale["judge_model"]))
        assert chosen.id == "default"
    finally:
        profile_module.shipped_profiles.cache_clear()
