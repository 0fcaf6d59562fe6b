"""`judgegraph compare BEFORE AFTER --labels-a LA --labels-b LB`: the mean difference
corrected by people's labels of each run's answers. The numbers are the PPI++ formulas'
written out here with numpy (paired on the items labelled in both runs, else each run on its
own with the variances added), `--fail-if-worse` gates on the corrected interval, and labels
that cannot correct anything are refused with one line."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from scipy.stats import t as student_t

from tests.estimates.test_estimate_command import run
from tests.estimates.test_ppi_formulas import written_out
from tests.support.result_records import rag

N_ITEMS = 200
UNIFORM = {"design": {"kind": "uniform", "seed": 1, "order": "seeded permutation", "metrics": ["faithfulness"]}}


def _runs(seed: int, after_truth: float) -> list[tuple[str, float, int, float, int]]:
    """(id, judge before, label before, judge after, label after): the judge tracks the labels
    before; after, its scores are high whatever the answer (a judge fooled by the new answers),
    so its mean says nothing about `after_truth`, the after run's share of faithful answers."""
    rng = random.Random(seed)
    rows = []
    for i in range(N_ITEMS):
        y_before = int(rng.random() < 0.7)
        f_before = round(min(1.0, max(0.0, (0.8 if y_before else 0.25) + rng.gauss(0, 0.1))), 2)
        y_after = int(rng.random() < after_truth)
        f_after = round(min(1.0, max(0.0, (0.9 if y_after else 0.7) + rng.gauss(0, 0.08))), 2)
        rows.append((f"q{i}", f_before, y_before, f_after, y_after))
    return rows


def _write(tmp_path, rows, ids_before, ids_after):
    before, after = tmp_path / "before.jsonl", tmp_path / "after.jsonl"
    before.write_text("".join(json.dumps(rag(i, fb)) + "\n" for i, fb, _, _, _ in rows), encoding="utf-8")
    after.write_text("".join(json.dumps(rag(i, fa)) + "\n" for i, _, _, fa, _ in rows), encoding="utf-8")
    by_id = {row[0]: row for row in rows}
    la, lb = tmp_path / "labels-a.jsonl", tmp_path / "labels-b.jsonl"
    la.write_text("".join(json.dumps(line) + "\n" for line in
                          [UNIFORM] + [{"id": i, "human": {"faithfulness": by_id[i][2]}} for i in ids_before]))
    lb.write_text("".join(json.dumps(line) + "\n" for line in
                          [UNIFORM] + [{"id": i, "human": {"faithfulness": by_id[i][4]}} for i in ids_after]))
    return before, after, la, lb


def _ppi(y, f, f_all, scale=(0.0, 1.0)):
    """PPI++ for the mean of the N items, written out (ddof 1, Student's t with n - 1, the
    finite-population factor and the 4 pseudo-labels of `tests.estimates.test_ppi_formulas`):
    (theta, low, high, variance)."""
    y, f, f_all = (np.asarray(v, dtype=float) for v in (y, f, f_all))
    n, big_n = len(y), len(f_all)
    lam = np.cov(y, f, ddof=1)[0, 1] / ((1 + n / big_n) * np.var(f_all, ddof=1))
    lam = float(np.clip(lam, 0, 1))
    theta = lam * f_all.mean() + (y - lam * f).mean()
    return written_out(theta, np.var(y - lam * f, ddof=1), n, big_n, scale)


def _compare(before, after, la, lb, *extra):
    return run(["compare", str(before), str(after), "--labels-a", str(la), "--labels-b", str(lb), *extra])


def test_the_same_items_labelled_in_both_runs_give_ppi_on_the_paired_differences(tmp_path):
    rows = _runs(1, 0.45)
    sample = sorted(random.Random(2).sample(range(N_ITEMS), 60))
    ids = [rows[k][0] for k in sample]
    before, after, la, lb = _write(tmp_path, rows, ids, ids)
    code, out, err = _compare(before, after, la, lb, "--json")
    assert code == 0, err
    corrected = next(m for m in json.loads(out)["metrics"] if m["metric"] == "faithfulness")["corrected"]
    d_y = [rows[k][4] - rows[k][2] for k in sample]
    d_f = [rows[k][3] - rows[k][1] for k in sample]
    d_all = [row[3] - row[1] for row in rows]
    theta, low, high, _ = _ppi(d_y, d_f, d_all, (-1.0, 1.0))  # a difference's scale: -1..1
    assert corrected["paired"] is True and corrected["n_labels_paired"] == 60 and corrected["n_items"] == N_ITEMS
    assert corrected["corrected"]["estimate"] == pytest.approx(theta, abs=1e-6)
    assert corrected["corrected"]["low"] == pytest.approx(low, abs=1e-6)
    assert corrected["corrected"]["high"] == pytest.approx(high, abs=1e-6)
    assert corrected["judge_difference"] == pytest.approx(np.mean(d_all), abs=1e-6)
    assert corrected["labels_only"]["estimate"] == pytest.approx(np.mean(d_y), abs=1e-6)


