"""`judgegraph calibrate` end to end (`commands/calibrate.py`): it judges the labelled items,
fits, prints before/after and a learning curve, writes the profile, refits recorded items with
no judge call, starts from a given profile, and `evaluate` applies what it wrote. Every judge
here is scripted (`tests.support.fakes`)."""

from __future__ import annotations

import json
import re

import pytest

from judgegraph.calibration import default_profile, load_profile
from judgegraph.calibration.profile import write_profile
from judgegraph.calibration.calibrated_metrics import calibrated_metric
from judgegraph.commands.cli import main
from judgegraph.llm import models
from judgegraph.llm.openai_compatible import ResolvedModel
from tests.support.calibration_items import (
    CONTEXT,
    GOOD,
    QUESTION,
    fitted_profile,
    labelled_rows,
    write_jsonl,
)
from tests.support.calibration_items import scripted_resolution, fewer_resamples  # noqa: F401 - fixtures
from tests.support.profiles import with_grounding


def test_the_cli_refuses_a_mismatched_profile_in_one_line_and_applies_it_when_allowed(
        tmp_path, capsys, scripted_resolution):
    profile = tmp_path / "other.json"
    write_profile(fitted_profile("openai:gpt-4o-mini"), profile)
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


def product_start(tmp_path) -> str:
    """A start profile with the product rule (P(supported) x grounding, as the embedded judge's
    profile decides), which the labelled rows' paraphrases defeat and a fit corrects; the
    default takes the judge's P as it is and has little left to fit on these rows."""
    from judgegraph.calibration.profile import SHIPPED_DIR

    profile = json.loads((SHIPPED_DIR / "default.json").read_text(encoding="utf-8"))
    profile["id"] = "product-start"
    profile["faithfulness"]["parameters"]["support"] = {"kind": "product"}
    path = tmp_path / "product-start.json"
    path.write_text(json.dumps(profile), encoding="utf-8")
    return str(path)


def test_calibrate_judges_fits_prints_before_after_and_a_learning_curve_then_writes_the_profile(
        tmp_path, capsys, scripted_resolution):
    labels = write_jsonl(tmp_path / "labels.jsonl", labelled_rows(60))
    out = tmp_path / "profile.json"
    assert main(["calibrate", str(labels), "--metric", "faithfulness", "-o", str(out),
                 "--start", product_start(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert "Held-out agreement" in err and "Learning curve" in err and "balanced_accuracy" in err
    profile = load_profile(out)
    fit = profile.faithfulness.fit
    assert profile.judge_model == "scripted:a" and fit.n == 60 and fit.label_kind == "binary"
    assert profile.faithfulness.signal_hash == calibrated_metric("faithfulness").signal_hash
    auroc = fit.figures["auroc"]
    assert auroc["after"]["value"] > auroc["before"]["value"] + 0.2
    assert auroc["after"]["interval"][0] <= auroc["after"]["value"] <= auroc["after"]["interval"][1]
    assert [point["labels"] for point in fit.learning_curve] == [25, "all"]  # 48 training labels per fold
    calls = len(scripted_resolution.calls)
    assert main(["calibrate", str(labels), "--metric", "faithfulness", "-o", str(out),
                 "--start", product_start(tmp_path)]) == 0
    assert len(scripted_resolution.calls) == calls  # resumed: a refit asks the judge nothing
    assert load_profile(out) == profile


def test_a_refit_of_fully_judged_labels_needs_no_judge_at_all(tmp_path, capsys, monkeypatch, scripted_resolution):
    labels = write_jsonl(tmp_path / "labels.jsonl", labelled_rows(40))
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
    write_jsonl(labels, labelled_rows(42))
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
    labels = write_jsonl(tmp_path / "labels.jsonl", labelled_rows(40))
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
    labels = write_jsonl(tmp_path / "labels.jsonl", labelled_rows(8))
    code = main(["calibrate", str(labels), "--metric", "faithfulness", "-o", str(tmp_path / "p.json"),
                 "--start", str(tmp_path / "missing.json")])
    err = capsys.readouterr().err
    assert code == 2 and "missing.json" in err and len(err.strip().splitlines()) == 1
    assert scripted_resolution.calls == []


def test_calibrate_tells_each_step_of_the_fit_on_stderr(tmp_path, capsys, scripted_resolution):
    labels = write_jsonl(tmp_path / "labels.jsonl", labelled_rows(40))
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


def test_a_calibrated_profile_is_applied_by_evaluate_and_by_the_batch(tmp_path, capsys, scripted_resolution):
    labels = write_jsonl(tmp_path / "labels.jsonl", labelled_rows(40))
    out = tmp_path / "profile.json"
    start = product_start(tmp_path)
    assert main(["calibrate", str(labels), "--metric", "faithfulness", "-o", str(out), "--start", start]) == 0
    profile_id = load_profile(out).id
    items = write_jsonl(tmp_path / "items.jsonl", [{k: v for k, v in row.items() if k != "human"}
                                                    | {"metrics": ["faithfulness"]} for row in labelled_rows(8)])
    before, after = tmp_path / "before.jsonl", tmp_path / "after.jsonl"
    capsys.readouterr()
    assert main(["evaluate", str(items), "--out", str(before), "--calibration", start, "--allow-profile-mismatch"]) == 0
    assert main(["evaluate", str(items), "--out", str(after), "--calibration", str(out), "--details"]) == 0
    assert f"calibration profile {profile_id}" in " ".join(capsys.readouterr().err.split())
    scores = [{json.loads(line)["id"]: json.loads(line)["result"]["faithfulness"] for line in path.read_text().splitlines()}
              for path in (before, after)]
    paraphrases = [f"item-{i}" for i in range(8) if i % 4 == 0]  # faithful, worded unlike the context
    assert all(scores[0][i] < 0.5 < scores[1][i] for i in paraphrases)
    assert all(json.loads(line)["details"]["profile"] == profile_id for line in after.read_text().splitlines())


def test_calibrate_reports_unusable_labels_in_one_line(tmp_path, capsys, scripted_resolution):
    labels = write_jsonl(tmp_path / "labels.jsonl", [{"question": "q", "answer": "a", "human": "maybe"}] * 3)
    assert main(["calibrate", str(labels), "--metric", "faithfulness", "-o", str(tmp_path / "p.json")]) == 2
    assert "line 1: no usable label" in capsys.readouterr().err
    assert not (tmp_path / "p.json").exists()
