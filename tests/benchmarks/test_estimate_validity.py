"""The validity benchmark on made-up populations: its intervals cover the population's label
mean about 95 % of the time, a good judge narrows them, a judge at chance does not widen them,
and an items file is joined to its sample's labels by id."""

from __future__ import annotations

import json

import numpy as np

from benchmarks.estimate_validity import (
    allocation,
    draw_cells,
    main,
    read_population,
    strata_of,
    synthetic_population,
)


def test_uniform_intervals_cover_the_label_mean_about_95_percent_and_a_good_judge_narrows_them():
    good = synthetic_population(1000, 0.4, seed=4)
    cells = {(c.design, c.n): c for c in draw_cells(good, [50, 100], draws=400, seed=1)}
    for key in (("uniform", 50), ("uniform", 100)):
        assert 0.92 <= cells[key].coverage_corrected <= 0.99, cells[key]
        assert cells[key].width_ratio < 0.8 and cells[key].not_finite == 0
    assert all(c.coverage_corrected >= 0.92 for c in cells.values())  # stratified too


def test_a_judge_at_chance_gives_intervals_as_wide_as_the_labels_and_still_valid():
    chance = synthetic_population(1000, 1.0, seed=5)
    for cell in draw_cells(chance, [20, 50], draws=300, seed=2):
        assert 0.9 <= cell.coverage_corrected and 0.95 <= cell.width_ratio <= 1.1 and cell.not_finite == 0, cell


def test_strata_cut_at_the_judges_tertiles_and_every_stratum_gets_two_labels():
    judge = np.round(np.linspace(0, 1, 90), 2)
    strata = strata_of(judge)
    assert sorted(np.bincount(strata)) == [30, 30, 30]
    share = allocation(judge, strata, 20)
    assert share.sum() == 20 and share.min() >= 2
    assert share[1] > share[0]  # the middle stratum, where the judge is unsure, is sampled more
    assert list(np.unique(strata_of(np.array([0.0, 1.0] * 10)))) == [0, 1]  # two values, two strata


def test_an_items_file_is_joined_to_its_samples_labels_by_id_failed_rows_left_out(tmp_path):
    data = tmp_path / "data" / "halueval_qa"
    data.mkdir(parents=True)
    rows = [{"id": f"h{i}", "human": {"hallucination": "yes" if i % 3 == 0 else "no"}} for i in range(6)]
    (data / "sample.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    items = tmp_path / "items-halueval_qa-report-graph.jsonl"
    outcomes = [{"id": f"h{i}", "score": i / 10, "failed": False} for i in range(5)] + [
        {"id": "h5", "score": None, "failed": True}, {"id": "elsewhere", "score": 0.5, "failed": False}]
    items.write_text("".join(json.dumps(o) + "\n" for o in outcomes), encoding="utf-8")
    population = read_population(items, tmp_path / "data")
    assert population.name == "halueval_qa (report, graph)"
    assert list(population.judge) == [0.0, 0.1, 0.2, 0.3, 0.4] and list(population.labels) == [0, 1, 1, 0, 1]


def test_the_benchmark_prints_its_table_and_writes_json(tmp_path, capsys):
    assert main(["--synthetic", "--draws", "40", "--sizes", "20", "--json", str(tmp_path / "cells.json")]) == 0
    out = capsys.readouterr().out
    assert "cover corr" in out and "synthetic, good judge" in out
    cells = json.loads((tmp_path / "cells.json").read_text(encoding="utf-8"))
    # the active design is drawn too since issue 55
    assert {(c["design"], c["n"]) for c in cells} == {("uniform", 20), ("active", 20), ("stratified", 20)}


def test_the_corners_hold_their_coverage_and_stay_on_the_scale():
    """Issue 55's corners on a small scale: a 5 % failure rate at 10 labels, a 40-item batch
    labelled whole (width 0), and the paired difference of a run truly worse on 10 %."""
    from benchmarks.estimate_validity import corner_populations, paired_cells

    rare, batch = corner_populations()
    cells = draw_cells(rare, [10], draws=300, seed=3) + draw_cells(batch, [10, 40], draws=200, seed=3)
    cells += paired_cells(batch, [10, 20], draws=150, seed=3)
    for cell in cells:
        assert cell.coverage_corrected >= 0.9 and cell.outside_scale == 0 and cell.not_finite == 0, cell
    whole = next(c for c in cells if c.quantity == "mean" and c.design == "uniform" and c.n == 40)
    assert whole.width_corrected == 0.0 and whole.coverage_corrected == 1.0
