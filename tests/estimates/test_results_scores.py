"""`estimate`'s reading of a results file: its shortcuts (a batch-shaped line read without a
second look, a score read straight from its rubric's field) give what the slow path gives, the
strict reader on every line and each rubric's own reader on every record, on hostile files
too: the same scores, statuses, counts and ids, or the same one-line refusal."""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judgegraph.estimates import results_scores
from judgegraph.estimates.results_scores import ResultsScoresError, read_scores
from tests.support.hostile_files import RESULTS_KINDS, results_line
from tests.support.result_records import coverage, rag, record

BASE = rag("r0", 0.5, context_relevance=0.25, answer_relevance=1.0)


def _dumps(value: dict) -> bytes:
    return json.dumps(value).encode("utf-8")


OTHER_LINES = {
    "failed": lambda n: _dumps(rag(f"r{n}", None, error="faithfulness: judge timed out")),
    "not_applicable": lambda n: _dumps(rag(f"r{n}", 0.5, context_relevance=None)),
    "whole_number_score": lambda n: _dumps(rag(f"r{n}", 1, context_relevance=0)),
    "coverage": lambda n: _dumps(coverage(f"r{n}", n % 6)),
    "coverage_off_scale": lambda n: _dumps(coverage(f"r{n}", 9)),
    "two_rubrics": lambda n: _dumps(record(f"r{n}", ["rag", "coverage"],
                                           {"rag": BASE["result"], "coverage": {"score": 3, "rationale": []}})),
    "unknown_rubric": lambda n: _dumps(dict(BASE, id=f"r{n}", rubric="mine")),
    "rubric_object": lambda n: _dumps(dict(BASE, id=f"r{n}", rubric={"a": 1})),
    "id_number": lambda n: _dumps(dict(BASE, id=n)),
    "id_null": lambda n: _dumps(dict(BASE, id=None)),
    "id_float": lambda n: _dumps(dict(BASE, id=n + 0.5)),
    "no_id": lambda n: _dumps({k: v for k, v in BASE.items() if k != "id"}),
    "result_null": lambda n: _dumps(dict(BASE, id=f"r{n}", result=None)),
    "result_list": lambda n: _dumps(dict(BASE, id=f"r{n}", result=[1, 2])),
    "a_list": lambda n: b"[1, 2]",
    "group": lambda n: _dumps(dict(BASE, id=f"r{n}", topic=["a", "b", {"c": 1}][n % 3])),
}
KINDS = sorted(RESULTS_KINDS) + sorted(OTHER_LINES)
METRICS = (["faithfulness"], ["faithfulness", "context_relevance"], ["coverage"], ["answer_relevance", "coverage"])


def _line(kind: str, number: int) -> bytes:
    return results_line(kind, number, BASE) if kind in RESULTS_KINDS else OTHER_LINES[kind](number)


def _outcome(path: Path, metrics: list[str], by: str | None) -> tuple:
    try:
        scores = read_scores(path, metrics, {"r1", "r2", "r-duplicate", "3", "None"}, by)
    except ResultsScoresError as error:
        return ("refused", str(error))
    columns = {key: ([None if math.isnan(v) else v for v in c.scores], c.scale, c.failed, c.not_applicable, c.absent)
               for key, c in scores.columns.items()}
    return (columns, scores.ids, scores.records, None if scores.groups is None else list(scores.groups),
            scores.group_names, scores.unreadable_lines, scores.truncated_tail, scores.duplicate_ids,
            scores.first_record)


@settings(max_examples=300, deadline=None)
@given(kinds=st.lists(st.sampled_from(KINDS), min_size=1, max_size=10), metrics=st.sampled_from(METRICS),
       by=st.sampled_from([None, "topic"]), ending=st.sampled_from([b"\n", b"\r\n", b""]), bom=st.booleans())
def test_the_shortcuts_read_what_the_slow_path_reads(kinds, metrics, by, ending, bom):
    data = (b"\xef\xbb\xbf" if bom else b"") + ending.join(_line(kind, n) for n, kind in enumerate(kinds, 1))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "results.jsonl"
        path.write_bytes(data + ending)
        fast = _outcome(path, list(metrics), by)
        saved = results_scores._fast_loads, results_scores._plan
        # every line through the strict reader, every record through its rubric's reader (the
        # plan is still made: it names each metric's scale)
        results_scores._fast_loads, results_scores._plan = None, lambda *args: (saved[1](*args), None)[1]
        try:
            slow = _outcome(path, list(metrics), by)
        finally:
            results_scores._fast_loads, results_scores._plan = saved
    assert fast == slow


@pytest.mark.parametrize("kind, shown", [("negative_score", "-5"), ("bigint_score", "a number of 401 digits")])
def test_a_score_off_its_scale_is_refused_with_its_line_and_field(tmp_path, kind, shown):
    lines = [_dumps(rag("a", 0.5)), _dumps(rag("b", 0.5)), results_line(kind, 3, BASE)]
    path = tmp_path / "results.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    outcome = _outcome(path, ["faithfulness"], None)
    assert outcome == ("refused", f"{path} line 3: 'result.faithfulness' is {shown}, outside its scale 0..1")


@pytest.mark.parametrize("score, shown", [("0.5", "a string"), (True, "true"), ([0.5], "a list"), ({"v": 1}, "an object")])
@pytest.mark.parametrize("rubric", ["rag", ["rag"]])
def test_a_score_that_is_not_a_number_is_refused_as_compare_refuses_it(tmp_path, score, shown, rubric):
    """A hand-edited `"0.5"` is not a failed metric: counted as one, it would leave the item out
    of both means with a note that it failed, where `compare` and `report` stop on the line."""
    from judgegraph.batch.results_file import ResultsFileError, read_results

    bad = rag("c", 0.5)
    bad["result"]["faithfulness"] = score
    if isinstance(rubric, list):
        bad = record("c", rubric, {"rag": bad["result"]})
    path = tmp_path / "results.jsonl"
    path.write_bytes(b"\n".join([_dumps(rag("a", 0.5)), _dumps(rag("b", 0.5)), _dumps(bad)]) + b"\n")
    outcome = _outcome(path, ["faithfulness"], None)
    assert outcome[0] == "refused" and outcome[1].startswith(f"{path} line 3: ")
    assert outcome[1].endswith(f"must be a number or null, got {shown}")
    with pytest.raises(ResultsFileError, match=r"line 3: 'result\.(rag\.)?faithfulness'"):
        read_results(path)