def test_different_label_sets_combine_two_corrected_runs_and_say_unpaired(tmp_path):
    rows = _runs(3, 0.45)
    shuffled = random.Random(4).sample(range(N_ITEMS), 100)
    side_b, side_a = sorted(shuffled[:50]), sorted(shuffled[50:])
    before, after, la, lb = _write(tmp_path, rows, [rows[k][0] for k in side_b], [rows[k][0] for k in side_a])
    code, out, err = _compare(before, after, la, lb, "--json")
    assert code == 0, err
    corrected = next(m for m in json.loads(out)["metrics"] if m["metric"] == "faithfulness")["corrected"]
    theta_b, _, _, var_b = _ppi([rows[k][2] for k in side_b], [rows[k][1] for k in side_b], [r[1] for r in rows])
    theta_a, _, _, var_a = _ppi([rows[k][4] for k in side_a], [rows[k][3] for k in side_a], [r[3] for r in rows])
    difference = theta_a - theta_b
    centre = difference + (1 - 50 / N_ITEMS) * 4 * (0.0 - difference) / (50 + 4)  # pulled toward 0, the middle
    half = student_t.ppf(0.975, 49) * np.sqrt(var_a + var_b)
    assert corrected["paired"] is False and corrected["n_labels_paired"] == 0
    assert corrected["corrected"]["estimate"] == pytest.approx(difference, abs=1e-6)
    assert corrected["corrected"]["high"] == pytest.approx(centre + half, abs=1e-6)
    assert any("unpaired" in note for note in corrected["notes"])


@pytest.mark.parametrize(("after_truth", "expected_code", "outcome"), [(0.35, 1, "worse"), (0.7, 0, None)])
def test_the_gate_reads_the_corrected_interval(tmp_path, after_truth, expected_code, outcome):
    rows = _runs(5, after_truth)
    ids = [rows[k][0] for k in sorted(random.Random(6).sample(range(N_ITEMS), 80))]
    before, after, la, lb = _write(tmp_path, rows, ids, ids)
    judge_only = run(["compare", str(before), str(after), "--fail-if-worse", "faithfulness:0.02"])
    assert judge_only[0] == 0, judge_only[2]  # the fooled judge sees no drop either way
    code, out, err = _compare(before, after, la, lb, "--fail-if-worse", "faithfulness:0.02")
    assert code == expected_code, err
    gate_line = next(line for line in err.splitlines() if line.startswith("faithfulness:"))
    assert "label-corrected after - before (paired)" in gate_line
    if outcome:
        assert "WORSE" in gate_line
    assert "label-corrected Δ mean" in out


def test_labels_of_neither_run_are_refused_with_one_line(tmp_path):
    rows = _runs(7, 0.5)
    before, after, la, lb = _write(tmp_path, rows, [r[0] for r in rows[:20]], [r[0] for r in rows[:20]])
    la.write_text(json.dumps(UNIFORM) + "\n" + "".join(
        json.dumps({"id": f"other-{k}", "human": {"faithfulness": 1}}) + "\n" for k in range(20)))
    code, out, err = _compare(before, after, la, lb)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert "--labels-a" in err and "before.jsonl" in err


@pytest.mark.parametrize("argv", [["--labels", "L"], ["--labels-a", "L"], ["--labels-b", "L"]])
def test_one_labels_file_is_refused_with_one_line(tmp_path, argv):
    rows = _runs(8, 0.5)
    before, after, _, _ = _write(tmp_path, rows, [], [])
    code, _, err = run(["compare", str(before), str(after), *argv])
    assert code == 2 and len(err.strip().splitlines()) == 1 and "--labels-a" in err


def test_too_few_labels_are_refused_saying_how_many(tmp_path):
    rows = _runs(9, 0.5)
    ids = [r[0] for r in rows[:6]]
    before, after, la, lb = _write(tmp_path, rows, ids, ids)
    code, _, err = _compare(before, after, la, lb)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "at least 10" in err


def test_the_page_draws_the_corrected_interval_and_says_so(tmp_path):
    rows = _runs(10, 0.35)
    ids = [rows[k][0] for k in sorted(random.Random(11).sample(range(N_ITEMS), 50))]
    before, after, la, lb = _write(tmp_path, rows, ids, ids)
    page = tmp_path / "compare.html"
    code, out, err = _compare(before, after, la, lb, "--json", "-o", str(page))
    assert code == 0, err
    corrected = json.loads(out)["metrics"][0]["corrected"]
    text = page.read_text(encoding="utf-8")
    low, high = corrected["corrected"]["low"], corrected["corrected"]["high"]
    assert f"[{low:+.3f}, {high:+.3f}]" in text
    assert f"label-corrected (paired): Δ {corrected['corrected']['estimate']:+.3f}" in text
