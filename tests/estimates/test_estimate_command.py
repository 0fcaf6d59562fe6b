"""`judgegraph estimate` through the CLI and `judgegraph.estimate`: the numbers are the
estimators' on the pairs the files hold, and every bad input is named (exit 2, one line) or
told on stderr, never absorbed."""

from __future__ import annotations

import contextlib
import io
import json
import random
import warnings
from pathlib import Path

import numpy as np
import pytest

import judgegraph
from judgegraph.commands import cli
from judgegraph.estimates.ppi import effective_labels, labels_only, ppi_mean, stratified_means
from tests.support.result_records import rag

UNIFORM = {"design": {"kind": "uniform", "seed": 1, "order": "seeded permutation", "metrics": ["faithfulness"]}}


def population(n_items: int = 300, seed: int = 0) -> list[tuple[str, float, int, str]]:
    """(id, judge score, human label, topic): a judge right about 85 % of the time."""
    rng = random.Random(seed)
    rows = []
    for i in range(n_items):
        y = int(rng.random() < 0.7)
        agrees = rng.random() < 0.85
        score = round(min(1.0, max(0.0, (0.8 if (y == 1) == agrees else 0.2) + rng.gauss(0, 0.1))), 2)
        rows.append((f"q{i}", score, y, "ab"[i % 2]))
    return rows


def write_results(path: Path, rows, failed: set[str] = frozenset()) -> Path:
    with path.open("w", encoding="utf-8") as out:
        for item_id, score, _, topic in rows:
            record = rag(item_id, error="faithfulness: judge timed out") if item_id in failed else \
                rag(item_id, score, context_relevance=0.5)
            out.write(json.dumps(record | {"topic": topic}) + "\n")
    return path


def write_labels(path: Path, labels: list[dict], design: dict | None = UNIFORM) -> Path:
    lines = ([design] if design else []) + labels
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(argv)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def files(tmp_path):
    rows = population()
    results = write_results(tmp_path / "results.jsonl", rows)
    sample = random.Random(5).sample(rows, 60)
    labels = write_labels(tmp_path / "labels.jsonl",
                          [{"id": i, "human": "yes" if y else "no", "position": k} for k, (i, _, y, _) in enumerate(sample)])
    return results, labels, rows, sample


def test_the_json_holds_the_estimators_numbers_on_the_files_pairs(files):
    results, labels, rows, sample = files
    code, out, err = run(["estimate", str(results), "--labels", str(labels), "--metric", "faithfulness", "--json"])
    assert code == 0, err
    [row] = json.loads(out)
    f_all = np.array([score for _, score, _, _ in rows])
    by_id = {i: score for i, score, _, _ in rows}
    order = sorted(sample, key=lambda r: int(r[0][1:]))  # file order of the records
    y = np.array([label for _, _, label, _ in order], dtype=float)
    f_lab = np.array([by_id[i] for i, _, _, _ in order])
    corrected, only = ppi_mean(y, f_lab, f_all, scale=(0.0, 1.0)), labels_only(y, len(f_all), (0.0, 1.0))
    assert (row["metric"], row["n_items"], row["n_labels"], row["design"]) == ("faithfulness", 300, 60, "uniform")
    assert row["judge_mean"] == pytest.approx(f_all.mean(), abs=1e-6)
    assert row["corrected"] == pytest.approx(corrected.as_json(), abs=1e-6)
    assert row["labels_only"] == pytest.approx(only.as_json(), abs=1e-6)
    assert row["effective_labels"] == pytest.approx(effective_labels(60, only, corrected), abs=0.06)
    assert row["effective_labels"] > 60  # this judge is informative: the labels are worth more with it
    assert err == ""  # a recorded design, every id found, nothing failed: nothing to say


def test_python_returns_the_commands_numbers(files):
    results, labels, _, _ = files
    _, out, _ = run(["estimate", str(results), "--labels", str(labels), "--metric", "faithfulness", "--json",
                     "--by", "topic"])
    assert judgegraph.estimate(results, labels, "faithfulness", by="topic") == json.loads(out)


def test_the_table_shows_the_three_means_and_what_the_labels_are_worth(files):
    results, labels, _, _ = files
    code, out, _ = run(["estimate", str(results), "--labels", str(labels), "--metric", "faithfulness", "--by", "topic"])
    assert code == 0
    assert "judge" in out and "labels only" in out and "corrected" in out and "topic=a" in out
    assert "your 60 labels (uniform sample) are worth" in out


def test_by_groups_partition_the_items_and_labels(files):
    results, labels, _, _ = files
    rows = judgegraph.estimate(results, labels, ["faithfulness"], by="topic")
    overall, groups = rows[0], rows[1:]
    assert {g["group"] for g in groups} == {"a", "b"} and all(g["by"] == "topic" for g in groups)
    assert sum(g["n_items"] for g in groups) == overall["n_items"]
    assert sum(g["n_labels"] for g in groups) == overall["n_labels"]


