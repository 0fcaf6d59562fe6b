"""Rows whose keys mean different things in different tools, read by what else the row holds
(issue 54, rows read wrong): `input`/`output`/`reference` rows, DeepEval's own test run file,
MLflow's logged table in pandas' orientations. Through the CLI against the context-aware
scripted judge of `test_exports_and_misreads` (faithfulness 1.0 proves the context reached it)."""

from __future__ import annotations

import json

import pytest

from tests.batch.test_exports_and_misreads import FIXTURES, LINE, endpoint, records, run  # noqa: F401 (fixture)

QUESTION, ANSWER, GOLD = "What is the capital of France?", "Paris is the capital of France.", "Paris."


def write_jsonl(path, *rows):
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


# --- input / output / reference ---------------------------------------------------------------

def test_input_output_reference_alone_is_refused_with_both_readings(endpoint, tmp_path):
    """Before: read the Phoenix way in silence, a gold answer judged as the context
    (faithfulness 0.0, "No reference answer provided", exit 0)."""
    items = write_jsonl(tmp_path / "items.jsonl", {"input": QUESTION, "output": ANSWER, "reference": GOLD})
    out = tmp_path / "out.jsonl"
    assert run(items, "--out", out, *endpoint.flags) == 1
    [record] = records(out)
    assert record["result"]["evaluation_status"] == "failed"
    assert record["result"]["faithfulness"] is None
    reason = record["result"]["reason"]
    assert "--map answer=output reads it as the reference answer" in reason
    assert "--map answer=output,context=reference as the context" in reason


def test_the_map_the_refusal_names_reads_reference_as_the_reference_answer(endpoint, tmp_path):
    items = write_jsonl(tmp_path / "items.jsonl", {"input": QUESTION, "output": ANSWER, "reference": GOLD})
    out = tmp_path / "out.jsonl"
    assert run(items, "--out", out, "--map", "answer=output", *endpoint.flags) == 0
    [record] = records(out)
    assert record["result"]["semantic_similarity"] is not None  # the gold answer was read as the reference
    assert record["result"]["faithfulness"] is None  # and not as a context


def test_phoenix_index_columns_tell_reference_is_the_context(endpoint, tmp_path):
    items = write_jsonl(tmp_path / "items.jsonl", {"context.span_id": "00f067aa0ba902b7", "input": QUESTION,
                                                   "output": ANSWER, "reference": LINE})
    out = tmp_path / "out.jsonl"
    assert run(items, "--out", out, *endpoint.flags) == 0
    [record] = records(out)
    assert record["input_fields"]["shape"] == "Phoenix evaluation frame"
    assert record["result"]["faithfulness"] == 1.0


def test_a_row_with_context_and_reference_reads_output_as_the_answer(endpoint, tmp_path):
    """Before: `output` was unreadable once the row held `context` ("missing generated answer")."""
    items = write_jsonl(tmp_path / "items.jsonl", {"input": QUESTION, "output": ANSWER, "context": [LINE],
                                                   "reference": GOLD})
    out = tmp_path / "out.jsonl"
    assert run(items, "--out", out, *endpoint.flags) == 0
    [record] = records(out)
    result = record["result"]
    assert result["evaluation_status"] == "success" and result["faithfulness"] == 1.0
    assert result["semantic_similarity"] is not None  # the reference is the reference answer
    assert record["input_fields"]["shape"] == "input/output row with context and reference"


def test_phoenix_input_output_context_frame_is_read(endpoint, tmp_path):
    """`get_input_output_context(...).to_csv()` (what `get_qa_with_reference` now returns)."""
    out = tmp_path / "out.jsonl"
    assert run(FIXTURES / "phoenix_input_output_context.csv", "--out", out, *endpoint.flags) == 0
    [record] = records(out)
    assert record["input_fields"]["shape"] == "Phoenix input/output/context frame"
    assert record["result"]["faithfulness"] == 1.0
    assert record["result"]["semantic_similarity"] is None


