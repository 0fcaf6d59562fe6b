"""Issue 55's corners, through the CLI: a few labels all alike, an interval that reached past
the scale, a batch labelled whole, `--target-width`, and `compare`'s gate on ten paired labels
that happen to show no difference. Each failed on 3a4d731."""

from __future__ import annotations

import json

import pytest

from tests.estimates.test_estimate_command import UNIFORM, population, run, write_labels, write_results
from tests.support.result_records import rag


def _estimate(results, labels, *extra):
    code, out, err = run(["estimate", str(results), "--labels", str(labels), "--metric", "faithfulness", *extra])
    return code, out, err


def test_ten_labels_nine_of_them_1_keep_the_interval_on_the_scale(tmp_path):
    """Was `[0.733, 1.100]`-like: the t interval of 9 ones and a 0 reaches past 1."""
    rows = population(100)
    results = write_results(tmp_path / "results.jsonl", rows)
    labels = write_labels(tmp_path / "labels.jsonl",
                          [{"id": i, "human": int(k > 0)} for k, (i, _, _, _) in enumerate(rows[:10])])
    code, out, err = _estimate(results, labels, "--json")
    [row] = json.loads(out)
    assert code == 0, err
    for side in ("labels_only", "corrected"):
        assert 0.0 <= row[side]["low"] <= row[side]["estimate"] <= row[side]["high"] <= 1.0


def test_ten_labels_all_1_are_not_a_point(tmp_path):
    rows = population(100)
    results = write_results(tmp_path / "results.jsonl", rows)
    labels = write_labels(tmp_path / "labels.jsonl", [{"id": i, "human": 1} for i, _, _, _ in rows[:10]])
    code, out, _ = _estimate(results, labels, "--json")
    [row] = json.loads(out)
    assert code == 0
    assert row["corrected"]["high"] == 1.0 and row["corrected"]["low"] < 0.75  # a batch at 0.75 shows ten 1s 6 % of the time
    assert row["labels_only"]["low"] < 0.75


def test_a_batch_labelled_whole_gives_the_exact_mean_and_counts_the_batch(tmp_path):
    """40 items, 40 labels: the labels' mean with width 0, worth 40 labels (was "52"), nothing
    to halve (was "cannot halve: the judge's own spread")."""
    rows = population(40)
    results = write_results(tmp_path / "results.jsonl", rows)
    labels = write_labels(tmp_path / "labels.jsonl", [{"id": i, "human": y} for i, _, y, _ in rows])
    code, out, err = _estimate(results, labels, "--json")
    [row] = json.loads(out)
    truth = sum(y for _, _, y, _ in rows) / 40
    assert code == 0, err
    assert row["corrected"] == pytest.approx({"estimate": truth, "low": truth, "high": truth})
    assert row["effective_labels"] == 40 and row["more_labels_to_halve"] is None
    code, table, _ = _estimate(results, labels)
    table = " ".join(table.split())
    assert "every item is labelled: the mean is exact" in table and "judge's own spread" not in table
    assert "worth 40 labels alone out of 40 items" in table


def test_half_a_batch_counts_what_is_left_to_halve(tmp_path):
    rows = population(40)
    results = write_results(tmp_path / "results.jsonl", rows)
    labels = write_labels(tmp_path / "labels.jsonl", [{"id": i, "human": y} for i, _, y, _ in rows[:20]])
    _, out, _ = _estimate(results, labels, "--json")
    [row] = json.loads(out)
    assert row["more_labels_to_halve"] is not None and 0 < row["more_labels_to_halve"] <= 20
    assert row["effective_labels"] <= 40


