"""Batch input lines, the durable results file, the CSV export and the generic summary."""

from __future__ import annotations

import json
import math

import pytest

from judgegraph.batch.csv_export import csv_path_for, flat_row, write_csv
from judgegraph.batch.reader import InputFileError, open_input, parse_line, read_entries
from judgegraph.batch.summary import Summary, failure_of, metric_leaves
from judgegraph.batch.writer import OutputFileError, ResultWriter, encode_record, has_non_finite, prepare_output, scan_output


def entry(text: str | bytes, limit: int = 1000, number: int = 3):
    raw = text.encode() if isinstance(text, str) else text
    return parse_line(number, raw, len(raw), limit)


# --- reader ----------------------------------------------------------------------------------

@pytest.mark.parametrize("text, reason", [
    ("{not json", "line 3 is not valid JSON"),
    ("[1, 2]", "must be a JSON object, got list"),
    ("null", "must be a JSON object, got null"),
    ('"a string"', "must be a JSON object, got str"),
    ('{"id": true, "question": "q"}', "'id' must be a string or an integer"),
    ('{"id": [1], "question": "q"}', "'id' must be a string or an integer"),
    ('{"id": 1.5, "question": "q"}', "'id' must be a string or an integer"),
    ("[" * 100_000, "line 3"),
])
def test_bad_lines_become_reasons_with_the_line_number(text, reason):
    got = entry(text, limit=1_000_000)
    assert got.item is None and got.id == "line-3"
    assert got.error.startswith("Input parsing error") and reason in got.error


def test_non_utf8_and_too_large_lines():
    assert "not UTF-8" in entry(b'{"a": "\xff\xfe"}').error
    big = entry("x" * 50, limit=10)
    assert "50 bytes, over the limit of 10" in big.error and big.id == "line-3"


def test_ids_from_the_item_or_the_line_number():
    assert entry('{"id": "q1", "answer": "a"}').id == "q1"
    assert entry('{"id": 17}').id == 17 and entry('{"id": 17}').key == "17"
    assert entry('{"answer": "a"}').id == "line-3"
    assert entry('{"id": null}').id == "line-3"
    assert entry('{"id": ""}').id == "line-3"


def test_read_entries_skips_blank_lines_and_streams_past_enormous_ones(tmp_path):
    path = tmp_path / "items.jsonl"
    with path.open("wb") as handle:
        handle.write(b'{"id": "a"}\r\n\n   \n')
        handle.write(b'{"id": "huge", "x": "' + b"y" * 3_000_000 + b'"}\n')
        handle.write(b'{"id": "b"}')  # no final newline
    entries = list(read_entries(path, max_line_bytes=1000))
    assert [(e.line, e.id) for e in entries] == [(1, "a"), (4, "line-4"), (5, "b")]
    assert "over the limit of 1000" in entries[1].error


def test_unreadable_input_is_one_line(tmp_path):
    with pytest.raises(InputFileError, match="cannot read .*missing.jsonl"):
        open_input(tmp_path / "missing.jsonl")
    with pytest.raises(InputFileError, match="(?i)is a directory"):
        open_input(tmp_path)


# --- writer ----------------------------------------------------------------------------------

def test_prepare_output_cuts_a_partial_last_line(tmp_path):
    out = tmp_path / "out.jsonl"
    out.write_bytes(b'{"id": "a", "result": {}}\n{"id": "b", "result": {}}\n{"id": "c", "resu')
    state = prepare_output(out)
    assert out.read_bytes() == b'{"id": "a", "result": {}}\n{"id": "b", "result": {}}\n'
    assert state.done == {"a", "b"} and state.truncated_bytes == len(b'{"id": "c", "resu')


def test_prepare_output_without_any_newline_empties_the_file(tmp_path):
    out = tmp_path / "out.jsonl"
    out.write_bytes(b'{"id": "a", "par')
    assert prepare_output(out).done == set()
    assert out.read_bytes() == b""


def test_prepare_output_keeps_a_whole_last_record_that_lacks_its_newline(tmp_path):
    """An editor that drops the final newline, or a kill after all but the last byte: the record
    is whole, so it is ended, not cut (its item would be judged, and paid for, again)."""
    out = tmp_path / "out.jsonl"
    out.write_bytes(b'{"id": "a", "result": {}}\n{"id": "b", "result": {"s": 1}}')
    state = prepare_output(out)
    assert out.read_bytes() == b'{"id": "a", "result": {}}\n{"id": "b", "result": {"s": 1}}\n'
    assert state.done == {"a", "b"} and state.truncated_bytes == 0
    assert scan_output(out).done == {"a", "b"}


def test_prepare_output_ends_a_last_line_that_is_no_record_without_cutting_it(tmp_path):
    out = tmp_path / "out.jsonl"
    out.write_bytes(b'{"id": "a", "result": {}}\nnotes by hand')
    state = prepare_output(out)
    assert out.read_bytes() == b'{"id": "a", "result": {}}\nnotes by hand\n'
    assert state.done == {"a"} and state.truncated_bytes == 0 and state.unreadable_lines == [2]


