"""Regression tests of issue #20: no reply and no input line can crash a run or lose a line.

Each failure the issue lists is reproduced through the real CLI (in process) and the real HTTP
path, against the fake OpenAI-compatible server on 127.0.0.1 (`tests.support.fault_server`),
in single-item mode and in batch mode. docs/untrusted-input.md lists what each case turns into.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from judgegraph.commands import cli
from judgegraph.graph import rubrics
from tests.support.exit_codes import exit_for_records, exit_for_result
from tests.support.fault_server import FaultServer, RawReply, default_reply

ITEMS = {
    "rag": {"question": "Capital of France?", "context": "Paris is the capital of France.",
            "answer": "Paris. It is in Europe.", "reference": "Paris"},
    "coverage": {"input": "Summarise.", "reference": "Revenue grew 10% in 2023. Growth is strong.",
                 "output_text": "Revenue grew about 10%."},
    "liverag": {"question": "What colour is the sky?", "answer": "Blue. It is clear.",
                "documents": ["The sky is blue."], "gold_reference": "blue"},
    "expected_output": {"input": "Rate the answer", "actualOutput": "Paris", "expectedOutput": "Paris",
                        "evaluationType": "numerical",
                        "evaluationConfig": {"min_range": 0, "max_range": 10, "criteria": "accuracy"}},
}


def valid(step: str, schema: dict, body: dict) -> str:
    return json.dumps(default_reply(step, schema, body))


def logprobs_of(value: float) -> dict:
    return {"content": [{"token": token, "logprob": value, "top_logprobs": [{"token": token, "logprob": value}]}
                        for token in ['{"', "verdict", '":"', "supported", '"}']]}


BAD_REPLIES = {
    "lone surrogate in the content": lambda s, sc, b: RawReply(content=valid(s, sc, b)[:-1] + ', "x": "\ud800"}'),
    "logprobs is a number": lambda s, sc, b: RawReply(content=valid(s, sc, b), logprobs=5),
    "logprobs.content is a string": lambda s, sc, b: RawReply(content=valid(s, sc, b), logprobs={"content": "abc"}),
    "a log-probability of 800": lambda s, sc, b: RawReply(content=valid(s, sc, b), logprobs=logprobs_of(800.0)),
    "finish_reason is a number": lambda s, sc, b: RawReply(content=valid(s, sc, b), finish_reason=7),
    "negative and non-integer usage": lambda s, sc, b: RawReply(
        content=valid(s, sc, b), usage={"prompt_tokens": -5, "completion_tokens": 2.5, "total_tokens": -3}),
    "content is not text": lambda s, sc, b: RawReply(content={"a": 1}),
}
"""The reply shapes that used to raise outside the step's error handling (issue #20)."""

FAILS_THE_REPLY = {"lone surrogate in the content", "finish_reason is a number", "content is not text"}


def run_cli(*args) -> int:
    return cli.main(["evaluate", *map(str, args), "--no-embeddings", "--retries", "0", "--max-repairs", "1"])


def flags(server: FaultServer) -> list[str]:
    return ["--base-url", server.base_url, "--model", "fuzz"]


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def assert_valid_result(rubric: str, result: dict) -> None:
    """The rubric's judged or failure shape, strict JSON, no number outside its scale."""
    spec = rubrics.get(rubric)
    json.dumps(result, allow_nan=False)
    assert any(_validates(model, result) for model in spec.output_models), result


def _validates(model, value) -> bool:
    try:
        model.model_validate(value)
    except Exception:  # noqa: BLE001 - any failure means "not this shape"
        return False
    return True


