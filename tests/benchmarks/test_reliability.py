"""Reliability diagrams (`benchmarks.reliability`, `benchmarks.labelled_scores`): bins, the
Wilson interval, ECE and Brier on hand-computed examples, graded labels rescaled to 0..1, the
per-item shapes read (batch records, recomputed under a profile or as recorded; run_method
outcomes with a labels file; the similarity benchmark's lines), and the PNG. Synthetic files only:
no judge is called."""

from __future__ import annotations

import json
from importlib.util import find_spec
from pathlib import Path

import pytest

from benchmarks.labelled_scores import InputError, Source, read_scores
from benchmarks.reliability import (
    bin_of,
    brier_score,
    calibration_error,
    choose_edges,
    main,
    quantile_edges,
    reliability,
    width_edges,
    wilson_interval,
)
from judgegraph.calibration import default_profile
from judgegraph.fitting.recompute import faithfulness_score, recorded_faithfulness


def _write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


# --- bins and figures -------------------------------------------------------------------------------

@pytest.mark.parametrize(("score", "expected"), [(0.0, 0), (0.19, 0), (0.2, 1), (0.59, 2), (0.6, 3), (0.99, 4),
                                                 (1.0, 4), (1.2, 4), (-0.1, 0)])
def test_a_score_falls_in_its_equal_width_bin(score, expected):
    assert bin_of(score, width_edges(5)) == expected


def test_equal_count_bins_never_split_equal_scores():
    assert quantile_edges([0, 0, 0, 0, 0.1, 0.2, 0.5, 0.9], 2) == [0.0, 0.1, 1.0]
    assert quantile_edges([0.0] * 6 + [0.5, 0.9], 2) == [0.0, 1.0]  # the median is a tie at the lowest score
    assert quantile_edges([0.3], 5) == [0.0, 1.0] and quantile_edges([], 3) == [0.0, 1.0]  # fewer items than bins
    assert quantile_edges([0.0] * 3 + [0.3] * 3 + [0.6] * 3, 3) == [0.0, 0.3, 0.6, 1.0]


def test_small_sets_get_equal_count_bins_and_large_ones_equal_width():
    assert choose_edges([i / 20 for i in range(20)], "auto", 5) == ("equal-count", [0.0, 0.35, 0.65, 1.0])
    assert choose_edges([i / 100 for i in range(100)], "auto", 5) == ("equal-width", [0.0, 0.2, 0.4, 0.6, 0.8, 1.0])
    assert choose_edges([0.1, 0.9], "width", 2) == ("equal-width", [0.0, 0.5, 1.0])


def test_wilson_interval_matches_the_hand_computed_one():
    # 8 of 10, z = 1.95996: centre (0.8 + z²/20) / (1 + z²/10) = 0.71674, half-width 0.22657
    low, high = wilson_interval(8, 10)
    assert low == pytest.approx(0.4902, abs=1e-4) and high == pytest.approx(0.9433, abs=1e-4)
    low, high = wilson_interval(0, 7)  # stays above a point at 0
    assert low == 0.0 and high == pytest.approx(0.3543, abs=1e-4)
    assert wilson_interval(0, 0) is None


def test_ece_and_brier_on_a_hand_computed_example():
    scores, labels = [0.1, 0.3, 0.8, 0.9], [0.0, 1.0, 1.0, 1.0]
    # bin [0, 0.5): mean score 0.2, observed 0.5, gap 0.3; bin [0.5, 1]: 0.85 vs 1.0, gap 0.15; 2 items each
    assert calibration_error(scores, labels, [0.0, 0.5, 1.0]) == pytest.approx((2 * 0.3 + 2 * 0.15) / 4)
    assert brier_score(scores, labels) == pytest.approx((0.01 + 0.49 + 0.04 + 0.01) / 4)
    assert calibration_error([], [], [0.0, 1.0]) is None


# --- inputs -------------------------------------------------------------------------------------------

def test_an_input_names_metric_set_items_and_optionally_labels_and_their_scale():
    assert Source.parse("semantic_similarity:stsb-zh:items.jsonl::0-5") == Source(
        "semantic_similarity", "stsb-zh", Path("items.jsonl"), None, (0.0, 5.0))
    assert Source.parse("faithfulness:he:judged.jsonl:labels.jsonl").labels.name == "labels.jsonl"
    for bad in ("faithfulness:he", "faithfulness::x.jsonl", "m:n:i:l:five", "m:n:i:l:5-0"):
        with pytest.raises(InputError):
            Source.parse(bad)


def test_graded_labels_are_rescaled_by_their_scale(tmp_path):
    items = _write_jsonl(tmp_path / "items-zh.jsonl", [
        {"lang": "zh", "first": "a", "second": "b", "human": h, "graph": g}
        for h, g in [(5.0, 0.9), (2.5, 0.6), (0.0, 0.2), (4.0, 0.7)]])
    data = read_scores(Source.parse(f"semantic_similarity:stsb-zh:{items}::0-5"))
    assert (data.kind, data.labels, data.scores) == ("graded", [1.0, 0.5, 0.0, 0.8], [0.9, 0.6, 0.2, 0.7])
    with pytest.raises(InputError, match="give their scale"):
        read_scores(Source.parse(f"semantic_similarity:stsb-zh:{items}"))
    with pytest.raises(InputError, match="outside the scale"):
        read_scores(Source.parse(f"semantic_similarity:stsb-zh:{items}::0-4"))
    bins = reliability(data, "width", 2).bins
    assert [b.n for b in bins] == [1, 3] and bins[1].observed == pytest.approx(2.3 / 3)


