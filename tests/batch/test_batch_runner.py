"""The batch CLI end to end, in process, with a scripted judge behind the fake OpenAI-compatible
server (`--base-url` / `--model`, as a user runs it)."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from judgegraph.commands import cli
from judgegraph.schemas.rag import RagResult
from tests.support.fakes import answer_relevance, claims, context_relevance, judge, similarity, verdict
from tests.support.scripted_server import ScriptedEndpoint


class InFlight:
    """Counts concurrent model calls (wraps every reply in a short sleep; the server answers
    each request in its own thread)."""

    def __init__(self, seconds: float = 0.0) -> None:
        self.seconds = seconds
        self.now = 0
        self.peak = 0
        self.lock = threading.Lock()

    def __call__(self, reply):
        def delayed(_prompt: str):
            with self.lock:
                self.now += 1
                self.peak = max(self.peak, self.now)
            time.sleep(self.seconds)
            with self.lock:
                self.now -= 1
            return reply
        return delayed


def rag_judge(wrap=lambda reply: reply):
    return judge(
        extract_claims=wrap(claims("Paris is the capital of France.")),
        check_claim=wrap(verdict("supported", 1)),
        judge_context_relevance=wrap(context_relevance("yes", [1])),
        judge_answer_relevance=wrap(answer_relevance()),
        judge_semantic_similarity=wrap(similarity(5)),
    )


def rag_item(item_id=None, **extra):
    item = {"question": "What is the capital of France?", "context": "Paris is the capital of France.",
            "answer": "Paris.", "reference": "Paris"}
    if item_id is not None:
        item["id"] = item_id
    return item | extra


def write_lines(path: Path, lines: list) -> Path:
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines), encoding="utf-8")
    return path


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture
def scripted():
    """A fresh scripted rag judge served on 127.0.0.1; pass `*scripted.flags` to the CLI."""
    with ScriptedEndpoint(rag_judge()) as endpoint:
        yield endpoint


def run_cli(*argv: str) -> int:
    return cli.main(["evaluate", *map(str, argv)])


def test_batch_writes_one_line_per_id_and_survives_bad_input(tmp_path, scripted, capsys):
    items = write_lines(tmp_path / "items.jsonl", [
        rag_item("a"),
        rag_item(),                             # no id -> line-2
        "{this is not json",
        [1, 2, 3],
        rag_item("a", answer="duplicate"),     # duplicate id: skipped, reported
        rag_item("e", question=""),           # fails validation inside the graph
        "",                                    # blank: ignored
        rag_item(7),
    ])
    out = tmp_path / "results.jsonl"
    assert run_cli(items, "--out", out, *scripted.flags) == 1  # a record failed: docs/exit-codes.md
    got = {r["id"]: r for r in records(out)}
    assert sorted(got, key=str) == sorted(["a", "line-2", "line-3", "line-4", "e", 7], key=str)
    for record in got.values():
        RagResult.model_validate(record["result"])
        assert set(record) >= {"id", "line", "rubric", "result", "usage"}
        assert set(record["usage"]) >= {"calls", "input_tokens", "output_tokens", "seconds"}
    # one claim check ("Paris."), context relevance, answer relevance; similarity from embeddings
    assert got["a"]["result"]["evaluation_status"] == "success" and got["a"]["usage"]["calls"] == 3
    assert got["a"]["result"]["faithfulness"] == 1.0 and got["a"]["line"] == 1
    assert got["line-3"]["line"] == 3 and "line 3 is not valid JSON" in got["line-3"]["result"]["reason"]
    assert "got list" in got["line-4"]["input_error"]
    assert got["e"]["result"]["reason"] == "Input parsing error: user question is empty."
    assert got["e"]["usage"]["calls"] == 0
    err = capsys.readouterr().err
    assert "duplicate id 'a' at line 5 (first at line 1)" in err
    assert "Metrics over all 6 records" in err and "faithfulness" in err and "Totals" in err


def test_resume_skips_done_ids_and_judges_only_new_ones(tmp_path, scripted, capsys):
    items = write_lines(tmp_path / "items.jsonl", [rag_item("a"), rag_item("b")])
    out = tmp_path / "results.jsonl"
    assert run_cli(items, "--out", out, *scripted.flags) == 0
    first_calls = len(scripted.judge.calls)
    assert run_cli(items, "--out", out, *scripted.flags) == 0
    assert len(scripted.judge.calls) == first_calls  # nothing re-judged
    assert "resuming: 2 id(s)" in capsys.readouterr().err
    write_lines(items, [rag_item("a"), rag_item("b"), rag_item("c")])
    assert run_cli(items, "--out", out, *scripted.flags) == 0
    assert [r["id"] for r in records(out)].count("c") == 1 and len(records(out)) == 3


def test_resume_cuts_a_partial_line_left_by_a_kill(tmp_path, scripted, capsys):
    items = write_lines(tmp_path / "items.jsonl", [rag_item("a"), rag_item("b")])
    out = tmp_path / "results.jsonl"
    out.write_text(json.dumps({"id": "a", "result": {}}) + "\n" + '{"id": "b", "result": {"faith')
    assert run_cli(items, "--out", out, *scripted.flags) == 0
    assert [r["id"] for r in records(out)] == ["a", "b"]
    assert "cut a partial last line" in capsys.readouterr().err


def test_unreadable_input_and_missing_out_are_usage_errors(tmp_path, scripted, capsys):
    assert run_cli(tmp_path / "nope.jsonl", "--out", tmp_path / "o.jsonl", *scripted.flags) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("judgegraph: cannot read") and len(err.splitlines()) == 1
    items = write_lines(tmp_path / "items.jsonl", [rag_item("a")])
    assert run_cli(items, *scripted.flags) == 2
    assert "needs --out" in capsys.readouterr().err
    assert run_cli(items, "--out", items, *scripted.flags) == 2


def test_csv_format_writes_a_flat_table_next_to_out(tmp_path, scripted):
    items = write_lines(tmp_path / "items.jsonl", [rag_item("a"), "oops"])
    out = tmp_path / "results.jsonl"
    assert run_cli(items, "--out", out, "--format", "csv", *scripted.flags) == 1  # a record failed: docs/exit-codes.md
    lines = (tmp_path / "results.csv").read_text().splitlines()
    assert len(lines) == 3 and "result.faithfulness" in lines[0] and "usage.calls" in lines[0]


def test_an_exception_inside_the_graph_becomes_a_failed_record(tmp_path, scripted, monkeypatch):
    from judgegraph import graph
    import judgegraph.graph.api  # noqa: F401 - loads the submodule

    real = graph.api.arun_evaluation

    async def flaky(item, **kwargs):
        if item.get("answer") == "boom":
            raise RuntimeError("a rubric blew up")
        return await real(item, **kwargs)

    monkeypatch.setattr(graph.api, "arun_evaluation", flaky)
    items = write_lines(tmp_path / "items.jsonl", [rag_item("a"), rag_item("b", answer="boom")])
    out = tmp_path / "results.jsonl"
    assert run_cli(items, "--out", out, *scripted.flags) == 1  # a record failed: docs/exit-codes.md
    got = {r["id"]: r for r in records(out)}
    assert got["b"]["internal_error"] == "RuntimeError: a rubric blew up"
    assert got["b"]["result"]["evaluation_status"] == "failed"
    assert got["a"]["result"]["evaluation_status"] == "success"


def test_concurrency_bounds_model_calls_in_flight(tmp_path, scripted):
    """`--concurrency N` bounds the items in flight, and each item's own parallel calls to N:
    with one call per item (faithfulness only, a one-sentence answer) at most N calls are in
    flight; a full rag item fans out 3 calls, so up to N x min(N, 3) (docs/batch.md)."""
    tracker = InFlight(seconds=0.02)
    scripted.judge = rag_judge(tracker)
    items = write_lines(tmp_path / "items.jsonl", [rag_item(f"q{i}", metrics=["faithfulness"]) for i in range(12)])
    assert run_cli(items, "--out", tmp_path / "r2.jsonl", "--concurrency", "2", *scripted.flags) == 0
    assert tracker.peak <= 2
    tracker.peak = 0
    assert run_cli(items, "--out", tmp_path / "r4.jsonl", "--concurrency", "4", *scripted.flags) == 0
    assert 2 < tracker.peak <= 4
    tracker.peak = 0
    full = write_lines(tmp_path / "full.jsonl", [rag_item(f"q{i}") for i in range(12)])
    assert run_cli(full, "--out", tmp_path / "full2.jsonl", "--concurrency", "2", *scripted.flags) == 0
    assert tracker.peak <= 2 * 2


def test_a_single_json_item_with_out_is_one_record(tmp_path, scripted):
    item = tmp_path / "item.json"
    item.write_text(json.dumps(rag_item("solo"), indent=2))
    out = tmp_path / "results.jsonl"
    assert run_cli(item, "--out", out, *scripted.flags) == 0
    assert [r["id"] for r in records(out)] == ["solo"]


def test_the_id_key_is_not_passed_to_the_rubric(tmp_path, scripted):
    items = write_lines(tmp_path / "items.jsonl", [rag_item("secret-id-123")])
    assert run_cli(items, "--out", tmp_path / "r.jsonl", *scripted.flags) == 0
    assert not any("secret-id-123" in prompt for _, prompt, _ in scripted.judge.calls)


def test_max_line_bytes_is_configurable(tmp_path, scripted):
    items = write_lines(tmp_path / "items.jsonl", [rag_item("short"), rag_item("long", context="c" * 500)])
    out = tmp_path / "results.jsonl"
    assert run_cli(items, "--out", out, "--max-line-bytes", "400", *scripted.flags) == 1  # a record failed: docs/exit-codes.md
    got = {r["id"]: r for r in records(out)}
    assert set(got) == {"short", "line-2"}
    assert "over the limit of 400 (--max-line-bytes)" in got["line-2"]["input_error"]


def test_a_nan_in_a_result_becomes_a_failed_record_not_invalid_json(tmp_path, scripted, monkeypatch):
    from judgegraph import graph
    import judgegraph.graph.api  # noqa: F401 - loads the submodule

    async def nan_result(item, **kwargs):
        return graph.api.EvaluationRun(result={"score": float("nan")}, results={}, rubrics=["rag"])

    monkeypatch.setattr(graph.api, "arun_evaluation", nan_result)
    items = write_lines(tmp_path / "items.jsonl", [rag_item("a")])
    out = tmp_path / "results.jsonl"
    # exit 1: the batch's only record failed, so nothing was judged (docs/exit-codes.md, issue #28)
    assert run_cli(items, "--out", out, *scripted.flags) == 1
    (record,) = records(out)
    assert record["internal_error"] == "the result held NaN or infinity"
    RagResult.model_validate(record["result"])


def test_ids_that_look_like_rich_markup_are_printed_literally(tmp_path, scripted, capsys):
    items = write_lines(tmp_path / "items.jsonl", [rag_item("[/x]"), rag_item("[/x]"), rag_item("[bold]b")])
    out = tmp_path / "[red]results.jsonl"
    assert run_cli(items, "--out", out, *scripted.flags) == 0
    err = capsys.readouterr().err
    assert "duplicate id '[/x]' at line 2" in err and "[red]results.jsonl" in err
    assert sorted(r["id"] for r in records(out)) == ["[/x]", "[bold]b"]