def test_the_summary_names_the_reading(endpoint, tmp_path, capsys):
    items = write_jsonl(tmp_path / "items.jsonl", {"input": QUESTION, "output": ANSWER, "context": [LINE],
                                                   "reference": GOLD})
    assert run(items, "--out", tmp_path / "out.jsonl", *endpoint.flags) == 0
    assert "input/output row with context and reference (1)" in capsys.readouterr().err


# --- DeepEval's test run file ----------------------------------------------------------------

def test_deepeval_test_run_file_is_read_as_its_test_cases(endpoint, tmp_path):
    """Before: one item sent to the expected_output rubric, "missing evaluation type", and
    `retrievalContext` reported as not used."""
    out = tmp_path / "out.jsonl"
    assert run(FIXTURES / "deepeval_test_run.json", "--out", out, *endpoint.flags) == 0
    got = records(out)
    assert sorted(r["id"] for r in got) == ["row-1", "row-2"]
    for record in got:
        assert record["rubric"] == "rag"
        assert record["input_fields"]["shape"] == "DeepEval test case"
        assert record["result"]["faithfulness"] == 1.0  # retrievalContext reached the judge
        assert record["result"]["semantic_similarity"] is not None  # expectedOutput is the reference
        assert "retrievalContext" not in record["input_fields"].get("unused_keys", [])
        assert "metricsData" not in record["input_fields"].get("unused_keys", [])


def test_deepeval_latest_test_run_wrapper_and_camel_case_lines(endpoint, tmp_path):
    run_file = json.loads((FIXTURES / "deepeval_test_run.json").read_text())
    wrapped = tmp_path / "latest_test_run.json"
    wrapped.write_text(json.dumps({"testRunData": run_file}))
    out = tmp_path / "out.jsonl"
    assert run(wrapped, "--out", out, *endpoint.flags) == 0
    assert [r["result"]["faithfulness"] for r in records(out)] == [1.0, 1.0]
    lines = write_jsonl(tmp_path / "cases.jsonl", *run_file["testCases"])
    out2 = tmp_path / "out2.jsonl"
    assert run(lines, "--out", out2, *endpoint.flags) == 0
    assert [r["input_fields"]["shape"] for r in records(out2)] == ["DeepEval test case"] * 2


def test_deepeval_conversational_test_cases_are_judged_turn_by_turn_with_their_context(endpoint, tmp_path):
    conversation = {"name": "conv_0", "success": True, "metricsData": [], "runDuration": 0.5, "order": 0, "turns": [
        {"role": "user", "content": QUESTION, "order": 0},
        {"role": "assistant", "content": ANSWER, "order": 1, "retrievalContext": [LINE]}]}
    path = tmp_path / "test_run.json"
    path.write_text(json.dumps({"testCases": [], "conversationalTestCases": [conversation], "testPassed": 1}))
    out = tmp_path / "out.jsonl"
    assert run(path, "--out", out, *endpoint.flags) == 0
    [record] = records(out)
    assert record["id"] == "row-1/turn-1" and record["result"]["faithfulness"] == 1.0
    assert record["input_fields"]["unused_keys"] == ["name"]


def test_deepeval_ideal_and_retrieved_context_both_given_is_a_choice(endpoint, tmp_path):
    case = {"name": "c", "input": QUESTION, "actualOutput": ANSWER, "context": ["ideal"], "retrievalContext": [LINE]}
    out = tmp_path / "out.jsonl"
    assert run(write_jsonl(tmp_path / "c.jsonl", case), "--out", out, *endpoint.flags) == 1
    [record] = records(out)
    assert "context=retrievalContext" in record["result"]["reason"], record


def test_a_seed_expected_output_item_keeps_its_rubric(endpoint, tmp_path):
    item = {"input": QUESTION, "actualOutput": ANSWER, "expectedOutput": GOLD, "evaluationType": "binary",
            "evaluationConfig": {}}
    out = tmp_path / "out.jsonl"
    run(write_jsonl(tmp_path / "e.jsonl", item), "--out", out, *endpoint.flags)
    [record] = records(out)
    assert record["rubric"] == "expected_output"


