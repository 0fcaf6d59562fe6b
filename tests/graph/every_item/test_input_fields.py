"""Items as other tools write them (RAGAS, DeepEval, LangChain), in the files people have (JSON
arrays, CSV, Parquet), through the real entry points: the CLI (one item and batches) against a
scripted judge on 127.0.0.1, `graph.evaluate`, and the LangSmith evaluators.

The judge here says "supported" only when the context line is in its prompt, so a score of 1.0
proves the context reached it; an item whose context were dropped would score 0.0 with "the
context is empty" (the rule seed 000 gives for a missing context)."""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import pytest
from langchain_core.documents import Document

from judgegraph.commands import cli
from judgegraph.evaluators import create_rag_evaluator
from judgegraph.graph.api import evaluate, run_evaluation
from judgegraph.schemas.field_aliases import FieldMapError
from tests.support.fakes import answer_relevance, context_relevance, judge, similarity, verdict
from tests.support.scripted_server import MODEL_NAME, ScriptedEndpoint

ROOT = Path(__file__).resolve().parents[3]
QUESTION = "Who founded Craigslist?"
CONTEXT_LINE = "Craigslist was founded in 1995 by Craig Newmark in San Francisco."
OTHER_LINE = "Craigslist started as an email list of events."
ANSWER = "Craig Newmark founded Craigslist."
REFERENCE = "Craig Newmark founded Craigslist in 1995."


def context_aware_judge():
    """Supported only when the context line is in the prompt: the judge saw the context."""
    return judge(
        check_claim=lambda prompt: verdict("supported", 1) if CONTEXT_LINE in prompt else verdict("not-in-context"),
        judge_context_relevance=context_relevance("yes", [1]),
        judge_answer_relevance=answer_relevance(),
        judge_semantic_similarity=similarity(5),
        LiveRagRelevanceJudgment={"reasoning": "ok", "addresses_question": True, "no_answer": False,
                                  "answers_correctly": True, "contains_irrelevant_content": False,
                                  "irrelevant_content_harms_usefulness": False},
    )


@pytest.fixture
def endpoint():
    with ScriptedEndpoint(context_aware_judge()) as served:
        yield served


def run(*argv) -> int:
    return cli.main(["evaluate", *map(str, argv)])


def write_json(path: Path, value) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def records(path: Path) -> dict:
    return {r["id"]: r for r in map(json.loads, path.read_text(encoding="utf-8").splitlines())}


def context_reached_the_judge(endpoint) -> bool:
    return any(CONTEXT_LINE in prompt for prompt in endpoint.judge.prompts_for("check_claim"))


def assert_judged_with_context(result: dict) -> None:
    assert result["evaluation_status"] == "success", result
    assert result["faithfulness"] == 1.0, result
    assert "empty" not in result["faithfulness_explanation"].lower()


RAGAS_NEW = {"user_input": QUESTION, "response": ANSWER, "retrieved_contexts": [CONTEXT_LINE, OTHER_LINE],
             "reference": REFERENCE}
RAGAS_OLD = {"question": QUESTION, "answer": ANSWER, "contexts": [CONTEXT_LINE, OTHER_LINE], "ground_truth": REFERENCE}
DEEPEVAL = {"input": QUESTION, "actual_output": ANSWER, "expected_output": REFERENCE,
            "retrieval_context": [CONTEXT_LINE], "context": None, "name": None, "comments": None,
            "tools_called": None, "additional_metadata": None}
LANGCHAIN_QA = {"query": QUESTION, "result": ANSWER, "source_documents": [
    {"id": None, "metadata": {"source": "wiki/craigslist"}, "page_content": CONTEXT_LINE, "type": "Document"},
    {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "document", "Document"],
     "kwargs": {"page_content": OTHER_LINE, "metadata": {}}},
]}


@pytest.mark.parametrize("item", [RAGAS_NEW, RAGAS_OLD], ids=["ragas", "ragas-before-0.2"])
def test_a_ragas_row_is_judged_with_its_context_and_reference(item, endpoint, tmp_path, capsys):
    assert run(write_json(tmp_path / "row.json", item), *endpoint.flags) == 0
    out, err = capsys.readouterr()
    result = json.loads(out)
    assert_judged_with_context(result)
    assert result["semantic_similarity"] is not None  # the reference (or ground_truth) was read
    assert context_reached_the_judge(endpoint)
    assert "keys not used" not in err  # every key was read: nothing to warn about


