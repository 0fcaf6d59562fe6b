"""Exports as other tools write them, and inputs that used to be misread in silence, through the
CLI against a scripted judge on 127.0.0.1.

The judge says "supported" only when the context line is in its prompt, so faithfulness 1.0
proves the context reached it (a context dropped or read as the reference scores 0.0, or null
with "no context given"). The fixtures (tests/batch/fixtures/exports/, README there names each
one's source) are rows as LangSmith, MLflow and Phoenix write them."""

from __future__ import annotations

import csv
import gzip
import json
import os
import threading
from pathlib import Path

import pytest

from judgegraph.batch.input_formats import STRUCTURED_COLUMNS, read_input
from judgegraph.batch.summary import failure_cause, record_causes
from judgegraph.commands import cli
from tests.support.fakes import answer_relevance, context_relevance, judge, similarity, verdict
from tests.support.scripted_server import ScriptedEndpoint

FIXTURES = Path(__file__).parent / "fixtures" / "exports"
LINE = "Paris is the capital and largest city of France."
LINES = (LINE, "Hamlet is a tragedy written by William Shakespeare.",
         "MLflow is an open-source platform to manage the ML lifecycle, including experimentation and deployment.",
         "Apache Spark is an open-source unified analytics engine for large-scale data processing.")


def context_aware_judge():
    return judge(
        check_claim=lambda prompt: verdict("supported", 1) if any(line in prompt for line in LINES)
        else verdict("not-in-context"),
        judge_context_relevance=context_relevance("yes", [1]),
        judge_answer_relevance=answer_relevance(),
        judge_semantic_similarity=similarity(5),
    )


@pytest.fixture(scope="module")
def endpoint():
    with ScriptedEndpoint(context_aware_judge()) as served:
        yield served


def run(*argv) -> int:
    return cli.main(["evaluate", *map(str, argv)])


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


EXPORTS = {
    "langsmith_evaluator_rows.jsonl": ("LangSmith run with its reference", True),
    "langsmith_runs.jsonl": ("LangSmith run", False),
    "langsmith_experiment.csv": ("LangSmith run with its reference", True),
    "mlflow_eval_table.csv": ("MLflow evaluate table", True),
    "mlflow_static.jsonl": ("MLflow evaluate table", True),
    "phoenix_qa_with_reference.csv": ("Phoenix evaluation frame", False),
    "phoenix_spans.jsonl": ("Phoenix span", False),
    "phoenix_spans_frame.jsonl": ("Phoenix span", False),
}


@pytest.mark.parametrize("name", sorted(EXPORTS))
def test_each_export_is_read_as_written(endpoint, tmp_path, name):
    shape, has_reference = EXPORTS[name]
    out = tmp_path / "out.jsonl"
    assert run(FIXTURES / name, "--out", out, *endpoint.flags) == 0
    for record in records(out):
        result = record["result"]
        assert result["evaluation_status"] == "success", record
        assert result["faithfulness"] is not None and result["faithfulness"] > 0.5, record  # the context reached the judge
        assert result["context_relevance"] is not None, record
        assert record["input_fields"]["shape"] == shape
        reference_missing = result["semantic_similarity_explanation"] == "No reference answer provided."
        assert reference_missing is not has_reference, record


def test_phoenix_reference_is_the_context_not_the_reference_answer(endpoint, tmp_path):
    out = tmp_path / "out.jsonl"
    assert run(FIXTURES / "phoenix_qa_with_reference.csv", "--out", out, *endpoint.flags) == 0
    [record] = records(out)
    assert record["result"]["faithfulness"] == 1.0
    assert record["result"]["semantic_similarity"] is None  # no reference answer: Phoenix gives none