def test_target_width_says_how_many_labels_in_all(tmp_path):
    rows = population(300)
    results = write_results(tmp_path / "results.jsonl", rows)
    labels = write_labels(tmp_path / "labels.jsonl", [{"id": i, "human": y} for i, _, y, _ in rows[:30]])
    code, out, _ = _estimate(results, labels, "--json", "--target-width", "0.05")
    [row] = json.loads(out)
    assert code == 0 and row["target_width"] == 0.05 and 30 < row["labels_for_target"] <= 300
    _, table, _ = _estimate(results, labels, "--target-width", "0.05")
    assert f"about {row['labels_for_target']:,} labels in all for +-0.05" in " ".join(table.split())
    with pytest.raises(SystemExit) as stopped:  # argparse's usage error: exit 2, one line on stderr
        _estimate(results, labels, "--target-width", "0")
    assert stopped.value.code == 2


def _regression(tmp_path, same_labels: bool):
    """Issue 55's gate: 100 items, the after-run really worse on 10 of them (labels 1 -> 0, the
    judge seeing it: 0.9 -> 0.3), 10 paired labels that happen to fall on unchanged items."""
    before, after = tmp_path / "before.jsonl", tmp_path / "after.jsonl"
    worse = {f"q{i}" for i in range(10)}
    before.write_text("".join(json.dumps(rag(f"q{i}", 0.9)) + "\n" for i in range(100)))
    after.write_text("".join(json.dumps(rag(f"q{i}", 0.3 if f"q{i}" in worse else 0.9)) + "\n" for i in range(100)))
    labelled = [f"q{i}" for i in range(50, 60)]
    la = write_labels(tmp_path / "la.jsonl", [{"id": i, "human": 1} for i in labelled], UNIFORM)
    lb = write_labels(tmp_path / "lb.jsonl", [{"id": i, "human": 1} for i in labelled], UNIFORM)
    return before, after, la, lb


def test_ten_paired_labels_showing_no_difference_do_not_pass_the_gate_as_ok(tmp_path):
    """Was `[+0.000, +0.000]` and "ok", exit 0, while the judge alone said WORSE."""
    before, after, la, lb = _regression(tmp_path, True)
    judge_only = run(["compare", str(before), str(after), "--fail-if-worse", "faithfulness:0.02"])
    assert judge_only[0] == 1 and "WORSE" in judge_only[2]
    code, out, err = run(["compare", str(before), str(after), "--labels-a", str(la), "--labels-b", str(lb),
                          "--fail-if-worse", "faithfulness:0.02"])
    line = next(line for line in err.splitlines() if line.startswith("faithfulness:"))
    assert code == 0 and "inconclusive" in line and ": ok:" not in line
    assert "more labelled items in both runs would decide it" in line
    assert "the labels show no spread" in out
    code, _, err = run(["compare", str(before), str(after), "--labels-a", str(la), "--labels-b", str(lb),
                        "--fail-if-worse", "faithfulness:0.02", "--fail-if-inconclusive"])
    assert code == 1 and "FAILED: inconclusive" in err and "--fail-if-inconclusive" in err


def test_an_inconclusive_judge_gate_says_how_many_more_items(tmp_path):
    before, after = tmp_path / "before.jsonl", tmp_path / "after.jsonl"
    before.write_text("".join(json.dumps(rag(f"q{i}", s)) + "\n" for i, s in enumerate([0.9, 0.5, 0.8, 0.2, 0.7])))
    after.write_text("".join(json.dumps(rag(f"q{i}", s)) + "\n" for i, s in enumerate([0.6, 0.6, 0.8, 0.1, 0.4])))
    code, out, err = run(["compare", str(before), str(after), "--fail-if-worse", "faithfulness:0.02", "--json"])
    [verdict] = json.loads(out)["gate"]
    assert code == 0 and verdict["outcome"] == "inconclusive" and verdict["more_to_decide"] > 0
    assert f"about {verdict['more_to_decide']:,} more items judged in both runs would decide it" in err
    code, _, err = run(["compare", str(before), str(after), "--fail-if-worse", "faithfulness:0.02",
                        "--fail-if-inconclusive"])
    assert code == 1
    code, _, err = run(["compare", str(before), str(after), "--fail-if-inconclusive"])
    assert code == 2 and "--fail-if-worse" in err
