"""Soak of the input shapes other tools export, and of the inputs once misread in silence: lines
drawn from LangSmith, MLflow, Phoenix and DeepEval rows, passage objects, items without a
context, rows that are an export only in part, number and null passages, `input`/`output`/
`reference` rows (refused: nothing tells what `reference` is) and beside a `context` (judged),
a RAG trace's spans shuffled through the file (one item per trace), plus a CSV of numpy list
cells, oversized quoted cells and a `;` header, and an MLflow `eval_results_table.json` (pandas
split) and a DeepEval test run file, judged by the real CLI in a child process against an
OpenAI-compatible judge on 127.0.0.1 (the demo judge, `tests/support/demo_judge.py`). No model
is loaded.

    python -m tests.support.demo_judge --port 8011 &
    python -m benchmarks.fuzz_shapes_exports --base-url http://127.0.0.1:8011/v1 [--lines 1000] [--seed 44]

Each line carries what it must come back as (`EXPECT`): judged (every context metric a number in
0..1, the context reached the judge), no context (faithfulness and context relevance null with
"no context given", status success), or refused (failed with a reason, no score). It counts
crashes (internal errors, tracebacks), stalls (a child over `--timeout`), lost lines (an id
without its record, or a record under an id no line has: a fabricated record) and made-up
scores (a number where the line owes none). Exit status 0 when all four are 0.
`generate_line` is the generator a wider soak (`benchmarks/fuzz_soak.py`) can draw from.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

FACTS = (
    ("What is the capital of France?", "Paris is the capital of France.", "Paris is the capital and largest city of France."),
    ("Who wrote Hamlet?", "William Shakespeare wrote Hamlet.", "Hamlet is a tragedy written by William Shakespeare."),
    ("When was the Eiffel Tower completed?", "It was completed in 1889.", "The Eiffel Tower was completed in March 1889."),
)
NOISE = ("", " ", "\u00e9t\u00e9", "\u202e", "[1]", "{x}", "{{ 7*7 }}", "\x1b[31m", "0", "null")


def _noisy(rng: random.Random, text: str) -> str:
    return text + rng.choice(NOISE) if rng.random() < 0.3 else text


def _passage_object(rng: random.Random, text: str, number: int) -> dict:
    kind = rng.choice(("text", "content", "page_content", "chunk", "document.content", "document", "node"))
    if kind == "document":
        return {"document": {"content": text, "id": f"d{number}", "score": rng.random()}}
    if kind == "node":
        return {"node": {"id_": f"n{number}", "text": text, "metadata": {"k": 1}}, "score": rng.random()}
    return {kind: text, "id": f"p{number}", "score": rng.random(), "metadata": {"source": "x"}}


def generate_line(kind: str, rng: random.Random, number: int) -> tuple[dict, str]:
    """(row, what it must come back as: "judged", "no context" or "refused") for one shape."""
    question, answer, line = rng.choice(FACTS)
    question, answer = _noisy(rng, question), _noisy(rng, answer)
    rid = f"s{number}"
    if kind == "langsmith_triple":
        return {"id": rid, "inputs": {"question": question},
                "outputs": {"answer": answer, "documents": [{"page_content": line, "metadata": {}, "type": "Document"}]},
                "reference_outputs": {"answer": answer}}, "judged"
    if kind == "langsmith_run":
        return {"id": rid, "name": "rag_bot", "run_type": "chain", "inputs": {"question": question},
                "outputs": {"answer": answer, "context": [line]}, "tags": [], "error": None}, "judged"
    if kind == "langsmith_flat":
        return {"id": rid, "inputs.question": question, "outputs.answer": answer, "outputs.context": [line],
                "reference.answer": answer, "execution_time": 0.5}, "judged"
    if kind == "mlflow":
        return {"id": rid, "inputs": question, rng.choice(("predictions", "outputs")): answer,
                rng.choice(("context", "retrieved_context")): [line], "ground_truth": answer,
                "faithfulness/v1/score": 4}, "judged"
    if kind == "phoenix_eval":
        return {"id": rid, "context.span_id": "ab12", "input": question, "output": answer, "reference": line}, "judged"
    if kind == "phoenix_span":  # a trace of one span (spans sharing a trace id are one item: generate_trace)
        return {"id": rid, "name": "q", "span_kind": "CHAIN", "context": {"trace_id": f"t{number}", "span_id": "s"},
                "attributes": {"input": {"value": question}, "output": {"value": answer},
                               "retrieval": {"documents": [{"document": {"content": line, "id": "d1"}}]}}}, "judged"
    if kind == "phoenix_span_flat":
        return {"id": rid, "name": "q", "span_kind": "CHAIN", "context.span_id": "s",
                "attributes.input.value": question, "attributes.output.value": answer,
                "attributes.retrieval.documents": [{"document.content": line, "document.id": "d1"}]}, "judged"
    if kind == "io_reference":  # nothing tells Phoenix's reference (a context) from a gold answer
        return {"id": rid, "input": question, "output": answer, "reference": answer}, "refused"
    if kind == "io_context_reference":
        return {"id": rid, "input": question, "output": answer, "context": [line], "reference": answer}, "judged"
    if kind == "phoenix_io_context":
        return {"id": rid, "context.span_id": "ab12", "context.trace_id": f"t{number}", "input": question,
                "output": answer, "context": line, "metadata": rng.choice((None, {"user": "u1"}))}, "judged"
    if kind == "deepeval_case":
        return {"id": rid, "name": f"test_case_{number}", "input": question, "actualOutput": answer,
                "expectedOutput": answer, "retrievalContext": [line], "success": True, "order": number,
                "metricsData": [{"name": "Faithfulness", "score": 1.0, "success": True}]}, "judged"
    if kind == "deepeval_two_contexts":
        return {"id": rid, "name": "c", "input": question, "actualOutput": answer, "context": [line],
                "retrievalContext": [line]}, "refused"
    if kind == "passage_objects":
        return {"id": rid, "question": question, "answer": answer,
                "context": [_passage_object(rng, line, i) for i in range(rng.randint(1, 3))]}, "judged"
    if kind == "no_context":
        return {"id": rid, "question": question, "answer": answer}, "no context"
    if kind == "partial_export":
        return {"id": rid, "inputs": {"question": question}, "outputs": {"answer": answer},
                "reference_outputs": {"answer": answer}, "unexpected": 1}, "refused"
    if kind == "ambiguous_langsmith":
        return {"id": rid, "inputs": {"question": question}, "outputs": {"answer": answer}}, "refused"
    if kind == "bad_passage":
        return {"id": rid, "question": question, "answer": answer,
                "context": [line, rng.choice((None, 3, 2.5, True, {"score": 1}, {"text": "a", "content": "b"}))]}, "refused"
    raise ValueError(kind)


JSONL_KINDS = ("langsmith_triple", "langsmith_run", "langsmith_flat", "mlflow", "phoenix_eval", "phoenix_span",
               "phoenix_span_flat", "passage_objects", "no_context", "partial_export", "ambiguous_langsmith",
               "bad_passage", "io_reference", "io_context_reference", "phoenix_io_context", "deepeval_case",
               "deepeval_two_contexts", "phoenix_trace")


def generate_trace(rng: random.Random, number: int) -> tuple[list[dict], str]:
    """(span rows, trace id) of one RAG trace: a root CHAIN span, a RETRIEVER and an LLM child,
    nested or flattened as a spans frame writes them; the batch judges them as one item."""
    question, answer, line = rng.choice(FACTS)
    trace, root = f"trace{number}", f"r{number}"
    spans = [
        {"name": "rag", "span_kind": "CHAIN", "parent_id": None, "context": {"trace_id": trace, "span_id": root},
         "attributes": {"input": {"value": _noisy(rng, question)}, "output": {"value": _noisy(rng, answer)}}},
        {"name": "retrieve", "span_kind": "RETRIEVER", "parent_id": root, "context": {"trace_id": trace, "span_id": f"{root}a"},
         "attributes": {"input": {"value": question},
                        "retrieval": {"documents": [{"document": {"content": line, "id": "d1"}}]}}},
        {"name": "llm", "span_kind": "LLM", "parent_id": root, "context": {"trace_id": trace, "span_id": f"{root}b"},
         "attributes": {"input": {"value": f"Context: {line} Question: {question}"}, "output": {"value": answer},
                        "llm": {"model_name": "m"}}},
    ]
    if rng.random() < 0.5:
        spans = [{"context.trace_id": span["context"]["trace_id"], "context.span_id": span["context"]["span_id"],
                  "name": span["name"], "span_kind": span["span_kind"], "parent_id": span["parent_id"],
                  "attributes.input.value": span["attributes"]["input"]["value"],
                  "attributes.output.value": span["attributes"].get("output", {}).get("value"),
                  "attributes.retrieval.documents": [{"document.content": line, "document.id": "d1"}]
                  if span["span_kind"] == "RETRIEVER" else None} for span in spans]
    return spans, trace


def write_document_round(folder: Path, rows: int, rng: random.Random) -> list[tuple[Path, dict[str, str]]]:
    """MLflow's `eval_results_table.json` (pandas split, with and without its index) and a DeepEval
    test run file: [(path, {id: expectation})]; their rows are the batch's items (`row-<n>`)."""
    cases = [rng.choice(FACTS) for _ in range(rows)]
    columns = ["inputs", "outputs", "ground_truth", "retrieved_context", "faithfulness/v1/score"]
    table = {"columns": columns, "data": [[q, a, a, [line], 5] for q, a, line in cases]}
    if rng.random() < 0.5:
        table["index"] = list(range(rows))
    run = {"testFile": "t.py", "testCases": [
        {"name": f"test_case_{n}", "input": q, "actualOutput": a, "expectedOutput": a, "retrievalContext": [line],
         "success": True, "metricsData": [], "order": n} for n, (q, a, line) in enumerate(cases)],
        "testPassed": rows, "testFailed": 0, "runDuration": 1.0}
    if rng.random() < 0.5:
        run = {"testRunData": run}
    written = []
    for name, document in (("eval_results_table.json", table), ("test_run.json", run)):
        path = folder / name
        path.write_text(json.dumps(document), encoding="utf-8")
        written.append((path, {f"row-{n}": "judged" for n in range(1, rows + 1)}))
    return written