def test_a_langchain_retrievalqa_output_with_serialized_documents(endpoint, tmp_path, capsys):
    assert run(write_json(tmp_path / "qa.json", LANGCHAIN_QA), *endpoint.flags, "--trace") == 0
    out, err = capsys.readouterr()
    assert_judged_with_context(json.loads(out))
    prompts = endpoint.judge.prompts_for("check_claim")
    assert any(CONTEXT_LINE in p and OTHER_LINE in p for p in prompts)  # both Documents, as text
    assert "wiki/craigslist" not in "".join(prompts)  # a Document's metadata is not context
    # the trace announces the rubric and how the item was read
    assert "rubric rag from the item's keys" in err and "'source_documents' as context" in err


def test_a_deepeval_test_case_list_is_a_batch(endpoint, tmp_path, capsys):
    cases = [DEEPEVAL | {"name": "founder"}, DEEPEVAL, "not a test case"]
    out = tmp_path / "results.jsonl"
    assert run(write_json(tmp_path / "cases.json", cases), "--out", out, *endpoint.flags) == 1  # a record failed: docs/exit-codes.md
    got = records(out)
    assert set(got) == {"item-1", "item-2", "item-3"}
    for key in ("item-1", "item-2"):
        assert got[key]["rubric"] == "rag"
        assert_judged_with_context(got[key]["result"])
    assert got["item-1"]["input_fields"]["unused_keys"] == ["name"]  # named, not dropped
    assert got["item-2"]["input_fields"]["read_as"] == {
        "question": "input", "answer": "actual_output", "context": "retrieval_context", "reference": "expected_output"}
    assert "unused_keys" not in got["item-2"]["input_fields"]  # DeepEval's nulls carry nothing
    assert got["item-3"]["input_error"] == "Input parsing error: item 3 of the array must be a JSON object, got str."
    err = capsys.readouterr().err
    assert "rag 2 from the items' keys" in err
    assert "'name' (1)" in err and "'retrieval_context' as context (2)" in err


def test_csv_rows_each_judged_or_failed_on_their_own(endpoint, tmp_path, capsys):
    path = tmp_path / "items.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "question", "answer", "contexts", "ground_truth", "source"])
        writer.writerow(["json-list", QUESTION, ANSWER, json.dumps([CONTEXT_LINE, OTHER_LINE]), REFERENCE, ""])
        writer.writerow(["pandas-list", QUESTION, ANSWER, repr([CONTEXT_LINE, "It's a list"]), "", "export"])
        writer.writerow(["broken", QUESTION, ANSWER, '["unclosed', REFERENCE, ""])
        writer.writerow(["one-passage", QUESTION, ANSWER, CONTEXT_LINE, "", ""])
    out = tmp_path / "results.jsonl"
    assert run(path, "--out", out, *endpoint.flags) == 1  # a record failed: docs/exit-codes.md
    got = records(out)
    for key in ("json-list", "pandas-list", "one-passage"):
        assert_judged_with_context(got[key]["result"])
    assert got["json-list"]["result"]["semantic_similarity"] is not None
    assert got["pandas-list"]["result"]["semantic_similarity"] is None  # an empty cell is absent
    assert got["pandas-list"]["input_fields"]["unused_keys"] == ["source"]
    assert got["broken"]["line"] == 4
    assert "column 'contexts' looks like a list or object but is not JSON" in got["broken"]["input_error"]


def test_parquet_rows_are_read_when_pyarrow_is_there(endpoint, tmp_path):
    pyarrow = pytest.importorskip("pyarrow")
    from pyarrow import parquet

    path = tmp_path / "ragas.parquet"
    parquet.write_table(pyarrow.Table.from_pylist([RAGAS_NEW, RAGAS_NEW | {"reference": None}]), path)
    out = tmp_path / "results.jsonl"
    assert run(path, "--out", out, *endpoint.flags) == 0
    got = records(out)
    assert set(got) == {"row-1", "row-2"}
    for record in got.values():
        assert_judged_with_context(record["result"])



def test_a_parquet_file_that_repeats_a_column_is_refused_like_a_csv_header(endpoint, tmp_path, capsys):
    """pyarrow writes two columns of one name; a row read as a dict kept the last one and the
    other context was dropped without a word."""
    pyarrow = pytest.importorskip("pyarrow")
    from pyarrow import parquet

    path = tmp_path / "items.parquet"
    columns = [pyarrow.array([QUESTION]), pyarrow.array([ANSWER]), pyarrow.array([OTHER_LINE]),
               pyarrow.array([CONTEXT_LINE])]
    parquet.write_table(pyarrow.Table.from_arrays(columns, names=["question", "answer", "context", "context"]), path)
    out = tmp_path / "r.jsonl"
    assert run(path, "--out", out, *endpoint.flags) == 2
    assert capsys.readouterr().err == f"judgegraph: cannot read {path} as Parquet: it repeats column(s) 'context'\n"
    assert not out.exists() and endpoint.judge.calls == []

