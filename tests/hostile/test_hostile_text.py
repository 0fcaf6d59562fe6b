"""Hostile text through the real CLI (issue #29): a number of a million digits, an item file
over the size limit, a code-side check that raises, and a huge line of initials in a batch.

Each runs `commands.cli.main` in process against the fake OpenAI-compatible judge on 127.0.0.1
(`tests.support.fault_server`), the way a user runs judgegraph. The linearity of the text rules
themselves is tested in `tests/text/test_text_linearity.py`; figures are in `benchmarks/hostile_text.py`.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

from judgegraph.commands import cli
from judgegraph.nodes.claims import verdict as verdict_rules
from tests.support.fault_server import FaultServer

RAG_METRICS = ("faithfulness", "context_relevance", "answer_relevance", "semantic_similarity")
MILLION_DIGITS = "9" * 1_000_000
NORMAL = {"question": "Capital of France?", "context": "Paris is the capital of France.",
          "answer": "Paris. It is in Europe.", "reference": "Paris"}


def run_cli(*args) -> int:
    return cli.main(["evaluate", *map(str, args), "--no-embeddings", "--retries", "0", "--max-repairs", "0"])


def flags(server: FaultServer) -> list[str]:
    return ["--base-url", server.base_url, "--model", "fuzz"]


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def million_digit_item() -> dict:
    return dict(NORMAL, context=[f"The count is {MILLION_DIGITS} units.", "Paris is the capital of France."],
                answer=f"Paris. The count is {MILLION_DIGITS[:10]} units.")


def test_a_million_digit_number_in_one_item_is_judged_with_every_metric(tmp_path, capsys):
    item = tmp_path / "item.json"
    item.write_text(json.dumps(million_digit_item()))
    with FaultServer() as server:
        code = run_cli(item, *flags(server), "--max-line-bytes", 2_100_000)
    out = capsys.readouterr()
    assert code == 0 and "Traceback" not in out.err
    result = json.loads(out.out)
    assert result["evaluation_status"] == "success"
    assert all(result[metric] is not None for metric in RAG_METRICS), result


def test_a_million_digit_number_in_a_batch_keeps_the_record_and_its_metrics(tmp_path):
    lines = [dict(NORMAL, id="before"), dict(million_digit_item(), id="digits"), dict(NORMAL, id="after")]
    items, out = tmp_path / "items.jsonl", tmp_path / "out.jsonl"
    items.write_text("".join(json.dumps(line) + "\n" for line in lines))
    with FaultServer() as server:
        assert run_cli(items, "--out", out, *flags(server), "--max-line-bytes", 2_100_000) == 0
    got = {record["id"]: record for record in records(out)}
    assert set(got) == {"before", "digits", "after"}
    assert "internal_error" not in got["digits"], got["digits"].get("internal_error")
    assert all(got["digits"]["result"][metric] is not None for metric in RAG_METRICS)


def test_a_code_side_check_that_raises_fails_only_its_metric(tmp_path, capsys, monkeypatch):
    def broken(*_args, **_kwargs):
        raise ArithmeticError("a rule nobody foresaw")

    monkeypatch.setattr(verdict_rules, "number_conflict", broken)
    item = tmp_path / "item.json"
    item.write_text(json.dumps(NORMAL))
    with FaultServer() as server:
        code = run_cli(item, *flags(server))
    out = capsys.readouterr()
    assert code == 1 and "Traceback" not in out.err  # a record failed: docs/exit-codes.md
    result = json.loads(out.out)
    assert result["faithfulness"] is None
    assert "code-side checks failed: ArithmeticError: a rule nobody foresaw" in json.dumps(result)
    assert result["context_relevance"] is not None and result["answer_relevance"] is not None


def test_an_item_file_over_the_size_limit_is_refused_in_one_line(tmp_path, capsys):
    item = tmp_path / "item.json"
    item.write_text(json.dumps(dict(NORMAL, context="x" * 2_000)))
    with FaultServer() as server:
        code = run_cli(item, *flags(server), "--max-line-bytes", 1_000)
        calls = server.requests
    err = capsys.readouterr().err
    assert code == 2 and calls == 0
    assert err.count("\n") == 1 and "over the limit of 1000 bytes for one item (--max-line-bytes)" in err


def test_the_default_size_limit_refuses_a_two_megabyte_item(tmp_path, capsys):
    item = tmp_path / "item.json"
    item.write_text(json.dumps(million_digit_item()))  # two copies of a million digits: 2 MB
    assert run_cli(item, "--base-url", "http://127.0.0.1:9/v1", "--model", "unused") == 2
    assert "over the limit of 1000000 bytes" in capsys.readouterr().err


def test_a_huge_line_of_initials_does_not_hold_up_the_other_items(tmp_path, monkeypatch):
    """The line of initials is judged, and its text work runs off the event loop (a worker
    thread), so the loop keeps serving the other items meanwhile. Before, it ran on the loop
    with a quadratic splitter (this line alone: hours). Checked by where the splitting runs,
    not by the order items finish in, which depends on the machine's load."""
    from judgegraph.text import sentences

    threads_by_size: dict[bool, set[str]] = {True: set(), False: set()}
    split = sentences._sentences

    def recording(text: str):
        threads_by_size[len(text) >= 10_000].add(threading.current_thread().name)
        return split(text)

    monkeypatch.setattr(sentences, "_sentences", recording)
    initials = "A. " * 100_000
    lines = [dict(NORMAL, id="initials", context=[initials, "Paris is the capital of France."],
                  answer="Paris. " + initials[:30_000])]
    lines += [dict(NORMAL, id=f"normal-{n}") for n in range(6)]
    items, out = tmp_path / "items.jsonl", tmp_path / "out.jsonl"
    items.write_text("".join(json.dumps(line) + "\n" for line in lines))
    with FaultServer() as server:
        assert run_cli(items, "--out", out, *flags(server), "--concurrency", 8) == 0
    by_id = {record["id"]: record for record in records(out)}
    assert sorted(by_id) == ["initials", *(f"normal-{n}" for n in range(6))]
    assert threads_by_size[True] and threading.main_thread().name not in threads_by_size[True]
    big = by_id["initials"]
    assert "internal_error" not in big and big["result"]["evaluation_status"] == "success"
