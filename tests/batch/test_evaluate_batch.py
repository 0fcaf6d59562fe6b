"""`judgegraph.evaluate_batch` / `aevaluate_batch` against the CLI's batch on the same rows, with
the demo judge (`tests/support/demo_judge.py`) behind the fake OpenAI-compatible server on
127.0.0.1: the same records, NaN cells read as the CLI reads empty CSV cells, resume, the cache,
a running event loop, and pandas never imported unless a DataFrame is handed over."""

from __future__ import annotations

import asyncio
import csv
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import judgegraph
from benchmarks.evaluate_batch_speed import rows, write_jsonl
from judgegraph.batch.item_values import item_value
from judgegraph.commands import cli
from tests.support import demo_judge
from tests.support.fault_server import FaultServer

ROOT = Path(__file__).resolve().parents[2]
JUDGE = {"model": "demo", "embeddings": False}


@pytest.fixture(scope="module")
def server():
    with FaultServer(reply=demo_judge.reply) as judge:
        yield judge


def cli_records(server, path: Path, out: Path, *flags: str) -> list[dict]:
    code = cli.main(["evaluate", str(path), "--out", str(out), "--base-url", server.base_url, "--model", "demo",
                     "--no-embeddings", *flags])
    assert code in (0, 1)
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def without_timings(record: dict) -> dict:
    return {**record, "usage": {key: value for key, value in record["usage"].items() if key != "seconds"}}


def by_id(records) -> dict:
    return {record["id"]: without_timings(record) for record in records}


def test_a_1000_row_frame_gives_the_cli_batchs_records_in_input_order(server, tmp_path):
    items = rows(1000)
    write_jsonl(items, tmp_path / "rows.jsonl")
    expected = cli_records(server, tmp_path / "rows.jsonl", tmp_path / "cli.jsonl", "--concurrency", "16")
    frame = pd.DataFrame(items)
    scores = judgegraph.evaluate_batch(frame, base_url=server.base_url, concurrency=16, **JUDGE)
    result = scores.attrs["judgegraph"]
    assert by_id(result.records) == by_id(expected)
    assert [record["id"] for record in result.records] == [item["id"] for item in items]
    assert list(scores.index) == list(frame.index) and list(scores["id"]) == list(frame["id"])
    no_reference = scores[frame["reference"].isna()]
    assert len(no_reference) == 100 and no_reference["semantic_similarity"].isna().all()
    assert (no_reference["semantic_similarity_explanation"] == "No reference answer provided.").all()
    cli_by_id = {record["id"]: record for record in expected}  # the CLI writes in completion order
    assert list(scores["faithfulness"]) == [cli_by_id[item["id"]]["result"]["faithfulness"] for item in items]
    assert result.summary["items"] == 1000 and result.summary["written"] == 1000
    assert result.summary["metrics"]["semantic_similarity"]["scored"] == 900


def test_nan_none_and_na_cells_read_as_the_cli_reads_empty_csv_cells(server, tmp_path):
    base = json.loads((ROOT / "examples" / "rag_item.json").read_text(encoding="utf-8"))
    frame = pd.DataFrame({
        "id": ["a", "b", "c", "d"],
        "question": [base["question"]] * 4,
        "context": [base["context"]] * 4,
        "answer": [base["answer"]] * 4,
        "reference": [base["reference"], np.nan, None, pd.NA],
        "evaluation_goal": [np.nan, "fact-checking", None, "fact-checking"],
    })
    with (tmp_path / "rows.csv").open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(frame.columns)
        for _, row in frame.iterrows():
            writer.writerow(["" if not isinstance(cell, list) and pd.isna(cell) else
                             json.dumps(cell) if isinstance(cell, list) else cell for cell in row])
    expected = cli_records(server, tmp_path / "rows.csv", tmp_path / "cli.jsonl")
    result = judgegraph.evaluate_batch(frame, base_url=server.base_url, **JUDGE).attrs["judgegraph"]
    # a CSV record's `line` is its file line (the header is line 1); an in-memory row's, its position
    assert [record["line"] for record in result] == [1, 2, 3, 4]
    assert ({key: {**record, "line": None} for key, record in by_id(result.records).items()}
            == {key: {**record, "line": None} for key, record in by_id(expected).items()})
    assert [r["result"]["semantic_similarity"] is None for r in result.records] == [False, True, True, True]
    assert all(r["result"]["evaluation_status"] != "failed" for r in result.records)