def test_label_ids_not_in_the_results_are_listed_and_unused(files, tmp_path):
    results, labels, _, _ = files
    extra = labels.read_text(encoding="utf-8") + json.dumps({"id": "ghost-1", "human": 1}) + "\n"
    (tmp_path / "more.jsonl").write_text(extra, encoding="utf-8")
    code, out, err = run(["estimate", str(results), "--labels", str(tmp_path / "more.jsonl"), "--metric",
                          "faithfulness", "--json"])
    assert code == 0 and json.loads(out)[0]["n_labels"] == 60
    assert "1 labelled id(s) are not in results.jsonl, unused: 'ghost-1'" in err


def test_two_labels_for_one_id_are_refused_with_both_lines(files, tmp_path):
    results, labels, _, sample = files
    text = labels.read_text(encoding="utf-8") + json.dumps({"id": sample[3][0], "human": 0}) + "\n"
    (tmp_path / "twice.jsonl").write_text(text, encoding="utf-8")
    code, out, err = run(["estimate", str(results), "--labels", str(tmp_path / "twice.jsonl"), "--metric", "faithfulness"])
    assert code == 2 and out == ""
    assert err.strip() == (f"judgegraph: twice.jsonl line 62: id {sample[3][0]!r} is labelled twice, on lines 5 and 62 "
                           "(undo one, or delete a line)")


def test_failed_records_are_counted_and_left_out_of_both_sides(tmp_path):
    rows = population()
    sample = random.Random(5).sample(rows, 60)
    unlabelled = next(r[0] for r in rows if r not in sample)
    failed = {sample[0][0], sample[1][0], unlabelled}
    results = write_results(tmp_path / "results.jsonl", rows, failed)
    labels = write_labels(tmp_path / "labels.jsonl", [{"id": i, "human": y} for i, _, y, _ in sample])
    code, out, err = run(["estimate", str(results), "--labels", str(labels), "--metric", "faithfulness", "--json"])
    [row] = json.loads(out)
    assert code == 0 and (row["n_items"], row["n_labels"], row["failed"]) == (297, 58, 3)
    kept = [r for r in rows if r[0] not in failed]
    assert row["judge_mean"] == pytest.approx(np.mean([s for _, s, _, _ in kept]), abs=1e-6)
    assert "faithfulness: 3 item(s) failed and 0 were not applicable (2 of them labelled): left out" in err


def test_fewer_than_ten_labels_are_refused_saying_how_many_more(files, tmp_path):
    results, _, _, sample = files
    labels = write_labels(tmp_path / "few.jsonl", [{"id": i, "human": y} for i, _, y, _ in sample[:7]])
    code, out, err = run(["estimate", str(results), "--labels", str(labels), "--metric", "faithfulness"])
    assert code == 2 and out == ""
    assert err.strip() == "judgegraph: faithfulness: 7 usable label(s); an estimate needs at least 10 (3 more)"


def test_labels_of_one_value_are_estimated_with_a_word_on_the_interval(files, tmp_path):
    results, _, _, sample = files
    labels = write_labels(tmp_path / "ones.jsonl", [{"id": i, "human": 1} for i, _, _, _ in sample[:20]])
    code, out, _ = run(["estimate", str(results), "--labels", str(labels), "--metric", "faithfulness", "--json"])
    [row] = json.loads(out)
    # issue 55: twenty labels all 1 are not certain: the interval reaches below 1 (was [1.000, 1.000])
    assert code == 0 and row["labels_only"]["high"] == 1.0 and row["labels_only"]["low"] < 0.9
    assert row["corrected"]["low"] < 0.9 and row["corrected"]["high"] <= 1.0
    assert "every label is 1: the labels show no spread" in row["notes"][0] and "15%" in row["notes"][0]