@pytest.mark.parametrize("kind", sorted(BAD_REPLIES))
@pytest.mark.parametrize("rubric", sorted(ITEMS))
def test_a_bad_reply_is_a_failed_attempt_in_single_item_mode(tmp_path, capsys, kind, rubric):
    item = tmp_path / "item.json"
    item.write_text(json.dumps(ITEMS[rubric]))
    trace = tmp_path / "trace.json"
    with FaultServer(reply=BAD_REPLIES[kind]) as server:
        code = run_cli(item, *flags(server), "--trace-out", trace)
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    result = json.loads(out.out)
    assert code == exit_for_result(rubric, result), out.err  # 1 when no metric could be judged
    assert_valid_result(rubric, result)
    attempts = [a for node in json.loads(trace.read_text())["nodes"] for a in node["attempts"]]
    assert attempts, "the judge was called"
    if kind in FAILS_THE_REPLY:
        assert not any(a["ok"] for a in attempts)
        assert all(a["errors"] for a in attempts)
    else:  # side data is ignored, the reply itself judged
        assert all(a["ok"] for a in attempts)
    if kind == "negative and non-integer usage":
        assert all(a["input_tokens"] == 0 and a["output_tokens"] == 0 for a in attempts)
        assert any("usage input_tokens ignored" in e for a in attempts for e in a["errors"])


@pytest.mark.parametrize("kind", sorted(BAD_REPLIES))
def test_a_bad_reply_loses_no_item_and_no_metric_in_a_batch(tmp_path, kind):
    lines = [dict(item, id=f"{rubric}-{n}") for n in range(2) for rubric, item in sorted(ITEMS.items())]
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = tmp_path / "out.jsonl"
    with FaultServer(reply=BAD_REPLIES[kind]) as server:
        code = run_cli(items, "--out", out, *flags(server))
        sent = server.requests
    got = records(out)
    assert code == exit_for_records(got)  # 1 when no metric of any record could be judged
    assert sorted(r["id"] for r in got) == sorted(line["id"] for line in lines)
    for record in got:
        assert "internal_error" not in record, record["internal_error"]
        assert_valid_result(record["rubric"], record["result"])
    assert sum(r["usage"]["calls"] for r in got) == sent


def test_the_reply_reason_names_the_surrogate_not_the_model_call(tmp_path, capsys):
    item = tmp_path / "item.json"
    item.write_text(json.dumps(ITEMS["coverage"]))
    with FaultServer(reply=BAD_REPLIES["lone surrogate in the content"]) as server:
        assert run_cli(item, *flags(server)) == 1  # nothing judged (docs/exit-codes.md)
    result = json.loads(capsys.readouterr().out)
    assert result["score"] is None
    assert "lone surrogate (U+D800)" in result["rationale"][-1]


# --- input ------------------------------------------------------------------------------------

def good_lines(count: int) -> list[str]:
    return [json.dumps(dict(ITEMS["rag"], id=f"good-{n}")) for n in range(count)]


def run_batch(tmp_path: Path, body: bytes, server: FaultServer, *extra) -> tuple[int, Path]:
    items, out = tmp_path / "items.jsonl", tmp_path / "out.jsonl"
    items.write_bytes(body)
    return run_cli(items, "--out", out, *flags(server), *extra), out


def test_a_huge_integer_loses_only_its_own_line_and_keeps_its_id(tmp_path):
    huge = '{"id": "huge", "question": "q", "answer": "a", "context": "c", "n": ' + "9" * 5000 + "}"
    body = "\n".join([good_lines(2)[0], huge, good_lines(2)[1]]).encode() + b"\n"
    with FaultServer() as server:
        code, out = run_batch(tmp_path, body, server)
    got = {r["id"]: r for r in records(out)}
    assert code == 1 and set(got) == {"good-0", "good-1", "huge"}  # a record failed: docs/exit-codes.md
    assert "5,000 digits" in got["huge"]["input_error"] and got["huge"]["usage"]["calls"] == 0
    assert got["good-0"]["result"]["evaluation_status"] == "success"


def test_an_id_with_a_lone_surrogate_is_kept_json_escaped_and_no_line_is_lost(tmp_path):
    body = "\n".join([good_lines(2)[0], json.dumps(dict(ITEMS["rag"], id="bad\ud800id")),
                      good_lines(2)[1]]).encode() + b"\n"
    with FaultServer() as server:
        code, out = run_batch(tmp_path, body, server, "--format", "csv", "--html", tmp_path / "r.html")
        again, _ = run_batch(tmp_path, body, server)  # resume: every id is already there
    raw = out.read_bytes()
    raw.decode("utf-8")  # the file stays UTF-8
    assert b"bad\\ud800id" in raw
    got = {r["id"]: r for r in records(out)}
    assert code == 1 and again == 0 and set(got) == {"good-0", "good-1", "bad\ud800id"}  # a record failed: docs/exit-codes.md
    assert "lone surrogate" in got["bad\ud800id"]["input_error"]
    assert len(records(out)) == 3