# --- MLflow's logged table -------------------------------------------------------------------

def _frame_orientations() -> dict[str, dict]:
    table = json.loads((FIXTURES / "mlflow_eval_results_table.json").read_text())
    columns, data = table["columns"], table["data"]
    rows = [dict(zip(columns, row)) for row in data]
    return {
        "split": table,
        "split with index": {"columns": columns, "index": [0, 1], "data": data},
        "columns": {c: {str(i): row[c] for i, row in enumerate(rows)} for c in columns},
        "index": {str(i): row for i, row in enumerate(rows)},
        "table": {"schema": {"fields": [{"name": c} for c in columns], "pandas_version": "1.4.0"}, "data": rows},
        "records": rows,
    }


@pytest.mark.parametrize("orientation", sorted(_frame_orientations()))
def test_mlflow_eval_results_table_is_read_in_every_orientation(endpoint, tmp_path, orientation):
    """Before: `eval_results_table.json` (split) was one item with keys no rubric reads."""
    path = tmp_path / "eval_results_table.json"
    path.write_text(json.dumps(_frame_orientations()[orientation]))
    out = tmp_path / "out.jsonl"
    assert run(path, "--out", out, *endpoint.flags) == 0
    got = records(out)
    assert len(got) == 2
    for record in got:
        assert record["input_fields"]["shape"] == "MLflow evaluate table"
        assert record["result"]["faithfulness"] == 1.0
        assert record["result"]["semantic_similarity"] is not None


def test_a_table_without_out_is_a_batch(endpoint, capsys):
    assert run(FIXTURES / "mlflow_eval_results_table.json", *endpoint.flags) == 2
    assert "a batch: judge it with --out" in capsys.readouterr().err


def test_a_broken_split_table_is_refused_in_one_line(endpoint, tmp_path, capsys):
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"columns": ["inputs", "outputs"], "data": [["q"]]}))
    assert run(path, "--out", tmp_path / "out.jsonl", *endpoint.flags) == 2
    assert "row 1 of the table's 'data' is not a list of 2 values" in capsys.readouterr().err


# --- Phoenix spans, one item per trace -------------------------------------------------------

@pytest.mark.parametrize("name", ["phoenix_trace_spans.jsonl", "phoenix_trace_spans_frame.jsonl"])
def test_a_traces_spans_are_judged_as_one_item(endpoint, tmp_path, name):
    """Before: six items, the root span with "no context", the retriever span "missing generated
    answer", the LLM span judged on its prompt."""
    out = tmp_path / "out.jsonl"
    assert run(FIXTURES / name, "--out", out, *endpoint.flags) == 0
    got = {r["id"]: r for r in records(out)}
    assert set(got) == {"4bf92f3577b34da6a3ce929d0e0e4736", "0af7651916cd43dd8448eb211c80319c"}
    for record in got.values():
        assert record["input_fields"]["shape"] == "Phoenix trace"
        assert record["result"]["evaluation_status"] == "success", record
        assert record["result"]["faithfulness"] == 1.0  # the retriever span's documents reached the judge
        assert record["input_fields"]["unused_keys"] == ["attributes.session.id"]  # the root's own attributes


def test_a_trace_whose_root_has_no_answer_takes_the_llm_spans(endpoint, tmp_path):
    rows = [json.loads(line) for line in (FIXTURES / "phoenix_trace_spans.jsonl").read_text().splitlines()]
    for row in rows:
        if row["span_kind"] == "CHAIN":
            del row["attributes"]["output"]
    out = tmp_path / "out.jsonl"
    assert run(write_jsonl(tmp_path / "spans.jsonl", *rows), "--out", out, *endpoint.flags) == 0
    assert [r["result"]["faithfulness"] for r in records(out)] == [1.0, 1.0]


def test_with_a_map_each_span_stays_its_own_row(endpoint, tmp_path):
    out = tmp_path / "out.jsonl"
    run(FIXTURES / "phoenix_trace_spans.jsonl", "--out", out, "--map", "question=attributes.input.value",
        *endpoint.flags)
    assert len(records(out)) == 6