@pytest.mark.parametrize("content", [
    b'{"id": "q1", "question": "q", "answer": "a"}\n{"id": "q2", "question": "q", "answer": "a"}\n',  # a dataset
    b"question,answer,context\nWho?,Craig.,Craig founded it.\n",  # a CSV
    b"some notes\nwithout a final newline",  # a text file: its last line is never cut
    b'{"id": "q1", "question": "q", "answer": "a"}',  # one item, no newline
])
def test_a_file_that_is_not_a_results_file_is_refused_and_left_as_it_is(tmp_path, content):
    out = tmp_path / "other.jsonl"
    out.write_bytes(content)
    for retry_failed in (False, True):
        with pytest.raises(OutputFileError, match="other.jsonl is not a judgegraph results file: none of its"):
            prepare_output(out, retry_failed=retry_failed)
        with pytest.raises(OutputFileError, match="not a judgegraph results file"):
            scan_output(out)
    assert out.read_bytes() == content


def test_prepare_output_leaves_complete_files_and_reports_junk_lines(tmp_path):
    out = tmp_path / "out.jsonl"
    out.write_bytes(b'{"id": 1, "result": {}}\nnot json\n{"no_id": 1}\n{"id": "x"}\n')
    state = prepare_output(out)
    assert out.read_bytes().endswith(b'{"id": "x"}\n')
    assert state.done == {"1", "x"} and state.unreadable_lines == [2, 3] and state.truncated_bytes == 0
    assert scan_output(tmp_path / "absent.jsonl").done == set()
    blank = tmp_path / "blank.jsonl"
    blank.write_bytes(b"\n\n")
    assert prepare_output(blank).done == set()


def test_writer_appends_complete_lines_and_refuses_nan(tmp_path):
    out = tmp_path / "out.jsonl"
    with ResultWriter(out) as writer:
        writer.write({"id": "a", "result": {"s": 0.5}})
        with pytest.raises(ValueError):
            writer.write({"id": "b", "result": {"s": math.nan}})
        writer.write({"id": "c", "result": {"text": "é\n"}})
    lines = out.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["id"] for line in lines] == ["a", "c"]
    assert has_non_finite({"a": [1, {"b": math.inf}]}) and not has_non_finite({"a": [1.0]})
    assert encode_record({"id": 1}).endswith(b"\n")


# --- csv -------------------------------------------------------------------------------------

def test_csv_flattens_result_keys_with_dots(tmp_path):
    out = tmp_path / "results.jsonl"
    records = [
        {"id": "a", "line": 1, "rubric": "coverage", "result": {"score": 3, "rationale": ["x", "y"]},
         "usage": {"calls": 2}},
        {"id": "b", "line": 2, "rubric": "expected_output",
         "result": {"evaluation": {"result": {"score": 7}}}, "usage": {"calls": 1}},
    ]
    out.write_text("".join(json.dumps(r) + "\n" for r in records))
    target = csv_path_for(out)
    assert target.name == "results.csv"
    assert write_csv(out, target) == 2
    header, first, second = target.read_text().splitlines()
    assert header.split(",")[:3] == ["id", "line", "rubric"]
    assert "result.evaluation.result.score" in header and "result.rationale" in header
    assert flat_row(records[0])["result.rationale"] == '["x", "y"]'


# --- summary ---------------------------------------------------------------------------------

RAG = {"faithfulness": 0.5, "faithfulness_explanation": "e", "context_relevance": None,
       "context_relevance_explanation": "failed", "evaluation_status": "failed", "reason": None,
       "error": "context_relevance: boom"}


def test_metric_leaves_are_found_generically():
    assert dict(metric_leaves(RAG)) == {"faithfulness": 0.5, "context_relevance": None}
    assert dict(metric_leaves({"score": 4, "rationale": ["a"]})) == {"score": 4.0}
    assert dict(metric_leaves({"evaluation_notes": "n", "relevance_score": 2, "faithfulness_score": -1})) == {
        "relevance_score": 2.0, "faithfulness_score": -1.0}
    expected = {"evaluation": {"evaluation_type": "numerical", "confidence": 0.7,
                               "result": {"score": 7, "min_range": 1, "passed": True}}}
    assert dict(metric_leaves(expected)) == {"evaluation.result.score": 7.0}


def test_failure_detection_is_generic():
    assert failure_of(RAG) == "context_relevance: boom"
    assert failure_of({"error": True, "error_type": "evaluation_failure", "error_message": "bad"}) == "bad"
    assert failure_of({"score": 0, "rationale": []}) is None
    assert failure_of({"rag": RAG, "coverage": {"score": 1}}).startswith("rag:")


def test_summary_counts_means_and_nulls():
    summary = Summary()
    summary.add({"rubric": "rag", "result": RAG, "usage": {"calls": 3, "input_tokens": 10}})
    summary.add({"rubric": "rag", "result": dict(RAG, faithfulness=1.0, error=None, evaluation_status="success"),
                 "usage": {"calls": 2}})
    summary.add({"rubric": "rag", "result": dict(RAG, faithfulness=None), "input_error": "bad line",
                 "usage": {}})
    stats = summary.metrics[("rag", "faithfulness")]
    assert stats.mean == 0.75 and len(stats.values) == 2 and stats.nulls == 1
    assert summary.totals.calls == 5 and summary.totals.failed == 2 and summary.totals.bad_input == 1


def test_one_writer_per_results_file(tmp_path):
    from judgegraph.batch.writer import OutputFileError

    out = tmp_path / "out.jsonl"
    with ResultWriter(out):
        with pytest.raises(OutputFileError, match="another judgegraph run is writing"):
            ResultWriter(out)
    with ResultWriter(out) as again:  # released on close
        again.write({"id": "a"})