def test_a_bom_on_the_first_line_keeps_the_items_id(tmp_path, capsys):
    with FaultServer() as server:
        code, out = run_batch(tmp_path, b"\xef\xbb\xbf" + "\n".join(good_lines(2)).encode() + b"\n", server)
        single = tmp_path / "item.json"
        single.write_bytes(b"\xef\xbb\xbf" + json.dumps(ITEMS["rag"]).encode())
        assert run_cli(single, *flags(server)) == 0
    # records are written as items finish, so their order is not the input's
    assert code == 0 and sorted(r["id"] for r in records(out)) == ["good-0", "good-1"]
    assert json.loads(capsys.readouterr().out)["evaluation_status"] == "success"


def test_a_lone_surrogate_in_a_question_is_rejected_before_any_call(tmp_path, capsys):
    item = tmp_path / "item.json"
    item.write_text(json.dumps(dict(ITEMS["rag"], question="Capital\udc80 of France?")))
    trace = tmp_path / "trace.json"
    with FaultServer() as server:
        assert run_cli(item, *flags(server), "--trace-out", trace) == 1  # invalid: not judged
        body = "\n".join([json.dumps(dict(ITEMS["rag"], id="s", question="Q\ud800?")), good_lines(1)[0]])
        code, out = run_batch(tmp_path, body.encode() + b"\n", server)
        sent = server.requests
    result = json.loads(capsys.readouterr().out)
    assert result["evaluation_status"] == "failed"
    assert "'question' holds a lone surrogate (U+DC80)" in result["reason"]
    assert json.loads(trace.read_text())["usage"]["calls"] == 0
    got = {r["id"]: r for r in records(out)}
    assert code == 1 and got["s"]["usage"]["calls"] == 0 and "lone surrogate" in got["s"]["input_error"]  # a record failed: docs/exit-codes.md
    assert sent == sum(r["usage"]["calls"] for r in got.values()) > 0  # only good-0 called the judge


@pytest.mark.parametrize("text, words", [
    ("[" * 10_000 + "]" * 10_000, "nested too deeply"),
    ('{"question": ' * 100 + '"q"' + "}" * 100, None),
])
def test_deep_nesting_in_a_single_file_is_one_line(tmp_path, capsys, text, words):
    item = tmp_path / "item.json"
    item.write_text(text)
    code = run_cli(item, "--base-url", "http://127.0.0.1:9/v1", "--model", "x")
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    if words:  # cannot even be parsed: a usage error
        assert code == 2 and words in out.err and len(out.err.strip().splitlines()) == 1
    else:  # parsed: the rubric's failure shape, no call (port 9 would refuse one)
        assert code == 1 and "nested more than 64 levels" in json.loads(out.out)["reason"]  # not judged


def test_a_huge_integer_in_a_single_file_fails_the_item_with_its_reason(tmp_path, capsys):
    item = tmp_path / "item.json"
    item.write_text(json.dumps(ITEMS["rag"])[:-1] + ', "extra": ' + "1" * 4400 + "}")
    assert run_cli(item, "--base-url", "http://127.0.0.1:9/v1", "--model", "x") == 1  # not judged
    assert "'extra' is an integer of 4,400 digits" in json.loads(capsys.readouterr().out)["reason"]



