"""Calibration profiles (`calibration/`): the default profile reproducing the hand-set rules,
the claim decision under a profile, and the refusals when a profile does not fit the running
code or judge (changed signals, another judge, a broken file, a stale shipped profile).
Every judge here is scripted (`tests.support.fakes`)."""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from judgegraph.calibration import ProfileError, ProfileMismatchError, check_judge, load_profile, profile_for
from judgegraph.calibration.claim_decisions import ClaimSignals, decide, wants_second_look
from judgegraph.calibration.calibrated_metrics import calibrated_metric
from judgegraph.calibration.sections import FaithfulnessParameters, ProductSupport
from judgegraph.run.context import JudgeContext
from tests.support.calibration_items import DEFAULT, fitted_profile, scripted_judge


@pytest.mark.parametrize(("probabilities", "grounding", "verdict", "support"), [
    ({"supported": 0.8, "contradicted": 0.1, "not-in-context": 0.1}, 0.5, "supported", 0.8),  # grounding recorded, not applied
    ({"supported": 0.2, "contradicted": 0.65, "not-in-context": 0.15}, 1.0, "supported", 0.2),
    ({"supported": 0.1, "contradicted": 0.75, "not-in-context": 0.15}, 1.0, "contradicted", 0.1),
])
def test_the_default_profile_takes_the_judges_probabilities_as_they_are(probabilities, grounding, verdict, support):
    decision = decide(ClaimSignals(probabilities, grounding), DEFAULT)
    assert decision.verdict == verdict and decision.support == pytest.approx(support)
    assert decision.supported == (support >= 0.5)


def test_the_product_rule_scales_the_judges_probability_by_grounding():
    """The embedded judge's rule, and that of any profile naming no support rule."""
    product = DEFAULT.model_copy(update={"support": ProductSupport()})
    decision = decide(ClaimSignals({"supported": 0.8, "contradicted": 0.1, "not-in-context": 0.1}, 0.5), product)
    assert decision.support == pytest.approx(0.4) and not decision.supported
    assert FaithfulnessParameters(contradiction_at=0.7, supported_at=0.5, own_answer_agrees_at=0.5).support == ProductSupport()


def test_the_number_rule_can_be_turned_off_to_measure_it():
    signals = ClaimSignals({"supported": 1.0}, 1.0, number_conflict=True)
    assert decide(signals, DEFAULT).verdict == "contradicted"
    off = decide(signals, DEFAULT.model_copy(update={"numbers_contradict": False}))
    assert (off.verdict, off.support, off.supported) == ("supported", 1.0, True)


def test_a_number_conflict_and_an_agreeing_own_answer_are_decided_by_the_profile():
    conflict = decide(ClaimSignals({"supported": 1.0}, 1.0, number_conflict=True), DEFAULT)
    assert (conflict.verdict, conflict.support) == ("contradicted", 0.0)
    second_look = DEFAULT.model_copy(update={"second_look_below": None})  # the band up to supported_at
    rescued = decide(ClaimSignals({"not-in-context": 1.0}, 1.0, own_answer_agreement=0.6), second_look)
    assert rescued.own_answer_agrees and rescued.support == 0.6 and rescued.verdict == "supported"
    # the default asks no second reading, so a recorded own answer changes nothing under it
    assert not decide(ClaimSignals({"not-in-context": 1.0}, 1.0, own_answer_agreement=0.6), DEFAULT).own_answer_agrees
    stricter = second_look.model_copy(update={"own_answer_agrees_at": 0.7})
    assert not decide(ClaimSignals({"not-in-context": 1.0}, 1.0, own_answer_agreement=0.6), stricter).own_answer_agrees


def test_no_hand_set_constant_is_left_in_the_node_code():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    for name in ("nodes/claims/verdict.py", "nodes/claims/second_reading.py", "nodes/rag/answer_relevance.py"):
        text = (root / name).read_text(encoding="utf-8")
        assert not re.search(r"CONFIDENT_CONTRADICTION|SUPPORTED_AT|OWN_ANSWER_AGREES|DIRECTNESS_FACTOR\s*=", text), name


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


def test_a_profile_whose_signals_changed_is_refused_with_one_line(tmp_path):
    data = fitted_profile().model_dump(mode="json")
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
    profile = fitted_profile("openai:gpt-4o-mini")
    with pytest.raises(ProfileMismatchError, match="fitted for judge openai:gpt-4o-mini, not scripted:a"):
        check_judge(profile, "scripted:a")
    check_judge(profile, "scripted:a", allow_mismatch=True)
    check_judge(fitted_profile(None), "scripted:a")  # fitted for any judge


def test_the_embedded_judge_gets_its_shipped_profile_and_other_judges_the_default():
    embedded = profile_for(JudgeContext(model=scripted_judge(), model_id="local:qwen2.5-coder-1.5b-instruct-q4_k_m"))
    assert embedded.id == "embedded-halueval" and embedded.faithfulness.fit is not None
    assert embedded.faithfulness.signal_hash == calibrated_metric("faithfulness").signal_hash  # refitted after every signal change
    parameters = embedded.faithfulness_parameters
    assert parameters.second_look_band_top > parameters.supported_at  # the fitted band
    other = profile_for(JudgeContext(model=scripted_judge(), model_id="openai:gpt-4o-mini"))
    assert other.id == "default" and other.faithfulness_parameters.second_look_band_top == 0.0  # no second reading


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
              "sources = json.loads(sys.argv[2])\n"
              "print(json.dumps({k: m.signal_hash(k, tuple(s)) for k, s in sources.items()}))\n")
    import judgegraph.calibration.signal_hash as module
    from judgegraph.calibration.calibrated_metrics import CALIBRATED
    sources = json.dumps({metric.key: metric.signal_sources for metric in CALIBRATED})
    done = subprocess.run([interpreter, "-c", script, module.__file__, sources], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {metric.key: metric.signal_hash for metric in CALIBRATED}


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