def test_a_file_without_a_design_is_estimated_with_a_warning(files, tmp_path):
    results, _, _, sample = files
    labels = write_labels(tmp_path / "hand.jsonl", [{"id": i, "human": y} for i, _, y, _ in sample], design=None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rows = judgegraph.estimate(results, labels, "faithfulness")
    assert rows[0]["design"] == "none" and rows[0]["corrected"] is not None
    assert any("records no design (a hand-made file): the intervals assume its labelled items are a uniform random "
               "sample" in str(w.message) for w in caught)


def test_a_metric_the_results_lack_is_one_line_exit_2(files):
    results, labels, _, _ = files
    code, out, err = run(["estimate", str(results), "--labels", str(labels), "--metric", "citation_recall"])
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "no metric 'citation_recall' in results.jsonl (it has: faithfulness, context_relevance" in err


def test_per_metric_objects_estimate_each_metric_and_a_bare_label_is_refused_among_several(files, tmp_path):
    results, _, _, sample = files
    labels = write_labels(tmp_path / "multi.jsonl",
                          [{"id": i, "human": {"faithfulness": y, "context_relevance": 1 - y}} for i, _, y, _ in sample],
                          design=None)
    with pytest.warns(UserWarning, match="records no design"):
        rows = judgegraph.estimate(results, labels)
    assert [r["metric"] for r in rows] == ["faithfulness", "context_relevance"]
    assert rows[0]["labels_only"]["estimate"] == pytest.approx(1 - rows[1]["labels_only"]["estimate"])
    bare = write_labels(tmp_path / "bare.jsonl", [{"id": i, "human": y} for i, _, y, _ in sample])
    code, _, err = run(["estimate", str(results), "--labels", str(bare), "--metric", "faithfulness,context_relevance"])
    assert code == 2 and "a bare label applies to one metric" in err


def test_a_label_off_the_metrics_scale_is_refused_with_its_line(files, tmp_path):
    results, _, _, sample = files
    labels = write_labels(tmp_path / "scale.jsonl", [{"id": i, "human": 4 if k == 2 else y}
                                                     for k, (i, _, y, _) in enumerate(sample)])
    code, _, err = run(["estimate", str(results), "--labels", str(labels), "--metric", "faithfulness"])
    assert code == 2 and "scale.jsonl line 4: the label 4 is outside faithfulness's scale 0..1" in err


def test_a_stratified_design_uses_the_stratified_estimator(tmp_path):
    rows = population(400, seed=2)
    results = write_results(tmp_path / "results.jsonl", rows)
    rng = random.Random(9)
    low = [r for r in rows if r[1] < 0.5]
    high = [r for r in rows if r[1] >= 0.5]
    sample = rng.sample(low, 20) + rng.sample(high, 15)
    design = {"design": {"kind": "stratified", "seed": 9, "order": "seeded permutation", "metrics": ["faithfulness"],
                         "n_items": 400,
                         "strata": [{"name": "unsure-low", "low": 0.0, "high": 0.5, "n_items": len(low),
                                     "inclusion_probability": 20 / len(low)},
                                    {"name": "high", "low": 0.5, "high": 1.0, "n_items": len(high),
                                     "inclusion_probability": 15 / len(high)}]}}
    labels = write_labels(tmp_path / "strat.jsonl", [{"id": i, "human": y, "stratum": "unsure-low" if s < 0.5 else "high"}
                                                      for i, s, y, _ in sample], design=design)
    [row] = judgegraph.estimate(results, labels, "faithfulness")
    f_all = np.array([s for _, s, _, _ in rows])
    strata_all = (f_all >= 0.5).astype(int)
    order = sorted(sample, key=lambda r: int(r[0][1:]))
    y = np.array([lab for _, _, lab, _ in order], dtype=float)
    f_lab = np.array([s for _, s, _, _ in order])
    only, corrected = stratified_means(y, f_lab, (f_lab >= 0.5).astype(int), f_all, strata_all)
    assert row["design"] == "stratified"
    assert row["corrected"] == pytest.approx(corrected.as_json(), abs=1e-6)
    assert row["labels_only"] == pytest.approx(only.as_json(), abs=1e-6)
    assert row["labels_only"]["estimate"] != pytest.approx(y.mean())  # weighted by the strata, not a plain mean


@pytest.mark.parametrize("columns", [50, 64, 80, 100, 140])
def test_a_narrow_terminal_or_a_long_group_name_never_cuts_a_figure(files, tmp_path, monkeypatch, columns):
    """rich narrows a table too wide for its console by cutting cells ("0…"): the counts and
    means stay whole at any width, and from 80 columns on so do the intervals' ends, with a
    group name that would fill a line (narrower, an interval folds across lines)."""
    _, labels, rows, _ = files
    long_topic = "a topic named at length " * 4
    results = write_results(tmp_path / "long.jsonl", [(i, s, y, long_topic if t == "a" else t) for i, s, y, t in rows])
    argv = ["estimate", str(results), "--labels", str(labels), "--metric", "faithfulness", "--by", "topic"]
    estimates = json.loads(run(argv + ["--json"])[1])
    monkeypatch.setenv("COLUMNS", str(columns))
    code, out, _ = run(argv)
    assert code == 0 and "…" not in out
    table = out.split("worth: how many labels")[0]
    assert max(len(line) for line in table.splitlines()) <= columns
    figures = [f"{row[key]:,}" for row in estimates for key in ("n_items", "n_labels")]
    figures += [f"{row['judge_mean']:.3f}" for row in estimates]
    if columns >= 80:
        figures += [f"{row[key][end]:.3f}" for row in estimates for key in ("labels_only", "corrected") if row[key]
                    for end in ("estimate", "low", "high")]
    cells = table.split()
    for figure in figures:
        assert any(figure in cell for cell in cells), figure