def test_run_method_outcomes_take_their_labels_from_a_labels_file(tmp_path):
    items = _write_jsonl(tmp_path / "items-en.jsonl", [
        {"method": "graph", "id": "en:1", "score": 0.9, "failed": False},
        {"method": "graph", "id": "en:2", "score": 0.1, "failed": False},
        {"method": "graph", "id": "en:3", "score": None, "failed": True, "error": "no reply"},
        {"method": "graph", "id": "en:9", "score": 0.5, "failed": False}])
    labels = _write_jsonl(tmp_path / "nli-en.jsonl", [
        {"id": f"en:{i}", "question": "q", "context": "c", "answer": "a", "human": {"faithful": f}}
        for i, f in [(1, 1), (2, 0), (3, 1)]])
    data = read_scores(Source.parse(f"faithfulness:nli-en:{items}:{labels}"))
    assert (data.kind, data.scores, data.labels) == ("binary", [0.9, 0.1], [1.0, 0.0])
    assert (data.failed, data.unlabelled) == (1, 1)


def _batch_record(item_id: str, recorded_score: float, p_supported: float) -> dict:
    """A batch record with `--details` of one one-claim item (the shape `fitting.recompute` reads)."""
    claim = {"index": 0, "claim": "c", "probabilities": {"supported": p_supported, "contradicted": 0.0,
                                                          "not-in-context": 1 - p_supported},
             "grounding": 1.0, "evidence": "e", "evidence_found": True, "critical": True}
    return {"id": item_id, "result": {"faithfulness": recorded_score, "evaluation_status": "success"},
            "details": {"item": {"context": ["c is so."]}, "claims": {"claims": ["c"]}, "verdicts": [claim]}}


def test_batch_records_are_read_as_recorded_or_recomputed_under_a_profile(tmp_path):
    records = [_batch_record(f"item-{i}", 0.5, p) for i, p in enumerate([0.95, 0.9, 0.2, 0.1])]
    judged = _write_jsonl(tmp_path / "he.judged.jsonl", records)
    labels = _write_jsonl(tmp_path / "he.jsonl", [
        {"id": f"item-{i}", "question": "q", "context": "c is so.", "answer": "c",
         "human": {"hallucination": "no" if i < 2 else "yes"}} for i in range(4)])
    source = Source.parse(f"faithfulness:halueval:{judged}:{labels}")
    assert source.recomputable()
    recorded = read_scores(source)
    assert (recorded.scores, recorded.labels) == ([0.5] * 4, [1.0, 1.0, 0.0, 0.0])
    default = default_profile()
    recomputed = read_scores(source, default)
    expected = [faithfulness_score(recorded_faithfulness(r), default.faithfulness_parameters) for r in records]
    assert recomputed.scores == expected and expected[0] > 0.5 > expected[3]
    assert not Source.parse(f"semantic_similarity:x:{judged}:{labels}").recomputable()


def test_a_line_without_a_label_and_no_labels_file_is_refused(tmp_path):
    items = _write_jsonl(tmp_path / "items.jsonl", [{"id": "a", "score": 0.4}])
    with pytest.raises(InputError, match="line 1: no usable `human` label"):
        read_scores(Source.parse(f"faithfulness:x:{items}"))


# --- the command --------------------------------------------------------------------------------

def test_the_command_writes_tables_for_each_profile_and_the_png(tmp_path, capsys):
    records = [_batch_record(f"item-{i}", 0.5, p) for i, p in enumerate([0.95, 0.9, 0.8, 0.3, 0.2, 0.1])]
    judged = _write_jsonl(tmp_path / "he.judged.jsonl", records)
    labels = _write_jsonl(tmp_path / "he.jsonl", [
        {"id": f"item-{i}", "question": "q", "context": "c is so.", "answer": "c", "human": int(i < 3)}
        for i in range(6)])
    similarity = _write_jsonl(tmp_path / "items-en.jsonl", [{"human": i / 4, "graph": i / 5} for i in range(6)])
    markdown, png = tmp_path / "rel.md", tmp_path / "rel.png"
    argv = ["--input", f"faithfulness:halueval:{judged}:{labels}", "--profiles", "recorded,default",
            "--input", f"semantic_similarity:sts:{similarity}::0-1.25", "--markdown", str(markdown)]
    if find_spec("matplotlib") is not None:
        argv += ["--out", str(png)]
    assert main(argv) == 0
    text = markdown.read_text(encoding="utf-8")
    for title in ("faithfulness · halueval (as recorded)", "faithfulness · halueval (default profile)",
                  "semantic_similarity · sts"):
        assert f"#### {title}" in text
    assert "| faithfulness | halueval (as recorded) | 6 | binary |" in text
    if find_spec("matplotlib") is None:
        pytest.skip("matplotlib is not installed (judgegraph[bench])")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_command_says_what_is_wrong_with_an_input(tmp_path, capsys):
    assert main(["--input", f"faithfulness:x:{tmp_path / 'missing.jsonl'}"]) == 2
    assert "no per-item file" in capsys.readouterr().err
    failed = _write_jsonl(tmp_path / "items.jsonl", [{"id": "a", "score": None, "failed": True, "human": 1}])
    assert main(["--input", f"faithfulness:x:{failed}"]) == 2
    assert "scored none of its 1 labelled items" in capsys.readouterr().err


def test_without_matplotlib_the_tables_are_written_and_a_line_says_why(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("benchmarks.reliability.find_spec", lambda name: None)
    items = _write_jsonl(tmp_path / "items.jsonl", [{"human": i % 2, "score": i / 10} for i in range(10)])
    png = tmp_path / "rel.png"
    assert main(["--input", f"faithfulness:x:{items}", "--out", str(png)]) == 0
    out, err = capsys.readouterr()
    assert "#### faithfulness · x" in out and "judgegraph[bench]" in err and not png.exists()
