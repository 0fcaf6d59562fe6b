"""`compare` reads each results file as a stream and keeps what it counts on, not the records:
the items it shows are read again from the file, at the byte where their line starts."""

from __future__ import annotations

import codecs
import json
import tracemalloc

import pytest

from benchmarks.compare_scale import write_run
from judgegraph.comparison import ComparisonError, compare_runs
from judgegraph.comparison.run_file import read_run
from tests.support.result_records import rag, write_results


def test_moved_items_are_read_again_from_a_file_with_a_bom_crlf_lines_and_bad_lines(tmp_path):
    before = tmp_path / "a.jsonl"
    lines = [json.dumps(rag("a", 1.0)), "not json", "", json.dumps(rag("b", 0.5)), json.dumps(rag("a", 0.0))]
    before.write_bytes(codecs.BOM_UTF8 + "".join(line + "\r\n" for line in lines).encode("utf-8"))
    after = write_results(tmp_path / "b.jsonl", [rag("b", 0.25), rag("a", 0.5)])
    after.write_text(after.read_text(encoding="utf-8").replace("faithfulness explanation", "après", 1),
                     encoding="utf-8")
    comparison = compare_runs(before, after)
    moved = comparison.metric("faithfulness").moved
    assert [(m.id, m.before, m.after) for m in moved] == [("a", 1.0, 0.5), ("b", 0.5, 0.25)]
    assert moved[0].explanation_before == "faithfulness explanation"  # the first record of 'a', line 1
    assert [m.explanation_after for m in moved] == ["faithfulness explanation", "après"]
    assert comparison.before.unreadable_lines == [2] and comparison.before.duplicate_ids == ["a"]


def test_a_score_keeps_its_json_type_in_the_moved_items(tmp_path):
    """The pairing holds scores as floats; the shown items are read from the records: 1, not 1.0."""
    before = write_results(tmp_path / "a.jsonl", [rag("a", 1)])
    after = write_results(tmp_path / "b.jsonl", [rag("a", 0)])
    [moved] = compare_runs(before, after).metric("faithfulness").moved
    assert (type(moved.before), type(moved.after), moved.change) == (int, int, -1.0)


def test_a_file_rewritten_while_it_is_compared_is_one_line(tmp_path):
    path = write_results(tmp_path / "a.jsonl", [rag("a", 1.0), rag("b", 0.5)])
    run = read_run(path)
    write_results(path, [rag("b", 0.5), rag("a", 1.0)])
    with pytest.raises(ComparisonError, match=r"a\.jsonl changed while it was compared: the record of 'a'"):
        run.record("a")
    path.unlink()
    with pytest.raises(ComparisonError, match="changed while it was compared"):
        run.record("b")


def test_a_file_read_for_comparison_costs_bytes_per_record_not_its_text(tmp_path):
    """A parsed record costs about 4.7 KB (its explanations, usage, provenance); what the
    comparison keeps of one (its id, where it is, its four metrics) is a few hundred bytes."""
    path = tmp_path / "a.jsonl"
    write_run(path, 5_000, seed=1, shift=0.0)
    read_run(path)  # the rubric declarations and readers load once, outside the measure
    tracemalloc.start()
    try:
        run = read_run(path)
        kept, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(run.ids) == 5_000
    assert kept / 5_000 < 600, f"{kept / 5_000:.0f} bytes kept per record"