def test_a_key_given_twice_fails_its_own_line_and_keeps_its_id(tmp_path):
    """`json.loads` keeps a repeated key's last value and drops the first without a word: the
    item would be judged on one of two contexts (or questions) the user gave."""
    twice = ('{"id": "twice", "question": "What is the capital of France?", "answer": "Paris.", '
             '"context": "Paris is the capital of France.", "context": "Lyon is a city."}')
    nested = ('{"id": "nested", "inputs": {"question": "a", "question": "What is the capital?"}, '
              '"outputs": {"answer": "Paris."}, "reference_outputs": {"answer": "Paris"}}')
    body = "\n".join([good_lines(2)[0], twice, nested, good_lines(2)[1]]).encode() + b"\n"
    with FaultServer() as server:
        code, out = run_batch(tmp_path, body, server)
        sent = server.requests
    got = {r["id"]: r for r in records(out)}
    assert code == 1 and set(got) == {"good-0", "good-1", "twice", "nested"}
    assert got["twice"]["input_error"] == ("Input parsing error: line 2: the key 'context' is given twice, and "
                                           "JSON keeps only its last value; keep one.")
    assert "the key 'question' is given twice in 'inputs'" in got["nested"]["input_error"]
    assert got["twice"]["usage"]["calls"] == got["nested"]["usage"]["calls"] == 0
    assert got["good-1"]["result"]["evaluation_status"] == "success"
    assert sent == sum(r["usage"]["calls"] for r in got.values()) > 0


@pytest.mark.parametrize("name, text, where", [
    ("items.json", '[{"id": "a", "question": "q", "question": "Q?", "answer": "A.", "context": "c"}]',
     "item 1 of the array"),
    ("items.csv", 'id,question,answer,contexts\na,Q?,A.,"{""text"": ""x"", ""text"": ""y""}"\n', "line 2"),
])
def test_a_key_given_twice_in_a_json_array_or_a_csv_cell_is_an_input_error(tmp_path, name, text, where):
    items, out = tmp_path / name, tmp_path / "out.jsonl"
    items.write_text(text)
    with FaultServer() as server:
        code = run_cli(items, "--out", out, *flags(server))
    (got,) = records(out)
    assert code == 1 and got["id"] == "a" and got["usage"]["calls"] == 0
    assert got["input_error"].startswith(f"Input parsing error: {where}: the key ")
    assert "is given twice" in got["input_error"]


def test_a_key_given_twice_in_a_single_file_is_one_line(tmp_path, capsys):
    item = tmp_path / "item.json"
    item.write_text('{"question": "q", "answer": "a", "context": "x", "context": "y"}')
    code = run_cli(item, "--base-url", "http://127.0.0.1:9/v1", "--model", "x")
    out = capsys.readouterr()
    assert code == 2 and out.out == ""
    assert out.err == (f"judgegraph: cannot parse {item}: the key 'context' is given twice, and JSON keeps only "
                       "its last value; keep one\n")

# --- made-up numbers, calls, summary ------------------------------------------------------------

def test_an_internal_error_reports_no_score_and_counts_the_calls_made(tmp_path, monkeypatch, capsys):
    """Coverage broken after its judge calls: null score (never the content rule's 0), the calls
    counted, and the summary's two columns count the failed records alike."""
    def broken(_counts):
        raise RuntimeError("the formula broke")

    monkeypatch.setattr("judgegraph.nodes.coverage.coverage_metric.coverage_score", broken)
    monkeypatch.setattr("judgegraph.nodes.liverag.relevance.score_relevance", broken)
    lines = [dict(ITEMS["coverage"], id="cov"), dict(ITEMS["liverag"], id="live"), dict(ITEMS["rag"], id="rag")]
    with FaultServer() as server:
        code, out = run_batch(tmp_path, "".join(json.dumps(x) + "\n" for x in lines).encode(), server)
    got = {r["id"]: r for r in records(out)}
    assert code == 1  # a record failed: docs/exit-codes.md
    cov = got["cov"]
    assert cov["internal_error"].startswith("RuntimeError: the formula broke")
    assert cov["result"]["score"] is None and "missing or ambiguous" not in json.dumps(cov["result"])
    assert cov["usage"]["calls"] > 0
    assert got["live"]["internal_error"] and got["live"]["result"]["relevance_score"] is None
    err = capsys.readouterr().err
    row = re.search(r"failed \(status failed / error\)\s*│\s*([\d,]+)\s*│\s*([\d,]+)", err)
    assert row, err
    assert row.group(1) == row.group(2) == "2"  # cov and live; the rag item was judged