def test_passage_objects_are_read_with_their_ids(endpoint, tmp_path):
    out = tmp_path / "out.jsonl"
    assert run(FIXTURES / "passage_objects.jsonl", "--out", out, *endpoint.flags) == 0
    by_id = {r["id"]: r for r in records(out)}
    assert set(by_id) == {"llamaindex", "haystack", "vector-hit", "chunk"}
    for record in by_id.values():
        assert record["result"]["faithfulness"] == 1.0, record
    # the LlamaIndex node's id_ names the passage a marker cites
    assert by_id["llamaindex"]["result"]["citation_recall"] == 1.0, by_id["llamaindex"]


def test_a_row_that_is_an_export_only_in_part_is_refused_naming_the_extra_keys(endpoint, tmp_path):
    row = json.loads((FIXTURES / "phoenix_spans.jsonl").read_text())
    row["my_own_key"] = "x"
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps(row) + "\n" + json.dumps({"inputs": {"question": "q"}, "outputs": {"answer": "a"}}) + "\n")
    out = tmp_path / "out.jsonl"
    assert run(path, "--out", out, *endpoint.flags) == 1
    first, second = records(out)
    assert "Phoenix span" in first["result"]["reason"] and "'my_own_key'" in first["result"]["reason"]
    assert "reference_outputs" in second["result"]["reason"] and "--map" in second["result"]["reason"]



@pytest.mark.parametrize("name", ["phoenix_spans.jsonl", "phoenix_spans_frame.jsonl"])
def test_a_spans_attributes_no_field_reads_are_reported_not_dropped(endpoint, tmp_path, name):
    """A span's other attributes (its metadata, the session, the model) were dropped without a
    word; like LangSmith's `inputs.user_id`, they are listed as not read."""
    row = json.loads((FIXTURES / name).read_text())
    if "attributes" in row:
        row["attributes"] |= {"metadata": {"reference": "Paris"}, "session": {"id": "s-1"}}
    else:
        row |= {"attributes.metadata.reference": "Paris", "attributes.session.id": "s-1"}
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps(row) + "\n")
    out = tmp_path / "out.jsonl"
    assert run(path, "--out", out, *endpoint.flags) == 0
    [record] = records(out)
    assert record["input_fields"]["shape"] == "Phoenix span" and record["result"]["faithfulness"] > 0.5
    assert record["input_fields"]["unused_keys"] == ["attributes.metadata.reference", "attributes.session.id"]

# --- absent context ---------------------------------------------------------------------------

def test_an_item_without_context_is_not_judged_as_empty(endpoint, tmp_path, capsys):
    item = tmp_path / "item.json"
    item.write_text(json.dumps({"question": "What is the capital of France?", "answer": "Paris."}))
    assert run(item, *endpoint.flags) == 0
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    assert result["faithfulness"] is None and result["context_relevance"] is None
    assert "no context given" in result["faithfulness_explanation"]
    assert result["answer_relevance"] is not None  # the other metrics are judged
    assert result["evaluation_status"] == "success"
    assert "no context given" in captured.err and "'question', 'answer'" in captured.err
    assert "--map context=KEY" in captured.err


def test_an_item_asking_for_faithfulness_without_context_fails_with_the_reason(endpoint, tmp_path, capsys):
    item = tmp_path / "item.json"
    item.write_text(json.dumps({"question": "q?", "answer": "Paris.", "metrics": ["faithfulness"]}))
    assert run(item, *endpoint.flags) == 1
    result = json.loads(capsys.readouterr().out)
    assert result["evaluation_status"] == "failed"
    assert result["error"] == "faithfulness: no context given"


def test_an_explicitly_empty_context_keeps_the_seed_rule(endpoint, tmp_path, capsys):
    item = tmp_path / "item.json"
    item.write_text(json.dumps({"question": "What is the capital of France?", "answer": "Paris is the capital.",
                                "context": ""}))
    run(item, *endpoint.flags)
    result = json.loads(capsys.readouterr().out)
    assert result["faithfulness"] == 0.0 and result["context_relevance"] == 0.0


