"""The command line: stdout carries only the result JSON; clear one-line errors, exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from judgegraph.commands import cli
from judgegraph.llm.models import ModelConfigError, ResolvedModel
from tests.support import fakes
from tests.conftest import happy_scripts

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def scripted_model(monkeypatch):
    model = fakes.judge(**happy_scripts())

    def resolve(*args, **kwargs):
        return ResolvedModel(model, "fake:scripted", "json_schema")

    monkeypatch.setattr("judgegraph.llm.models.resolve_model", resolve)
    return model


@pytest.fixture
def item_file(tmp_path, rag_item):
    path = tmp_path / "item.json"
    path.write_text(json.dumps(rag_item))
    return path


def test_evaluate_prints_only_the_result_json_on_stdout(scripted_model, item_file, capsys):
    assert cli.main(["evaluate", str(item_file)]) == 0
    out, err = capsys.readouterr()
    result = json.loads(out)
    assert result["evaluation_status"] == "success"
    assert err == ""


def test_trace_goes_to_stderr_with_the_claims_table(scripted_model, item_file, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "220")
    assert cli.main(["evaluate", str(item_file), "--trace"]) == 0
    out, err = capsys.readouterr()
    json.loads(out)
    assert "extract_claims" in err and "check_claim" in err
    assert "Claims and verdicts" in err and "Craig Newmark founded Craigslist in 1995." in err


def test_trace_out_writes_json(scripted_model, item_file, tmp_path, capsys):
    trace_path = tmp_path / "trace.json"
    assert cli.main(["evaluate", str(item_file), "--trace-out", str(trace_path)]) == 0
    trace = json.loads(trace_path.read_text())
    assert trace["model"] == "fake:scripted"
    assert any(node["node"] == "check_claim" for node in trace["nodes"])
    assert len(trace["verdicts"]) == 1  # the answer's one sentence
    assert trace["verdicts"][0]["evidence"] == rag_item_context_line()


def rag_item_context_line() -> str:
    from tests.conftest import CONTEXT

    return CONTEXT[0]


def test_claims_and_embeddings_flags_reach_the_context(scripted_model, item_file, capsys, fake_default_embedder):
    assert cli.main(["evaluate", str(item_file), "--claims", "model", "--no-embeddings"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert scripted_model.count("extract_claims") == 1 and scripted_model.count("check_claim") == 2
    assert scripted_model.count("judge_semantic_similarity") == 1 and fake_default_embedder.calls == []
    assert result["semantic_similarity"] == 1.0


def test_an_invalid_item_exits_1_with_its_reason_on_stderr(scripted_model, tmp_path, capsys):
    """Issue #28: an invalid item exited 0 with nothing on stderr; the rubric's failure shape
    still goes to stdout, the reason to stderr, and the exit code says it was not judged."""
    path = tmp_path / "item.json"
    path.write_text(json.dumps({"rubric": "rag", "answer": "x"}))
    assert cli.main(["evaluate", str(path)]) == 1
    out, err = capsys.readouterr()
    assert json.loads(out)["reason"] == "Input parsing error: missing user question."
    assert err.strip() == "judgegraph: the item was not judged: Input parsing error: missing user question."


def test_model_configuration_error_is_one_line_exit_2(monkeypatch, item_file, capsys):
    def resolve(*args, **kwargs):
        raise ModelConfigError("no judge model configured: pass --model or --base-url")

    monkeypatch.setattr("judgegraph.llm.models.resolve_model", resolve)
    assert cli.main(["evaluate", str(item_file)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.strip() == "judgegraph: no judge model configured: pass --model or --base-url"


def test_missing_local_runtime_says_how_to_configure_a_model(monkeypatch, item_file, capsys):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("JUDGEGRAPH_MODEL", raising=False)
    monkeypatch.setattr("judgegraph.llm.local.find_spec", lambda name: None)
    assert cli.main(["evaluate", str(item_file)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "--model" in err and "--base-url" in err


@pytest.mark.parametrize(
    ("content", "message"),
    [(None, "cannot read"), ("{not json", "cannot parse"), (b"\xff\xfe\x00", "cannot read")],
    ids=["missing", "malformed", "binary"],
)
def test_unreadable_or_malformed_item_file_exits_2_without_traceback(tmp_path, content, message):
    path = tmp_path / "item.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    proc = subprocess.run(
        [sys.executable, "cli.py", "evaluate", str(path)], cwd=ROOT, capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert message in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_usage_error_exits_2():
    proc = subprocess.run([sys.executable, "cli.py", "evaluate"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "usage:" in proc.stderr
