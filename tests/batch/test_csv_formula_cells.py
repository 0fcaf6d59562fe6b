"""`--format csv` never writes a cell a spreadsheet would run as a formula: every text cell
(ids, questions, answers, explanations, column names) that starts with one of OWASP's formula
characters gets a single quote before it; numbers, negative ones included, stay numbers."""

from __future__ import annotations

import csv
import json

from hypothesis import given
from hypothesis import strategies as st

from judgegraph.batch.csv_export import FORMULA_STARTS, write_csv
from tests.batch.test_batch_runner import rag_item, run_cli, scripted, write_lines  # noqa: F401


def read_table(path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def test_a_batchs_csv_neutralises_formula_text_from_the_items(tmp_path, scripted):  # noqa: F811
    hostile = ['=HYPERLINK("http://x","y")', "+1+2", "-2+3", "@SUM(A1)", "\t=1", "\r=1"]
    items = write_lines(tmp_path / "items.jsonl", [
        rag_item(text, question=text, answer=text) for text in hostile])
    out = tmp_path / "results.jsonl"
    run_cli(items, "--out", out, "--format", "csv", "--details", *scripted.flags)
    rows = read_table(tmp_path / "results.csv")
    assert sorted(row["id"] for row in rows) == sorted("'" + text for text in hostile)
    for row in rows:
        for column, cell in row.items():
            assert not cell.startswith(FORMULA_STARTS), (column, cell)
    by_id = {row["id"]: row for row in rows}
    assert by_id["'=HYPERLINK(\"http://x\",\"y\")"]["details.item.question"] == "'=HYPERLINK(\"http://x\",\"y\")"
    assert all(float(row["result.faithfulness"]) == 1.0 for row in rows)  # a number, unquoted


def test_numbers_stay_numbers_and_negative_ones_are_not_quoted(tmp_path):
    out = tmp_path / "results.jsonl"
    record = {"id": "-5", "line": 1, "rubric": "liverag",
              "result": {"relevance_score": -1, "faithfulness_score": -1, "evaluation_notes": "-1 is the floor"},
              "usage": {"calls": 1, "seconds": -0.0}}
    out.write_text(json.dumps(record) + "\n")
    write_csv(out, tmp_path / "results.csv")
    [row] = read_table(tmp_path / "results.csv")
    assert row["result.relevance_score"] == "-1" and row["usage.seconds"] == "-0.0"
    assert row["id"] == "'-5" and row["result.evaluation_notes"] == "'-1 is the floor"


@given(prefix=st.sampled_from(FORMULA_STARTS), rest=st.text(max_size=30), key=st.text(min_size=1, max_size=10))
def test_every_text_cell_and_column_name_with_a_formula_start_is_quoted(tmp_path_factory, prefix, rest, key):
    folder = tmp_path_factory.mktemp("csv")
    text = prefix + rest
    record = {"id": text, "line": 1, "rubric": "rag",
              "result": {"faithfulness": 0.5, "faithfulness_explanation": text, prefix + key: text}}
    out = folder / "results.jsonl"
    out.write_text(json.dumps(record) + "\n", encoding="utf-8")
    write_csv(out, folder / "results.csv")
    with (folder / "results.csv").open(encoding="utf-8", newline="") as handle:
        header, row = list(csv.reader(handle))
    for cell in (*header, *row):
        assert not cell.startswith(FORMULA_STARTS)
    cells = dict(zip(header, row))
    assert cells["id"].startswith("'" + prefix) and cells["result.faithfulness_explanation"].startswith("'" + prefix)
    assert cells["result.faithfulness"] == "0.5"