def test_map_to_a_key_the_row_lacks_is_an_input_error_for_that_row(endpoint, tmp_path):
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps({"id": "has", "question": "What is the capital of France?", "answer": "Paris.",
                                "passages": [LINE]}) + "\n"
                    + json.dumps({"id": "lacks", "question": "What is the capital of France?", "answer": "Paris.",
                                  "context": [LINE]}) + "\n")
    out = tmp_path / "out.jsonl"
    assert run(path, "--out", out, "--map", "context=passages", *endpoint.flags) == 1
    by_id = {r["id"]: r for r in records(out)}
    assert by_id["has"]["result"]["faithfulness"] == 1.0
    lacks = by_id["lacks"]["result"]
    assert lacks["faithfulness"] is None and lacks["evaluation_status"] == "failed"
    assert "--map context=passages: the item has no key 'passages'" in lacks["reason"]


def test_map_reads_dotted_paths_and_list_indices(endpoint, tmp_path):
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps({"req": {"q": "What is the capital of France?"},
                                "resp": {"choices": [{"text": "Paris is the capital of France."}]},
                                "hits": {"docs": [LINE]}}) + "\n")
    out = tmp_path / "out.jsonl"
    assert run(path, "--out", out, "--map", "question=req.q,answer=resp.choices[0].text,context=hits.docs",
               *endpoint.flags) == 0
    [record] = records(out)
    assert record["result"]["faithfulness"] == 1.0


@pytest.mark.parametrize(("passage", "words"), [(3, "passage 2 is a number (3)"), (None, "passage 2 is null")])
def test_a_number_or_null_passage_is_named(endpoint, tmp_path, capsys, passage, words):
    item = tmp_path / "item.json"
    item.write_text(json.dumps({"question": "q?", "answer": "a.", "context": [LINE, passage]}))
    assert run(item, *endpoint.flags) == 1
    result = json.loads(capsys.readouterr().out)
    assert words in result["reason"] and "'text'" in result["reason"]
    assert "wrong type (a list)" not in result["reason"]


# --- inputs read whole or refused ---------------------------------------------------------

def items_text(*ids: str) -> str:
    return "".join(json.dumps({"id": i, "question": "What is the capital of France?", "answer": "Paris.",
                               "context": [LINE]}) + "\n" for i in ids)


def test_a_batch_from_a_pipe_is_read_once_and_whole(endpoint, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_text(items_text("a", "b", "c")))
    writer.start()
    out = tmp_path / "out.jsonl"
    assert run(fifo, "--input-format", "jsonl", "--out", out, *endpoint.flags) == 0
    writer.join()
    assert sorted(r["id"] for r in records(out)) == ["a", "b", "c"]


def test_dash_reads_stdin(endpoint, tmp_path, monkeypatch):
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(items_text("a", "b").encode())))
    out = tmp_path / "out.jsonl"
    assert run("-", "--out", out, *endpoint.flags) == 0
    assert sorted(r["id"] for r in records(out)) == ["a", "b"]


def test_gzip_is_read_and_a_broken_gzip_refused(endpoint, tmp_path, capsys):
    path = tmp_path / "items.jsonl.gz"
    path.write_bytes(gzip.compress(items_text("a", "b", "c").encode()))
    out = tmp_path / "out.jsonl"
    assert run(path, "--out", out, *endpoint.flags) == 0
    assert sorted(r["id"] for r in records(out)) == ["a", "b", "c"]
    broken = tmp_path / "broken.jsonl.gz"
    broken.write_bytes(path.read_bytes()[:-12])
    assert run(broken, "--out", tmp_path / "out2.jsonl", *endpoint.flags) == 2
    assert "as gzip" in capsys.readouterr().err
    assert not (tmp_path / "out2.jsonl").exists()


def test_an_empty_input_is_a_usage_error(endpoint, tmp_path, capsys):
    path = tmp_path / "items.jsonl"
    path.write_text("\n  \n")
    assert run(path, "--out", tmp_path / "out.jsonl", *endpoint.flags) == 2
    assert "is empty" in capsys.readouterr().err


