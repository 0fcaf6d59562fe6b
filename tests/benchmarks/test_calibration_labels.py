"""`benchmarks.calibration_labels`: bench rows become a labels file `judgegraph calibrate` reads."""

from __future__ import annotations

from judgegraph.fitting.labels import read_labels
from tests.support.calibration_items import write_jsonl


def test_bench_rows_become_a_labels_file_calibrate_reads(tmp_path):
    from benchmarks.calibration_labels import main as write_labels

    folder = tmp_path / "faithbench"
    folder.mkdir()
    rows = [{"id": f"fb:{i}", "question": None, "context": "Some source text.", "answer": "A summary.",
             "reference": None, "human": {"binary_faithful": i % 2}, "meta": {}} for i in range(12)]
    write_jsonl(folder / "sample.jsonl", rows)
    out = tmp_path / "labels.jsonl"
    assert write_labels(["faithbench", "--part", "tune", "--data-root", str(tmp_path), "-o", str(out)]) == 0
    labels = read_labels(out, "faithfulness")
    assert labels.kind == "binary" and 0 < len(labels.items) < 12  # the tune part only
    assert all(entry.item["question"] and entry.item["metrics"] == ["faithfulness"] for entry in labels.items)