def test_parquet_without_pyarrow_names_the_extra_before_any_work(endpoint, tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)  # as if pyarrow were not installed
    path = tmp_path / "items.parquet"
    path.write_bytes(b"PAR1")
    out = tmp_path / "r.jsonl"
    assert run(path, "--out", out, *endpoint.flags) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "pip install 'judgegraph[ray]'" in err
    assert not out.exists() and endpoint.judge.calls == []


def test_unknown_keys_are_a_warning_line_in_one_item_mode(endpoint, tmp_path, capsys):
    item = RAGAS_NEW | {"trace_id": "abc", "latency_ms": 812, "notes": None}
    assert run(write_json(tmp_path / "row.json", item), *endpoint.flags) == 0
    out, err = capsys.readouterr()
    assert_judged_with_context(json.loads(out))
    assert ("judgegraph: warning: keys not used, not judged: 'trace_id', 'latency_ms' "
            "(docs/input-fields.md lists the names read; --map reads others)") in err.splitlines()


def test_two_keys_for_one_field_are_an_input_error_naming_both(endpoint, tmp_path, capsys):
    item = {"question": QUESTION, "answer": ANSWER, "response": "Someone else.", "contexts": [CONTEXT_LINE]}
    assert run(write_json(tmp_path / "row.json", item), *endpoint.flags) == 1  # not judged: docs/exit-codes.md
    result = json.loads(capsys.readouterr().out)
    assert result["evaluation_status"] == "failed"
    assert result["reason"] == ("Input parsing error: 'answer' and 'response' both give the generated answer; "
                                "keep one, or choose with --map answer=response.")
    assert endpoint.judge.calls == []


def test_map_reads_other_names_and_wins_over_the_items_own(endpoint, tmp_path, capsys):
    item = {"prompt": QUESTION, "answer": ANSWER, "passages": [CONTEXT_LINE], "context": "stale cache"}
    path = write_json(tmp_path / "row.json", item)
    assert run(path, *endpoint.flags, "--map", "question=prompt,context=passages") == 0
    out, err = capsys.readouterr()
    assert_judged_with_context(json.loads(out))
    assert "--map context=passages: the item's own 'context' was not used" in err
    assert run(path, *endpoint.flags, "--map", "prompt") == 2
    assert capsys.readouterr().err.strip() == ("judgegraph: --map part 'prompt' is not field=key "
                                               "(e.g. question=prompt)")
    assert run(path, *endpoint.flags, "--map", "questoin=prompt") == 2
    assert "'questoin' is not a field judgegraph reads" in capsys.readouterr().err


def write_csv(path: Path, *rows: list[str]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)
    return path


def test_map_in_a_csv_batch_reads_a_mapped_list_column(endpoint, tmp_path):
    path = write_csv(tmp_path / "items.csv", ["prompt", "answer", "passages"],
                     [QUESTION, ANSWER, json.dumps([CONTEXT_LINE])])
    out = tmp_path / "results.jsonl"
    assert run(path, "--out", out, "--map", "question=prompt,context=passages", *endpoint.flags) == 0
    (record,) = records(out).values()
    assert_judged_with_context(record["result"])
    assert record["input_fields"]["read_as"] == {"question": "prompt", "context": "passages"}


def test_documents_with_reference_is_refused_not_silently_liverag(endpoint, tmp_path, capsys):
    item = {"question": QUESTION, "answer": ANSWER, "documents": [CONTEXT_LINE], "reference": REFERENCE}
    path = write_json(tmp_path / "row.json", item)
    assert run(path, *endpoint.flags) == 1  # not judged: docs/exit-codes.md
    result = json.loads(capsys.readouterr().out)
    assert result["evaluation_status"] == "failed"
    assert result["reason"] == (
        "Input parsing error: the item's keys ('question', 'answer', 'documents', 'reference') fit more than "
        "one rubric: liverag would read 'reference' as gold_reference; rag would read 'documents' as context; "
        "give a 'rubric' key ('liverag' or 'rag') or --rubric.")
    assert endpoint.judge.calls == []
    # named, each rubric reads every key
    assert run(path, *endpoint.flags, "--rubric", "rag") == 0
    rag = json.loads(capsys.readouterr().out)
    assert_judged_with_context(rag)
    assert rag["semantic_similarity"] is not None
    assert run(write_json(tmp_path / "live.json", item | {"rubric": "liverag"}), *endpoint.flags) == 0
    live = json.loads(capsys.readouterr().out)
    assert live["faithfulness_score"] == 1
    gold = [p for p in endpoint.judge.prompts_for("LiveRagRelevanceJudgment") if REFERENCE in p]
    assert gold, "liverag reads `reference` as its gold reference"