def test_numpy_and_pandas_values_read_as_the_json_they_stand_for():
    item = {"id": np.int64(7), "n": np.float64(0.5), "flag": np.bool_(True), "gone": np.float64("nan"),
            "na": pd.NA, "nat": pd.NaT, "none": None, "when": pd.Timestamp("2024-05-01T10:00:00"),
            "context": np.array(["one", "two"]), "pair": ("a", np.int32(2)), "nested": [1.0, math.nan, None],
            "inner": {"k": np.float32(1.5), "missing": np.nan}}
    value = item_value(item)
    assert value == {"id": 7, "n": 0.5, "flag": True, "when": "2024-05-01T10:00:00", "context": ["one", "two"],
                     "pair": ["a", 2], "nested": [1.0, None, None], "inner": {"k": 1.5, "missing": None}}
    assert type(value["id"]) is int and type(value["flag"]) is bool and type(value["n"]) is float
    assert json.loads(json.dumps(value)) == value


def test_a_list_reads_as_jsonl_lines_bad_items_included(server, tmp_path):
    items = rows(4)[1:]  # the first row's reference is NaN, which a JSON line cannot hold
    listed = [items[0], "not an item", {**items[1], "id": "line-4"}, items[2], {**items[0]}]
    (tmp_path / "rows.jsonl").write_text("".join(json.dumps(item) + "\n" for item in listed), encoding="utf-8")
    expected = cli_records(server, tmp_path / "rows.jsonl", tmp_path / "cli.jsonl")
    result = judgegraph.evaluate_batch(listed, base_url=server.base_url, **JUDGE)
    assert by_id(result) == by_id(expected)
    assert [record["id"] for record in result] == ["r1", "line-2", "line-3", "r3"]
    assert "line 2 must be a JSON object, got str" in result[1]["input_error"]
    assert "automatic id of line 4" in result[2]["input_error"]
    assert result.summary["duplicates"] == [{"id": "r1", "line": 5, "first_line": 1}]
    assert result.summary["bad_input"] == 2 and result.summary["failed"] == 2


def test_the_frame_lines_up_with_the_index_and_marks_a_duplicate_row(server):
    items = rows(3)
    frame = pd.DataFrame([items[0], items[1], items[0], items[2]], index=["w", "x", "y", "z"])
    scores = judgegraph.evaluate_batch(frame, base_url=server.base_url, **JUDGE)
    assert list(scores.index) == ["w", "x", "y", "z"]
    assert list(scores["status"]) == ["judged", "judged", "duplicate", "judged"]
    assert "first at line 1" in scores.loc["y", "error"] and math.isnan(scores.loc["y", "faithfulness"])
    assert list(scores.columns[:2]) == ["faithfulness", "faithfulness_explanation"]
    assert list(scores.columns[-4:]) == ["id", "rubric", "status", "error"]
    assert scores.loc["x", "rubric"] == "rag"


def test_the_frame_keeps_the_inputs_index_names_and_levels_so_it_joins_back(server):
    items = rows(3)
    frame = pd.DataFrame(items).assign(group=[1, 1, 2]).set_index(["group", "id"], drop=False)
    frame.index.names = ["group", "case"]
    scores = judgegraph.evaluate_batch(frame, base_url=server.base_url, **JUDGE)
    assert scores.index.equals(frame.index) and list(scores.index.names) == ["group", "case"]
    joined = frame.join(scores[["faithfulness", "status"]])
    assert list(joined["id"]) == list(joined.index.get_level_values("case"))
    assert list(joined["status"]) == ["judged"] * 3
    named = pd.DataFrame(items, index=pd.Index(["a", "b", "c"], name="row"))
    assert judgegraph.evaluate_batch(named, base_url=server.base_url, **JUDGE).index.name == "row"


def test_an_invalid_rows_error_says_its_reason_once(server):
    items = rows(2)
    frame = pd.DataFrame([items[0], {**items[1], "answer": None}])
    scores = judgegraph.evaluate_batch(frame, base_url=server.base_url, **JUDGE)
    error = scores["error"].iloc[1]
    assert scores["status"].iloc[1] == "failed" and "missing generated answer" in error
    assert error.count("missing generated answer") == 1


def test_out_resumes_like_the_clis_out(server, tmp_path):
    items = rows(5)
    out = tmp_path / "api.jsonl"
    first = judgegraph.evaluate_batch(items[:3], base_url=server.base_url, out=out, **JUDGE)
    assert first.summary["written"] == 3
    again = judgegraph.evaluate_batch(items, base_url=server.base_url, out=str(out), **JUDGE)
    assert again.summary["resumed"] == 3 and again.summary["written"] == 2 and again.summary["items"] == 5
    assert [record["id"] for record in again] == [item["id"] for item in items]
    write_jsonl(items, tmp_path / "rows.jsonl")
    expected = cli_records(server, tmp_path / "rows.jsonl", tmp_path / "cli.jsonl")
    assert by_id(again) == by_id(expected)
    assert len(out.read_text(encoding="utf-8").splitlines()) == 5


