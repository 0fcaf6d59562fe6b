"""`judgegraph calibrate` refuses, in one line with exit 2 and no traceback, labels it cannot fit
(too few, one class, one group) before any judge call, and a fit that ignores the judge or is
worse on held-out folds than its start unless `--force`, which writes it with a warning
(`fitting.fit_checks`)."""

from __future__ import annotations

import pytest

from judgegraph.calibration.profile import load_profile
from judgegraph.commands.cli import main
from judgegraph.fitting.fit_checks import MIN_LABELS, fit_refusal, labels_refusal
from tests.support.calibration_items import labelled_rows, write_jsonl
from tests.support.calibration_items import fewer_resamples, scripted_resolution  # noqa: F401 - fixtures


def calibrate(tmp_path, rows, *extra: str) -> int:
    labels = write_jsonl(tmp_path / "labels.jsonl", rows)
    return main(["calibrate", str(labels), "--metric", "faithfulness", "-o", str(tmp_path / "p.json"), *extra])


@pytest.mark.parametrize("rows, why", [
    (labelled_rows(2), "needs at least"),
    ([row | {"human": 1} for row in labelled_rows(12)], "every label is 1"),
    ([row | {"human": int(i == 0)} for i, row in enumerate(labelled_rows(12))], "each class needs at least 2"),
    ([row | {"group": "one"} for row in labelled_rows(12)], "one group"),
])
def test_labels_it_cannot_fit_are_one_line_before_any_judge_call(tmp_path, capsys, scripted_resolution, rows, why):
    code = calibrate(tmp_path, rows)
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and why in err and "Traceback" not in err
    assert scripted_resolution.calls == [] and not (tmp_path / "p.json").exists()


def test_labels_that_carry_no_information_are_not_written_unless_forced(tmp_path, capsys, scripted_resolution):
    same = labelled_rows(2)[1]["answer"]
    rows = [row | {"answer": same, "human": i % 2} for i, row in enumerate(labelled_rows(12))]
    code = calibrate(tmp_path, rows)
    err = capsys.readouterr().err
    last = err.strip().splitlines()[-1]
    assert code == 2 and last.startswith("judgegraph: not writing") and "--force" in last
    assert not (tmp_path / "p.json").exists()
    code = calibrate(tmp_path, rows, "--force")
    err = " ".join(capsys.readouterr().err.split())
    assert code == 0 and "warning: --force" in err
    assert load_profile(tmp_path / "p.json").faithfulness.fit.n == 12


class Constant:
    kind = "logistic"
    coefficients = {"p_supported": 0.0}


def test_fit_refusal_names_a_constant_a_blind_and_a_worse_fit():
    figures = {"auroc": {"before": {"value": 0.8}, "after": {"value": 0.6}}}
    constant = type("P", (), {"support": Constant()})()
    assert "none of the judge's signals" in fit_refusal({}, "binary", constant, [1, 2], lambda i, p: i)
    assert "same score" in fit_refusal({}, "binary", object(), [1, 2, 3], lambda i, p: 0.5)
    assert "worse" in fit_refusal(figures, "binary", object(), [1, 2], lambda i, p: i)
    better = {"auroc": {"before": {"value": 0.6}, "after": {"value": 0.8}}}
    assert fit_refusal(better, "binary", object(), [1, 2], lambda i, p: i) is None


def test_labels_refusal_needs_two_per_fold_and_the_minimum():
    assert labels_refusal([0, 1] * (MIN_LABELS // 2), "binary", None, 2) is None
    assert "needs at least 20" in labels_refusal([0, 1] * 6, "binary", None, 10)