def test_jsonl_in_a_json_file_is_refused_with_the_flag_that_reads_it(endpoint, tmp_path, capsys):
    path = tmp_path / "items.json"
    path.write_text(items_text("a", "b"))
    assert run(path, *endpoint.flags) == 2
    assert "--input-format jsonl" in capsys.readouterr().err
    assert run(path, "--out", tmp_path / "out.jsonl", *endpoint.flags) == 2
    assert "--input-format jsonl" in capsys.readouterr().err
    assert run(path, "--input-format", "jsonl", "--out", tmp_path / "out.jsonl", *endpoint.flags) == 0


def write_csv(path: Path, rows: list[list[str]], delimiter: str = ",") -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle, delimiter=delimiter).writerows(rows)
    return path


def test_numpy_list_repr_in_a_csv_cell_is_two_passages(tmp_path):
    path = write_csv(tmp_path / "items.csv", [["question", "answer", "retrieved_contexts"],
                                              ["q?", "a.", "['first passage' 'second passage']"],
                                              ["q?", "a.", "['one'\n 'two' 'three']"]])
    first, second = (entry.item for entry in read_input(path, "csv", 10_000, STRUCTURED_COLUMNS))
    assert first["retrieved_contexts"] == ["first passage", "second passage"]
    assert second["retrieved_contexts"] == ["one", "two", "three"]


def test_an_oversized_csv_cell_fails_its_own_record_and_nothing_after_it_moves(endpoint, tmp_path):
    forged = "\n".join(["x" * 40, "forged,What is the capital of France?,Paris.,fake context",
                        "real,fabricated question,fabricated answer,fake"])
    path = write_csv(tmp_path / "items.csv", [
        ["id", "question", "answer", "context"],
        ["big", "What is the capital of France?", "Paris.", forged + "y" * 300],
        ["real", "What is the capital of France?", "Paris is the capital of France.", LINE],
    ])
    out = tmp_path / "out.jsonl"
    assert run(path, "--out", out, "--max-line-bytes", "300", *endpoint.flags) == 1
    by_id = {r["id"]: r for r in records(out)}
    assert set(by_id) == {"big", "real"}  # no 'forged' row, and 'real' is the real one
    assert "over the limit" in by_id["big"]["input_error"]
    assert by_id["real"]["line"] == 5 and by_id["real"]["result"]["faithfulness"] == 1.0
    # resume keeps the same records: nothing fabricated to keep
    assert run(path, "--out", out, "--max-line-bytes", "300", "--retry-failed", *endpoint.flags) == 1
    assert {r["id"] for r in records(out)} == {"big", "real"}


def test_a_semicolon_csv_is_read_with_its_delimiter(endpoint, tmp_path):
    path = write_csv(tmp_path / "items.csv", [["id", "question", "answer", "context"],
                                              ["s1", "What is the capital of France?", "Paris; the capital.", LINE]],
                     delimiter=";")
    out = tmp_path / "out.jsonl"
    assert run(path, "--out", out, *endpoint.flags) == 0
    [record] = records(out)
    assert record["id"] == "s1" and record["result"]["faithfulness"] == 1.0


# --- failures said by cause -------------------------------------------------------------------

REFUSED = ("model call failed: Connection error. (connection refused: http://127.0.0.1:9/v1/chat/completions)")


def test_failures_are_grouped_by_cause():
    record = {"result": {"faithfulness": None, "context_relevance": None, "answer_relevance": None,
                         "semantic_similarity": None, "evaluation_status": "failed",
                         "error": f"faithfulness: {REFUSED}; context_relevance: {REFUSED}"}}
    assert record_causes(record) == {"connection refused at http://127.0.0.1:9/v1/chat/completions"}
    assert failure_cause("answer_relevance: model call failed: Request timed out after 30 s") == "timed out after 30 s"
    assert failure_cause("Input parsing error: line 3 is not UTF-8 text.") == failure_cause(
        "Input parsing error: line 41 is not UTF-8 text.")