def test_the_cache_answers_a_second_run(server, tmp_path):
    items = rows(4)
    cache = tmp_path / "steps.sqlite"
    first = judgegraph.evaluate_batch(items, base_url=server.base_url, cache=cache, **JUDGE)
    second = judgegraph.evaluate_batch(items, base_url=server.base_url, cache=cache, **JUDGE)
    assert first.summary["cache_hits"] == 0 and first.summary["calls"] > 0
    assert second.summary["calls"] == 0 and second.summary["cache_hits"] == second.summary["cache_lookups"] > 0
    assert [r["result"] for r in second] == [r["result"] for r in first]


def test_the_sync_call_works_inside_a_running_loop_and_the_async_one_on_it(server):
    items = rows(3)
    plain = judgegraph.evaluate_batch(items, base_url=server.base_url, **JUDGE)

    async def notebook_cell():
        blocking = judgegraph.evaluate_batch(items, base_url=server.base_url, **JUDGE)
        awaited = await judgegraph.aevaluate_batch(pd.DataFrame(items), base_url=server.base_url, **JUDGE)
        return blocking, awaited

    blocking, awaited = asyncio.run(notebook_cell())
    assert by_id(blocking) == by_id(plain) == by_id(awaited.attrs["judgegraph"])


def test_a_single_item_or_a_frame_given_to_the_wrong_function_says_which_one(server):
    with pytest.raises(TypeError, match="judgegraph.evaluate"):
        judgegraph.evaluate_batch(rows(1)[0], base_url=server.base_url, **JUDGE)
    failed = judgegraph.evaluate(pd.DataFrame(rows(2)), base_url=server.base_url, **JUDGE)
    assert failed["evaluation_status"] == "failed" and "judgegraph.evaluate_batch(frame)" in failed["reason"]


def test_import_and_a_batch_of_a_list_load_no_pandas(server):
    script = (
        "import json, sys\n"
        "import judgegraph\n"
        "loaded = ['pandas' in sys.modules]\n"
        f"result = judgegraph.evaluate_batch({rows(3)[1:]!r}, model='demo', base_url={server.base_url!r}, embeddings=False)\n"
        "loaded.append('pandas' in sys.modules)\n"
        "print(json.dumps([loaded, len(result)]))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT.parent), os.environ.get("PYTHONPATH")]))}
    child = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300,
                           check=False)
    assert child.returncode == 0, child.stderr[-2000:]
    assert json.loads(child.stdout.strip().splitlines()[-1]) == [[False, False], 2]


def test_a_frame_read_from_a_csv_file_is_judged_as_the_cli_judges_the_file(server, tmp_path):
    """`pd.read_csv` leaves a list column as text: it is read as the CLI's CSV reader reads it."""
    path = ROOT / "examples" / "items.csv"
    expected = cli_records(server, path, tmp_path / "cli.jsonl")
    frame = pd.read_csv(path)
    assert isinstance(frame.loc[0, "contexts"], str)
    result = judgegraph.evaluate_batch(frame, base_url=server.base_url, **JUDGE).attrs["judgegraph"]
    assert ({key: {**record, "line": None} for key, record in by_id(result.records).items()}
            == {key: {**record, "line": None} for key, record in by_id(expected).items()})


def test_a_frame_whose_columns_read_the_same_as_text_is_refused_before_any_call(server):
    """Rows are read by column name as text: `1` beside `"1"`, or a name repeated, would keep
    the last cell and drop the other (a context lost in silence), so the frame is refused."""
    before = server.requests
    frame = pd.DataFrame([["Who founded Craigslist?", "Craig Newmark.", "stale", "Craig Newmark founded it."]],
                         columns=["question", "answer", "context", "context"])
    with pytest.raises(ValueError, match="more than one column named 'context'"):
        judgegraph.evaluate_batch(frame, base_url=server.base_url, **JUDGE)
    mixed = pd.DataFrame([[1, 2]], columns=[1, "1"])
    with pytest.raises(ValueError, match="more than one column named '1'"):
        judgegraph.evaluate_batch(mixed, base_url=server.base_url, **JUDGE)
    assert server.requests == before