def write_csv_round(path: Path, rows: int, rng: random.Random, limit: int) -> dict[str, str]:
    """A CSV of numpy list cells, oversized quoted cells holding forged rows, and a `;` header
    (every other round): {id: expectation}."""
    delimiter = ";" if rng.random() < 0.5 else ","
    expect: dict[str, str] = {}
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, delimiter=delimiter)
        writer.writerow(["id", "question", "answer", "retrieved_contexts"])
        for number in range(1, rows + 1):
            question, answer, line = rng.choice(FACTS)
            rid = f"c{number}"
            if rng.random() < 0.2:
                forged = "\n".join(f"c{number + k},forged question,forged answer,forged" for k in range(1, 4))
                writer.writerow([rid, question, answer, "x" * 20 + "\n" + forged + "y" * limit])
                expect[rid] = "refused"
            else:
                writer.writerow([rid, question, answer, f"['{line}' 'Another passage.']"])
                expect[rid] = "judged"
    return expect


def check(out: Path, expect: dict[str, str], stderr: str) -> Counter:
    counts: Counter = Counter()
    if "Traceback" in stderr:
        counts["crashes"] += 1
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()] if out.exists() else []
    seen = {str(r.get("id")) for r in records}
    counts["lost lines"] += len(set(expect) - seen) + len(seen - set(expect))
    for record in records:
        if record.get("internal_error"):
            counts["crashes"] += 1
            continue
        owed = expect.get(str(record.get("id")))
        result = record.get("result") or {}
        scores = [result.get(k) for k in ("faithfulness", "context_relevance", "answer_relevance", "semantic_similarity")]
        if any(isinstance(s, float) and not 0.0 <= s <= 1.0 for s in scores):
            counts["made-up scores"] += 1
        if owed == "refused":
            if any(s is not None for s in scores) or not (record.get("input_error") or result.get("reason")):
                counts["made-up scores"] += 1
        elif owed == "no context":
            if result.get("faithfulness") is not None or result.get("context_relevance") is not None \
                    or "no context given" not in str(result.get("faithfulness_explanation")):
                counts["made-up scores"] += 1
        elif owed == "judged":
            if result.get("faithfulness") is None and "failed" not in str(result.get("evaluation_status")):
                counts["unjudged"] += 1
        counts[f"as {owed}"] += 1
    return counts