def test_documents_alone_stay_liverag():
    run_ = run_evaluation({"question": QUESTION, "answer": ANSWER, "documents": [CONTEXT_LINE]},
                          model=context_aware_judge())
    assert run_.rubrics == ["liverag"] and run_.input_fields == {"rubric_from": "keys"}


def test_cannot_tell_lists_the_keys_found_and_what_each_rubric_needs(endpoint, tmp_path, capsys):
    assert run(write_json(tmp_path / "row.json", {"prompt": QUESTION, "completion": ANSWER}), *endpoint.flags) == 1  # not judged: docs/exit-codes.md
    reason = json.loads(capsys.readouterr().out)["reason"]
    assert "found: 'prompt', 'completion'" in reason
    assert "rag needs question + answer" in reason and "liverag needs question + answer + documents" in reason
    assert "coverage needs reference + output_text" in reason


def test_a_json_array_without_out_is_a_batch_not_an_item(tmp_path, capsys):
    path = write_json(tmp_path / "items.json", [RAGAS_NEW, RAGAS_OLD])
    assert run(path, "--model", "x", "--base-url", "http://127.0.0.1:9/v1") == 2  # refused before the judge
    assert capsys.readouterr().err.strip() == (
        f"judgegraph: {path} holds a list of 2 items, a batch: judge it with --out results.jsonl")


def test_input_format_overrides_the_extension(endpoint, tmp_path):
    path = write_csv(tmp_path / "export.txt", ["user_input", "response", "retrieved_contexts"],
                     [QUESTION, ANSWER, json.dumps([CONTEXT_LINE])])
    out = tmp_path / "results.jsonl"
    assert run(path, "--input-format", "csv", "--out", out, *endpoint.flags) == 0
    (record,) = records(out).values()
    assert_judged_with_context(record["result"])


