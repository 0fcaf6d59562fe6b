"""Hostile results and labels files through `compare`, `report` and `calibrate`: a value no
score may be (NaN, Infinity, a string, out of scale) is one line on stderr naming the file, the
line and the field (exit 2), never a traceback, never a gate that passes; JSON output is JSON."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import pytest

from judgegraph.commands import cli
from judgegraph.fitting.labels import read_labels
from tests.support.result_records import rag, write_results


def strict_json(text: str) -> Any:
    """`json.loads` that refuses NaN and Infinity (Python's accepts them: not JSON)."""
    def refuse(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")
    return json.loads(text, parse_constant=refuse)


def write_raw(path: Path, lines: list[str]) -> Path:
    """Lines written as they are (json.dumps writes NaN and Infinity bare, as a hostile file has them)."""
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def seven_drops(tmp_path: Path, last_after: Any) -> list[str]:
    """Seven items fall from 1.0 to 0.0; the seventh after-score is `last_after`."""
    before = write_results(tmp_path / "before.jsonl", [rag(f"q{i}", 1.0) for i in range(7)])
    after = [json.dumps(rag(f"q{i}", 0.0)) for i in range(6)] + [json.dumps(rag("q6", last_after))]
    return [str(before), str(write_raw(tmp_path / "after.jsonl", after))]


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_the_gate_fails_on_seven_drops(tmp_path, capsys):
    code, _, err = run(["compare", *seven_drops(tmp_path, 0.0), "--fail-if-worse", "faithfulness:0.02"], capsys)
    assert code == 1 and "faithfulness: WORSE" in err


@pytest.mark.parametrize("score, words", [
    (float("nan"), "'result.faithfulness' is NaN"),
    (float("inf"), "'result.faithfulness' is Infinity"),
    (-5, "'result.faithfulness' should be greater than or equal to 0, got -5"),
    (1e308, "'result.faithfulness' should be less than or equal to 1, got 1e+308"),
    pytest.param(10**400, "'result.faithfulness'", id="10**400"),
    ("0.0", "'result.faithfulness'"),
    (True, "'result.faithfulness' must be a number or null, got true"),
])
def test_a_score_no_scale_allows_stops_the_gate_with_file_line_and_field(tmp_path, capsys, score, words):
    code, out, err = run(["compare", *seven_drops(tmp_path, score), "--fail-if-worse", "faithfulness:0.02",
                          "--json"], capsys)
    assert code == 2 and out == ""
    assert err.strip().splitlines() == [err.strip()]
    assert err.startswith(f"judgegraph: {tmp_path / 'after.jsonl'} line 7: ") and words in err
    assert "nan" not in err.lower().replace("is nan", "")  # no "[+nan, +nan] shows no drop"


@pytest.mark.parametrize("command", ["report", "compare"])
def test_a_nan_score_is_no_score_in_report_or_compare(tmp_path, capsys, command):
    files = seven_drops(tmp_path, float("nan"))
    argv = ["report", files[1], "-o", str(tmp_path / "r.html")] if command == "report" else ["compare", *files]
    code, _, err = run(argv, capsys)
    assert code == 2 and "line 7: 'result.faithfulness' is NaN" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "r.html").exists()


def test_compare_json_is_strict_json(tmp_path, capsys):
    before = write_results(tmp_path / "b.jsonl", [rag(f"q{i}", 0.5) for i in range(3)])
    after = write_results(tmp_path / "a.jsonl", [rag(f"q{i}", 0.5) for i in range(3)])  # no change: no p-value
    code, out, _ = run(["compare", str(before), str(after), "--json"], capsys)
    assert code == 0
    data = strict_json(out)
    assert data["metrics"][0]["metric"] == "faithfulness"


# -- one-field changes of a valid record ---------------------------------------------------------

BASE_DETAILS = {
    "item": {"question": "Who founded it?", "context": "Craig founded it in 1995.", "answer": "Craig did."},
    "rubrics": ["rag"], "profile": "default",
    "verdicts": [{"index": 0, "claim": "Craig did.", "verdict": "supported", "support": 0.9, "supported": True,
                  "evidence": "Craig founded it in 1995.", "evidence_found": True, "grounding": 1.0}],
    "nodes": [{"node": "extract_claims", "outcome": "ok", "duration_s": 0.01, "calls": 1, "input_tokens": 5,
               "output_tokens": 2, "attempts": [{"number": 1, "ok": True}], "errors": [], "detail": {}}],
}
FIELDS: list[tuple[Any, ...]] = [
    ("id",), ("line",), ("rubric",), ("result",), ("usage",), ("details",),
    ("result", "faithfulness"), ("result", "faithfulness_explanation"), ("result", "error"),
    ("usage", "calls"), ("usage", "seconds"),
    ("details", "verdicts"), ("details", "nodes"), ("details", "verdicts", 0, "support"),
    ("details", "verdicts", 0, "claim"), ("details", "nodes", 0, "attempts"),
]
VALUES: dict[str, Any] = {"NaN": float("nan"), "Infinity": float("inf"), "string": "x", "list": [1],
                          "object": {"a": 1}, "null": None, "1e308": 1e308, "-5": -5, "10**400": 10**400,
                          "true": True}
NO_NUMBER = {"NaN", "Infinity"}
"""Never a value anywhere in a record: always the field named, exit 2."""


def mutations() -> list[tuple[str, tuple[Any, ...], Any]]:
    return [(f"{'.'.join(map(str, path))}={name}", path, value) for path in FIELDS for name, value in VALUES.items()]


def mutated(path: tuple[Any, ...], value: Any) -> dict:
    record = copy.deepcopy(rag("q0", 0.5, context_relevance=0.5, details=copy.deepcopy(BASE_DETAILS)))
    target = record
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return record


def test_the_mutations_are_many_and_the_base_record_is_valid(tmp_path, capsys):
    assert len(mutations()) >= 36
    path = write_results(tmp_path / "base.jsonl", [mutated(("line",), 1)])
    assert run(["report", str(path), "-o", str(tmp_path / "r.html")], capsys)[0] == 0


@pytest.mark.parametrize("name, path, value", mutations(), ids=[m[0] for m in mutations()])
def test_one_field_changed_is_a_report_or_one_line_never_a_traceback(tmp_path, capsys, name, path, value):
    base = write_results(tmp_path / "base.jsonl", [mutated(("line",), 1)])
    changed = write_raw(tmp_path / "changed.jsonl", [json.dumps(mutated(path, value))])
    for argv in (["report", str(changed), "-o", str(tmp_path / "r.html")], ["compare", str(base), str(changed)]):
        code, out, err = run(argv, capsys)  # an exception here is the traceback this test exists to catch
        assert code in (0, 2), (argv[0], code, err)
        if code == 2:
            assert len(err.strip().splitlines()) == 1 and err.startswith("judgegraph: "), err
            assert f"{changed} line 1: '" in err or "share no item id" in err, err  # a field, or a changed id
        if argv[0] == "compare" and code == 0:
            assert "nan" not in out.lower().split()
    if name.rsplit("=", 1)[1] in NO_NUMBER:
        field = ".".join(str(p) for p in path).replace(".0.", "[0].")
        assert code == 2 and f"'{field}' is {name.rsplit('=', 1)[1]}" in err


# -- labels --------------------------------------------------------------------------------------

def label_row(index: int, human: Any, **extra: Any) -> dict:
    return {"id": f"l{index}", "question": "Q?", "context": "C.", "answer": "A.", "human": human, **extra}


@pytest.mark.parametrize("human, words", [
    ("NaN", "line 2: 'human' is NaN"),
    ("Infinity", "line 2: 'human' is Infinity"),
    pytest.param("1" + "0" * 400, "line 2: 'human': a number of 401 digits is outside the labels' range", id="10**400"),
    ("1e308", "line 2: 'human': 1e+308 is outside the labels' range"),
    ('{"score": 1e400}', "line 2: 'human.score' is Infinity"),
    ("2.5", "line 2: 'human': 2.5 is outside 0..1"),
])
def test_calibrate_refuses_a_label_that_is_no_number_in_one_line(tmp_path, capsys, human, words):
    rows = [json.dumps(label_row(0, 1)), json.dumps(label_row(1, 0)).replace('"human": 0', f'"human": {human}'),
            json.dumps(label_row(2, 0.5))]
    labels = write_raw(tmp_path / "labels.jsonl", rows)  # line 2 holds the hostile label
    code, _, err = run(["calibrate", str(labels), "--metric", "faithfulness", "-o", str(tmp_path / "p.json"),
                        "--base-url", "http://127.0.0.1:9/v1", "--model", "never-called"], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert err.startswith("judgegraph: labels.jsonl ") and words in err, err


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\u0085"])
def test_a_labels_line_holding_a_unicode_line_separator_is_one_line(tmp_path, separator):
    rows = [label_row(0, 1, answer=f"Craig{separator}did."), label_row(1, 0)]
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    assert separator in path.read_text(encoding="utf-8")  # raw, as JSON allows (not \\u escaped)
    labels = read_labels(path, "faithfulness")
    assert [e.item["answer"] for e in labels.items] == [f"Craig{separator}did.", "A."]


def test_a_labels_line_that_is_not_utf8_is_an_error_naming_it(tmp_path, capsys):
    path = tmp_path / "labels.jsonl"
    path.write_bytes(json.dumps(label_row(0, 1)).encode() + b"\n"
                     + json.dumps(label_row(1, 0)).encode().replace(b"A.", b"A\xff.") + b"\n")
    code, _, err = run(["calibrate", str(path), "--metric", "faithfulness", "-o", str(tmp_path / "p.json"),
                        "--base-url", "http://127.0.0.1:9/v1", "--model", "never-called"], capsys)
    assert code == 2 and "labels.jsonl line 2: not UTF-8 text (invalid start byte at byte" in err
    assert "\ufffd" not in err


def test_a_results_line_holding_u2028_is_one_record(tmp_path, capsys):
    records = [rag("q0", 0.5), rag("q1", 0.75)]
    records[0]["result"]["faithfulness_explanation"] = "one\u2028two\u0085three"
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    code, out, _ = run(["compare", str(path), str(path), "--json"], capsys)
    assert code == 0 and strict_json(out)["shared"] == 2


def test_results_lines_with_encoded_surrogates_are_not_records(tmp_path, capsys):
    """b"\\xed\\xa0\\x80" is a UTF-16 surrogate encoded as if UTF-8: `json.loads(bytes)` lets it
    through as a lone surrogate that no page or terminal can encode; strict UTF-8 refuses it."""
    good = write_results(tmp_path / "good.jsonl", [rag("q0", 0.5), rag("q1", 0.5)])
    bad_line = json.dumps(rag("q1", 0.5)).encode().replace(b"faithfulness explanation", b"x\xed\xa0\x80")
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(json.dumps(rag("q0", 0.5)).encode() + b"\n" + bad_line + b"\n")
    code, out, _ = run(["compare", str(good), str(bad), "--json"], capsys)
    assert code == 0 and "bad.jsonl: 1 line(s) are not result records (line 2): left out" in strict_json(out)["notes"]
    assert not math.isnan(strict_json(out)["metrics"][0]["score"]["mean_difference"])