def run_cli(path: Path, out: Path, base_url: str, timeout: float, *extra: str) -> tuple[int | None, str]:
    command = [sys.executable, str(ROOT / "cli.py"), "evaluate", str(path), "--out", str(out),
               "--base-url", base_url, "--model", "demo", *extra]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return None, ""
    return done.returncode, done.stderr


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--lines", type=int, default=1000)
    parser.add_argument("--csv-rows", type=int, default=100)
    parser.add_argument("--document-rows", type=int, default=20,
                        help="rows of the MLflow table and of the DeepEval test run file")
    parser.add_argument("--seed", type=int, default=44)
    parser.add_argument("--timeout", type=float, default=3600)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    totals: Counter = Counter()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        path, out = base / "shapes.jsonl", base / "shapes_out.jsonl"
        expect: dict[str, str] = {}
        kinds: Counter = Counter()
        rows: list[dict] = []
        for number in range(1, args.lines + 1):
            kind = rng.choice(JSONL_KINDS)
            if kind == "phoenix_trace":
                spans, trace = generate_trace(rng, number)
                rows += spans
                expect[trace] = "judged"
            else:
                row, owed = generate_line(kind, rng, number)
                rows.append(row)
                expect[row["id"]] = owed
            kinds[kind] += 1
        rng.shuffle(rows)  # a trace's spans anywhere in the file, as exports ordered by time interleave them
        with path.open("w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=rng.random() < 0.5) + "\n")
        code, stderr = run_cli(path, out, args.base_url, args.timeout)
        totals["stalls"] += code is None
        totals.update(check(out, expect, stderr))
        totals[f"exit {code}"] += 1
        csv_path, csv_out = base / "cells.csv", base / "cells_out.jsonl"
        csv_expect = write_csv_round(csv_path, args.csv_rows, rng, 2000)
        code, stderr = run_cli(csv_path, csv_out, args.base_url, args.timeout, "--max-line-bytes", "2000")
        totals["stalls"] += code is None
        totals.update({f"csv {k}": v for k, v in check(csv_out, csv_expect, stderr).items()})
        for document, document_expect in write_document_round(base, args.document_rows, rng):
            document_out = base / f"{document.stem}_out.jsonl"
            code, stderr = run_cli(document, document_out, args.base_url, args.timeout)
            totals["stalls"] += code is None
            totals.update({f"documents {k}": v for k, v in check(document_out, document_expect, stderr).items()})
    print(json.dumps({"lines": args.lines, "csv_rows": args.csv_rows, "kinds": dict(kinds),
                      "counts": dict(totals), "seconds": round(time.perf_counter() - started, 1)}, indent=1))
    bad = sum(totals[k] for k in ("crashes", "stalls", "lost lines", "made-up scores",
                                  "csv crashes", "csv lost lines", "csv made-up scores",
                                  "documents crashes", "documents lost lines", "documents made-up scores"))
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