def test_report_refuses_an_input_file(tmp_path, capsys):
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps(item) + "\n" for item in (RAGAS_NEW, RAGAS_OLD)), encoding="utf-8")
    page = tmp_path / "report.html"
    assert cli.main(["report", str(items), "-o", str(page)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{items} is not a judgegraph results file" in err
    assert not page.exists()


def test_graph_evaluate_takes_documents_and_a_model_named_as_the_cli_names_it(endpoint, monkeypatch):
    item = {"question": QUESTION, "answer": ANSWER,
            "context": [Document(page_content=CONTEXT_LINE, metadata={"source": "wiki"}),
                        Document(page_content=OTHER_LINE)]}
    result = evaluate(item, model=MODEL_NAME, base_url=endpoint.base_url)
    assert_judged_with_context(result)
    monkeypatch.setenv("OPENAI_BASE_URL", endpoint.base_url)
    assert_judged_with_context(evaluate(RAGAS_NEW | {"retrieved_contexts": item["context"]},
                                        model=f"openai:{MODEL_NAME}"))
    assert context_reached_the_judge(endpoint)


def test_graph_evaluate_field_map(endpoint):
    item = {"prompt": QUESTION, "answer": ANSWER, "passages": [Document(page_content=CONTEXT_LINE)]}
    run_ = run_evaluation(item, model=MODEL_NAME, base_url=endpoint.base_url,
                          field_map={"question": "prompt", "context": "passages"})
    assert_judged_with_context(run_.result)
    assert run_.input_fields["read_as"] == {"question": "prompt", "context": "passages"}
    with pytest.raises(FieldMapError):
        evaluate(item, model=MODEL_NAME, base_url=endpoint.base_url, field_map="question")


def test_evaluators_read_ragas_outputs_and_a_field_map(endpoint):
    evaluator = create_rag_evaluator(model=MODEL_NAME, base_url=endpoint.base_url, metrics=["faithfulness"])
    (row,) = evaluator(inputs={"user_input": QUESTION},
                       outputs={"response": ANSWER, "retrieved_contexts": [CONTEXT_LINE]})
    assert row["score"] == 1.0
    mapped = create_rag_evaluator(model=MODEL_NAME, base_url=endpoint.base_url, metrics=["faithfulness"],
                                  field_map={"answer": "generation", "context": "chunks"})
    (row,) = mapped(inputs={"question": QUESTION},
                    outputs={"generation": ANSWER, "chunks": [Document(page_content=CONTEXT_LINE)]},
                    reference_outputs={"answer": REFERENCE})
    assert row["score"] == 1.0
    assert context_reached_the_judge(endpoint)


def test_a_well_formed_item_is_read_exactly_as_before(endpoint, tmp_path, capsys):
    item = json.loads((ROOT / "examples" / "rag_item.json").read_text())
    out = tmp_path / "results.jsonl"
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps(item) + "\n", encoding="utf-8")
    assert run(items, "--out", out, *endpoint.flags) == 0
    (record,) = records(out).values()
    assert "input_fields" not in record  # nothing read under another name, nothing left out
    assert "keys no rubric reads" not in capsys.readouterr().err


def test_the_docs_table_lists_every_shapes_names():
    table = (ROOT / "docs" / "input-fields.md").read_text(encoding="utf-8").split("## The names")[1].split("###")[0]
    from judgegraph.schemas.field_aliases import SHAPES

    for shape, names in SHAPES.items():
        assert shape in table
        for key in names.values():
            assert f"`{key}`" in table, (shape, key)


@pytest.mark.parametrize(("item", "rubric", "fields"), [
    ({"input": QUESTION, "actual_output": ANSWER, "expected_output": REFERENCE}, "coverage",
     {"input": QUESTION, "output_text": ANSWER, "reference": REFERENCE}),
    (RAGAS_NEW, "liverag", {"question": QUESTION, "answer": ANSWER, "documents": [CONTEXT_LINE, OTHER_LINE],
                            "gold_reference": REFERENCE}),
    ({"question": QUESTION, "answer": ANSWER, "documents": [CONTEXT_LINE], "context": "for rag",
      "rubric": ["rag", "liverag"]}, "liverag", {"question": QUESTION, "answer": ANSWER, "documents": [CONTEXT_LINE]}),
])
def test_a_named_rubric_reads_the_other_tools_names(item, rubric, fields):
    from judgegraph.graph.every_item.validate_input import validate_input

    state = validate_input({"item": item, "rubric": rubric})
    assert state["input_errors"] == {}
    assert state["inputs"][rubric].model_dump(include=set(fields)) == fields


def test_a_missing_field_says_where_it_was_looked_for_when_keys_were_left_over(endpoint, tmp_path, capsys):
    item = {"prompt": QUESTION, "response": ANSWER, "retrieved_contexts": [CONTEXT_LINE]}
    assert run(write_json(tmp_path / "row.json", item), *endpoint.flags) == 1  # not judged: docs/exit-codes.md
    assert json.loads(capsys.readouterr().out)["reason"] == (
        "Input parsing error: missing user question. Looked for 'question' / 'user_input' / 'input' / 'query'; "
        "the item's keys not read: 'prompt'; --map question=KEY reads another key.")


def test_the_report_shows_another_tools_context_with_its_evidence(endpoint, tmp_path):
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps(item) + "\n" for item in (RAGAS_NEW, LANGCHAIN_QA)), encoding="utf-8")
    out, page = tmp_path / "results.jsonl", tmp_path / "report.html"
    assert run(items, "--out", out, "--details", *endpoint.flags) == 0
    assert cli.main(["report", str(out), "-o", str(page)]) == 0
    html = page.read_text(encoding="utf-8")
    assert html.count("Context, evidence highlighted") == 2  # retrieved_contexts, and source_documents' text
    assert html.count('<blockquote class="passage">') == 4


def test_map_wins_over_the_other_names_of_the_field(endpoint, tmp_path, capsys):
    """A RAGAS row holds two lists of passages; `--map context=reference_contexts` chooses one.
    The map wins: the row is judged with the chosen list, and `retrieved_contexts`, another name
    for the same field, is reported as not read instead of clashing with the choice."""
    row = {"user_input": QUESTION, "response": ANSWER, "retrieved_contexts": [OTHER_LINE],
           "reference_contexts": [CONTEXT_LINE]}
    path = write_json(tmp_path / "row.json", row)
    assert run(path, *endpoint.flags, "--map", "context=reference_contexts") == 0
    out, err = capsys.readouterr()
    assert_judged_with_context(json.loads(out))
    assert "keys not used, not judged: 'retrieved_contexts'" in err
    items = tmp_path / "rows.jsonl"
    items.write_text(json.dumps({"id": "r1", **row}) + "\n", encoding="utf-8")
    results = tmp_path / "results.jsonl"
    assert run(items, "--out", results, "--map", "context=reference_contexts", *endpoint.flags) == 0
    (record,) = records(results).values()
    assert_judged_with_context(record["result"])
    assert record["input_fields"]["read_as"]["context"] == "reference_contexts"
    assert "retrieved_contexts" in record["input_fields"]["unused_keys"]
